"""bazarsim: simulation and odds analyzer for Bazar belot and its relatives."""

from __future__ import annotations

__version__ = "0.1.0"

from bazarsim.core.jitcache import ensure_fresh_cache  # noqa: E402

ensure_fresh_cache()

from bazarsim.core.cards import (  # noqa: E402
    format_card,
    format_cards,
    format_deal,
    format_hand,
    parse_card,
    parse_cards,
    parse_deal,
    parse_hand,
)
from bazarsim.core.errors import BazarsimError, CardError, RulesetError  # noqa: E402
from bazarsim.rules.rulesets import RULESETS, Ruleset, get_ruleset  # noqa: E402

__all__ = [
    "__version__",
    "BazarsimError",
    "CardError",
    "RulesetError",
    "RULESETS",
    "Ruleset",
    "get_ruleset",
    "parse_card",
    "parse_cards",
    "parse_hand",
    "parse_deal",
    "format_card",
    "format_cards",
    "format_hand",
    "format_deal",
]
