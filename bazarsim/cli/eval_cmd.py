"""``bazarsim eval``: evaluate one hand (points, trumps, declarations, bela)."""

from __future__ import annotations

from typing import Annotated

import typer

from bazarsim.cli.common import (
    DEFAULT_RULESET,
    Format,
    FormatOpt,
    OptionOpt,
    RulesetOpt,
    command,
    emit_json,
    emit_records,
    load_ruleset,
)
from bazarsim.core.cards import (
    HAND_SIZE,
    SEATS,
    count,
    format_deal,
    parse_deal,
    parse_hand,
    parse_seat,
)
from bazarsim.core.contracts import KIND_NAMES, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.evaluate.hands import describe_deal_declarations, evaluate_hand


@command("eval")
def eval_command(
    hand: Annotated[
        str,
        typer.Argument(
            help="Hand in suit-dot form (AJ9.K7.Q.T8) or a card list (\"JS 9S AH\"); "
            "or a whole deal N:<hand> <hand> <hand> <hand> to see which side's "
            "declarations score."
        ),
    ],
    contract: Annotated[
        str | None,
        typer.Option("--contract", "-c", help="Contract kind S H D C BK VK; omit for all kinds."),
    ] = None,
    dealer: Annotated[
        str, typer.Option("--dealer", "-d", help="Dealer seat (for a deal): N E S W.")
    ] = "N",
    ruleset: RulesetOpt = DEFAULT_RULESET,
    option: OptionOpt = None,
    fmt: FormatOpt = Format.table,
) -> None:
    """Evaluate a whole hand (8 cards): card points, trumps, declarations and bela per
    contract kind."""
    rs = load_ruleset(ruleset, option)
    kinds = [contract] if contract else [KIND_NAMES[k] for k in rs.kinds]
    if ":" in hand or len(hand.split()) == 4 and "." in hand:
        _eval_deal(hand, kinds, parse_seat(dealer), rs, fmt)
        return
    mask = parse_hand(hand)
    if count(mask) != HAND_SIZE:  # points, declarations and bela are those of a whole hand
        raise BazarsimError(f"hand {hand.strip()!r} has {count(mask)} cards: eval takes a "
                            f"whole hand of {HAND_SIZE} (or a whole deal)", hand.strip())
    evals = [evaluate_hand(mask, k, rs) for k in kinds]
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


def _eval_deal(text: str, kinds: list[str], dealer: int, rs, fmt: Format) -> None:
    """Per contract kind: each seat's points and declarations, and who scores them."""
    deal = parse_deal(text, full=True)  # declarations are made on whole hands
    records = []
    for kind in kinds:
        res = describe_deal_declarations(deal, dealer, kind, rs)
        per_seat = [evaluate_hand(int(h), kind, rs) for h in deal]
        records.append(
            {
                "contract": KIND_NAMES[parse_kind(kind)],
                "points": dict(zip(SEATS, (e.points for e in per_seat), strict=True)),
                "declarations_by_seat": dict(
                    zip(SEATS, (e.declaration_points for e in per_seat), strict=True)
                ),
                "scoring_side": res["declaration_side"],
                "declarations": res["declarations"],
                "bela": res["bela"],
                "redeal": res["redeal"],
                "cancelled": res["cancelled"],
            }
        )
    if fmt == Format.json:
        emit_json({"deal": format_deal(deal), "dealer": SEATS[dealer], "contracts": records})
        return
    rows = [
        {
            "contract": r["contract"],
            "points N E S W": " ".join(str(v) for v in r["points"].values()),
            "declarations N E S W": " ".join(str(v) for v in r["declarations_by_seat"].values()),
            "scoring side": r["scoring_side"] or "-",
            "declarations NS/EW": f"{r['declarations']['NS']}/{r['declarations']['EW']}",
            "bela NS/EW": f"{r['bela']['NS']}/{r['bela']['EW']}",
            "note": "redeal (four 7s)" if r["redeal"] else
            ("cancelled (four 8s)" if r["cancelled"] else ""),
        }
        for r in records
    ]
    emit_records(rows, fmt, title=f"{format_deal(deal)} (dealer {SEATS[dealer]}, {rs.name})")
