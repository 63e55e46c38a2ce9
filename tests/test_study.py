"""Threshold and convention studies against plain-Python references.

The monotone fit is checked against a brute-force least-squares search over every split
into blocks, the bootstrap against a replicate-by-replicate loop, AUC against a count of
pairs, and the streamed per-value tables of the CLI against the rows of the dataset scored
one by one with the scalar ``score_deal``.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from bazarsim.analysis.bids import parse_by
from bazarsim.analysis.convention import (
    ValueCounts,
    auc,
    convention_study,
    cross_fitted,
    deal_folds,
    deal_split,
    parse_formula,
    scores,
)
from bazarsim.analysis.threshold import (
    bootstrap_draws,
    bootstrap_thresholds,
    breakeven,
    deal_hash,
    first_reaching,
    isotonic_fit,
    percentile_interval,
    threshold_study,
)
from bazarsim.cli import app
from bazarsim.core.contracts import Contract
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.rules.scoring import DealOutcome, score_deal
from bazarsim.store.parts import read_dataframe

from .conftest import built_dataset

runner = CliRunner()
DEALS = 300


# --------------------------------------------------------------------------- references


def brute_isotonic(y, w):
    """Every split of the sequence into consecutive blocks, each at its weighted mean; the
    non-decreasing one of least weighted squared error."""
    n = len(y)
    best, best_loss = None, math.inf
    for cuts in itertools.product((0, 1), repeat=n - 1):
        fit, start = [], 0
        for i in range(n):
            if i == n - 1 or cuts[i]:
                seg = slice(start, i + 1)
                m = float(np.dot(y[seg], w[seg]) / w[seg].sum())
                fit += [m] * (i + 1 - start)
                start = i + 1
        if any(b < a - 1e-12 for a, b in itertools.pairwise(fit)):
            continue
        loss = float(np.dot(w, (np.asarray(y) - fit) ** 2))
        if loss < best_loss - 1e-12:
            best, best_loss = fit, loss
    return np.array(best)


def naive_pav(y, w):
    """Merge the first adjacent pair of blocks out of order until none is (any length)."""
    blocks = [[float(a) * float(b), float(b), 1] for a, b in zip(y, w, strict=True)]
    while True:
        for i in range(len(blocks) - 1):
            if blocks[i][0] / blocks[i][1] > blocks[i + 1][0] / blocks[i + 1][1]:
                a, b = blocks[i], blocks.pop(i + 1)
                blocks[i] = [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
                break
        else:
            return np.array([s / w for s, w, k in blocks for _ in range(k)])


def naive_threshold(values, n, made, target):
    keep = [i for i in range(len(n)) if n[i] > 0]
    fit = brute_isotonic(np.array([made[i] / n[i] for i in keep]),
                         np.array([float(n[i]) for i in keep]))
    for i, f in zip(keep, fit, strict=True):
        if f >= target - 1e-12:
            return float(values[i])
    return math.inf


def naive_auc(x, made):
    pos = [a for a, m in zip(x, made, strict=True) if m]
    neg = [a for a, m in zip(x, made, strict=True) if not m]
    total = sum(1.0 if p > q else 0.5 if p == q else 0.0 for p in pos for q in neg)
    return total / (len(pos) * len(neg))


# --------------------------------------------------------------------------- fit, rule


@pytest.mark.parametrize("seed", range(40))
def test_isotonic_fit_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    y = rng.integers(0, 4, n) / 3.0 if seed % 2 else rng.random(n)
    w = rng.integers(1, 6, n).astype(float)
    fit = isotonic_fit(y, w)
    assert np.allclose(fit, brute_isotonic(y, w), atol=1e-12)
    assert np.allclose(fit, naive_pav(y, w), atol=1e-12)
    assert np.all(np.diff(fit) >= -1e-12)
    assert math.isclose(np.dot(fit, w), np.dot(y, w))  # pooling keeps the weighted sum


def test_threshold_rule():
    values = np.arange(6, dtype=float)
    n = np.array([10, 0, 10, 10, 10, 10.0])
    made = np.array([1, 0, 6, 4, 7, 9.0])  # 0.1, -, 0.6, 0.4, 0.7, 0.9: 0.6/0.4 pool at 0.5
    assert first_reaching(values, n, made, 0.5) == 2.0
    assert first_reaching(values, n, made, 0.55) == 4.0
    assert first_reaching(values, n, made, 0.05) == 0.0
    assert first_reaching(values, n, made, 0.95) == math.inf
    last = -math.inf
    for target in np.linspace(0, 1, 21):
        thr = first_reaching(values, n, made, target)
        assert thr == naive_threshold(values, n, made, target)
        assert thr >= last  # a higher target never lowers the threshold
        last = thr


def test_breakeven_is_where_expected_score_is_zero():
    p = float(breakeven(30, 70, 30 * 40.0, 70 * -160.0))
    assert math.isclose(p * 40 + (1 - p) * -160, 0, abs_tol=1e-9)
    assert math.isclose(p, 0.8)
    assert breakeven(5, 0, 50.0, 0.0) == 0.0  # never fails: always pays
    assert breakeven(0, 5, 0.0, -50.0) == math.inf  # never made
    assert breakeven(5, 5, -60.0, -50.0) == math.inf  # making scores less than failing


def test_percentile_interval():
    s = np.arange(1000, dtype=float)[::-1]
    assert percentile_interval(s) == (25.0, 974.0)
    assert percentile_interval(np.array([1.0] * 10 + [math.inf] * 90))[1] == math.inf


# --------------------------------------------------------------------------- bootstrap


@pytest.mark.parametrize("target", [None, 0.5])
def test_bootstrap_equals_naive_loop(target):
    rng = np.random.default_rng(3)
    groups, values, reps, seed = 7, np.arange(5), 60, 11
    n = rng.integers(0, 6, (groups, 5)).astype(float)
    made = np.floor(n * rng.random((groups, 5)) * (np.arange(5) + 1) / 4).clip(0, n)
    table = np.stack([n - made, made, -150.0 * (n - made) * rng.random((groups, 5)),
                      60.0 * made * rng.random((groups, 5))], axis=-1)
    got = bootstrap_thresholds(table, values, reps, seed, target)
    idx = np.random.default_rng(seed).integers(0, groups, size=(reps, groups))
    want = []
    for b in range(reps):
        pooled = sum(table[g] for g in idx[b])
        goal = target if target is not None else float(breakeven(
            pooled[:, 1].sum(), pooled[:, 0].sum(), pooled[:, 3].sum(), pooled[:, 2].sum()))
        want.append(naive_threshold(values, pooled[:, 0] + pooled[:, 1], pooled[:, 1], goal))
    assert np.array_equal(got, np.array(want))
    assert np.array_equal(got, bootstrap_thresholds(table, values, reps, seed, target))


def test_bootstrap_draws_are_resamples():
    d = bootstrap_draws(9, 50, 1)
    assert d.shape == (50, 9) and (d.sum(1) == 9).all()
    assert np.array_equal(d, bootstrap_draws(9, 50, 1))


# --------------------------------------------------------------------------- convention


@pytest.mark.parametrize("seed", range(10))
def test_auc_equals_pairwise_count(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, 40).astype(float)
    made = rng.random(40) < (x + 1) / 8
    vals = np.unique(x)
    m = np.array([(made & (x == v)).sum() for v in vals], float)
    f = np.array([(~made & (x == v)).sum() for v in vals], float)
    assert math.isclose(auc(vals, m, f), naive_auc(x, made))


def test_value_counts_merge_batches():
    rng = np.random.default_rng(5)
    vc = ValueCounts(groups=3)
    xs, groups, folds, mades = [], [], [], []
    for _ in range(4):
        x = rng.integers(0, 9, 50) * 2.5
        group, fold, made = rng.integers(0, 3, 50), rng.integers(0, 2, 50), rng.integers(0, 2, 50)
        vc.add(x, group, fold, made)
        xs.append(x), groups.append(group), folds.append(fold), mades.append(made)
    x, group, fold, made = map(np.concatenate, (xs, groups, folds, mades))
    assert np.array_equal(vc.values, np.unique(x))
    for i, v in enumerate(vc.values):
        for g, a, b in itertools.product((0, 1, 2), (0, 1), (0, 1)):
            assert vc.counts[i, g, a, b] == ((x == v) & (group == g) & (fold == a)
                                             & (made == b)).sum()


def test_cross_fit_scores_each_half_with_the_other():
    values = np.array([0.0, 1.0, 2.0])
    counts = np.zeros((3, 2, 2))
    counts[:, 0, :] = [[3, 1], [2, 2], [1, 3]]  # half 0: rates 0.25, 0.5, 0.75
    counts[:, 1, :] = [[4, 0], [0, 4], [2, 2]]  # half 1: 0, 1, 0.5 -> fit 0, 0.75, 0.75
    pred = cross_fitted(values, counts)
    assert np.allclose(pred[:, 0], [0, 0.75, 0.75])
    assert np.allclose(pred[:, 1], [0.25, 0.5, 0.75])
    brier, loss = scores(pred.ravel(), counts[:, :, 1].ravel(), counts[:, :, 0].ravel())
    rows = [(p, m) for (v, h), p in np.ndenumerate(pred)
            for m, k in ((1, counts[v, h, 1]), (0, counts[v, h, 0])) for _ in range(int(k))]
    ps = np.clip([p for p, _ in rows], 1e-3, 1 - 1e-3)
    ys = np.array([m for _, m in rows])
    assert math.isclose(brier, np.mean((ps - ys) ** 2))
    assert math.isclose(loss, -np.mean(ys * np.log(ps) + (1 - ys) * np.log(1 - ps)))


def test_folds_and_groups_are_seeded():
    """The fold split of 10,000 deals (a fixed hash) within 3 pp of halves: 6 SE for a
    fair coin (false failure 2.1e-9; 0 for this hash); a split biased by 3.6 pp fails
    with 90 % power."""
    deal = np.arange(10_000)
    f = deal_folds(deal, 7)
    assert set(np.unique(f)) == {0, 1} and abs(f.mean() - 0.5) < 0.03
    assert np.array_equal(f, deal_folds(deal, 7)) and not np.array_equal(f, deal_folds(deal, 8))
    assert not np.array_equal(deal_hash(deal, 1), deal_hash(deal, 2))


def test_formula_parser():
    f = parse_formula("points + 10*trumps + 20*jack")
    assert dict(f.terms) == {"points": 1.0, "trumps": 10.0, "jack": 20.0}
    f = parse_formula(" -2.5 * len_S - -aces + 3 + points*2 - points ")
    assert dict(f.terms) == {"len_S": -2.5, "aces": 1.0, "points": 1.0} and f.constant == 3
    assert dict(parse_formula("20*trump_jacks + 14*trump_nines").terms) == {"jack": 20.0,
                                                                            "nine": 14.0}
    assert f.evaluate(lambda name: {"len_S": np.array([2]), "aces": np.array([1]),
                                    "points": np.array([40])}[name])[0] == 39.0
    for bad, token in [("", None), ("points +", None), ("points * trumps", "trumps"),
                       ("10 trumps", "trumps"), ("foo + 1", "foo"), ("(points)", "("),
                       ("points ** 2", "*"), ("3 + 4", None), ("points - points", None),
                       ("points / 2", "/"), ("__import__('os')", "("), ("os.system", ".")]:
        with pytest.raises(BazarsimError) as err:
            parse_formula(bad)
        assert "formula" in str(err.value)
        if token:
            assert err.value.token == token, bad


# --------------------------------------------------------------------------- datasets


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A small DD-solved bazar dataset, hearts and no trump only (cheap to solve)."""
    return built_dataset(tmp_path_factory, "study", Simulation(
        deals=DEALS, seed=5, ruleset=get_ruleset("bazar"), kinds=(1, 4), columns="lean",
        dd=True, chunk=100))


def reference_rows(path, kind=1, level=9, feature="trumps"):
    """Plain Python: (deal index, feature value, made, score) of every (deal, seat)."""
    rs = get_ruleset("bazar")
    df = read_dataframe(path)
    out = []
    for _, row in df.iterrows():
        ns = int(row["H_dd_ns"] if kind == 1 else row["BK_dd_ns"])
        k = "H" if kind == 1 else "BK"
        cap = int(row[f"{k}_dd_capot"])
        for seat in range(4):
            side = seat & 1
            pts = (ns, rs.total_points(kind) - ns)
            tricks = (8, 0) if cap == 1 else (0, 8) if cap == 2 else (4, 4)
            decl = (int(row[f"{k}_declarations_ns"]), int(row[f"{k}_declarations_ew"]))
            bela = (int(row[f"{k}_bela_ns"]), int(row[f"{k}_bela_ew"]))
            sc = score_deal(Contract(level, kind, seat, 0, False),
                            DealOutcome(pts, tricks, decl, bela), rs)
            hand = int(row["NESW"[seat]])
            value = {"trumps": (hand >> 8 & 0xFF).bit_count(),
                     "points": int(row[f"{'NESW'[seat]}_{k}_points"]),
                     "aces": (hand & 0x80808080).bit_count()}[feature]
            out.append((int(row["index"]), value, bool(sc.made),
                        sc.scores[side] - sc.scores[1 - side]))
    return out


def test_threshold_table_equals_reference(dataset):
    """Counts, mean scores, break-even, threshold and isotonic fit against plain-Python
    rows. The interval check (lo <= threshold) reads 50 seeded bootstrap replicates: it
    fails only if at most one lands at or below the threshold; here 29 of 50 do, so a
    fresh seed fails with probability 1e-17 (binomial, 0.58 a replicate)."""
    res = threshold_study(dataset, "H", "trumps", level=9, replicates=50)
    ref = reference_rows(dataset)
    (cls,) = res["classes"]
    assert cls["n"] == len(ref) == 4 * DEALS
    for r in cls["rows"]:
        rows = [x for x in ref if x[1] == r["trumps"]]
        assert (r["n"], r["made"]) == (len(rows), sum(x[2] for x in rows))
    made = [x[3] for x in ref if x[2]]
    failed = [x[3] for x in ref if not x[2]]
    assert math.isclose(cls["mean_score_made"], np.mean(made))
    assert math.isclose(cls["mean_score_failed"], np.mean(failed))
    p = cls["target"]
    assert math.isclose(p * np.mean(made) + (1 - p) * np.mean(failed), 0, abs_tol=1e-9)
    n = np.zeros(9)
    m = np.zeros(9)
    for _, v, mk, _ in ref:
        n[v] += 1
        m[v] += mk
    assert (cls["threshold"] or math.inf) == naive_threshold(np.arange(9), n, m, p)
    fitted = [r["fitted"] for r in cls["rows"]]
    assert np.allclose(fitted, brute_isotonic(np.array([r["p_make"] for r in cls["rows"]]),
                                              np.array([r["n"] for r in cls["rows"]], float)))
    if cls["threshold"] is not None:
        lo, hi = cls["ci_low"], cls["ci_high"]
        assert (lo is None or lo <= cls["threshold"]) and (hi is None or hi >= lo)


def test_threshold_within_classes(dataset):
    res = threshold_study(dataset, "H", "points", level=8, within="trumps=0..2,3,4..",
                          target=0.5, replicates=30)
    assert [c["trumps"] for c in res["classes"]] == ["0..2", "3", "4.."]
    assert sum(c["n"] for c in res["classes"]) == 4 * DEALS
    assert all(c["target"] == 0.5 for c in res["classes"])


def test_convention_equals_reference(dataset):
    res = convention_study(dataset, "H", ["aces"], level=9, compare=True, seed=3)
    assert [c["name"] for c in res["counts"]][:2] == ["formula", "hand points"]
    assert sum(c["best"] for c in res["counts"]) == 1
    ref = reference_rows(dataset, feature="aces")
    c = res["counts"][0]
    assert c["n"] == len(ref)
    assert math.isclose(c["auc"], naive_auc([x[1] for x in ref], [x[2] for x in ref]))
    fold, group = deal_split(np.array([x[0] for x in ref]), 3)
    y = np.array([x[2] for x in ref])

    def honest(x):  # each half predicted by the other half's monotone fit
        p = np.empty(len(x))
        for h in (0, 1):
            other = fold != h
            vals = np.unique(x[other])
            fit = naive_pav(np.array([y[other & (x == v)].mean() for v in vals]),
                            np.array([(other & (x == v)).sum() for v in vals], float))
            p[fold == h] = np.interp(x[fold == h], vals, fit)
        return np.clip(p, 1e-3, 1 - 1e-3)

    p = honest(np.array([x[1] for x in ref], float))
    assert math.isclose(c["brier"], np.mean((p - y) ** 2))
    assert math.isclose(c["log_loss"], -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    assert sum(b["n"] for b in c["calibration"]) == len(ref)
    # a count and any increasing linear transform of it rank and predict alike
    a, b = convention_study(dataset, "H", ["points", "2*points + 3"], level=9, seed=3)["counts"]
    for key in ("auc", "brier", "log_loss", "brier_constant"):
        assert math.isclose(a[key], b[key]), key
    # paired comparison with the points count: mean row difference, SE over deal groups
    c, points = convention_study(dataset, "H", ["aces", "points"], level=9, seed=3)["counts"]
    assert (c["name"], points["name"], points["best"]) == ("formula 1", "formula 2", True)
    q = honest(np.array([x[1] for x in reference_rows(dataset, feature="points")], float))
    d = (p - y) ** 2 - (q - y) ** 2
    assert math.isclose(c["brier_vs_best"], d.mean())
    dg = np.bincount(group, weights=d, minlength=64)
    ng = np.bincount(group, minlength=64)
    g = (ng > 0).sum()
    se = math.sqrt(g / (g - 1) * ((dg - d.mean() * ng) ** 2).sum()) / len(d)
    assert math.isclose(c["se_vs_best"], se)
    assert points["brier_vs_best"] == 0 and points["se_vs_best"] == 0


def strict_json(text):
    """JSON without NaN or Infinity (what strict parsers accept)."""
    def refuse(token):
        raise AssertionError(f"{token} in JSON")
    return json.loads(text, parse_constant=refuse)


def test_cli_end_to_end_and_deterministic(dataset):
    args = ["study", "threshold", str(dataset), "--kind", "H", "--level", "9", "--by",
            "points", "--within", "trumps=0..2,3..", "--bootstrap", "200"]
    a = runner.invoke(app, [*args, "--format", "json"])
    assert a.exit_code == 0, a.output
    b = runner.invoke(app, [*args, "--format", "json"])
    assert a.output == b.output
    res = strict_json(a.output)
    assert res["bid"] == "9H" and res["feature"] == "points" and len(res["classes"]) == 2
    assert {"threshold", "ci_low", "ci_high", "target", "rows"} <= set(res["classes"][0])
    for fmt in ("table", "md", "csv"):
        r = runner.invoke(app, [*args, "--format", fmt])
        assert r.exit_code == 0, r.output
    assert "break-even" in runner.invoke(app, args).output
    short = runner.invoke(app, [*args, "--summary", "-f", "md"]).output
    assert "P(make) by points" not in short and "points threshold" in short
    conv = ["study", "convention", str(dataset), "--kind", "BK", "--level", "8"]
    a = runner.invoke(app, [*conv, "--formula", "points + 10*aces", "--compare", "-f", "json"])
    assert a.exit_code == 0, a.output
    assert a.output == runner.invoke(app, [*conv, "--formula", "points + 10*aces", "--compare",
                                           "-f", "json"]).output
    res = strict_json(a.output)
    assert len(res["counts"]) == 5 and res["bid"] == "8BK"
    for fmt in ("table", "md"):
        r = runner.invoke(app, [*conv, "--format", fmt])
        assert r.exit_code == 0 and "cross-fitted" in r.output, r.output


def test_bad_input_is_one_error_line(dataset, tmp_path):
    plain = tmp_path / "plain"
    run_simulation(Simulation(deals=20, seed=1, ruleset=get_ruleset("bazar"), kinds=(1,),
                              columns="lean"), plain)
    d = str(dataset)
    cases = [
        (["threshold", str(tmp_path / "none"), "--kind", "H"], "not a bazarsim dataset"),
        (["threshold", str(plain), "--kind", "H"], "no DD columns"),
        (["threshold", d, "--kind", "H", "--by", "strength"], "unknown feature"),
        (["threshold", d, "--kind", "H", "--by", "points=0..10"], "feature alone"),
        (["threshold", d, "--kind", "H", "--within", "foo"], "unknown feature"),
        (["threshold", d, "--kind", "H", "--target", "1.5"], "--target"),
        (["threshold", d, "--kind", "XX"], "XX"),
        (["threshold", d, "--kind", "VK"], "not simulated"),
        (["threshold", d], "--kind"),
        (["threshold", d, "--kind", "H", "--level", "7"], "not a bid"),
        (["convention", d, "--kind", "H", "--level", "0"], "not a bid"),
        (["convention", d, "--kind", "H", "--formula", "points * trumps"], "not linear"),
        (["convention", d, "--kind", "H", "--formula", "points + "], "formula"),
        (["convention", d, "--kind", "H", "--formula", "hcp"], "unknown feature"),
        (["convention", d, "--kind", "H", "--contra", "xxx"], "contra"),
    ]
    for args, words in cases:
        r = runner.invoke(app, ["study", *args])
        assert r.exit_code == 2, (args, r.output)
        lines = r.stderr.strip().splitlines() if r.stderr_bytes is not None else []
        assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], (
            args, r.output)
    with pytest.raises(BazarsimError):
        parse_by("nope")
    with pytest.raises(BazarsimError, match="no bid levels"):
        _belote_level(tmp_path)


def _belote_level(tmp_path):
    from bazarsim.analysis.threshold import open_bid_study

    path = tmp_path / "fr"
    run_simulation(
        Simulation(deals=8, seed=1, ruleset=get_ruleset("belote-fr"), kinds=(1,), columns="lean",
               dd=True), path)
    assert open_bid_study(path, "H").bids[0].level == 0
    open_bid_study(path, "H", level=9)
