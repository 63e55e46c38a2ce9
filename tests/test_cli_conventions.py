"""One convention in every command (issue 52, points 6, 7, 8, 10 and --help at 80 columns):
one meaning per option name and letter, one default seed, usage errors as one `error:`
line, strict JSON, `deal` given a PBN deal, help text wrapped by the terminal only."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from bazarsim.cli import app, main
from bazarsim.deals.generator import DEFAULT_SEED
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.report.records import to_json

runner = CliRunner()
DEAL = "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97"


def run(*args: str, **kw):
    return runner.invoke(app, list(args), **kw)


def commands():
    """(path, click command) of every command, from the typer app itself."""
    def walk(cmd, path):
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                yield from walk(sub, [*path, name])
        else:
            yield path, cmd

    return list(walk(typer.main.get_command(app), []))


def options():
    return [(" ".join(path), p) for path, cmd in commands() for p in cmd.params
            if p.param_type_name == "option" and not p.hidden]


def strict_loads(text: str):
    def refuse(token):
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


# --------------------------------------------------------------------------- point 6


def test_one_meaning_per_letter_and_name():
    letters: dict[str, set[str]] = {}
    shapes: dict[str, set[bool]] = {}
    for _, p in options():
        names = [o for o in p.opts + p.secondary_opts if o.startswith("--")]
        for o in p.opts:
            if not o.startswith("--") and names:
                letters.setdefault(o, set()).add(names[0])
        for name in names:
            shapes.setdefault(name, set()).add(bool(p.is_flag))
    assert {k: v for k, v in letters.items() if len(v) > 1} == {}
    assert {k: v for k, v in shapes.items() if len(v) > 1} == {}  # a flag here, a value there
    for letter, name in {"-d": "--dealer", "-o": "--option", "-s": "--seed", "-f": "--format",
                         "-n": "--deals", "-r": "--ruleset", "-q": "--quiet"}.items():
        assert letters[letter] == {name}
    assert "--kind" not in shapes and "--count" not in shapes  # hidden aliases only


def test_one_default_seed_and_spelling():
    seeds = [(where, p) for where, p in options() if p.name == "seed"]
    assert {w for w, _ in seeds} >= {"simulate", "analyze", "demo", "deal", "study threshold",
                                     "study convention"}
    for where, p in seeds:
        assert "-s" in p.opts, where
        assert p.default in (DEFAULT_SEED, None), where  # deal: the seed without NUMBER
    assert Simulation(deals=1).seed == DEFAULT_SEED


def test_kinds_everywhere_with_old_spellings(tmp_path):
    kinds = {where for where, p in options() if "--kinds" in p.opts}
    assert kinds >= {"simulate", "analyze", "table bids", "report", "study threshold",
                     "study convention"}
    for spelling in ("--kinds", "--kind"):
        r = run("simulate", "-n", "20", "--out", str(tmp_path / spelling), "-q", spelling, "H",
                spelling, "BK")
        assert r.exit_code == 0, r.output
        manifest = json.loads((tmp_path / spelling / "_run.json").read_text())
        assert manifest["kinds"] == ["H", "BK"]
    r = run("study", "threshold", str(tmp_path), "--kinds", "H,BK")
    assert r.exit_code == 2 and r.output.startswith("error:") and "one contract kind" in r.output
    assert run("deal", "--count", "2", "-f", "pbn").output == run("deal", "-n", "2", "-f",
                                                                    "pbn").output


def test_score_declarer_and_contra_spellings():
    base = ["score", "-c", "9H", "--declarer", "E", "-p", "NS=70", "-f", "json"]
    plain = json.loads(run(*base).output)
    assert plain["made"]
    doubled = [json.loads(run(*base, *extra).output)["ew"]
               for extra in (["--contra"], ["--contra", "X"], ["-x"])]
    assert len(set(doubled)) == 1 and doubled[0] > plain["ew"]
    assert json.loads(run(*base, "--contra", "xx").output) == json.loads(
        run(*base, "--recontra").output)
    r = run("score", "-c", "9H", "-d", "E", "-p", "NS=70")
    assert r.exit_code == 2 and "--declarer" in r.output


def test_report_out_is_not_o(tmp_path):
    r = run("report", str(tmp_path), "-o", "x.html")
    assert r.exit_code == 2 and r.output.startswith("error:")
    assert [p.opts for where, p in options() if where == "report" and p.name == "out"] == [
        ["--out"]]


# --------------------------------------------------------------------------- point 7


@pytest.mark.parametrize("args, words", [
    (["simulate", "--kindz", "H"], ["--kindz", "did you mean --kinds?"]),
    (["eval"], ["missing argument", "hand"]),
    (["eval", "AJ9.K7.Q.T8", "--format", "yaml"], ["--format", "'yaml'"]),
    (["deal", "--seed", "x"], ["--seed", "'x'", "integer"]),
    (["table", "bids", "d", "--confidence", "abc"], ["--confidence", "'abc'"]),
    (["tabel"], ["'tabel'", "did you mean 'table'?"]),
    (["--frobnicate"], ["--frobnicate"]),
])
def test_usage_errors_are_one_error_line(args, words, capsys):
    r = run(*args)
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert all(w in lines[0] for w in words), lines[0]
    # the console script (bazarsim.cli.main) the same way
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip() == lines[0].replace("'root ", "'bazarsim ")


def test_choices_any_case_and_version():
    r = run("eval", "AJ9.K7.Q.T8", "--format", "JSON")
    assert r.exit_code == 0 and strict_loads(r.output)
    r = run("deal", "-s", "7", "-f", "PBN")
    assert r.exit_code == 0 and r.output.startswith("N:")
    r = run("--version")
    assert r.exit_code == 0
    assert r.output.strip().split() == ["bazarsim", __import__("bazarsim").__version__]


# --------------------------------------------------------------------------- point 8


def test_to_json_is_strict():
    obj = {"a": math.nan, "b": [np.float64("nan"), np.float32(1.5), (np.int64(2), math.inf)],
           "c": {"d": -math.inf, "e": np.array([1.0, np.nan])}}
    assert strict_loads(to_json(obj)) == {"a": None, "b": [None, 1.5, [2, None]],
                                          "c": {"d": None, "e": [1.0, None]}}
    assert "\n" not in to_json(obj, indent=None)


@pytest.fixture(scope="module")
def dd_dataset(tmp_path_factory):
    path = tmp_path_factory.mktemp("conv") / "dd"
    run_simulation(Simulation(deals=400, seed=3, kinds=(1,), columns="lean", dd=True), path)
    return path


def test_every_json_output_parses_strictly(dd_dataset):
    d = str(dd_dataset)
    for args in (["table", "bids", d], ["table", "compare", d, "8H", "9H"],
                 ["table", "freq", d], ["eval", "AJ9.K7.Q.T8"], ["odds"], ["rules", "bazar"],
                 ["deal", DEAL], ["auction", "8H", "P", "P", "P"],
                 ["score", "-c", "9H", "--declarer", "E", "-p", "NS=70"],
                 ["solve", DEAL], ["verify", d]):
        r = run(*args, "-f", "json")
        assert r.exit_code == 0, (args, r.output)
        strict_loads(r.output)
    bids = strict_loads(run("table", "bids", d, "-f", "json").output)
    assert any(row["margin"] is None for row in bids)  # was NaN


# --------------------------------------------------------------------------- point 10


def test_deal_numbers_a_pbn_deal_given_as_argument():
    r = run("deal", DEAL, "-f", "json")
    assert r.exit_code == 0, r.output
    (item,) = strict_loads(r.output)
    assert item == strict_loads(run("deal", "--pbn", DEAL, "-f", "json").output)[0]
    back = strict_loads(run("deal", str(item["number"]), "-f", "json").output)[0]
    assert back["pbn"] == item["pbn"] and back["number"] == item["number"]
    assert run("deal", f"{item['number']:,}", "-f", "json").output == run(
        "deal", str(item["number"]), "-f", "json").output
    r = run("deal", "N:AS KS")
    assert r.exit_code == 2 and r.output.startswith("error:")


# --------------------------------------------------------------------------- point 12 (help)


@pytest.mark.parametrize("path", [p for p, _ in commands()], ids=" ".join)
def test_help_wraps_at_80_columns_without_orphans(path):
    r = run(*path, "--help", env={"COLUMNS": "80"}, terminal_width=80)
    assert r.exit_code == 0, r.output
    text = r.output.split("╭", 1)[0]  # the command's description, above the option boxes
    lines = [line.strip() for line in text.splitlines()]
    assert max(map(len, r.output.splitlines())) <= 80
    for line, nxt in zip(lines, lines[1:], strict=False):
        if line and nxt and not nxt.startswith(("bazarsim ", "$ ", "- ")):
            # a line followed by more of its paragraph was filled by the terminal
            assert len(line) + len(nxt.split()[0]) >= 70, (line, nxt)


def test_a_closed_pipe_ends_quietly():
    """`bazarsim deal -n 20000 | head -1` (megabytes, far more than a pipe holds): the
    reader stops early; no error line."""
    import subprocess
    import sys

    p = subprocess.run(f"{sys.executable} -m bazarsim deal -n 20000 | head -1", shell=True,
                       capture_output=True, text=True, timeout=120)
    assert p.stdout.startswith("Deal seed 7 index 0")
    assert "error" not in p.stderr and "Broken pipe" not in p.stderr, p.stderr
