"""Bid tables in their reading form (percent and rounded columns) and as tidy Parquet."""

from __future__ import annotations

import math
from pathlib import Path

from bazarsim.report.records import Format


def bid_records(rows: list[dict], fmt: Format, confidence: float = 0.95) -> list[dict]:
    """Rounded columns for reading (table, md); json and csv keep every raw value. The
    interval's header names its level (``confidence``, that of the rows' intervals)."""
    if fmt not in (Format.table, Format.md):
        return rows
    out = []
    for r in rows:
        row = {k: v for k, v in r.items() if k not in _RAW}
        row.update({
            "bid": r["bid"],
            "n": f"{r['n']:,}",
            "make %": f"{100 * r['p_make']:.1f}",
            f"{100 * confidence:g}% interval": f"{100 * r['ci_low']:.1f} .. "
                                              f"{100 * r['ci_high']:.1f}",
            "capot %": f"{100 * r['p_capot']:.1f}",
            "total (mean, sd)": f"{r['mean_total']:.1f} ± {r['sd_total']:.1f}",
            "quartiles": f"{r['q1_total']:.0f} / {r['median_total']:.0f} / "
                         f"{r['q3_total']:.0f}",
            "E[score]": f"{r['expected_score']:+.1f} ± {_num(r['se_score'], '.1f')}",
            "break-even %": _num(100 * r["breakeven_p"], ".0f"),
            "best": _best_cell(r),
        })
        out.append(row)
    return out


def bid_terminal_records(records: list[dict]) -> tuple[list[dict], list[str]]:
    """The terminal's bid table (reading form of :func:`bid_records`) and the notes said
    below it: the columns that are the same on every row of a class (capot %, the side's
    total and its quartiles) are left to md, csv and json so that it fits 80 columns."""
    out = [{TERMINAL_NAMES.get(k, k): v for k, v in r.items() if k not in TERMINAL_DROP}
           for r in records]
    return out, BID_NOTES


TERMINAL_DROP = ("capot %", "total (mean, sd)", "quartiles")
TERMINAL_NAMES = {"break-even %": "b/e %"}
BID_NOTES = [
    "make %: P(make), with its interval; E[score]: expected score (declarers - defenders) "
    "± its standard error; b/e %: the make % at which the bid breaks even; best (+x): the "
    "class's best call, x its lead over the next (pass, scoring 0, where every bid loses).",
    "capot %, the side's total and its quartiles: --format md, csv or json.",
]

def compare_records(rows: list[dict], fmt: Format) -> list[dict]:
    """``table compare`` rows with headers in words for reading (table, md: the bids' own
    names); json and csv keep the snake_case keys scripts use."""
    if fmt not in (Format.table, Format.md):
        return rows
    out = []
    for r in rows:
        a, b = r["bid_a"], r["bid_b"]
        row = {k: v for k, v in r.items() if k not in _COMPARE_RAW}
        row.update({
            "n": f"{r['n']:,}",
            f"E[score] {a}": f"{r['mean_a']:+.1f}",
            f"E[score] {b}": f"{r['mean_b']:+.1f}",
            f"{a} - {b}": f"{r['mean_diff']:+.1f} ± {_num(r['se_diff'], '.1f')}".rstrip(" ±"),
            f"{a} better %": f"{100 * r['p_a_better']:.1f}",
            f"{b} better %": f"{100 * r['p_b_better']:.1f}",
        })
        out.append(row)
    return out


_COMPARE_RAW = {"play", "bid_a", "bid_b", "n", "mean_a", "mean_b", "mean_diff", "se_diff",
                "p_a_better", "p_b_better"}

_RAW = {"play", "kind", "level", "capot", "bid", "n", "made", "p_make", "ci_low", "ci_high",
        "p_capot", "mean_total", "sd_total", "q1_total", "median_total", "q3_total",
        "expected_score", "se_score", "breakeven_p", "best", "best_call", "margin"}


def _best_cell(r: dict) -> str:
    """``best (+m)`` on a class's best bid; ``pass (+m)`` on its top bid where every bid
    loses on average (passing, which scores 0, is then the best call); else blank."""
    if r["best"]:
        return "best" if math.isnan(r["margin"]) else f"best (+{r['margin']:.1f})"
    if r.get("best_call") == "pass" and not math.isnan(r["margin"]):
        return f"pass (+{r['margin']:.1f})"
    return ""


def _num(v: float, spec: str) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def write_records_parquet(rows: list[dict], path: str | Path) -> None:
    """The records as one tidy Parquet table (one row per record)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bazarsim.store.parts import os_errors

    with os_errors("write", path):
        pq.write_table(pa.Table.from_pylist(rows), path)
