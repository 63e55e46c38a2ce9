"""``bazarsim eval``: evaluate one hand (points, trumps, declarations, bela)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..contracts import KIND_NAMES
from ..evaluate import evaluate_hand
from .common import Format, OptionOpt, RulesetOpt, command, emit_json, emit_records, load_ruleset


@command("eval")
def eval_command(
    hand: Annotated[
        str,
        typer.Argument(help="Hand in suit-dot form (AJ9.K7.Q.T8) or a card list (\"JS 9S AH\")."),
    ],
    contract: Annotated[
        str | None,
        typer.Option("--contract", "-c", help="Contract kind S H D C BK VK; omit for all kinds."),
    ] = None,
    ruleset: RulesetOpt = "bazar",
    option: OptionOpt = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
) -> None:
    """Evaluate a hand: card points, trumps, declarations and bela per contract kind."""
    rs = load_ruleset(ruleset, option)
    kinds = [contract] if contract else [KIND_NAMES[k] for k in rs.kinds]
    evals = [evaluate_hand(hand, k, rs) for k in kinds]
    if fmt == Format.json:
        emit_json(evals[0].as_dict() if contract else [e.as_dict() for e in evals])
        return
    rows = []
    for e in evals:
        rows.append(
            {
                "contract": e.contract,
                "points": e.points,
                "trumps": e.trumps,
                "J/9 trump": f"{e.trump_jacks}/{e.trump_nines}",
                "aces": e.aces,
                "bela": e.bela,
                "declarations": e.declaration_points,
                "best": e.best_declaration or "-",
            }
        )
    emit_records(rows, fmt, title=f"{rows and evals[0].as_dict()['hand']} ({rs.name})")
    decls = evals[0].declarations
    if decls and fmt == Format.table:
        typer.echo(
            "declarations: "
            + "; ".join(
                f"{d.kind} {d.cards} = {d.value}"
                + (" (cancelled by four 8s)" if d.cancelled else "")
                for d in decls
            )
        )
