"""CLI: deal, simulate and table freq (user errors are one line, exit code 2)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.core.cards import parse_deal
from bazarsim.deals.generator import DealGenerator
from bazarsim.store.parts import read_dataframe

from . import naive_dealing as ref

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_deal_by_number_seed_and_pbn_agree():
    batch = DealGenerator(7).deal(3, 1)
    number = int(batch.numbers[0])
    r = run("deal", "--seed", "7", "--index", "3", "--format", "json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)[0]
    assert data["number"] == number and data["index"] == 3
    r2 = run("deal", str(number), "-f", "pbn")
    pbn = r2.output.split("\t")[0]
    assert list(map(int, parse_deal(pbn))) == ref.deal_of_number(number)
    r3 = run("deal", "--pbn", pbn, "-f", "pbn")
    assert r3.output.strip().endswith(str(number))
    r4 = run("deal", str(number))
    assert "North" in r4.output and "♠" in r4.output and f"number {number}\n" in r4.output


def test_deal_errors():
    r = run("deal", "-5")
    assert r.exit_code != 0
    r = run("deal", "--pbn", "N:AKQ... ... ... ...")
    assert r.exit_code == 2 and "error:" in r.output
    r = run("deal", "1", "--seed", "2")
    assert r.exit_code == 2 and "exactly one" in r.output


def test_simulate_and_table(tmp_path):
    out = tmp_path / "ds"
    r = run("simulate", "-n", "3000", "--seed", "4", "--out", str(out), "--kinds", "H,BK",
            "--where", "len(N,H)>=2", "--chunk", "1000")
    assert r.exit_code == 0, r.output
    assert "3,000 deals" in r.output and "accept" in r.output
    df = read_dataframe(out)
    assert len(df) == 3000
    r = run("table", "freq", str(out), "-f", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert {"kq_any_suit", "declarations_score_NS_H"} <= {x["feature"] for x in rows}
    assert all(x["exact"] is None for x in rows)  # constrained: exact odds do not apply
    r = run("table", "freq", str(out), "--by", "nope")
    assert r.exit_code == 2 and "--by 'nope'" in r.output


def test_simulate_user_errors(tmp_path):
    r = run("simulate", "-n", "10", "--out", str(tmp_path / "x"), "--where", "len(N,Z)>=3")
    assert r.exit_code == 2 and "unknown suit 'Z'" in r.output
    r = run("simulate", "-n", "10", "--out", str(tmp_path / "x"), "--fix", "N:AS", "--fix",
            "S:AS")
    assert r.exit_code == 2 and "AS fixed to N and S" in r.output
    r = run("simulate", "-n", "10", "--out", str(tmp_path / "x"), "--where",
            "points(N,H)>=300")
    assert r.exit_code == 2 and "no deal meets" in r.output
    r = run("simulate", "-n", "10", "--out", str(tmp_path / "x"), "--kinds", "VK",
            "-r", "bela-hr")
    assert r.exit_code == 2 and "VK" in r.output


def test_deal_with_constraints_matches_simulate(tmp_path):
    args = ["--fix", "S=AJ9.K7.Q.T8", "--where", "len(N,H)>=4"]
    r = run("deal", "--seed", "5", "--index", "2", "--count", "3", "-f", "json", *args)
    assert r.exit_code == 0, r.output
    shown = json.loads(r.output)
    run("simulate", "-n", "5", "--seed", "5", "--out", str(tmp_path / "c"), "--kinds", "H",
        "--quiet", *args)
    df = read_dataframe(tmp_path / "c")
    for item in shown:
        row = df[df["index"] == item["index"]].iloc[0]
        assert int(row["number"]) == item["number"]
        assert int(row["S"]) == item["hands"]["S"]
    r = run("deal", "5", "--where", "len(N,H)>=4")
    assert r.exit_code == 2 and "go with --seed" in r.output
