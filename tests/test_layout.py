"""The package's layering: each stage imports only from the stages before it, and no
module imports a private name of another."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bazarsim.core.jitcache import STAGES  # the stage order, also used by the cache guard

PACKAGE = Path(__file__).resolve().parent.parent / "bazarsim"


def imports(path: Path) -> list[tuple[str, list[str]]]:
    """``(module, names)`` of every ``from bazarsim... import names`` in a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "bazarsim" or node.module.startswith("bazarsim."):
                found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.ImportFrom) and node.level:
            found.append(("." * node.level + (node.module or ""), []))
    return found


def test_every_module_is_in_a_stage():
    loose = [p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py",
                                                                    "__main__.py")]
    assert loose == []
    assert sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()) == sorted(
        STAGES)


@pytest.mark.parametrize("stage", STAGES)
def test_stage_imports_only_earlier_stages(stage):
    allowed = set(STAGES[: STAGES.index(stage) + 1])
    bad = []
    for path in (PACKAGE / stage).rglob("*.py"):
        for module, _names in imports(path):
            assert not module.startswith("."), f"{path}: relative import {module}"
            parts = module.split(".")
            if len(parts) > 1 and parts[1] not in allowed:
                bad.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert bad == []


def test_no_private_names_imported_across_modules():
    bad = []
    for path in PACKAGE.rglob("*.py"):
        for module, names in imports(path):
            bad += [f"{path.relative_to(PACKAGE)}: {module}.{n}" for n in names
                    if n.startswith("_") and n != "__version__"]
    assert bad == []


def _njit_options(node: ast.FunctionDef) -> dict | None:
    for d in node.decorator_list:
        if isinstance(d, ast.Call) and getattr(d.func, "attr", getattr(d.func, "id", "")) == "njit":
            return {k.arg: getattr(k.value, "value", None) for k in d.keywords}
    return None


def test_inlined_helpers_call_only_inlined_helpers():
    """A Numba function compiled while a ``forceinline`` one is being compiled inherits the
    flag unless it sets its own: a search entry point called from an inlined helper would
    be inlined whole at every call site (minutes of compilation). So ``forceinline``
    helpers call only other ``forceinline`` helpers."""
    inlined, plain, bodies = set(), set(), {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and (opts := _njit_options(node)) is not None:
                if opts.get("forceinline"):
                    inlined.add(node.name)
                elif opts.get("inline") != "always":  # Numba inlines those in its own IR
                    plain.add(node.name)
                bodies[node.name] = node
    assert inlined and plain
    bad = {name: sorted(called & plain) for name in inlined
           if (called := {n.func.id for n in ast.walk(bodies[name])
                          if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}) & plain}
    assert bad == {}


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere in its text (at the top, in a
    function, under TYPE_CHECKING): an arrow is an arrow however late it is followed."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        modules[".".join(parts)] = path
    graph = {}
    for name, path in modules.items():
        edges = set()
        for module, names in imports(path):
            for n in names:  # ``from bazarsim.engine import local`` imports a module
                edges.add(f"{module}.{n}" if f"{module}.{n}" in modules else module)
        graph[name] = {e for e in edges if e in modules and e != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    """Arrows run one way inside the package too: a description (engine.simulation) is
    used by the engines that run it, never the reverse."""
    assert cycles(import_graph()) == []


def test_the_circle_finder_finds_a_circle():
    graph = import_graph()
    graph["bazarsim.engine.simulation"] = graph["bazarsim.engine.simulation"] | {
        "bazarsim.engine.local"}
    assert ["bazarsim.engine.local", "bazarsim.engine.simulation"] in cycles(graph)
