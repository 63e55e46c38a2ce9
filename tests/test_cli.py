"""The command line: help, formats, one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from bazarsim.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_help_lists_commands():
    r = run("--help")
    assert r.exit_code == 0
    for cmd in ("rules", "eval", "odds", "demo"):
        assert cmd in r.output


def test_odds_json():
    r = run("odds", "--format", "json")
    assert r.exit_code == 0, r.output
    records = json.loads(r.output)
    by = {x["feature"]: x["probability"] for x in records}
    assert abs(by["kq_any_suit"] - 0.2142503) < 1e-6
    for name in ["kq_trump", "jack_trump", "jack_nine_trump", "sequence_3plus", "sequence_4plus",
                 "sequence_5plus", "four_of_a_kind_scoring", "four_jacks", "kq_trump_at_table"]:
        assert name in by
    assert abs(sum(by[f"trumps_{k}"] for k in range(9)) - 1) < 1e-12


def test_odds_csv_and_selection():
    r = run("odds", "kq_any_suit", "trumps_3", "--format", "csv")
    assert r.exit_code == 0
    lines = r.output.strip().splitlines()
    assert lines[0].startswith("feature,probability") and len(lines) == 3


def test_eval_json_fields():
    r = run("eval", "AKQ.JT9.8.A", "--contract", "H", "--format", "json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["points"] == 73 and d["declaration_points"] == 40 and d["bela"] == 0
    assert [x["cards"] for x in d["declarations"]] == ["AS KS QS", "JH TH 9H"]


def test_eval_table_all_kinds():
    r = run("eval", "JS 9S AS KH QH 7D 8D AC")
    assert r.exit_code == 0
    for kind in ("S", "H", "D", "C", "BK", "VK"):
        assert f" {kind} " in r.output


def test_rules_lists_and_shows():
    r = run("rules")
    assert r.exit_code == 0 and "bela-hr" in r.output
    r = run("rules", "bazar-blot", "--format", "json")
    d = json.loads(r.output)
    assert d["kinds"] == ["S", "H", "D", "C", "BK"] and d["deal_totals"]["BK"] == 162
    assert "play.undertrump_required" in d["options"]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["eval", "AKX.Q.J.T"], "unknown rank 'X'"),
        (["eval", "JS JS"], "duplicate card 'JS'"),
        (["eval", "AKQ.JT9.8.A", "-c", "BK", "-r", "bela-hr"], "does not exist in ruleset"),
        (["rules", "preferans"], "choose from bazar, bazar-blot, belote-fr, bela-hr"),
        (["odds", "no_such_feature"], "unknown feature"),
        (["eval", "AKQ.JT9.8.A", "-o", "play.fly=1"], "unknown option"),
    ],
)
def test_user_errors_one_line_exit_2(args, needle):
    r = run(*args)
    assert r.exit_code == 2
    assert needle in r.output
    assert "Traceback" not in r.output


def test_python_m_and_console_error_is_one_line():
    p = subprocess.run([sys.executable, "-m", "bazarsim", "eval", "QQ.A.K.J"],
                       capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and p.stderr.startswith("error: ")
    assert "Traceback" not in p.stderr
    p = subprocess.run([sys.executable, "-m", "bazarsim", "--help"], capture_output=True,
                       text=True)
    assert p.returncode == 0 and "odds" in p.stdout


def test_eval_deal_shows_scoring_side():
    deal = "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97"
    r = run("eval", deal, "-c", "C", "-d", "E", "-f", "json")
    assert r.exit_code == 0, r.output
    c = json.loads(r.output)["contracts"][0]
    assert c["scoring_side"] == "NS" and c["declarations"] == {"NS": 20, "EW": 0}
    assert sum(c["points"].values()) == 152
    r = run("eval", "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J9", "-c", "C")
    assert r.exit_code == 2 and "same number of cards" in r.output


def test_rules_marks_per_ruleset_ambiguity():
    """`bazarsim rules bazar-blot` marks play.overtake_on_trump_lead ambiguous (open in the
    Armenian club rules), with the club rules' words in its help; in bazar (the Ukrainian
    house code) it is settled."""
    d = json.loads(run("rules", "bazar-blot", "--format", "json").output)
    assert d["options"]["play.overtake_on_trump_lead"] is True
    assert "play.overtake_on_trump_lead" in d["ambiguous"]
    assert "не обязательно старшую" in d["notes"]["play.overtake_on_trump_lead"]
    r = run("rules", "bazar-blot", "--format", "csv")
    assert r.exit_code == 0, r.output
    rows = {line.split(",", 1)[0]: line for line in r.output.splitlines()}
    assert "bazar-blot: open in the Armenian club rules" in rows["play.overtake_on_trump_lead"]
    d = json.loads(run("rules", "bazar", "--format", "json").output)
    assert "play.overtake_on_trump_lead" not in d["ambiguous"] and d["notes"] == {}


def test_rules_bazar_blot_shows_capot_options():
    """`bazarsim rules bazar-blot` lists the club rules' two open capot points, ambiguous."""
    d = json.loads(run("rules", "bazar-blot", "--format", "json").output)
    assert d["options"]["scoring.capot_bonus_counts_for_level"] is False
    assert d["options"]["scoring.failed_capot_base"] == 25
    for name in ("scoring.capot_bonus_counts_for_level", "scoring.failed_capot_base"):
        assert name in d["ambiguous"], name
    r = run("rules", "bazar-blot", "--format", "csv")
    rows = {line.split(",", 1)[0]: line for line in r.output.splitlines()}
    assert "[25 | 16]" in rows["scoring.failed_capot_base"]
    assert "252" in rows["scoring.capot_bonus_counts_for_level"]
    r = run("rules", "bazar-blot", "-o", "scoring.failed_capot_base=16", "--format", "json")
    assert json.loads(r.output)["options"]["scoring.failed_capot_base"] == 16


def test_compile_reports_each_family(monkeypatch):
    """``bazarsim compile`` runs each family in a worker process and names it when done
    (two cheap families here; the pool and the reporting are the same for all)."""
    from bazarsim.cli import compile_cmd

    real = compile_cmd.FAMILIES
    monkeypatch.setattr(compile_cmd, "FAMILIES", {k: real[k] for k in ("scoring", "evaluation")})
    result = runner.invoke(app, ["compile", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert "scoring:" in result.output and "evaluation:" in result.output
    assert "kernels ready in" in result.output
    assert set(compile_cmd.compile_family("scoring")[:1]) == {"scoring"}
