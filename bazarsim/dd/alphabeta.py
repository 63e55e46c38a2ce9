"""The search kernel: fail-soft alpha-beta on N-S points (:func:`alphabeta`).

One iterative Numba function with an explicit stack of frames (the ``F_*`` fields of
:mod:`bazarsim.dd.context`) over the flat preallocated buffers of a
:class:`~bazarsim.dd.context.SearchContext` reused between calls: Numba can cache it (a
cached recursive function crashes on reload) and calls cost nothing. At a trick boundary
a node tries, in this order, the cheap window tests and the two-trick endgame
(:mod:`bazarsim.dd.endgames`), the table (:mod:`bazarsim.dd.table`), the sure and quick
tricks (:mod:`bazarsim.dd.quick`) and the three-trick endgame; then every node searches
the table's or hint's move (:mod:`bazarsim.dd.hints`) alone first (``O_LAZY``), and lists
and orders the others (:mod:`bazarsim.dd.moves`) only if it did not cut, later moves
under a null window first (``O_PVS``). The helpers of those rooms are inlined into it.
The kernels are compiled with ``_nrt=False``: they never allocate, and reference counting
the arrays handed to helpers would cost most of the search's time.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import lowest_bit, popcount32
from bazarsim.dd.context import (
    F_A0,
    F_ALPHA,
    F_B0,
    F_BEST,
    F_BESTC,
    F_BETA,
    F_BLED,
    F_BTR,
    F_K,
    F_KA,
    F_KB,
    F_LAZY,
    F_LEADER,
    F_LEGAL,
    F_N,
    F_NM,
    F_NS,
    F_REM,
    F_RSV,
    F_SCOUT,
    F_SLOT,
    F_T,
    F_TAG,
    F_TTM,
    F_WIDX,
    F_WKEY,
    N_FRAME,
    NO_CARD,
    O_BOUNDS,
    O_ENDGAME,
    O_ENDGAME3,
    O_HINTS,
    O_LAZY,
    O_PVS,
    O_SHAPE,
    O_TT,
    S_GEN,
    S_NODES,
    S_OPTS,
    S_ROOT,
)
from bazarsim.dd.endgames import endgame2, three_tricks
from bazarsim.dd.hints import hint_get, hint_hash, hint_put
from bazarsim.dd.layout import mask_points
from bazarsim.dd.moves import node_moves
from bazarsim.dd.quick import boundary_cut
from bazarsim.dd.table import tt_probe, tt_put
from bazarsim.rules.play import (
    R_LAST_BONUS,
    R_TRICK_BONUS,
    R_TRUMP,
    add_to_summary,
    card_key,
    legal_given,
    trick_summary,
    trick_winner_at,
)


@nb.njit(cache=True, _nrt=False)
def alphabeta(hands, leader, t, n, alpha, beta, pts, stren, order, above, rules, ctx):
    """Fail-soft alpha-beta: N-S points from the start of trick ``t`` (``n`` cards in it).

    ``ctx.tricks[4 * t : 4 * t + n]`` holds the cards already in the trick; ``hands``
    excludes them (and is restored on return). Iterative, with an explicit stack of
    frames, so that Numba can cache it (a cached recursive function crashes Numba 0.62
    on reload) and calls cost nothing.
    """
    stats, hints, tricks, moves, scores, fr = (
        ctx.stats, ctx.hints, ctx.tricks, ctx.moves, ctx.scores, ctx.frames
    )
    eq, zc, e2_key, e2_val = ctx.same_points, ctx.bottom_runs, ctx.e2_key, ctx.e2_bounds
    opts = stats[S_OPTS]
    for c in range(32):
        m = np.int64(0)
        for d in range(8 * (c >> 3), 8 * (c >> 3) + 8):
            if d != c and pts[d] == pts[c]:
                m |= np.int64(1) << d
        eq[c] = m
    for su in range(4):
        m = np.int64(0)
        k = 0
        for i in range(7, -1, -1):
            c = order[su, i]  # weakest first
            if pts[c] != 0 and not opts & O_SHAPE:
                break
            zc[10 * su + k] = m
            m |= np.int64(1) << c
            k += 1
        zc[10 * su + k] = m
        zc[10 * su + 9] = m
    trump = rules[R_TRUMP]
    sp = 0
    fr[F_LEADER] = leader
    fr[F_T] = t
    fr[F_N] = n
    fr[F_ALPHA] = alpha
    fr[F_BETA] = beta
    wk, wi, bl, bt = trick_summary(tricks, 4 * t, n, trump, stren)
    fr[F_WKEY] = wk
    fr[F_WIDX] = wi
    fr[F_BLED] = bl
    fr[F_BTR] = bt
    ret = np.int64(0)
    hp = mask_points(hands[0] | hands[1] | hands[2] | hands[3], pts)  # points in hands
    nodes = 0
    # Index masks (``sp & 63``, ``& 3`` on seats, ``& 31`` on cards...): Numba guards every
    # array access whose index LLVM cannot prove non-negative with wrap-around code (a
    # negative index counts from the end), three instructions and a register each. Values
    # read back from the frames, the move lists or the trick are masked to the range they
    # always have, which changes nothing but drops that code (reports/solver-notes.md).
    while True:
        # ---------------------------------------------------------- enter node sp
        nodes += 1
        sp &= 63
        ld = fr[sp * N_FRAME + F_LEADER] & 3
        tn = fr[sp * N_FRAME + F_T] & 15
        nn = fr[sp * N_FRAME + F_N] & 3
        al = fr[sp * N_FRAME + F_ALPHA]
        be = fr[sp * N_FRAME + F_BETA]
        toff = 4 * tn
        p = (ld + nn) & 3
        left = popcount32(hands[p])
        done = False
        slot = -1
        tt_move = NO_CARD
        if nn == 0:
            if left == 0:
                ret = np.int64(0)
                done = True
            elif left == 1:  # last trick: every card is forced
                total = rules[R_TRICK_BONUS] + rules[R_LAST_BONUS]
                for i in range(4):
                    c = lowest_bit(hands[(ld + i) & 3])
                    tricks[toff + i] = c
                    total += pts[c]
                w = (ld + trick_winner_at(tricks, toff, 4, trump, stren)) & 3
                ret = total if (w & 1) == 0 else np.int64(0)
                done = True
            else:
                rem = hp + left * rules[R_TRICK_BONUS] + rules[R_LAST_BONUS]
                fr[sp * N_FRAME + F_REM] = rem
                # The window's cheap tests first, then (two tricks left) the endgame, else
                # the table, and only then the sure and quick tricks: their cost is saved
                # wherever the table decides (and the endgame costs less than they do).
                ret = boundary_cut(hands, ld, rem, al, be, pts, rules, opts & O_BOUNDS)
                done = ret >= 0
                if not done and left == 2 and opts & O_ENDGAME:
                    ret = endgame2(
                        hands, ld, al, be, rem, stats[S_GEN], opts, e2_key, e2_val, pts, stren,
                        above, rules,
                    )
                    done = True
                key_a = np.int64(0)
                key_b = np.int64(0)
                tag = np.int64(0)
                if not done and opts & O_TT:
                    ret, slot, key_a, key_b, tag, tt_move, al, be = tt_probe(
                        hands, ld, al, be, stats[S_ROOT] if sp == 0 else NO_CARD, ctx
                    )
                    done = ret >= 0
                    fr[sp * N_FRAME + F_KA] = key_a
                    fr[sp * N_FRAME + F_KB] = key_b
                    fr[sp * N_FRAME + F_TAG] = tag
                if not done:
                    ret = boundary_cut(hands, ld, rem, al, be, pts, rules, opts & ~O_BOUNDS)
                    done = ret >= 0
                if not done and left == 3 and opts & O_ENDGAME3 and sp > 0:
                    # the last three tricks in nested loops; their value and best lead go into
                    # the table as a searched node's do
                    hh = np.int64(0)
                    if opts & O_HINTS:  # the lead to try first, when the table has none
                        hh = hint_hash(hands, ld, tricks, toff, 0, stats[S_GEN], 0)
                        if tt_move == NO_CARD:
                            tt_move = hint_get(hints, hh)
                    ret, c0, nx = three_tricks(
                        hands, ld, al, be, tt_move, hp, stats[S_GEN], opts, e2_key, e2_val, pts,
                        stren, above, rules,
                    )
                    nodes += nx
                    if opts & O_HINTS and ((ret > al) if (ld & 1) == 0 else (ret < be)):
                        hint_put(hints, hh, c0)
                    if opts & O_TT:
                        tt_put(hands, slot, key_a, key_b, tag, ld, rem, ret, al, be, c0, ctx)
                    done = True
        if not done:
            fr[sp * N_FRAME + F_ALPHA] = al
            fr[sp * N_FRAME + F_BETA] = be
            fr[sp * N_FRAME + F_A0] = al
            fr[sp * N_FRAME + F_B0] = be
            fr[sp * N_FRAME + F_SLOT] = slot
        if not done:
            mo = 8 * sp
            led = -1
            widx = 0
            legal = hands[p]
            if nn > 0:
                led = (tricks[toff] >> 3) & 3
                widx = fr[sp * N_FRAME + F_WIDX]
                legal = legal_given(
                    legal, nn, led, widx, fr[sp * N_FRAME + F_BLED], fr[sp * N_FRAME + F_BTR],
                    trump, above, rules,
                )
            lazy = 0
            nm = 1
            if legal & (legal - 1) != 0:
                if tt_move == NO_CARD and opts & O_HINTS:
                    hh = hint_hash(hands, p, tricks, toff, nn, stats[S_GEN], widx)
                    tt_move = hint_get(hints, hh)
                lazy = 4
                nm = 0
                if opts & O_LAZY and tt_move >= 0 and (legal >> (tt_move & 31)) & 1:
                    # the table's or hint's move alone; the others only if it does not cut
                    lazy = 1
                    nm = 1
                    moves[mo] = tt_move
            else:
                moves[mo] = lowest_bit(legal)  # a forced card
            fr[sp * N_FRAME + F_LAZY] = lazy
            fr[sp * N_FRAME + F_LEGAL] = legal
            fr[sp * N_FRAME + F_TTM] = tt_move
            fr[sp * N_FRAME + F_NM] = nm
            fr[sp * N_FRAME + F_K] = 0
            fr[sp * N_FRAME + F_SCOUT] = 0
            fr[sp * N_FRAME + F_BEST] = -1 if (p & 1) == 0 else 1 << 30
            fr[sp * N_FRAME + F_BESTC] = NO_CARD
        # ------------------------------------------- return values / next moves
        while True:
            if done:
                if sp == 0:
                    stats[S_NODES] += nodes
                    return ret
                sp -= 1
                ld = fr[sp * N_FRAME + F_LEADER] & 3
                nn = fr[sp * N_FRAME + F_N] & 3
                p = (ld + nn) & 3
                k = (fr[sp * N_FRAME + F_K] - 1) & 7
                c = moves[8 * sp + k] & 31
                hands[p] ^= np.int64(1) << c
                hp += pts[c]
                v = ret + fr[sp * N_FRAME + F_NS]
                if nn > 0 and fr[sp * N_FRAME + F_NM] == 1 and fr[sp * N_FRAME + F_LAZY] == 0:
                    # one card to search (forced, or its cards all alike) and no table or
                    # hint to keep: the node's value is that card's, so return it at once.
                    ret = v
                    continue
                redo = False
                if fr[sp * N_FRAME + F_SCOUT] == 1:
                    # a scout that beats the window's bound: search that move again
                    redo = fr[sp * N_FRAME + F_ALPHA] < v < fr[sp * N_FRAME + F_BETA]
                if redo:
                    fr[sp * N_FRAME + F_SCOUT] = 2
                    fr[sp * N_FRAME + F_K] = k
                    fr[sp * N_FRAME + F_RSV] = v
                elif (p & 1) == 0:
                    if v > fr[sp * N_FRAME + F_BEST]:
                        fr[sp * N_FRAME + F_BEST] = v
                        fr[sp * N_FRAME + F_BESTC] = c
                        if v > fr[sp * N_FRAME + F_ALPHA]:
                            fr[sp * N_FRAME + F_ALPHA] = v
                else:
                    if v < fr[sp * N_FRAME + F_BEST]:
                        fr[sp * N_FRAME + F_BEST] = v
                        fr[sp * N_FRAME + F_BESTC] = c
                        if v < fr[sp * N_FRAME + F_BETA]:
                            fr[sp * N_FRAME + F_BETA] = v
                done = False
            sp &= 63
            ld = fr[sp * N_FRAME + F_LEADER] & 3
            tn = fr[sp * N_FRAME + F_T] & 15
            nn = fr[sp * N_FRAME + F_N] & 3
            k = fr[sp * N_FRAME + F_K] & 15
            al = fr[sp * N_FRAME + F_ALPHA]
            be = fr[sp * N_FRAME + F_BETA]
            lz = fr[sp * N_FRAME + F_LAZY]
            if k >= fr[sp * N_FRAME + F_NM] and al < be and (lz == 1 or lz == 4):
                # list the node's moves: all of them, or the others after a first move
                # that did not cut
                p = (ld + nn) & 3
                toff = 4 * tn
                led = -1
                widx = 0
                if nn > 0:
                    led = (tricks[toff] >> 3) & 3
                    widx = fr[sp * N_FRAME + F_WIDX]
                skip = np.int64(moves[8 * sp] & 31) if lz == 1 else np.int64(NO_CARD)
                fr[sp * N_FRAME + F_NM] = node_moves(
                    hands, p, fr[sp * N_FRAME + F_LEGAL], tricks, toff, nn, led, widx,
                    fr[sp * N_FRAME + F_WKEY], fr[sp * N_FRAME + F_TTM], skip, pts, stren,
                    above, rules, opts, moves, scores, 8 * sp, eq,
                )
                fr[sp * N_FRAME + F_LAZY] = 2 if lz == 1 else 0
                k = 0
                fr[sp * N_FRAME + F_K] = 0
            if k < fr[sp * N_FRAME + F_NM] and al < be:
                # play the next move and descend
                p = (ld + nn) & 3
                c = moves[8 * sp + k] & 31
                fr[sp * N_FRAME + F_K] = k + 1
                hands[p] ^= np.int64(1) << c
                hp -= pts[c]
                toff = 4 * tn
                tricks[toff + nn] = c
                q = sp + 1
                if fr[sp * N_FRAME + F_SCOUT] == 2:
                    # re-search after a scout failed high (N-S) / low (E-W): the scout's
                    # result is a bound on this move's value, so the window starts there
                    fr[sp * N_FRAME + F_SCOUT] = 0
                    if (p & 1) == 0:
                        al = fr[sp * N_FRAME + F_RSV] - 1
                    else:
                        be = fr[sp * N_FRAME + F_RSV] + 1
                elif (k > 0 or fr[sp * N_FRAME + F_LAZY] == 2) and be - al > 1 and opts & O_PVS:
                    fr[sp * N_FRAME + F_SCOUT] = 1  # later moves: prove them no better first
                    if (p & 1) == 0:
                        be = al + 1
                    else:
                        al = be - 1
                else:
                    fr[sp * N_FRAME + F_SCOUT] = 0
                wk = fr[sp * N_FRAME + F_WKEY]
                wi = fr[sp * N_FRAME + F_WIDX]
                if nn == 0:
                    wk = np.int64(-1)
                    wi = np.int64(0)
                if nn == 3:
                    # the last card only decides the winner (add_to_summary's key test; the
                    # whole summary update here was slower)
                    w = wi
                    if card_key(c, tricks[toff] >> 3, trump, stren) > wk:
                        w = 3
                    w = (ld + w) & 3
                    ns = np.int64(0)
                    if (w & 1) == 0:
                        ns = pts[tricks[toff] & 31] + pts[tricks[toff + 1] & 31]
                        ns += pts[tricks[toff + 2] & 31]
                        ns += pts[c]
                        ns += rules[R_TRICK_BONUS]
                        if hands[p] == 0:
                            ns += rules[R_LAST_BONUS]
                    fr[sp * N_FRAME + F_NS] = ns
                    fr[q * N_FRAME + F_LEADER] = w
                    fr[q * N_FRAME + F_T] = tn + 1
                    fr[q * N_FRAME + F_N] = 0
                    fr[q * N_FRAME + F_ALPHA] = al - ns
                    fr[q * N_FRAME + F_BETA] = be - ns
                else:
                    fr[sp * N_FRAME + F_NS] = 0
                    bl = fr[sp * N_FRAME + F_BLED]
                    bt = fr[sp * N_FRAME + F_BTR]
                    if nn == 0:
                        bl = np.int64(-1)
                        bt = np.int64(-1)
                    wk, wi, bl, bt = add_to_summary(
                        c, nn, tricks[toff] >> 3, trump, stren, wk, wi, bl, bt
                    )
                    fr[q * N_FRAME + F_WKEY] = wk
                    fr[q * N_FRAME + F_WIDX] = wi
                    fr[q * N_FRAME + F_BLED] = bl
                    fr[q * N_FRAME + F_BTR] = bt
                    fr[q * N_FRAME + F_LEADER] = ld
                    fr[q * N_FRAME + F_T] = tn
                    fr[q * N_FRAME + F_N] = nn + 1
                    fr[q * N_FRAME + F_ALPHA] = al
                    fr[q * N_FRAME + F_BETA] = be
                sp = q
                break
            # all moves tried (or cut off): finish node sp
            best = fr[sp * N_FRAME + F_BEST]
            if nn == 0 and opts & O_TT:
                tt_put(
                    hands, fr[sp * N_FRAME + F_SLOT], fr[sp * N_FRAME + F_KA],
                    fr[sp * N_FRAME + F_KB], fr[sp * N_FRAME + F_TAG], ld,
                    fr[sp * N_FRAME + F_REM], best,
                    fr[sp * N_FRAME + F_A0], fr[sp * N_FRAME + F_B0], fr[sp * N_FRAME + F_BESTC],
                    ctx,
                )
            if opts & O_HINTS and (fr[sp * N_FRAME + F_NM] > 1 or fr[sp * N_FRAME + F_LAZY]):
                # the best move of a node that did not fail low (a cut-off, or the best
                # of an open window): a hint for the same hand facing the same holder
                p = (ld + nn) & 3
                if (p & 1) == 0:
                    low = best <= fr[sp * N_FRAME + F_A0]
                else:
                    low = best >= fr[sp * N_FRAME + F_B0]
                if not low and fr[sp * N_FRAME + F_BESTC] >= 0:
                    hh = hint_hash(
                        hands, p, tricks, 4 * tn, nn, stats[S_GEN], fr[sp * N_FRAME + F_WIDX]
                    )
                    hint_put(hints, hh, fr[sp * N_FRAME + F_BESTC])
            ret = best
            done = True
