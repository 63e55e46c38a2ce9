"""Calls have likelihoods: P(call | hand, auction so far, match score) under a policy.

A TOML policy (:mod:`bazarsim.matches.policy`) is a threshold rule: it compares the hand
model's estimates with its thresholds. Its **soft form** is the model of a player a
listener assumes: on each deal the player's thresholds all move together by one random
amount ``e``, logistic with scale ``softness`` (the policy's ``[likelihood]`` key), and it
then calls exactly as the policy does with the moved thresholds. The policy's call, as a
function of ``e``, changes only where ``e`` crosses one of its comparisons (an estimate
minus its threshold), so P(call) is the logistic mass of the intervals of ``e`` where the
policy makes that call: exact, and a smooth function of every estimate. Then a share
``floor`` of the calls is taken as made at random among the legal ones::

    P(call) = (1 - floor) * P_soft(call) + floor / (number of legal calls)

so no legal call ever makes a hand impossible. With ``softness`` and ``floor`` 0 the soft
form is the policy itself (probability 1 for its call, 0 for every other).

What a call depends on besides the hand is fixed by the auction before it: who holds the
last bid, the contra, which bids are legal, partner's kinds, the match score. Those are
**call contexts** (:class:`CallContexts`, one row per call, built in Python from the
referee :class:`~bazarsim.rules.auction.Auction`), so the kernels see only arrays and the
hands: :func:`hands_likelihood` evaluates many hands at once in Numba.

Only rulesets whose players bid on their whole hand are covered (bazar, bazar-blot): in
belote-fr and bela-hr a call is made on the 5 or 6 cards seen at bid time, and the
likelihood would have to average over the unseen ones; they are refused
(:func:`check_listenable`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from bazarsim.core.cards import SEATS
from bazarsim.core.contracts import N_KINDS
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.bidtime import bid_time
from bazarsim.evaluate.hands import hand_values
from bazarsim.matches.model import (
    HandModel,
    bid_levels,
    hand_cell,
    kind_group,
    kind_trump_masks,
)
from bazarsim.matches.policy import Policy
from bazarsim.rules.auction import BID, CONTRA, PASS, RECONTRA, Auction, Call
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.rulesets import Ruleset

# call codes: pass, contra, recontra, then bids by (kind, capot, level)
C_PASS, C_CONTRA, C_RECONTRA = 0, 1, 2
# threshold columns of a context row
T_OPEN, T_OVERCALL, T_SUPPORT, T_CAPOT, T_CONTRA, T_RECONTRA = range(6)
N_THRESHOLDS = 6
TAIL = 12.0  # logistic tail cut, in units of the softness: mass beyond < 1e-5


def call_code(call: Call) -> int:
    """A call as the kernels' integer (bids: ``3 + (kind * 2 + capot) * 64 + level``)."""
    if call.type == PASS:
        return C_PASS
    if call.type == CONTRA:
        return C_CONTRA
    if call.type == RECONTRA:
        return C_RECONTRA
    return int(bid_code(call.kind, int(call.capot), call.level))


@nb.njit(cache=True, inline="always")
def bid_code(kind, capot, level):
    """A bid's call code (see :func:`call_code`)."""
    return 3 + (kind * 2 + capot) * 64 + level


def check_listenable(rs: Ruleset) -> None:
    """Refuse rulesets whose calls are made on bid-time cards (see the module docstring)."""
    if bid_time(rs) is not None:
        raise BazarsimError(
            f"ruleset {rs.name}: its players call on the cards seen at bid time, and the "
            "auction's likelihood is computed for whole-hand bidding only (bazar, "
            "bazar-blot); see docs/auction-inference.md", rs.name)


@dataclass
class CallContexts:
    """Everything a call depends on but the caller's hand, one row per call (arrays)."""

    seat: np.ndarray  # int64 [n]
    code: np.ndarray  # int64 [n]: the call made (call_code)
    position: np.ndarray  # int64 [n]: 1 speaks first .. 4 the dealer
    ours: np.ndarray  # int64 [n]: the last bid is the caller's side's
    contra: np.ndarray  # int64 [n]: 0, 1 contra'd, 2 recontra'd
    last_kind: np.ndarray  # int64 [n]: -1 before any bid
    last_j: np.ndarray  # int64 [n]: the last bid's column in the model's tables
    ok: np.ndarray  # int64 [n, 3]: pass, contra, recontra legal
    need: np.ndarray  # int64 [n, N_KINDS]: threshold column for a bid of each kind (-1: none)
    low: np.ndarray  # int64 [n, N_KINDS]: lowest legal plain level (-1: none)
    cap_low: np.ndarray  # int64 [n, N_KINDS]: lowest legal capot level (-1: none)
    jump: np.ndarray  # int64 [n]: an opening that jumps
    thresholds: np.ndarray  # float64 [n, N_THRESHOLDS]
    shift: np.ndarray  # float64 [n]: the score rule's shift
    softness: np.ndarray  # float64 [n]
    floor: np.ndarray  # float64 [n]
    n_legal: np.ndarray  # int64 [n]: legal calls (the floor's share spreads over them)
    calls: list  # (seat, Call) of each row, for messages and tables

    @property
    def n(self) -> int:
        return len(self.seat)

    def rows_of(self, seat: int) -> np.ndarray:
        return np.flatnonzero(self.seat == seat)


def _lowest(auction: Auction, kind: int, capot: bool, levels: tuple[int, ...]) -> int:
    """The lowest legal level of a bid of ``kind`` among ``levels`` (-1: none). A bid is
    only ever too low (the rules' other conditions do not depend on its level), so
    legality grows with the level: a binary search."""
    lo, hi = 0, len(levels)
    while lo < hi:
        mid = (lo + hi) // 2
        if auction.why_illegal(Call(BID, levels[mid], kind, capot)) is None:
            hi = mid
        else:
            lo = mid + 1
    return levels[lo] if lo < len(levels) else -1


def lowest_bids(auction: Auction, levels: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per kind, the lowest legal plain and capot bid levels among ``levels`` (-1: none).
    A bazar-style bid is legal from a need on (one level above the last bid, more to
    change the last word) unless something the level does not change forbids it (a contra,
    the closed last word, a side that passed its first round, a capot bid before): read
    off the rules directly. Other styles: :func:`_lowest` level by level."""
    low = np.full(N_KINDS, -1, np.int64)
    cap = np.full(N_KINDS, -1, np.int64)
    rs = auction.ruleset
    ar = rs.auction
    if auction.style != "bazar":
        for k in rs.kinds:
            low[k] = _lowest(auction, k, False, levels)
            if ar.capot_bids:
                cap[k] = _lowest(auction, k, True, levels)
        return low, cap
    seat = auction.to_speak
    if (auction.finished or auction.contra or auction.closed
            or (ar.both_passed_first_round_only_contra
                and auction.first_round_passed(seat & 1))):
        return low, cap
    top = levels[-1] if not ar.max_level else min(levels[-1], ar.max_level)
    last = auction.last_bid
    for k in rs.kinds:
        for capot, out in ((False, low), (True, cap)):
            if capot and not ar.capot_bids:
                continue
            need = ar.min_level
            if last is not None:
                last_seat, b = last
                if b.capot and not capot:
                    continue
                step = 1
                if last_seat == seat and (k != b.kind or capot != b.capot):
                    step = ar.last_word_change_min_raise
                need = max(need, b.level + step)
            first = max(need, levels[0])
            if first <= top:
                out[k] = first
    return low, cap


def context_row(auction: Auction, policy: Policy, score: tuple[int, int] = (0, 0),
                target: int = 301, call: Call | None = None) -> dict:
    """The context of the call the seat to speak makes now (``call``; ``None``: not made
    yet, code -1), that seat modelled by ``policy``. ``score``: N-S's and E-W's."""
    rs = auction.ruleset
    levels = bid_levels(rs)
    seat = auction.to_speak
    p = policy
    side = seat & 1
    last = auction.last_bid
    ours = last is not None and (last[0] & 1) == side
    partner = {c.kind for s, c in auction.history if s == (seat + 2) % 4 and c.type == BID}
    need = np.full(N_KINDS, -1, np.int64)
    for k in rs.kinds:
        need[k] = 0 if last is None else 1 if k in partner else 2
    low, cap = lowest_bids(auction, levels)
    ok = [auction.why_illegal(Call(t)) is None for t in (PASS, CONTRA, RECONTRA)]
    # a kind's legal bids: its levels from the lowest legal one up (the calls a policy makes)
    n_legal = sum(ok) + sum(levels[-1] - first + 1 for first in (*low, *cap) if first >= 0)
    j = 0
    if last is not None:
        b = last[1]
        j = len(levels) if b.capot else min(max(b.level - levels[0], 0), len(levels) - 1)
    own, other = (score[side], score[1 - side])
    return dict(
        seat=seat, code=-1 if call is None else call_code(call),
        position=(seat - auction.dealer - 1) % 4 + 1,
        ours=int(ours), contra=auction.contra,
        last_kind=last[1].kind if last is not None else -1, last_j=j,
        ok=ok, need=need, low=low, cap_low=cap, jump=int(p.open_jump and last is None),
        thresholds=[p.open_make, p.overcall_make, p.support_make, p.capot_make,
                    p.contra_fail, p.recontra_make],
        shift=p.shift(own, other, target), softness=p.likelihood_softness,
        floor=p.likelihood_floor, n_legal=max(n_legal, 1), call=(seat, call))


def call_contexts(auction_calls: list[tuple[int, Call]], dealer: int, rs: Ruleset,
                  policies: dict[int, Policy], seats: tuple[int, ...],
                  score: tuple[int, int] = (0, 0), target: int = 301) -> CallContexts:
    """The contexts of the calls of ``seats`` in an auction (``(seat, call)`` from the
    dealer's left), each seat modelled by ``policies[seat]``. ``score``: N-S's and E-W's
    match scores, for the policies' score rules."""
    check_listenable(rs)
    auction = Auction(dealer=dealer, ruleset=rs)
    rows: list[dict] = []
    for seat, call in auction_calls:
        if seat in seats:
            rows.append(context_row(auction, policies[seat], score, target, call))
        auction.call(call)
    return contexts_of(rows)


def contexts_of(rows: list[dict]) -> CallContexts:
    """The :class:`CallContexts` of rows made by :func:`context_row`."""
    def col(name, dtype, shape=()):
        if not rows:
            return np.zeros((0, *shape), dtype)
        return np.array([r[name] for r in rows], dtype)

    return CallContexts(
        col("seat", np.int64), col("code", np.int64), col("position", np.int64),
        col("ours", np.int64), col("contra", np.int64), col("last_kind", np.int64),
        col("last_j", np.int64), col("ok", np.int64, (3,)), col("need", np.int64, (N_KINDS,)),
        col("low", np.int64, (N_KINDS,)), col("cap_low", np.int64, (N_KINDS,)),
        col("jump", np.int64), col("thresholds", np.float64, (N_THRESHOLDS,)),
        col("shift", np.float64), col("softness", np.float64), col("floor", np.float64),
        col("n_legal", np.int64), [r["call"] for r in rows])


# --------------------------------------------------------------------------- kernels


@nb.njit(cache=True)
def seat_cells(h, position, T, trump_masks, kinds, cells):
    """The hand model's class of hand ``h`` under every kind (``cells[kind]``; the whole
    hand is what the player saw: bazar, bazar-blot)."""
    for kind in kinds:
        v = hand_values(np.uint32(h), kind, T)
        strength = v.points + v.decl + 20 * v.belas
        cells[kind] = hand_cell(np.uint32(h), trump_masks[kind], kind_group(kind), position,
                                strength)


@nb.njit(cache=True, inline="always")
def _col(level, capot, lvl0, n_levels):
    if capot:
        return n_levels
    j = level - lvl0
    if j < 0:
        j = 0
    if j > n_levels - 1:
        j = n_levels - 1
    return j


@nb.njit(cache=True)
def policy_code(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, shift, kinds,
                lvl0, n_levels):
    """The call (code) the threshold policy makes, with every threshold moved by
    ``shift``: :class:`~bazarsim.matches.bidding.PolicyBidder` in Numba. ``make[kind, j]``
    and ``opp[kind, j]``: the caller's bidder and defender estimates; row ``i`` of the
    contexts (``ctx_ints[i]``: ours, contra, last_kind, last_j, pass_ok, contra_ok,
    recontra_ok, jump)."""
    ours = ctx_ints[i, 0]
    contra = ctx_ints[i, 1]
    last_kind = ctx_ints[i, 2]
    if last_kind >= 0:
        j = ctx_ints[i, 3]
        if ours == 1 and contra == 1:
            if make[last_kind, j] >= thr[i, T_RECONTRA] + shift and ctx_ints[i, 6] == 1:
                return C_RECONTRA
        elif (ours == 0 and contra == 0 and 1.0 - opp[last_kind, j] >= thr[i, T_CONTRA] + shift
              and ctx_ints[i, 5] == 1):
            return C_CONTRA
    if ours == 1 or contra > 0:
        return C_PASS
    best_rank = -1.0
    best = -1
    top_level = lvl0 + n_levels - 1
    for kind in kinds:
        nc = ctx_need[i, kind]
        if nc < 0:
            continue
        need = _need(thr, i, nc, shift)
        low = ctx_low[i, kind]
        cap = ctx_cap[i, kind]
        rank = -1.0
        code = -1
        if (cap >= 0 and make[kind, n_levels] >= thr[i, T_CAPOT] + shift
                and make[kind, _col(cap, False, lvl0, n_levels)] >= need):
            rank = 10_000.0
            code = bid_code(kind, 1, cap)
        elif low >= 0:
            j = _col(low, False, lvl0, n_levels)
            if make[kind, j] >= need:
                top = low
                if low > 0:
                    while top + 1 <= top_level and make[kind, _col(top + 1, False, lvl0,
                                                                   n_levels)] >= need:
                        top += 1
                level = top if ctx_ints[i, 7] == 1 else low
                rank = top + make[kind, j] / 2
                code = bid_code(kind, 0, level)
        if code >= 0 and rank > best_rank:
            best_rank = rank
            best = code
    if best >= 0:
        return best
    if ctx_ints[i, 4] == 0:  # the dealer must name a game: the likeliest lowest bid
        best_p = -1.0
        for kind in kinds:
            low = ctx_low[i, kind]
            if low >= 0:
                p = make[kind, _col(low, False, lvl0, n_levels)]
                if p > best_p:
                    best_p = p
                    best = bid_code(kind, 0, low)
        return best
    return C_PASS


@nb.njit(cache=True)
def _breakpoints(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, shift, kinds,
                 lvl0, n_levels, out):
    """Every ``estimate - (threshold + shift)`` a policy call can compare: the moves of
    the thresholds at which its call may change. Returns how many were written."""
    m = 0
    last_kind = ctx_ints[i, 2]
    if last_kind >= 0:
        j = ctx_ints[i, 3]
        out[m] = make[last_kind, j] - thr[i, T_RECONTRA] - shift
        out[m + 1] = 1.0 - opp[last_kind, j] - thr[i, T_CONTRA] - shift
        m += 2
    if ctx_ints[i, 0] == 1 or ctx_ints[i, 1] > 0:
        return m
    for kind in kinds:
        nc = ctx_need[i, kind]
        if nc < 0:
            continue
        need = _need(thr, i, nc, shift)
        cap = ctx_cap[i, kind]
        low = ctx_low[i, kind]
        if cap >= 0:
            out[m] = make[kind, n_levels] - thr[i, T_CAPOT] - shift
            out[m + 1] = make[kind, _col(cap, False, lvl0, n_levels)] - need
            m += 2
        if low >= 0:  # the levels the policy compares: from the lowest legal one up
            for j in range(_col(low, False, lvl0, n_levels), n_levels):
                out[m] = make[kind, j] - need
                m += 1
    return m


@nb.njit(cache=True)
def call_margin(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, shift, kinds, lvl0,
                n_levels):
    """How far every threshold can move together (up or down) before the policy's call
    may change: the smallest ``|estimate - threshold|`` among the comparisons it makes
    (``inf`` when it makes none: its call does not depend on the hand)."""
    scratch = np.empty(8 + N_KINDS * (n_levels + 2) + 4)
    m = _breakpoints(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, shift, kinds,
                     lvl0, n_levels, scratch)
    best = np.inf
    for t in range(m):
        best = min(best, abs(scratch[t]))
    return best


@nb.njit(cache=True)
def _logistic(x, scale):
    return 1.0 / (1.0 + np.exp(-x / scale))


@nb.njit(cache=True, inline="always")
def _below(b, softness, tail):
    """The logistic mass of the moves ``e <= b`` (moves beyond +-tail at the edges, as
    the interval sum of :func:`soft_probability` counts them)."""
    if b >= tail:
        return 1.0
    if b <= -tail:
        return 0.0
    return _logistic(b, softness)


@nb.njit(cache=True, inline="always")
def _need(thr, i, nc, shift):
    """The threshold a bid of a kind must reach: open, support or overcall (``nc``)."""
    return thr[i, T_OPEN if nc == 0 else T_SUPPORT if nc == 1 else T_OVERCALL] + shift


@nb.njit(cache=True)
def _qualifies(make, i, ctx_low, ctx_cap, ctx_need, thr, shift, lvl0, n_levels, kind):
    """The move up to which ``kind`` qualifies for a bid: its lowest legal level reaches
    the need, or both capot tests hold (-inf: the kind cannot be bid)."""
    nc = ctx_need[i, kind]
    if nc < 0:
        return -np.inf
    need = _need(thr, i, nc, shift)
    b = -np.inf
    cap = ctx_cap[i, kind]
    low = ctx_low[i, kind]
    if cap >= 0:
        b = min(make[kind, n_levels] - thr[i, T_CAPOT] - shift,
                make[kind, _col(cap, False, lvl0, n_levels)] - need)
    if low >= 0:
        b = max(b, make[kind, _col(low, False, lvl0, n_levels)] - need)
    return b


@nb.njit(cache=True)
def _pass_or_double(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, shift, softness,
                    tail, kinds, lvl0, n_levels):
    """P_soft of a pass, contra or recontra, in closed form: a contra (recontra) is made
    for every move up to its comparison's breakpoint; a pass for every move above the
    highest breakpoint at which anything else is made (the double, or some kind's bid:
    its lowest legal level, or its capot bid where both capot tests hold)."""
    observed = ctx_ints[i, 8]
    ours = ctx_ints[i, 0]
    contra = ctx_ints[i, 1]
    last_kind = ctx_ints[i, 2]
    fire = -np.inf  # moves up to this make a call other than pass
    if last_kind >= 0:
        j = ctx_ints[i, 3]
        if ours == 1 and contra == 1:
            if ctx_ints[i, 6] == 1:
                b = make[last_kind, j] - thr[i, T_RECONTRA] - shift
                if observed == C_RECONTRA:
                    return _below(b, softness, tail)
                fire = b
        elif ours == 0 and contra == 0 and ctx_ints[i, 5] == 1:
            b = 1.0 - opp[last_kind, j] - thr[i, T_CONTRA] - shift
            if observed == C_CONTRA:
                return _below(b, softness, tail)
            fire = b
    if observed != C_PASS:
        return 0.0  # a contra or recontra the policy never makes here
    if ours == 0 and contra == 0:
        for kind in kinds:
            fire = max(fire, _qualifies(make, i, ctx_low, ctx_cap, ctx_need, thr, shift, lvl0,
                                        n_levels, kind))
        if ctx_ints[i, 4] == 0:
            return 0.0  # the dealer may not pass
    return 1.0 - _below(fire, softness, tail)


@nb.njit(cache=True)
def soft_probability(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, shift, softness,
                     kinds, lvl0, n_levels, scratch):
    """P_soft(the call of context row ``i``): the logistic mass of the threshold moves
    under which the policy makes it (see the module docstring)."""
    observed = ctx_ints[i, 8]
    if softness <= 0.0:
        c = policy_code(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, shift, kinds,
                        lvl0, n_levels)
        return 1.0 if c == observed else 0.0
    tail = TAIL * softness
    if observed <= C_RECONTRA:  # pass, contra, recontra: one threshold move decides
        return _pass_or_double(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr,
                               shift, softness, tail, kinds, lvl0, n_levels)
    # a bid: made only for moves where no double is made and its kind's bid qualifies
    lo, hi = _bid_window(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, shift,
                         lvl0, n_levels, (observed - 3) // 128)
    lo = max(lo, -tail)
    hi = min(hi, tail)
    if hi <= lo:
        return 0.0
    m = _breakpoints(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, shift, kinds,
                     lvl0, n_levels, scratch)
    k = 0
    for t in range(m):  # only the moves inside the window can change the call
        if lo < scratch[t] < hi:
            scratch[k] = scratch[t]
            k += 1
    for t in range(1, k):  # sorted in place: few points, and no allocation per call
        x = scratch[t]
        u = t - 1
        while u >= 0 and scratch[u] > x:
            scratch[u + 1] = scratch[u]
            u -= 1
        scratch[u + 1] = x
    total = _bid_mass(make, i, ctx_low, ctx_cap, ctx_need, thr, shift, softness, kinds,
                      lvl0, n_levels, ctx_ints[i, 7] == 1, ctx_ints[i, 4] == 0, scratch, k, lo,
                      hi, observed)
    # the tails beyond +-TAIL softness take the call at their edge
    if lo == -tail and policy_code(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr,
                                   shift - tail, kinds, lvl0, n_levels) == observed:
        total += _logistic(-tail, softness)
    if hi == tail and policy_code(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr,
                                  shift + tail, kinds, lvl0, n_levels) == observed:
        total += 1.0 - _logistic(tail, softness)
    return total


@nb.njit(cache=True)
def _bid_mass(make, i, ctx_low, ctx_cap, ctx_need, thr, shift, softness, kinds, lvl0,
              n_levels, jump, forced, pts, k, lo, hi, observed):
    """The logistic mass of the moves in ``(lo, hi)`` (a bid's window: no double is made
    there) for which the policy's call is the bid ``observed``, the moves cut at the sorted
    breakpoints ``pts[:k]``: :func:`policy_code`'s bids swept over the moves. Between two
    breakpoints the call is one; as the move grows a kind's highest supported level can
    only fall (a comparison ``estimate >= threshold + move`` holds up to its breakpoint),
    so it is followed by a pointer per kind into the running minima of its levels'
    margins, instead of a scan of the levels in every interval."""
    top_level = lvl0 + n_levels - 1
    active = np.zeros(N_KINDS, np.bool_)
    capb = np.full(N_KINDS, -np.inf)  # the capot bid is made for moves up to this
    qual = np.full(N_KINDS, -np.inf)  # the lowest legal level qualifies up to this
    base = np.zeros(N_KINDS)  # the rank's tie-break: P(make) of the lowest legal level
    run_min = np.empty((N_KINDS, n_levels + 1))  # running minima of the margins above low
    ptr = np.zeros(N_KINDS, np.int64)  # levels above low still supported
    forced_code = -1
    best_p = -1.0
    for kind in kinds:
        low = ctx_low[i, kind]
        if forced and low >= 0:  # the dealer's bid when no kind qualifies
            p = make[kind, _col(low, False, lvl0, n_levels)]
            if p > best_p:
                best_p = p
                forced_code = bid_code(kind, 0, low)
        nc = ctx_need[i, kind]
        if nc < 0:
            continue
        active[kind] = True
        need = _need(thr, i, nc, shift)
        cap = ctx_cap[i, kind]
        if cap >= 0:
            capb[kind] = min(make[kind, n_levels] - thr[i, T_CAPOT] - shift,
                             make[kind, _col(cap, False, lvl0, n_levels)] - need)
        if low >= 0:
            qual[kind] = make[kind, _col(low, False, lvl0, n_levels)] - need
            base[kind] = make[kind, _col(low, False, lvl0, n_levels)]
            if low > 0:
                m = np.inf
                t = 0
                for level in range(low + 1, top_level + 1):
                    m = min(m, make[kind, _col(level, False, lvl0, n_levels)] - need)
                    run_min[kind, t] = m
                    t += 1
                ptr[kind] = t
    total = 0.0
    a = lo
    f_a = _logistic(a, softness)
    for t in range(k + 1):
        b = pts[t] if t < k else hi
        if b > a:
            e = 0.5 * (a + b)
            best = -1
            best_rank = -1.0
            for kind in kinds:
                if not active[kind]:
                    continue
                if capb[kind] >= e:
                    rank = 10_000.0
                    code = bid_code(kind, 1, ctx_cap[i, kind])
                elif qual[kind] >= e:
                    while ptr[kind] > 0 and run_min[kind, ptr[kind] - 1] < e:
                        ptr[kind] -= 1
                    top = ctx_low[i, kind] + ptr[kind]
                    rank = top + base[kind] / 2
                    code = bid_code(kind, 0, top if jump else ctx_low[i, kind])
                else:
                    continue
                if rank > best_rank:
                    best_rank = rank
                    best = code
            if best < 0:
                best = forced_code
            f_b = _logistic(b, softness)
            if best == observed:
                total += f_b - f_a
            f_a = f_b
            a = b
    return total


@nb.njit(cache=True)
def _bid_window(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, shift, lvl0,
                n_levels, kind):
    """The moves ``(lo, hi]`` where a bid of ``kind`` can be the policy's call: above the
    double's breakpoint (no contra or recontra made), up to the kind's qualifying one."""
    lo = -np.inf
    ours = ctx_ints[i, 0]
    contra = ctx_ints[i, 1]
    last_kind = ctx_ints[i, 2]
    if ours == 1 or contra > 0 or kind < 0 or kind >= ctx_need.shape[1]:
        return 0.0, -1.0  # no bids: partner's or my bid stands, or after a contra
    if last_kind >= 0 and ctx_ints[i, 5] == 1:
        lo = 1.0 - opp[last_kind, ctx_ints[i, 3]] - thr[i, T_CONTRA] - shift
    hi = _qualifies(make, i, ctx_low, ctx_cap, ctx_need, thr, shift, lvl0, n_levels, kind)
    if ctx_ints[i, 4] == 0:
        hi = np.inf  # the dealer must bid: a forced bid of any kind, at any move
    return lo, hi


@nb.njit(cache=True)
def hand_likelihood(h, rows, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, ctx_f, rates, T,
                    trump_masks, kinds, lvl0, n_levels, cells, make, opp, scratch):
    """The product of P(call) over context rows ``rows`` (one seat's calls) for its whole
    hand ``h``. ``ctx_f[i]``: shift, softness, floor, n_legal."""
    if rows.shape[0] == 0:
        return 1.0
    seat_cells(h, ctx_ints[rows[0], 9], T, trump_masks, kinds, cells)
    for kind in kinds:
        for j in range(n_levels + 1):
            make[kind, j] = rates[0, cells[kind], j]
            opp[kind, j] = rates[1, cells[kind], j]
    out = 1.0
    for r in range(rows.shape[0]):
        i = rows[r]
        p = soft_probability(make, opp, i, ctx_ints, ctx_low, ctx_cap, ctx_need, thr,
                             ctx_f[i, 0], ctx_f[i, 1], kinds, lvl0, n_levels, scratch)
        out *= (1.0 - ctx_f[i, 2]) * p + ctx_f[i, 2] / ctx_f[i, 3]
    return out


@nb.njit(cache=True)
def hands_likelihood(hands, rows, ctx_ints, ctx_low, ctx_cap, ctx_need, thr, ctx_f, rates, T,
                     trump_masks, kinds, lvl0, n_levels, out):
    """:func:`hand_likelihood` of every hand of ``hands`` (one seat's calls)."""
    cells = np.zeros(N_KINDS, np.int64)
    make = np.zeros((N_KINDS, n_levels + 1))
    opp = np.zeros((N_KINDS, n_levels + 1))
    scratch = np.zeros(8 + N_KINDS * (n_levels + 2) + 4)
    for w in range(hands.shape[0]):
        out[w] = hand_likelihood(hands[w], rows, ctx_ints, ctx_low, ctx_cap, ctx_need, thr,
                                 ctx_f, rates, T, trump_masks, kinds, lvl0, n_levels, cells,
                                 make, opp, scratch)


# --------------------------------------------------------------------------- Python side


def pack_contexts(c: CallContexts) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' ``ctx_ints`` (ours, contra, last_kind, last_j, pass/contra/recontra
    legal, jump, code, position) and ``ctx_f`` (shift, softness, floor, n_legal)."""
    ints = np.zeros((c.n, 10), np.int64)
    floats = np.zeros((c.n, 4))
    if c.n:
        ints[:, 0] = c.ours
        ints[:, 1] = c.contra
        ints[:, 2] = c.last_kind
        ints[:, 3] = c.last_j
        ints[:, 4:7] = c.ok
        ints[:, 7] = c.jump
        ints[:, 8] = c.code
        ints[:, 9] = c.position
        floats[:, 0] = c.shift
        floats[:, 1] = c.softness
        floats[:, 2] = c.floor
        floats[:, 3] = c.n_legal
    return ints, floats


@dataclass
class CallModel:
    """The listener's model of the other players: the auction's call contexts, the hand
    model and the compiled rules, as the kernels take them."""

    ruleset: Ruleset
    contexts: CallContexts
    model: HandModel
    policies: dict[int, Policy]

    def __post_init__(self):
        rs = self.ruleset
        levels = bid_levels(rs)
        self.lvl0, self.n_levels = levels[0], len(levels)
        self.ints, self.floats = pack_contexts(self.contexts)
        self.T = compiled_rules(rs)
        self.kinds = np.array(rs.kinds, np.int64)
        self.trump_masks = kind_trump_masks(self.T)

    def rows(self, seat: int) -> np.ndarray:
        return self.contexts.rows_of(seat).astype(np.int64)

    def likelihood(self, seat: int, hands) -> np.ndarray:
        """Product of P(call) over ``seat``'s calls, for each of ``hands`` (its whole hands
        at bid time, uint32 masks)."""
        hands = np.ascontiguousarray(hands, np.int64).reshape(-1)
        out = np.empty(len(hands))
        c = self.contexts
        hands_likelihood(hands, self.rows(seat), self.ints, c.low, c.cap_low, c.need,
                         c.thresholds, self.floats, self.model.rates, self.T,
                         self.trump_masks, self.kinds, self.lvl0, self.n_levels, out)
        return out

    def likelihood_rows(self, hand: int, rows) -> float:
        """Product of P(call) over the context rows ``rows`` for one whole hand."""
        out = np.empty(1)
        c = self.contexts
        hands_likelihood(np.array([hand], np.int64), np.asarray(rows, np.int64), self.ints,
                         c.low, c.cap_low, c.need, c.thresholds, self.floats,
                         self.model.rates, self.T, self.trump_masks, self.kinds, self.lvl0,
                         self.n_levels, out)
        return float(out[0])

    def soft_of_row(self, row: int, hands) -> np.ndarray:
        """P_soft of one context row's call (the floor left out) for each of ``hands``."""
        floats = self.floats.copy()
        floats[row, 2] = 0.0
        hands = np.ascontiguousarray(hands, np.int64).reshape(-1)
        out = np.empty(len(hands))
        c = self.contexts
        hands_likelihood(hands, np.array([row], np.int64), self.ints, c.low, c.cap_low,
                         c.need, c.thresholds, floats, self.model.rates, self.T,
                         self.trump_masks, self.kinds, self.lvl0, self.n_levels, out)
        return out

    def describe(self) -> list[str]:
        return [f"{SEATS[s]} {call}" for s, call in self.contexts.calls]
