"""``bazarsim score``: the result of a contract and what each side writes."""

from __future__ import annotations

import re
from typing import Annotated

import typer

from ..auction import parse_contract
from ..cards import SIDES, parse_seat
from ..errors import BazarsimError
from ..scoring import TRICKS, DealOutcome, score_deal
from .common import Format, OptionOpt, RulesetOpt, command, emit_json, emit_records, load_ruleset

SIDE_HELP = "NS=<n> and/or EW=<n>, repeatable or comma-separated (NS=20,EW=0)"


def parse_side_values(items: list[str] | None, what: str) -> dict[int, int]:
    """``["NS=90", "EW=72"]`` or ``["NS=90,EW=72"]`` -> {0: 90, 1: 72}."""
    out: dict[int, int] = {}
    for item in items or []:
        for part in filter(None, re.split(r"[,\s]+", item)):
            key, sep, value = part.partition("=")
            side = key.strip().upper()
            if not sep or side not in SIDES:
                raise BazarsimError(f"bad {what} {part!r}: expected NS=<n> or EW=<n>", part)
            try:
                out[SIDES.index(side)] = int(value)
            except ValueError:
                raise BazarsimError(
                    f"bad {what} {part!r}: {value!r} is not a number", part
                ) from None
    return out


def _pair(values: dict[int, int], total: int | None, what: str) -> tuple[int, int]:
    """Both sides' values; one missing side is ``total`` minus the other (or 0)."""
    if len(values) == 2:
        return values[0], values[1]
    if not values:
        if total is None:
            return 0, 0
        raise BazarsimError(f"give {what} for NS or EW (e.g. --{what} NS=90)")
    ((side, v),) = values.items()
    other = (total - v) if total is not None else 0
    return (v, other) if side == 0 else (other, v)


@command("score")
def score_command(
    contract: Annotated[
        str,
        typer.Option("--contract", "-c", help="Contract: 9H, 8BK, 10VK, 9H-CAPOT (bela: H)."),
    ],
    declarer: Annotated[str, typer.Option("--declarer", "-d", help="Declaring seat N E S W.")],
    points: Annotated[
        list[str],
        typer.Option(
            "--points",
            "-p",
            help=f"Card points + last trick: {SIDE_HELP}; "
            "one side is enough, the other gets the rest of 162 (258 in VK).",
        ),
    ],
    decl: Annotated[
        list[str] | None,
        typer.Option("--decl", help=f"Scoring declarations per side: {SIDE_HELP}."),
    ] = None,
    bela: Annotated[
        list[str] | None, typer.Option("--bela", help=f"Bela per side: {SIDE_HELP}.")
    ] = None,
    tricks: Annotated[
        list[str] | None,
        typer.Option(
            "--tricks",
            "-t",
            help=f"Tricks per side: {SIDE_HELP}; one side is enough. "
            "Default: a side with no points took no trick, otherwise 4-4-like (no capot).",
        ),
    ] = None,
    contra: Annotated[
        bool, typer.Option("--contra", "-x", help="The contract is contra'd (x2).")
    ] = False,
    recontra: Annotated[bool, typer.Option("--recontra", "-X", help="Recontra'd (x4).")] = False,
    ruleset: RulesetOpt = "bazar",
    option: OptionOpt = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
) -> None:
    """Score one deal: made or failed, by how much, and both sides' scores."""
    rs = load_ruleset(ruleset, option)
    if contra and recontra:
        raise BazarsimError("give --contra or --recontra, not both")
    c = parse_contract(contract, parse_seat(declarer), 2 if recontra else 1 if contra else 0, rs)
    total = rs.deal_total[c.kind]
    pts = _pair(parse_side_values(points, "points"), total, "points")
    if tricks:
        trk = _pair(parse_side_values(tricks, "tricks"), TRICKS, "tricks")
    else:
        trk = (0, TRICKS) if pts[0] == 0 else (TRICKS, 0) if pts[1] == 0 else (4, 4)
    outcome = DealOutcome(
        pts,
        trk,
        _pair(parse_side_values(decl, "decl"), None, "decl"),
        _pair(parse_side_values(bela, "bela"), None, "bela"),
    )
    result = score_deal(c, outcome, rs)
    info = result.as_dict()
    if fmt == Format.json:
        info["ruleset"] = rs.name
        emit_json(info)
        return
    verdict = "made" if result.made else ("tie (points carried)" if result.tie else "failed")
    rows = [
        {
            "side": "NS",
            "points": pts[0],
            "tricks": trk[0],
            "decl": outcome.declarations[0],
            "bela": outcome.bela[0],
            "score": result.ns,
        },
        {
            "side": "EW",
            "points": pts[1],
            "tricks": trk[1],
            "decl": outcome.declarations[1],
            "bela": outcome.bela[1],
            "score": result.ew,
        },
    ]
    emit_records(rows, fmt, title=f"{c.label} ({rs.name}): {verdict}, margin {result.margin:+d}")
