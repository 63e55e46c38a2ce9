"""The transposition table (``O_TT``, ``O_SHAPE``): bounds on the N-S points left at
trick boundaries, and the best lead.

A trick-boundary position is keyed on the four hands and the leader, each suit's
worthless bottom run made canonical (:func:`_tt_key`), which is the same game; under
``O_SHAPE`` on each suit's live cards in strength order and who holds them, whatever
their ranks (:func:`_shape_key`), an entry keeping the live cards it was searched with:
two positions of one shape are the same game up to the cards' points, so an entry's
bounds hold for another position of its shape once shifted by the point differences of
the paired cards (:func:`_shape_shift`). Two-slot buckets, told apart from older searches
by the generation in their tag, never zeroed, so the probes of one position share them.
:func:`tt_probe` looks a position up before it is searched, :func:`tt_put` tightens its
entry after. The hash and the bounds arithmetic (:func:`mix_hash`, :func:`bounds_decide`,
:func:`bounds_tighten`) serve the two-trick endgame cache too.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import FAST_PEXT, lowest_bit, pext, popcount32
from bazarsim.dd.context import NO_CARD, O_SHAPE, S_GEN, S_MASK, S_MONO, S_OPTS

# the multipliers of the hashes: the table's, the endgame cache's (mix_hash), the hints'
HASH_C1 = 0x5851F42D4C957F2D
HASH_C2 = 0x14057B7EF767814F


@nb.njit(cache=True, _nrt=False, forceinline=True)
def mix_hash(a, b, leader):
    """Mix a position's two key words and its leader (the table and the endgame cache)."""
    x = a * HASH_C1 + b * HASH_C2 + leader
    x ^= x >> 29
    return x * HASH_C1


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _tt_index(a, b, leader, mask):
    # even; the 0x7F...: an index mask, see alphabeta
    return (mix_hash(a, b, leader) >> 32) & mask & 0x7FFFFFFE


@nb.njit(cache=True, _nrt=False, forceinline=True)
def bounds_decide(lo, hi, al, be):
    """The value a stored ``[lo, hi]`` gives the window ``(al, be)``, or -1 if none."""
    if lo >= be:
        return lo
    if hi <= al:
        return hi
    if lo == hi:
        return lo
    return np.int64(-1)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def bounds_tighten(lo, hi, v, al, be):
    """``[lo, hi]`` after a fail-soft search in the window ``(al, be)`` returned ``v``."""
    if v <= al:
        return lo, min(hi, v)
    if v >= be:
        return max(lo, v), hi
    return v, v


def _pack_nibbles() -> np.ndarray:
    """``[16 m + x]``: the bits of ``x`` at the set bits of ``m`` packed down, for 4-bit
    ``m`` and ``x`` (a software ``pext``)."""
    t = np.zeros(256, np.int64)
    for m in range(16):
        for x in range(16):
            k = 0
            for b in range(4):
                if (m >> b) & 1:
                    if (x >> b) & 1:
                        t[16 * m + x] |= 1 << k
                    k += 1
    return t


_PACK4 = _pack_nibbles()


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _pack8(x, m):
    """The bits of byte ``x`` at the set bits of byte ``m``, packed into the low bits."""
    lo = _PACK4[((m & 15) << 4) | (x & 15)]
    hi = _PACK4[(m & 0xF0) | ((x >> 4) & 15)]
    return lo | (hi << popcount32(m & 15))


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _tt_key(hands, zc):
    """The table's key of a trick-boundary position: the four hands with the live cards
    of each suit's run ``zc`` (its worthless 7-8-9, or the whole suit with ``O_SHAPE`` or
    when counting tricks) moved down onto its weakest cards, in order, keeping their
    owners."""
    h0 = hands[0]
    h1 = hands[1]
    h2 = hands[2]
    h3 = hands[3]
    for su in range(4):
        zr = zc[10 * su + 9]
        lz = (h0 | h1 | h2 | h3) & zr
        if lz == zc[10 * su + popcount32(lz)]:
            continue
        # in the search layout the run is the suit's lowest bits: deal its live cards
        # again from the suit's weakest card up, in order
        sh = 8 * su
        m = (lz >> sh) & 0xFF
        n0 = _pack8((h0 >> sh) & m, m)
        n1 = _pack8((h1 >> sh) & m, m)
        n2 = _pack8((h2 >> sh) & m, m)
        n3 = ((1 << popcount32(m)) - 1) & ~(n0 | n1 | n2)
        h0 = (h0 & ~zr) | (n0 << sh)
        h1 = (h1 & ~zr) | (n1 << sh)
        h2 = (h2 & ~zr) | (n2 << sh)
        h3 = (h3 & ~zr) | (n3 << sh)
    return h0 | (h1 << 32), h2 | (h3 << 32)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _shape_key(hands):
    """The table's key of a trick-boundary position under ``O_SHAPE``: which hand holds
    each live card, the live cards taken in order (suit by suit, weakest first), and each
    suit's number of live cards. Two positions get the same key exactly when
    :func:`_tt_key` with whole-suit runs gives them the same one; three ``pext`` and four
    counts instead of that function's loop over the suits. The fourth hand's bits are
    the live cards the other three do not hold."""
    h0 = hands[0]
    h1 = hands[1]
    h2 = hands[2]
    live = h0 | h1 | h2 | hands[3]
    lens = (
        popcount32(live & 0xFF)
        | (popcount32(live & 0xFF00) << 4)
        | (popcount32(live & 0xFF0000) << 8)
        | (popcount32(live & 0xFF000000) << 12)
    )
    return pext(h0, live) | (pext(h1, live) << 32), pext(h2, live) | (lens << 32)


def _pair_max_table() -> np.ndarray:
    """``[256 a + b]``, for two bytes with as many set bits: the bits at the stronger of
    each pair of their k-th set bits (0 for bytes of unequal counts). Each such set is a
    set of as many bits, and its pairing decides :func:`_shape_shift` when points rise
    with strength.

    Built with array operations (the module is imported by every CLI call): the k-th
    pair's stronger bit is where the smaller of the two bytes' running bit counts first
    reaches k + 1, so the set's bit t is that smaller count's step at t."""
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1  # [byte, bit]
    runs = np.concatenate([np.zeros((256, 1), np.int64), np.cumsum(bits, axis=1)], axis=1)
    low = np.minimum(runs[:, None, :], runs[None, :, :])  # [a, b, 0..8]
    steps = np.diff(low, axis=2)  # 0 or 1 at each bit
    t = (steps << np.arange(8)).sum(axis=2)
    t[runs[:, None, 8] != runs[None, :, 8]] = 0
    return t.reshape(-1).astype(np.uint8)


_PAIR_MAX = _pair_max_table()


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _shape_shift_mono(old, new, bp):
    """:func:`_shape_shift` where points never fall with strength (``S_MONO``): a pair's
    difference rises to N-S when positive and falls when negative, so the sum of the
    rises is the points of the pairs' stronger cards (:data:`_PAIR_MAX`) less those of
    ``old``, and the falls are ``new``'s points less those. Branch-free, per suit: a
    table look-up and three sums of a byte's points (``bp``: ``ctx.byte_points``)."""
    dlo = np.int64(0)
    dhi = np.int64(0)
    for su in range(4):
        a = (old >> (8 * su)) & 0xFF
        b = (new >> (8 * su)) & 0xFF
        m = np.int64(_PAIR_MAX[(a << 8) | b])
        pm = bp[(256 * su + m) & 1023]
        dhi += pm - bp[(256 * su + a) & 1023]
        dlo += bp[(256 * su + b) & 1023] - pm
    return dlo, dhi


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _entry_shift(old, new, ctx):
    """The shift of an entry searched with live cards ``old`` for a position of its shape
    with live cards ``new`` (``O_SHAPE``): :func:`_shape_shift_mono` where the
    contract's points never fall with strength, else :func:`_shape_shift`."""
    if ctx.stats[S_MONO]:
        return _shape_shift_mono(old, new, ctx.byte_points)
    return _shape_shift(old, new, ctx.lay_points)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _shape_shift(old, new, pts):
    """How much lower and higher the N-S value of a position with live cards ``new``
    can be than that of one with live cards ``old`` of the same shape (``O_SHAPE``).

    The two positions are the same game up to the cards' points: each suit's live cards
    in strength order, held by the same hands. Pair them in that order; a line played
    in both takes the same tricks, and every pair's point difference goes to N-S only
    when N-S win the trick the card falls in.
    """
    dlo = np.int64(0)
    dhi = np.int64(0)
    for su in range(4):
        a = (old >> (8 * su)) & 0xFF
        b = (new >> (8 * su)) & 0xFF
        while a != b:  # pairs of equal cards differ by nothing
            x = lowest_bit(a)
            y = lowest_bit(b)
            a &= a - 1
            b &= b - 1
            d = pts[(8 * su + y) & 31] - pts[(8 * su + x) & 31]
            if d < 0:
                dlo += d
            else:
                dhi += d
    return dlo, dhi


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _same_rank(c, old, new):
    """The card of ``new`` in ``c``'s place among its suit's live cards of ``old``."""
    su = c >> 3
    a = (old >> (8 * su)) & 0xFF
    b = (new >> (8 * su)) & 0xFF
    k = popcount32(a & ((1 << (c & 7)) - 1))
    for _ in range(k):
        b &= b - 1
    if b == 0:
        return np.int64(NO_CARD)
    return 8 * su + lowest_bit(b)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def tt_probe(hands, ld, al, be, root_move, ctx):
    """Look a trick-boundary position up in the table of ``ctx``. Returns the value if an
    entry decides the window ``(al, be)`` (else -1), the slot (-1: none), the key, the
    tag, the move to try first (``root_move`` when there is no entry) and the window
    narrowed by the entry's bounds."""
    tt_a, tt_b, tt_tag, stats = ctx.tt_a, ctx.tt_b, ctx.tt_tag, ctx.stats
    if FAST_PEXT and stats[S_OPTS] & O_SHAPE:  # else the loop's key is the cheaper one
        key_a, key_b = _shape_key(hands)
    else:
        key_a, key_b = _tt_key(hands, ctx.bottom_runs)
    tag = stats[S_GEN] * 4 + ld
    idx = _tt_index(key_a, key_b, ld, stats[S_MASK])
    slot = np.int64(-1)
    for j in range(idx, idx + 2):
        if tt_tag[j] == tag and tt_a[j] == key_a and tt_b[j] == key_b:
            slot = j
    ret = np.int64(-1)
    tt_move = np.int64(root_move)
    if slot >= 0:
        lo = np.int64(ctx.tt_lo[slot])
        hi = np.int64(ctx.tt_hi[slot])
        tt_move = np.int64(ctx.tt_best[slot])
        live = hands[0] | hands[1] | hands[2] | hands[3]
        old = ctx.tt_live[slot]
        if old != live:
            # the same shape with other cards (``O_SHAPE``): the bounds shifted
            dlo, dhi = _entry_shift(old, live, ctx)
            lo += dlo
            hi += dhi
            if tt_move >= 0:
                tt_move = _same_rank(tt_move, old, live)
        ret = bounds_decide(lo, hi, al, be)
        if ret < 0:
            al = max(al, lo)
            be = min(be, hi)
    return ret, slot, key_a, key_b, tag, tt_move, al, be


@nb.njit(cache=True, _nrt=False, forceinline=True)
def tt_put(hands, slot, key_a, key_b, tag, ld, rem, best, a0, b0, bestc, ctx):
    """Tighten (or create) the table entry of a trick-boundary position after a fail-soft
    search in the window ``(a0, b0)`` returned ``best`` (best lead ``bestc``); ``slot``,
    the key and the tag are :func:`tt_probe`'s, ``rem`` every point left."""
    tt_a, tt_b, tt_tag, tt_lo, tt_hi, stats = (
        ctx.tt_a, ctx.tt_b, ctx.tt_tag, ctx.tt_lo, ctx.tt_hi, ctx.stats
    )
    live = hands[0] | hands[1] | hands[2] | hands[3]
    if slot >= 0 and not (tt_tag[slot] == tag and tt_a[slot] == key_a and tt_b[slot] == key_b):
        slot = -1  # the entry found at the probe was replaced while the node was searched
    if slot >= 0:
        lo = np.int64(tt_lo[slot])
        hi = np.int64(tt_hi[slot])
        if ctx.tt_live[slot] != live:  # another position of the same shape
            dlo, dhi = _entry_shift(ctx.tt_live[slot], live, ctx)
            lo = max(lo + dlo, 0)
            hi = min(hi + dhi, rem)
    else:
        lo = np.int64(0)
        hi = rem
        idx = _tt_index(key_a, key_b, ld, stats[S_MASK])
        # Prefer a stale slot, else the one with fewer cards (cheaper to redo).
        slot = idx
        if tt_tag[idx] >> 2 != stats[S_GEN]:
            slot = idx
        elif tt_tag[idx + 1] >> 2 != stats[S_GEN]:
            slot = idx + 1
        elif popcount32(tt_a[idx + 1] & 0xFFFFFFFF) < popcount32(tt_a[idx] & 0xFFFFFFFF):
            slot = idx + 1
    lo, hi = bounds_tighten(lo, hi, best, a0, b0)
    slot &= 0x7FFFFFFF  # an index mask, see alphabeta
    tt_a[slot] = key_a
    tt_b[slot] = key_b
    tt_tag[slot] = tag
    tt_lo[slot] = lo
    tt_hi[slot] = hi
    ctx.tt_best[slot] = bestc
    ctx.tt_live[slot] = live
