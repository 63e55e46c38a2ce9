"""``bazarsim verify DIR``: check a dataset part by part, optionally repair it."""

from __future__ import annotations

from typing import Annotated

import typer

from bazarsim.beliefs.auctioned import column_source
from bazarsim.cli.common import Format, FormatOpt, command, emit_json
from bazarsim.cli.progress import deal_progress
from bazarsim.engine.verify import verify_dataset
from bazarsim.simbid.bidder import make_bidder


@command("verify")
def verify_command(
    directory: Annotated[str, typer.Argument(help="Dataset directory written by simulate.")],
    sample: Annotated[int, typer.Option("--sample", help="Also recompute this many rows "
                      "from their seed and deal index and compare every column.")] = 0,
    repair: Annotated[bool, typer.Option("--repair", help="Compute damaged and missing "
                      "parts again (from the run in the manifest), then check again.")]
    = False,
    fmt: FormatOpt = Format.table,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Check a dataset: every part readable to its last page, holding the deal indices its
    name says (in order) and written by the run in the manifest, its content matching the
    digest written with it; every index of the run covered. Exits 1 when a fault remains
    (after --repair, when given)."""
    if sample < 0:
        from bazarsim.core.errors import BazarsimError

        raise BazarsimError(f"--sample {sample}: must be >= 0")
    if repair:
        with deal_progress(quiet, "repair") as update:
            result = verify_dataset(directory, sample, repair=True, progress=update,
                                    notice=lambda m: typer.echo(m, err=True),
                                    extra=auction_source)
    else:
        result = verify_dataset(directory, sample, extra=auction_source)
    if fmt == Format.json:
        emit_json(result.as_dict())
    else:
        for fault in result.faults:
            typer.echo(f"fault: {fault}")
        for what in result.repaired:
            typer.echo(f"repaired: {what}")
        if result.without_digest:
            n = len(result.without_digest)
            carry = "parts carry" if n != 1 else "part carries"
            typer.echo(f"note: {n} sound {carry} no content digest (written before digests, "
                       f"e.g. {result.without_digest[0]}): pages read and index column "
                       "checked; --sample recomputes rows")
        state = "sound" if result.ok else f"{len(result.faults)} fault(s)"
        extra = f", {result.sampled:,} rows recomputed" if result.sampled else ""
        typer.echo(f"{directory}: {result.parts} parts, {result.rows:,} rows{extra}: {state}")
        if not result.ok and not repair:
            typer.echo(f"repair with: bazarsim verify {directory} --repair")
    if not result.ok:
        raise typer.Exit(1)


def auction_source(params: dict):
    """A dataset's column source, its simulation policies (if any) bidding as they did."""
    return column_source(params, make_bidder)
