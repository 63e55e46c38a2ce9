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
