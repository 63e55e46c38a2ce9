"""The newest commands as solid as the oldest: what the bad-input table
(tests/test_bad_inputs.py) cannot show on its own. A typo leaves nothing that blocks the
right command; one seed rule in every command; narrowing said in the output; every deal a
command prints is accepted back; messages, widths and formats; equity beside match."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shlex

import numpy as np
import pytest
import typer
from typer.main import get_command
from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.cli.common import parse_seed, term_width
from bazarsim.cli.match_cmd import run_stem
from bazarsim.core.cards import parse_deal
from bazarsim.engine.simulation import Simulation, sd_chunk
from bazarsim.matches.equity import simulated_vs_dp
from bazarsim.matches.playoff import OUTCOME_FIELDS, playoff_summary
from bazarsim.matches.policy import load_policy
from bazarsim.matches.run import scoring_ruleset
from bazarsim.players.players import DEFAULT_WORLDS, MAX_WORLDS
from bazarsim.report.html import Column, Page, text
from bazarsim.report.matches import calibration_records, playoff_records
from bazarsim.rules.match import Match
from bazarsim.rules.rulesets import get_ruleset

DEAL = "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97"


def run(*args, columns: int = 80):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": str(columns)})


# --------------------------------------------------------------------------- point 1


def test_a_typo_leaves_nothing_that_blocks_the_right_command(cli_inputs, tmp_path,
                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    dd = cli_inputs["dd"]
    for wrong in (["--play", "xx"], ["--play", "sd"], ["--to", "0"], ["-r", "poker"]):
        r = run("match", "bold", "careful", "-m", 2, "--dataset", dd, *wrong)
        assert r.exit_code == 2, r.output
        assert not (tmp_path / "runs").exists()
    r = run("match", "bold", "careful", "-m", 2, "--dataset", dd, "-q", "-f", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)["out"]
    assert out.endswith("match-bold-careful-dd-dd-301-7")


def test_the_default_run_directory_names_every_parameter():
    bold, careful = load_policy("bold"), load_policy("careful")
    base = dict(pa=bold, pb=careful, dataset="runs/d", model=None, play="dd", target=301,
                seed=7, scoring=[])
    stems = {run_stem(**base)}
    for change in ({"play": "sd"}, {"target": 101}, {"seed": 8}, {"model": "m.json"},
                   {"dataset": "runs/e"}, {"pa": careful, "pb": bold},
                   {"scoring": ["scoring.targets="]},
                   {"scoring": ["scoring.targets=101,301"]}):
        stems.add(run_stem(**{**base, **change}))
    assert len(stems) == 9  # every change gives its own directory
    same = run_stem(**{**base, "scoring": [" scoring.targets=101,301", "scoring.x=1"]})
    assert same == run_stem(**{**base, "scoring": ["scoring.x=1", "scoring.targets=101,301"]})


# --------------------------------------------------------------------------- point 3


def test_one_seed_rule_in_every_command():
    """Every command's --seed takes 0 .. 2^64-1 and refuses the rest, as its help says."""
    root = get_command(app)
    found = []

    def walk(cmd, path):
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, path + [name])
        for p in getattr(cmd, "params", []):
            if "--seed" in getattr(p, "opts", ()):
                found.append((" ".join(path), p))

    walk(root, [])
    names = {n for n, _ in found}
    assert {"play", "match", "equity", "simulate", "analyze", "deal", "demo",
            "study threshold", "study convention"} <= names
    for name, p in found:
        assert "0 .. 2^64-1" in p.help, name
        assert p.type_descriptor.parameter_info.parser is parse_seed, name
    for good in ("0", "7", str(2**64 - 1)):
        assert parse_seed(good) == int(good)
    for bad in ("-1", str(2**64), "x", "1.5", ""):
        with pytest.raises(typer.BadParameter, match="is not a seed"):
            parse_seed(bad)
    assert parse_seed(" 1_000 ") == 1000
    for line in ("deal -s -1", "demo -s 18446744073709551616 -q"):
        r = run(*shlex.split(line))
        assert r.exit_code == 2 and "is not a seed" in r.stderr, line


# --------------------------------------------------------------------------- point 4


def test_match_says_when_the_dataset_narrows_the_kinds(cli_inputs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run("match", "bold", "careful", "-m", 2, "--dataset", cli_inputs["dd"], "-q",
            columns=200)
    assert r.exit_code == 0, r.output
    assert re.search(r"contracts: (H S|S H) only: .* solved no other kind", r.stdout)
    assert "bazar has S H D C BK VK" in r.stdout
    r = run("match", "bold", "careful", "-m", 2, "--dataset", cli_inputs["dd"], "-q", "-f",
            "json")
    assert sorted(json.loads(r.stdout)["kinds"]) == ["H", "S"]


def test_bias_says_which_levels_only_declarations_make(cli_inputs):
    r = run("table", "bias", cli_inputs["sd"], "--levels", "16..17", columns=200)
    assert r.exit_code == 0, r.output
    assert "17H: above the 162 points the cards hold" in r.stdout
    assert "16H:" not in r.stdout.split("above the")[0].splitlines()[-1]
    r = run("table", "bias", cli_inputs["sd"], "--levels", "8..16", columns=200)
    assert "above the" not in r.stdout


# --------------------------------------------------------------------------- point 5


def test_worlds_have_a_documented_limit_and_the_bar_keeps_moving():
    assert MAX_WORLDS == 1000 and DEFAULT_WORLDS == 20
    help_text = run("simulate", "--help", columns=200).stdout
    assert "1 .. 1,000" in help_text
    assert sd_chunk(DEFAULT_WORLDS) == 64 and sd_chunk(1) == 64
    assert sd_chunk(MAX_WORLDS) == 1
    sizes = [sd_chunk(w) for w in range(1, MAX_WORLDS + 1)]
    assert sizes == sorted(sizes, reverse=True)  # more worlds, smaller chunks
    assert all(s * w <= 64 * 20 * 1.5 for w, s in enumerate(sizes, 1) if s > 1)
    sim = Simulation(deals=4, seed=1, ruleset=get_ruleset("bazar"), sd=MAX_WORLDS)
    assert sim.chunk == 1


# --------------------------------------------------------------------------- point 6


def test_the_targets_option_can_be_emptied(cli_inputs, tmp_path, monkeypatch):
    rs = scoring_ruleset(get_ruleset("bazar"), ["scoring.targets="])
    assert rs.scoring.targets == ()
    assert Match(rs, 1001).target == 1001
    assert scoring_ruleset(get_ruleset("bazar"), ["scoring.targets=none"]).scoring.targets == ()
    monkeypatch.chdir(tmp_path)
    r = run("match", "bold", "careful", "-m", 2, "--dataset", cli_inputs["dd"], "--to", 1001,
            "-o", "scoring.targets=", "-q", "-f", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["target"] == 1001


# --------------------------------------------------------------------------- point 8


def test_every_deal_a_command_prints_is_accepted_back():
    hands = parse_deal(DEAL)
    r = run("play", DEAL, "-c", "9H", "--declarer", "E", "-w", 2, "-f", "json")
    assert r.exit_code == 0, r.output
    rec = json.loads(r.stdout)
    assert rec["declarer"] == "E" and rec["declaring_side"] == "EW"
    assert rec["deal"].split()[1].startswith("E:")  # each hand labelled
    assert (parse_deal(rec["deal"]) == hands).all()
    for printed in (rec["deal"],):
        s = run("solve", printed, "-c", "H", "-f", "json")
        assert s.exit_code == 0, s.output
        assert (parse_deal(json.loads(s.stdout)["deal"]) == hands).all()
        p = run("play", printed, "-c", "9H", "--declarer", "E", "-w", 2, "-f", "json")
        assert json.loads(p.stdout)["deal"] == rec["deal"]
    rows = list(csv.DictReader(io.StringIO(run("deal", "-n", 3, "-f", "csv").stdout)))
    assert [r["index"] for r in rows] == ["0", "1", "2"]
    pbn = run("deal", "-n", 3, "-f", "pbn").stdout.splitlines()
    for row, line in zip(rows, pbn, strict=True):
        assert (parse_deal(row["deal"]) == parse_deal(line.split("\t")[0])).all()
        number = run("deal", row["deal"], "-f", "json")
        assert json.loads(number.stdout)[0]["number"] == int(row["number"])
    # labels may come in any order; a seat named twice is refused
    turned = "S:.AKQ.KJ97.K W:T8.J97..J97 N:J97.T8..QT8 E:AKQ..AQT8.A"
    assert (parse_deal(turned) == hands).all()


# --------------------------------------------------------------------------- point 9


def test_play_help_says_what_its_seed_fixes():
    out = " ".join(run("play", "--help", columns=200).stdout.split())
    seed = out[out.index("--seed"):][:200]
    assert "same deals" not in seed and "worlds" in seed


def test_self_play_has_no_variance_reduction_to_show():
    """Every pair split 1-1: the paired SE is 0 and the ratio is undefined, not inf."""
    wins = np.tile([[1, 0]], (50, 1))
    outcomes = np.zeros((4, len(OUTCOME_FIELDS)), np.int64)
    s = playoff_summary(wins, outcomes, 301)
    assert s["se_paired"] == 0 and s["variance_reduction"] is None
    json.dumps(s, allow_nan=False)
    row = [r for r in playoff_records(s, "A", "B") if r["figure"] == "variance reduction"][0]
    assert row["value"] == "-" and "1-1" in row["note"]
    assert "inf" not in json.dumps(playoff_records(s, "A", "B"))


def test_policy_threshold_message_says_what_1_01_means(tmp_path):
    bad = tmp_path / "p.toml"
    bad.write_text("[contra]\nfail = 2.0\n")
    r = run("policy", bad)
    assert r.exit_code == 2
    assert "0 .. 1 (or 1.01, above any probability, for never)" in r.stderr
    assert "probability 0..1 (1.01" not in r.stderr


# --------------------------------------------------------------------------- point 10


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_policy_keys_fit_the_terminal(columns):
    out = run("policy", "--keys", columns=columns).stdout
    assert max(len(line) for line in out.splitlines()) <= columns
    assert "make (float, default 0.8)" in " ".join(out.split())  # wrapped, not cut


def test_unknown_width_is_80(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr("shutil.get_terminal_size",
                        lambda fallback=(80, 24): __import__("os").terminal_size(fallback))
    assert term_width() == 80


def test_fit_counts_have_thousands_separators():
    cal = {"roles": {"bidder": {"forecasts": 185592, "brier": 0.1, "brier_base_rate": 0.12,
                                "skill": 0.2}},
           "forecasts": 185592, "brier": 0.1, "brier_base_rate": 0.12, "skill": 0.2,
           "reliability": [{"bin": "0-10 %", "forecasts": 12345, "mean_forecast": 0.05,
                            "observed": 0.06}]}
    rows, rel = calibration_records(cal)
    assert rows[0]["forecasts"] == "185,592" and rows[-1]["forecasts"] == "185,592"
    assert rel[0]["forecasts"] == "12,345"


def test_solve_headers_are_words():
    out = run("solve", DEAL, "-c", "H", "--line", columns=200).stdout
    headers = [line for line in out.splitlines() if "┃" in line]
    assert headers and not any("_" in h for h in headers), headers
    assert "N-S points" in out and "N-S points so far" in out


def test_deal_has_csv_and_one_name_for_local_processes():
    assert run("deal", "-f", "csv").stdout.splitlines()[0] == "number,seed,index,deal"
    help_text = run("compile", "--help", columns=200).stdout
    assert "--jobs" in help_text and "--workers" not in help_text.replace(
        "--workers is for Dask", "")
    for name in ("simulate", "match", "equity"):  # --workers: Dask workers everywhere
        assert "Dask" in " ".join(run(name, "--help", columns=200).stdout.split())


def test_a_page_counts_its_rows_in_words():
    page = Page("t")
    page.table("one", "One", [Column("x", "x", text, True)], [{"x": "a"}])
    page.table("two", "Two", [Column("x", "x", text, True)], [{"x": "a"}, {"x": "b"}])
    html = "".join(page.blocks)
    assert "(1 row)" in html and "(2 rows)" in html and "1 rows" not in html


def test_no_table_of_a_dataset_page_scrolls_at_1200_px(cli_inputs, browser, tmp_path):
    """The DD-bias table (and every other) fits a 1200 px window without a scrollbar."""
    out = tmp_path / "sd.html"
    r = run("report", cli_inputs["sd"], "--out", out)
    assert r.exit_code == 0, r.output
    info = browser.check(out, width=1200, paint=False)
    assert "bias" in {t["id"] for t in info["tables"]}
    assert {t["id"]: t["overflow"] for t in info["tables"] if t["overflow"] > 0} == {}


# --------------------------------------------------------------------------- point 11


def test_equity_prints_the_paired_error_match_prints():
    rng = np.random.default_rng(4)
    wins = (rng.random((300, 2)) < [0.6, 0.4]).astype(np.int64)
    check = simulated_vs_dp({"eq": np.full((301, 301, 2), 0.5)}, wins)
    s = playoff_summary(wins, np.zeros((2, len(OUTCOME_FIELDS)), np.int64), 301)
    assert math.isclose(check["simulated_se"], s["se_paired"])
    assert math.isclose(check["simulated_se_unpaired"], s["se_unpaired"])


def test_not_a_dataset_is_worded_one_way(tmp_path):
    (tmp_path / "empty").mkdir()
    said = set()
    for path in (tmp_path / "missing", tmp_path / "empty"):
        for line in (f"table freq {path}", f"table bids {path}", f"fit {path} --out m.json",
                     f"match bold careful --dataset {path}", f"verify {path}"):
            r = run(*shlex.split(line))
            assert r.exit_code == 2, (line, r.output)
            said.add(re.sub(r"'[^']*'|\(.*\)", "X", r.stderr.strip()))
    assert said == {"error: X is not a bazarsim dataset X: write one with bazarsim simulate"}
