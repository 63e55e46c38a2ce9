"""Auctions between policies: four seats' bidders run through the ruleset's auction.

A **bidder** is any object with ``call(auction, view) -> Call``: :class:`PolicyBidder`
turns a TOML :class:`~bazarsim.matches.policy.Policy` into one; a Python object may be
used instead. The auction itself is :class:`bazarsim.rules.auction.Auction`, the same
referee ``bazarsim auction`` uses, so every call is checked; an illegal one stops the run
with :class:`IllegalCall`, which shows the auction so far, and is never played on.

What a seat sees (:class:`SeatView`): the model's estimates for its own hand (bidder and
defender side, every kind and bid) and the match score. It does not see the other hands.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bazarsim.core.cards import SEATS
from bazarsim.core.errors import BazarsimError
from bazarsim.matches.model import bid_index, bid_levels
from bazarsim.matches.policy import Policy
from bazarsim.rules.auction import BID, CONTRA, PASS, RECONTRA, Auction, Call


class IllegalCall(BazarsimError):
    """A bidder made a call the rules forbid: the message names it and the auction so far."""


@dataclass
class SeatView:
    """What one seat knows when it calls."""

    seat: int
    make: np.ndarray  # [N_KINDS, bids]: P(my side makes the bid), from my hand
    opp_make: np.ndarray  # [N_KINDS, bids]: P(the opponents make it), from my hand
    own: int = 0  # my side's match score
    other: int = 0
    target: int = 301
    kinds: tuple[int, ...] | None = None  # kinds the deal source has results for (None: all)
    hand: int = 0  # my 8 cards (a bidder that simulates deals around them needs them)
    key: int = 0  # the deal's random key (a simulating bidder's worlds: reproducible)


class PolicyBidder:
    """The calls of a threshold policy (see :data:`bazarsim.matches.policy.KEYS`)."""

    def __init__(self, policy: Policy):
        self.policy = policy

    @property
    def name(self) -> str:
        return self.policy.name

    def call(self, auction: Auction, view: SeatView) -> Call:
        p = self.policy
        rs = auction.ruleset
        shift = p.shift(view.own, view.other, view.target)
        seat = auction.to_speak
        side = seat & 1
        last = auction.last_bid
        ours = last is not None and (last[0] & 1) == side
        legal = auction.why_illegal
        if last is not None:
            bid = last[1]
            j = bid_index(rs, bid.level, bid.capot)
            if ours and auction.contra == 1:
                if view.make[bid.kind, j] >= p.recontra_make + shift and legal(
                        Call(RECONTRA)) is None:
                    return Call(RECONTRA)
            elif (not ours and auction.contra == 0
                  and 1.0 - view.opp_make[bid.kind, j] >= p.contra_fail + shift
                  and legal(Call(CONTRA)) is None):
                return Call(CONTRA)
        if ours or auction.contra:
            return Call(PASS)  # partner's (or my) bid stands; no bids after a contra
        partner = {c.kind for s, c in auction.history if s == (seat + 2) % 4 and c.type == BID}
        best = None
        kinds = view.kinds or rs.kinds
        for kind in kinds:
            if last is None:
                need = p.open_make
            elif kind in partner:
                need = p.support_make
            else:
                need = p.overcall_make
            cand = self._candidate(auction, view, kind, need + shift, p.capot_make + shift,
                                   jump=p.open_jump and last is None)
            if cand is not None and (best is None or cand[0] > best[0]):
                best = cand
        if best is not None:
            return best[1]
        if legal(Call(PASS)) is not None:  # the dealer must name a game: the likeliest
            forced = [self._lowest(auction, k) for k in kinds]
            options = [(view.make[c.kind, bid_index(rs, c.level, False)], c)
                       for c in forced if c is not None]
            return max(options, key=lambda t: t[0])[1]
        return Call(PASS)

    @staticmethod
    def _lowest(auction: Auction, kind: int, capot: bool = False) -> Call | None:
        """The lowest legal bid of ``kind`` (``None`` if there is none)."""
        levels = bid_levels(auction.ruleset)
        for level in levels:
            c = Call(BID, level, kind, capot)
            if auction.why_illegal(c) is None:
                return c
        return None

    def _candidate(self, auction, view, kind, need, capot_need, jump):
        """``(rank, call)`` of the best bid of ``kind`` reaching ``need``, or ``None``.
        Rank: a capot bid first, then the highest level the hand supports, then P(make)."""
        rs = auction.ruleset
        row = view.make[kind]
        low = self._lowest(auction, kind)
        if rs.auction.capot_bids:
            cap = self._lowest(auction, kind, capot=True)
            if (cap is not None and row[bid_index(rs, 0, True)] >= capot_need
                    and row[bid_index(rs, cap.level, False)] >= need):
                return (10_000.0, cap)
        if low is None:
            return None
        j = bid_index(rs, low.level, False)
        if row[j] < need:
            return None
        top = low.level
        if low.level:  # the highest level still reaching the threshold
            while (top + 1 in bid_levels(rs)
                   and row[bid_index(rs, top + 1, False)] >= need):
                top += 1
        call = Call(BID, top, kind) if jump else low
        if auction.why_illegal(call) is not None:
            call = low
        return (top + float(row[j]) / 2, call)


def policy_bidder(policy: Policy, model=None, seed: int = 7, bidders=None):
    """The bidder of a policy: its thresholds (:class:`PolicyBidder`), or for a policy of
    another kind (``kind = "simulation"``) the bidder ``bidders(policy, model, seed)``
    makes (the stage that simulates supplies it)."""
    if not policy.simulates:
        return PolicyBidder(policy)
    if bidders is None:
        raise BazarsimError(f"policy {policy.name} is a simulation policy: it bids through "
                            "bazarsim's commands (match, equity, simulate --auction) or "
                            "bazarsim.simbid.bidder", policy.name)
    return bidders(policy, model, seed)


def bidder_stats(bidder) -> dict:
    """What a bidder counted (a simulation bidder: calls, simulated); empty for others."""
    return dict(getattr(bidder, "stats", {}) or {})


def deal_key(seed: int, match: int, deal: int) -> int:
    """The random key of deal ``deal`` of match ``match`` (the same at both tables of a
    pair): what a simulating bidder draws its worlds from."""
    x = (int(seed) * 0x9E3779B97F4A7C15 + int(match) * 0xBF58476D1CE4E5B9 + int(deal)) % 2**64
    x ^= x >> 31
    x = (x * 0x94D049BB133111EB) % 2**64
    return x ^ (x >> 29)


def policy_auction(bidders, views: list[SeatView], dealer: int, ruleset) -> Auction:
    """The auction of one deal: seat ``s`` calls with ``bidders[s]`` and ``views[s]``."""
    auction = Auction(dealer=dealer, ruleset=ruleset)
    while not auction.finished:
        seat = auction.to_speak
        call = bidders[seat].call(auction, views[seat])
        reason = auction.why_illegal(call) if isinstance(call, Call) else "not a Call"
        if reason is not None:
            so_far = " ".join(f"{SEATS[s]}:{c}" for s, c in auction.history) or "(no calls)"
            name = getattr(bidders[seat], "name", type(bidders[seat]).__name__)
            raise IllegalCall(f"policy {name} at {SEATS[seat]} called {call} after "
                              f"{so_far} (dealer {SEATS[dealer]}): {reason}", str(call))
        auction.call(call)
    return auction
