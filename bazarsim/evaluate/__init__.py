"""What a hand or a deal holds before play: Numba evaluation of hands and deals (points,
trumps, declarations, bela) and exact combinatorial odds of hand and table features."""

from bazarsim.evaluate.hands import (
    describe_deal_declarations,
    evaluate_deals,
    evaluate_hand,
    evaluate_hands,
    list_declarations,
)
from bazarsim.evaluate.odds import exact_features, exact_odds

__all__ = [
    "describe_deal_declarations",
    "evaluate_deals",
    "evaluate_hand",
    "evaluate_hands",
    "exact_features",
    "exact_odds",
    "list_declarations",
]
