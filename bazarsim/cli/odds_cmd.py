"""``bazarsim odds``: exact probabilities of hand and table features."""

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
    emit_records,
    fail,
    load_ruleset,
)
from bazarsim.evaluate.odds import exact_features


@command("odds")
def odds_command(
    feature: Annotated[
        list[str] | None,
        typer.Argument(help="Features to show (default: all), e.g. kq_any_suit trumps_3."),
    ] = None,
    ruleset: RulesetOpt = DEFAULT_RULESET,
    option: OptionOpt = None,
    fmt: FormatOpt = Format.table,
) -> None:
    """Exact odds (combinatorics, not sampling) of hand and table features.

    Trump features take one named trump suit; 'at_table' features ask whether any of
    the four hands has the feature.
    """
    feats = exact_features(load_ruleset(ruleset, option))
    if feature:
        known = {f.name for f in feats}
        unknown = [f for f in feature if f not in known]
        if unknown:
            fail(f"unknown feature {unknown[0]!r}: choose from {', '.join(sorted(known))}")
        feats = [f for f in feats if f.name in feature]
    records = [f.record() for f in feats]
    if fmt in (Format.table, Format.md):
        records = [
            {"feature": r["feature"], "probability": r["probability"],
             "percent": f"{r['percent']:.4f}%", "one in": r["one_in"],
             "description": r["description"]}
            for r in records
        ]
    emit_records(records, fmt, title=f"Exact odds ({ruleset})")
