"""Alpha-mu: card decisions that keep one strategy across the worlds a seat cannot tell
apart (Cazenave and Ventos 2019), as a Numba kernel beside PIMC's.

PIMC values a card by solving each sampled world double dummy, so the seat's own later
cards are chosen knowing the world (strategy fusion). Here the seat's next ``depth`` own
moves (the card it is choosing included) are one choice for every world still alive at
that point of the play: worlds are only told apart by the cards the others play. The
other three seats play each world knowing it (the partner for the seat's side, the
opponents against it, as the double-dummy search assumes). Past ``depth`` own moves, or
where one world is left, a world's value is its double-dummy value.

A node's value is a *front*: the vectors (one value per world) of the seat's strategies
worth keeping, Pareto-reduced. At the seat's own node the fronts of its cards are
united; at another seat's node each card is a child over the worlds where that card is
legal, and the children's vectors are combined world by world with the best (partner)
or worst (opponent) of the cards available there. The card chosen is the one whose
front holds the vector of best mean. ``depth`` 1 is PIMC on the same worlds; a depth
reaching the end of the deal is the exact value of the information set for this model
(tests/naive_infoset.py is the plain reference).

A front holds at most ``cap`` vectors: beyond, those of lowest mean are dropped and
counted in ``stats[ST_CAPPED]`` (a cut that can only lower a card's value). A decision
visits at most :data:`NODE_BUDGET` nodes; past them the rest is valued world by world, as
PIMC would (counted in ``stats[ST_OVER]``), so that its time is bounded.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import lowest_bit, popcount32
from bazarsim.dd.search import M_AUTO, exact_value, reaches
from bazarsim.players.pimc import (
    choose_card,
    decision_worlds,
    points_from_trick,
    trick_copy,
    trick_result,
    twin_card,
    world_sums,
)
from bazarsim.rules.play import legal_cards

DEFAULT_DEPTH = 2  # own moves kept common across the worlds
DEFAULT_CAP = 24  # vectors a front keeps
# The player searches from this trick on and plays PIMC's card before it: in the first
# two tricks the search costs 10-40x PIMC-20's time (reports/card-play-notes.md), beyond
# the budget of a decision, and there its card seldom differs from PIMC's.
FROM_TRICK = 3
# Search nodes a decision may visit: past them every node still to search is valued world
# by world double dummy (PIMC's way), so that no position takes minutes. The player's
# decisions stay far below it (tens of thousands at most from trick 3); the first lead of
# an open hand without its root cut can pass 50,000.
NODE_BUDGET = 400_000

# stats slots: search nodes, double-dummy leaves, fronts cut to the cap, widest front,
# root cards not searched (PIMC's value, an upper bound, below a value already reached),
# nodes valued double dummy because the decision's node budget was spent
ST_NODES, ST_LEAVES, ST_CAPPED, ST_WIDEST, ST_PRUNED, ST_OVER = 0, 1, 2, 3, 4, 5
N_ST = 6


@nb.njit(cache=True)
def pareto(front, idx, cap, stats):
    """The rows of ``front`` no other row dominates on the worlds ``idx`` (at least as
    large everywhere; of equal rows the first), at most ``cap`` of them (the best sums)."""
    k = front.shape[0]
    keep = np.ones(k, np.bool_)
    for i in range(k):
        for j in range(k):
            if i == j or not keep[j]:
                continue
            dominates = True
            equal = True
            for w in idx:
                if front[j, w] < front[i, w]:
                    dominates = False
                    break
                if front[j, w] != front[i, w]:
                    equal = False
            if dominates and (not equal or j < i):
                keep[i] = False
                break
    out = front[keep]
    if out.shape[0] > cap:
        sums = np.zeros(out.shape[0], np.int64)
        for r in range(out.shape[0]):
            for w in idx:
                sums[r] += out[r, w]
        order = np.argsort(-sums, kind="mergesort")
        stats[ST_CAPPED] += 1
        out = out[order[:cap]].copy()
    if out.shape[0] > stats[ST_WIDEST]:
        stats[ST_WIDEST] = out.shape[0]
    return out


@nb.njit(cache=True)
def _leaf(me, hands, leader, tr, n, acc_ns, root_total, objective, decl_side, need, play,
          ctx):
    """One world's value from here with every later card chosen knowing the world: the
    seat's side's points from the root trick's start, or 1 when the contract goes its
    way (``acc_ns``: N-S points of the tricks completed since the root trick's start)."""
    if objective == 0:
        ns = acc_ns
        if hands[0] | hands[1] | hands[2] | hands[3] != 0:
            ns += exact_value(hands, leader, tr, n, play, ctx, M_AUTO, np.int64(-1))
        return ns if me % 2 == 0 else root_total - ns
    if hands[0] | hands[1] | hands[2] | hands[3] == 0:
        makes = (acc_ns >= need) if decl_side == 0 else (root_total - acc_ns >= need)
    elif decl_side == 0:
        makes = reaches(hands, leader, tr, n, need - acc_ns, play, ctx)
    else:
        makes = not reaches(hands, leader, tr, n, root_total - need + 1 - acc_ns, play, ctx)
    mine = me % 2 == decl_side
    return np.int64(1) if makes == mine else np.int64(0)


@nb.njit(cache=True)
def _hands_of(worlds, w, played, out):
    for s in range(4):
        out[s] = worlds[w, s] & ~played


@nb.njit(cache=True)
def after_card(me, worlds, idx, leader, trick, n, played, acc_ns, own_left, c, root_total,
               objective, decl_side, need, cap, limit, play, ctx, stats):
    """The front after card ``c`` is played as card ``n`` of the trick (by the seat to
    play) in the worlds ``idx`` (``worlds``: the hands at the root, ``played``: the cards
    played since), ``own_left`` of ``me``'s moves still to keep common; past ``limit``
    nodes in ``stats`` every node is valued world by world."""
    stats[ST_NODES] += 1
    n_w = worlds.shape[0]
    tr = trick_copy(trick, n)
    tr[n] = c
    n += 1
    played = played | (np.int64(1) << c)
    hands = np.zeros(4, np.int64)
    _hands_of(worlds, idx[0], played, hands)
    if n == 4:
        last = hands[0] | hands[1] | hands[2] | hands[3] == 0
        w, pts = trick_result(tr, leader, last, play)
        if w % 2 == 0:
            acc_ns += pts
        leader = w
        n = 0
    seat = (leader + n) % 4
    over = stats[ST_NODES] > limit
    stats[ST_OVER] += over
    if idx.shape[0] == 1 or (seat == me and own_left == 0) or over or (
            hands[0] | hands[1] | hands[2] | hands[3] == 0):
        leaf = np.zeros((1, n_w), np.int64)
        for w in idx:
            _hands_of(worlds, w, played, hands)
            leaf[0, w] = _leaf(me, hands, leader, tr, n, acc_ns, root_total, objective,
                               decl_side, need, play, ctx)
            stats[ST_LEAVES] += 1
        return leaf
    if seat == me:  # one card for every world here
        legal = legal_cards(hands[me], tr, n, play.strength, play.above, play.rules)
        front = np.zeros((0, n_w), np.int64)
        while legal != 0:
            d = lowest_bit(legal)
            legal &= legal - 1
            sub = after_card(me, worlds, idx, leader, tr, n, played, acc_ns, own_left - 1, d,
                             root_total, objective, decl_side, need, cap, limit, play, ctx,
                             stats)
            front = pareto(np.concatenate((front, sub)), idx, cap, stats)
        return front
    # another seat: each card a child over the worlds where it is legal
    legal_w = np.zeros(idx.shape[0], np.int64)
    union = np.int64(0)
    for i in range(idx.shape[0]):
        _hands_of(worlds, idx[i], played, hands)
        legal_w[i] = legal_cards(hands[seat], tr, n, play.strength, play.above, play.rules)
        union |= legal_w[i]
    best_for_me = seat % 2 == me % 2
    covered = np.zeros(n_w, np.bool_)
    front = np.zeros((0, n_w), np.int64)
    while union != 0:
        d = lowest_bit(union)
        union &= union - 1
        count = 0
        for i in range(idx.shape[0]):
            count += (legal_w[i] >> d) & 1
        sub_idx = np.empty(count, np.int64)
        j = 0
        for i in range(idx.shape[0]):
            if (legal_w[i] >> d) & 1:
                sub_idx[j] = idx[i]
                j += 1
        sub = after_card(me, worlds, sub_idx, leader, tr, n, played, acc_ns, own_left, d,
                         root_total, objective, decl_side, need, cap, limit, play, ctx, stats)
        if front.shape[0] == 0:
            front = sub
        else:
            front = _combine(front, sub, covered, sub_idx, best_for_me, idx, cap, stats)
        for w in sub_idx:
            covered[w] = True
    return front


@nb.njit(cache=True)
def _combine(front, sub, covered, sub_idx, best_for_me, idx, cap, stats):
    """Every pair of a vector of ``front`` (over the ``covered`` worlds) and one of
    ``sub`` (over ``sub_idx``), world by world the better (``best_for_me``) or worse of
    the two where both have a value; Pareto-reduced over the worlds covered after it."""
    k1, k2 = front.shape[0], sub.shape[0]
    out = np.empty((k1 * k2, front.shape[1]), np.int64)
    r = 0
    for a in range(k1):
        for b in range(k2):
            out[r, :] = front[a, :]
            for w in sub_idx:
                v = sub[b, w]
                if not covered[w]:
                    out[r, w] = v
                elif best_for_me:
                    if v > out[r, w]:
                        out[r, w] = v
                elif v < out[r, w]:
                    out[r, w] = v
            r += 1
    now = np.empty(idx.shape[0], np.int64)
    m = 0
    for w in idx:
        if covered[w]:
            now[m] = w
            m += 1
    for w in sub_idx:
        if not covered[w]:
            now[m] = w
            m += 1
    return pareto(out, now[:m], cap, stats)


@nb.njit(cache=True)
def alphamu_values(me, worlds, gone, leader, trick, n, play, ctx, depth, objective,
                   decl_side, need, cap, prune, budget, values, stats):
    """Seat ``me``'s card over the ``worlds`` (``[k, 4]``: the hands left, ``me``'s the
    same in each), its next ``depth`` own moves common across the worlds it cannot tell
    apart; ``values`` as :func:`~.pimc.decide` fills them (mean N-S points from the trick's
    start, or P(the declaring side makes)), ties broken the same way. Returns the card.

    Cards are searched in the order of PIMC's values on the same worlds, which bound
    theirs from above; with ``prune`` a card whose bound is below a value already reached
    is not searched and keeps its bound (``values`` then holds PIMC's value for it: still
    below the card chosen, which is the same as without ``prune``). Past ``budget`` nodes
    the rest is valued world by world (budget 0: PIMC's values)."""
    values[:] = np.nan
    k = worlds.shape[0]
    legal = legal_cards(worlds[0, me], trick, n, play.strength, play.above, play.rules)
    if popcount32(legal) == 1:
        return lowest_bit(legal)
    root_total = points_from_trick(gone, play)
    idx = np.arange(k)
    live = np.int64(0xFFFFFFFF) & ~gone
    # PIMC's sums on the same worlds: each card's upper bound (fusion only adds)
    bound = np.zeros(32, np.float64)
    world_sums(me, legal, worlds, np.ones(k), gone, leader, trick, n, play, ctx, objective,
               decl_side, need, bound)
    cards = np.zeros(8, np.int64)
    keys = np.zeros(8, np.float64)
    m = 0
    rest = legal
    while rest != 0:
        c = lowest_bit(rest)
        rest &= rest - 1
        if twin_card(c, legal, live, play) < 0:
            cards[m] = c
            keys[m] = -_mine(bound[c], me, objective, decl_side, k, root_total)
            m += 1
    sums = bound.copy()
    if depth <= 1:  # PIMC: the bounds are the values
        return choose_card(me, legal, sums, float(k), gone, play, objective, decl_side,
                           values)
    order = np.argsort(keys[:m], kind="mergesort")
    limit = stats[ST_NODES] + budget
    best = -1.0
    for i in order:
        c = cards[i]
        if prune and -keys[i] < best:  # its bound is below a value reached: keep the bound
            stats[ST_PRUNED] += 1
            continue
        front = after_card(me, worlds, idx, leader, trick, n, np.int64(0), np.int64(0),
                           depth - 1, c, root_total, objective, decl_side, need, cap, limit,
                           play, ctx, stats)
        top = np.int64(-1)
        for r in range(front.shape[0]):
            s = np.int64(0)
            for w in range(k):
                s += front[r, w]
            if s > top:
                top = s
        if top > best:
            best = float(top)
        # back to the convention of PIMC's sums: N-S points, or the declarer's chance
        sums[c] = _mine(float(top), me, objective, decl_side, k, root_total)
    return choose_card(me, legal, sums, float(k), gone, play, objective, decl_side, values)


@nb.njit(cache=True)
def _mine(x, me, objective, decl_side, k, root_total):
    """A sum over ``k`` worlds between PIMC's convention (N-S points, or the declaring
    side's makes) and the seat's side's (both ways: the map is its own inverse)."""
    if objective == 0:
        return x if me % 2 == 0 else k * root_total - x
    return x if me % 2 == decl_side else k - x


@nb.njit(cache=True)
def decide_alphamu(me, own, fixed, forbid, counts, gone, leader, trick, n, play, ctx,
                   n_worlds, key, objective, decl_side, need, depth, cap, values, scratch,
                   stats):
    """Seat ``me``'s card by alpha-mu over worlds drawn as :func:`~.pimc.decide` draws
    them (the same stream, so the same worlds); arguments as there, with ``depth`` and
    ``cap``; before trick :data:`FROM_TRICK`, PIMC's card on those worlds. Returns (card,
    worlds used; -1 when no world fits, 0 for a forced card)."""
    values[:] = np.nan
    legal = legal_cards(own, trick, n, play.strength, play.above, play.rules)
    if popcount32(legal) == 1:
        return lowest_bit(legal), np.int64(0)
    worlds = decision_worlds(me, own, fixed, forbid, counts, gone, trick, n, n_worlds, key,
                             scratch)
    k = worlds.shape[0]
    if k == 0:
        return np.int64(-1), np.int64(-1)
    if popcount32(gone) < 4 * (FROM_TRICK - 1):
        depth = np.int64(1)
    c = alphamu_values(me, worlds, gone, leader, trick, n, play, ctx, depth, objective,
                       decl_side, need, cap, np.bool_(True), np.int64(NODE_BUDGET), values,
                       stats)
    return c, k
