"""The root's look-ahead (``O_ROOTLOOK``): which lead the root tries first.

At a trick-boundary root with at least :data:`ROOTLOOK_MIN_CARDS` cards a hand, every
lead is valued by a one-trick look-ahead (:func:`lead_value`): the trick's other three
cards by plain minimax, each position after it by a guess (:func:`guess_points_left`)
between the sure floor and ceiling of :mod:`bazarsim.dd.quick`. The best lead goes first
(:func:`seed_root_lead`). It only orders: values never depend on it.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import lowest_bit, popcount32
from bazarsim.dd.context import O_ROOTLOOK, S_OPTS, S_ROOT
from bazarsim.dd.layout import mask_points, pick, strongest
from bazarsim.dd.quick import quick_tricks, sure_trumps, transfer_tricks
from bazarsim.rules.play import (
    R_LAST_BONUS,
    R_MONOTONE,
    R_TRICK_BONUS,
    R_TRUMP,
    R_TRUMP_PARTNER,
    add_to_summary,
    card_key,
    legal_given,
)

# ``guess_points_left``: the weight of a trump held, against the points of the suits whose
# master a side holds (tuned on node counts: reports/solver-notes.md)
_TRUMP_WEIGHT = 10


@nb.njit(cache=True, _nrt=False, forceinline=True)
def guess_points_left(me, lho, pa, rho, ld, rem, pts, rules):
    """A guess of the N-S points left (``O_ROOTLOOK``), ``me`` (seat ``ld``) on lead, the
    other hands in playing order from it; ``rem``: every point left (search layout).

    Between the sure floor and ceiling of the leader's side (sure trumps, the leader's
    quick tricks), at the share of its "strength": the points of every suit whose master
    it holds, and ``_TRUMP_WEIGHT`` a trump. Only orders the root's leads, so it need not
    be a bound. Public for the tests, which check the look-ahead built on it.
    """
    trump = rules[R_TRUMP]
    tb = rules[R_TRICK_BONUS]
    lb = rules[R_LAST_BONUS]
    mono = rules[R_MONOTONE]
    pfree = rules[R_TRUMP_PARTNER] == 0
    q = quick_tricks(me, lho, pa, rho, trump, pts, tb, lb, mono, pfree)
    q = max(q, transfer_tricks(me, lho, pa, rho, trump, pts, tb, lb, mono, pfree))
    mine = me | pa
    live = mine | lho | rho
    lo = q
    hi = rem
    strength = np.int64(1)
    total = np.int64(2)
    if trump >= 0:
        tmask = np.int64(0xFF) << (8 * trump)
        theirs = (lho | rho) & tmask
        lo = max(lo, mask_points(sure_trumps(mine & tmask, theirs, trump), pts))
        hi -= mask_points(sure_trumps(theirs, mine & tmask, trump), pts)
        strength += _TRUMP_WEIGHT * popcount32(mine & tmask)
        total += _TRUMP_WEIGHT * popcount32(live & tmask)
    for su in range(4):
        c = strongest(live, su)
        if c >= 0:
            suit_pts = mask_points(live & (np.int64(0xFF) << (8 * su)), pts)
            total += suit_pts
            if (mine >> c) & 1:
                strength += suit_pts
    guess = lo + (max(lo, hi) - lo) * strength // total
    return guess if (ld & 1) == 0 else rem - guess


@nb.njit(cache=True, _nrt=False)
def lead_value(hands, ld, c0, pts, stren, above, rules):
    """One-trick look-ahead value (N-S points) of the lead ``c0`` by seat ``ld``
    (``O_ROOTLOOK``, search layout).

    The other three cards of the trick are searched (plain minimax over their legal
    cards) and every position after the trick is valued by :func:`guess_points_left`.
    ``hands`` still holds ``c0``. Public for the tests, which check it against a plain
    minimax over the trick scan.
    """
    trump = rules[R_TRUMP]
    tb = rules[R_TRICK_BONUS]
    lb = rules[R_LAST_BONUS]
    r0 = hands[ld] ^ (np.int64(1) << c0)
    h1 = hands[(ld + 1) & 3]
    h2 = hands[(ld + 2) & 3]
    h3 = hands[(ld + 3) & 3]
    hp = mask_points(r0 | h1 | h2 | h3, pts)
    left = popcount32(r0)
    mx1 = ((ld + 1) & 1) == 0  # seats 1 and 3 maximise iff they are N or S
    inf = np.int64(1 << 30)
    led = c0 >> 3
    k0, w0, bl0, bt0 = add_to_summary(c0, 0, led, trump, stren, -1, 0, -1, -1)
    v1 = np.int64(-1) if mx1 else inf
    m1 = legal_given(h1, 1, led, w0, bl0, bt0, trump, above, rules)
    while m1 != 0:
        c1 = lowest_bit(m1)
        m1 &= m1 - 1
        k1, w1, bl1, bt1 = add_to_summary(c1, 1, led, trump, stren, k0, w0, bl0, bt0)
        v2 = inf if mx1 else np.int64(-1)
        m2 = legal_given(h2, 2, led, w1, bl1, bt1, trump, above, rules)
        while m2 != 0:
            c2 = lowest_bit(m2)
            m2 &= m2 - 1
            k2, w2, bl2, bt2 = add_to_summary(c2, 2, led, trump, stren, k1, w1, bl1, bt1)
            v3 = np.int64(-1) if mx1 else inf
            m3 = legal_given(h3, 3, led, w2, bl2, bt2, trump, above, rules)
            while m3 != 0:
                c3 = lowest_bit(m3)
                m3 &= m3 - 1
                w = w2
                if card_key(c3, led, trump, stren) > k2:
                    w = 3
                trick = pts[c0] + pts[c1] + pts[c2] + pts[c3] + tb
                rest = np.int64(0)
                if left == 0:
                    trick += lb
                else:
                    s1 = h1 ^ (np.int64(1) << c1)
                    s2 = h2 ^ (np.int64(1) << c2)
                    s3 = h3 ^ (np.int64(1) << c3)
                    rem = hp - pts[c1] - pts[c2] - pts[c3] + left * tb + lb
                    rest = guess_points_left(
                        pick(w, r0, s1, s2, s3), pick((w + 1) & 3, r0, s1, s2, s3),
                        pick((w + 2) & 3, r0, s1, s2, s3), pick((w + 3) & 3, r0, s1, s2, s3),
                        (ld + w) & 3, rem, pts, rules,
                    )
                v = rest + (trick if ((ld + w) & 1) == 0 else 0)
                v3 = max(v3, v) if mx1 else min(v3, v)
            v2 = min(v2, v3) if mx1 else max(v2, v3)
        v1 = max(v1, v2) if mx1 else min(v1, v2)
    return v1


# ``O_ROOTLOOK`` acts from this many cards a hand (smaller searches gain nothing from it)
ROOTLOOK_MIN_CARDS = 5


@nb.njit(cache=True)
def seed_root_lead(work, leader, n, pts, stren, above, rules, ctx):
    """Give the root its first lead (``stats[S_ROOT]``) from :func:`root_lookahead`
    when ``O_ROOTLOOK`` is on and the root is a trick boundary with enough cards; the
    caller resets it to -1 after its search."""
    stats = ctx.stats
    if n == 0 and stats[S_OPTS] & O_ROOTLOOK and popcount32(work[leader]) >= ROOTLOOK_MIN_CARDS:
        stats[S_ROOT] = root_lookahead(work, leader, pts, stren, above, rules)


@nb.njit(cache=True)
def root_lookahead(work, leader, pts, stren, above, rules):
    """The lead of seat ``leader`` with the best one-trick look-ahead value
    (:func:`lead_value`; ``O_ROOTLOOK``, search layout): the root's first move."""
    best_c = np.int64(-1)
    best_v = np.int64(0)
    m = work[leader]
    while m != 0:
        c = lowest_bit(m)
        m &= m - 1
        v = lead_value(work, leader, c, pts, stren, above, rules)
        if best_c < 0 or (v > best_v if (leader & 1) == 0 else v < best_v):
            best_c = c
            best_v = v
    return best_c
