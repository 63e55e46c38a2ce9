"""Frequency tables: Wilson intervals, features against a plain-Python reference,
aggregation of a dataset, and (make gate) 10 million deals against the exact odds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bazarsim.analysis.freq import frequency_table, hand_features
from bazarsim.analysis.stats import wilson_interval, z_score
from bazarsim.deals.generator import DealGenerator
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.rules.rulesets import get_ruleset

RANKS = "789TJQKA"


def naive_features(mask: int) -> dict[str, bool]:
    """Features of one hand from its card list (hearts trump), written from docs/rules.md."""
    cards = [(c // 8, RANKS[c % 8]) for c in range(32) if mask >> c & 1]
    by_suit = {s: {r for su, r in cards if su == s} for s in range(4)}
    hearts = by_suit[1]

    def has_run(length):
        for s in range(4):
            idx = sorted(RANKS.index(r) for r in by_suit[s])
            run = best = 0
            prev = None
            for i in idx:
                run = run + 1 if prev is not None and i == prev + 1 else 1
                best = max(best, run)
                prev = i
            if best >= length:
                return True
        return False

    fours = {r for r in RANKS if all(r in by_suit[s] for s in range(4))}
    scoring = fours & set("JQKTA9")
    out = {
        "kq_any_suit": any({"K", "Q"} <= by_suit[s] for s in range(4)),
        "kq_trump": {"K", "Q"} <= hearts,
        "jack_trump": "J" in hearts,
        "nine_trump": "9" in hearts,
        "jack_nine_trump": {"J", "9"} <= hearts,
        "sequence_3plus": has_run(3),
        "sequence_4plus": has_run(4),
        "sequence_5plus": has_run(5),
        "four_of_a_kind_scoring": bool(scoring),
        "four_of_a_kind_scoring_bk": bool(fours & set("JQKTA")),
        "four_jacks": "J" in fours,
        "four_nines": "9" in fours,
        "four_aces": "A" in fours,
        "four_sevens": "7" in fours,
        "four_eights": "8" in fours,
        "declaration_any": has_run(3) or bool(scoring),
    }
    for n in range(9):
        out[f"trumps_{n}"] = len(hearts) == n
    aces = sum(1 for _s, r in cards if r == "A")
    for n in range(5):
        out[f"aces_{n}"] = aces == n
    return out


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(81, 263)
    assert (lo, hi) == (pytest.approx(0.2553, abs=1e-4), pytest.approx(0.3662, abs=1e-4))
    lo, hi = wilson_interval(500, 1000, 0.999)
    assert lo == pytest.approx(0.5 - 3.2905 * math.sqrt(0.25 / 1000), abs=2e-3)
    assert z_score(60, 100, 0.5) == pytest.approx(2.0)


def test_features_match_plain_python():
    rs = get_ruleset("bazar")
    feats = hand_features(rs)
    hands = DealGenerator(21).deal(0, 3000).hands.reshape(-1)
    # make rare features appear: hands with four of a kind and long runs
    extra = np.array([0x10101010 | 0x0000000F, 0x80808080 | 0x7E00, 0x01010101 | 0xE000,
                      0x02020202 | 0x1F0000, 0xFF, 0x6060 | 0x14], np.uint32)
    hands = np.concatenate([hands, extra])
    values = {name: fn(hands) for name, fn in feats.items()}
    for i, h in enumerate(hands):
        ref = naive_features(int(h))
        for name in feats:
            assert bool(values[name][i]) == ref[name], (name, hex(int(h)))


def test_table_of_a_small_dataset(tmp_path):
    run_simulation(Simulation(deals=4000, seed=13, chunk=1500, kinds=(1, 4)), tmp_path)
    rows = frequency_table(tmp_path)
    by_name = {(r["scope"], r["feature"]): r for r in rows}
    hands = DealGenerator(13).deal(0, 4000).hands
    naive = [naive_features(int(h)) for h in hands.reshape(-1)]
    for name in ("kq_any_suit", "sequence_3plus", "trumps_2", "aces_1"):
        r = by_name[("hand", name)]
        assert r["count"] == sum(f[name] for f in naive) and r["n"] == 16_000
        assert r["lo"] <= r["rate"] <= r["hi"]
        assert r["exact"] is not None and r["z"] is not None
    table = by_name[("table", "kq_trump_at_table")]
    assert table["count"] == sum(any(naive[4 * d + s]["kq_trump"] for s in range(4))
                                 for d in range(4000))
    sides = [by_name[("table", f"declarations_score_{x}_H")]["count"] for x in ("NS", "EW",
                                                                                "none")]
    assert sum(sides) == 4000
    grouped = frequency_table(tmp_path, by="dealer")
    assert {r["dealer"] for r in grouped} == {"N", "E", "S", "W"}
    total = sum(r["count"] for r in grouped if r["feature"] == "kq_any_suit")
    assert total == by_name[("hand", "kq_any_suit")]["count"]
    assert all(r["exact"] is not None for r in grouped if r["feature"] == "kq_any_suit")
    # grouped by an outcome of the hands, the unconditional exact odds must not be shown
    by_side = frequency_table(tmp_path, by="H_declaration_side")
    assert {r["H_declaration_side"] for r in by_side} == {"none", "NS", "EW"}
    assert all(r["exact"] is None and r["z"] is None for r in by_side)


@pytest.mark.gate
def test_ten_million_deals_agree_with_exact_odds(tmp_path):
    """10 M deals (seed 2026, 40 M hands): 32 features' 99.9 % intervals. Power (90 %):
    0.036 pp on a hand feature near 45 %, 0.060 pp on a table feature near 23 %, 1.6 %
    relative on a four of a kind. False failure: 3.3 % (the sum over the features,
    exact binomial coverage; hands taken as independent), 0 for this fixed seed.

    Sample in make test: test_simulated_deals_agree_with_exact_odds"""
    check_against_exact_odds(tmp_path, 10_000_000)


def test_simulated_deals_agree_with_exact_odds(tmp_path):
    """200,000 deals: every feature's 99.9 % interval holds its exact probability.

    Power (90 %): a bias of 0.25 pp on a hand feature near 45 % (800,000 hands), 0.43 pp
    on a table feature near 23 % (200,000 deals), 0.023 pp (12 % relative) on a four of a
    kind. False failure: 10 % for a fresh seed (exact binomial coverage of the 32
    intervals; hands taken as independent), 7.3 % of it from trumps_8 (p = 9.5e-8): one
    hand of eight trumps among 800,000 (expected 0.08) puts the exact value outside its
    interval. Seed 2026 is fixed (no such hand), so 0 here."""
    check_against_exact_odds(tmp_path, 200_000)


def check_against_exact_odds(tmp_path, deals: int) -> None:
    run_simulation(Simulation(deals=deals, seed=2026, kinds=(1,), columns="lean"), tmp_path)
    rows = frequency_table(tmp_path, confidence=0.999)
    checked = 0
    for r in rows:
        if r["exact"] is None or r["feature"] in ("jack_trump", "nine_trump"):
            continue  # (J and 9 of trump: exactly one a deal, pooled rate is exactly 1/4)
        assert r["lo"] <= r["exact"] <= r["hi"], r
        checked += 1
    assert checked >= 30
