"""``bazarsim play``: a deal played out by hidden-card players, from the command line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.core.cards import parse_deal
from bazarsim.dd.solver import Solver

runner = CliRunner()
DEAL = "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97"


def play(*args):
    return runner.invoke(app, ["play", DEAL, *args])


def test_json_record_is_a_whole_play():
    r = play("-c", "9H", "--declarer", "N", "-w", "4", "-f", "json")
    assert r.exit_code == 0, r.output
    rec = json.loads(r.output)
    cards = [c for t in rec["tricks"] for c in t["cards"]]
    assert len(cards) == 32 and len({c["card"] for c in cards}) == 32
    assert rec["ns_points"] + rec["ew_points"] == 162
    # the DD value before the first card is the solver's, first lead from E (dealer N)
    assert rec["dd_ns_points"] == Solver().solve(parse_deal(DEAL), 1, 1).ns_points
    assert rec["leader"] == "E" and rec["players"] == ["pimc"] * 4 and rec["worlds"] == 4
    # same seed, same play; another seed may differ but stays legal
    again = json.loads(play("-c", "9H", "--declarer", "N", "-w", "4", "-f", "json").output)
    assert again["tricks"] == rec["tricks"]


def test_contract_objective_reports_chances():
    r = play("-c", "8H", "--declarer", "E", "-w", "3", "--objective", "contract",
             "-f", "json")
    assert r.exit_code == 0, r.output
    rec = json.loads(r.output)
    vals = [v for t in rec["tricks"] for c in t["cards"] for v in c["values"].values()]
    assert vals and all(0 <= v <= 1 for v in vals)
    assert rec["made"] == (rec["ew_points"] >= rec["card_points_needed"])


@pytest.mark.parametrize("args, says", [
    (["-c", "9X", "--declarer", "N"], "not a contract kind"),
    (["-c", "7H", "--declarer", "N"], "at least 8"),
    (["-c", "9H", "--declarer", "Q"], "seat"),
    (["-c", "9H", "--declarer", "N", "--players", "clever"], "unknown player"),
    (["-c", "9H", "--declarer", "N", "--players", "pimc,dd"], "one player or four"),
    (["-c", "9H", "--declarer", "N", "--infer", "psychic"], "--infer"),
    (["-c", "9H", "--declarer", "N", "--objective", "glory"], "--objective"),
    (["-c", "9H", "--declarer", "N", "--contra", "xxx"], "--contra"),
    (["-c", "9H", "--declarer", "N", "-w", "0"], "--worlds"),
    (["-c", "9H-CAPOT", "--declarer", "N", "--objective", "contract"], "capot"),
    (["-c", "9H"], "--declarer"),
])
def test_bad_input_is_one_error_line(args, says):
    r = play(*args)
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and says in lines[0], r.output


def test_bad_deal_is_one_error_line():
    r = runner.invoke(app, ["play", "N:AKQ.. ... ... ...", "-c", "9H", "--declarer", "N"])
    assert r.exit_code == 2 and r.output.startswith("error:"), r.output
