"""Flat records (lists of dicts) rendered as a terminal table, JSON, CSV or Markdown."""

from __future__ import annotations

import csv
import io
import json
import math
import textwrap
from enum import StrEnum
from typing import Any


class Format(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"
    md = "md"


def percent(v: float | None, spec: str = ".1f", missing: str = "") -> str:
    """A share as a percent (``0.415`` -> ``41.5``); ``missing`` where there is none
    (None or NaN)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return missing
    return format(100 * v, spec)


def to_json(obj: Any, indent: int | None = 2) -> str:
    """Strict JSON (RFC 8259): NumPy values and tuples made plain, NaN and infinities as
    null (``indent=None``: one line, for JSON lines)."""
    return json.dumps(strict(obj), indent=indent, ensure_ascii=False, allow_nan=False)


def strict(obj: Any) -> Any:
    """``obj`` with NumPy scalars and arrays as Python values, tuples as lists and
    non-finite floats (NaN, inf) as None, at any depth."""
    if isinstance(obj, dict):
        return {k: strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict(v) for v in obj]
    if hasattr(obj, "tolist"):  # NumPy scalar or array
        return strict(obj.tolist())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def render_records(records: list[dict[str, Any]], fmt: Format, title: str | None = None,
                   width: int = 100, notes: list[str] | None = None, boxed: bool = True) -> str:
    """The records as text in ``fmt``. ``width``: the terminal table's width (the table
    fits it, see :func:`terminal_table`); ``notes``: lines said once below the table
    (table and md), e.g. what its abbreviations mean; ``boxed=False``: the compact table
    even when the boxed one fits (several tables of one output alike)."""
    if fmt == Format.json:
        return to_json(records) + "\n"
    if not records:
        return "(no rows)\n"
    cols = list(records[0].keys())
    if fmt == Format.csv:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(records)
        return buf.getvalue()
    rows = [[cell(r[c]) for c in cols] for r in records]
    if fmt == Format.md:
        lines = [f"### {title}", ""] if title else []
        lines.append("| " + " | ".join(cols) + " |")
        lines.append("|" + "|".join("---" for _ in cols) + "|")
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        if notes:
            lines += [""] + [f"- {n}" for n in notes]
        return "\n".join(lines) + "\n"
    text = terminal_table(cols, rows, title, width, boxed)
    if notes:
        text += "".join(_wrap(n, width) for n in notes)
    return text


# Terminal tables fit ``width`` without splitting a word: the boxed table when it fits, else
# a compact one (a rule under the headers, two spaces between columns), else one block of
# "name  value" lines per record. Cells up to SHORT_CELL characters never wrap (a number
# with its "± se" stays on one line); longer ones, and headers, wrap at spaces only.
SHORT_CELL = 20


def terminal_table(cols: list[str], rows: list[list[str]], title: str | None,
                   width: int, boxed: bool = True) -> str:
    """``rows`` (cells as text) under the headers ``cols``, at most ``width`` columns wide."""
    from rich import box

    long_text = [any(_cells(r[i]) > SHORT_CELL for r in rows) for i in range(len(cols))]
    lo = [max([_longest_word(cols[i])] + [_longest_word(r[i]) if _cells(r[i]) > SHORT_CELL
                                          else _cells(r[i]) for r in rows])
          for i in range(len(cols))]
    hi = [max([_cells(cols[i])] + [_cells(r[i]) for r in rows]) for i in range(len(cols))]
    n = len(cols)
    layouts = (  # (rich table settings, characters of the table that are not content)
        (dict(box=box.HEAVY_HEAD), 3 * n + 1),
        (dict(box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1, 0, 0), pad_edge=False),
         2 * (n - 1)),
    )
    head = _wrap(title, width) if title else ""
    for settings, extra in layouts[0 if boxed else 1:]:
        if sum(lo) + extra <= width:
            widths = _fit(lo, hi, long_text, width - extra)
            return head + _rich_table(cols, rows, widths, settings, width)
    return head + _stacked(cols, rows, width)


def _fit(lo: list[int], hi: list[int], long_text: list[bool], room: int) -> list[int]:
    """Column widths between ``lo`` and ``hi`` summing to at most ``room``: long text
    columns give way first, then the widest column, one character at a time."""
    widths = list(hi)
    while sum(widths) > room:
        slack = [i for i in range(len(widths)) if widths[i] > lo[i]]
        text = [i for i in slack if long_text[i]]
        i = max(text or slack, key=lambda j: widths[j])
        widths[i] -= 1
    return widths


def _rich_table(cols, rows, widths, settings, width: int) -> str:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(show_lines=False, **settings)
    for c, w in zip(cols, widths, strict=True):
        # Text, not markup: "E[score]" and card names stay as written
        table.add_column(Text(c), width=w, overflow="fold")
    for r in rows:
        table.add_row(*(Text(x) for x in r))
    console = Console(width=width, file=io.StringIO(), color_system=None)
    console.print(table)
    return "".join(line.rstrip() + "\n" for line in console.file.getvalue().splitlines())


def _stacked(cols: list[str], rows: list[list[str]], width: int) -> str:
    """One block of ``name  value`` lines per record (empty cells left out), values
    wrapped at spaces."""
    key_w = min(max(_cells(c) for c in cols), width // 3)
    out = []
    for r in rows:
        for c, v in zip(cols, r, strict=True):
            if not v:
                continue
            lines = textwrap.wrap(v, max(10, width - key_w - 2), break_long_words=False,
                                  break_on_hyphens=False) or [""]
            out.append(f"{c:<{key_w}}  {lines[0]}".rstrip())
            out += [" " * (key_w + 2) + x for x in lines[1:]]
        out.append("")
    return "\n".join(out)


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width, break_long_words=False,
                                   break_on_hyphens=False)) + "\n"


def _cells(text: str) -> int:
    from rich.cells import cell_len

    return max((cell_len(line) for line in text.splitlines()), default=0)


def _longest_word(text: str) -> int:
    return max((_cells(w) for w in text.split()), default=0)


def cell(v: Any) -> str:
    """One value as a table cell."""
    if isinstance(v, float):
        return f"{v:,.2f}" if abs(v) >= 1 else f"{v:.6f}"
    if isinstance(v, (list, tuple)):
        return ", ".join(str(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k}={x}" for k, x in v.items())
    return str(v)


def plural(n: int, noun: str) -> str:
    """``1 figure``, ``2 figures``, ``1,000 rows``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
