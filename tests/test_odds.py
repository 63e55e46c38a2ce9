"""Exact odds against a full enumeration of all C(32, 8) = 10,518,300 hands."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest

from bazarsim.evaluate.hands import evaluate_hands
from bazarsim.evaluate.odds import ALL_HANDS, exact_features, exact_odds
from bazarsim.rules.rulesets import RULESETS, get_ruleset

from .naive import all_hands

RANK = {c: i for i, c in enumerate("789TJQKA")}


@pytest.fixture(scope="module")
def hands():
    h = all_hands()
    assert h.size == ALL_HANDS == 10_518_300
    # Gosper's hack lists them in increasing order: strictly increasing means no repeat
    # (cheaper than np.unique, which NumPy 2.4 hashes: 17 s on these 10.5 M values).
    assert np.all(h[1:] > h[:-1])
    return h


def _bit(h, pos):
    return (h >> np.uint32(pos)) & np.uint32(1)


def _popcount(h):
    """Set bits of each value, one bit position at a time."""
    n = np.zeros(h.shape, np.uint8)
    for pos in range(32):
        n += _bit(h, pos).astype(np.uint8)
    return n


def _four(h, rank):
    return _bit(h, rank) & _bit(h, 8 + rank) & _bit(h, 16 + rank) & _bit(h, 24 + rank)


def _run(h, length):
    """Some suit holds ``length`` adjacent ranks."""
    m = h.copy()
    for j in range(1, length):
        m &= h >> np.uint32(j)
    starts = sum(((1 << (9 - length)) - 1) << (8 * s) for s in range(4))
    return (m & np.uint32(starts)) != 0


@pytest.fixture(scope="module")
def common_counts(hands):
    """The counts that do not depend on the ruleset, enumerated once for all of them."""
    return enumerated_common_counts(hands)


def enumerated_common_counts(h) -> dict[str, int]:
    """Counts of each ruleset-independent hand feature by looking at every hand (trump =
    spades)."""
    K, Q, J, N = RANK["K"], RANK["Q"], RANK["J"], RANK["9"]
    counts = {}
    kq_suits = [_bit(h, 8 * s + K) & _bit(h, 8 * s + Q) for s in range(4)]
    counts["kq_any_suit"] = int((sum(kq_suits) > 0).sum())
    counts["kq_trump"] = int(kq_suits[0].sum())
    counts["jack_trump"] = int(_bit(h, J).sum())
    counts["nine_trump"] = int(_bit(h, N).sum())
    counts["jack_nine_trump"] = int((_bit(h, J) & _bit(h, N)).sum())
    for length in (3, 4, 5):
        counts[f"sequence_{length}plus"] = int(_run(h, length).sum())
    for name, ch in (("jacks", "J"), ("nines", "9"), ("aces", "A"), ("sevens", "7"),
                     ("eights", "8")):
        counts[f"four_{name}"] = int(_four(h, RANK[ch]).sum())
    trumps = _popcount(h & np.uint32(0xFF))
    aces = _popcount(h & np.uint32(0x80808080))
    for n in range(9):
        counts[f"trumps_{n}"] = int((trumps == n).sum())
    for n in range(5):
        counts[f"aces_{n}"] = int((aces == n).sum())
    return counts


def enumerated_counts(h, rs, common) -> dict[str, int]:
    """Counts of each hand feature of ruleset ``rs`` by looking at every hand."""
    counts = dict(common)
    dr = rs.declarations
    scoring = [RANK[c] for c, v in dr.four_values.items() if v > 0 and c not in "78"]
    any_four = sum(_four(h, r) for r in scoring) > 0
    counts["four_of_a_kind_scoring"] = int(any_four.sum())
    counts["declaration_any"] = int((any_four | _run(h, 3)).sum())
    if 4 in rs.kinds:
        bk = [RANK[c] for c, v in dr.four_values_bk.items() if v > 0 and c not in "78"]
        counts["four_of_a_kind_scoring_bk"] = int((sum(_four(h, r) for r in bk) > 0).sum())
    return counts


def placements_same_hand(cards: int) -> Fraction:
    """P(``cards`` given cards all land in one hand): enumerate their 32 slots directly."""
    same = total = 0
    for slots in permutations(range(32), cards):
        total += 1
        same += len({s // 8 for s in slots}) == 1
    return Fraction(same, total)


@pytest.mark.parametrize("name", list(RULESETS))
def test_every_hand_feature_equals_enumeration(hands, common_counts, name):
    rs = RULESETS[name]
    counts = enumerated_counts(hands, rs, common_counts)
    feats = {f.name: f.probability for f in exact_features(rs)}
    hand_feats = {k: v for k, v in feats.items() if not k.endswith("_at_table")}
    assert set(hand_feats) == set(counts)
    for feature, p in hand_feats.items():
        assert p == Fraction(counts[feature], ALL_HANDS), feature


def test_table_features_by_placement_enumeration():
    feats = {f.name: f.probability for f in exact_features()}
    two = placements_same_hand(2)
    assert two == Fraction(7, 31)
    assert feats["kq_trump_at_table"] == two
    assert feats["jack_nine_trump_at_table"] == two
    four = placements_same_hand(4)
    assert feats["four_sevens_at_table"] == four == feats["four_eights_at_table"]


def test_source_figure_one_hand_in_five():
    """docs/rules.md, Figures: K+Q of some suit 'about one deal in five': exactly 21.43%."""
    assert abs(exact_odds()["kq_any_suit"] - 0.2142503) < 1e-6


def test_kernel_agrees_with_enumeration(hands):
    """The evaluation kernel over all hands reproduces the exact odds it should."""
    rs = get_ruleset("bazar", **{"declarations.four_eights_cancel": False})
    feats = exact_odds(rs)
    r = evaluate_hands(hands, "S", rs)
    n = hands.size
    assert (r["declaration_points"] > 0).sum() / n == pytest.approx(feats["declaration_any"],
                                                                     abs=1e-12)
    assert (r["belas"] > 0).sum() / n == pytest.approx(feats["kq_trump"], abs=1e-12)
    assert ((r["trump_jacks"] > 0) & (r["trump_nines"] > 0)).sum() / n == pytest.approx(
        feats["jack_nine_trump"], abs=1e-12)
    for k in range(9):
        assert (r["trumps"] == k).sum() / n == pytest.approx(feats[f"trumps_{k}"], abs=1e-12)
    # Mean card points of a hand: a quarter of the 152 card points.
    assert r["points"].astype(np.int64).sum() * 4 == 152 * n
