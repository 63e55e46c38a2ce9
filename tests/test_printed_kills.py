"""Edge cases of the analysis helpers that compute printed numbers, on small hand-made
arrays (issue 63, point 4: the mutants the command-level references leave alive).

Each expected value is written out by hand or computed here by plain Python from the
documented definition; none calls the helper it checks. Where a helper's answer is a
missing value (no row made, no row failed, an empty half), it must come without a
division warning: the command line would print one to the user.
"""

from __future__ import annotations

import math
import re
import warnings
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

from bazarsim.analysis.convention import auc, constant_fitted, paired_difference
from bazarsim.analysis.stats import wilson_interval, z_score
from bazarsim.analysis.threshold import _class_result, breakeven

# --------------------------------------------------------------------------- stats


def wilson_roots(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The two p with (k/n - p)^2 = z^2 p (1 - p) / n (the quadratic's roots), z the
    normal quantile of (1 + confidence) / 2."""
    z2 = NormalDist().inv_cdf((1 + confidence) / 2) ** 2
    a, b, c = n + z2, -(2 * k + z2), k * k / n
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


@pytest.mark.parametrize("k, n", [(0, 1), (1, 1), (0, 7), (1, 7), (3, 7), (6, 7), (7, 7),
                                  (40, 1000), (0, 29), (12, 12)])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.999])
def test_wilson_interval_roots(k, n, confidence):
    """Both ends of the Wilson interval at every count of small n (none and all made
    included: exactly 0 and 1 there, where the formula gives 3e-18 above 0 at 0/29 and
    1e-16 below 1 at 12/12 at 80 %) and three confidence levels."""
    lo, hi = wilson_interval(k, n, confidence)
    want_lo, want_hi = wilson_roots(k, n, confidence)
    assert lo == 0.0 if k == 0 else lo == pytest.approx(want_lo, rel=1e-12)
    assert hi == 1.0 if k == n else hi == pytest.approx(want_hi, rel=1e-12)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_wilson_interval_and_z_score_edges():
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    assert wilson_interval(2, 4) == wilson_interval(2, 4, 0.95)  # 95 % unless told
    assert z_score(3, 10, 0.2) == pytest.approx(1 / math.sqrt(1.6), rel=1e-12)
    assert z_score(1, 10, 0.2) == pytest.approx(-1 / math.sqrt(1.6), rel=1e-12)
    for count, n, p in ((0, 0, 0.5), (0, 10, 0.0), (10, 10, 1.0), (1, 10, -0.1), (1, 10, 1.5)):
        assert math.isnan(z_score(count, n, p)), (count, n, p)


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


@pytest.fixture(scope="module")
def belote(tmp_path_factory):
    """One belote-fr deal, H and VK, DD and SD."""
    from bazarsim.engine.simulation import Simulation
    from bazarsim.rules.rulesets import get_ruleset

    from .conftest import built_dataset

    return built_dataset(tmp_path_factory, "kills-belote", Simulation(
        deals=1, seed=1, ruleset=get_ruleset("belote-fr"), kinds=(1, 5), columns="lean",
        dd=True, sd=2, chunk=1))


def test_bias_levels_in_a_game_without_levels(belote):
    """table bias --levels on a belote-fr dataset (a game without bid levels): one error
    line, not a table of made-up levels."""
    from bazarsim.analysis.bias import bias_table
    from bazarsim.core.errors import BazarsimError

    path = belote
    # belote-fr: a side makes with more points (cards + declarations + bela) than the
    # other, not with some level of them
    # other, not with some level of them; VK's cards hold 258 points
    deal = pd.read_parquet(path).iloc[0]
    res = bias_table(path)
    assert {k: res[k] for k in ("dataset", "ruleset", "deals", "dd", "sd")} == {
        "dataset": str(path), "ruleset": "belote-fr", "deals": 1, "dd": "double dummy",
        "sd": "single dummy, PIMC 2 worlds"}
    rows = res["rows"]
    assert [r["bid"] for r in rows] == ["H", "VK"]
    for row, total in zip(rows, (162, 258), strict=True):
        k = row["bid"]
        assert deal[f"{k}_dd_capot"] == deal[f"{k}_sd_capot"] == 0  # no capot bonus to add
        extra = [int(deal[f"{k}_declarations_{s}"] + deal[f"{k}_bela_{s}"]) for s in ("ns",
                                                                                   "ew")]
        made = {}
        for play in ("dd", "sd"):
            ns = int(deal[f"{k}_{play}_ns"])
            own = [ns + extra[0], total - ns + extra[1]]
            made[play] = [own[0] > own[1], own[1] > own[0]]  # per declaring side
            assert row[f"p_make_{play}"] == sum(made[play]) / 2
        both = sum(a and b for a, b in zip(made["dd"], made["sd"], strict=True))
        assert same_number(row["p_sd_given_dd_made"], both / sum(made["dd"]) if any(
            made["dd"]) else math.nan)
        assert row["n"] == 2
    with pytest.raises(BazarsimError, match="ruleset belote-fr has no bid levels: drop "
                                            "--levels"):
        bias_table(path, levels=[8])


# --------------------------------------------------------------------------- analyze


def hand_sample(scores, made, total, capot):
    from bazarsim.analysis.bids import Bid
    from bazarsim.analysis.hand import Sample

    bids = tuple(Bid(1, 8 + j) for j in range(len(scores)))
    return Sample(bids, (1,), np.array(made, bool), np.array(scores, np.int64),
                  np.array([total], np.int64), np.array([capot], bool))


def plain_mean_se(x):
    n = len(x)
    mean = sum(x) / n if n else math.nan
    se = math.sqrt(sum((v - mean) ** 2 for v in x) / (n - 1) / n) if n > 1 else math.nan
    return mean, se


def same_number(got, want):
    if want is None or (isinstance(want, float) and math.isnan(want)):
        return got is None if want is None else math.isnan(got)
    return got == pytest.approx(want, rel=1e-12, abs=1e-12)


def check_hand_rows(sample, scores, made, total, capot, confidence, want):
    """summarize and bid_rows against the plain figures: ``want`` gives the ranking, the
    best, ties, second best and whether the lead is significant and the best call."""
    from bazarsim.analysis.hand import bid_rows, summarize

    with warnings.catch_warnings():  # one deal, no rival: figures missing, no warning
        warnings.simplefilter("error")
        s = summarize(sample, confidence)
        rows = bid_rows(sample, s, confidence)
    n = len(total)
    best, second = want["order"][0], want["second"]
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    margin, se = plain_mean_se([a - b for a, b in zip(scores[best], scores[second],
                                                      strict=True)]) if second >= 0 else (
        math.nan, math.nan)
    k = sum(made[best])
    lo = 0.0 if k == 0 else wilson_roots(k, n, confidence)[0]
    hi = 1.0 if k == n else wilson_roots(k, n, confidence)[1]
    assert (s.n, s.best, s.second, s.ties) == (n, best, second, want["ties"])
    assert same_number(s.margin, margin) and same_number(s.se_margin, se)
    assert s.half_width == pytest.approx((hi - lo) / 2, rel=1e-12)
    assert s.significant == want["significant"]
    assert s.significant == (n > 1 and second >= 0 and margin - z * se > 0) or (
        math.isclose(margin, z * se))  # at the edge (the last case) the flag says it
    mean_total, se_total = plain_mean_se(total)
    for j, r in enumerate(rows):
        k = sum(made[j])
        lo = 0.0 if k == 0 else wilson_roots(k, n, confidence)[0]
        hi = 1.0 if k == n else wilson_roots(k, n, confidence)[1]
        mean, se_s = plain_mean_se(scores[j])
        behind, se_b = plain_mean_se([a - b for a, b in zip(scores[best], scores[j],
                                                            strict=True)])
        plain = {"kind": "H", "level": 8 + j, "capot": False, "bid": f"{8 + j}H", "n": n,
                 "made": k, "p_make": k / n, "ci_low": lo, "ci_high": hi,
                 "mean_total": mean_total, "se_total": se_total,
                 "p_capot": sum(capot) / n, "expected_score": mean, "se_score": se_s,
                 "pass_score": 0.0, "rank": want["order"].index(j) + 1,
                 "best": j == best and want["best_call"] != "pass",
                 "best_call": want["best_call"], "equal_to_best": j in want["ties"],
                 "behind_best": behind, "se_behind_best": se_b,
                 "second": f"{8 + second}H" if j == best and second >= 0 else None,
                 "margin": margin if j == best else None,
                 "se_margin": se if j == best else None}
        assert set(r) == set(plain), j
        for key, value in plain.items():
            if isinstance(value, float):
                assert same_number(r[key], value), (j, key, r[key], value)
            else:
                assert r[key] == value, (j, key)


def test_analyze_figures_by_hand():
    """Four sample deals, four bids: 8H best, 11H equal to it on every deal (a tie, ranked
    after it by order), 9H never above it (no rival), 10H above it on one deal (so the
    second best although 9H ranks higher); --confidence 0.9."""
    scores = [[10, 12, -8, 14], [10, 12, -16, 14], [20, -20, -20, 30], [10, 12, -8, 14]]
    made = [[1, 1, 0, 1], [1, 1, 0, 1], [1, 0, 0, 1], [1, 1, 0, 1]]
    total, capot = [90, 100, 60, 120], [0, 0, 0, 1]
    sample = hand_sample(scores, made, total, capot)
    check_hand_rows(sample, scores, made, total, capot, 0.9,
                    {"order": [0, 3, 1, 2], "second": 2, "ties": (3,), "significant": False,
                     "best_call": "8H"})


@pytest.mark.parametrize("case", ["every bid loses", "no rival", "one deal", "all equal",
                                  "a clear lead", "two deals", "a lead of exactly z SEs",
                                  "the best breaks even"])
def test_analyze_figures_at_the_edges(case):
    """Every bid scoring below 0 (the best call is pass); no bid ever above the best (the
    second best is the next one); one deal (no SE, nothing significant); every bid equal
    (no second best; the higher P(make) ranks first); a lead significant at 95 %; two
    deals, a lead of 1 with no spread over the first bid (significant); a lead of
    exactly z standard errors (2 = 2 x 1 at the confidence whose quantile is 2.0: not
    significant, the lead must exceed it). The ranking breaks equal means by P(make),
    then by the bids' order. A best bid whose expected score is exactly 0 does not pay:
    pass is the best call."""
    cases = {
        "every bid loses": ([[-10, -12, -6], [-16, -2, -30]], [[0, 1, 0], [0, 1, 0]],
                            {"order": [0, 1], "second": 1, "ties": (), "significant": False,
                             "best_call": "pass"}),
        "no rival": ([[10, 12, 8], [0, 12, 8], [10, 12, -8]], [[1, 1, 1], [0, 1, 1],
                                                                [1, 1, 0]],
                     {"order": [0, 1, 2], "second": 1, "ties": (), "significant": False,
                      "best_call": "8H"}),
        "one deal": ([[4], [6]], [[1], [1]],
                     {"order": [1, 0], "second": 0, "ties": (), "significant": False,
                      "best_call": "9H"}),
        "all equal": ([[4, -2], [4, -2]], [[0, 0], [1, 0]],
                      {"order": [1, 0], "second": -1, "ties": (0,), "significant": False,
                       "best_call": "9H"}),
        "a clear lead": ([[20, 22, 18, 21, 20], [2, 0, -4, 3, 8], [2, 2, 1, 0, -1]],
                         [[1] * 5, [0, 1, 0, 1, 1], [1, 0, 1, 0, 1]],
                         {"order": [0, 1, 2], "second": 1, "ties": (), "significant": True,
                          "best_call": "8H"}),
        "two deals": ([[0, 0], [1, 1]], [[0, 0], [1, 1]],
                      {"order": [1, 0], "second": 0, "ties": (), "significant": True,
                       "best_call": "9H"}),
        "a lead of exactly z SEs": ([[0, 0], [1, 3]], [[0, 0], [1, 1]],
                                    {"order": [1, 0], "second": 0, "ties": (),
                                     "significant": False, "best_call": "9H"}),
        "the best breaks even": ([[2, -2], [-4, -4]], [[1, 0], [0, 0]],
                                 {"order": [0, 1], "second": 1, "ties": (),
                                  "significant": True, "best_call": "pass"}),
    }
    scores, made, want = cases[case]
    n = len(scores[0])
    total, capot = [80 + 3 * i for i in range(n)], [i % 2 for i in range(n)]
    confidence = 0.9544997361036416 if case == "a lead of exactly z SEs" else 0.95
    if case == "a lead of exactly z SEs":  # the normal quantile is exactly 2.0 there
        assert NormalDist().inv_cdf(0.5 + confidence / 2) == 2.0
    check_hand_rows(hand_sample(scores, made, total, capot), scores, made, total, capot,
                    confidence, want)


def bias_expected(rows, confidence):
    """The bias row's figures from per-row (DD made, SD made, SD - DD points) triples."""
    n = len(rows)
    dd = sum(r[0] for r in rows)
    sd = sum(r[1] for r in rows)
    both = sum(r[0] and r[1] for r in rows)
    x = [r[1] - r[0] for r in rows]  # -1, 0, +1 per row
    gaps = [r[2] for r in rows if r[0]]

    def wil(k, m):
        if m == 0:
            return math.nan, math.nan
        lo, hi = wilson_roots(k, m, confidence)
        return 0.0 if k == 0 else lo, 1.0 if k == m else hi

    diff, se_diff = plain_mean_se(x)
    gap, se_gap = plain_mean_se(gaps)
    out = {"n": n, "dd_made": dd, "dd_failed": n - dd,
           "p_make_dd": dd / n, "p_make_sd": sd / n, "make_diff": diff,
           "se_make_diff": se_diff,
           "p_sd_given_dd_made": both / dd if dd else math.nan,
           "p_sd_given_dd_failed": (sd - both) / (n - dd) if n - dd else math.nan,
           "points_gap": gap, "se_points_gap": se_gap}
    for key, (k, m) in {"dd": (dd, n), "sd": (sd, n), "kept": (both, dd),
                        "saved": (sd - both, n - dd)}.items():
        out[f"{key}_low"], out[f"{key}_high"] = wil(k, m)
    return out


@pytest.mark.parametrize("rows", [
    [(1, 1, 4), (1, 0, -12), (0, 1, 9), (0, 0, 2), (1, 1, 0), (1, 1, -3)],  # every case
    [(1, 0, -7)],  # one row: no SE
    [(0, 0, 5), (0, 1, 3), (0, 1, 1)],  # DD never makes: nothing given DD made, no gap
    [(1, 1, 2), (1, 0, -6)],  # DD always makes: nothing given DD failed
    [(1, 1, 2), (0, 1, 5), (0, 0, 1)],  # one DD-made row: a gap, no SE
    [(1, 1, 3), (1, 1, 3), (0, 0, 0)],  # equal gaps and identical plays on two rows
])
def test_bias_row_by_hand(rows):
    """One bias row from its sums, --confidence 0.9, against the figures computed from
    the rows themselves."""
    from bazarsim.analysis.bias import _row
    from bazarsim.analysis.bids import Bid

    sums = {"n": len(rows), "dd": sum(r[0] for r in rows), "sd": sum(r[1] for r in rows),
            "both": sum(r[0] and r[1] for r in rows),
            "gap_n": sum(r[0] for r in rows), "gap": sum(r[2] for r in rows if r[0]),
            "gap2": sum(r[2] ** 2 for r in rows if r[0])}
    with warnings.catch_warnings():  # a missing figure comes without a warning
        warnings.simplefilter("error")
        got = _row(Bid(1, 9), {k: np.float64(v) for k, v in sums.items()}, 0.9)
    want = bias_expected(rows, 0.9)
    assert (got["kind"], got["bid"]) == ("H", "9H")
    assert set(got) == set(want) | {"kind", "bid"}
    for key, value in want.items():
        assert same_number(got[key], value), (key, got[key], value)


def test_bias_row_without_rows():
    """A bid with no row (a dataset of 0 deals: simulate --deals 0 is allowed): every
    figure missing, no division error (table bias then leaves the row out)."""
    from bazarsim.analysis.bias import _row
    from bazarsim.analysis.bids import Bid

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _row(Bid(1, 9), {k: np.float64(0) for k in ("n", "dd", "sd", "both", "gap_n",
                                                           "gap", "gap2")}, 0.95)
    assert (got["n"], got["dd_made"], got["dd_failed"]) == (0, 0, 0)
    for key, value in got.items():
        if key not in ("kind", "bid", "n", "dd_made", "dd_failed"):
            assert math.isnan(value), key


def test_bias_of_a_damaged_part_names_the_dataset(belote, tmp_path):
    """Pages damaged under an intact footer: one error line naming the dataset."""
    import shutil

    from bazarsim.analysis.bias import bias_table
    from bazarsim.store.parts import StoreError

    path = tmp_path / "damaged"
    shutil.copytree(belote, path)
    (part,) = sorted(path.glob("part-*.parquet"))
    data = bytearray(part.read_bytes())
    data[8:200] = b"\xff" * 192  # the first page header, after the magic bytes
    part.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=re.escape(repr(str(path)))):
        bias_table(path)
