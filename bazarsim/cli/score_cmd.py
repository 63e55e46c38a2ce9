"""``bazarsim score``: the result of a contract and what each side writes."""

from __future__ import annotations

import re
from typing import Annotated

import typer

from bazarsim.analysis.bids import CONTRAS
from bazarsim.cli.common import (
    DEFAULT_RULESET,
    BazarsimCommand,
    Format,
    FormatOpt,
    OptionOpt,
    RulesetOpt,
    command,
    emit_json,
    emit_records,
    load_ruleset,
)
from bazarsim.core.cards import SIDES, parse_seat
from bazarsim.core.errors import BazarsimError
from bazarsim.rules.auction import parse_contract
from bazarsim.rules.scoring import SIDE_NAMES, TRICKS, DealOutcome, score_deal

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
    if total is not None and not 0 <= v <= total:  # the other side's share would be < 0
        unit = "card points (last trick included)" if what == "points" else what
        why = "a side has 0 or more" if v < 0 else f"but a deal has {total}"
        raise BazarsimError(f"{SIDE_NAMES[side]} {v} {unit}, {why}", str(v))
    other = (total - v) if total is not None else 0
    return (v, other) if side == 0 else (other, v)


SIDE_OPTIONS = {"--points", "-p", "--decl", "--bela", "--tricks", "-t"}
_SIDE_VALUE = re.compile(r"^(NS|EW)=", re.IGNORECASE)


def join_side_values(args: list[str]) -> list[str]:
    """Let ``--decl NS=20 EW=0`` mean ``--decl NS=20,EW=0`` (one option, both sides)."""
    out: list[str] = []
    i = 0
    while i < len(args):
        tok = args[i]
        out.append(tok)
        i += 1
        name = tok.split("=", 1)[0]
        if name not in SIDE_OPTIONS:
            continue
        if "=" not in tok:  # "--decl NS=20": the value is the next word
            if i >= len(args):
                break
            out.append(args[i])
            i += 1
        while i < len(args) and _SIDE_VALUE.match(args[i]):
            out[-1] += "," + args[i]
            i += 1
    return out


class SideValuesCommand(BazarsimCommand):
    """A command whose side-valued options take ``NS=.. EW=..`` as separate words."""

    def parse_args(self, ctx, args):
        return super().parse_args(ctx, join_side_values(bare_contra(list(args))))


def bare_contra(args: list[str]) -> list[str]:
    """``--contra`` with no value after it (its old, flag spelling) means ``--contra x``."""
    out = []
    for i, tok in enumerate(args):
        out.append(tok)
        if tok == "--contra" and (i + 1 == len(args) or args[i + 1].startswith("-")):
            out.append("x")
    return out


@command(
    "score",
    cls=SideValuesCommand,
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def score_command(
    ctx: typer.Context,
    contract: Annotated[
        str | None,
        typer.Option("--contract", "-c", help="Contract: 9H, 8BK, 10VK, 9H-CAPOT (bela: H)."),
    ] = None,
    declarer: Annotated[
        str | None, typer.Option("--declarer", help="Declaring seat N E S W.")
    ] = None,
    points: Annotated[
        list[str] | None,
        typer.Option(
            "--points",
            "-p",
            help=f"Card points + last trick: {SIDE_HELP}; "
            "one side is enough, the other gets the rest of 162 (258 in VK).",
        ),
    ] = None,
    decl: Annotated[
        list[str] | None,
        typer.Option("--decl", help=f"Scoring declarations per side: {SIDE_HELP}."),
    ] = None,
    bela: Annotated[
        list[str] | None, typer.Option("--bela", help=f"Bela per side: {SIDE_HELP}; none in BK.")
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
    contra: Annotated[str, typer.Option(
        "--contra", help="none, x (contra'd: x2) or xx (recontra'd: x4), as in table bids; "
        "a bare --contra means x.")] = "none",
    doubled: Annotated[bool, typer.Option("-x", help="Contra'd: --contra x.")] = False,
    recontra: Annotated[bool, typer.Option("--recontra", "-X", help="Recontra'd: --contra xx.")]
    = False,
    ruleset: RulesetOpt = DEFAULT_RULESET,
    option: OptionOpt = None,
    fmt: FormatOpt = Format.table,
) -> None:
    """Score one deal: made or failed, by how much, and both sides' scores.

    Side values are NS=<n> / EW=<n>: "--decl NS=20 EW=50", "--decl NS=20,EW=50" and
    "--decl NS=20 --decl EW=50" are the same. Example:
    bazarsim score -r bazar-blot -c 9H --declarer E -p NS=70 --decl EW=20 --bela EW=20 -x
    """
    if ctx.args and ctx.args[0] in ("-d", "--dealer"):
        raise BazarsimError("the declaring seat is --declarer (-d is the dealer in bazarsim)",
                            ctx.args[0])
    if ctx.args:
        raise BazarsimError(
            f"unexpected argument {ctx.args[0]!r} (side values are NS=<n> or EW=<n> after "
            "--points, --decl, --bela or --tricks)",
            ctx.args[0],
        )
    for value, name, example in (
        (contract, "--contract", "9H"),
        (declarer, "--declarer", "E"),
        (points, "--points", "NS=70"),
    ):
        if not value:
            raise BazarsimError(f"missing {name} (e.g. {name} {example})")
    rs = load_ruleset(ruleset, option)
    level = CONTRAS.get(contra.lower())
    if level is None:
        raise BazarsimError(f"--contra {contra!r}: use none, x or xx", contra)
    given = {lv for lv, on in ((level, level > 0), (1, doubled), (2, recontra)) if on}
    if len(given) > 1:
        raise BazarsimError("give --contra or --recontra, not both")
    c = parse_contract(contract, parse_seat(declarer), max(given, default=0), rs)
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
    summary = f"{c.label} ({rs.name}): {verdict}, margin {result.margin:+d}"
    if result.carry:
        summary += f", {result.carry} carried to the next deal's winner"
    if fmt == Format.table:
        typer.echo(summary)
        emit_records(rows, fmt)
    else:
        emit_records(rows, fmt, title=summary)
