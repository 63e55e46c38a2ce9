"""Edge cases of the analysis helpers that compute printed numbers, on small hand-made
arrays (issue 63, point 4: the mutants the command-level references leave alive).

Each expected value is written out by hand or computed here by plain Python from the
documented definition; none calls the helper it checks. Where a helper's answer is a
missing value (no row made, no row failed, an empty half), it must come without a
division warning: the command line would print one to the user.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from bazarsim.analysis.convention import auc, constant_fitted, paired_difference
from bazarsim.analysis.threshold import _class_result, breakeven

# --------------------------------------------------------------------------- threshold


@pytest.mark.parametrize("n_made, n_failed, s_made, s_failed, want", [
    (1, 1, 10.0, -5.0, 1 / 3),  # one row each: 5 / (10 + 5)
    (2, 4, 1.0, -1.0, 1 / 3),  # means 0.5 and -0.25, 0.75 apart: 0.25 / 0.75
    (1, 1, 5.0, 5.0, math.inf),  # making scores no more than failing
    (3, 0, 30.0, 0.0, 0.0),  # no failed row: the bid always pays
    (0, 2, 0.0, -10.0, math.inf),  # no made row
])
def test_breakeven_edges(n_made, n_failed, s_made, s_failed, want):
    """-S_failed / (S_made - S_failed) with the mean scores, at the documented edges;
    no warning on the way."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = float(breakeven(n_made, n_failed, s_made, s_failed))
    assert got == pytest.approx(want, rel=1e-12) if math.isfinite(want) else got == want


def class_table(rows):
    """``tab[group, value] = failed, made, score sum failed, score sum made`` from
    ``(group, value, made, score)`` rows, and its totals as _class_result gets them."""
    tab = np.zeros((2, 3, 4))
    for g, v, made, score in rows:
        tab[g, v, 1 if made else 0] += 1
        tab[g, v, 3 if made else 2] += score
    tot = tab.sum(0)
    return tab, tot, tot[:, 0] + tot[:, 1]


ROWS = [(0, 0, False, -10), (1, 0, False, -10), (0, 1, True, 20), (1, 1, False, -10),
        (0, 2, True, 20), (1, 2, True, 20)]  # P(make) 0, 1/2, 1 at values 0, 1, 2


@pytest.mark.parametrize("target", [0.5, 0.5 + 1e-12])
def test_threshold_reaches_at_the_target(target):
    """A value whose fitted P(make) equals the --target (or is within the 1e-12 the
    threshold allows below it) reaches it: rows and threshold agree."""
    tab, tot, n = class_table(ROWS)
    assert (target - 1e-12 == 0.5) or target == 0.5
    got = _class_result("points", None, None, tab, tot, n, np.arange(3), target, 10, 1)
    assert [r["reaches"] for r in got["rows"]] == [False, True, True]
    assert [r["fitted"] for r in got["rows"]] == [0.0, 0.5, 1.0]
    assert got["threshold"] == 1.0 and got["target"] == target


@pytest.mark.parametrize("made", [False, True])
def test_threshold_class_made_by_none_or_all(made):
    """A class whose rows all fail (or all make): the missing mean score is None in the
    JSON (NaN here), the other one is the rows' mean, and no division warning."""
    rows = [(g, v, made, 30 if made else -20) for g, v, *_ in ROWS]
    tab, tot, n = class_table(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _class_result("points", None, None, tab, tot, n, np.arange(3), None, 10, 1)
    assert (got["n"], got["made"]) == (6, 6 if made else 0)
    assert got["target"] == (0.0 if made else math.inf)
    if made:
        assert got["mean_score_made"] == 30.0 and math.isnan(got["mean_score_failed"])
    else:
        assert got["mean_score_failed"] == -20.0 and math.isnan(got["mean_score_made"])


# --------------------------------------------------------------------------- convention


def test_auc_without_failed_or_made_rows():
    """AUC by counting pairs (made above failed, ties half) on a small table; missing,
    without a warning, when no row failed or none made."""
    values = np.array([1.0, 2.0, 3.0])
    made, failed = np.array([1.0, 0.0, 2.0]), np.array([1.0, 2.0, 0.0])
    pos = [v for v, k in zip(values, made, strict=True) for _ in range(int(k))]
    neg = [v for v, k in zip(values, failed, strict=True) for _ in range(int(k))]
    pairs = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
    assert auc(values, made, failed) == pytest.approx(pairs / (len(pos) * len(neg)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(auc(values, made, np.zeros(3)))
        assert math.isnan(auc(values, np.zeros(3), failed))


def test_constant_prediction_with_an_empty_half():
    """Each half is predicted by the other half's make rate; an empty half predicts
    nothing (NaN), without a warning."""
    counts = np.zeros((2, 2, 2))  # [value, half, failed/made]
    counts[0, 0] = [3, 1]
    counts[1, 0] = [0, 4]  # half 0: 5 made of 8; half 1: no row
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = constant_fitted(counts)
    assert math.isnan(got[0]) and got[1] == 5 / 8


def plain_paired(a, b):
    """The ratio estimate of the mean difference per row and its SE over groups with
    rows: sqrt(g / (g - 1) * sum (d_g - mean * n_g)^2) / N; no SE from one group."""
    d = [x[0] - y[0] for x, y in zip(a, b, strict=True)]
    n = [x[1] for x in a]
    total = sum(n)
    mean = sum(d) / total
    g = sum(1 for k in n if k > 0)
    if g < 2:
        return mean, math.nan
    ss = sum((dg - mean * ng) ** 2 for dg, ng in zip(d, n, strict=True))
    return mean, math.sqrt(g / (g - 1) * ss) / total


@pytest.mark.parametrize("a, b", [
    ([[0.5, 1], [0.9, 3], [0.4, 4]], [[0.25, 1], [0.3, 3], [0.5, 4]]),  # a group of 1 row
    ([[0.6, 2], [0.1, 3]], [[0.2, 2], [0.3, 3]]),  # two groups: the smallest with an SE
    ([[0.6, 2], [0.0, 0]], [[0.2, 2], [0.0, 0]]),  # one group with rows: no SE
])
def test_paired_difference_small_groups(a, b):
    got = paired_difference(np.array(a, float), np.array(b, float))
    want = plain_paired(a, b)
    assert got[0] == pytest.approx(want[0], rel=1e-12)
    if math.isnan(want[1]):
        assert math.isnan(got[1])
    else:
        assert got[1] == pytest.approx(want[1], rel=1e-12)


# --------------------------------------------------------------------------- bias


def test_bias_levels_in_a_game_without_levels(tmp_path_factory):
    """table bias --levels on a belote-fr dataset (a game without bid levels): one error
    line, not a table of made-up levels."""
    from bazarsim.analysis.bias import bias_table
    from bazarsim.core.errors import BazarsimError
    from bazarsim.engine.simulation import Simulation
    from bazarsim.rules.rulesets import get_ruleset

    from .conftest import built_dataset

    path = built_dataset(tmp_path_factory, "kills-belote", Simulation(
        deals=1, seed=1, ruleset=get_ruleset("belote-fr"), kinds=(1,), columns="lean",
        dd=True, sd=2, chunk=1))
    assert [r["bid"] for r in bias_table(path)["rows"]] == ["H"]
    with pytest.raises(BazarsimError, match="ruleset belote-fr has no bid levels: drop "
                                            "--levels"):
        bias_table(path, levels=[8])
