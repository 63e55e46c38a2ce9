"""Every full gate (``make gate``) has a sample in ``make test``, as the Makefile promises.

A gate test's docstring names its sample: ``Sample in make test: test_name`` (one or more
names, comma-separated). Each named test must exist in ``tests/`` and run in the default
selection (not marked ``gate``), so a newcomer's ``make test`` touches every gate.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SAMPLE = re.compile(r"Sample in make test:\s*([\w\s,`]+)")


def _is_gate(node: ast.FunctionDef) -> bool:
    return any("gate" in ast.unparse(d) and "mark" in ast.unparse(d)
               for d in node.decorator_list)


def all_test_functions() -> dict[str, tuple[Path, ast.FunctionDef]]:
    found = {}
    for path in sorted(TESTS.glob("test_*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                found[node.name] = (path, node)
    return found


def gate_samples() -> dict[str, list[str]]:
    """Each gate test -> the make-test samples its docstring names."""
    out = {}
    for name, (_path, node) in all_test_functions().items():
        if _is_gate(node):
            m = SAMPLE.search(ast.get_docstring(node) or "")
            out[name] = re.findall(r"test_\w+", m.group(1)) if m else []
    return out


def test_every_gate_names_a_sample_that_make_test_runs():
    functions = all_test_functions()
    samples = gate_samples()
    assert len(samples) >= 10
    bad = []
    for gate, names in samples.items():
        if not names:
            bad.append(f"{gate}: no 'Sample in make test: test_...' in its docstring")
        for n in names:
            if n not in functions:
                bad.append(f"{gate}: its sample {n} does not exist")
            elif _is_gate(functions[n][1]):
                bad.append(f"{gate}: its sample {n} is itself a gate")
    assert bad == []
