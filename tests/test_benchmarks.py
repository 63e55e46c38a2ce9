"""The benchmark's NumPy comparator computes the same evaluation as the kernel."""

from __future__ import annotations

import numpy as np
import pytest

from bazarsim.evaluate.hands import evaluate_hands
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.rulesets import RULESETS
from benchmarks.bench_eval import numpy_points_and_declarations
from benchmarks.run import to_markdown

from .conftest import random_hands
from .test_evaluate import rich_hands


@pytest.mark.parametrize("name", list(RULESETS))
def test_numpy_comparator_matches_kernel(name):
    rs = RULESETS[name]
    hands = np.concatenate([random_hands(20_000, 3), rich_hands(2_000, 4)])
    for kind in rs.kinds:
        pts, decl = numpy_points_and_declarations(hands, kind, compiled_rules(rs))
        ref = evaluate_hands(hands, kind, rs)
        assert np.array_equal(pts, ref["points"])
        assert np.array_equal(decl, ref["declaration_points"])


def test_markdown_report_lists_rows():
    meta = {"date": "d", "python": "3", "numba": "n", "cpus": 2, "bazarsim": "0"}
    rows = [{"group": "g", "name": "x", "value": 2.5e8, "unit": "hands/s", "note": ""}]
    md = to_markdown(meta, rows)
    assert "## g" in md and "| x | 250.00 M | hands/s |" in md


def test_markdown_report_dates_sections_kept_from_earlier_runs():
    meta = {"date": "today", "python": "3", "numba": "n", "cpus": 2, "bazarsim": "0"}
    fresh = {"group": "new", "name": "x", "value": 1.0, "unit": "u", "note": "",
             "measured": "today"}
    kept = {"group": "old", "name": "y", "value": 2.0, "unit": "u", "note": "",
            "measured": "yesterday"}
    assert "Measured" not in to_markdown(meta, [fresh])
    md = to_markdown(meta, [kept, fresh])
    assert "## old\n\nMeasured yesterday." in md and "## new\n\nMeasured today." in md
    undated = dict(kept)
    del undated["measured"]
    assert "Measured before rows were dated." in to_markdown(meta, [undated, fresh])
