"""The last two and three tricks in plain nested loops (``O_ENDGAME``,
``O_ENDCACHE``, ``O_ENDGAME3``).

Near the end of a deal the search's frames cost more than these positions are worth. Two
tricks left are at most 16 lines, solved in place by :func:`two_tricks` (four nested loops
over the first trick's legal cards; the last trick is forced), behind a cache of bounds
on their values, since most recur within a search (:func:`endgame2`). Three tricks left
are played in nested loops over the first trick, each line valued by the two-trick
endgame (:func:`three_tricks`): more nodes than the search, less time.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import lowest_bit
from bazarsim.dd.context import E2_SIZE, O_ENDCACHE
from bazarsim.dd.layout import pick
from bazarsim.dd.table import bounds_decide, bounds_tighten, mix_hash
from bazarsim.rules.play import (
    R_LAST_BONUS,
    R_TRICK_BONUS,
    R_TRUMP,
    add_to_summary,
    card_key,
    legal_given,
)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _fold(mx, v, a, b, child):
    """A child's value folded into a level's fail-soft value ``v`` and window ``(a, b)``;
    ``mx``: the level maximises (N-S to play)."""
    if mx:
        return max(v, child), max(a, child), b
    return min(v, child), a, min(b, child)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _two_lines(hands, ld, c0, c1, c2, c3, w, pts, stren, trump, tb, lb):
    """N-S points of a first trick ``c0..c3`` won by seat ``w`` plus the forced last one."""
    v = np.int64(0)
    if (w & 1) == 0:
        v = pts[c0] + pts[c1] + pts[c2] + pts[c3] + tb
    r0 = hands[ld] ^ (np.int64(1) << c0)
    r1 = hands[(ld + 1) & 3] ^ (np.int64(1) << c1)
    r2 = hands[(ld + 2) & 3] ^ (np.int64(1) << c2)
    r3 = hands[(ld + 3) & 3] ^ (np.int64(1) << c3)
    led_card = lowest_bit(pick((w - ld) & 3, r0, r1, r2, r3))
    led = led_card >> 3
    best = card_key(led_card, led, trump, stren)
    bi = 0
    last = pts[led_card] + tb + lb
    for i in range(1, 4):
        c = lowest_bit(pick((w - ld + i) & 3, r0, r1, r2, r3))
        last += pts[c]
        k = card_key(c, led, trump, stren)
        if k > best:
            best = k
            bi = i
    if ((w + bi) & 1) == 0:
        v += last
    return v


@nb.njit(cache=True, _nrt=False, forceinline=True)
def two_tricks(hands, ld, alpha, beta, pts, stren, above, rules):
    """Fail-soft N-S points of the last two tricks (two cards in every hand, ``ld`` leads).

    Alpha-beta over the legal cards of the first of them (at most 2 x 2 x 2 x 2 lines)
    written as four nested loops, the trick's summary kept up to date card by card for
    the legal cards; the last trick is forced.
    """
    trump = rules[R_TRUMP]
    tb = rules[R_TRICK_BONUS]
    lb = rules[R_LAST_BONUS]
    h1 = hands[(ld + 1) & 3]
    h2 = hands[(ld + 2) & 3]
    h3 = hands[(ld + 3) & 3]
    mx0 = (ld & 1) == 0  # levels 0 and 2 maximise iff the leader is N or S
    inf = np.int64(1 << 30)
    v0 = np.int64(-1) if mx0 else inf
    a0 = alpha
    b0 = beta
    m0 = hands[ld]
    while m0 != 0:
        c0 = lowest_bit(m0)
        m0 &= m0 - 1
        led = c0 >> 3
        k0, w0, bl0, bt0 = add_to_summary(c0, 0, led, trump, stren, -1, 0, -1, -1)
        a1 = a0
        b1 = b0
        v1 = inf if mx0 else np.int64(-1)
        m1 = legal_given(h1, 1, led, w0, bl0, bt0, trump, above, rules)
        while m1 != 0:
            c1 = lowest_bit(m1)
            m1 &= m1 - 1
            k1, w1, bl1, bt1 = add_to_summary(c1, 1, led, trump, stren, k0, w0, bl0, bt0)
            a2 = a1
            b2 = b1
            v2 = np.int64(-1) if mx0 else inf
            m2 = legal_given(h2, 2, led, w1, bl1, bt1, trump, above, rules)
            while m2 != 0:
                c2 = lowest_bit(m2)
                m2 &= m2 - 1
                k2, w2, bl2, bt2 = add_to_summary(c2, 2, led, trump, stren, k1, w1, bl1, bt1)
                a3 = a2
                b3 = b2
                v3 = inf if mx0 else np.int64(-1)
                m3 = legal_given(h3, 3, led, w2, bl2, bt2, trump, above, rules)
                while m3 != 0:
                    c3 = lowest_bit(m3)
                    m3 &= m3 - 1
                    w = w2
                    if card_key(c3, led, trump, stren) > k2:
                        w = 3
                    w = (ld + w) & 3
                    v = _two_lines(hands, ld, c0, c1, c2, c3, w, pts, stren, trump, tb, lb)
                    v3, a3, b3 = _fold(not mx0, v3, a3, b3, v)
                    if a3 >= b3:
                        break
                v2, a2, b2 = _fold(mx0, v2, a2, b2, v3)
                if a2 >= b2:
                    break
            v1, a1, b1 = _fold(not mx0, v1, a1, b1, v2)
            if a1 >= b1:
                break
        v0, a0, b0 = _fold(mx0, v0, a0, b0, v1)
        if a0 >= b0:
            break
    return v0


@nb.njit(cache=True, _nrt=False, forceinline=True)
def endgame2(hands, ld, al, be, rem, gen, opts, e2_key, e2_val, pts, stren, above, rules):
    """:func:`two_tricks` behind the two-trick endgame cache (``O_ENDCACHE``): 6 in 10 of
    these endgames recur within a search, so bounds on their values are kept, as the table
    does. ``rem``: every point left."""
    if opts & O_ENDCACHE == 0:
        return two_tricks(hands, ld, al, be, pts, stren, above, rules)
    live = hands[0] | hands[1] | hands[2] | hands[3]
    k2 = live | (ld << 32) | (gen << 34)
    j = (mix_hash(live, 0, ld) >> 40) & (E2_SIZE - 1)
    lo2 = np.int64(0)
    hi2 = rem
    if e2_key[j] == k2:
        lo2 = np.int64(e2_val[j] & 0xFFFF)
        hi2 = np.int64(e2_val[j] >> 16)
    ret = bounds_decide(lo2, hi2, al, be)
    if ret < 0:
        a2 = max(al, lo2)
        b2 = min(be, hi2)
        ret = two_tricks(hands, ld, a2, b2, pts, stren, above, rules)
        lo2, hi2 = bounds_tighten(lo2, hi2, ret, a2, b2)
        e2_key[j] = k2
        e2_val[j] = lo2 | (hi2 << 16)
    return ret


@nb.njit(cache=True, _nrt=False)
def three_tricks(
    hands, ld, alpha, beta, first, hp, gen, opts, e2_key, e2_val, pts, stren, above, rules
):
    """Fail-soft N-S points of the last three tricks (three cards in every hand, ``ld``
    leads, ``hp`` card points in the hands), the best lead, and the nodes the search would
    have entered (a card played).

    Nested loops over the first trick's legal cards, as :func:`two_tricks`, each line
    valued by the two-trick endgame; the lead ``first`` (if held) first. No pruning or
    ordering beyond that: pruning and ordering these small nodes as the search does cut
    nodes but cost more time than they save, and so did a killer card per level
    (reports/solver-notes.md). ``hands`` is changed and restored.
    """
    trump = rules[R_TRUMP]
    tb = rules[R_TRICK_BONUS]
    lb = rules[R_LAST_BONUS]
    s1 = (ld + 1) & 3
    s2 = (ld + 2) & 3
    s3 = (ld + 3) & 3
    mx0 = (ld & 1) == 0  # the leader and the third hand maximise iff N-S lead
    inf = np.int64(1 << 30)
    v0 = np.int64(-1) if mx0 else inf
    a0 = alpha
    b0 = beta
    m0 = hands[ld]
    if first < 0 or (m0 >> (first & 31)) & 1 == 0:
        first = lowest_bit(m0)
    bestc = first
    cnt = 0
    c0 = first
    while m0 != 0:
        m0 ^= np.int64(1) << c0
        hands[ld] ^= np.int64(1) << c0
        cnt += 1
        led = c0 >> 3
        k0, w0, bl0, bt0 = add_to_summary(c0, 0, led, trump, stren, -1, 0, -1, -1)
        a1 = a0
        b1 = b0
        v1 = inf if mx0 else np.int64(-1)
        m1 = legal_given(hands[s1], 1, led, w0, bl0, bt0, trump, above, rules)
        while m1 != 0:
            c1 = lowest_bit(m1)
            m1 &= m1 - 1
            hands[s1] ^= np.int64(1) << c1
            cnt += 1
            k1, w1, bl1, bt1 = add_to_summary(c1, 1, led, trump, stren, k0, w0, bl0, bt0)
            a2 = a1
            b2 = b1
            v2 = np.int64(-1) if mx0 else inf
            m2 = legal_given(hands[s2], 2, led, w1, bl1, bt1, trump, above, rules)
            while m2 != 0:
                c2 = lowest_bit(m2)
                m2 &= m2 - 1
                hands[s2] ^= np.int64(1) << c2
                cnt += 1
                k2, w2, bl2, bt2 = add_to_summary(c2, 2, led, trump, stren, k1, w1, bl1, bt1)
                a3 = a2
                b3 = b2
                v3 = inf if mx0 else np.int64(-1)
                m3 = legal_given(hands[s3], 3, led, w2, bl2, bt2, trump, above, rules)
                while m3 != 0:
                    c3 = lowest_bit(m3)
                    m3 &= m3 - 1
                    hands[s3] ^= np.int64(1) << c3
                    cnt += 1
                    w = w2
                    if card_key(c3, led, trump, stren) > k2:
                        w = 3
                    w = (ld + w) & 3
                    tp = pts[c0] + pts[c1] + pts[c2] + pts[c3]
                    ns = np.int64(0)
                    if (w & 1) == 0:
                        ns = tp + tb
                    rem = hp - tp + 2 * tb + lb
                    v = endgame2(
                        hands, w, a3 - ns, b3 - ns, rem, gen, opts, e2_key, e2_val, pts, stren,
                        above, rules,
                    )
                    hands[s3] ^= np.int64(1) << c3
                    v3, a3, b3 = _fold(not mx0, v3, a3, b3, v + ns)
                    if a3 >= b3:
                        break
                hands[s2] ^= np.int64(1) << c2
                v2, a2, b2 = _fold(mx0, v2, a2, b2, v3)
                if a2 >= b2:
                    break
            hands[s1] ^= np.int64(1) << c1
            v1, a1, b1 = _fold(not mx0, v1, a1, b1, v2)
            if a1 >= b1:
                break
        hands[ld] ^= np.int64(1) << c0
        if (v1 > v0) if mx0 else (v1 < v0):
            bestc = c0
        v0, a0, b0 = _fold(mx0, v0, a0, b0, v1)
        if a0 >= b0:
            break
        if m0 != 0:
            c0 = lowest_bit(m0)
    return v0, bestc, cnt
