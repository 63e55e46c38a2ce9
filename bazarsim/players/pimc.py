"""Perfect-information Monte Carlo (PIMC) decisions, as Numba kernels (whole play-outs are
in :mod:`.playout_kernel`).

A decision samples worlds (:mod:`.worlds`) consistent with what the seat to play knows,
solves every legal card in each world with the double-dummy search (also in the middle
of a trick) and plays the card with the best mean over the same worlds (common random
numbers). Objectives: ``O_POINTS`` (expected card points of the player's side) and
``O_CONTRACT`` (the declaring side maximises P(reaching what it needs), the defenders
minimise it; each world answers one null-window probe per card, cheaper than a value).
Ties go to the cheapest card (fewest points, then weakest, then lowest index).

A ``dd`` player is the same decision on the one true world; a ``random`` player plays a
uniformly random legal card.

Random streams: decision ``number`` (0..31, the card's place in the play) of seat
``seat`` in contract kind ``kind`` of deal ``index`` draws from its own SplitMix64 stream
(:func:`decision_key`), so a play-out is a pure function of the seed, the deal's index and
its cards, whatever thread, chunk, shard or scheduler plays it.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import lowest_bit, popcount32
from bazarsim.dd.search import M_AUTO, exact_value, reaches
from bazarsim.deals.generator import GAMMA, draw_below, mix64
from bazarsim.players.worlds import N_CLASSES, count_worlds, other_seats, view_arrays, world_at
from bazarsim.rules.play import (
    R_LAST_BONUS,
    R_TRICK_BONUS,
    R_TRUMP,
    legal_cards,
    trick_winner,
)

O_POINTS = 0
O_CONTRACT = 1
OBJECTIVES = {"points": O_POINTS, "contract": O_CONTRACT}

# What a play-out lets its players infer (bits; all on by default): voids shown by
# not following suit, trump and led-suit limits shown by not trumping or not going
# higher, bela (announced or not), and the cards of shown declarations.
I_VOIDS = 1
I_LIMITS = 2
I_BELA = 4
I_SHOWN = 8
I_ALL = 15
INFERENCES = {"voids": I_VOIDS, "limits": I_LIMITS, "bela": I_BELA, "shown": I_SHOWN}
N_INFERENCES = 4
B_VOIDS, B_LIMITS, B_BELA, B_SHOWN = 0, 1, 2, 3  # the bit number of each I_*


@nb.njit(cache=True)
def decision_key(run_key, index, kind, number, seat):
    """The key of one decision's stream (see the module docstring)."""
    tag = np.uint64(((kind * 32 + number) * 4 + seat) + 1)
    return mix64(np.uint64(run_key) ^ mix64(np.uint64(index) * GAMMA + tag))


@nb.njit(cache=True)
def draw_index(key, k, total):
    """Uniform integer in ``[0, total)`` from draw ``k`` of ``key``'s stream; (x, next k)."""
    t = np.uint64(total)
    reject = (np.uint64(0) - t) % t
    return draw_below(key, 0, k, t, reject)


@nb.njit(cache=True)
def trick_result(trick, leader, last, play):
    """The seat winning a full ``trick`` led by ``leader``, and the points it takes."""
    rules = play.rules
    w = (leader + trick_winner(trick, 4, rules[R_TRUMP], play.strength)) % 4
    pts = rules[R_TRICK_BONUS]
    for i in range(4):
        pts += play.points[trick[i]]
    if last:
        pts += rules[R_LAST_BONUS]
    return w, pts


@nb.njit(cache=True)
def points_from_trick(gone, play):
    """Every point still to be taken from the start of the current trick (``gone``: the
    cards of the tricks already completed)."""
    t = np.int64(0)
    for c in range(32):
        if (gone >> c) & 1 == 0:
            t += play.points[c]
    tricks_left = (32 - popcount32(gone)) // 4
    return t + play.rules[R_LAST_BONUS] + tricks_left * play.rules[R_TRICK_BONUS]


@nb.njit(cache=True)
def ns_value(hands, leader, trick, n, play, ctx):
    """Exact N-S points from the start of the trick ``trick[:n]`` (``n`` 1..4; a full
    trick is scored and the search goes on from the next)."""
    if n < 4:
        return exact_value(hands, leader, trick, n, play, ctx, M_AUTO, np.int64(-1))
    left = hands[0] | hands[1] | hands[2] | hands[3]
    w, pts = trick_result(trick, leader, left == 0, play)
    ns = pts if w % 2 == 0 else 0
    if left == 0:
        return ns
    empty = np.zeros(4, np.int64)
    return ns + exact_value(hands, w, empty, np.int64(0), play, ctx, M_AUTO, np.int64(-1))


@nb.njit(cache=True)
def ns_reaches(hands, leader, trick, n, target, play, ctx):
    """Do N-S take at least ``target`` points from the start of the trick ``trick[:n]``?"""
    if target <= 0:
        return True
    if n < 4:
        return reaches(hands, leader, trick, n, target, play, ctx)
    left = hands[0] | hands[1] | hands[2] | hands[3]
    w, pts = trick_result(trick, leader, left == 0, play)
    ns = pts if w % 2 == 0 else 0
    if left == 0:
        return ns >= target
    empty = np.zeros(4, np.int64)
    return reaches(hands, w, empty, np.int64(0), target - ns, play, ctx)


@nb.njit(cache=True)
def _cheaper(a, b, play):
    """Is card ``a`` cheaper than ``b`` (the fixed tie rule)?"""
    pa, pb = play.points[a], play.points[b]
    if pa != pb:
        return pa < pb
    sa, sb = play.strength[a], play.strength[b]
    if sa != sb:
        return sa < sb
    return a < b


@nb.njit(cache=True)
def twin_card(c, legal, live, play):
    """A stronger legal card of the same suit that plays exactly like ``c`` (no live card
    between them, the same points), else -1: its value is ``c``'s in every world."""
    s = c >> 3
    best = -1
    best_str = 99
    for d in range(s * 8, s * 8 + 8):
        if (live >> d) & 1 and play.strength[d] > play.strength[c] and play.strength[d] < best_str:
            best = d
            best_str = play.strength[d]
    if best >= 0 and (legal >> best) & 1 and play.points[best] == play.points[c]:
        return best
    return -1


@nb.njit(cache=True)
def decide(me, own, fixed, forbid, counts, gone, leader, trick, n, play, ctx, n_worlds,
           key, objective, decl_side, need, true_hands, values, scratch):
    """Seat ``me``'s card (PIMC, or DD when ``true_hands[0] >= 0``: the one true world).

    ``own``: its cards; ``fixed``/``forbid``/``counts``: per seat, the cards it is known to
    hold, cannot hold, and how many it has; ``gone``: the cards of completed tricks;
    ``trick[:n]`` the current trick, led by ``leader``. ``objective`` ``O_CONTRACT``:
    side ``decl_side`` needs ``need`` more points from the start of this trick.
    Fills ``values[c]`` for each legal card (mean N-S points from the trick's start, or
    P(the declaring side makes)); NaN elsewhere. Returns (card, worlds used; -1 when no
    world fits the view, 0 for a forced card).
    """
    values[:] = np.nan
    legal = legal_cards(own, trick, n, play.strength, play.above, play.rules)
    if popcount32(legal) == 1:
        return lowest_bit(legal), np.int64(0)
    if true_hands[0] >= 0:
        worlds = true_hands.reshape(1, 4)
    else:
        worlds = decision_worlds(me, own, fixed, forbid, counts, gone, trick, n, n_worlds, key,
                                 scratch)
        if worlds.shape[0] == 0:
            return np.int64(-1), np.int64(-1)
    k = worlds.shape[0]
    card = decide_worlds(me, own, worlds, np.ones(k), gone, leader, trick, n, play, ctx,
                         objective, decl_side, need, values)
    return card, np.int64(k)


@nb.njit(cache=True)
def decision_worlds(me, own, fixed, forbid, counts, gone, trick, n, n_worlds, key, scratch):
    """The worlds of a decision, ``[k, 4]`` (each the four hands left; k = 0 when none fits
    the view): all of them in a fixed order when at most ``n_worlds`` fit, else
    ``n_worlds`` drawn uniformly (with replacement) from the decision's stream ``key``.
    ``gone``: the cards of completed tricks, ``trick[:n]`` the current one."""
    seats = other_seats(me)
    classes, sizes, table = scratch
    free, allowed, need_s = view_arrays(me, own, fixed, forbid, counts, gone | _mask(trick, n))
    total = count_worlds(free, allowed, need_s, seats, BINOM_NB, classes, sizes, table)
    worlds = total if total <= n_worlds else n_worlds
    out = np.zeros((worlds, 4), np.int64)
    k = np.int64(0)
    for w in range(worlds):
        r = np.int64(w)
        if total > n_worlds:
            r, k = draw_index(key, k, total)
        for s in range(4):
            out[w, s] = fixed[s]
        out[w, me] = own
        world_at(r, need_s, seats, BINOM_NB, classes, sizes, table, out[w])
    return out


@nb.njit(cache=True)
def trick_copy(trick, n):
    """The trick's first ``n`` cards in a fresh array with room for one more."""
    tr = np.zeros(4, np.int64)
    for i in range(n):
        tr[i] = trick[i]
    return tr


@nb.njit(cache=True)
def add_world(me, legal, hands, weight, gone, left_total, leader, tr, n, play, ctx,
               objective, decl_side, need, sums):
    """Add ``weight`` times each legal card's value in one world to ``sums`` (a card
    that plays like a stronger twin is left for :func:`choose_card`); ``left_total``: the
    points still to take from the trick's start (:func:`points_from_trick`); ``tr``: the
    trick so far, its slot ``n`` free for the card tried."""
    live = np.int64(0xFFFFFFFF) & ~gone  # cards not in a completed trick
    rest = legal
    while rest != 0:
        c = lowest_bit(rest)
        rest &= rest - 1
        if twin_card(c, legal, live, play) >= 0:
            continue
        hands[me] ^= np.int64(1) << c
        tr[n] = c
        if objective == 0:
            v = ns_value(hands, leader, tr, n + 1, play, ctx)
        elif decl_side == 0:
            v = np.int64(ns_reaches(hands, leader, tr, n + 1, need, play, ctx))
        else:
            v = np.int64(not ns_reaches(hands, leader, tr, n + 1, left_total - need + 1,
                                        play, ctx))
        hands[me] ^= np.int64(1) << c
        sums[c] += weight * v


@nb.njit(cache=True)
def choose_card(me, legal, sums, total, gone, play, objective, decl_side, values):
    """The card with the best summed value (ties: the cheapest); ``values[c]`` the means
    (``sums / total``)."""
    live = np.int64(0xFFFFFFFF) & ~gone
    # twins take the value of the stronger card they play like
    for c in range(31, -1, -1):
        if (legal >> c) & 1:
            t = twin_card(c, legal, live, play)
            if t >= 0:
                sums[c] = sums[t]
    maximise = (me % 2 == 0) if objective == 0 else (me % 2 == decl_side)
    best = np.int64(-1)
    rest = legal
    while rest != 0:
        c = lowest_bit(rest)
        rest &= rest - 1
        values[c] = sums[c] / total
        if best < 0:
            best = c
            continue
        better = sums[c] > sums[best] if maximise else sums[c] < sums[best]
        if better or (sums[c] == sums[best] and _cheaper(c, best, play)):
            best = c
    return best


@nb.njit(cache=True)
def world_sums(me, legal, worlds, weights, gone, leader, trick, n, play, ctx, objective,
               decl_side, need, sums):
    """Add each legal card's value in every world of positive weight, times the weight, to
    ``sums`` (:func:`add_world`); returns the weights' total."""
    hands = np.zeros(4, np.int64)
    left_total = points_from_trick(gone, play)
    tr = trick_copy(trick, n)
    total = 0.0
    for w in range(worlds.shape[0]):
        if weights[w] <= 0.0:
            continue
        for s in range(4):
            hands[s] = worlds[w, s]
        add_world(me, legal, hands, weights[w], gone, left_total, leader, tr, n, play, ctx,
                  objective, decl_side, need, sums)
        total += weights[w]
    return total


@nb.njit(cache=True)
def decide_worlds(me, own, worlds, weights, gone, leader, trick, n, play, ctx, objective,
                  decl_side, need, values):
    """Seat ``me``'s card over given worlds (``worlds[k]``: the four hands left, each
    with its ``weights[k]``): the weighted mean of each legal card's value, best chosen as
    :func:`decide` does. Returns the card (-1 with no world)."""
    values[:] = np.nan
    legal = legal_cards(own, trick, n, play.strength, play.above, play.rules)
    if popcount32(legal) == 1:
        return lowest_bit(legal)
    sums = np.zeros(32, np.float64)
    total = world_sums(me, legal, worlds, weights, gone, leader, trick, n, play, ctx,
                       objective, decl_side, need, sums)
    if total <= 0.0:
        return np.int64(-1)
    return choose_card(me, legal, sums, total, gone, play, objective, decl_side, values)


@nb.njit(cache=True)
def _mask(trick, n):
    m = np.int64(0)
    for i in range(n):
        m |= np.int64(1) << trick[i]
    return m


def _binom_nb() -> np.ndarray:
    from bazarsim.players.worlds import BINOM

    return BINOM


BINOM_NB = _binom_nb()


@nb.njit(cache=True)
def new_scratch():
    return (np.zeros(N_CLASSES, np.int64), np.zeros(N_CLASSES, np.int64),
            np.zeros((N_CLASSES + 1, 9, 9), np.int64))
