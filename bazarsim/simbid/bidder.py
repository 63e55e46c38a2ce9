"""The simulation bidder: a policy whose close calls are decided as ``analyze --auction``
judges them.

A policy file with ``kind = "simulation"`` (:data:`~bazarsim.matches.policy.KEYS`) is a
threshold policy (its base: the call it makes when the choice is clear, and its own later
calls in the worlds) plus a ``[simulation]`` section. At each turn the bidder asks its
base policy; when that call stays the same however every threshold moves together by up
to ``margin`` (:func:`~bazarsim.beliefs.calls.call_margin`: the hand is far from every
comparison the policy makes), it keeps it. Otherwise it draws ``worlds`` auction-weighted
worlds around its hand (the other seats assumed to bid by the ``assume`` policy), plays
every legal candidate call on to a final contract in each (partner and opponents by
``assume``, itself by its base thresholds), scores them in full (double dummy, or
``play = "sd"``) and makes the call of the highest expected score (its base call where
they tie). The worlds are keyed by the deal's key and the call's number, so a play-off is
reproducible (with ``time_limit`` 0).

:func:`make_bidder` is what the commands hand to the match and auction runners below this
stage (:func:`~bazarsim.matches.bidding.policy_bidder`), so a simulation policy plays
wherever a policy does.
"""

from __future__ import annotations

import time

import numpy as np

from bazarsim.beliefs.calls import (
    call_margin,
    check_listenable,
    context_row,
    contexts_of,
    pack_contexts,
)
from bazarsim.core.errors import BazarsimError
from bazarsim.matches.bidding import PolicyBidder, SeatView
from bazarsim.matches.model import HandModel, bid_levels
from bazarsim.matches.policy import Policy, load_policy
from bazarsim.rules.auction import Auction, Call
from bazarsim.simbid.advice import AuctionQuery, draw_worlds, judge_calls

MIN_WORLDS = 20  # a time limit never cuts a call's worlds below this


class SimulationBidder:
    """A simulation policy's bidder (see the module docstring). ``stats``: calls made,
    simulated, and changed from the base call; ``log`` (a list, when set): one record per
    simulated call."""

    def __init__(self, policy: Policy, model: HandModel, seed: int = 7):
        if not policy.simulates:
            raise BazarsimError(f"policy {policy.name} is not a simulation policy")
        self.policy = policy
        self.base = PolicyBidder(policy)
        self.assumed = assumed_policy(policy)
        check_listenable(model.ruleset)
        self.model = model
        self.seed = int(seed)
        self.stats = {"calls": 0, "simulated": 0, "changed": 0}
        self.log: list[dict] | None = None
        self._pace: float | None = None  # seconds per world of the last simulated call

    @property
    def name(self) -> str:
        return self.policy.name

    def margin(self, auction: Auction, view: SeatView) -> float:
        """How far the thresholds can move before the base call may change."""
        rs = auction.ruleset
        side = auction.to_speak & 1
        score = (view.own, view.other) if side == 0 else (view.other, view.own)
        ctx = contexts_of([context_row(auction, self.policy, score, view.target)])
        ints, floats = pack_contexts(ctx)
        levels = bid_levels(rs)
        kinds = np.array(sorted(view.kinds or rs.kinds), np.int64)
        return float(call_margin(np.ascontiguousarray(view.make),
                                 np.ascontiguousarray(view.opp_make), 0, ints, ctx.low,
                                 ctx.cap_low, ctx.need, ctx.thresholds, floats[0, 0], kinds,
                                 levels[0], len(levels)))

    def worlds_now(self) -> int:
        n = self.policy.simulation_worlds
        limit = self.policy.simulation_time_limit
        if limit > 0 and self._pace is not None and self._pace * n > limit:
            n = max(MIN_WORLDS, int(limit / self._pace))
        return n

    def call(self, auction: Auction, view: SeatView) -> Call:
        base = self.base.call(auction, view)
        self.stats["calls"] += 1
        if self.margin(auction, view) > self.policy.simulation_margin:
            return base
        if not view.hand:
            raise BazarsimError(f"policy {self.name} simulates: its seat's view must hold the "
                                "hand (SeatView.hand)")
        self.stats["simulated"] += 1
        t0 = time.perf_counter()
        seat = auction.to_speak
        policies = {s: self.policy if s == seat else self.assumed for s in range(4)}
        q = AuctionQuery(auction.ruleset, seat, auction.dealer, int(view.hand),
                         tuple(auction.history), policies, self.model,
                         self.policy.simulation_play, 20, (view.own, view.other), view.target,
                         tuple(view.kinds) if view.kinds else None)
        n = self.worlds_now()
        salt = (int(view.key) * 0x100000001B3 + len(auction.history) * 4 + seat) % 2**63
        worlds = draw_worlds(q, n, self.seed, salt)
        results = judge_calls(q, worlds.hands, None, self.seed, include=base)
        w = np.full(worlds.n, 1.0 / worlds.n)
        means = {str(r.call): float(w @ r.net) for r in results}
        best = results[0].call
        if means[str(base)] >= means[str(best)]:
            best = base  # ties keep the base call
        if best != base:
            self.stats["changed"] += 1
        self._pace = (time.perf_counter() - t0) / max(worlds.n, 1)
        if self.log is not None:
            self.log.append({"seat": seat, "dealer": auction.dealer, "hand": int(view.hand),
                             "auction": " ".join(str(c) for _s, c in auction.history),
                             "base": str(base), "chosen": str(best), "key": int(view.key),
                             "worlds": worlds.n, "ess": worlds.ess, "means": means})
        return best


def assumed_policy(policy: Policy) -> Policy:
    """The threshold policy a simulation policy assumes for the other seats (refused when
    it is itself a simulation policy)."""
    assumed = load_policy(policy.simulation_assume)
    if assumed.simulates:
        raise BazarsimError(f"policy {policy.name}: [simulation] assume = "
                            f"{policy.simulation_assume!r} must be a threshold policy",
                            policy.simulation_assume)
    return assumed


def check_policies(policies, rs) -> None:
    """Refuse, before anything runs, a simulation policy that cannot play here: its
    assumed policy unreadable or itself a simulation one, or a ruleset whose calls are
    made on part of the hand."""
    for p in policies:
        if p.simulates:
            check_listenable(rs)
            assumed_policy(p)


def make_bidder(policy: Policy, model: HandModel, seed: int = 7):
    """The bidder of any policy: the simulation bidder for ``kind = "simulation"``, the
    threshold bidder otherwise (what the runners below this stage are handed)."""
    if policy.simulates:
        return SimulationBidder(policy, model, seed)
    return PolicyBidder(policy)
