"""``bazarsim table freq|bids|compare DIR``: tables aggregated from a simulated dataset."""

from __future__ import annotations

from typing import Annotated

import typer

from bazarsim.analysis.bids import bid_table, compare_bids, play_name
from bazarsim.cli.common import (
    Format,
    FormatOpt,
    KindsOpt,
    app,
    command,
    emit_json,
    emit_records,
    lower,
    parse_levels,
    print_frequency_table,
    split_list,
)
from bazarsim.core.errors import BazarsimError
from bazarsim.report.bids import (
    bid_records,
    bid_terminal_records,
    compare_records,
    write_records_parquet,
)


def played(directory: str, play: str) -> str:
    """The play a table rests on, in words, for its title."""
    from bazarsim.store.parts import read_manifest, resolve

    return play_name(play, read_manifest(resolve(directory)))


table_app = typer.Typer(help="Tables aggregated from a simulated dataset (bazarsim simulate).",
                        no_args_is_help=True)
app.add_typer(table_app, name="table")


@command("freq", group=table_app)
def freq_command(
    directory: Annotated[str, typer.Argument(help="Dataset directory written by simulate.")],
    by: Annotated[str | None, typer.Option("--by", help="Group by a column, e.g. dealer.")]
    = None,
    fmt: FormatOpt = Format.table,
    confidence: Annotated[float, typer.Option("--confidence", help="Interval level.")] = 0.95,
) -> None:
    """Combination frequencies per hand, side and table: count, rate, Wilson interval,
    and, where `bazarsim odds` has it, the exact value and the z-score."""
    if not 0 < confidence < 1:
        raise BazarsimError(f"--confidence {confidence}: must be between 0 and 1")
    print_frequency_table(directory, by, fmt, confidence)


ByOpt = Annotated[list[str] | None, typer.Option(
    "--by", help="Class the declarer's hand by a feature, with buckets: e.g. "
    "'points=0..19,20..39,40..', 'trumps=0..2,3,4,5..', 'jack', 'nine', 'aces', "
    "'declarations=0,20..40,50..', 'bela', 'len_H=0..2,3..', 'position' (1 leads .. 4 "
    "deals); in belote-fr and bela-hr also the cards seen at bid time: 'seen_points', "
    "'seen_trumps', 'seen_jack', 'seen_nine', 'seen_aces'. Buckets: A, A..B or A-B, A.. or "
    "A-, ..B. Kind-dependent features (points, trumps, jack, nine, declarations, bela, "
    "seen_*) use the bid's kind, or the kind named after @: 'trumps@H=0-2,3-' (needed in "
    "compare when the bids' kinds differ). Repeatable (classes cross).")]
SeatOpt = Annotated[list[str] | None, typer.Option(
    "--seat", help="Declarer seats to count (default all four: one DD table serves each).")]
PlayOpt = Annotated[str, typer.Option(
    "--play", callback=lower, help="The play the table rests on: dd (double dummy: every card "
    "seen; simulate --dd) or sd (single dummy: four PIMC players with hidden cards; simulate "
    "--sd).")]
ContraOpt = Annotated[str, typer.Option("--contra", help="Score the bids with contra: none, "
                                        "x (contra) or xx (recontra).", callback=lower)]


@command("bids", group=table_app)
def bids_command(
    directory: Annotated[str, typer.Argument(help="Dataset written by simulate --dd.")],
    by: ByOpt = None,
    kind: KindsOpt = None,
    levels: Annotated[str | None, typer.Option(
        "--levels", help="Bid levels, e.g. 8..12, 8-12 or 8,9,10 (default: lowest legal .. "
        "deal total / 10, and a capot bid).")] = None,
    seat: SeatOpt = None,
    contra: ContraOpt = "none",
    play: PlayOpt = "dd",
    fmt: FormatOpt = Format.table,
    out: Annotated[str | None, typer.Option(
        "--out", help="Also write the tidy table to this Parquet file.")] = None,
    confidence: Annotated[float, typer.Option("--confidence", help="Interval level.")] = 0.95,
) -> None:
    """Bid success, with perfect (double-dummy) play or, with --play sd, hidden-card
    (single-dummy) play: for each class of declarer's hand and
    each bid, n, P(make) with its Wilson interval, P(capot), the declaring side's total,
    the expected score (declarers minus defenders) and the best call of the class: its
    best bid, or pass (which scores 0) where every bid loses on average."""
    if not 0 < confidence < 1:
        raise BazarsimError(f"--confidence {confidence}: must be between 0 and 1")
    rows = bid_table(directory, by=by, kinds=split_list(kind), levels=parse_levels(levels),
                     seats=split_list(seat), contra=contra, confidence=confidence, play=play)
    if out:
        write_records_parquet(rows, out)
    shown, notes = bid_records(rows, fmt, confidence), None
    if fmt == Format.table:
        shown, notes = bid_terminal_records(shown)
    emit_records(shown, fmt, title=f"Bids in {directory} ({played(directory, play)}; "
                 f"{100 * confidence:g}% Wilson intervals; score = declarers - defenders)",
                 notes=notes)


@command("compare", group=table_app)
def compare_command(
    directory: Annotated[str, typer.Argument(help="Dataset written by simulate --dd.")],
    bid_a: Annotated[str, typer.Argument(help="First bid, e.g. 8BK.")],
    bid_b: Annotated[str, typer.Argument(help="Second bid, e.g. 9H.")],
    by: ByOpt = None,
    seat: SeatOpt = None,
    contra: ContraOpt = "none",
    play: PlayOpt = "dd",
    fmt: FormatOpt = Format.table,
) -> None:
    """Two bids on the same deals and declarer seats: mean score difference A - B with its
    paired standard error, and how often each scores better."""
    rows = compare_bids(directory, bid_a, bid_b, by=by, seats=split_list(seat), contra=contra,
                        play=play)
    emit_records(compare_records(rows, fmt), fmt,
                 title=f"{bid_a} against {bid_b} in {directory} ({played(directory, play)}; "
                 "score = declarers - defenders; difference ± its paired standard error)")


@command("bias", group=table_app)
def bias_command(
    directory: Annotated[str, typer.Argument(help="Dataset written by simulate --dd --sd.")],
    kind: KindsOpt = None,
    levels: Annotated[str | None, typer.Option(
        "--levels", help="Bid levels, e.g. 8..12, 8-12 or 8,9,10 (default: every level, "
        "and capot bids).")] = None,
    contra: ContraOpt = "none",
    fmt: FormatOpt = Format.table,
    confidence: Annotated[float, typer.Option("--confidence", help="Interval level.")] = 0.95,
    listen: Annotated[bool, typer.Option(
        "--listen", help="A dataset bid by policies (simulate --auction POLICY --sd): "
        "single dummy by the players that listen to the auction instead of the plain "
        "PIMC players.")] = False,
) -> None:
    """How far double dummy is from hidden-card play: per kind and bid, P(make) under DD
    and under single dummy (four PIMC players) with their intervals, P(SD makes | DD
    makes), P(SD makes | DD fails), and the declaring side's points SD minus DD, on the
    same deals (paired). A dataset bid by policies gives the contracts it bid: one row
    per kind, bid and contra, each deal once."""
    from bazarsim.analysis.bias import bias_table
    from bazarsim.report.bias import BIAS_NOTES, CONTRACT_NOTES, bias_records, bias_title

    res = bias_table(directory, kinds=split_list(kind), levels=parse_levels(levels),
                     contra=contra, confidence=confidence, listen=listen)
    if fmt == Format.json:
        emit_json(res)
        return
    notes = (list(CONTRACT_NOTES if "contracts" in res else BIAS_NOTES)
             if fmt == Format.table else [])
    if res["beyond_cards"] and fmt in (Format.table, Format.md):
        notes.append(res["beyond_cards"])
    emit_records(bias_records(res, fmt), fmt, title=bias_title(res), notes=notes or None)
