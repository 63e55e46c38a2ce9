"""No wrong answer without an error (issue 52, points 1-5).

Dash ranges mean the same as ``..`` ranges in every option that takes classes or ranges;
a hand with the wrong number of cards is refused where a whole hand is expected; a class
where every bid loses has passing as its best call; ``solve --line`` shows the running
total N-S have taken; a class feature that depends on the contract kind says which kind
it is counted in when two bids' kinds differ.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from bazarsim.analysis.bids import bid_table, compare_bids, parse_by
from bazarsim.cli import app
from bazarsim.cli.common import parse_levels
from bazarsim.core.cards import SEATS, parse_deal
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.constraints import parse_predicate
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store.parts import read_dataframe

from . import naive_play as NP

runner = CliRunner()
DEALS = 40


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_error_line(r, *needles):
    """Exit 2 and one ``error:`` line naming every needle, no traceback."""
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.strip().splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert "Traceback" not in r.output


@pytest.fixture(scope="module")
def dd(tmp_path_factory):
    """A small DD-solved bazar dataset of hearts and no trump (BK)."""
    path = tmp_path_factory.mktemp("answers")
    run_simulation(Simulation(deals=DEALS, seed=5, ruleset=get_ruleset("bazar"), kinds=(1, 4),
                              columns="lean", dd=True), path)
    return path


# --------------------------------------------------------------------------- 1. ranges


@pytest.mark.parametrize("text,want", [
    ("3", (3, 3)), ("0..29", (0, 29)), ("0-29", (0, 29)), (" 0 - 29 ", (0, 29)),
    ("50..", (50, "BIG")), ("50-", (50, "BIG")), ("..9", ("-BIG", 9)),
])
def test_range_forms(text, want):
    from bazarsim.core.ranges import BIG, parse_range

    want = tuple({"BIG": BIG, "-BIG": -BIG}.get(v, v) for v in want)
    assert parse_range(text) == want


@pytest.mark.parametrize("text", ["-5", "x", "", "-", "..", "5 3", "3-1", "1..-2", "2.5"])
def test_bad_ranges_are_refused_naming_the_token(text):
    from bazarsim.core.ranges import parse_range

    with pytest.raises(BazarsimError, match="range"):
        parse_range(text, "--by 'points=...'")


def test_dash_buckets_are_dot_buckets():
    assert parse_by("points=0-29,30-49") == parse_by("points=0..29,30..49")
    assert parse_by("trumps=0-2,3,4-") == parse_by("trumps=0..2,3,4..")
    assert parse_by("points=..9").labels() == ["..9"]
    assert parse_predicate("points(S,H)=30-60") == parse_predicate("points(S,H)=30..60")
    assert parse_levels("8-10") == parse_levels("8..10") == [8, 9, 10]


def test_table_bids_dash_ranges_give_the_dot_table(dd):
    def table(by):
        r = run("table", "bids", dd, "--by", by, "--kind", "H", "--levels", "8..9",
                "-f", "json")
        assert r.exit_code == 0, r.output
        return json.loads(r.output)

    dots = table("points=0..29,30..49")
    assert table("points=0-29,30-49") == dots
    assert {r["points"] for r in dots} == {"0..29", "30..49"}
    assert sum(r["n"] for r in dots if r["bid"] == "8H") == len(bid_rows_in(dd, "points", 0, 49))
    assert table("trumps=0-2,3,4-") == table("trumps=0..2,3,4..")


def bid_rows_in(path, feature, lo, hi):
    """(deal, seat) declarer rows whose hearts points lie in lo..hi."""
    df = read_dataframe(path)
    return [(i, s) for i, row in df.iterrows() for s in SEATS
            if lo <= int(row[f"{s}_H_points"]) <= hi]


@pytest.mark.parametrize("args,needles", [
    (["table", "bids", "{dd}", "--by", "trumps=0-2,x"], ["--by", "'x'", "A-B"]),
    (["table", "bids", "{dd}", "--by", "trumps=-1"], ["--by", "'-1'", "A..B"]),
    (["table", "bids", "{dd}", "--by", "points=29-0"], ["'29-0'", "empty"]),
    (["table", "bids", "{dd}", "--levels", "8-"], ["--levels", "both ends"]),
    (["table", "compare", "{dd}", "8H", "9H", "--by", "points=0-x"], ["'0-x'"]),
    (["study", "threshold", "{dd}", "--kind", "H", "--within", "trumps=0-2,y"],
     ["--within", "'y'"]),
    (["report", "{dd}", "--heat-x", "points=1-2-3", "--out", "{dd}/r.html"],
     ["--heat-x", "'1-2-3'"]),
    (["simulate", "-n", "10", "--where", "points(S,H)=30-x", "--out", "{dd}/w"],
     ["--where", "'30-x'"]),
])
def test_bad_classes_are_one_error_line(dd, args, needles):
    one_error_line(run(*(a.format(dd=dd) for a in args)), *needles)


def test_study_within_takes_dash_ranges(dd):
    base = ["study", "threshold", dd, "--kind", "H", "--bootstrap", "10", "-f", "json"]
    dash = run(*base, "--within", "trumps=0-2,3-")
    assert dash.exit_code == 0, dash.output
    assert json.loads(dash.output) == json.loads(run(*base, "--within", "trumps=0..2,3..").output)


# --------------------------------------------------------------------------- 2. hand size


@pytest.mark.parametrize("hand", ["AS KS QS JH TH 9H 8D", "AKQ.JT9.8.", "AS"])
def test_eval_refuses_a_hand_that_is_not_whole(hand):
    one_error_line(run("eval", hand), "cards", "whole hand of 8")


def test_eval_refuses_a_deal_that_is_not_whole():
    one_error_line(run("eval", "N:J9... AK... .AK.. T.J..", "-c", "C"), "full deal")


def test_eval_takes_eight_cards():
    r = run("eval", "AS KS QS JH TH 9H 8D 7C", "-c", "H", "-f", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["trumps"] == 3


# --------------------------------------------------------------------------- 3. passing


def _mark_best(group):
    from bazarsim.analysis.bids import _mark_best

    _mark_best(group)


def _group(*scores):
    return [{"bid": f"{8 + i}H", "expected_score": e, "best": False, "best_call": "",
             "margin": math.nan} for i, e in enumerate(scores)]


def test_best_call_is_pass_when_every_bid_loses():
    g = _group(-10.0, -5.0)
    _mark_best(g)
    assert not any(r["best"] for r in g)
    assert {r["best_call"] for r in g} == {"pass"}
    assert g[1]["margin"] == 5.0 and math.isnan(g[0]["margin"])  # passing gains 5 over 9H
    g = _group(0.0, -5.0)  # breaking even is no better than passing
    _mark_best(g)
    assert not any(r["best"] for r in g) and g[0]["best_call"] == "pass"


def test_best_bid_margin_counts_passing():
    g = _group(12.0, 3.0)
    _mark_best(g)
    assert g[0]["best"] and g[0]["margin"] == 9.0 and g[1]["best_call"] == "8H"
    g = _group(4.0, -2.0)  # passing (0) is the next best call
    _mark_best(g)
    assert g[0]["best"] and g[0]["margin"] == 4.0
    g = _group(4.0)
    _mark_best(g)
    assert g[0]["margin"] == 4.0


def test_table_bids_says_pass_where_every_bid_loses(dd):
    rows = bid_table(dd, by=["points=0..29,30.."], kinds=["H"], levels=[8, 9])
    weak = [r for r in rows if r["points"] == "0..29"]
    assert max(r["expected_score"] for r in weak) < 0  # the data: weak hands lose
    assert not any(r["best"] for r in weak) and {r["best_call"] for r in weak} == {"pass"}
    for cls in ("0..29", "30.."):
        group = [r for r in rows if r["points"] == cls]
        top = max(group, key=lambda r: r["expected_score"])
        want = top["bid"] if top["expected_score"] > 0 else "pass"
        assert {r["best_call"] for r in group} == {want}
        assert sum(r["best"] for r in group) == (want != "pass")
    r = run("table", "bids", dd, "--by", "points=0..29,30..", "--kind", "H", "--levels",
            "8..9", "-f", "md")
    assert r.exit_code == 0, r.output
    weak_lines = [x for x in r.output.splitlines() if x.startswith("| 0..29 ")]
    assert len(weak_lines) == 2 and "best" not in " ".join(weak_lines)
    assert sum("| pass (+" in x for x in weak_lines) == 1


def test_analyze_says_pass_when_every_bid_loses():
    r = run("analyze", "7S 8S 9S 7H 8H 7D 8D 8C", "--seat", "S", "--dealer", "N", "--kinds",
            "H", "-n", "40", "-q", "-f", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert max(x["expected_score"] for x in rows) < 0
    assert not any(x["best"] for x in rows)
    assert {x["best_call"] for x in rows} == {"pass"}
    r = run("analyze", "7S 8S 9S 7H 8H 7D 8D 8C", "--seat", "S", "--dealer", "N", "--kinds",
            "H", "-n", "40", "-q")
    assert r.exit_code == 0, r.output
    assert "best call: pass" in r.output and "best bid:" not in r.output


# --------------------------------------------------------------------------- 4. solve line

LINE_DEAL = "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97"


def test_solve_line_running_total_of_ns_points():
    r = run("solve", LINE_DEAL, "--contract", "H", "--leader", "E", "--line", "-f", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    line = out["line"]
    assert len(line) == 32
    # recomputed from the line's cards alone: winner and points of each trick
    seat_of = {s: i for i, s in enumerate(SEATS)}
    taken, want = 0, []
    for t in range(8):
        trick = [(seat_of[x["seat"]], x["card"]) for x in line[4 * t: 4 * t + 4]]
        winner = NP.trick_winner(trick, "H")
        pts = sum(NP.points(c, "H") for _, c in trick) + (NP.LAST_TRICK if t == 7 else 0)
        assert line[4 * t + 3]["winner"] == SEATS[winner]
        assert line[4 * t + 3]["trick_points"] == pts
        taken += pts if winner % 2 == 0 else 0
        want += [taken - (pts if winner % 2 == 0 else 0)] * 3 + [taken]
    assert [x["ns_taken"] for x in line] == want
    assert want[-1] == out["ns_points"]
    assert len(set(want)) > 1  # a running total, not the final value on every row
    total = NP.total_points(NP.hands_from_masks(parse_deal(LINE_DEAL)), "H")
    assert out["ns_points"] + out["ew_points"] == total


# --------------------------------------------------------------------------- 5. kinds


def test_compare_refuses_a_kind_feature_when_kinds_differ(dd):
    one_error_line(run("table", "compare", dd, "8BK", "9H", "--by", "trumps"),
                   "trumps@BK", "trumps@H", "different kinds")
    one_error_line(run("table", "compare", dd, "8BK", "9H", "--by", "points=0..40,41.."),
                   "points@H")


def test_compare_counts_a_named_kind(dd):
    rows = compare_bids(dd, "8BK", "9H", by=["trumps@H"])
    df = read_dataframe(dd)
    hearts = np.array([(int(row[s]) >> 8 & 0xFF).bit_count() for _, row in df.iterrows()
                       for s in SEATS])
    assert len(rows) > 1
    assert {r["trumps@H"]: r["n"] for r in rows} == {
        str(v): int(c) for v, c in zip(*np.unique(hearts, return_counts=True), strict=True)}
    assert sum(r["n"] for r in rows) == 4 * DEALS
    (bk,) = compare_bids(dd, "8BK", "9H", by=["trumps@BK"])  # no trump in BK: one class
    assert bk["trumps@BK"] == "0" and bk["n"] == 4 * DEALS
    r = run("table", "compare", dd, "8BK", "9H", "--by", "trumps@H")
    assert r.exit_code == 0 and "trumps@H" in r.output


def test_same_kinds_and_kind_free_features_need_no_kind(dd):
    assert len(compare_bids(dd, "8H", "9H", by=["trumps"])) > 1
    assert len(compare_bids(dd, "8BK", "9H", by=["aces"])) > 1
    one_error_line(run("table", "compare", dd, "8BK", "9H", "--by", "aces@H"), "drop @H")
    one_error_line(run("table", "compare", dd, "8BK", "9H", "--by", "trumps@S"),
                   "not simulated")


def test_table_bids_classes_by_a_named_kind(dd):
    plain = bid_table(dd, by=["trumps"], kinds=["BK"], levels=[8])
    named = bid_table(dd, by=["trumps@H"], kinds=["BK"], levels=[8])
    assert len(plain) == 1 and len(named) > 1
    assert sum(r["n"] for r in named) == plain[0]["n"]
    assert parse_by("trumps@h=0-2,3-").name == "trumps@H"
