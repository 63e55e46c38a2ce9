"""``bazarsim table freq DIR``: combination-frequency tables of a simulated dataset."""

from __future__ import annotations

from typing import Annotated

import typer

from bazarsim.cli.common import Format, app, emit_records, fail
from bazarsim.core.errors import BazarsimError
from bazarsim.freq import frequency_table

table_app = typer.Typer(help="Tables aggregated from a simulated dataset (bazarsim simulate).",
                        no_args_is_help=True)
app.add_typer(table_app, name="table")


def present(rows: list[dict], fmt: Format, confidence: float = 0.95) -> list[dict]:
    """Percent columns for reading; raw rates stay in json/csv."""
    if fmt not in (Format.table, Format.md):
        return rows
    out = []
    for r in rows:
        p = r["exact"]
        row = {k: v for k, v in r.items() if k not in (
            "scope", "feature", "count", "n", "rate", "lo", "hi", "exact", "z", "note")}
        row.update({
            "scope": r["scope"],
            "feature": r["feature"],
            "count": f"{r['count']:,}",
            "of": f"{r['n']:,}",
            "rate %": f"{100 * r['rate']:.4f}",
            f"{100 * confidence:g}% interval %": f"{100 * r['lo']:.4f} .. {100 * r['hi']:.4f}",
            "exact %": "" if p is None else f"{100 * p:.4f}",
            "z": "" if r["z"] is None else f"{r['z']:+.2f}",
            "note": r["note"],
        })
        out.append(row)
    return out


def print_frequency_table(directory: str, by: str | None = None, fmt: Format = Format.table,
                          confidence: float = 0.95) -> list[dict]:
    rows = frequency_table(directory, by=by, confidence=confidence)
    title = (f"Frequencies in {directory} ({100 * confidence:g}% Wilson intervals; hand "
             "features pool the four seats, trump = hearts)")
    emit_records(present(rows, fmt, confidence), fmt, title=title)
    return rows


@table_app.command("freq")
def freq_command(
    directory: Annotated[str, typer.Argument(help="Dataset directory written by simulate.")],
    by: Annotated[str | None, typer.Option("--by", help="Group by a column, e.g. dealer.")]
    = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
    = Format.table,
    confidence: Annotated[float, typer.Option("--confidence", help="Interval level.")] = 0.95,
) -> None:
    """Combination frequencies per hand, side and table: count, rate, Wilson interval,
    and, where `bazarsim odds` has it, the exact value and the z-score."""
    try:
        if not 0 < confidence < 1:
            raise BazarsimError(f"--confidence {confidence}: must be between 0 and 1")
        print_frequency_table(directory, by, fmt, confidence)
    except BazarsimError as exc:
        fail(str(exc))
