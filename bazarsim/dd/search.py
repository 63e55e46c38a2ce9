"""Double-dummy search: the drivers of the exact value and of threshold questions,
and the search's public names.

The value of a node is what North-South take from the start of the current trick to the
end of the deal (card points of the tricks they win, plus the per-trick and last-trick
bonuses of the contract's :class:`~bazarsim.rules.play.ContractPlay`). North and South
maximise it, East and West minimise it. The exact value is one full-window search
(``M_AUTO``; bisection and MTD(f) over null-window probes are there to compare), a
threshold question one null-window probe (:func:`reaches`). This module holds those
drivers, the table's generations (:func:`new_search`) and the one-call entry points of
the Python API (:func:`solve_deal`, :func:`reach_deal`).

The search itself lives in rooms of :mod:`bazarsim.dd`, one technique each, as the
double-dummy bridge solver DDS keeps its alpha-beta search, moves, quick tricks, later
tricks and transposition table apart:

* ``context``: the option bits (the list of enhancements is there), the ``stats`` slots,
  the stack's frame fields and the :class:`SearchContext`;
* ``layout``: the search layout (cards renumbered by strength) and its card helpers;
* ``alphabeta``: the search kernel, one iterative function over an explicit stack;
* ``moves``: move generation and ordering;
* ``quick``: sure and quick tricks, the cheap cuts at a trick boundary;
* ``endgames``: the last two and three tricks in nested loops;
* ``table``: the transposition table;
* ``hints``: the best-move hints;
* ``rootlook``: the root's one-trick look-ahead.

The names callers use (the option bits, ``stats`` slots, :func:`new_context`,
:func:`to_layout`...) are importable from here as before the split; the figures of each
enhancement are in ``reports/solver-notes.md``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.dd.alphabeta import alphabeta
from bazarsim.dd.context import (
    DEFAULT_TT_BITS,
    GEN_LIMIT,
    M_AUTO,
    M_BISECT,
    M_FULL,
    M_MTDF,
    METHOD_NAMES,
    N_STATS,
    O_ALL,
    O_BOUNDS,
    O_DOMINANCE,
    O_ENDCACHE,
    O_ENDGAME,
    O_ENDGAME3,
    O_EQUIV,
    O_HINTS,
    O_LAZY,
    O_LEADTOP,
    O_ORDER,
    O_PVS,
    O_QUICK,
    O_ROOTLOOK,
    O_SHAPE,
    O_SPAREMASTER,
    O_SURE,
    O_SUREHOLD,
    O_TT,
    OPTION_NAMES,
    S_GEN,
    S_KNOWN,
    S_MASK,
    S_MONO,
    S_NODES,
    S_OPTS,
    S_OWN0,
    S_OWN1,
    S_OWNGEN,
    S_ROOT,
    ZERO,
    SearchContext,
    new_context,
)
from bazarsim.dd.endgames import three_tricks, two_tricks
from bazarsim.dd.layout import mask_points, points_left, to_layout
from bazarsim.dd.rootlook import (
    ROOTLOOK_MIN_CARDS,
    guess_points_left,
    lead_value,
    root_lookahead,
    seed_root_lead,
)


@nb.njit(cache=True)
def new_search(ctx):
    """Start a new generation of the table (old entries become invisible)."""
    stats = ctx.stats
    stats[S_GEN] += 1
    if stats[S_GEN] >= GEN_LIMIT:
        # once in 2^29 searches: start the generations again on empty tables
        stats[S_GEN] = 1
        ctx.tt_tag[:] = 0
        ctx.e2_key[:] = 0
    stats[S_ROOT] = -1


@nb.njit(cache=True)
def _bind_owners(work, ctx):
    """Tie this generation to one deal: every card keeps one holder in its positions.

    The endgame cache keys a position on its live cards alone, which is only sound if no
    card changes hands between the positions of one generation. Positions reached from
    one deal never do; a search root whose cards are held by other hands than the
    generation's earlier roots held them starts a new generation (:func:`new_search`).
    """
    stats = ctx.stats
    live = work[0] | work[1] | work[2] | work[3]
    own0 = work[1] | work[3]
    own1 = work[2] | work[3]
    if stats[S_OWNGEN] == stats[S_GEN]:
        if (
            live & ~stats[S_KNOWN] == 0
            and (own0 ^ stats[S_OWN0]) & live == 0
            and (own1 ^ stats[S_OWN1]) & live == 0
        ):
            return
        new_search(ctx)
    stats[S_OWNGEN] = stats[S_GEN]
    stats[S_KNOWN] = live
    stats[S_OWN0] = own0
    stats[S_OWN1] = own1


@nb.njit(cache=True)
def exact_value(hands, leader, trick_cards, n, play, ctx, method, guess):
    """Exact N-S points of a position (trick ``trick_cards[:n]`` in progress).

    ``method``: MTD(f) from ``guess`` (-1: half of the points left), bisection, one
    full-window search, or ``M_AUTO`` (the full window). Uses the current table
    generation (call :func:`new_search` first when the contract or the scoring mode
    changed). Hands, cards and the contract's ContractPlay are in the natural layout of
    :mod:`bazarsim.core.cards` (its ``order`` and ``above`` are not used: the search makes
    its own in its layout, see :func:`to_layout`).
    """
    rules = play.rules
    work = to_layout(hands, trick_cards, n, play.points, play.strength, ctx)
    _bind_owners(work, ctx)
    lp, ls, lo, la = ctx.lay_points, ctx.lay_strength, ctx.lay_order, ctx.lay_above
    upper = points_left(work, leader, n, lp, rules, ctx)
    seed_root_lead(work, leader, n, lp, ls, la, rules, ctx)
    v = _exact(work, leader, n, upper, lp, ls, lo, la, rules, ctx, method, guess)
    ctx.stats[S_ROOT] = -1
    return v


@nb.njit(cache=True)
def solve_deal(hands, leader, play, ctx, method):
    """Exact N-S points of a position at a trick boundary in a new table generation, and
    every point left: :func:`new_search`, :func:`exact_value` and the total in one call
    (the Python API's ``solve``; each call from Python costs a few microseconds)."""
    new_search(ctx)
    cards = np.zeros(4, np.int64)
    v = exact_value(hands, leader, cards, ZERO, play, ctx, method, ZERO - 1)
    return v, points_left(hands, leader, ZERO, play.points, play.rules, ctx)


@nb.njit(cache=True)
def reach_deal(hands, leader, side, target, play, ctx):
    """Can ``side`` (0: N-S, 1: E-W) take at least ``target`` points from a trick
    boundary? :func:`reaches` in a new table generation, in one call from Python."""
    new_search(ctx)
    cards = np.zeros(4, np.int64)
    if side == 0:
        return reaches(hands, leader, cards, ZERO, target, play, ctx)
    # E-W >= T  <=>  N-S <= total - T  <=>  not N-S >= total - T + 1
    total = points_left(hands, leader, ZERO, play.points, play.rules, ctx)
    return not reaches(hands, leader, cards, ZERO, total - target + 1, play, ctx)


@nb.njit(cache=True)
def _exact(work, leader, n, upper, lp, ls, lo, la, rules, ctx, method, guess):
    """The exact-value drivers of :func:`exact_value` on a position in the search layout."""
    lower = 0
    if method == M_AUTO:
        method = M_FULL
    if method == M_FULL:
        return alphabeta(work, leader, ZERO, n, ZERO - 1, upper + 1, lp, ls, lo, la, rules, ctx)
    if method == M_BISECT:
        while lower < upper:
            mid = (lower + upper + 1) // 2
            g = alphabeta(work, leader, ZERO, n, mid - 1, mid, lp, ls, lo, la, rules, ctx)
            if g >= mid:
                lower = g
            else:
                upper = g
        return lower
    g = guess if guess >= 0 else upper // 2
    if g > upper:
        g = upper
    while lower < upper:
        beta = g if g > lower else lower + 1
        g = alphabeta(work, leader, ZERO, n, beta - 1, beta, lp, ls, lo, la, rules, ctx)
        if g < beta:
            upper = g
        else:
            lower = g
    return lower


@nb.njit(cache=True)
def reaches(hands, leader, trick_cards, n, target, play, ctx):
    """Null-window probe: do N-S take at least ``target`` from this position on?"""
    rules = play.rules
    work = to_layout(hands, trick_cards, n, play.points, play.strength, ctx)
    _bind_owners(work, ctx)
    lp, ls, lo, la = ctx.lay_points, ctx.lay_strength, ctx.lay_order, ctx.lay_above
    if target <= 0:
        return True
    seed_root_lead(work, leader, n, lp, ls, la, rules, ctx)
    g = alphabeta(work, leader, ZERO, n, target - 1, target, lp, ls, lo, la, rules, ctx)
    ctx.stats[S_ROOT] = -1
    return g >= target


__all__ = [
    "DEFAULT_TT_BITS",
    "METHOD_NAMES",
    "M_AUTO",
    "M_BISECT",
    "M_FULL",
    "M_MTDF",
    "N_STATS",
    "OPTION_NAMES",
    "O_ALL",
    "O_BOUNDS",
    "O_DOMINANCE",
    "O_ENDCACHE",
    "O_ENDGAME",
    "O_ENDGAME3",
    "O_EQUIV",
    "O_HINTS",
    "O_LAZY",
    "O_LEADTOP",
    "O_ORDER",
    "O_PVS",
    "O_QUICK",
    "O_ROOTLOOK",
    "O_SHAPE",
    "O_SPAREMASTER",
    "O_SURE",
    "O_SUREHOLD",
    "O_TT",
    "ROOTLOOK_MIN_CARDS",
    "S_GEN",
    "S_KNOWN",
    "S_MASK",
    "S_MONO",
    "S_NODES",
    "S_OPTS",
    "S_OWN0",
    "S_OWN1",
    "S_OWNGEN",
    "S_ROOT",
    "SearchContext",
    "ZERO",
    "alphabeta",
    "exact_value",
    "guess_points_left",
    "lead_value",
    "mask_points",
    "new_context",
    "new_search",
    "points_left",
    "reach_deal",
    "reaches",
    "root_lookahead",
    "solve_deal",
    "three_tricks",
    "to_layout",
    "two_tricks",
]
