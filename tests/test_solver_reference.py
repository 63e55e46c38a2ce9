"""The brute-force reference's memo (``naive_play.memo_minimax``) against its plain
minimax (``naive_play.minimax``), which it replaces in the solver's gates.

Default selection (make test): positions of 1-3 tricks, every ruleset and contract kind,
in points and in tricks, from a trick boundary and from inside a trick, half of them with
a legal-play flag flipped. ``gate`` (make gate): the same on 4 tricks.
"""

from __future__ import annotations

import numpy as np
import pytest

from bazarsim.rules.rulesets import RULESETS, get_ruleset

from . import naive_play as NP

KIND_NAMES = ("S", "H", "D", "C", "BK", "VK")


def random_state(rng, tricks, kind, rules, step):
    """Hands of ``tricks`` cards each, a leader and 0-3 cards of the trick played by the
    reference's own legal moves (card strings, as :func:`NP.minimax` takes them)."""
    deck = [r + s for s in "SHDC" for r in "789TJQKA"]
    order = rng.permutation(32)
    hands = [[deck[i] for i in order[seat * tricks : (seat + 1) * tricks]] for seat in range(4)]
    leader = int(rng.integers(4))
    trick = []
    for i in range(int(rng.integers(0, 4))):
        seat = (leader + step * i) % 4
        options = NP.legal(hands[seat], seat, trick, kind, rules)
        card = options[int(rng.integers(len(options)))]
        hands[seat] = [c for c in hands[seat] if c != card]
        trick.append((seat, card))
    return hands, leader, trick


def check_memo(tricks, count, seed):
    rng = np.random.default_rng(seed)
    flags = list(NP.RULES["bazar"])
    for rs_name in RULESETS:
        step = -1 if rs_name in NP.COUNTERCLOCKWISE else 1
        for kind in (KIND_NAMES[k] for k in get_ruleset(rs_name).kinds):
            for i in range(count):
                rules = dict(NP.RULES[rs_name])
                if i % 2:
                    flag = flags[int(rng.integers(len(flags)))]
                    rules[flag] = not rules[flag]
                hands, leader, trick = random_state(rng, int(rng.integers(1, tricks + 1)),
                                                    kind, rules, step)
                for score in ("points", "tricks"):
                    want = NP.minimax(hands, leader, kind, rules, trick, score, step)
                    got = NP.memo_minimax(hands, leader, kind, rules, trick, score, step)
                    assert got == want, (rs_name, kind, rules, hands, leader, trick, score)


def test_memo_reference_matches_plain():
    """Positions of 1-3 tricks, 12 a ruleset and kind (make test)."""
    check_memo(3, 12, seed=7)


@pytest.mark.gate
def test_memo_reference_matches_plain_gate():
    """Positions of 1-4 tricks, 40 a ruleset and kind (make gate).

    Sample in make test: test_memo_reference_matches_plain"""
    check_memo(4, 40, seed=8)


def test_memo_shares_states():
    """The memo is read (a 4-trick position finds states already solved), and the value
    is the plain one's."""
    deck = [r + s for s in "SHDC" for r in "789TJQKA"]
    order = np.random.default_rng(3).permutation(32)
    hands = [[deck[i] for i in order[seat * 4 : seat * 4 + 4]] for seat in range(4)]
    stats = {}
    got = NP.memo_minimax(hands, 1, "BK", NP.RULES["bazar"], stats=stats)
    assert got == NP.minimax(hands, 1, "BK", NP.RULES["bazar"])
    assert stats["hits"] > 0 and 0 < stats["states"] < stats["nodes"]
