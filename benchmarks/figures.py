"""Figures the README and ``docs/`` quote, filled in from ``reports/benchmarks.json``.

A measured figure in the docs is written between two markers that Markdown does not show,
``<!--fig:ID-->408<!--/fig-->``, where ``ID`` names an entry of :data:`FIGURES`: the
benchmark row it comes from and how it is written. ``make bench`` (``benchmarks.run``)
rewrites every marked figure after each run, and ``tests/test_figures.py`` fails when a
marked figure differs from what the report gives or names no row, so the docs cannot
quote a speed that no benchmark measured.

``python -m benchmarks.figures`` fills the docs from the report as it stands.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "reports" / "benchmarks.json"
MARK = re.compile(r"<!--fig:(?P<id>[\w.:() -]+?)-->(?P<text>.*?)<!--/fig-->", re.S)


@dataclass(frozen=True)
class Figure:
    """A number the docs quote: the benchmark row (group, name) and how it reads."""

    group: str
    name: str
    write: Callable[[float], str]


def _date(row: dict) -> str:
    return row["measured"][:10]


PIPELINE = ("pipeline", "simulate --dd end to end, 6 kinds")
ANALYZE = ("analyze (issue #27)", "analyze, in-process")
ANALYZE_OLD = ("analyze (issue #27)", "its DD tables, baseline bfaa382")
DASK = "dask"
FREQ_100M = ("out of core", "table freq, 100,000,000 rows")
BIDS_10M = ("out of core", "table bids, 10,000,000 rows")

PLAY = "hidden-card play vs colver"
MATCH = "match play-offs (bidding policies)"

FIGURES: dict[str, Figure] = {
    # simulate --dd, six kinds, 2 threads, end to end to Parquet
    "dd-deals-per-s": Figure(*PIPELINE, lambda v: f"{v:,.0f}"),
    "dd-ms-per-deal": Figure(*PIPELINE, lambda v: f"{1000 / v:.1f}"),
    "dd-million-minutes": Figure(*PIPELINE, lambda v: f"{1e6 / v / 60:,.0f}"),
    "analyze-s": Figure(*ANALYZE, lambda v: f"{v:.2f}"),
    "analyze-old-s": Figure(*ANALYZE_OLD, lambda v: f"{v:.2f}"),
    "analyze-old-tables-per-s": Figure(*ANALYZE_OLD, lambda v: f"{1000 / v:.0f}"),
    "dask-in-process": Figure(DASK, "simulate --dd in-process", lambda v: f"{v:.0f}"),
    "dask-workers-1": Figure(DASK, "simulate --dd --workers 1", lambda v: f"{v:.0f}"),
    "dask-workers-2": Figure(DASK, "simulate --dd --workers 2", lambda v: f"{v:.0f}"),
    "dask-per-core": Figure(DASK, "simulate --dd per core (2 workers)", lambda v: f"{v:.0f}"),
    "freq-100m-rows-per-s": Figure(*FREQ_100M, lambda v: f"{v / 1e6:.2f} M"),
    "freq-100m-peak-mb": Figure("out of core", "table freq peak memory, 100,000,000 rows",
                                lambda v: f"{v:.0f}"),
    "bids-10m-rows-per-s": Figure(*BIDS_10M, lambda v: f"{v / 1e3:.0f} k"),
    "bids-10m-peak-mb": Figure("out of core", "table bids peak memory, 10,000,000 rows",
                               lambda v: f"{v:.0f}"),
    "report-1m-s": Figure("report", "bazarsim report, 1,000,000 DD deals", lambda v: f"{v:.1f}"),
    "report-1m-mb": Figure("report", "page size", lambda v: f"{v:.1f}"),
    "compile-all-s": Figure("compile", "bazarsim compile: every family", lambda v: f"{v:.0f}"),
    # four PIMC-20 players, hearts (benchmarks/bench_play.py)
    "pimc-s-per-deal": Figure(PLAY, "bazarsim 4 x PIMC-20 play-outs, 1 thread",
                              lambda v: f"{1 / v:.2f}"),
    "pimc-trick1-ms": Figure(PLAY, "bazarsim PIMC search, trick 1", lambda v: f"{v:.0f}"),
    "pimc-trick4-ms": Figure(PLAY, "bazarsim PIMC search, trick 4", lambda v: f"{v:.1f}"),
    "pimc-colver-playout-x": Figure(PLAY, "bazarsim (1 thread) / colver per play-out",
                                    lambda v: f"{v:.0f}"),
    # alpha-mu against PIMC-20, the same positions (benchmarks/bench_pimc_tricks.py)
    "alphamu-deal-x": Figure("card play by trick",
                             "alpha-mu-20 depth 2 / PIMC-20 time of a whole deal",
                             lambda v: f"{v:.1f}"),
    "alphamu-trick3-x": Figure("card play by trick",
                               "alpha-mu-20 depth 2 / PIMC-20 time a decision, trick 3",
                               lambda v: f"{v:.0f}"),
    "alphamu-trick5-x": Figure("card play by trick",
                               "alpha-mu-20 depth 2 / PIMC-20 time a decision, trick 5",
                               lambda v: f"{v:.0f}"),
    # duplicate match play-offs to 301 (benchmarks/bench_match.py)
    "match-10k-s": Figure(MATCH, "10,000 pairs to 301, 2 processes", lambda v: f"{v:.0f}"),
    "match-per-s": Figure(MATCH, "matches a second, 1 process", lambda v: f"{v:.0f}"),
    "match-hw-paired": Figure(MATCH, "95 % half-width, paired (10,000 pairs)",
                              lambda v: f"{v:.2f}"),
    "match-hw-unpaired": Figure(MATCH, "95 % half-width, unpaired (20,000 matches)",
                                lambda v: f"{v:.2f}"),
    "match-vr": Figure(MATCH, "variance reduction of the pairing", lambda v: f"{v:.1f}"),
    "colver-speedup-deal": Figure("solver vs colver", "speed-up, the deal's value (total time)",
                                  lambda v: f"{v:.0f}"),
    "colver-speedup-leads": Figure("solver vs colver",
                                   "speed-up, every lead's value (total time)",
                                   lambda v: f"{v:.0f}"),
    "simbid-call-s": Figure("bidding by simulation", "simulated call: 200 worlds, DD, one core",
                            lambda v: f"{v:.2f}"),
    "simbid-analyze-s": Figure("bidding by simulation",
                               "analyze --auction: 1,000 worlds, 2 cores",
                               lambda v: f"{v:.1f}"),
    "app-table-s": Figure("web app", "hand analysis in the page: submit to the table",
                          lambda v: f"{v:.2f}"),
    "app-figures-s": Figure("web app", "the same with its two figures drawn",
                            lambda v: f"{v:.2f}"),
    "app-overhead-s": Figure("web app", "page's overhead on a 1,000-deal analysis",
                             lambda v: f"{v:.2f}"),
    "app-progress-s": Figure("web app", "submit to the first progress shown",
                             lambda v: f"{v:.2f}"),
    "app-cancel-s": Figure("web app", "cancel: the request to the worker stopped",
                           lambda v: f"{v:.2f}"),
    "app-server-growth": Figure("web app", "server memory growth, 10 to 100 analyses",
                                lambda v: f"{v:.1f}"),
    "app-worker-growth": Figure("web app", "worker memory growth, 10 to 100 analyses",
                                lambda v: f"{v:.1f}"),
}
# The date each group was measured, for "(make bench, DATE)": ``date:GROUP-ID``.
DATES = {
    "date:dd": PIPELINE,
    "date:solver": ("solver", "ablation: all on"),
    "date:compile": ("compile", "bazarsim compile: every family"),
    "date:analyze": ANALYZE,
    "date:dask": (DASK, "simulate --dd in-process"),
    "date:out-of-core": FREQ_100M,
    "date:report": ("report", "bazarsim report, 1,000,000 DD deals"),
    "date:play": (PLAY, "bazarsim PIMC search, trick 1"),
    "date:simbid": ("bidding by simulation", "simulated call: 200 worlds, DD, one core"),
    "date:match": (MATCH, "matches a second, 1 process"),
    "date:app": ("web app", "hand analysis in the page: submit to the table"),
}


def load(path: Path = REPORT) -> dict[tuple[str, str], dict]:
    """The report's rows by (group, name)."""
    return {(r["group"], r["name"]): r for r in json.loads(path.read_text())["results"]}


# ``abl:NAME:nodes`` / ``abl:NAME:time``: the solver's ablation (``make bench``, group
# "solver"): nodes or time a solve with the enhancement NAME switched off, against all on.
ABLATION = re.compile(r"^abl:(?P<name>[\w ()-]+):(?P<what>nodes|time)$")
ABLATION_NODES = re.compile(r"([\d.]+) nodes/solve")


def _ablation(fig_id: str, rows: dict) -> str:
    m = ABLATION.match(fig_id)
    label = m["name"] if " " in m["name"] else f"without {m['name']}"
    off = _row(rows, ("solver", f"ablation: {label}"), fig_id)
    on = _row(rows, ("solver", "ablation: all on"), fig_id)
    if m["what"] == "time":
        return f"{off['value'] / on['value']:.2f}"
    nodes = [float(ABLATION_NODES.search(r["note"]).group(1)) for r in (off, on)]
    return f"{nodes[0] / nodes[1]:.2f}"


def render(fig_id: str, rows: dict[tuple[str, str], dict]) -> str:
    """The text of one figure from the report's rows."""
    if ABLATION.match(fig_id):
        return _ablation(fig_id, rows)
    if fig_id in DATES:
        return _date(_row(rows, DATES[fig_id], fig_id))
    if fig_id not in FIGURES:
        raise KeyError(f"figure {fig_id!r} is not in benchmarks/figures.py FIGURES")
    fig = FIGURES[fig_id]
    return fig.write(_row(rows, (fig.group, fig.name), fig_id)["value"])


def _row(rows: dict, key: tuple[str, str], fig_id: str) -> dict:
    if key not in rows:
        raise KeyError(f"figure {fig_id!r}: no row {key} in the benchmark report")
    return rows[key]


def fill(text: str, rows: dict[tuple[str, str], dict]) -> str:
    """``text`` with every marked figure written from the report."""
    return MARK.sub(lambda m: f"<!--fig:{m['id']}-->{render(m['id'], rows)}<!--/fig-->", text)


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def fill_documents(report: Path = REPORT) -> list[Path]:
    """Rewrite the marked figures of the README and docs; the files changed."""
    rows = load(report)
    changed = []
    for path in documents():
        text = path.read_text(encoding="utf-8")
        new = fill(text, rows)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


if __name__ == "__main__":
    for p in fill_documents():
        print(f"filled the figures of {p.relative_to(ROOT)}")
