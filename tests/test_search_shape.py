"""The shape-keyed table (``O_SHAPE``) against plain Python.

Its key (each suit's live cards packed onto the suit's weakest cards, holders kept) is
checked against a plain-Python packing; its bit packer against a loop over bits; and the
claim the shifted bounds rest on, that two positions of one shape differ in value by no
more than the point differences of their paired cards, is checked on exact values
solved with ``O_SHAPE`` off, for every contract kind.
"""

from __future__ import annotations

import numpy as np
import pytest

from bazarsim.core.contracts import KIND_NAMES
from bazarsim.dd.search import O_ALL, O_SHAPE, S_MONO, new_context, to_layout
from bazarsim.dd.solver import Solver
from bazarsim.dd.table import (  # the table's own helpers, checked one by one
    _PAIR_MAX,
    _pack8,
    _shape_key,
    _shape_shift,
    _shape_shift_mono,
    _tt_key,
)
from bazarsim.rules.play import R_MONOTONE, contract_play
from bazarsim.rules.rulesets import get_ruleset

from .test_bitops import pext_ref
from .test_solver import random_position


def test_pack8_every_byte_pair():
    for m in range(256):
        for x in range(256):
            assert _pack8(x & m, m) == pext_ref(x & m, m), (x, m)


def runs_table(lengths: list[int]) -> np.ndarray:
    """The search's per-suit run masks (``bottom_runs``) for runs of these lengths."""
    zc = np.zeros(40, np.int64)
    for su, r in enumerate(lengths):
        for k in range(r + 1):
            zc[10 * su + k] = ((1 << k) - 1) << (8 * su)
        zc[10 * su + 9] = ((1 << r) - 1) << (8 * su)
    return zc


def key_ref(hands: list[int], lengths: list[int]) -> tuple[int, int]:
    """Each suit's live cards inside its run dealt again onto the run's lowest cards, in
    order, each to the hand that held it; the cards above the run unchanged."""
    out = [0, 0, 0, 0]
    for su, r in enumerate(lengths):
        run = ((1 << r) - 1) << (8 * su)
        for h in range(4):
            out[h] |= hands[h] & (0xFF << (8 * su)) & ~run
        live = [c for c in range(8 * su, 8 * su + 8) if any((h >> c) & 1 for h in hands)
                and (run >> c) & 1]
        for i, c in enumerate(live):
            owner = next(h for h in range(4) if (hands[h] >> c) & 1)
            out[owner] |= 1 << (8 * su + i)
    return out[0] | (out[1] << 32), out[2] | (out[3] << 32)


def test_key_matches_plain_python():
    rng = np.random.default_rng(5)
    for _ in range(3000):
        lengths = [int(x) for x in rng.integers(0, 9, 4)]
        perm = rng.permutation(32)
        size = int(rng.integers(1, 9))
        hands = [sum(1 << int(c) for c in perm[h * size:(h + 1) * size]) for h in range(4)]
        # some cards already played
        gone = int(rng.integers(0, 1 << 32)) & int(rng.integers(0, 1 << 32))
        hands = [h & ~gone for h in hands]
        got = _tt_key(np.array(hands, np.int64), runs_table(lengths))
        # the kernel's words are int64: compare them as 64-bit patterns
        want = tuple(v & (2**64 - 1) for v in key_ref(hands, lengths))
        assert tuple(int(v) & (2**64 - 1) for v in got) == want, (hands, lengths)


def shape_key_ref(hands: list[int]) -> tuple[int, int]:
    """The ``O_SHAPE`` key as plain Python: for each of the first three hands, one bit per
    live card (suit by suit, weakest first), set if the hand holds it; then each suit's
    number of live cards, four bits each."""
    live = [c for c in range(32) if any((h >> c) & 1 for h in hands)]
    bits = [sum(1 << i for i, c in enumerate(live) if (h >> c) & 1) for h in hands[:3]]
    lens = sum(sum(1 for c in live if c >> 3 == su) << (4 * su) for su in range(4))
    return bits[0] | (bits[1] << 32), bits[2] | (lens << 32)


def random_hands(rng: np.random.Generator) -> list[int]:
    perm = rng.permutation(32)
    size = int(rng.integers(1, 9))
    hands = [sum(1 << int(c) for c in perm[h * size:(h + 1) * size]) for h in range(4)]
    gone = int(rng.integers(0, 1 << 32)) & int(rng.integers(0, 1 << 32))
    return [h & ~gone for h in hands]


def test_shape_key_matches_plain_python_and_the_whole_suit_runs():
    """The key the search uses under ``O_SHAPE`` against plain Python, and two positions
    share it exactly when they share the general key with every suit one run (each
    suit's live cards dealt again from its weakest card: the same shape)."""
    rng = np.random.default_rng(11)
    whole = runs_table([8, 8, 8, 8])
    seen: dict[tuple, tuple] = {}
    shared = 0
    for i in range(6000):
        if i % 2 and seen:  # half the positions: another of an earlier one's shape
            hands = list(rng.choice(list(seen.values())))
            hands = [int(h) for h in same_shape(rng, np.array(hands, np.uint32),
                                                np.tile(np.arange(8), 4))]
        else:
            hands = random_hands(rng)
        got = tuple(int(v) & (2**64 - 1) for v in _shape_key(np.array(hands, np.int64)))
        assert got == tuple(v & (2**64 - 1) for v in shape_key_ref(hands)), hands
        general = tuple(int(v) for v in _tt_key(np.array(hands, np.int64), whole))
        if got in seen:
            shared += 1
            old = seen[got]
            assert tuple(int(v) for v in _tt_key(np.array(old, np.int64), whole)) == general
        seen.setdefault(got, hands)
    by_general = {tuple(int(v) for v in _tt_key(np.array(h, np.int64), whole)) for h in
                  seen.values()}
    assert len(by_general) == len(seen)  # distinct shape keys, distinct general keys
    assert shared > 2000


def same_shape(rng: np.random.Generator, hands: np.ndarray, strength: np.ndarray) -> np.ndarray:
    """A random position of the shape of ``hands``: in each suit as many live cards, the
    k-th strongest of them held by the hand that holds the k-th strongest in ``hands``."""
    out = np.zeros(4, np.uint32)
    for su in range(4):
        cards = range(8 * su, 8 * su + 8)
        live = sorted((c for c in cards if any((int(h) >> c) & 1 for h in hands)),
                      key=lambda c: strength[c])
        pick = sorted(rng.choice(list(cards), len(live), replace=False), key=lambda c: strength[c])
        for old, new in zip(live, pick, strict=True):
            owner = next(h for h in range(4) if (int(hands[h]) >> old) & 1)
            out[owner] |= np.uint32(1 << int(new))
    return out


def shift_ref(a: np.ndarray, b: np.ndarray, points: np.ndarray, strength: np.ndarray):
    """Sum of the negative and of the positive point differences of the cards of ``b``
    against those of ``a`` in the same place (suit and strength order)."""
    lo = hi = 0
    for su in range(4):
        def live(hands, su=su):
            return sorted((c for c in range(8 * su, 8 * su + 8)
                           if any((int(h) >> c) & 1 for h in hands)), key=lambda c: strength[c])
        for x, y in zip(live(a), live(b), strict=True):
            d = int(points[y]) - int(points[x])
            lo, hi = lo + min(d, 0), hi + max(d, 0)
    return lo, hi


def layout_live(hands: np.ndarray, strength: np.ndarray) -> int:
    """The live cards in the search layout (card ``8 s + k``: the k-th weakest of suit s)."""
    out = 0
    for c in range(32):
        if any((int(h) >> c) & 1 for h in hands):
            out |= 1 << ((c & ~7) | int(strength[c]))
    return out


@pytest.mark.parametrize("kind", range(6), ids=lambda k: KIND_NAMES[k])
def test_same_shape_values_differ_within_the_shift(kind):
    rs = get_ruleset("bazar")
    play = contract_play(rs, kind)
    lay_points = np.zeros(32, np.int64)
    for c in range(32):
        lay_points[(c & ~7) | int(play.strength[c])] = play.points[c]
    plain = Solver(opts=O_ALL & ~O_SHAPE)
    rng = np.random.default_rng(40 + kind)
    shifted = 0
    for _ in range(400):
        a = random_position(rng, int(rng.integers(2, 5)))
        b = same_shape(rng, a, play.strength)
        lo, hi = shift_ref(a, b, play.points, play.strength)
        # the kernel's shift, in the search layout, is the same
        got = _shape_shift(layout_live(a, play.strength), layout_live(b, play.strength),
                           lay_points)
        assert (int(got[0]), int(got[1])) == (lo, hi)
        leader = int(rng.integers(0, 4))
        va = plain.solve(a, kind, leader, rs).ns_points
        vb = plain.solve(b, kind, leader, rs).ns_points
        assert va + lo <= vb <= va + hi, (a, b, va, vb, lo, hi)
        shifted += va != vb
    assert shifted > 0  # the sample holds positions whose values do differ


def test_pair_table_matches_plain_pairing():
    """Every pair of bytes: the stronger bit of each pair of k-th set bits when the counts
    agree, else 0."""
    for a in range(256):
        xs = [i for i in range(8) if (a >> i) & 1]
        for b in range(256):
            ys = [i for i in range(8) if (b >> i) & 1]
            want = (sum(1 << max(x, y) for x, y in zip(xs, ys, strict=True))
                    if len(xs) == len(ys) else 0)
            assert _PAIR_MAX[256 * a + b] == want, (a, b)


@pytest.mark.parametrize("ruleset", ["bazar", "bazar-blot", "belote-fr", "bela-hr"])
def test_branch_free_shift_matches_the_pairwise_loop(ruleset):
    """Where points never fall with strength, the table's shift is taken from the pairs'
    stronger cards (``_shape_shift_mono``); it equals the pairwise loop (checked against
    plain Python above) on random pairs of live sets of equal suit counts, for every
    kind of the ruleset. ``to_layout`` fills the byte sums and the flag it rests on."""
    rs = get_ruleset(ruleset)
    rng = np.random.default_rng(17)
    for kind in rs.kinds:
        play = contract_play(rs, kind)
        ctx = new_context()
        to_layout(np.zeros(4, np.int64), np.zeros(0, np.int64), 0, play.points,
                  play.strength, ctx)
        lay = np.zeros(32, np.int64)
        for c in range(32):
            lay[(c & ~7) | int(play.strength[c])] = play.points[c]
        assert ctx.stats[S_MONO] == play.rules[R_MONOTONE] == 1
        bp = ctx.byte_points
        assert all(bp[256 * su + b] == sum(int(lay[8 * su + i]) for i in range(8) if b >> i & 1)
                   for su in range(4) for b in range(256))
        for _ in range(3000):
            old = new = 0
            for su in range(4):
                k = int(rng.integers(0, 9))
                for word in range(2):
                    byte = sum(1 << int(i) for i in rng.choice(8, k, replace=False))
                    if word == 0:
                        old |= byte << (8 * su)
                    else:
                        new |= byte << (8 * su)
            want = _shape_shift(old, new, lay)
            got = _shape_shift_mono(old, new, bp)
            assert (int(got[0]), int(got[1])) == (int(want[0]), int(want[1])), (old, new)
    # a points table that falls with strength somewhere keeps the pairwise loop
    play = contract_play(rs, 0)
    pts = play.points.copy()
    weakest, strongest = (int(np.argmin(play.strength[:8])), int(np.argmax(play.strength[:8])))
    pts[weakest], pts[strongest] = 30, 0
    ctx = new_context()
    to_layout(np.zeros(4, np.int64), np.zeros(0, np.int64), 0, pts, play.strength, ctx)
    assert ctx.stats[S_MONO] == 0


def test_points_falling_with_strength_all_on_equals_all_off():
    """A points table that is not monotone (the search then keeps the pairwise shift and
    the quick tricks' cautious count): every enhancement on equals plain alpha-beta on
    positions of four and five tricks, each contract kind with its weakest and strongest
    cards' points swapped in one suit."""
    from bazarsim.dd.search import M_FULL, ZERO, exact_value, new_search

    rs = get_ruleset("bazar")
    rng = np.random.default_rng(23)
    on, off = new_context(), new_context(opts=0)
    cards = np.zeros(4, np.int64)
    bent_matters = 0
    for kind in range(6):
        play = contract_play(rs, kind)
        pts = play.points.copy()
        su = int(rng.integers(4))
        strengths = play.strength[8 * su : 8 * su + 8]
        lo, hi = 8 * su + int(np.argmin(strengths)), 8 * su + int(np.argmax(strengths))
        pts[lo], pts[hi] = pts[hi] + 5, pts[lo]
        rules = play.rules.copy()
        rules[R_MONOTONE] = 0
        bent = play._replace(points=pts, rules=rules)
        for _ in range(25):
            hands = random_position(rng, 4 + int(rng.integers(2))).astype(np.int64)
            leader = np.int64(rng.integers(4))
            new_search(on)
            new_search(off)
            a = exact_value(hands, leader, cards, ZERO, bent, on, M_FULL, ZERO - 1)
            b = exact_value(hands, leader, cards, ZERO, bent, off, M_FULL, ZERO - 1)
            assert a == b, (kind, hands.tolist(), leader)
            assert on.stats[S_MONO] == 0
            new_search(on)
            bent_matters += a != exact_value(hands, leader, cards, ZERO, play, on, M_FULL,
                                             ZERO - 1)
    assert bent_matters > 30  # the swapped points change the value of 71 of the 150
