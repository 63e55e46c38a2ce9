"""``bazarsim solve``: DD table, one contract with card values and line, JSON lines."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.core.cards import parse_deal

from . import naive_play as NP

runner = CliRunner()
POS = "N:J97...Q ..KJ7.T T.A.8.J .97.Q.7"  # a 4-trick position
KINDS = ("S", "H", "D", "C", "BK", "VK")


def naive(deal, kind, leader):
    hands = NP.hands_from_masks(parse_deal(deal))
    return NP.minimax(hands, leader, kind, NP.RULES["bazar"]), NP.total_points(hands, kind)


def test_dd_table_json_matches_reference():
    res = runner.invoke(app, ["solve", POS, "--format", "json", "--dealer", "S"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["leader"] == "W"
    assert [r["contract"] for r in out["table"]] == list(KINDS)
    for r in out["table"]:
        ns, total = naive(POS, r["contract"], 3)
        assert (r["ns_points"], r["ew_points"]) == (ns, total - ns)
        assert isinstance(r["capot_ns"], bool) and isinstance(r["capot_ew"], bool)


def test_table_format_prints_every_contract():
    res = runner.invoke(app, ["solve", POS])
    assert res.exit_code == 0, res.output
    for kind in KINDS:
        assert f" {kind} " in res.stdout


def test_one_contract_with_line():
    res = runner.invoke(app, ["solve", POS, "-c", "H", "-l", "N", "--line", "-f", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    ns, total = naive(POS, "H", 0)
    assert (out["ns_points"], out["ew_points"]) == (ns, total - ns)
    assert max(v["ns"] for v in out["card_values"].values()) == ns  # North maximises
    assert len(out["line"]) == 16 and out["line"][-1]["ns_taken"] == ns
    assert out["line"][0]["seat"] == "N"


def test_file_json_lines_with_bad_lines(tmp_path):
    f = tmp_path / "positions.txt"
    f.write_text(f"{POS} H N\n{POS} Q N\n\nnonsense\n{POS} VK E  # comment\n")
    res = runner.invoke(app, ["solve", "--file", str(f)])
    assert res.exit_code == 2
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert [x["line"] for x in lines] == [1, 5]
    for x, (kind, leader) in zip(lines, [("H", 0), ("VK", 1)], strict=True):
        ns, total = naive(POS, kind, leader)
        assert (x["ns_points"], x["ew_points"]) == (ns, total - ns)
    assert "line 2:" in res.stderr and "'Q'" in res.stderr
    assert "line 4:" in res.stderr


def test_stdin_and_errors():
    res = runner.invoke(app, ["solve", "--file", "-"], input=f"{POS} BK W\n")
    assert res.exit_code == 0 and json.loads(res.stdout)["contract"] == "BK"
    res = runner.invoke(app, ["solve", POS, "-c", "VK", "-r", "bazar-blot"])
    assert res.exit_code == 2 and "VK" in res.stderr and "Traceback" not in res.output
    res = runner.invoke(app, ["solve", "N:AK.. Q.. J.. T.."])
    assert res.exit_code == 2 and "error:" in res.stderr
