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
