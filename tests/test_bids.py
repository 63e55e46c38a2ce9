"""DD-solved simulations and the bid tables built on them, against plain-Python references.

The reference reads the dataset row by row and scores every (seat, kind, bid) with the
scalar ``score_deal`` (the rule ``bazarsim score`` applies), so a wrong column, side,
class or aggregation in the streamed table shows up as a different number.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bazarsim.analysis.bids import bid_table, compare_bids, parse_by, ruleset_bids
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
