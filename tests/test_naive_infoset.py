"""The exact information-set reference of the last tricks (tests/naive_infoset.py): its two
computations agree, and they differ from PIMC where PIMC assumes it will see the cards.

On random positions of every ruleset and kind with 2 or 3 tricks left, the seat to play
and a few worlds (the true hands of the others, reshuffled): the alpha-mu search equals
the brute force over every strategy; with one world, or with 2 tricks left (the last
card is forced: nothing to fuse), both equal PIMC's values; with more, PIMC's values are
never below them, and on some positions above (strategy fusion), which is what a PIMC-like
mistake in the search would be caught by.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests import naive_infoset as NI
from tests import naive_play as NP

LIMIT = 1024  # strategies the brute force may enumerate on one position


def position(rng: np.random.Generator, tricks: int, name: str, kind: str):
    """A random deal played at random down to ``tricks`` tricks left (and 0-3 cards of the
    next trick): the hands, the trick's leader and cards, the seat to play, the step."""
    rules = NP.RULES[name]
    step = -1 if name in NP.COUNTERCLOCKWISE else 1
    cards = [r + s for s in "SHDC" for r in "AKQJT987"]
    order = rng.permutation(32)
    hands = [[cards[i] for i in order[8 * s: 8 * s + 8]] for s in range(4)]
    leader, trick = int(rng.integers(4)), []
    extra = int(rng.integers(4))
    played = 0
    while played < 4 * (8 - tricks) + extra:
        seat = (leader + step * len(trick)) % 4
        moves = NP.legal(hands[seat], seat, trick, kind, rules)
        card = moves[int(rng.integers(len(moves)))]
        hands[seat] = [c for c in hands[seat] if c != card]
        trick.append((seat, card))
        played += 1
        if len(trick) == 4:
            leader, trick = NP.trick_winner(trick, kind), []
    me = (leader + step * len(trick)) % 4
    return hands, leader, tuple(trick), me, step, rules


def worlds_of(rng, hands, me: int, n: int):
    """The true hands and ``n - 1`` reshuffles of the others' cards (sizes kept)."""
    others = [s for s in range(4) if s != me]
    pool = [c for s in others for c in hands[s]]
    out = [[list(h) for h in hands]]
    for _ in range(n - 1):
        mixed = [pool[i] for i in rng.permutation(len(pool))]
        world, at = [list(h) for h in hands], 0
        for s in others:
            world[s] = mixed[at: at + len(hands[s])]
            at += len(hands[s])
        out.append(world)
    return out


CASES = [(name, kind) for name in NP.RULES for kind in NP.KINDS
         if not (name == "bela-hr" and kind in ("BK", "VK"))]


def check_positions(seed: int, count: int, tricks: int, n_worlds: int) -> int:
    """Cross-check ``count`` positions; how many showed strategy fusion in PIMC."""
    rng = np.random.default_rng(seed)
    fused = done = 0
    while done < count:
        name, kind = CASES[int(rng.integers(len(CASES)))]
        hands, leader, trick, me, step, rules = position(rng, tricks, name, kind)
        worlds = worlds_of(rng, hands, me, n_worlds)
        if NI.strategy_count(worlds, me, leader, kind, rules, trick, step) > LIMIT:
            continue
        done += 1
        args = (worlds, me, leader, kind, rules, trick, step)
        exact = NI.brute_force_values(*args)
        assert NI.alpha_mu_values(*args) == pytest.approx(exact), (name, kind, hands, trick)
        pimc = NI.pimc_values(*args)
        assert set(pimc) == set(exact)
        assert all(pimc[c] >= exact[c] - 1e-9 for c in exact)
        if n_worlds == 1 or tricks <= 2:
            assert pimc == pytest.approx(exact)
        fused += any(pimc[c] > exact[c] + 1e-9 for c in exact)
    return fused


def test_two_tricks_left_nothing_to_fuse():
    check_positions(1, 30, 2, 3)


def test_one_world_is_double_dummy():
    check_positions(2, 8, 3, 1)


def test_three_tricks_alpha_mu_is_the_brute_force_and_pimc_fuses():
    assert check_positions(20, 10, 3, 3) > 0  # fusion shows up: a PIMC-like search fails


@pytest.mark.gate
def test_infoset_reference_many_positions():
    """Sample in make test: test_three_tricks_alpha_mu_is_the_brute_force_and_pimc_fuses"""
    assert check_positions(10, 600, 3, 4) > 0
    check_positions(11, 300, 2, 6)
