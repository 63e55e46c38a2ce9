"""The study browser's backend (bazarsim.app.study): what it lists under the data root, what
it refuses, and that its tables are the records the CLI prints for the same options.

A data root is built once: a DD dataset, a DD+SD one (for the bias table), one without DD
columns, a link to a dataset inside the root (listed) and one to a dataset outside it
(refused), a hidden and a too-deep dataset (not listed) and a directory that is not a
dataset. Every table of a result is compared with the JSON output of the command line it
names, run through the CLI; the ``--by`` values are compared with hand-written ones and
with the page's JavaScript (run in Node where it is installed).
"""

from __future__ import annotations

import csv
import io
import json
import shlex
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from bazarsim.analysis.bids import Classer, parse_by
from bazarsim.app.study import (
    BY_JS,
    INFO,
    MAX_CLASSES,
    STUDY_TASKS,
    by_expression,
    study_screen,
)
from bazarsim.cli import app
from bazarsim.core.errors import BazarsimError
from bazarsim.core.ranges import BIG, parse_levels
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.report.pages import threshold_rows
from bazarsim.rules.rulesets import get_ruleset

runner = CliRunner()
TASK = STUDY_TASKS["study"]
LISTED = ["alias", "bias", "plain", "runs/dd"]


def cli_json(argv: list[str]):
    res = runner.invoke(app, argv)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """The data root (see the module's doc); ``outside`` beside it."""
    top = tmp_path_factory.mktemp("study")
    data = top / "data"
    bazar = get_ruleset("bazar")
    run_simulation(Simulation(deals=300, seed=3, ruleset=bazar, kinds=(1,), columns="lean",
                              dd=True, chunk=150), data / "runs" / "dd")
    run_simulation(Simulation(deals=20, seed=5, ruleset=bazar, kinds=(1,), columns="lean",
                              dd=True, sd=2, chunk=20), data / "bias")
    run_simulation(Simulation(deals=100, seed=4, ruleset=bazar, chunk=100), data / "plain")
    shutil.copytree(data / "runs" / "dd", top / "outside")
    shutil.copytree(data / "runs" / "dd", data / ".hidden" / "dd")
    shutil.copytree(data / "runs" / "dd", data / "a" / "b" / "c" / "dd")  # 4 levels down
    (data / "notes").mkdir()
    (data / "notes" / "readme.txt").write_text("not a dataset")
    (data / "alias").symlink_to(data / "runs" / "dd")
    (data / "escape").symlink_to(top / "outside")
    return data


def study(root, **fields):
    params = TASK.check({"path": "runs/dd", **fields}, root)
    json.dumps(params, allow_nan=False)  # plain JSON: it travels to a worker
    shares = []
    res = TASK.run(params, lambda share, words: shares.append((share, words)))
    json.dumps(res, allow_nan=False)
    assert [s for s, _ in shares] == sorted(s for s, _ in shares) and shares[-1][0] == 1.0
    return params, res


# --------------------------------------------------------------------------- lookups


def test_datasets_lists_what_is_there_and_nothing_outside(root):
    got = INFO["datasets"](root, {})["datasets"]
    assert [d["path"] for d in got] == LISTED
    by = {d["path"]: d for d in got}
    assert by["runs/dd"] == {"path": "runs/dd", "ruleset": "bazar", "deals": 300, "dd": True,
                             "sd": False, "kinds": ["H"], "auction": False}
    assert by["bias"]["dd"] and by["bias"]["sd"]
    assert not by["plain"]["dd"] and len(by["plain"]["kinds"]) == 6


def test_datasets_without_a_data_root():
    with pytest.raises(BazarsimError, match="no --data directory"):
        INFO["datasets"](None, {})


def test_dataset_facts(root):
    dd = INFO["dataset"](root, {"path": "runs/dd"})
    assert dd["kinds"] == ["H"] and dd["levels"] == {"H": list(range(8, 17))}
    assert dd["default_levels"] == "8..11" and dd["has_levels"]
    assert "points" in dd["features"] and not any(f.startswith("seen_") for f in dd["features"])
    assert dd["edges"]["points"] == "0..29,30..49,50..69,70.."
    assert dd["edges"]["trumps"] == "0..2,3,4,5.."
    for f, edges in dd["edges"].items():
        parse_by(by_expression([(f, edges, None)])[0])  # every default is a valid --by
    assert dd["contras"] == ["none", "x", "xx"] and dd["plays"] == ["dd"]
    assert not dd["bias"] and INFO["dataset"](root, {"path": "bias"})["bias"]
    with pytest.raises(BazarsimError, match="no dataset given"):
        INFO["dataset"](root, {})
    with pytest.raises(BazarsimError, match="leads out of the data directory"):
        INFO["dataset"](root, {"path": "escape"})


# --------------------------------------------------------------------------- --by


BY_CASES = [
    ([("points", " 0..29, 30..49,50.. ", None)], ["points=0..29,30..49,50.."]),
    ([("trumps", "0-2,3-", "h")], ["trumps@H=0-2,3-"]),
    ([("jack", "", None), ("position", None, "")], ["jack", "position"]),
    ([(" aces ", " , ", " ")], ["aces"]),
    ([("len_H", "0..2,", None)], ["len_H=0..2,"]),  # the CLI refuses it, as the check does
]


@pytest.mark.parametrize(("rows", "want"), BY_CASES)
def test_by_expression(rows, want):
    assert by_expression(rows) == want


def test_by_expression_reads_as_the_cli_reads_it():
    (a, b) = by_expression([("points", "0..19, 20..39,40..", None), ("trumps", "0-2,3", "H")])
    assert parse_by(a) == Classer("points", ((0, 19), (20, 39), (40, BIG)))
    assert parse_by(b) == Classer("trumps", ((0, 2), (3, 3)), 1)


def test_the_page_builds_the_same_by_values():
    node = shutil.which("node")
    if node is None:
        pytest.skip("no Node.js here: the page's --by preview is checked in the browser tests")
    rows = [[{"feature": f, "edges": e, "kind": k} for f, e, k in r] for r, _ in BY_CASES]
    rows.append([{"feature": "trumps", "edges": " 0..2 ,3 ,  4..", "kind": " bk"}])
    script = BY_JS + f"\nconsole.log(JSON.stringify({json.dumps(rows)}.map(studyByExpression)))"
    out = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True)
    want = [by_expression([(x["feature"], x["edges"], x["kind"]) for x in r]) for r in rows]
    assert json.loads(out.stdout) == want
    assert want[-1] == ["trumps@BK=0..2,3,4.."]


@pytest.mark.parametrize("text, want", [
    ("8..12", [8, 9, 10, 11, 12]), ("8-12", [8, 9, 10, 11, 12]), ("8,9,10", [8, 9, 10]),
    ("8, 10", [8, 10]), ("9", [9]), ("8..9,11", [8, 9, 11]), (["8", 9], [8, 9]),
    ("", None), ([], None)])
def test_levels_as_the_form_and_the_cli_take_them(text, want):
    assert parse_levels(text) == want


@pytest.mark.parametrize("text", ["8..", "..9", "x", "-3", ["8", "x"], [True]])
def test_bad_levels_are_refused(text):
    with pytest.raises(BazarsimError, match="bad --levels"):
        parse_levels(text)


# --------------------------------------------------------------------------- the checks


BAD = [
    ({"path": "../x"}, "'..' is not allowed"),
    ({"path": "/etc"}, "give a path relative to the data directory"),
    ({"path": "escape"}, "leads out of the data directory"),
    ({"path": "nope"}, "not found under the data directory"),
    ({"path": "notes"}, "is not a bazarsim dataset"),
    ({"path": "notes/readme.txt"}, "not a directory"),
    ({"path": ""}, "choose a dataset"),
    ({"path": "plain"}, "has no DD columns: simulate it with --dd"),
    ({"play": "sd"}, "has no SD columns: simulate it with --sd"),
    ({"play": "xx"}, "--play 'xx': use dd"),
    ({"kinds": "Z"}, "bad contract kind 'Z'"),
    ({"kinds": []}, "choose at least one contract kind"),
    ({"kinds": ["H", "BK"]}, "kind BK was not simulated"),
    ({"levels": "7"}, "level 7 is not a bid in ruleset bazar"),
    ({"levels": "8.."}, "give both ends"),
    ({"levels": ["8", "x"]}, "'x' is not a level"),
    ({"contra": "y"}, "--contra 'y': use none, x or xx"),
    ({"by": [{"feature": "height"}]}, "unknown feature 'height'"),
    ({"by": [{"feature": "points", "edges": "0..x"}]}, "'0..x' is not a range"),
    ({"by": [{"feature": "points", "edges": "9..2"}]}, "empty range"),
    ({"by": [{"feature": "aces", "kind": "H"}]}, "the same in every contract kind"),
    ({"by": [{"feature": "trumps", "kind": "Q"}]}, "unknown kind 'Q'"),
    ({"by": ["trumps@BK"]}, "kind BK was not simulated"),
    ({"by": [{"feature": ""}]}, "a feature row without its feature"),
    ({"by": [{"feature": "jack"}, {"feature": "jack", "edges": "1"}]}, "jack twice"),
    ({"by": [{"feature": "points"}, {"feature": "declarations"}]},
     f"more than {MAX_CLASSES:,}"),
    ({"threshold_feature": "points=0..9"}, "give the feature alone"),
    ({"threshold_feature": "trumps@BK"}, "the axis is counted in the bid's kind"),
    ({"threshold_feature": "size"}, "unknown feature 'size'"),
    ({"threshold_bid": "8H-CAPOT"}, "a capot bid"),
    ({"threshold_bid": "7H"}, "threshold bid '7H': bad contract '7H': level must be at least 8"),
    ({"threshold_bid": "9BK"}, "kind BK was not simulated"),
    ({"threshold_bid": "nonsense"}, "threshold bid 'nonsense'"),
]


@pytest.mark.parametrize(("fields", "message"), BAD, ids=[str(f) for f, _ in BAD])
def test_bad_input_is_one_clear_error(root, fields, message):
    with pytest.raises(BazarsimError) as err:
        TASK.check({"path": "runs/dd", **fields}, root)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_no_data_root():
    with pytest.raises(BazarsimError, match="no --data directory"):
        TASK.check({"path": "runs/dd"}, None)


def test_a_dataset_whose_parts_lead_outside(root, tmp_path):
    data = tmp_path / "data"
    (data / "mixed").mkdir(parents=True)
    outside = root / "runs" / "dd"
    shutil.copy(outside / "_run.json", data / "mixed" / "_run.json")
    for part in outside.glob("part-*.parquet"):
        (data / "mixed" / part.name).symlink_to(part)
    with pytest.raises(BazarsimError, match="part-.* leads out of the data directory"):
        TASK.check({"path": "mixed"}, data)


@pytest.mark.parametrize("manifest", ["{not json", "[1, 2]", '{"seed": 1}'])
def test_a_damaged_manifest(root, tmp_path, manifest):
    data = tmp_path / "data"
    shutil.copytree(root / "runs" / "dd", data / "broken")
    (data / "broken" / "_run.json").write_text(manifest)
    assert INFO["datasets"](data, {}) == {"datasets": []}
    with pytest.raises(BazarsimError, match="damaged manifest"):
        TASK.check({"path": "broken"}, data)


# --------------------------------------------------------------------------- the answer


def run_command(command: str):
    argv = shlex.split(command)
    assert argv[0] == "bazarsim"
    return cli_json(argv[1:])


def test_tables_are_the_cli_records(root):
    params, res = study(root, kinds="H", levels="8..10", contra="x", by=[
        {"feature": "points", "edges": "0..29, 30..49,50..", "kind": ""},
        {"feature": "trumps", "edges": "0..2,3,4..", "kind": "h"}])
    d = str(root / "runs" / "dd")
    assert params["by"] == ["points=0..29,30..49,50..", "trumps@H=0..2,3,4.."]
    want = cli_json(["table", "bids", d, "--by", "points=0..29,30..49,50..", "--by",
                     "trumps@H=0..2,3,4..", "--kinds", "H", "--levels", "8..10", "--contra",
                     "x", "-f", "json"])
    assert res["tables"]["bids"] == want and {"points", "trumps@H"} <= set(want[0])
    assert run_command(res["command"]["bids"]) == want
    thr = cli_json(["study", "threshold", d, "--kinds", "H", "--level", "8", "--by", "points",
                    "--contra", "x", "-f", "json"])
    assert res["tables"]["thresholds"] == [{k: v for k, v in c.items() if k != "rows"}
                                           for c in thr["classes"]]
    assert res["tables"]["rates"] == threshold_rows(thr)
    assert run_command(res["command"]["rates"]) == thr
    assert "bias" not in res["tables"]
    assert 'data-missing="DD bias table"' in res["html"] and "single-dummy" in res["html"]
    for tid in ("bids", "thresholds", "rates"):
        assert f'data-table="{tid}"' in res["html"]
        rows = list(csv.DictReader(io.StringIO(res["csv"][tid])))
        assert len(rows) == len(res["tables"][tid])
    assert res["html"].count('data-figure="threshold-') == 1
    assert "<svg" in res["html"] and "<script" not in res["html"]


def test_defaults_and_the_threshold_bid(root):
    params, res = study(root, by=[], threshold_feature="trumps", threshold_bid="9h")
    d = str(root / "runs" / "dd")
    assert params["levels"] is None and params["kinds"] == ["H"]
    assert res["tables"]["bids"] == cli_json(["table", "bids", d, "--kinds", "H", "-f", "json"])
    thr = cli_json(["study", "threshold", d, "--kinds", "H", "--level", "9", "--by", "trumps",
                    "-f", "json"])
    assert res["tables"]["rates"] == threshold_rows(thr)
    default = TASK.check({"path": "runs/dd", "levels": [10, 11]}, root)["threshold"]
    assert default == {"feature": "points", "kind": "H", "level": 10}


def test_bias_and_single_dummy_play(root):
    params = TASK.check({"path": "bias", "kinds": ["H"], "levels": "8..10", "play": "SD"}, root)
    res = TASK.run(params, lambda share, words: None)
    d = str(root / "bias")
    want = cli_json(["table", "bias", d, "--kinds", "H", "--levels", "8..10", "-f", "json"])
    assert res["tables"]["bias"] == want["rows"] and want["rows"]
    assert run_command(res["command"]["bias"]) == want
    bids = cli_json(["table", "bids", d, "--kinds", "H", "--levels", "8..10", "--play", "sd",
                     "-f", "json"])
    assert res["tables"]["bids"] == bids and bids[0]["play"] == "sd"
    assert run_command(res["command"]["bids"]) == bids
    assert 'data-table="bias"' in res["html"] and "data-missing" not in res["html"]


def test_a_threshold_that_cannot_be_drawn_leaves_the_rest(root):
    _, res = study(root, levels="8", threshold_bid="50H")  # 500 points: never made
    assert 'data-missing="Threshold study"' in res["html"]
    assert "made by none" in res["html"] and set(res["tables"]) == {"bids"}


# --------------------------------------------------------------------------- the screen


def test_screen():
    body, script = study_screen()
    for target in ('id="study-form"', 'id="study-dataset"', 'id="study-result"',
                   'id="study-status"', 'id="by-expression"', 'id="study-run"'):
        assert body.count(target) == 1, target
    for text in (body, script):
        assert "http://" not in text and "https://" not in text and "//cdn" not in text
    assert "<script" not in body and "<link" not in body
    for call in ('bz.info("datasets"', 'bz.info("dataset"', 'bz.run("study"', "bz.download(",
                 "dataset.table = id", "studyByExpression("):
        assert call in script, call
    node = shutil.which("node")
    if node:  # the script parses
        subprocess.run([node, "--check", "-"], input=script, text=True, check=True)
