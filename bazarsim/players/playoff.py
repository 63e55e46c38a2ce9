"""Duplicate play-offs: which of two card players is stronger, on the same deals.

Every deal and contract kind is played twice: team A at N-S and B at E-W, then the
other way round, with the same random streams (each decision's stream depends on the
seed, the deal's index, the kind, the card's number and the seat, not on who sits
there). Luck of the cards cancels; what is left is the play. Per (deal, kind) the
difference A - B in card points per game is ``ns(A at N-S) - ns(B at N-S)`` (the E-W
points are the deal's total minus N-S), and the play-off reports its mean with the
standard error over the (deal, kind) pairs, which are independent deals (the kinds of
one deal share cards, so they are counted as one cluster).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bazarsim.core.contracts import KIND_NAMES
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.generator import DealGenerator
from bazarsim.players.alphamu import DEFAULT_DEPTH
from bazarsim.players.batch import playout_tables
from bazarsim.players.pimc import I_ALL, INFERENCES
from bazarsim.players.players import DEFAULT_WORLDS
from bazarsim.players.playout_kernel import PLAYER_KINDS
from bazarsim.rules.rulesets import DEFAULT_RULESET, get_ruleset


@dataclass(frozen=True)
class Team:
    """A pair's card player: ``pimc`` (``worlds``, ``infer``: the ``I_*`` bits it uses),
    ``alphamu`` (also ``depth``: its own moves kept common), ``dd`` (sees every card) or
    ``random``."""

    player: str = "pimc"
    worlds: int = DEFAULT_WORLDS
    infer: int = I_ALL
    depth: int = DEFAULT_DEPTH

    def __post_init__(self):
        if self.player not in PLAYER_KINDS:
            raise BazarsimError(f"unknown player {self.player!r}: use pimc, alphamu, dd or "
                                "random")
        if self.worlds < 1:
            raise BazarsimError(f"worlds must be at least 1, not {self.worlds}")

    @property
    def label(self) -> str:
        if self.player not in ("pimc", "alphamu"):
            return self.player
        off = [name for name, bit in INFERENCES.items() if not self.infer & bit]
        depth = f" depth {self.depth}" if self.player == "alphamu" else ""
        return f"{self.player}-{self.worlds}{depth}" + ("".join(f" -{o}" for o in off))

    def seat(self) -> tuple[str, int, int, int]:
        return self.player, self.worlds, self.infer, self.depth


def playoff(team_a: Team, team_b: Team, deals: int = 200, seed: int = 7,
            ruleset=DEFAULT_RULESET, kinds=None, first: int = 0) -> dict:
    """Play ``deals`` random deals (deal ``first + i`` of ``seed``, dealer rotating) of
    each kind twice with the teams swapped; the mean card-point difference A - B per game
    and its standard error (clustered by deal), and per kind."""
    rs = get_ruleset(ruleset)
    if deals < 2:
        raise BazarsimError(f"a play-off needs at least 2 deals, not {deals}")
    hands = DealGenerator(seed, ruleset=rs).deal(first, deals).hands
    index = np.arange(first, first + deals, dtype=np.int64)
    dealer = (index & 3).astype(np.int64)
    a, b = team_a.seat(), team_b.seat()
    ns_a, _t, kinds = playout_tables(hands, [a, b, a, b], dealer, rs, kinds, seed, index)
    ns_b, _t, _k = playout_tables(hands, [b, a, b, a], dealer, rs, kinds, seed, index)
    diff = (ns_a - ns_b).astype(np.float64)  # [deals, kinds]
    per_deal = diff.mean(axis=1)
    out = {
        "a": team_a.label, "b": team_b.label, "ruleset": rs.name, "seed": seed,
        "deals": deals, "kinds": [KIND_NAMES[k] for k in kinds], "games": 2 * diff.size,
        "mean_diff": float(per_deal.mean()), "se_diff": _se(per_deal),
        "per_kind": {KIND_NAMES[k]: {"mean_diff": float(diff[:, j].mean()),
                                     "se_diff": _se(diff[:, j])}
                     for j, k in enumerate(kinds)},
    }
    return out


def _se(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan
