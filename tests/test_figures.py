"""Every measured figure the README and docs quote comes from the benchmark report."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from bazarsim.cli import app
from benchmarks.figures import DATES, FIGURES, MARK, documents, fill, load, render


def test_every_marked_figure_is_the_reports():
    """A marked figure that differs from reports/benchmarks.json (typed by hand, or left
    behind by a new run) fails; `python -m benchmarks.figures` writes them again."""
    rows = load()
    marked = 0
    for path in documents():
        text = path.read_text(encoding="utf-8")
        for m in MARK.finditer(text):
            marked += 1
            assert m["text"] == render(m["id"], rows), (
                f"{path.name}: figure {m['id']} reads {m['text']!r}, the report gives "
                f"{render(m['id'], rows)!r} (python -m benchmarks.figures)")
        assert fill(text, rows) == text
    assert marked >= 10


def test_every_figure_names_a_row_of_the_report():
    rows = load()
    for fig_id in [*FIGURES, *DATES]:
        assert render(fig_id, rows)


def test_a_wrong_figure_is_caught():
    rows = load()
    text = "about <!--fig:dd-deals-per-s-->999999<!--/fig--> deals/s"
    assert fill(text, rows) != text


def test_the_help_quotes_no_speed():
    """Speeds live in the docs, filled from the report; --help would go stale."""
    out = CliRunner().invoke(app, ["simulate", "--help"], env={"COLUMNS": "200"}).output
    assert not re.search(r"\d+(\.\d+)? ?ms a deal", out)
    assert "table bids" in out


# A measured figure: a time, a size, a rate, a ratio, or a share of nodes or time saved.
FIGURE = re.compile("|".join([
    r"(?<![\w.])\d[\d,]*(?:\.\d+)? (?:ms|s|min|minutes|seconds|MB|GB)(?![\w/])",
    r"(?<![\w.])x ?\d+(?:\.\d+)?(?![\w-])",
    r"(?<![\w.])\d+(?:\.\d+)? ?%[^.;:]{0,30}?\b(?:fewer|less|faster|slower|nodes)\b",
    r"(?<![\w.])\d[\d,]*(?:\.\d+)? ?[kM]? ?(?:deals|rows|tables|hands|nodes)(?:/s| a second)",
]))
# What may stand before a number that is a limit, a default or a budget, not a measurement.
NOT_MEASURED = re.compile(r"(?:default|limit|within|at\s+least|inside CI's)\s*$")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def unproduced_figures(text: str) -> list[str]:
    """The measured figures of a page's prose that no benchmark row fills in."""
    prose = MARK.sub("FIGURE", FENCE.sub("", text))
    return [m.group(0) for m in FIGURE.finditer(prose)
            if not NOT_MEASURED.search(prose[max(0, m.start() - 20):m.start()])]


def test_no_measured_figure_without_a_producer():
    """Every time, size, rate, ratio or saving the README and docs quote is filled in
    from reports/benchmarks.json (<!--fig:ID-->...<!--/fig-->); measurement history
    without a benchmark belongs in reports/ (solver-notes.md, compile-notes.md)."""
    bad = {p.name: unproduced_figures(p.read_text(encoding="utf-8")) for p in documents()}
    assert {k: v for k, v in bad.items() if v} == {}


def test_an_unproduced_figure_is_found():
    text = ("It runs 2.5 ms a deal (408 deals/s), x0.48 the nodes, 26 % fewer nodes; "
            "<!--fig:dd-deals-per-s-->408<!--/fig--> deals/s; limit 5 s; default 10 s.\n"
            "```console\n$ took 3 s\n```\n")
    assert unproduced_figures(text) == ["2.5 ms", "408 deals/s", "x0.48", "26 % fewer"]
