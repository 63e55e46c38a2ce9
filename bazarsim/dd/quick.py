"""Sure and quick tricks: cheap bounds that decide a window at a trick boundary
(``O_BOUNDS``, ``O_SURE``, ``O_QUICK``).

Before a trick-boundary node is searched, :func:`boundary_cut` tries bounds that cost a
few bit operations: the value lies in ``[0, points left]``; a trump above every trump of
the other side wins whatever trick it falls in, so its points are a sure floor for its
side (:func:`sure_trumps`); the leader's cashable top runs, as far as nobody can ruff
them (:func:`quick_tricks`), and a low lead to partner's master followed by partner's
cashing (:func:`transfer_tricks`) are a sure floor too. These are the quick tricks of
double-dummy bridge solvers, counted in points and used only as bounds. The search tries
them after the table, whose hits save their cost.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import highest_bit, lowest_bit, popcount32
from bazarsim.dd.context import O_BOUNDS, O_QUICK, O_SURE
from bazarsim.dd.layout import mask_points, stronger_than, strongest
from bazarsim.rules.play import R_LAST_BONUS, R_MONOTONE, R_TRICK_BONUS, R_TRUMP, R_TRUMP_PARTNER


@nb.njit(cache=True, _nrt=False, forceinline=True)
def sure_trumps(mine, theirs, trump):
    """Cards of the trump mask ``mine`` stronger than every card of the mask ``theirs``."""
    c = strongest(theirs, trump)
    if c < 0:
        return mine
    return mine & stronger_than(c)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _ruff_limit(top, n_top, o, smask, tmask, drawn):
    """Cut the cashable run ``top`` to the rounds a hand ``o`` left with trumps follows."""
    if popcount32(o & tmask) > drawn:
        k = popcount32(o & smask)
        while n_top > k:
            top &= top - 1  # the weakest goes
            n_top -= 1
    return top, n_top


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _cheapest(o, n, pts):
    """Points of the ``n`` weakest cards of the mask ``o`` (all of them if fewer)."""
    total = 0
    for _ in range(n):
        if o == 0:
            break
        total += pts[lowest_bit(o)]
        o &= o - 1
    return total


@nb.njit(cache=True, _nrt=False, forceinline=True)
def quick_tricks(me, lho, pa, rho, trump, pts, tb, lb, mono, pfree):
    """Points the leader (hand ``me``) surely takes by cashing top cards (``O_QUICK``).

    A card on top of its suit among the live cards wins when led unless a hand void in
    the suit trumps it, so the leader cashes the top run of every suit: all of it in
    trumps, BK and VK; in a plain suit of a trump contract as many cards as each other
    hand holding trumps has in the suit. Trumps go first: each round draws a trump from
    every other hand, so only hands with more trumps than the leader's top trumps limit
    the plain suits. A top run as long as every other hand's holding of its suit draws
    them all, and the suit's small cards win too. With points rising with strength
    (``mono``) the cheapest cards the other hands must follow with count as well.

    ``lho``, ``pa``, ``rho``: the other hands in playing order from the leader. Cashing
    every card of the hand takes the last trick too: its bonus ``lb`` counts. ``pfree``:
    partner, void, need not trump a trick its side holds (then only the opponents'
    trumps limit a plain suit's cashing).
    """
    live = me | lho | pa | rho
    total = 0
    cashed = 0
    drawn = 0  # rounds of trumps the leader cashes first: each other hand follows
    tmask = np.int64(0)
    if trump >= 0:
        tmask = np.int64(0xFF) << (8 * trump)
        top = me & tmask
        others = (live ^ me) & tmask
        if others != 0:
            top &= stronger_than(highest_bit(others))
        drawn = popcount32(top)
    for s in range(4):
        smask = np.int64(0xFF) << (8 * s)
        top = me & smask
        if top == 0:
            continue
        others = (live ^ me) & smask
        if others != 0:
            top &= stronger_than(highest_bit(others))  # the top run of live cards
        n_top = popcount32(top)
        if n_top > 0 and top != me & smask:
            # a long suit: once the top run has drawn every other hand's cards of the
            # suit, the leader's small cards of it win too
            if n_top >= max(
                popcount32(lho & smask), popcount32(pa & smask), popcount32(rho & smask)
            ):
                top = me & smask
                n_top = popcount32(top)
        if trump >= 0 and s != trump:
            top, n_top = _ruff_limit(top, n_top, lho, smask, tmask, drawn)
            if not pfree:
                top, n_top = _ruff_limit(top, n_top, pa, smask, tmask, drawn)
            top, n_top = _ruff_limit(top, n_top, rho, smask, tmask, drawn)
        total += mask_points(top, pts) + n_top * tb
        cashed += n_top
        if mono and n_top > 0:
            # each other hand follows suit while it can: at least its n_top cheapest
            # cards of the suit (the weakest, points rising with strength) fall
            total += _cheapest(lho & smask, n_top, pts) + _cheapest(pa & smask, n_top, pts)
            total += _cheapest(rho & smask, n_top, pts)
    if cashed == popcount32(me):
        total += lb
    return total


@nb.njit(cache=True, _nrt=False, forceinline=True)
def transfer_tricks(me, lho, pa, rho, trump, pts, tb, lb, mono, pfree):
    """Points the leader's side surely takes by a low lead to partner's master.

    In a suit where the leader has a card and partner the strongest live card (and no
    opponent void in it holds a trump), the leader leads its cheapest card, partner wins
    with the master, and then cashes its own top cards (:func:`quick_tricks`). The
    opponents' cards in that first trick are unknown: each is taken as its weakest card
    of the suit (credited only when points rise with strength), which leaves them their
    strongest, so partner's cashing is counted against a position at least as hard as
    the real one. Best over the suits; 0 when none qualifies.
    """
    live = me | lho | pa | rho
    best = 0
    for s in range(4):
        smask = np.int64(0xFF) << (8 * s)
        low = me & smask
        mp = pa & smask
        if low == 0 or mp == 0:
            continue
        m = highest_bit(mp)
        if live & stronger_than(m) != 0:
            continue
        if trump >= 0 and s != trump:
            tmask = np.int64(0xFF) << (8 * trump)
            if (lho & smask == 0 and lho & tmask != 0) or (rho & smask == 0 and rho & tmask != 0):
                continue  # an opponent ruffs
        lc = lowest_bit(low)
        v = pts[lc] + pts[m] + tb
        o1 = lho & smask
        o3 = rho & smask
        b1 = o1 & -o1
        b3 = o3 & -o3
        if mono:
            if o1 != 0:
                v += pts[lowest_bit(o1)]
            if o3 != 0:
                v += pts[lowest_bit(o3)]
        # partner leads next: its left-hand opponent is the leader's right-hand one
        v += quick_tricks(
            pa ^ (np.int64(1) << m), rho ^ b3, me ^ (np.int64(1) << lc), lho ^ b1, trump, pts,
            tb, lb, mono, pfree,
        )
        if v > best:
            best = v
    return best


@nb.njit(cache=True, _nrt=False, forceinline=True)
def boundary_cut(hands, ld, rem, al, be, pts, rules, opts):
    """Cheap cuts at a trick boundary (``O_BOUNDS``, ``O_SURE``, ``O_QUICK``).

    ``rem`` is every point still to be shared. Returns the fail-soft value when one of
    the bounds decides the window ``(al, be)``, else -1.
    """
    if opts & O_BOUNDS:
        if rem <= al:
            return rem
        if be <= 0:
            return np.int64(0)
    trump = rules[R_TRUMP]
    if opts & O_SURE and trump >= 0:
        tmask = np.int64(0xFF) << (8 * trump)
        t_ns = (hands[0] | hands[2]) & tmask
        t_ew = (hands[1] | hands[3]) & tmask
        if (t_ns | t_ew) != 0:
            lo_s = mask_points(sure_trumps(t_ns, t_ew, trump), pts)
            if lo_s >= be:
                return lo_s
            hi_s = rem - mask_points(sure_trumps(t_ew, t_ns, trump), pts)
            if hi_s <= al:
                return hi_s
    if opts & O_QUICK:
        tb = rules[R_TRICK_BONUS]
        lb = rules[R_LAST_BONUS]
        mono = rules[R_MONOTONE]
        pfree = rules[R_TRUMP_PARTNER] == 0
        me = hands[ld]
        lho = hands[(ld + 1) & 3]
        pa = hands[(ld + 2) & 3]
        rho = hands[(ld + 3) & 3]
        q = quick_tricks(me, lho, pa, rho, trump, pts, tb, lb, mono, pfree)
        if (ld & 1) == 0:
            if q >= be:
                return q
        elif rem - q <= al:
            return rem - q
        if popcount32(me) > 2:  # with two tricks left the endgame is cheaper
            q = max(q, transfer_tricks(me, lho, pa, rho, trump, pts, tb, lb, mono, pfree))
        if (ld & 1) == 0:
            if q >= be:
                return q
        elif rem - q <= al:
            return rem - q
    return np.int64(-1)
