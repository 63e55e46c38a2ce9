"""Bid-time cards: a plain-Python reference of the draw, uniformity, reproducibility, the
dataset columns (verify, older datasets) and bid tables classed by seen cards."""

from __future__ import annotations

import json
import math
from itertools import combinations

import numba
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from bazarsim.analysis.bids import FEATURES, SEEN_FEATURES, bid_table
from bazarsim.cli import app
from bazarsim.core.cards import SEATS
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.bidtime import (
    NO_CARD,
    BidTime,
    bid_time,
    bid_time_cards,
    bid_time_key,
)
from bazarsim.deals.generator import deal
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.engine.verify import verify_dataset
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store.parts import MANIFEST, part_files, read_dataframe

from . import naive
from . import naive_dealing as nd

BELOTE = BidTime(5, True)
BELA = BidTime(6, False)
runner = CliRunner()


def naive_bid_time(seed: int, i: int, hands, layout: BidTime) -> list[tuple[int, int]]:
    """``(seen, turned)`` of each seat, from the definition in the module docstring: one
    Lemire draw below R^4 at word 0 of deal ``i`` under the dealing key with its top bit
    flipped, base-R digits seat N first, subsets of positions in increasing mask order."""
    m = layout.seen
    subsets = sorted(combinations(range(8), m), key=lambda c: sum(1 << j for j in c))
    t_choices = 8 - m if layout.turned else 1
    radix = len(subsets) * t_choices
    x, _k = nd.draw_below(nd.seed_key(seed) ^ (1 << 63), i, 0, radix ** 4)
    out = []
    for s in range(4):
        d, x = x % radix, x // radix
        cards = [b for b in range(32) if int(hands[s]) >> b & 1]
        pos = subsets[d // t_choices]
        rest = [cards[j] for j in range(8) if j not in pos]
        out.append((sum(1 << cards[j] for j in pos),
                     rest[d % t_choices] if layout.turned else NO_CARD))
    return out


def chi2_pvalue(x: float, df: int) -> float:
    """Upper tail of chi-square (Wilson-Hilferty, fine for df >= 20)."""
    z = ((x / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


# --------------------------------------------------------------------------- the draw


def test_rulesets_bid_time():
    assert bid_time(get_ruleset("belote-fr")) == BELOTE
    assert bid_time(get_ruleset("bela-hr")) == BELA
    assert bid_time(get_ruleset("bazar")) is None and bid_time(get_ruleset("bazar-blot")) is None
    assert (BELOTE.choices, BELA.choices) == (168, 28)


@pytest.mark.parametrize("layout", [BELOTE, BELA])
@pytest.mark.parametrize("seed,start", [(0, 0), (7, 123_456), (2**64 - 1, 2**40)])
def test_kernel_matches_plain_python_reference(layout, seed, start):
    hands = deal(seed, start, 150)
    seen, turned = bid_time_cards(seed, start, hands, layout)
    for j in range(len(hands)):
        got = [(int(seen[j, s]), int(turned[j, s])) for s in range(4)]
        assert got == naive_bid_time(seed, start + j, hands[j], layout), j


def test_bid_time_stream_is_the_dealing_stream_half_a_period_away():
    """Word k of deal i under the flipped key is word k of deal i ^ 2^43 of the dealing
    stream: no run below 2^43 deals reads a word of both."""
    for seed in (0, 5, 2**63 + 11):
        key = nd.seed_key(seed)
        assert int(bid_time_key(seed)) == key ^ (1 << 63)
        for i, k in ((0, 0), (3, 1), (2**43 - 1, 5)):
            flipped = nd.mix64((key ^ (1 << 63)) + ((i << 20) | k) * nd.GAMMA)
            dealing = nd.mix64(key + ((((i + 2**43) % 2**44) << 20) | k) * nd.GAMMA)
            assert flipped == dealing


@pytest.mark.parametrize("layout", [BELOTE, BELA])
def test_seen_cards_are_part_of_the_hand(layout):
    hands = deal(3, 0, 20_000)
    seen, turned = bid_time_cards(3, 0, hands, layout)
    assert ((seen & hands) == seen).all()
    assert (np.bitwise_count(seen) == layout.seen).all()
    if layout.turned:
        assert ((turned >= 0) & (turned < 32)).all()
        bit = np.left_shift(np.uint32(1), turned.astype(np.uint32))
        assert ((bit & hands) != 0).all() and ((bit & seen) == 0).all()
    else:
        assert (turned == NO_CARD).all()


def _choice_index(hands, seen, turned, layout):
    """Each (deal, seat)'s choice in ``0 .. R - 1`` as the draw defines it, recovered from
    the cards by walking each hand's bits low to high."""
    masks = {m: j for j, m in enumerate(p for p in range(256) if p.bit_count() == layout.seen)}
    h = hands.astype(np.int64).ravel()
    sv = seen.astype(np.int64).ravel()
    tv = turned.astype(np.int64).ravel()
    pos = np.zeros(len(h), np.int64)
    t_rank = np.zeros(len(h), np.int64)
    unseen = np.zeros(len(h), np.int64)
    for j in range(8):
        low = h & -h
        h = h ^ low
        in_seen = (sv & low) != 0
        pos |= in_seen.astype(np.int64) << j
        is_turned = (~in_seen) & (tv >= 0) & (low == (np.int64(1) << np.clip(tv, 0, 31)))
        t_rank = np.where(is_turned, unseen, t_rank)
        unseen += ~in_seen
    lookup = np.full(256, -1, np.int64)
    for m, j in masks.items():
        lookup[m] = j
    return lookup[pos] * layout.turned_choices + t_rank


@pytest.mark.parametrize("layout", [BELOTE, BELA])
def test_choices_uniform_and_independent_of_seat(layout):
    """Chi-square over the R choices of each seat (and over positions: each of a hand's 8
    cards is seen m/8 of the time), on 100,000 deals.

    Power (90 %): one of the R choices drawn 43 % (belote-fr, R = 168) or 12 % (bela-hr,
    R = 28) more often than the others; a position seen 0.48 pp (0.43 pp) off m/8.
    False failure: 4.9e-4 (4.7e-4): four seats and the joint table at p < 1e-4 each, 8
    positions at 5 SE (4.6e-6). Seed 21 is fixed, so 0 here."""
    n = 100_000
    hands = deal(21, 5_000, n)
    seen, turned = bid_time_cards(21, 5_000, hands, layout)
    choice = _choice_index(hands, seen, turned, layout).reshape(n, 4)
    r = layout.choices
    for s in range(4):
        counts = np.bincount(choice[:, s], minlength=r)
        assert counts.shape == (r,)
        e = n / r
        assert chi2_pvalue(float(((counts - e) ** 2 / e).sum()), r - 1) > 1e-4, s
    # seat N's and seat E's choices are independent: chi-square of the joint table
    # over coarse classes (subset index mod 7)
    a, b = choice[:, 0] % 7, choice[:, 1] % 7
    joint = np.bincount(a * 7 + b, minlength=49).reshape(7, 7)
    expect = np.outer(joint.sum(1), joint.sum(0)) / n
    assert chi2_pvalue(float(((joint - expect) ** 2 / expect).sum()), 36) > 1e-4
    # every position of the hand is seen with rate m / 8
    h = hands.astype(np.int64).ravel()
    sv = seen.astype(np.int64).ravel()
    rates = []
    for _j in range(8):
        low = h & -h
        h ^= low
        rates.append(((sv & low) != 0).mean())
    sd = math.sqrt(layout.seen / 8 * (1 - layout.seen / 8) / (4 * n))
    assert np.all(np.abs(np.array(rates) - layout.seen / 8) < 5 * sd)


def test_thread_count_does_not_change_the_cards():
    hands = deal(9, 77, 5_000)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = bid_time_cards(9, 77, hands, BELOTE)
    finally:
        numba.set_num_threads(before)
    many = bid_time_cards(9, 77, hands, BELOTE)
    assert all(np.array_equal(x, y) for x, y in zip(one, many, strict=True))


def test_short_hands_are_refused():
    hands = deal(1, 0, 2) & np.uint32(0x7F7F7F7F)
    with pytest.raises(BazarsimError, match="8-card hands"):
        bid_time_cards(1, 0, hands, BELOTE)


# --------------------------------------------------------------------------- datasets


def test_dataset_columns_and_shards(tmp_path):
    rs = get_ruleset("belote-fr")
    run_simulation(
        Simulation(deals=3000, seed=4, ruleset=rs, columns="lean", chunk=1000), tmp_path / "w")
    run_simulation(
        Simulation(deals=1700, seed=4, ruleset=rs, columns="lean", chunk=333), tmp_path / "a")
    run_simulation(Simulation(deals=1300, seed=4, ruleset=rs, columns="lean", chunk=650,
                              first=1700), tmp_path / "b")
    whole = read_dataframe(tmp_path / "w")
    both = pd.concat([read_dataframe(tmp_path / "a"), read_dataframe(tmp_path / "b")],
                     ignore_index=True)
    pd.testing.assert_frame_equal(both, whole)
    assert json.loads((tmp_path / "w" / MANIFEST).read_text())["bid_time"] is True
    hands = np.stack([whole[s].to_numpy() for s in SEATS], 1)
    seen, turned = bid_time_cards(4, 0, hands, BELOTE)
    for s, name in enumerate(SEATS):
        assert whole[f"{name}_seen"].dtype == np.uint32
        assert whole[f"{name}_turned"].dtype == np.int8
        assert np.array_equal(whole[f"{name}_seen"].to_numpy(), seen[:, s])
        assert np.array_equal(whole[f"{name}_turned"].to_numpy(), turned[:, s])
    bela = Simulation(deals=50, seed=4, ruleset=get_ruleset("bela-hr"))
    cols = bela.compute_range(0, 50).schema.names
    assert [c for c in cols if "seen" in c or "turned" in c] == [f"{s}_seen" for s in SEATS]
    for name in ("bazar", "bazar-blot"):
        plain = Simulation(deals=50, seed=4, ruleset=get_ruleset(name))
        assert "bid_time" not in plain.params()
        assert not [c for c in plain.compute_range(0, 50).schema.names if "seen" in c]


def test_repaired_part_gets_the_same_cards(tmp_path):
    rs = get_ruleset("bela-hr")
    out = tmp_path / "d"
    run_simulation(Simulation(deals=2000, seed=12, ruleset=rs, chunk=500), out)
    before = read_dataframe(out)
    part_files(out)[1].unlink()
    run_simulation(Simulation(deals=2000, seed=12, ruleset=rs, chunk=700), out)  # resume
    pd.testing.assert_frame_equal(read_dataframe(out), before)


def test_verify_recomputes_and_catches_bid_time_columns(tmp_path):
    out = tmp_path / "d"
    run_simulation(Simulation(deals=400, seed=2, ruleset=get_ruleset("belote-fr"), chunk=400,
                              writers=1), out)
    assert verify_dataset(out, sample=10).ok
    (path,) = part_files(out)
    table = pq.read_table(path)
    i = table.schema.get_field_index("W_turned")
    t = table.column(i).to_numpy()
    fake = np.where(t == 0, 1, 0).astype(np.int8)  # a different card on every row
    pq.write_table(table.set_column(i, table.schema.field(i), [fake]), path)
    v = verify_dataset(out, sample=5)
    assert not v.ok and "column W_turned" in v.faults[0]


def test_older_datasets_keep_working(tmp_path):
    """A belote-fr run written before bid-time columns: verify passes, a resume finishes it
    in its own format, and classing by seen cards is one clear error."""
    rs = get_ruleset("belote-fr")
    out = tmp_path / "old"
    run_simulation(Simulation(deals=600, seed=5, ruleset=rs, chunk=200, bid_time=False), out)
    manifest = json.loads((out / MANIFEST).read_text())
    assert "bid_time" not in manifest
    assert verify_dataset(out, sample=6).ok
    part_files(out)[0].unlink()
    notes = []
    run_simulation(Simulation(deals=600, seed=5, ruleset=rs, chunk=200), out, notice=notes.append)
    assert notes and "without bid-time columns" in notes[0]
    df = read_dataframe(out)
    assert len(df) == 600 and not [c for c in df.columns if "seen" in c]
    assert verify_dataset(out, sample=6).ok


# --------------------------------------------------------------------------- bid tables


@pytest.fixture(scope="module")
def dd_sets(tmp_path_factory):
    """Small DD-solved datasets (lean columns, hearts and BK), belote-fr with and without
    bid-time columns, and bazar."""
    out = {}
    for name, rs, extra in (("belote", "belote-fr", {}),
                            ("old", "belote-fr", {"bid_time": False}),
                            ("bazar", "bazar", {})):
        path = tmp_path_factory.mktemp(name)
        run_simulation(
            Simulation(deals=40, seed=17, ruleset=get_ruleset(rs), kinds=(1, 4), columns="lean",
                   dd=True, chunk=16, **extra), path)
        out[name] = path
    return out


def _reference(path, rs, kind, bucket):
    """Per (class, bid) from the Parquet columns with pandas and the naive evaluator:
    n and the mean of the declaring side's total, classing by seen points."""
    df = read_dataframe(path)
    k = KIND_NAMES[kind]
    rows = []
    for seat, name in enumerate(SEATS):
        seen = df[f"{name}_seen"].astype(np.int64)
        if f"{name}_turned" in df:
            seen = seen | np.left_shift(1, df[f"{name}_turned"].astype(np.int64))
        pts = seen.map(lambda m: naive.evaluate_hand(int(m), kind, rs)["points"])
        side = seat & 1
        ns = df[f"{k}_dd_ns"].astype(int)
        cards = ns if side == 0 else rs.total_points(kind) - ns
        suffix = "ns" if side == 0 else "ew"
        total = cards + df[f"{k}_declarations_{suffix}"] + df[f"{k}_bela_{suffix}"]
        rows.append(pd.DataFrame({"cls": pts.map(bucket), "total": total}))
    ref = pd.concat(rows).dropna()
    return ref.groupby("cls")["total"].agg(["count", "mean"])


def test_table_bids_by_seen_points_matches_pandas(dd_sets):
    rs = get_ruleset("belote-fr")
    table = bid_table(dd_sets["belote"], by=["seen_points=0..14,15..29,30.."], kinds=["H"])
    ref = _reference(dd_sets["belote"], rs, 1,
                     lambda p: "0..14" if p <= 14 else "15..29" if p <= 29 else "30..")
    got = {r["seen_points"]: r for r in table}
    assert set(got) == set(ref.index)
    for cls, r in got.items():
        assert r["n"] == ref.loc[cls, "count"]
        assert r["mean_total"] == pytest.approx(ref.loc[cls, "mean"])
    assert sum(r["n"] for r in table) == 4 * 40
    # the seen cards are fewer than the hand: classes differ from plain points
    plain = bid_table(dd_sets["belote"], by=["points=0..14,15..29,30.."], kinds=["H"])
    assert [r["n"] for r in plain] != [r["n"] for r in table]


def test_seen_features_cover_the_vocabulary_and_every_kind(dd_sets):
    assert set(SEEN_FEATURES) <= set(FEATURES)
    for f in SEEN_FEATURES:
        rows = bid_table(dd_sets["belote"], by=[f], kinds=["H", "BK"])
        assert sum(r["n"] for r in rows if r["kind"] == "BK") == 4 * 40
        assert all(r[f] in [str(v) for v in range(200)] for r in rows)
    trumps = bid_table(dd_sets["belote"], by=["seen_trumps"], kinds=["H"])
    assert max(int(r["seen_trumps"]) for r in trumps) <= 6


def test_seen_features_equal_plain_ones_in_bazar(dd_sets):
    for f in ("points", "trumps", "jack", "nine", "aces"):
        seen = bid_table(dd_sets["bazar"], by=[f"seen_{f}"], kinds=["H"])
        plain = bid_table(dd_sets["bazar"], by=[f], kinds=["H"])
        pd.testing.assert_frame_equal(pd.DataFrame(seen).rename(columns={f"seen_{f}": f}),
                                      pd.DataFrame(plain))


def test_seen_features_of_an_older_dataset_are_one_error_line(dd_sets):
    res = runner.invoke(app, ["table", "bids", str(dd_sets["old"]), "--by", "seen_points"])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "bid-time" in lines[0]
    ok = runner.invoke(app, ["table", "bids", str(dd_sets["old"]), "--by", "points=0..29,30..",
                             "--kind", "H", "--format", "json"])
    assert ok.exit_code == 0, ok.output


def test_cli_table_bids_by_seen_points(dd_sets):
    res = runner.invoke(app, ["table", "bids", str(dd_sets["belote"]), "--by",
                              "seen_points=0..19,20..", "--kind", "H", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert {r["seen_points"] for r in rows} <= {"0..19", "20.."}
    assert sum(r["n"] for r in rows) == 4 * 40
