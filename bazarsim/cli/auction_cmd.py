"""``bazarsim auction``: validate a call sequence and show the contract it ends in."""

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
from bazarsim.core.errors import BazarsimError
from bazarsim.rules.auction import run_auction

CALL_HELP = (
    "Calls from the player to the dealer's left, separated by spaces: "
    "bids 8H 9S 8BK (NT = BK) 10VK (AT = VK); P pass; X contra; XX recontra; "
    "capot bid 9H-CAPOT (also CAPOT-9H, -KAPOT, -CAPUT). "
    "Belote and bela games have no level: H, BK, VK."
)


@command("auction", context_settings={"ignore_unknown_options": True})
def auction_command(
    calls: Annotated[list[str] | None, typer.Argument(help=CALL_HELP, show_default=False)] = None,
    dealer: Annotated[
        str, typer.Option("--dealer", "-d", help="Dealer seat N E S W; the next seat speaks first.")
    ] = "N",
    ruleset: RulesetOpt = DEFAULT_RULESET,
    option: OptionOpt = None,
    fmt: FormatOpt = Format.table,
) -> None:
    """Check an auction call by call: the final contract, a redeal, or what may follow.

    The first illegal call is reported with its number and the reason (exit 2).
    Example: bazarsim auction "8H P 9S X P P XX" --dealer N
    """
    if not calls:
        raise BazarsimError('missing calls (e.g. bazarsim auction "8H P 9S X P")')
    rs = load_ruleset(ruleset, option)
    state = run_auction(" ".join(calls), dealer, rs)
    info = state.as_dict()
    if fmt == Format.json:
        emit_json(info)
        return
    rows = [{"#": i + 1, "seat": c["seat"], "call": c["call"]} for i, c in enumerate(info["calls"])]
    typer.echo(f"auction ({rs.name}), dealer {info['dealer']}")
    emit_records(rows, fmt)
    if state.redeal:
        typer.echo("result: four passes - redeal")
    elif state.finished:
        typer.echo(f"contract: {state.contract.label} (side {info['contract']['side']})")
    else:
        typer.echo(f"in progress: {info['to_speak']} to speak; legal: {', '.join(info['legal'])}")
