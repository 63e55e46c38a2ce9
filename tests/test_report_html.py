"""Coach reports (HTML) opened in a real browser.

Each kind of page (a dataset with and without DD columns, one hand, a threshold and a
convention study) is built by the CLI and loaded in headless Chromium: no console error,
no request leaving the machine, the expected number of figures, each drawn and non-empty,
and every number of every table equal to the JSON output of the command that gives the
same records (the raw ``data-v`` exactly; the shown text to its rounding). The checker
itself is shown to fail on a page with a console error, an exception, an outside request
or an empty figure. The browser tests are skipped, saying so, only where no Chromium is
installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import csv
import json
import math
import re
import shlex
import shutil

import pytest
from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.report.browser import problems
from bazarsim.rules.rulesets import get_ruleset

runner = CliRunner()
DEALS = 300


def run(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def dd_dataset(tmp_path_factory):
    """A small DD-solved bazar dataset, hearts only (cheap to solve)."""
    path = tmp_path_factory.mktemp("report") / "dd"
    run_simulation(
        Simulation(deals=DEALS, seed=3, ruleset=get_ruleset("bazar"), kinds=(1,), columns="lean",
               dd=True, chunk=150), path)
    return path


@pytest.fixture(scope="module")
def plain_dataset(tmp_path_factory):
    """A dataset without DD columns."""
    path = tmp_path_factory.mktemp("report") / "plain"
    run_simulation(Simulation(deals=200, seed=4, ruleset=get_ruleset("bazar"), chunk=200), path)
    return path


# --------------------------------------------------------------------------- helpers


def _number(text: str) -> float:
    return float(text.replace(",", "").replace("+", "").replace("−", "-"))


def check_table(table: dict, records: list[dict], label: dict[str, str] | None = None):
    """Every cell of a page table equals the record's value (raw exactly, text rounded)."""
    assert len(table["rows"]) == len(records), table["id"]
    for row, rec in zip(table["rows"], records, strict=True):
        for key, (v, shown) in zip(table["keys"], row, strict=True):
            assert key in rec, (table["id"], key)
            want = rec[key]
            where = (table["id"], key, rec.get("bid"), v, want)
            if want is None or (isinstance(want, float) and math.isnan(want)):
                assert v == "" and shown == "", where
            elif isinstance(want, bool):
                assert v == ("true" if want else "false"), where
            elif isinstance(want, int | float):
                assert float(v) == pytest.approx(want, rel=1e-12, abs=1e-12), where
                digits = len(shown.split(".")[1]) if "." in shown else 0
                scale = 100 if (label or {}).get(key, "").endswith("%") else 1
                assert abs(_number(shown) - scale * want) <= 0.5 * 10 ** -digits + 1e-9, where
            else:
                assert v == str(want) and shown == str(want), where


def page_tables(info: dict) -> dict[str, dict]:
    return {t["id"]: t for t in info["tables"]}


def labels_of(html: str, table_id: str) -> dict[str, str]:
    """Column key -> heading, read from the page source."""
    block = html.split(f'data-table="{table_id}"', 1)[1].split("</thead>", 1)[0]
    return dict(re.findall(r'data-key="([^"]*)">([^<]*)</th>', block))


def json_of(argv: list[str]):
    assert argv[0] == "bazarsim"
    r = run(*argv[1:])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def assert_clean(info: dict, figures: int):
    assert problems(info) == []
    assert len(info["figures"]) == figures
    for f in info["figures"]:
        assert f["width"] > 300 and f["height"] > 150 and f["elements"] > 20, f
        assert f["painted"] > 0.02, f  # pixels drawn on screen, not only SVG elements


# --------------------------------------------------------------------------- pages
# One test drives every page through one browser: under pytest-xdist a module's tests may
# land on both workers, and each would then start its own Chromium and solve its own deals.


def test_pages_in_chromium(dd_dataset, plain_dataset, browser, tmp_path):
    dataset_page(dd_dataset, browser, tmp_path)
    plain_page(plain_dataset, browser, tmp_path)
    hand = hand_page(browser, tmp_path)
    threshold_page(dd_dataset, browser, tmp_path)
    checker_fails_on_broken_pages(hand, browser, tmp_path)


def dataset_page(dd_dataset, browser, tmp_path):
    out = tmp_path / "study.html"
    r = run("report", str(dd_dataset), "--out", str(out), "--csv", "--min-n", "5")
    assert r.exit_code == 0, r.output
    assert "5 figures" in r.stderr
    html = out.read_text()
    self_contained(html, 5)
    info = browser.check(out, pdf=True)
    assert_clean(info, 5)
    # a DD dataset without single-dummy columns: the bias section says how to get it
    assert info["missing"] == ["Double dummy against hidden-card play"]
    assert info["scripts"] == 0
    assert 1 <= info["pdf_pages"] < 30 and info["pdf_a4"]
    phone = browser.check(out, width=390, paint=False)
    assert phone["width"] <= 390 and problems(phone) == []  # wide parts scroll in place
    tables = page_tables(info)
    assert set(tables) == {"freq", "curves", "heat", "classes", "totals"}
    for tid, t in tables.items():
        if tid == "totals":
            assert t["command"] is None
            continue
        check_table(t, json_of(shlex.split(t["command"])), labels_of(html, tid))
        # the CSV beside the page holds the same raw values
        with open(tmp_path / f"study.{tid}.csv", newline="") as f:
            rows = list(csv.reader(f))
        assert rows[0] == t["keys"]
        assert rows[1:] == [[v for v, _ in row] for row in t["rows"]]
    # the totals add up to the bid table's n and made of the same bids
    bids = {rec["bid"]: rec for rec in json_of(
        ["bazarsim", "table", "bids", str(dd_dataset), "--kind", "H", "--levels", "8..10",
         "--format", "json"])}
    made: dict[str, int] = {}
    rows: dict[str, int] = {}
    keys = tables["totals"]["keys"]
    for row in tables["totals"]["rows"]:
        rec = {k: v for k, (v, _) in zip(keys, row, strict=True)}
        made[rec["bid"]] = made.get(rec["bid"], 0) + int(rec["made"])
        rows[rec["bid"]] = rows.get(rec["bid"], 0) + int(rec["made"]) + int(rec["failed"])
        assert int(rec["n"]) == bids[rec["bid"]]["n"]
        assert float(rec["made_share"]) == int(rec["made"]) / int(rec["n"])
    assert set(made) == {"8H", "9H", "10H"}
    for bid in made:
        assert made[bid] == bids[bid]["made"] and rows[bid] == bids[bid]["n"] == 4 * DEALS


def self_contained(html: str, figures: int):
    assert "<script" not in html and "<link" not in html and "@import" not in html
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert html.count("<svg") == figures
    assert 'name="viewport"' in html and "@page { size: A4" in html
    ids = re.findall(r' id="([^"]+)"', html)
    assert len(ids) == len(set(ids))  # figures share no element id


def plain_page(plain_dataset, browser, tmp_path):
    """A dataset without DD columns: the page says which sections are missing and why."""
    out = tmp_path / "plain.html"
    r = run("report", str(plain_dataset), "--out", str(out))
    assert r.exit_code == 0, r.output
    info = browser.check(out)
    assert_clean(info, 1)  # the frequencies against the exact odds
    assert len(info["missing"]) == 4
    assert "no double-dummy columns" in out.read_text()
    t = page_tables(info)["freq"]
    check_table(t, json_of(shlex.split(t["command"])), labels_of(out.read_text(), "freq"))


HAND = ["analyze", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "E", "-n", "60", "--kinds", "H",
        "-q"]


def hand_page(browser, tmp_path):
    out = tmp_path / "hand.html"
    r = run(*HAND, "--html", str(out))
    assert r.exit_code == 0, r.output
    info = browser.check(out)
    assert_clean(info, 2)
    check_table(page_tables(info)["hand-1"], json_of(["bazarsim", *HAND, "--format", "json"]),
                labels_of(out.read_text(), "hand-1"))
    return out


def threshold_page(dd_dataset, browser, tmp_path):
    out = tmp_path / "threshold.html"
    argv = ["study", "threshold", str(dd_dataset), "--kind", "H", "--by", "points",
            "--within", "trumps=0..2,3..", "--bootstrap", "20"]
    r = run(*argv, "--html", str(out))
    assert r.exit_code == 0, r.output
    info = browser.check(out)
    res = json_of(["bazarsim", *argv, "--format", "json"])
    assert len(res["classes"]) == 2
    assert_clean(info, 2)
    tables = page_tables(info)
    html = out.read_text()
    check_table(tables["thresholds"], res["classes"], labels_of(html, "thresholds"))
    flat = [{"trumps": c["trumps"], **row} for c in res["classes"] for row in c["rows"]]
    check_table(tables["rates"], flat, labels_of(html, "rates"))


def checker_fails_on_broken_pages(good, browser, tmp_path):
    """The checker is not a rubber stamp: each way a page can break is reported."""
    text = good.read_text()
    figure = re.search(r"<figure.*?</figure>", text, flags=re.S).group(0)
    text = re.sub(r"<main>.*</main>", f"<main>{figure}</main>", text, flags=re.S)  # small
    good = tmp_path / "good.html"
    good.write_text(text)
    info = browser.check(good)
    assert problems(info) == [] and len(info["figures"]) == 1
    cases = {
        "console.error": text.replace("</body>", "<script>console.error('boom')</script>"
                                      "</body>"),
        "exception": text.replace("</body>", "<script>undefinedFunction()</script></body>"),
        "request to http://127.0.0.1": text.replace(
            "</body>", '<img src="http://127.0.0.1:9/x.png" alt=""></body>'),
        "is empty": re.sub(r"<svg.*?</svg>", "<svg></svg>", text, count=1, flags=re.S),
        "0.0 % of it painted": text.replace("</style>", "figure svg { visibility: hidden }"
                                            "</style>"),
    }
    for needle, page in cases.items():
        bad = tmp_path / "bad.html"
        bad.write_text(page)
        found = problems(browser.check(bad))
        assert any(needle in p for p in found), (needle, found)


@pytest.mark.gate
def test_convention_page(dd_dataset, browser, tmp_path):
    """Every built-in count beside a formula.

    Sample in make test: test_convention_page_one_count"""
    check_convention_page(dd_dataset, browser, tmp_path, ["--compare"])


def test_convention_page_one_count(dd_dataset, browser, tmp_path):
    """One formula: the page's tables equal the command's JSON, checked in Chromium."""
    check_convention_page(dd_dataset, browser, tmp_path, ["--formula", "points + 10*trumps"])


def check_convention_page(dd_dataset, browser, tmp_path, counts: list[str]) -> None:
    out = tmp_path / "convention.html"
    argv = ["study", "convention", str(dd_dataset), "--kinds", "H", *counts]
    r = run(*argv, "--html", str(out))
    assert r.exit_code == 0, r.output
    info = browser.check(out)
    assert_clean(info, 1)
    res = json_of(["bazarsim", *argv, "--format", "json"])
    html = out.read_text()
    check_table(page_tables(info)["counts"], res["counts"], labels_of(html, "counts"))
    calib = [{"count": c["name"], **row} for c in res["counts"] for row in c["calibration"]]
    check_table(page_tables(info)["calibration"], calib, labels_of(html, "calibration"))


@pytest.mark.gate
@pytest.mark.parametrize("name", ["bazar-blot", "belote-fr"])
def test_other_rulesets_pages(name, browser, tmp_path):
    """Rulesets without VK, without levels (belote-fr, bela-hr: the contract is the bid)
    and with bid-time cards (the curves then use the points seen when bidding).

    Sample in make test: test_bela_hr_page"""
    check_ruleset_page(name, browser, tmp_path)


def test_bela_hr_page(browser, tmp_path):
    """bela-hr: no VK, no levels, 6 cards seen at bid time."""
    check_ruleset_page("bela-hr", browser, tmp_path)


def check_ruleset_page(name: str, browser, tmp_path) -> None:
    data = tmp_path / name
    run_simulation(
        Simulation(deals=120, seed=2, ruleset=get_ruleset(name), kinds=(1, 0), columns="lean",
               dd=True), data)
    out = tmp_path / f"{name}.html"
    r = run("report", str(data), "--out", str(out), "--min-n", "3")
    assert r.exit_code == 0, r.output
    info = browser.check(out)
    assert_clean(info, 6)  # odds, a curve per kind, heat map, classes, totals
    html = out.read_text()
    for t in info["tables"]:
        if t["command"]:
            check_table(t, json_of(shlex.split(t["command"])), labels_of(html, t["id"]))
    if name != "bazar-blot":
        assert "--by seen_points=" in html


# --------------------------------------------------------------------------- bad input


def test_bad_input_is_one_error_line_and_no_file(tmp_path_factory):
    data = tmp_path_factory.mktemp("bad")
    dd_dataset, plain_dataset = data / "dd", data / "plain"
    run_simulation(
        Simulation(deals=8, seed=1, ruleset=get_ruleset("bazar"), kinds=(1,), columns="lean",
               dd=True), dd_dataset)
    run_simulation(
        Simulation(deals=8, seed=1, ruleset=get_ruleset("bazar"), kinds=(1,)), plain_dataset)
    run_simulation(
        Simulation(deals=8, seed=1, ruleset=get_ruleset("belote-fr"), kinds=(1,)), data / "fr")
    broken = data / "broken"
    shutil.copytree(dd_dataset, broken)
    next(broken.glob("part-*.parquet")).write_bytes(b"not parquet")
    tmp_path = tmp_path_factory.mktemp("out")
    out = tmp_path / "r.html"
    out.write_text("old page")
    cases = [
        (["report", str(tmp_path / "nope"), "--out", str(out)], "not a bazarsim dataset"),
        (["report", str(broken), "--out", str(out)], "damaged part"),
        (["report", str(dd_dataset), "--out", str(out), "--freq-from", str(data / "fr")],
         "other rules (belote-fr)"),
        (["report", str(dd_dataset), "--out", str(out), "--kind", "BK"], "not simulated"),
        (["report", str(dd_dataset), "--out", str(out), "--heat-bid", "9Q"], "not a contract"),
        (["report", str(dd_dataset), "--out", str(out), "--heat-bid", "9S"], "not simulated"),
        (["report", str(dd_dataset), "--out", str(out), "--classes", "foo"], "--classes"),
        (["report", str(dd_dataset), "--out", str(out), "--levels", "7..9"], "level 7"),
        (["report", str(dd_dataset), "--out", str(out), "--freq-from", str(tmp_path)], "not a"),
        (["report", str(dd_dataset), "--out", str(tmp_path / "no" / "r.html")], "no directory"),
        (["report", str(dd_dataset), "--out", str(tmp_path / "r.txt")], ".html"),
        (["study", "threshold", str(plain_dataset), "--kind", "H", "--html", str(out)],
         "no DD columns"),
        (["analyze", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "E", "--html",
          str(tmp_path / "x" / "h.html")], "no directory"),
    ]
    for argv, needle in cases:
        r = run(*argv)
        assert r.exit_code == 2, (argv, r.output)
        assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
        assert needle in r.stderr, (needle, r.stderr)
    assert out.read_text() == "old page"  # never replaced by a half page
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]  # no temporary left


def test_study_and_analyze_pages_with_data_csvs(dd_dataset, tmp_path):
    """``--html FILE --csv`` writes one CSV per table of the page beside it, as ``report
    --csv`` does, holding the numbers of the command's JSON; ``--csv`` alone is refused."""
    out = tmp_path / "thr.html"
    args = ["study", "threshold", str(dd_dataset), "--kind", "H", "--level", "9", "--by",
            "points", "--bootstrap", "50"]
    r = run(*args, "--html", str(out), "--csv")
    assert r.exit_code == 0, r.output
    csvs = sorted(tmp_path.glob("thr.*.csv"))
    assert csvs and out.exists()
    assert f"and {len(csvs)} CSV files beside it" in r.stderr
    rates = json_of(["bazarsim", *args, "--format", "json"])
    for path in csvs:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        assert len(rows) >= 2 and all(len(row) == len(rows[0]) for row in rows)
    # the CSVs hold the JSON's numbers: the threshold row and the rates per value behind it
    (cls,) = rates["classes"]
    with open(tmp_path / "thr.thresholds.csv", newline="") as f:
        (thr,) = list(csv.DictReader(f))
    for key in ("n", "made", "p_make", "threshold", "ci_low", "ci_high", "target"):
        assert float(thr[key]) == cls[key], key
    with open(tmp_path / "thr.rates.csv", newline="") as f:
        per_value = list(csv.DictReader(f))
    assert [(int(r["points"]), int(r["n"]), int(r["made"])) for r in per_value] == [
        (row["points"], row["n"], row["made"]) for row in cls["rows"]]
    bad = run(*args, "--csv")
    assert bad.exit_code == 2 and "give --html FILE too" in bad.output
    bad = run("analyze", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "E", "-n", "10", "--csv")
    assert bad.exit_code == 2 and "give --html FILE too" in bad.output


def test_playoff_page(dd_dataset, browser, tmp_path):
    """The play-off page (issue 56, point 7): clean in Chromium, two heat maps drawn, and
    its tables equal to what `bazarsim match -f json` and `equity -f json` say."""
    run_dir = tmp_path / "po"
    args = ["careful", "bold", "-m", "40", "--dataset", str(dd_dataset), "--out", str(run_dir),
            "-q"]
    r = run("match", *args, "-f", "json")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    out = tmp_path / "po.html"
    r = run("report", str(run_dir), "--out", str(out), "--csv")
    assert r.exit_code == 0, r.output
    assert "2 figures" in r.stderr
    html = out.read_text()
    self_contained(html, 2)
    assert "The map need not rise with every point" in html  # score rules switch on
    info = browser.check(out, pdf=True)
    assert_clean(info, 2)
    assert info["scripts"] == 0 and info["pdf_a4"]
    tables = page_tables(info)
    assert set(tables) == {"result", "contracts", "bands", "equity", "threshold-map"}
    check_table(tables["bands"], summary["bands"], labels_of(html, "bands"))
    result = {"a_win": summary["a_win"], "ci_low": summary["ci95"][0],
              "ci_high": summary["ci95"][1], "se_paired": summary["se_paired"],
              "se_unpaired": summary["se_unpaired"],
              "variance_reduction": summary["variance_reduction"],
              "a_points_per_deal": summary["a_points_per_deal"],
              "deals_per_match": summary["deals_per_match"]}
    check_table(tables["result"], [result], labels_of(html, "result"))
    eq = json.loads(run("equity", "--from", "careful", "--against", "bold", *args[2:],
                        "--step", "20", "-f", "json").stdout)
    rows = [{"a": g, **{str(h): v for h, v in zip(eq["grid"], row, strict=True)}}
            for g, row in zip(eq["grid"], eq["equity"], strict=True)]
    check_eq = tables["equity"]
    assert len(check_eq["rows"]) == len(rows)
    for row, rec in zip(check_eq["rows"], rows, strict=True):
        for key, (v, _shown) in zip(check_eq["keys"], row, strict=True):
            assert float(v) == pytest.approx(rec[key], abs=1e-4)


def test_infer_page(browser, tmp_path):
    """infer --html: the heat map paints, no error; the seats table names the three other
    seats and the key-card table shows the JSON's chances (the same seed)."""
    from .test_beliefs import synthetic_model

    model = tmp_path / "model.json"
    synthetic_model(get_ruleset("bazar")).save(model)
    out = tmp_path / "infer.html"
    argv = ["infer", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "N", "--auction", "P 10H P",
            "--model", str(model), "--ess", "200"]
    r = run(*argv, "--html", str(out))
    assert r.exit_code == 0, r.output
    info = browser.check(out)
    assert_clean(info, 1)
    tables = page_tables(info)
    res = json.loads(run(*argv, "-f", "json").output)
    shown = tables["key-cards"]["rows"]
    assert [row[0][0] for row in shown] == [s["seat"] for s in res["seats"]]
    for row, seat in zip(shown, res["seats"], strict=True):  # cells: (text, ...)
        assert row[3][0] == f"{100 * seat['card']['JH']:.0f}%"  # seat, JS, 9S, JH
