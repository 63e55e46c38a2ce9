"""Match play: the running score to the target under each ruleset's end rules.

Pure Python and small on purpose: simulations score deals (scalar or in bulk with
:func:`bazarsim.rules.scoring.score_deals`) and feed them to :meth:`Match.record`, which
returns the winning side (0 = NS, 1 = EW) once the match is over.

End rules (``ruleset.scoring`` options, docs/rules.md, Scoring):

* a side with at least the target and more points than the other wins after the deal;
  equal scores at or above the target play on;
* ``failed_bidders_cannot_win``: bidders who failed their contract do not win on that
  deal (the other side still wins if it has the target and more points) - the Armenian club rules;
* ``capot_ends_match_only_if_bid_contra_made``: a deal in which the bidders took every
  trick ends no match unless the capot was bid, contra'd and made - the Armenian club rules;
* ``reverse_capot_loses_match``: bidders who take no trick lose at once - the Armenian club rules;
* ``eight_of_a_suit_wins_match``: a hand of eight cards of one suit wins the match at
  the end of the deal - the Bela description;
* belote-fr ties: the bidders' points are carried and go to the side that scores more
  in the next deal - the article on belote variants.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bazarsim.core.cards import SIDES, side_of, suit_byte
from bazarsim.core.contracts import Contract
from bazarsim.core.errors import BazarsimError
from bazarsim.rules.rulesets import Ruleset, get_ruleset
from bazarsim.rules.scoring import DealOutcome, DealScore, score_deal


def eight_of_a_suit_side(hands) -> int | None:
    """The side holding all eight cards of one suit in one hand (deal in seat order N E S W)."""
    for seat, hand in enumerate(hands):
        if any(suit_byte(int(hand), suit) == 0xFF for suit in range(4)):
            return side_of(seat)
    return None


@dataclass
class Match:
    """A match in progress: totals, carried points, the deals so far and the winner."""

    ruleset: Ruleset = field(default_factory=get_ruleset)
    target: int | None = None
    totals: list[int] = field(default_factory=lambda: [0, 0])
    carry: int = 0
    deals: list[DealScore] = field(default_factory=list)
    winner: int | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.ruleset, str):
            self.ruleset = get_ruleset(self.ruleset)
        if self.target is None:
            self.target = self.ruleset.scoring.target
        allowed = self.ruleset.scoring.targets
        if self.target <= 0 or (allowed and self.target not in allowed):
            choices = ", ".join(str(t) for t in allowed) or "any positive number"
            raise BazarsimError(
                f"bad match target {self.target} for {self.ruleset.name}: choose {choices} "
                "(option scoring.targets lists the allowed ones; empty allows any)",
                str(self.target),
            )

    @property
    def over(self) -> bool:
        return self.winner is not None

    def play(
        self, contract: Contract, outcome: DealOutcome, eight_of_a_suit_side: int | None = None
    ) -> int | None:
        """Score a deal with the match's ruleset and record it."""
        return self.record(score_deal(contract, outcome, self.ruleset), eight_of_a_suit_side)

    def record(self, deal: DealScore, eight_of_a_suit_side: int | None = None) -> int | None:
        """Add a scored deal; return the winning side if the match ends on it."""
        if self.over:
            raise BazarsimError(f"the match is over: {SIDES[self.winner]} won ({self.reason})")
        sr = self.ruleset.scoring
        self.deals.append(deal)
        self.totals[0] += deal.scores[0]
        self.totals[1] += deal.scores[1]
        if deal.tie:
            self.carry += deal.carry
        elif self.carry and deal.scores[0] != deal.scores[1]:
            self.totals[0 if deal.scores[0] > deal.scores[1] else 1] += self.carry
            self.carry = 0

        bidders = deal.contract.side
        if eight_of_a_suit_side is not None and sr.eight_of_a_suit_wins_match:
            return self._end(eight_of_a_suit_side, "eight cards of one suit in one hand")
        if deal.reverse_capot and sr.reverse_capot_loses_match:
            return self._end(1 - bidders, "reverse capot: the bidders took no trick")
        if deal.capot and sr.capot_ends_match_only_if_bid_contra_made:
            c = deal.contract
            if not (c.capot and c.contra and deal.made):
                return None
        for side in (0, 1):
            if self.totals[side] < self.target or self.totals[side] <= self.totals[1 - side]:
                continue
            if side == bidders and not deal.made and sr.failed_bidders_cannot_win:
                continue
            return self._end(side, f"reached {self.target}")
        return None

    def _end(self, side: int, reason: str) -> int:
        self.winner = side
        self.reason = reason
        return side

    def as_dict(self) -> dict:
        return {
            "ruleset": self.ruleset.name,
            "target": self.target,
            "ns": self.totals[0],
            "ew": self.totals[1],
            "carry": self.carry,
            "deals": len(self.deals),
            "winner": SIDES[self.winner] if self.over else None,
            "reason": self.reason,
        }
