"""``bazarsim deal``: show a deal by number or by seed and index; number a PBN deal."""

from __future__ import annotations

from typing import Annotated

import typer

from bazarsim.cli.common import (
    FixOpt,
    Format,
    WhereOpt,
    command,
    emit_json,
    emit_records,
    parse_seed,
)
from bazarsim.core.cards import SEAT_NAMES, SEATS, SUIT_SYMBOLS, format_deal, parse_deal, suit_byte
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.constraints import parse_constraints
from bazarsim.deals.generator import DEFAULT_SEED, DealGenerator
from bazarsim.deals.numbering import N_DEALS, deal_from_number, deal_number

RANKS_HIGH_FIRST = "AKQJT987"


def _holding(mask: int, suit: int) -> str:
    byte = suit_byte(mask, suit)
    ranks = "".join(r for r in RANKS_HIGH_FIRST if byte >> "789TJQKA".index(r) & 1)
    return (ranks or "-").replace("T", "10")


def diagram(hands) -> str:
    """A bridge-style diagram: North on top, West and East in the middle, South below."""
    hs = [int(h) for h in hands]
    width = 14

    def block(seat):
        return [SEAT_NAMES[seat]] + [f"{SUIT_SYMBOLS[s]} {_holding(hs[seat], s)}"
                                     for s in range(4)]

    north, east, south, west = block(0), block(1), block(2), block(3)
    lines = [" " * width + x for x in north]
    lines += [f"{w:<{width}}{'':<{width}}{e}" for w, e in zip(west, east, strict=True)]
    lines += [" " * width + x for x in south]
    return "\n".join(lines)


def _is_number(text: str) -> bool:
    """A deal number (digits, maybe with , or _ separators), not a PBN deal."""
    return text.replace(",", "").replace("_", "").strip().isdigit()


@command("deal")
def deal_command(
    number: Annotated[str | None, typer.Argument(
        help=f"A deal number 0 .. {N_DEALS - 1}, or a PBN deal 'N:<hand> <hand> <hand> "
        "<hand>' to get its number.", show_default=False)] = None,
    seed: Annotated[int | None, typer.Option(
        "--seed", "-s", parser=parse_seed, metavar="INTEGER", help="Seed of a simulation "
        f"(0 .. 2^64-1; default {DEFAULT_SEED} without NUMBER).", show_default=False)] = None,
    index: Annotated[int, typer.Option("--index", "-i", help="Deal index within the seed.")]
    = 0,
    count: Annotated[int, typer.Option("--deals", "-n", help="Show this many consecutive "
                                       "deals (with --seed).")] = 1,
    pbn: Annotated[str | None, typer.Option("--pbn", help="Give the number of this deal, "
                                            "e.g. 'N:AKQJ.T98.7.AK Q.... ...' (the same as "
                                            "giving it as NUMBER).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="diagram, pbn, json or csv "
                                     "(number, seed, index, deal).",
                                     callback=lambda v: v.lower())] = "diagram",
    fix: FixOpt = None,
    where: WhereOpt = None,
) -> None:
    """Show a deal by its number or by seed and index, or number a deal given as PBN.

    NUMBER is a deal number, or a PBN deal ("N:...") whose number is shown. Without
    NUMBER, deals --index .. of --seed (default 7). --fix and --where deal under
    constraints, as simulate does (the same seed, index and constraints give the same deals
    as in a simulate dataset).

    Deal numbers are a bijection with 0 .. 32!/(8!^4) - 1; simulate datasets store each
    deal's number, so any row can be shown again with `bazarsim deal NUMBER`.
    """
    if fmt not in ("diagram", "pbn", "json", "csv"):
        raise BazarsimError(f"bad --format {fmt!r}: diagram, pbn, json or csv", fmt)
    if number is not None and not _is_number(number):
        if pbn is not None:
            raise BazarsimError("give the PBN deal once: as NUMBER or as --pbn")
        number, pbn = None, number
    if number is None and pbn is None and seed is None:
        seed = DEFAULT_SEED
    if (fix or where) and seed is None:
        raise BazarsimError("--fix and --where constrain dealing: they go with --seed, not "
                            "with a deal number or PBN deal")
    given = sum(x is not None for x in (number, seed, pbn))
    if given != 1:
        raise BazarsimError("give exactly one of: a deal NUMBER, --seed (with --index), --pbn")
    if pbn is not None:
        d = parse_deal(pbn, full=True)
        items = [(deal_number(d), d, None)]
    elif number is not None:
        num = int(number.replace(",", "").replace("_", ""))
        items = [(num, deal_from_number(num), None)]
    else:
        if count < 1:
            raise BazarsimError(f"--deals {count}: must be >= 1")
        cons = parse_constraints(fix, where)
        dealer = DealGenerator(seed, cons)
        if cons.predicates.shape[0]:
            dealer.check_feasible()
        batch = dealer.deal(index, count)
        items = [(int(batch.numbers[j]), batch.hands[j], index + j) for j in range(count)]
    if fmt == "json":
        emit_json([
            {"number": num, "seed": seed, "index": idx, "pbn": format_deal(d),
             "hands": {SEATS[s]: int(d[s]) for s in range(4)}}
            for num, d, idx in items
        ])
        return
    if fmt == "csv":
        emit_records([{"number": num, "seed": "" if seed is None else seed,
                       "index": "" if idx is None else idx, "deal": format_deal(d)}
                      for num, d, idx in items], Format.csv)
        return
    for k, (num, d, idx) in enumerate(items):
        if fmt == "pbn":
            typer.echo(f"{format_deal(d)}\t{num}")
            continue
        if k:
            typer.echo("")
        where = f"seed {seed} index {idx}, " if idx is not None else ""
        typer.echo(f"Deal {where}number {num}")  # no separators: it is pasted back
        typer.echo(diagram(d))
