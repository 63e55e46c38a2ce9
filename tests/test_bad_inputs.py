"""Malformed input to the newest commands (play, policy, fit, match, equity, simulate --sd,
table bias, analyze, study): each refused before anything is written, with exit code 2 and
one ``error:`` line that names the problem, never a traceback.

The cases are a table: the command line (``{dd}``, ``{sd}`` ... name the fixtures below),
then a fragment of the message. Each runs in a fresh working directory; after it, that
directory and the fixtures' own directory are exactly as before (no run directory, model,
page or part file left behind by a typo).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bazarsim.cli import app

DEAL = "'N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97'"
PLAY = f"play {DEAL} -c 9H --declarer N"
HAND = "AJ9.K7.Q.T8 --seat S --dealer E"
MATCH = "match bold careful -m 2 --dataset {dd}"
EQUITY = "equity --from bold -m 2 --dataset {dd}"
SIM_SD = "simulate -n 2 --out {cwd}/new --sd"

CASES = [
    # ---------------------------------------------------------------- play
    (f"{PLAY} -s -1", "-1 is not a seed"),
    (f"{PLAY} -s 18446744073709551616", "18446744073709551616 is not a seed"),
    (f"{PLAY} -s seven", "'seven' is not a seed"),
    (f"{PLAY} -w 0", "--worlds 0: use 1 .. 1,000"),
    (f"{PLAY} -w 100000000", "--worlds 100000000: use 1 .. 1,000"),
    (f"play {DEAL} -c 9X --declarer N", "9X"),
    (f"play {DEAL} -c 9H --declarer Q", "bad seat 'Q'"),
    (f"{PLAY} --players pimc,random", "give one player or four"),
    (f"{PLAY} --players genius", "unknown player 'genius'"),
    (f"{PLAY} --objective win", "--objective 'win'"),
    (f"{PLAY} --infer nothing", "--infer 'nothing'"),
    (f"{PLAY} --contra y", "--contra 'y'"),
    (f"{PLAY} -r poker", "unknown ruleset 'poker'"),
    (f"{PLAY} -o play.fly=1", "unknown option 'play.fly'"),
    (f"{PLAY} -d Q", "bad seat 'Q'"),
    (f"{PLAY} -f xml", "'xml'"),
    (f"play {DEAL} -c 7H --declarer N", "7H"),
    (f"play {DEAL} -c 9VK --declarer N -r bazar-blot", "VK"),
    ("play 'N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K' -c 9H --declarer N", "expected 4 hands"),
    ("play 'N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J9J' -c 9H --declarer N",
     "duplicate card"),
    ("play 'N:J97.T8..QT8 N:AKQ..AQT8.A S:.AKQ.KJ97.K W:T8.J97..J97' -c 9H --declarer N",
     "seat N is given twice"),
    ("play 'N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J9' -c 9H --declarer N",
     "the same number of cards"),
    # ---------------------------------------------------------------- policy
    ("policy {cwd}/nowhere.toml", "no policy file"),
    ("policy {latin1}", "not a UTF-8 text file"),
    ("policy {unknown_key}", "unknown key in [open]"),
    ("policy {too_likely}", "a threshold on a probability, 0 .. 1"),
    ("policy {broken}", "broken.toml"),
    ("policy {bad_when}", "one of any, behind, ahead, level"),
    ("policy {bad_shift}", "a shift between -1 and 1"),
    ("policy {bad_type}", "expected float"),
    ("policy careful -f xml", "'xml'"),
    # ---------------------------------------------------------------- fit
    ("fit {dd} --out {cwd}/m.json --prior 0", "--prior 0.0: pseudo-deals must be a number > 0"),
    ("fit {dd} --out {cwd}/m.json --prior -1", "--prior -1.0"),
    ("fit {dd} --out {cwd}/m.json --prior nan", "--prior nan"),
    ("fit {cwd}/nodata --out {cwd}/m.json", "is not a bazarsim dataset"),
    ("fit {dd} --out {cwd}/nodir/m.json", "no directory"),
    ("fit {dd} --out {cwd}", "a directory, not a file"),
    ("fit {dd} --out {cwd}/m.json --play sd", "has no SD columns"),
    ("fit {dd} --out {cwd}/m.json --play xx", "--play 'xx'"),
    ("fit {dd}", "--out"),
    ("fit {dd} --out {cwd}/m.json -f xml", "'xml'"),
    # ---------------------------------------------------------------- match
    (f"{MATCH} --play xx", "--play 'xx': use dd (double dummy) or sd"),
    (f"{MATCH} --play sd", "has no SD columns: simulate it with --sd"),
    ("match bold careful -m 2 --play sd", "the default deals are solved double dummy"),
    (f"{MATCH} -r poker", "unknown ruleset 'poker'"),
    (f"{MATCH} -r bazar-blot", "holds bazar deals, not bazar-blot"),
    (f"{MATCH} --to 0", "bad match target 0"),
    (f"{MATCH} --to -5", "bad match target -5"),
    (f"{MATCH} --to 1001", "bad match target 1001 for bazar"),
    (f"{MATCH} -s -1", "-1 is not a seed"),
    (f"{MATCH} -s 18446744073709551616", "is not a seed"),
    (f"{MATCH} -m 1", "--matches"),
    (f"{MATCH} --chunk 0", "--chunk"),
    ("match bold careful -m 2 --dataset {cwd}/nodata", "is not a bazarsim dataset"),
    (f"{MATCH} --model {{cwd}}/nomodel.json", "cannot read model"),
    (f"{MATCH} --model {{latin1}}", "cannot read model"),
    (f"{MATCH} -o play.undertrump_required=true", "a match may change scoring options only"),
    (f"{MATCH} -o scoring.target=abc", "bad value 'abc' for scoring.target"),
    (f"{MATCH} -o scoring.fly=1", "unknown option 'scoring.fly'"),
    ("match nowhere careful -m 2 --dataset {dd}", "no policy file 'nowhere'"),
    ("match bold {latin1} -m 2 --dataset {dd}", "not a UTF-8 text file"),
    (f"{MATCH} --out {{latin1}}", "a file, not a run directory"),
    (f"{MATCH} --out {{other_run}}", "holds another play-off"),
    (f"{MATCH} -f xml", "'xml'"),
    (f"{MATCH} -o scoring.targets= --to 0", "bad match target 0"),
    # ---------------------------------------------------------------- equity
    ("equity --from nowhere -m 2 --dataset {dd}", "no policy file 'nowhere'"),
    (f"{EQUITY} --against {{latin1}}", "not a UTF-8 text file"),
    (f"{EQUITY} --step 0", "--step"),
    (f"{EQUITY} --threshold-step 0", "--threshold-step"),
    (f"{EQUITY} --policy-out {{cwd}}/nodir/p.toml", "no directory"),
    (f"{EQUITY} --policy-out {{cwd}}", "a directory, not a file"),
    (f"{EQUITY} --play xx", "--play 'xx'"),
    (f"{EQUITY} -s -1", "-1 is not a seed"),
    (f"{EQUITY} -s 99999999999999999999", "is not a seed"),
    (f"{EQUITY} --to 0", "bad match target 0"),
    (f"{EQUITY} -r poker", "unknown ruleset 'poker'"),
    ("equity --from bold -m 2 --dataset {cwd}/nodata", "is not a bazarsim dataset"),
    (f"{EQUITY} -m 1", "--matches"),
    (f"{EQUITY} -o play.x=1", "a match may change scoring options only"),
    (f"{EQUITY} --out {{other_run}}", "holds another play-off"),
    # ---------------------------------------------------------------- simulate --sd
    ("simulate -n 2 --out {cwd}/new -w 5", "--worlds 5: it applies only with --sd"),
    (f"{SIM_SD} -w 0", "--worlds 0: use 1 .. 1,000"),
    (f"{SIM_SD} -w 100000000", "--worlds 100000000: use 1 .. 1,000"),
    (f"{SIM_SD} -s -1", "-1 is not a seed"),
    (f"{SIM_SD} -s 18446744073709551616", "is not a seed"),
    ("simulate -n -1 --out {cwd}/new --sd", "--deals -1"),
    (f"{SIM_SD} --kinds X", "X"),
    (f"{SIM_SD} --kinds VK -r bazar-blot", "does not exist in ruleset bazar-blot"),
    (f"{SIM_SD} --chunk 0", "--chunk 0"),
    (f"{SIM_SD} --dealer Q", "Q"),
    (f"{SIM_SD} --columns wide", "--columns 'wide'"),
    (f"{SIM_SD} --compression brotli", "--compression 'brotli'"),
    (f"{SIM_SD} --first -1", "--first -1"),
    (f"{SIM_SD} -r poker", "unknown ruleset 'poker'"),
    (f"{SIM_SD} --fix 'N:AS AS'", "AS"),
    (f"{SIM_SD} -o play.fly=1", "unknown option"),
    # ---------------------------------------------------------------- table bias
    ("table bias {dd}", "needs both double-dummy and single-dummy columns"),
    ("table bias {cwd}/nodata", "is not a bazarsim dataset"),
    ("table bias {sd} --levels 7..9", "levels from 8 up; bazar has no highest level"),
    ("table bias {sd} --levels x", "--levels"),
    ("table bias {sd} --levels 9..", "give both ends"),
    ("table bias {sd} --kinds S", "S"),
    ("table bias {sd} --kinds Q", "Q"),
    ("table bias {sd} --contra y", "--contra 'y'"),
    ("table bias {sd} --confidence 1.5", "--confidence 1.5"),
    ("table bias {sd} --confidence 0", "--confidence 0"),
    ("table bias {sd} -f xml", "'xml'"),
    # ---------------------------------------------------------------- analyze
    (f"analyze {HAND} -w 5", "--worlds 5: it applies only with --play sd"),
    (f"analyze {HAND} --play sd -w 0", "--worlds 0: use 1 .. 1,000"),
    (f"analyze {HAND} --play sd -w 5000", "--worlds 5000: use 1 .. 1,000"),
    (f"analyze {HAND} --play xx", "--play 'xx'"),
    (f"analyze {HAND} -s -1", "-1 is not a seed"),
    ("analyze AJ9.K7.Q.T8", "give the player's --seat and the --dealer"),
    ("analyze AJ9.K7.Q.T8J --seat S --dealer E", "AJ9.K7.Q.T8J"),
    ("analyze AJ9.K7.Q.TT --seat S --dealer E", "duplicate card"),
    (f"analyze {HAND} --kinds VK -r bazar-blot", "does not exist in ruleset bazar-blot"),
    (f"analyze {HAND} --confidence 2", "--confidence"),
    (f"analyze {HAND} -r poker", "unknown ruleset 'poker'"),
    # ---------------------------------------------------------------- study
    ("study threshold {dd} --kinds H --level 99", "99H: made by none of the"),
    ("study threshold {dd} --kinds H --level 7", "levels from 8 up"),
    ("study threshold {dd}", "give the bid's --kinds"),
    ("study threshold {dd} --kinds H,S", "takes one contract kind"),
    ("study threshold {dd} --kinds H --by nonsense", "nonsense"),
    ("study threshold {dd} --kinds H --target 1.5", "--target 1.5"),
    ("study threshold {dd} --kinds H --bootstrap 5", "--bootstrap 5"),
    ("study threshold {dd} --kinds H -s -1", "-1 is not a seed"),
    ("study threshold {dd} --kinds H --play sd", "has no SD columns"),
    ("study convention {dd} --kinds H --level 99", "99H: made by none of the"),
    ("study convention {dd} --kinds H --bins 1", "--bins 1"),
    ("study convention {dd} --kinds H -s 18446744073709551616", "is not a seed"),
    ("study convention {dd} --kinds H --level 7", "levels from 8 up"),
]


def tree(path: str | Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``path`` with its size and modification time."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.stat()
            out[str(p.relative_to(path))] = (st.st_size if p.is_file() else 0,
                                            st.st_mtime_ns)
    return out


def test_the_table_covers_the_newest_commands():
    commands = [shlex.split(c)[0] for c, _ in CASES]
    assert len(CASES) >= 100
    for name in ("play", "policy", "fit", "match", "equity", "simulate", "table", "analyze",
                 "study"):
        assert commands.count(name) >= 5, name


@pytest.mark.parametrize("line,fragment", CASES, ids=[c for c, _ in CASES])
def test_bad_input_is_refused_cleanly(line, fragment, cli_inputs, tmp_path, monkeypatch):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    args = [a.format(cwd=cwd, **cli_inputs) for a in shlex.split(line)]
    before, fixtures = tree(cwd), tree(cli_inputs["root"])
    r = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert r.exit_code == 2, (r.exit_code, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert fragment.format(cwd=cwd, **cli_inputs) in lines[0], lines[0]
    assert "Traceback" not in r.stderr + r.stdout
    assert tree(cwd) == before, "the failed command left files behind"
    assert tree(cli_inputs["root"]) == fixtures, "the failed command changed its input"
