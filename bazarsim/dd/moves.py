"""Move generation and ordering: which cards a node searches, and in which order.

:func:`node_moves` lists a node's moves: :func:`_gen_moves` leaves out the cards that need
no search of their own (``O_EQUIV``: truly interchangeable cards; ``O_DOMINANCE``: all
but one card of a run whose trick is decided) and :func:`_order_moves` sorts the rest:
the table's or hint's move first (``O_ORDER``), then point-aware rules for followers
(``O_SPAREMASTER``, ``O_SUREHOLD``) and for leads (``O_LEADTOP``). The search lists a
node's moves only when the table's or hint's move did not cut (``O_LAZY``, in
:mod:`bazarsim.dd.alphabeta`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import highest_bit, lowest_bit, popcount32
from bazarsim.dd.context import O_DOMINANCE, O_EQUIV, O_LEADTOP, O_ORDER, O_SPAREMASTER, O_SUREHOLD
from bazarsim.dd.layout import stronger_than, strongest, weaker_than
from bazarsim.rules.play import R_MONOTONE, R_TRUMP, card_key


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _next_live(c, step, live):
    """The next live card of ``c``'s suit above (``step`` 1) or below (-1) ``c``, or -1."""
    if step > 0:
        m = live & stronger_than(c)
        return lowest_bit(m) if m != 0 else -1
    m = live & weaker_than(c)
    return highest_bit(m) if m != 0 else -1


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _best_key(hand, led, trump, stren):
    """The strongest trick key ``hand`` can produce on a trick led in ``led`` (-1: none).

    A hand holding the led suit must follow it; a void hand can trump (if it holds a
    trump) or discard, and a discard never takes the trick.
    """
    if (hand >> (8 * led)) & 0xFF != 0:
        su = led
    elif trump >= 0 and (hand >> (8 * trump)) & 0xFF != 0:
        su = trump
    else:
        return -1
    return card_key(strongest(hand, su), led, trump, stren)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _threats(hands, p, n, led, trump, stren):
    """The strongest keys N-S and E-W can still produce after seat ``p`` (card ``n`` of a
    trick led in ``led``), -1 for none."""
    hi_ns = -1
    hi_ew = -1
    for j in range(n + 1, 4):
        q = (p - n + j) & 3
        k = _best_key(hands[q], led, trump, stren)
        if q & 1:
            hi_ew = max(hi_ew, k)
        else:
            hi_ns = max(hi_ns, k)
    return hi_ns, hi_ew


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _gen_moves(
    hands, p, legal, tr, off, n, led, widx, wkey, hi_ns, hi_ew, pts, stren, rules, opts, mv, mo,
    eq,
):
    """Fill ``mv[mo:]`` with the cards of ``legal`` to search for seat ``p``; return how many.

    ``led .. hi_ew``: the trick's state (from the trick's summary; unused when leading).
    ``nm & 7`` (``nm`` is below 8 there) is an index mask, see :func:`alphabeta`.
    """
    nm = 0
    if legal & (legal - 1) == 0:  # a forced card
        mv[mo] = lowest_bit(legal)
        return 1
    if opts & (O_EQUIV | O_DOMINANCE):
        live = hands[0] | hands[1] | hands[2] | hands[3]
        for i in range(n):
            live |= np.int64(1) << tr[off + i]
        dom = opts & O_DOMINANCE and rules[R_MONOTONE] != 0
        trump = rules[R_TRUMP]
        wside = (p - n + widx) & 1  # 0: N-S hold the trick, 1: E-W
        if dom and n > 0:
            # only worth it when two legal cards of one suit could form a run
            dom = False
            for su in range(4):
                if popcount32((legal >> (8 * su)) & 0xFF) > 1:
                    dom = True
        m = legal
        while m != 0:
            c = lowest_bit(m)
            m &= m - 1
            su = c >> 3
            if dom and n == 0:
                # Leading: when even the weaker card cannot be beaten, the trick is ours
                # either way and the stronger of two adjacent cards goes first (below).
                d = _next_live(c, 1, live)
                if d >= 0 and (legal >> d) & 1:
                    kc = card_key(c, su, trump, stren)
                    threat = max(
                        _best_key(hands[(p + 1) & 3], su, trump, stren),
                        _best_key(hands[(p + 3) & 3], su, trump, stren),
                    )
                    if threat < kc:
                        continue
            elif dom:
                # A run of our cards adjacent among the live cards (the trick's included)
                # ranks alike against every other card: whichever we play, the trick
                # goes the same way and the card we keep takes the same later tricks.
                # Once no later opponent can beat the trick's winner, its side is known
                # and, points rising with strength, the strongest card of the run is
                # best on our own side's trick, the weakest on theirs.
                kc = card_key(c, led, trump, stren)
                side = p & 1
                key = kc
                if kc < wkey:
                    side = wside
                    key = wkey
                threat = hi_ns if side == 1 else hi_ew
                if threat < key:
                    step = 1 if side == (p & 1) else -1
                    d = _next_live(c, step, live)
                    if d < 0 or (legal >> d) & 1 == 0:
                        mv[mo + (nm & 7)] = c
                        nm += 1
                    continue
            if opts & O_EQUIV and legal & eq[c] != 0:
                # skip c when the next stronger live card of its suit is also ours and
                # worth the same
                d = _next_live(c, 1, live)
                if d >= 0 and (legal >> d) & 1 and pts[d] == pts[c]:
                    continue
            mv[mo + (nm & 7)] = c
            nm += 1
    else:
        m = legal
        while m != 0:
            mv[mo + (nm & 7)] = lowest_bit(m)
            nm += 1
            m &= m - 1
    return nm


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _order_moves(
    mv, sc, mo, nm, p, n, led, widx, wkey, threat, ally, tt_move, pts, stren, above, trump,
    hands, opts,
):
    """Sort ``mv[mo : mo + nm]`` by descending score (the table's or hint's move, then
    point-aware rules).

    ``led``, ``widx``, ``wkey``: the trick's state (from the trick's summary), ``threat`` the
    strongest key a later opponent can play in it, ``ally`` the strongest key partner can
    still play in it (-1: partner has played).
    """
    if nm < 2:
        return
    live = hands[0] | hands[1] | hands[2] | hands[3]
    opp_live = hands[(p + 1) & 3] | hands[(p + 3) & 3]
    opp_trumps = False
    if trump >= 0:
        opp_trumps = (opp_live >> (8 * trump)) & 0xFF != 0
    partner_holds = n > 0 and (widx & 1) == (n & 1)
    if opts & O_SUREHOLD:
        partner_holds = partner_holds and wkey > threat
    # second hand: partner, last to play, beats whatever the trick can hold before it, so
    # the trick is the side's whatever this hand plays; points go onto it as onto a trick
    # partner holds. On either, a card that would win (overtake) gains nothing now and
    # is not tried first.
    partner_wins = ally > wkey and ally > threat
    for k in range(nm):
        c = mv[mo + k] & 31  # an index mask, see alphabeta
        s = 0
        if opts & O_ORDER and c == tt_move:
            s = 1 << 40
        elif n == 0:
            if opts & O_LEADTOP:
                su = c >> 3
                master = (live & above[su, stren[c] + 1]) == 0
                ruffers = 0  # opponents void in a plain suit who can ruff it this round
                if su != trump and opp_trumps:
                    for j in (1, 3):
                        o = hands[(p + j) & 3]
                        if (o >> (8 * su)) & 0xFF == 0 and (o >> (8 * trump)) & 0xFF != 0:
                            ruffers += 1
                partner = hands[(p + 2) & 3]
                ln = popcount32((hands[p] >> (8 * su)) & 0xFF)
                if master and ruffers == 0:
                    # cash plain masters before trump masters, richest first; with trumps,
                    # from the shortest suit first
                    s = (2 << 32) + (pts[c] << 24) - ((1 << 31) if su == trump else 0)
                    if trump >= 0:
                        s -= ln << 28
                else:
                    s = (1 << 32) - (pts[c] << 24) - (stren[c] << 20)
                    if (
                        ln == 1
                        and trump >= 0
                        and su != trump
                        and (hands[p] >> (8 * trump)) & 0xFF != 0
                    ):
                        ln = 8  # a singleton beside trumps: a ruff to come
                    s += ln << 27  # long suits first
                    s -= ruffers << 29  # a lead an opponent ruffs last
                    if trump < 0:
                        s += popcount32((partner >> (8 * su)) & 0xFF) << 27
                    # a low lead to partner's master, or to partner's ruff, first
                    if (partner >> strongest(live, su)) & 1:
                        s += 1 << 30
                    elif (partner >> (8 * su)) & 0xFF != 0 and su != trump and (
                        trump < 0 or ((hands[(p + 3) & 3] >> (8 * su)) & 0xFF != 0
                        and (hands[(p + 1) & 3] >> (8 * su)) & 0xFF != 0)
                    ):
                        # a finesse that works: the fourth hand holds no card above
                        # partner's best card of the suit (any such card is the second
                        # hand's or the leader's own; with trumps, both opponents follow
                        # the suit): ahead of the lead to partner's master
                        pc = strongest(partner, su)
                        over = live & above[su, stren[pc] + 1]
                        if over & hands[(p + 3) & 3] == 0 and stren[c] < stren[pc]:
                            s += 1 << 31
                    elif (
                        trump >= 0
                        and (partner >> (8 * su)) & 0xFF == 0
                        and (partner >> (8 * trump)) & 0xFF != 0
                    ):
                        s += 1 << 29
        elif opts & O_ORDER:
            kc = card_key(c, led, trump, stren)
            if partner_wins or partner_holds:
                s = (3 << 32) + (pts[c] << 24)
                if (
                    opts & O_SPAREMASTER
                    and ((c >> 3) != led or trump < 0)
                    and (opp_live & above[c >> 3, stren[c] + 1]) == 0
                ):
                    # a winner for later: no opponent holds a stronger card of its suit
                    # (of the suit led only without trumps, where that orders better:
                    # reports/solver-notes.md)
                    s -= 1 << 29
            elif kc > wkey and kc > threat:
                s = (4 << 32) - (pts[c] << 24) - (stren[c] << 20)
            elif kc > wkey:
                s = (2 << 32) - (pts[c] << 24) - (stren[c] << 20)
            else:
                # cheapest first; of equal points a discard from the shortest suit first
                ln = popcount32((hands[p] >> (c & ~7)) & 0xFF)
                s = (1 << 32) - (pts[c] << 26) - (ln << 22) - (stren[c] << 18)
        sc[mo + k] = s
    for i in range(mo + 1, mo + nm):
        c = mv[i]
        s = sc[i]
        j = i - 1
        while j >= mo and sc[j] < s:
            mv[j + 1] = mv[j]
            sc[j + 1] = sc[j]
            j -= 1
        mv[j + 1] = c
        sc[j + 1] = s


@nb.njit(cache=True, _nrt=False, forceinline=True)
def node_moves(
    hands, p, legal, tr, off, n, led, widx, wkey, tt_move, skip, pts, stren, above, rules,
    opts, mv, sc, mo, eq,
):
    """The moves of a node, ordered, into ``mv[mo:]`` (:func:`_gen_moves` then
    :func:`_order_moves`), without the card ``skip`` (a move searched already, or -1);
    returns how many. ``wkey`` is the trick's key so far (unused when leading)."""
    trump = rules[R_TRUMP]
    hi_ns = -1
    hi_ew = -1
    if n == 0:
        wkey = np.int64(-1)
    elif legal & (legal - 1) != 0:
        hi_ns, hi_ew = _threats(hands, p, n, led, trump, stren)
    else:
        wkey = np.int64(-1)
    nm = _gen_moves(
        hands, p, legal, tr, off, n, led, widx, wkey, hi_ns, hi_ew, pts, stren, rules, opts,
        mv, mo, eq,
    )
    if skip >= 0:
        j = 0
        for i in range(nm):
            c = mv[mo + i]
            if c != skip:
                mv[mo + (j & 7)] = c
                j += 1
        nm = j
    ns_plays = (p & 1) == 0
    _order_moves(
        mv, sc, mo, nm, p, n, led, widx, wkey, hi_ew if ns_plays else hi_ns,
        hi_ns if ns_plays else hi_ew, tt_move, pts, stren, above, trump, hands, opts,
    )
    return nm
