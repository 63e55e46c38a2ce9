"""Exact information-set values of the last tricks: the plain-Python reference for a card
player that does not assume it will see the hidden cards later (issue 67,
reports/card-play-notes.md).

The model: seat ``me`` knows its own hand and the cards played; it holds the same hand in
every world of a given set, and must play the same card in every world that the cards
seen since the position do not tell apart (one *strategy*: a card for each of its
information sets). The other three seats play each world knowing it, and knowing ``me``'s
strategy: the partner for ``me``'s side, the opponents against it (as a double-dummy
solver would, world by world). Values are the card points ``me``'s side takes from the
start of the current trick (the last trick's bonus included; no declarations).

Two computations of the same numbers, kept independent:

* :func:`brute_force_values`: every strategy of ``me`` enumerated, each world played out
  under it by a minimax over the other seats' moves; a card's value is the best mean over
  the worlds among the strategies that play it first. Exponential in ``me``'s
  information sets (:func:`strategy_count` says how many strategies a position has).
* :func:`alpha_mu_values`: one search of the tree with a vector of values over the worlds
  at each leaf; ``me``'s nodes keep the Pareto front of the vectors of its moves (it picks
  one move for all its worlds), the other seats' nodes combine one vector of each move and
  take, world by world, the best (partner) or worst (opponent) of the moves available in
  that world (the design of Cazenave and Ventos, alpha-mu, at full depth).

Cards, hands, kinds and legal play are those of :mod:`tests.naive_play`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from tests.naive_play import LAST_TRICK, legal, points, trick_winner

Trick = tuple[tuple[int, str], ...]


def _remove(hand: Sequence[str], card: str) -> tuple[str, ...]:
    return tuple(c for c in hand if c != card)


def _next(leader: int, trick: Trick, step: int) -> int:
    return (leader + step * len(trick)) % 4


def _close(trick: Trick, hands, kind: str, me: int) -> tuple[int, int]:
    """A full trick's winner and the points it gives ``me``'s side."""
    winner = trick_winner(list(trick), kind)
    value = sum(points(c, kind) for _, c in trick) + (LAST_TRICK if not any(hands) else 0)
    return winner, value if winner % 2 == me % 2 else 0


# --------------------------------------------------------------------------- brute force


def information_sets(worlds, me: int, leader: int, kind: str, rules, trick: Trick = (),
                     step: int = 1) -> dict[Trick, list[str]]:
    """``me``'s information sets reachable in any world by any play: the cards played
    since the position (in order, with their seats) -> ``me``'s legal cards there."""
    found: dict[Trick, list[str]] = {}

    def walk(hands, leader, trick, seen):
        if len(trick) == 4:
            winner, _ = _close(trick, hands, kind, me)
            if any(hands):
                walk(hands, winner, (), seen)
            return
        seat = _next(leader, trick, step)
        moves = legal(list(hands[seat]), seat, list(trick), kind, rules)
        if seat == me:
            found.setdefault(seen, moves)
        for card in moves:
            rest = list(hands)
            rest[seat] = _remove(hands[seat], card)
            walk(tuple(rest), leader, trick + ((seat, card),), seen + ((seat, card),))

    for hands in worlds:
        walk(tuple(tuple(h) for h in hands), leader, tuple(trick), ())
    return found


def strategy_count(worlds, me, leader, kind, rules, trick=(), step=1) -> int:
    """How many strategies ``me`` has at the position (the brute force's work)."""
    count = 1
    for moves in information_sets(worlds, me, leader, kind, rules, trick, step).values():
        count *= len(moves)
    return count


def play_with(strategy: dict[Trick, str], hands, me: int, leader: int, kind: str, rules,
              trick: Trick = (), step: int = 1) -> int:
    """The points of ``me``'s side in one world when ``me`` plays ``strategy`` and the
    others play that world best for their side (partner maximising, opponents
    minimising), knowing the strategy."""

    def value(hands, leader, trick, seen):
        if len(trick) == 4:
            winner, gain = _close(trick, hands, kind, me)
            return gain + (value(hands, winner, (), seen) if any(hands) else 0)
        seat = _next(leader, trick, step)
        if seat == me:
            moves = [strategy[seen]]
        else:
            moves = legal(list(hands[seat]), seat, list(trick), kind, rules)
        results = []
        for card in moves:
            rest = list(hands)
            rest[seat] = _remove(hands[seat], card)
            results.append(value(tuple(rest), leader, trick + ((seat, card),),
                                 seen + ((seat, card),)))
        return max(results) if seat % 2 == me % 2 else min(results)

    return value(tuple(tuple(h) for h in hands), leader, tuple(trick), ())


def brute_force_values(worlds, me: int, leader: int, kind: str, rules, trick: Trick = (),
                       step: int = 1) -> dict[str, float]:
    """Each legal card of ``me`` at the position: the best mean over ``worlds`` of the
    strategies that play it first (every strategy enumerated)."""
    sets = information_sets(worlds, me, leader, kind, rules, trick, step)
    keys = list(sets)
    best: dict[str, float] = {}
    for choice in itertools.product(*(sets[k] for k in keys)):
        strategy = dict(zip(keys, choice, strict=True))
        mean = sum(play_with(strategy, w, me, leader, kind, rules, trick, step)
                   for w in worlds) / len(worlds)
        first = strategy[()]
        best[first] = max(best.get(first, float("-inf")), mean)
    return best


# --------------------------------------------------------------------------- alpha-mu


def pareto(vectors: list[tuple[float, ...]]) -> list[tuple[float, ...]]:
    """The vectors no other one dominates (at least as large everywhere), each once."""
    out: list[tuple[float, ...]] = []
    for v in sorted(set(vectors), reverse=True):
        if not any(all(a >= b for a, b in zip(u, v, strict=True)) for u in out):
            out.append(v)
    return out


def alpha_mu_front(worlds, alive: tuple[int, ...], me: int, leader: int, kind: str, rules,
                   trick: Trick, step: int, own_left: int = 99) -> list[tuple[float, ...]]:
    """The Pareto front at a node: one vector (over the worlds ``alive`` there) for each
    strategy of ``me`` worth keeping, its points from the start of the current trick.
    ``own_left``: ``me``'s moves still one choice for all its worlds; at its next move
    after them each world takes its double-dummy value (``me`` then sees the world)."""
    if len(trick) == 4:
        first = worlds[alive[0]]
        winner, gain = _close(trick, first, kind, me)
        if not any(first):
            return [tuple(float(gain) for _ in alive)]
        return [tuple(x + gain for x in v) for v in
                alpha_mu_front(worlds, alive, me, winner, kind, rules, (), step, own_left)]
    seat = _next(leader, trick, step)
    if seat == me and own_left == 0:
        return [tuple(float(_dd(worlds[w], me, leader, kind, rules, trick, step))
                      for w in alive)]

    def child(card: str, where: tuple[int, ...]):
        sub = list(worlds)
        for w in where:
            hands = list(sub[w])
            hands[seat] = _remove(hands[seat], card)
            sub[w] = tuple(hands)
        return alpha_mu_front(sub, where, me, leader, kind, rules, trick + ((seat, card),),
                              step, own_left - (seat == me))

    if seat == me:  # one card for every world here
        moves = legal(list(worlds[alive[0]][me]), me, list(trick), kind, rules)
        return pareto([v for card in moves for v in child(card, alive)])
    # each world's own legal cards; a card is a child with the worlds where it is legal
    where: dict[str, list[int]] = {}
    for w in alive:
        for card in legal(list(worlds[w][seat]), seat, list(trick), kind, rules):
            where.setdefault(card, []).append(w)
    cards = sorted(where)
    fronts = [child(c, tuple(where[c])) for c in cards]
    index = [{w: i for i, w in enumerate(where[c])} for c in cards]
    best = max if seat % 2 == me % 2 else min
    out = []
    for pick in itertools.product(*fronts):  # one strategy below each card
        out.append(tuple(
            best(pick[j][index[j][w]] for j in range(len(cards)) if w in index[j])
            for w in alive))
    return pareto(out)


def alpha_mu_values(worlds, me: int, leader: int, kind: str, rules, trick: Trick = (),
                    step: int = 1, depth: int = 99) -> dict[str, float]:
    """Each legal card of ``me``: the best mean over the worlds of its front (``depth``:
    ``me``'s moves one choice for all worlds, this one included; later ones see the
    world)."""
    hands = [tuple(tuple(h) for h in w) for w in worlds]
    alive = tuple(range(len(hands)))
    out = {}
    for card in legal(list(hands[0][me]), me, list(trick), kind, rules):
        sub = []
        for w in hands:
            rest = list(w)
            rest[me] = _remove(w[me], card)
            sub.append(tuple(rest))
        front = alpha_mu_front(sub, alive, me, leader, kind, rules,
                               tuple(trick) + ((me, card),), step, depth - 1)
        out[card] = max(sum(v) / len(v) for v in front)
    return out


def pimc_values(worlds, me: int, leader: int, kind: str, rules, trick: Trick = (),
                step: int = 1) -> dict[str, float]:
    """The PIMC reading: each card's mean over the worlds of its double-dummy value (``me``
    too choosing later cards knowing the world)."""
    out = {}
    for card in legal(list(worlds[0][me]), me, list(trick), kind, rules):
        total = 0
        for hands in worlds:
            rest = [tuple(h) for h in hands]
            rest[me] = _remove(rest[me], card)
            total += _dd(tuple(rest), me, leader, kind, rules, tuple(trick) + ((me, card),),
                         step)
        out[card] = total / len(worlds)
    return out


def _dd(hands, me, leader, kind, rules, trick, step) -> int:
    if len(trick) == 4:
        winner, gain = _close(trick, hands, kind, me)
        return gain + (_dd(hands, me, winner, kind, rules, (), step) if any(hands) else 0)
    seat = _next(leader, trick, step)
    results = []
    for card in legal(list(hands[seat]), seat, list(trick), kind, rules):
        rest = list(hands)
        rest[seat] = _remove(hands[seat], card)
        results.append(_dd(tuple(rest), me, leader, kind, rules, trick + ((seat, card),),
                           step))
    return max(results) if seat % 2 == me % 2 else min(results)
