"""Flat records (lists of dicts) rendered as a terminal table, JSON, CSV or Markdown."""

from __future__ import annotations

import csv
import io
import json
import math
from enum import StrEnum
from typing import Any


class Format(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"
    md = "md"


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
                   width: int = 100) -> str:
    """The records as text in ``fmt`` (``width``: the terminal table's width)."""
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
    if fmt == Format.md:
        lines = [f"### {title}", ""] if title else []
        lines.append("| " + " | ".join(cols) + " |")
        lines.append("|" + "|".join("---" for _ in cols) + "|")
        lines += ["| " + " | ".join(cell(r[c]) for c in cols) + " |" for r in records]
        return "\n".join(lines) + "\n"
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_lines=False)
    for c in cols:
        table.add_column(c, overflow="fold")
    for r in records:
        table.add_row(*(cell(r[c]) for c in cols))
    console = Console(width=width, file=io.StringIO(), color_system=None)
    console.print(table)
    return console.file.getvalue()


def cell(v: Any) -> str:
    """One value as a table cell."""
    if isinstance(v, float):
        return f"{v:,.2f}" if abs(v) >= 1 else f"{v:.6f}"
    if isinstance(v, (list, tuple)):
        return ", ".join(str(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k}={x}" for k, x in v.items())
    return str(v)
