"""Evaluation kernels against the plain-Python reference in tests/naive.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bazarsim.core.cards import parse_deal
from bazarsim.evaluate.hands import (
    SPECIAL_FOUR_EIGHTS,
    SPECIAL_FOUR_SEVENS,
    evaluate_deals,
    evaluate_hand,
    evaluate_hands,
    list_declarations,
)
from bazarsim.rules.compiled import FOUR_CLASS, compiled_rules
from bazarsim.rules.rulesets import RULESETS, get_ruleset

from . import naive
from .conftest import random_deals, random_hands

# Rulesets plus option variants that change evaluation.
VARIANTS = [(name, {}) for name in RULESETS] + [
    ("bazar", {"declarations.eight_card_sequence": "quint_plus_terz"}),
    ("bazar", {"declarations.four_eights_cancel": False, "declarations.four_sevens_redeal": False}),
]


def rich_hands(n: int, seed: int) -> np.ndarray:
    """Hands that often hold long runs, fours and belas (rare among uniform hands)."""
    rng = np.random.default_rng(seed)
    out = np.empty(n, np.uint32)
    for i in range(n):
        mode = rng.integers(3)
        chosen: set[int] = set()
        if mode == 0:  # one or two fours
            for r in rng.choice(8, size=rng.integers(1, 3), replace=False):
                chosen |= {s * 8 + int(r) for s in range(4)}
        elif mode == 1:  # a long suit
            s = int(rng.integers(4))
            k = int(rng.integers(5, 9))
            chosen |= {s * 8 + int(r) for r in rng.choice(8, size=k, replace=False)}
        else:  # two runs
            for s in rng.choice(4, size=2, replace=False):
                start = int(rng.integers(0, 5))
                chosen |= {int(s) * 8 + start + j for j in range(4)}
        chosen = set(list(chosen)[:8])
        rest = [c for c in rng.permutation(32) if c not in chosen]
        chosen |= set(int(c) for c in rest[: 8 - len(chosen)])
        out[i] = sum(1 << c for c in chosen)
    return out


def _check_against_naive(hands, kind, rs):
    got = evaluate_hands(hands, kind, rs)
    for i, h in enumerate(hands):
        ref = naive.evaluate_hand(int(h), kind, rs)
        ctx = f"hand {int(h):#010x} kind {kind} {rs.name}"
        for f in ("points", "trumps", "trump_jacks", "trump_nines", "aces", "belas",
                  "declaration_points"):
            assert got[f][i] == ref[f], f"{f}: {got[f][i]} != {ref[f]} ({ctx})"
        assert bool(got["special"][i] & SPECIAL_FOUR_SEVENS) == ref["four_sevens"], ctx
        assert bool(got["special"][i] & SPECIAL_FOUR_EIGHTS) == ref["four_eights"], ctx
        # The best key must order like the reference's comparison tuple.
        assert (got["best_declaration"][i] == 0) == (ref["best"] is None), ctx
    # Key order agrees with tuple order over all pairs with declarations.
    refs = [naive.evaluate_hand(int(h), kind, rs)["best"] for h in hands]
    keys = got["best_declaration"]
    idx = [i for i, r in enumerate(refs) if r is not None][:200]
    for a in idx:
        for b in idx:
            ra, rb = refs[a], refs[b]
            assert (keys[a] > keys[b]) == (ra > rb) and (keys[a] == keys[b]) == (ra == rb)


@pytest.mark.parametrize("name,opts", VARIANTS)
def test_hands_match_reference(name, opts):
    rs = get_ruleset(name, **opts)
    hands = np.concatenate([random_hands(1000, 11), rich_hands(1000, 12)])
    for kind in rs.kinds:
        _check_against_naive(hands, kind, rs)


@pytest.mark.gate
@pytest.mark.parametrize("name,opts", VARIANTS)
def test_hands_match_reference_100k(name, opts):
    """The acceptance gate: 100,000 random hands per contract kind and ruleset.

    Sample in make test: test_hands_match_reference"""
    rs = get_ruleset(name, **opts)
    hands = np.concatenate([random_hands(90_000, 21), rich_hands(10_000, 22)])
    for kind in rs.kinds:
        _check_against_naive(hands, kind, rs)


@pytest.mark.parametrize("name,opts", VARIANTS)
def test_deals_match_reference(name, opts):
    rs = get_ruleset(name, **opts)
    deals = random_deals(1000, 31)
    # Deals built around rich hands, so that fours and long runs meet in one deal.
    rng = np.random.default_rng(32)
    extra = []
    for h in rich_hands(500, 33):
        rest = [c for c in rng.permutation(32) if not int(h) >> int(c) & 1]
        others = [sum(1 << int(c) for c in rest[k * 8:(k + 1) * 8]) for k in range(3)]
        seat = int(rng.integers(4))
        hands = others[:seat] + [int(h)] + others[seat:]
        extra.append(hands)
    deals = np.concatenate([deals, np.array(extra, np.uint32)])
    dealers = np.arange(len(deals)) % 4
    for kind in rs.kinds:
        got = evaluate_deals(deals, dealers, kind, rs)
        for i, d in enumerate(deals):
            ref = naive.deal_declarations(d, int(dealers[i]), kind, rs)
            side = int(got["declaration_side"][i])
            ctx = f"deal {i} kind {kind} {rs.name}"
            assert (None if side < 0 else side) == ref["side"], ctx
            assert [got["declarations_ns"][i], got["declarations_ew"][i]] == ref["points"], ctx
            assert [got["bela_ns"][i], got["bela_ew"][i]] == ref["bela"], ctx
            assert bool(got["redeal"][i]) == ref["redeal"], ctx


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(list(RULESETS)))
def test_deal_totals_property(seed, name):
    """Card points of the four hands plus the last trick make 162 (258 in VK)."""
    rs = RULESETS[name]
    deal = random_deals(1, seed)[0]
    bonus = rs.cards.last_trick_bonus
    for kind in rs.kinds:
        pts = evaluate_hands(deal, kind, rs)["points"]
        assert int(pts.sum()) + bonus == (258 if kind == 5 else 162)
        assert rs.deal_total[kind] == (258 if kind == 5 else 162)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 3))
def test_declaration_side_properties(seed, dealer):
    """Only one side scores declarations, and it scores the sum of its two hands."""
    rs = RULESETS["bazar"]
    deal = random_deals(1, seed)
    for kind in rs.kinds:
        d = evaluate_deals(deal, dealer, kind, rs)
        h = evaluate_hands(deal[0], kind, rs)["declaration_points"]
        ns, ew = int(d["declarations_ns"][0]), int(d["declarations_ew"][0])
        assert ns == 0 or ew == 0
        side = int(d["declaration_side"][0])
        if side == 0:
            assert ns == h[0] + h[2]
        elif side == 1:
            assert ew == h[1] + h[3]
        else:
            assert ns == ew == 0


def test_worked_examples():
    rs = RULESETS["bazar"]
    e = evaluate_hand("AKQ.JT9.8.A", "H", rs)
    assert (e.points, e.trumps, e.trump_jacks, e.trump_nines, e.aces) == (73, 3, 1, 1, 2)
    assert e.declaration_points == 40 and e.best_declaration == "terz AS KS QS"
    # Trump J + 9 = 34 points, more than a fifth of 162 (docs/rules.md, Figures).
    assert evaluate_hand("J9...", "S").points == 34
    # Four jacks: 200 in a suit contract, 100 in BK.
    assert evaluate_hand("J.J.J.J", "H").declaration_points == 200
    assert evaluate_hand("J.J.J.J", "BK").declaration_points == 100
    assert evaluate_hand("9.9.9.9", "BK").declaration_points == 0
    assert evaluate_hand("A.A.A.A", "BK").declaration_points == 190
    assert evaluate_hand("9.9.9.9", "H", "bela-hr").declaration_points == 150
    # Four eights cancel, four sevens redeal (bazar); neither in belote-fr.
    e8 = evaluate_hand("8KQJ.8.8.8", "S")
    assert e8.four_eights_cancel and e8.declaration_points == 0 and e8.bela == 20
    assert evaluate_hand("8KQJ.8.8.8", "S", "belote-fr").declaration_points == 20
    assert evaluate_hand("7.7.7.7", "S").four_sevens_redeal
    # Eight-card run: a quint (100) by default, quint + terz (120) as an option.
    assert evaluate_hand("AKQJT987...", "H").declaration_points == 100
    q3 = get_ruleset("bazar", **{"declarations.eight_card_sequence": "quint_plus_terz"})
    assert evaluate_hand("AKQJT987...", "H", q3).declaration_points == 120
    # VK: every suit's K+Q is a bela; BK: none.
    assert evaluate_hand("KQ.KQ.KQ.KQ", "VK").belas == 4
    assert evaluate_hand("KQ.KQ.KQ.KQ", "BK").belas == 0
    # A card may count in a run and a four at once.
    e = evaluate_hand("KQJ.K.K.K", "H")
    assert e.declaration_points == 120 and e.best_declaration.startswith("four")


def test_declaration_precedence_in_deal():
    """Equal plain terzes (A K Q) at East and South: the seat first from the dealer's left
    scores; trump clubs, no other declaration in the deal."""
    rs = RULESETS["bazar"]
    deal = parse_deal("N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97", full=True)
    for dealer, seat in ((0, 1), (1, 2), (2, 1), (3, 1)):  # first of E/S after the dealer
        out = evaluate_deals(deal.reshape(1, 4), dealer, "C", rs)
        assert int(out["declaration_seat"][0]) == seat
        assert int(out["declaration_side"][0]) == seat % 2
        assert (out["declarations_ns"][0], out["declarations_ew"][0]) == (
            (20, 0) if seat % 2 == 0 else (0, 20)
        )
    # A trump terz beats an equal plain one whatever the seat order: spades trump -> East.
    for dealer in range(4):
        out = evaluate_deals(deal.reshape(1, 4), dealer, "S", rs)
        assert int(out["declaration_seat"][0]) == 1


def test_list_declarations_matches_kernel_total():
    rs = RULESETS["bazar"]
    hands = np.asarray(rich_hands(300, 5))
    for kind in rs.kinds:
        out = evaluate_hands(hands, kind, rs)  # the kernel over all hands at once
        for i, h in enumerate(hands):
            decls = list_declarations(int(h), kind, rs)
            total = sum(d.value for d in decls if not d.cancelled)
            assert total == out["declaration_points"][i]
            if decls and not decls[0].cancelled:
                assert decls[0].key == out["best_declaration"][i]


def test_four_keys_rank_above_sequences():
    t = compiled_rules(RULESETS["bazar"])
    assert t.four_key.min() == 0 and t.seq_key.max() < FOUR_CLASS


def test_bad_contract_for_ruleset():
    with pytest.raises(ValueError, match="does not exist in ruleset bela-hr"):
        evaluate_hand("AKQ.JT9.8.A", "BK", "bela-hr")
    with pytest.raises(ValueError, match="bad contract kind"):
        evaluate_hand("AKQ.JT9.8.A", "X", "bazar")
