"""``bazarsim table freq DIR``: combination-frequency tables of a simulated dataset."""

from __future__ import annotations

from typing import Annotated

import typer

from bazarsim.cli.common import Format, app, fail, print_frequency_table
from bazarsim.core.errors import BazarsimError

table_app = typer.Typer(help="Tables aggregated from a simulated dataset (bazarsim simulate).",
                        no_args_is_help=True)
app.add_typer(table_app, name="table")


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
