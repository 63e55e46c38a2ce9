"""The auction played on from a call, in every world at once.

After a candidate call, each seat in turn calls as its policy does (the threshold rule
itself: no softness, no floor), with the hand model's estimates for the hand it holds in
that world, until the auction ends. Worlds that share the calls so far share the
auction's state, so the play-on is a tree: at each state the call context is built once
from the referee (:func:`~bazarsim.beliefs.calls.context_row`), the policy's call is
computed for all of the state's worlds in one Numba loop
(:func:`~bazarsim.beliefs.calls.policy_code`, the twin of
:class:`~bazarsim.matches.bidding.PolicyBidder`), and the worlds split by the call made.
Every call is checked by the referee; the tree has as many states as distinct auctions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numba as nb
import numpy as np

from bazarsim.beliefs.calls import (
    C_CONTRA,
    C_PASS,
    C_RECONTRA,
    context_row,
    contexts_of,
    pack_contexts,
    policy_code,
    seat_cells,
)
from bazarsim.core.contracts import N_KINDS
from bazarsim.matches.model import HandModel, bid_levels, kind_trump_masks
from bazarsim.matches.policy import Policy
from bazarsim.rules.auction import BID, CONTRA, PASS, RECONTRA, Auction, Call
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.rulesets import Ruleset

# a final contract per world: declarer (-1: none, the deal is redealt), kind, level,
# capot bid, contra
F_DECLARER, F_KIND, F_LEVEL, F_CAPOT, F_CONTRA = range(5)


@nb.njit(cache=True)
def world_rates(hands, dealer, T, trump_masks, kinds, rates, make, opp):
    """Each seat's bidder and defender estimates in every world (``make[w, seat, kind,
    j]``), from its whole hand there: what its policy calls on."""
    cells = np.zeros(N_KINDS, np.int64)
    for w in range(hands.shape[0]):
        for s in range(4):
            seat_cells(np.int64(hands[w, s]), (s - dealer - 1) % 4 + 1, T, trump_masks, kinds,
                       cells)
            for kind in kinds:
                for j in range(make.shape[3]):
                    make[w, s, kind, j] = rates[0, cells[kind], j]
                    opp[w, s, kind, j] = rates[1, cells[kind], j]


@nb.njit(cache=True)
def policy_calls(make, opp, seat, worlds, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, shift,
                 kinds, lvl0, n_levels, out):
    """The policy's call (code) of ``seat`` in each of ``worlds``, context row 0."""
    for t in range(worlds.shape[0]):
        w = worlds[t]
        out[t] = policy_code(make[w, seat], opp[w, seat], 0, ctx_ints, ctx_low, ctx_cap,
                             ctx_need, thr, shift, kinds, lvl0, n_levels)


def code_call(code: int) -> Call:
    """A kernel's call code (:func:`~bazarsim.beliefs.calls.call_code`) as a Call."""
    if code == C_PASS:
        return Call(PASS)
    if code == C_CONTRA:
        return Call(CONTRA)
    if code == C_RECONTRA:
        return Call(RECONTRA)
    rest = code - 3
    kc, level = divmod(rest, 64)
    kind, capot = divmod(kc, 2)
    return Call(BID, level, kind, bool(capot))


def branch(auction: Auction, call: Call) -> Auction:
    """A copy of ``auction`` with ``call`` made (checked by the referee)."""
    out = replace(auction, history=list(auction.history), out=set(auction.out))
    out.call(call)
    return out


@dataclass
class SeatRates:
    """Every seat's estimates in every world, and what the policy kernel needs besides."""

    make: np.ndarray  # float64 [worlds, 4, N_KINDS, bids]
    opp: np.ndarray
    kinds: np.ndarray  # int64: the kinds a policy may bid
    lvl0: int
    n_levels: int

    @classmethod
    def of(cls, hands: np.ndarray, dealer: int, rs: Ruleset, model: HandModel,
           kinds=None) -> SeatRates:
        levels = bid_levels(rs)
        T = compiled_rules(rs)
        masks = kind_trump_masks(T)
        all_kinds = np.array(rs.kinds, np.int64)
        n = len(hands)
        make = np.zeros((n, 4, N_KINDS, len(levels) + 1))
        opp = np.zeros_like(make)
        world_rates(np.ascontiguousarray(hands, np.int64), np.int64(dealer), T, masks,
                    all_kinds, model.rates, make, opp)
        bid_kinds = all_kinds if kinds is None else np.array(sorted(kinds), np.int64)
        return cls(make, opp, bid_kinds, levels[0], len(levels))


def play_on(auction: Auction, worlds: np.ndarray, rates: SeatRates,
            policies: dict[int, Policy], score: tuple[int, int] = (0, 0),
            target: int = 301) -> tuple[np.ndarray, int]:
    """The final contract of ``auction`` played on by ``policies`` (one per seat; N-S's
    and E-W's match ``score`` for their score rules) in each of ``worlds`` (rows of
    ``rates``): ``[len(worlds), 5]`` (the ``F_*`` columns), and the states visited."""
    out = np.zeros((len(worlds), 5), np.int64)
    stack = [(auction, np.arange(len(worlds)))]
    states = 0
    while stack:
        a, at = stack.pop()
        states += 1
        if a.finished:
            c = a.contract
            out[at] = ((c.declarer, c.kind, c.level, int(c.capot), c.contra) if c is not None
                       else (-1, -1, 0, 0, 0))
            continue
        ctx = contexts_of([context_row(a, policies[a.to_speak], score, target)])
        ints, floats = pack_contexts(ctx)
        codes = np.empty(len(at), np.int64)
        policy_calls(rates.make, rates.opp, np.int64(a.to_speak), worlds[at], ints, ctx.low,
                     ctx.cap_low, ctx.need, ctx.thresholds, floats[0, 0], rates.kinds,
                     np.int64(rates.lvl0), np.int64(rates.n_levels), codes)
        for code in np.unique(codes):
            stack.append((branch(a, code_call(int(code))), at[codes == code]))
    return out, states
