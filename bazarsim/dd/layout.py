"""The search layout: each suit's cards renumbered by strength, and the card helpers
that layout makes cheap.

The search renumbers the cards of each suit by strength under the contract
(:func:`to_layout`: card ``8 s + k`` is the ``k``-th weakest of suit ``s``), so that
"stronger than", "the strongest of a suit" and "the next live card" are shifts and bit
scans. This room owns that renumbering and the small helpers every other room builds on:
the points of a mask, the cards above or below a card, the strongest card of a suit, a
hand by its place from the leader, and every point still to be shared
(:func:`points_left`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import highest_bit, lowest_bit, popcount32
from bazarsim.dd.context import S_MONO
from bazarsim.rules.play import R_LAST_BONUS, R_TRICK_BONUS


@nb.njit(cache=True, _nrt=False, forceinline=True)
def mask_points(mask, pts):
    """Sum of the points of the cards in ``mask``."""
    total = 0
    m = mask
    while m != 0:
        c = lowest_bit(m)
        total += pts[c]
        m &= m - 1
    return total


@nb.njit(cache=True, _nrt=False, forceinline=True)
def stronger_than(c):
    """Mask of the cards of ``c``'s suit stronger than ``c`` (search layout)."""
    return (np.int64(0xFF) >> ((c & 7) + 1)) << (c + 1)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def weaker_than(c):
    """Mask of the cards of ``c``'s suit weaker than ``c`` (search layout)."""
    return ((np.int64(1) << (c & 7)) - 1) << (c & ~7)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def strongest(mask, su):
    """The strongest card of suit ``su`` in ``mask``, or -1 (search layout: highest bit)."""
    b = (mask >> (8 * su)) & 0xFF
    if b == 0:
        return -1
    return 8 * su + (highest_bit(b) & 7)  # & 7: an index mask, see alphabeta


@nb.njit(cache=True, forceinline=True)
def pick(j, r0, r1, r2, r3):
    """The ``j``-th of ``r0 .. r3`` (a hand by its place from the leader, ``j`` 0 to 3)."""
    if j == 0:
        return r0
    if j == 1:
        return r1
    if j == 2:
        return r2
    return r3


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _layout_mask(mask, stren):
    """A card mask of the natural layout in the search layout."""
    out = np.int64(0)
    m = np.int64(mask)
    while m != 0:
        c = lowest_bit(m)
        m &= m - 1
        out |= np.int64(1) << ((c & ~7) | stren[c])
    return out


@nb.njit(cache=True)
def to_layout(hands, trick_cards, n, pts, stren, ctx):
    """Copy a position into the search buffers, in the search layout; return the hands.

    The search renumbers the cards of each suit by strength under the contract (card
    ``8 s + k`` is the ``k``-th weakest of suit ``s``), so that "stronger than", "the
    strongest of a suit" and "the next live card" are shifts and bit scans. The
    contract's points, strengths, suit orders and masks of stronger cards in that layout
    go to ``ctx.lay_*`` (the fields of :class:`~bazarsim.rules.play.ContractPlay`). Values
    are N-S points, so nothing maps back.
    """
    tricks = ctx.tricks
    lay_pts, lay_stren, lay_order, lay_above = (
        ctx.lay_points, ctx.lay_strength, ctx.lay_order, ctx.lay_above
    )
    for c in range(32):
        i = (c & ~7) | stren[c]
        lay_pts[i] = pts[c]
        lay_stren[i] = i & 7
    bp = ctx.byte_points
    mono = 1
    for su in range(4):
        for b in range(1, 256):
            bp[256 * su + b] = bp[256 * su + (b & (b - 1))] + lay_pts[8 * su + lowest_bit(b)]
        for k in range(7):
            if lay_pts[8 * su + k] > lay_pts[8 * su + k + 1]:
                mono = 0
    ctx.stats[S_MONO] = mono
    for su in range(4):
        for j in range(8):
            lay_order[su, j] = 8 * su + 7 - j  # strongest first
        for k in range(-1, 8):
            lay_above[su, k + 1] = ((np.int64(0xFF) << (k + 1)) & 0xFF) << (8 * su)
    work = np.zeros(4, np.int64)
    for i in range(4):
        work[i] = _layout_mask(hands[i], stren)
    for i in range(n):
        c = trick_cards[i]
        tricks[i] = (c & ~7) | stren[c]
    return work


@nb.njit(cache=True)
def points_left(work, leader, n, pts, rules, ctx):
    """All the points still to be shared: cards in hands and trick, and the bonuses.

    Hands, trick cards (``ctx.tricks[:n]``) and ``pts`` in one layout, either of them.
    """
    tricks = ctx.tricks
    total = mask_points(work[0] | work[1] | work[2] | work[3], pts)
    for i in range(n):
        total += pts[tricks[i]]
    left = popcount32(work[(leader + n) & 3])
    return total + left * rules[R_TRICK_BONUS] + rules[R_LAST_BONUS]
