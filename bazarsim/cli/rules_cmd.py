"""``bazarsim rules``: show a ruleset's card tables and options."""

from __future__ import annotations

from typing import Annotated

import typer

from bazarsim.cli.common import (
    Format,
    FormatOpt,
    OptionOpt,
    command,
    echo_wrapped,
    emit_json,
    emit_records,
    load_ruleset,
)
from bazarsim.core.cards import RANKS
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.rules.rulesets import RULESETS, get_ruleset


@command("rules")
def rules_command(
    name: Annotated[
        str | None, typer.Argument(help=f"Ruleset to show ({', '.join(RULESETS)}); omit to list.")
    ] = None,
    option: OptionOpt = None,
    fmt: FormatOpt = Format.table,
) -> None:
    """Show a ruleset's card order, points, declarations and every option."""
    if name is None:
        rows = [{"ruleset": r.name, "description": r.description} for r in RULESETS.values()]
        emit_records(rows, fmt, title="Rulesets (default: bazar)")
        return
    get_ruleset(name)  # unknown names list the valid ones
    rs = load_ruleset(name, option)
    cr, dr = rs.cards, rs.declarations
    card_rows = [
        {
            "card": r,
            "trump / VK": cr.trump_points.get(r, 0),
            "plain": cr.plain_points.get(r, 0),
            "BK": cr.bk_points.get(r, 0),
            "four (suit/VK)": dr.four_values.get(r, "-"),
            "four (BK)": dr.four_values_bk.get(r, "-"),
        }
        for r in reversed(RANKS)
    ]
    docs = rs.option_docs()
    option_rows = [
        {
            "option": o["option"],
            "value": o["value"],
            "ambiguous": "yes" if o["ambiguous"] else "",
            "meaning": o["doc"]
            + (f" [{' | '.join(str(c) for c in o['choices'])}]" if o["choices"] else "")
            + (f" ({rs.name}: {o['note']})" if o["note"] else ""),
        }
        for o in docs
    ]
    if fmt == Format.json:
        emit_json(
            {
                "name": rs.name,
                "description": rs.description,
                "sources": list(rs.sources),
                "kinds": [KIND_NAMES[k] for k in rs.kinds],
                "deal_pattern": rs.deal_pattern,
                "deal_totals": {KIND_NAMES[k]: v for k, v in rs.deal_total.items()},
                "options": rs.options(),
                "ambiguous": [o["option"] for o in docs if o["ambiguous"]],
                "notes": dict(rs.notes),
            }
        )
        return
    totals = ", ".join(f"{KIND_NAMES[k]} {v}" for k, v in rs.deal_total.items())
    echo_wrapped(f"{rs.name}: {rs.description}")
    echo_wrapped(f"sources: {'; '.join(rs.sources)} (the rules in full: docs/rules.md)")
    echo_wrapped(
        f"contract kinds: {' '.join(KIND_NAMES[k] for k in rs.kinds)}; deal: "
        f"{rs.deal_pattern}; deal totals: {totals}"
    )
    echo_wrapped(f"order trump/VK: {' '.join(cr.trump_order)};  plain/BK: "
                 f"{' '.join(cr.plain_order)}")
    emit_records(card_rows, fmt, title="Card points and fours")
    emit_records(option_rows, fmt, title="Options (change with -o part.field=value)")
