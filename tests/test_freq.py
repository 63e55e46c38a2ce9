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


def _hands_of(path) -> np.ndarray:
    """Every hand of a dataset, read from its part files with pyarrow alone."""
    import pyarrow.parquet as pq

    parts = sorted(path.glob("part-*.parquet"))
    return np.concatenate([pq.read_table(p, columns=["N", "E", "S", "W"]).to_pandas()
                           .to_numpy(np.uint32).reshape(-1) for p in parts])


def test_table_reads_the_ruleset_and_options_of_the_dataset(tmp_path):
    """A bela-hr dataset (no BK: no BK four row) in one part, whose options make four jacks
    the only four of a kind that scores: the scoring fours are counted and valued as such,
    the exact value being C(28, 4) / C(32, 8) (the other four of the eight cards among the
    28 others), as for any other one rank."""
    rs = get_ruleset("bela-hr", **{"declarations.four_values": {
        "J": 200, "9": 0, "A": 0, "T": 0, "K": 0, "Q": 0}})
    run_simulation(Simulation(deals=200, seed=5, ruleset=rs, kinds=("H",), columns="lean",
                              chunk=1000, writers=1), tmp_path)
    assert len(list(tmp_path.glob("part-*.parquet"))) == 1
    rows = frequency_table(tmp_path)
    by_name = {(r["scope"], r["feature"]): r for r in rows}
    naive = [naive_features(int(h)) for h in _hands_of(tmp_path)]
    assert len(naive) == 800
    assert {f for s, f in by_name if s == "hand"} == set(naive[0]) - {
        "four_of_a_kind_scoring_bk"}
    one_rank = math.comb(28, 4) / math.comb(32, 8)
    four = by_name[("hand", "four_of_a_kind_scoring")]
    assert (four["count"], four["n"]) == (sum(f["four_jacks"] for f in naive), 800)
    assert four["exact"] == pytest.approx(one_rank, rel=1e-12)
    assert by_name[("hand", "four_aces")]["exact"] == pytest.approx(one_rank, rel=1e-12)


def test_table_of_a_dataset_with_fixed_cards_has_no_exact_odds(tmp_path):
    """Deals dealt with the jack of hearts fixed to North (--fix alone, no --where): the
    unconditional exact odds do not apply, pooled or grouped by dealer."""
    from bazarsim.deals.constraints import parse_constraints

    run_simulation(Simulation(deals=40, seed=5, constraints=parse_constraints(["N:JH"]),
                              kinds=("H",), columns="lean"), tmp_path)
    rows = frequency_table(tmp_path)
    jack = next(r for r in rows if r["feature"] == "jack_trump")
    assert (jack["count"], jack["n"]) == (40, 160)
    for grouped in (rows, frequency_table(tmp_path, by="dealer")):
        assert grouped and all(r["exact"] is None and r["z"] is None for r in grouped)


def test_table_of_a_damaged_page_names_the_dataset(tmp_path):
    """North's column damaged under an intact footer: one error line naming the dataset."""
    import re

    import pyarrow.parquet as pq

    from bazarsim.store.parts import StoreError

    run_simulation(Simulation(deals=40, seed=5, kinds=("H",), columns="lean", chunk=1000,
                              writers=1), tmp_path)
    (part,) = sorted(tmp_path.glob("part-*.parquet"))
    meta = pq.ParquetFile(part).metadata
    names = [meta.schema.column(i).name for i in range(meta.num_columns)]
    chunk = meta.row_group(0).column(names.index("N"))
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    data = bytearray(part.read_bytes())
    data[start:start + 32] = b"\xff" * 32  # the first page header of the column
    part.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=re.escape(repr(str(tmp_path)))):
        frequency_table(tmp_path)
