"""DD-solved simulations and the bid tables built on them, against plain-Python references.

The reference reads the dataset row by row and scores every (seat, kind, bid) with the
scalar ``score_deal`` (the rule ``bazarsim score`` applies), so a wrong column, side,
class or aggregation in the streamed table shows up as a different number.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bazarsim.analysis.bids import (
    MAX_TOTAL,
    Bid,
    BidStudy,
    Classer,
    _Cell,
    _mark_best,
    _rows,
    bid_table,
    compare_bids,
    parse_by,
    ruleset_bids,
)
from bazarsim.cli import app
from bazarsim.core.cards import SEATS, parse_hand
from bazarsim.core.contracts import KIND_NAMES, Contract
from bazarsim.dd.solver import Solver
from bazarsim.deals.constraints import parse_constraints
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.rules.rulesets import RULESETS, get_ruleset
from bazarsim.rules.scoring import DealOutcome, score_deal
from bazarsim.store.parts import read_dataframe

from .conftest import built_dataset

runner = CliRunner()
DEALS = 24


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    """A small DD-solved dataset of every ruleset (lean columns, as bid studies use)."""
    return {name: built_dataset(tmp_path_factory, f"bids-{name}", Simulation(
        deals=DEALS, seed=11, ruleset=get_ruleset(name), columns="lean", dd=True, chunk=10))
        for name in RULESETS}


def reference(path, rs, by=None, contra=0):
    """Plain Python over rows: ``{(class, bid label): [n, made, capot, score sum, totals]}``."""
    df = read_dataframe(path)
    classers = [parse_by(b) for b in by or []]
    cells = defaultdict(lambda: [0, 0, 0, 0.0, []])
    for _, row in df.iterrows():
        for kind in rs.kinds:
            k = KIND_NAMES[kind]
            total = rs.total_points(kind)
            ns = int(row[f"{k}_dd_ns"])
            cap = int(row[f"{k}_dd_capot"])
            for seat in range(4):
                side = seat & 1
                pts = (ns, total - ns)
                tricks = (8, 0) if cap == 1 else (0, 8) if cap == 2 else (4, 4)
                decl = (int(row[f"{k}_declarations_ns"]), int(row[f"{k}_declarations_ew"]))
                bela = (int(row[f"{k}_bela_ns"]), int(row[f"{k}_bela_ew"]))
                own = pts[side] + decl[side] + bela[side]
                cls = []
                for c in classers:
                    value = _feature(c.feature, row, seat, k, rs, kind)
                    idx = int(c.index(np.array([value]))[0])
                    cls.append(c.labels()[idx] if idx >= 0 else None)
                if None in cls:
                    continue
                for bid in ruleset_bids(rs, (kind,)):
                    contract = Contract(bid.level, kind, seat, contra, bid.capot)
                    sc = score_deal(contract, DealOutcome(pts, tricks, decl, bela), rs)
                    cell = cells[(tuple(cls), bid.label)]
                    cell[0] += 1
                    cell[1] += sc.made
                    cell[2] += cap == side + 1
                    cell[3] += sc.scores[side] - sc.scores[1 - side]
                    cell[4].append(own)
    return cells


def _feature(name, row, seat, k, rs, kind):
    hand = int(row[SEATS[seat]])
    if name == "points":
        return int(row[f"{SEATS[seat]}_{k}_points"])
    if name == "trumps":
        return sum((hand >> (8 * s) & 0xFF).bit_count() for s in range(4)
                   if kind == s or kind == 5)
    if name == "position":
        return (seat - int(row["dealer"]) - 1) % 4 + 1
    if name == "aces":
        return (hand & 0x80808080).bit_count()
    raise AssertionError(name)


@pytest.mark.parametrize("name", list(RULESETS))
def test_bid_table_equals_reference(datasets, name):
    rs = get_ruleset(name)
    by = ["points=0..29,30..59,60..", "position"]
    rows = bid_table(datasets[name], by=by)
    ref = reference(datasets[name], rs, by)
    assert len(rows) == len(ref)
    for r in rows:
        n, made, capot, score, totals = ref[((r["points"], r["position"]), r["bid"])]
        assert (r["n"], r["made"]) == (n, made)
        assert math.isclose(r["p_capot"], capot / n)
        assert math.isclose(r["expected_score"], score / n, abs_tol=1e-9)
        assert math.isclose(r["mean_total"], sum(totals) / n)
        # quartiles are order statistics: the smallest total with at least q * n rows at
        # or below it (so the median of an even n is the lower middle value)
        ordered = np.sort(totals)
        for key, q in (("q1_total", 1), ("median_total", 2), ("q3_total", 3)):
            assert r[key] == float(ordered[-(-q * n // 4) - 1]), (key, n)
    for cls in {(r["points"], r["position"]) for r in rows}:
        group = [r for r in rows if (r["points"], r["position"]) == cls]
        best = [r for r in group if r["best"]]
        top = max(r["expected_score"] for r in group)
        assert len(best) == (1 if top > 0 else 0)  # passing (0) beats a losing bid
        assert not best or best[0]["expected_score"] == top


def test_contra_scores_follow_the_scalar_rule(datasets):
    rs = get_ruleset("bazar")
    rows = bid_table(datasets["bazar"], by=["aces"], contra="x", kinds=["H"])
    ref = reference(datasets["bazar"], rs, ["aces"], contra=1)
    for r in rows:
        n, made, _c, score, _t = ref[((r["aces"],), r["bid"])]
        assert (r["n"], r["made"]) == (n, made)
        assert math.isclose(r["expected_score"], score / n, abs_tol=1e-9)


def test_compare_equals_reference(datasets):
    rs = get_ruleset("bazar")
    rows = compare_bids(datasets["bazar"], "8BK", "9H")
    df = read_dataframe(datasets["bazar"])
    diffs, better = [], 0
    for _, row in df.iterrows():
        for seat in range(4):
            side = seat & 1
            s = []
            for level, kind in ((8, 4), (9, 1)):
                k = KIND_NAMES[kind]
                total = rs.total_points(kind)
                ns, cap = int(row[f"{k}_dd_ns"]), int(row[f"{k}_dd_capot"])
                out = DealOutcome((ns, total - ns), (8, 0) if cap == 1 else (0, 8) if cap == 2
                                  else (4, 4),
                                  (int(row[f"{k}_declarations_ns"]),
                                   int(row[f"{k}_declarations_ew"])),
                                  (int(row[f"{k}_bela_ns"]), int(row[f"{k}_bela_ew"])))
                sc = score_deal(Contract(level, kind, seat), out, rs)
                s.append(sc.scores[side] - sc.scores[1 - side])
            diffs.append(s[0] - s[1])
            better += s[0] > s[1]
    (r,) = rows
    assert r["n"] == len(diffs) == 4 * DEALS
    assert math.isclose(r["mean_diff"], np.mean(diffs))
    assert math.isclose(r["se_diff"], np.std(diffs, ddof=1) / math.sqrt(len(diffs)))
    assert math.isclose(r["p_a_better"], better / len(diffs))


@pytest.mark.parametrize("name", ["bazar", "bela-hr"])
def test_dd_columns_equal_the_solver(datasets, name):
    rs = get_ruleset(name)
    df = read_dataframe(datasets[name])
    solver = Solver()
    for i in (0, 7, 19):
        row = df.iloc[i]
        hands = np.array([row[s] for s in SEATS], np.uint32)
        leader = (int(row["dealer"]) + 1) % 4
        for kind in rs.kinds:
            k = KIND_NAMES[kind]
            sol = solver.solve(hands, k, leader, rs)
            assert sol.ns_points == row[f"{k}_dd_ns"]
            cap = row[f"{k}_dd_capot"]
            assert (cap == 1) == solver.capot_possible(hands, k, leader, "NS", rs)
            assert (cap == 2) == solver.capot_possible(hands, k, leader, "EW", rs)


def test_dd_dataset_same_whatever_the_chunk(datasets, tmp_path):
    run_simulation(
        Simulation(deals=DEALS, seed=11, ruleset=get_ruleset("bazar"), columns="lean", dd=True,
               chunk=7), tmp_path)
    assert read_dataframe(tmp_path).equals(read_dataframe(datasets["bazar"]))


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["points=0..39,40..", "trumps=0..2,3..", "aces"]))
def test_p_make_falls_as_the_level_rises(datasets, by):
    rows = bid_table(datasets["bazar"], by=[by], kinds=["H", "BK"])
    feature = by.partition("=")[0]
    for cls in {(r[feature], r["kind"]) for r in rows}:
        plain = sorted((r for r in rows if (r[feature], r["kind"]) == cls and not r["capot"]),
                       key=lambda r: r["level"])
        made = [r["made"] for r in plain]
        assert made == sorted(made, reverse=True)
        capot_rows = [r for r in rows if (r[feature], r["kind"]) == cls and r["capot"]]
        for c in capot_rows:  # a capot made makes every level
            assert all(r["made"] >= c["made"] for r in plain)


def test_dd_points_add_up_to_the_deal_total(datasets):
    for name, path in datasets.items():
        rs = get_ruleset(name)
        df = read_dataframe(path)
        for kind in rs.kinds:
            k = KIND_NAMES[kind]
            ns = df[f"{k}_dd_ns"]
            assert ((ns >= 0) & (ns <= rs.total_points(kind))).all()
            assert (ns[df[f"{k}_dd_capot"] == 1] == rs.total_points(kind)).all()
            assert (ns[df[f"{k}_dd_capot"] == 2] == 0).all()


def test_bad_input_is_one_error_line(datasets, tmp_path):
    plain = tmp_path / "plain"
    run_simulation(Simulation(deals=10, seed=1, kinds=(1,), columns="lean"), plain)
    d = str(datasets["bazar"])
    cases = [
        (["table", "bids", str(plain)], "no DD columns"),
        (["table", "bids", d, "--by", "colour"], "unknown feature"),
        (["table", "bids", d, "--by", "points=a..b"], "'a..b' is not a range"),
        (["table", "bids", d, "--levels", "5..9"], "level 5"),
        (["table", "bids", d, "--kind", "VK", "--levels", "x"], "bad --levels"),
        (["table", "bids", str(datasets["bela-hr"]), "--kind", "BK"], "BK"),
        (["table", "bids", d, "--contra", "maybe"], "--contra"),
        (["table", "compare", d, "8BK", "9Q"], "9Q"),
    ]
    for args, words in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        lines = [ln for ln in result.output.splitlines() if ln.startswith("error: ")]
        assert len(lines) == 1 and words in lines[0], (args, result.output)


def test_cli_json_and_parquet(datasets, tmp_path):
    import json

    import pyarrow.parquet as pq

    out = tmp_path / "bids.parquet"
    result = runner.invoke(app, ["table", "bids", str(datasets["bazar-blot"]), "--by",
                                 "trumps=0..2,3..", "--kind", "H", "--levels", "8..10",
                                 "--format", "json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert {r["level"] for r in rows} == {8, 9, 10}
    for key in ("kind", "level", "n", "made", "p_make", "ci_low", "ci_high", "mean_total",
                "expected_score", "trumps"):
        assert key in rows[0]
    assert pq.read_table(out).num_rows == len(rows)
    table = runner.invoke(app, ["table", "compare", str(datasets["bazar"]), "8BK", "9H"])
    assert table.exit_code == 0 and "8BK" in table.output


def test_dd_with_constraints_and_shards_equals_one_run(tmp_path):
    """--fix, --where and --first shards hold with --dd: two shards read together are the
    rows of one run, and every row meets the constraints."""
    cons = parse_constraints(["S=AJ9.K7.Q.T8"], ["len(N,H)>=3"])
    common = dict(seed=4, ruleset=get_ruleset("bazar"), constraints=cons, kinds=(1, 4),
                  columns="lean", dd=True)
    run_simulation(Simulation(deals=30, chunk=8, **common), tmp_path / "one")
    run_simulation(Simulation(deals=12, first=0, **common), tmp_path / "shards")
    run_simulation(Simulation(deals=18, first=12, **common), tmp_path / "shard2")
    one = read_dataframe(tmp_path / "one")
    both = pd.concat([read_dataframe(tmp_path / "shards"), read_dataframe(tmp_path / "shard2")])
    assert one.equals(both.reset_index(drop=True))
    assert (one["S"].astype(np.uint32) == parse_hand("AJ9.K7.Q.T8")).all()
    assert (np.bitwise_count(one["N"].to_numpy().astype(np.uint32) >> 8 & 0xFF) >= 3).all()


def _group(*scores):
    """Rows of one class as ``_rows`` hands them to ``_mark_best``: bids 8H, 9H, ..."""
    return [{"bid": f"{8 + i}H", "expected_score": float(s), "best": False,
             "best_call": "", "margin": math.nan} for i, s in enumerate(scores)]


def test_mark_best_passes_unless_a_bid_gains():
    # the top bid breaks even (0): passing (0) is as good, so the call is pass
    even = _group(0.0, -2.0)
    _mark_best(even)
    assert [r["best_call"] for r in even] == ["pass", "pass"]
    assert not any(r["best"] for r in even)
    assert even[0]["margin"] == 0.0 and math.isnan(even[1]["margin"])
    # a top bid gaining half a point is the call, whatever passing gives
    small = _group(-1.0, 0.5)
    _mark_best(small)
    assert [r["best_call"] for r in small] == ["9H", "9H"]
    assert [r["best"] for r in small] == [False, True]
    assert small[1]["margin"] == 0.5 and math.isnan(small[0]["margin"])  # 0.5 - max(-1, 0)
    # the lead is over the second best bid (2.5), not over the third
    three = _group(3.0, 1.0, 2.5)
    _mark_best(three)
    assert three[0]["best"] and three[0]["margin"] == 0.5
    assert {r["best_call"] for r in three} == {"8H"}


def _study(bids, classers=()):
    return BidStudy(Path("hand-built"), {}, get_ruleset("bazar"), list(bids), list(classers),
                    (0,), 0, (1,), "dd")


def test_rows_breakeven_and_columns():
    """Break-even P(make) = -s_failed / (s_made - s_failed), only where the bid both made
    and failed and making scores more than failing; no 0/0 on the way (no warning)."""
    # (made of 4, score sum over the made deals, over the failed ones, break-even)
    cases = [(2, 20.0, -60.0, 0.75),     # s_made 10, s_failed -30: 30 / 40
             (2, 1.0, -0.5, 1 / 3),      # s_made 0.5, s_failed -0.25: 0.25 / 0.75
             (2, -10.0, -10.0, None),    # s_made = s_failed: no break-even
             (2, -20.0, -10.0, None),    # making scores less than failing
             (0, 0.0, -40.0, None),      # never made
             (4, 40.0, 0.0, None)]       # never failed
    bids = [Bid(1, 8 + i) for i in range(len(cases))]
    cells = {}
    for bid, (made, s_made, s_failed, _) in zip(bids, cases, strict=True):
        one = np.ones(1)
        cells[bid] = _Cell(4 * one, made * one, 0 * one, (s_made + s_failed) * one,
                           1e4 * one, s_made * one, s_failed * one)
    hist = np.zeros((1, MAX_TOTAL), np.int64)
    hist[0, 80] = hist[0, 100] = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        rows = _rows(_study(bids), cells, {1: hist}, 0.95)
    assert [r["bid"] for r in rows] == [b.label for b in bids]
    for r, (made, _m, _f, want) in zip(rows, cases, strict=True):
        assert r["made"] == made
        if want is None:
            assert math.isnan(r["breakeven_p"]), r
        else:
            assert math.isclose(r["breakeven_p"], want), r
    # the columns json and csv print, in their order
    assert list(rows[0]) == [
        "kind", "level", "capot", "bid", "n", "made", "p_make", "ci_low", "ci_high",
        "p_capot", "mean_total", "sd_total", "q1_total", "median_total", "q3_total",
        "expected_score", "se_score", "breakeven_p", "best", "best_call", "margin", "play"]


def test_side_totals_stay_in_their_class(monkeypatch):
    """Side totals out of 0..1023 (bela or declarations set by ``simulate -o``, e.g.
    declarations.bela_value=1000 or -500) go to the histogram's end bins of their own class:
    another class's totals and quartiles are untouched, and 1023 itself is kept."""
    aces = np.array([0, 1, 2, 3, 3])
    own = np.array([[100, 62], [100, 62], [100, 62], [10, 152], [20, 142]])
    decl = np.array([[903, 0], [0, 0], [0, 0], [0, 0], [0, 0]])
    bela = np.array([[20, 0], [-500, 0], [1000, 0], [0, 0], [0, 0]])
    side_total = own[:, 0] + decl[:, 0] + bela[:, 0]
    assert side_total.tolist() == [1023, -400, 1100, 10, 20]
    row = {"side": 0, "points": own, "tricks": np.full((5, 2), 4), "declarations": decl,
           "bela": bela, "capot_side": np.full(5, -1), "side_total": side_total, "kind": 1,
           "seat": 0, "feature": lambda f, kind=None: aces}
    study = _study([Bid(1, 8)], [Classer("aces")])
    monkeypatch.setattr("bazarsim.analysis.bids.open_study", lambda *a, **k: study)
    monkeypatch.setattr("bazarsim.analysis.bids.declarer_rows", lambda *a, **k: iter([row]))
    rows = {r["aces"]: r for r in bid_table("hand-built", by=["aces"])}
    assert sorted(rows) == ["0", "1", "2", "3"]
    assert [rows[a]["n"] for a in "0123"] == [1, 1, 1, 2]
    top = rows["0"]
    assert (top["mean_total"], top["sd_total"]) == (1023.0, 0.0)
    assert (top["q1_total"], top["median_total"], top["q3_total"]) == (1023.0,) * 3
    low = rows["3"]  # totals 10 and 20
    assert (low["mean_total"], low["sd_total"]) == (15.0, 5.0)
    assert (low["q1_total"], low["median_total"], low["q3_total"]) == (10.0, 10.0, 20.0)
