"""The numbers `match`, `equity` and `fit` print, from small hand-built inputs against
plain-Python references: the play-off summary and its score bands, the equity table's
derived numbers (start equity, grid, break-even map, derived rules, the simulated check),
the calibration `fit` reports and the smoothing of the hand model. Each reference is
computed here from the raw rows by its own loops, never by the helper it checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bazarsim.core.errors import BazarsimError
from bazarsim.matches.model import N_CELLS, HandModel, calibrate
from bazarsim.rules.rulesets import get_ruleset

GROUP_CELLS = N_CELLS // 3  # cells of one kind group (suit, BK, VK), in that order
# bazar's card points: a suit deal is 62 (trumps) + 3 * 30 (plain suits) + the last trick;
# a VK deal 4 * 62 + the last trick
TRUMP_POINTS, PLAIN_POINTS = 62, 30


# --------------------------------------------------------------------------- calibration


def _plain_calibration(model_rates, counts, made, held, total_of, n_levels):
    """Brier, base-rate Brier, skill and reliability bins by plain loops: the base rate of a
    (role, kind group, bid) is its made count over its deals (at least 1) in the raw
    counts; a level bid is a forecast only where 10 x level <= the deal total + 100."""
    first_level = 8
    sums = {"all": [0.0, 0.0, 0]}
    bins = [[0, 0.0, 0.0] for _ in range(10)]
    for role, kind, cells, hits in held:
        g = 2 if kind == 5 else 1 if kind == 4 else 0
        deals = 0
        made_g = [0] * (n_levels + 1)
        for c in range(g * GROUP_CELLS, (g + 1) * GROUP_CELLS):
            if counts[role][c]:
                deals += int(counts[role][c])
                for j in range(n_levels + 1):
                    made_g[j] += int(made[role][c][j])
        useful = [j for j in range(n_levels)
                  if 10 * (first_level + j) <= total_of(kind) + 100] + [n_levels]
        s = sums.setdefault(role, [0.0, 0.0, 0])
        for r, c in enumerate(cells):
            for j in useful:
                p = float(model_rates[role][c][j])
                y = 1.0 if hits[j][r] else 0.0
                base = made_g[j] / (deals if deals else 1)
                for acc in (s, sums["all"]):
                    acc[0] += (p - y) ** 2
                    acc[1] += (base - y) ** 2
                    acc[2] += 1
                k = min(int(p * 10), 9)
                bins[k][0] += 1
                bins[k][1] += p
                bins[k][2] += y
    return sums, bins


def _model(rs, n_bids, seed):
    rng = np.random.default_rng(seed)
    rates = rng.random((2, N_CELLS, n_bids))
    counts = np.zeros((2, N_CELLS), np.int64)
    made = np.zeros((2, N_CELLS, n_bids), np.int64)
    return HandModel(rs, rates, counts, 20.0, {}, made), rng


@pytest.mark.parametrize("last_trick", [8, 7])
def test_calibration_against_plain_brier(last_trick):
    """bazar with levels up to 30 and a last trick of 8 (a suit deal totals 160: levels
    27-30 are no forecast; level 26, 260 = 160 + 100, is one) or 7 (159: level 26 is not);
    in VK (256) every level is a forecast. A group with one deal behind it (its base rate
    is made / 1), a forecast of exactly 1 (the top bin), the capot bid always counted."""
    rs = get_ruleset("bazar", **{"auction.max_level": 30, "cards.last_trick_bonus": last_trick})
    n_levels = 23  # 8 .. 30
    model, rng = _model(rs, n_levels + 1, last_trick)
    suit = [3, 400, 2000]
    vk = [2 * GROUP_CELLS + 5, 2 * GROUP_CELLS + 900]
    for role, cells, deals in ((0, suit, [3, 5, 0]), (0, vk, [4, 2]), (1, suit, [2, 0, 6]),
                               (1, vk[:1], [1])):
        for c, d in zip(cells, deals, strict=False):
            model.counts[role, c] = d
            model.made[role, c] = rng.integers(0, d + 1, n_levels + 1)
    model.made[1, vk[0]] = 1  # one deal, every bid made: base rate 1 / 1
    model.made[1, vk[0], 3] = 0
    model.rates[0, suit[1], 0] = 1.0
    model.rates[1, vk[1], :] = 1.0
    held = []
    for role in (0, 1):
        for kind, cells in ((0, suit), (2, suit[::-1]), (5, vk), (5, vk[::-1])):
            hits = rng.random((n_levels + 1, len(cells))) < 0.4
            held.append((role, kind, np.array(cells), hits))

    def total_of(kind):
        return (4 * TRUMP_POINTS if kind == 5 else TRUMP_POINTS + 3 * PLAIN_POINTS) + last_trick

    assert total_of(0) == rs.total_points(0) and total_of(5) == rs.total_points(5)
    sums, bins = _plain_calibration(model.rates, model.counts, model.made, held, total_of,
                                    n_levels)
    got = calibrate(model, held)
    e, e0, n = sums["all"]
    assert got["held_out"] == "1 deal in 5 (seeded hash of its index)"
    assert got["forecasts"] == n
    assert got["brier"] == pytest.approx(e / n, rel=1e-12)
    assert got["brier_base_rate"] == pytest.approx(e0 / n, rel=1e-12)
    assert got["skill"] == pytest.approx(1 - e / e0, rel=1e-12)
    assert sorted(got["roles"]) == ["bidder", "defender"]
    for role, name in ((0, "bidder"), (1, "defender")):
        e, e0, n = sums[role]
        r = got["roles"][name]
        assert r["forecasts"] == n
        assert r["brier"] == pytest.approx(e / n, rel=1e-12)
        assert r["brier_base_rate"] == pytest.approx(e0 / n, rel=1e-12)
        assert r["skill"] == pytest.approx(1 - e / e0, rel=1e-12)
    assert [b["bin"] for b in got["reliability"]] == [
        f"0.{i}-{'1.0' if i == 9 else f'0.{i + 1}'}" for i in range(10)]
    assert bins[9][0] > 0
    for b, (k, sp, sy) in zip(got["reliability"], bins, strict=True):
        assert b["forecasts"] == k
        if k:
            assert b["mean_forecast"] == pytest.approx(sp / k, rel=1e-12)
            assert b["observed"] == pytest.approx(sy / k, rel=1e-12)
        else:
            assert b["mean_forecast"] is None and b["observed"] is None


def _one_bid_model(rates, role_counts):
    """belote-fr (one bid a kind: no levels) with every rate ``rates``; ``role_counts``:
    role -> (deals, made) in cell 0."""
    rs = get_ruleset("belote-fr")
    model = HandModel(rs, np.full((2, N_CELLS, 1), rates), np.zeros((2, N_CELLS), np.int64),
                      20.0, {}, np.zeros((2, N_CELLS, 1), np.int64))
    for role, (deals, made) in role_counts.items():
        model.counts[role, 0] = deals
        model.made[role, 0, 0] = made
    return model


def test_calibration_skill_without_base_rate_error():
    """A role whose base rate forecast every held-out row exactly (Brier 0) has no skill
    (NaN), not 1 - e / 0; the other role's and the overall skill are still numbers."""
    model = _one_bid_model(0.5, {0: (2, 2), 1: (2, 1)})
    hit = np.ones((1, 1), bool)
    got = calibrate(model, [(0, 0, np.array([0]), hit), (1, 0, np.array([0]), hit)])
    assert got["roles"]["bidder"]["brier"] == 0.25
    assert got["roles"]["bidder"]["brier_base_rate"] == 0.0
    assert math.isnan(got["roles"]["bidder"]["skill"])
    assert got["roles"]["defender"]["skill"] == 0.0
    assert got["brier"] == 0.25 and got["brier_base_rate"] == 0.125
    assert got["skill"] == -1.0


def test_calibration_of_one_forecast():
    """One held-out forecast is enough (none is refused)."""
    model = _one_bid_model(0.25, {0: (4, 1)})
    got = calibrate(model, [(0, 0, np.array([0]), np.zeros((1, 1), bool))])
    assert got["forecasts"] == 1
    assert got["brier"] == 0.0625 and got["brier_base_rate"] == 0.0625
    assert list(got["roles"]) == ["bidder"]
    with pytest.raises(BazarsimError, match="too few deals"):
        calibrate(model, [(0, 0, np.array([], np.int64), np.zeros((1, 0), bool))])


# --------------------------------------------------------------------------- play-off

FIELDS = ("pair", "a_side", "deal", "a_deals", "a_score", "b_score", "declarer", "kind",
          "level", "contra", "flags", "a_points", "b_points", "eight")


def _rows(dicts):
    """Outcome rows (the play-off's columns, in their order) from dicts; unnamed fields 0."""
    return np.array([[d.get(f, 0) for f in FIELDS] for d in dicts], np.int64).reshape(
        -1, len(FIELDS))


def _stdev(xs):
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _quartiles(xs):
    """Linear-interpolation quartiles (the inclusive method)."""
    s = sorted(xs)
    out = []
    for q in (0.25, 0.5, 0.75):
        h = (len(s) - 1) * q
        lo = math.floor(h)
        out.append(s[lo] + (h - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo]))
    return out


def _playoff_case():
    """Pairs 7, 8 and 9 (the first pair of a chunk need not be 0); matches of 3, 2, 4, 1,
    2 and 3 deals; flags with bits besides `made`; a contra and a recontra."""
    wins = np.array([[1, 0], [1, 1], [0, 1]])
    spec = [  # pair, a_side, declarer, flags, contra, a_points, b_points, a_score, b_score
        (7, 0, 0, 1, 0, 120, 42, 0, 0), (7, 0, 1, 0, 1, 0, 162, 120, 42),
        (7, 0, -1, 0, 0, 0, 0, 120, 204),
        (7, 1, 1, 3, 0, 30, 132, 0, 0), (7, 1, 0, 2, 2, 0, 324, 30, 132),
        (8, 0, 0, 5, 0, 90, 72, 0, 0), (8, 0, 0, 1, 1, 200, 0, 90, 72),
        (8, 0, 1, 1, 0, 10, 152, 290, 72), (8, 0, 0, 0, 0, 0, 162, 300, 224),
        (8, 1, -1, 0, 0, 0, 0, 0, 0),
        (9, 0, 1, 1, 0, 50, 112, 0, 0), (9, 0, 0, 4, 0, 0, 162, 50, 112),
        (9, 1, 0, 1, 0, 100, 62, 0, 0), (9, 1, 1, 0, 2, 262, 0, 100, 62),
        (9, 1, 0, 9, 0, 81, 81, 362, 62),
    ]
    rows = [dict(zip(("pair", "a_side", "declarer", "flags", "contra", "a_points",
                      "b_points", "a_score", "b_score"), s, strict=True)) for s in spec]
    return wins, rows


@pytest.mark.parametrize("z", [1.959964, 2.575829])
def test_playoff_summary_against_plain_sums(z):
    from bazarsim.matches.playoff import playoff_summary

    wins, rows = _playoff_case()
    target = 301
    got = (playoff_summary(wins, _rows(rows), target) if z == 1.959964
           else playoff_summary(wins, _rows(rows), target, confidence_z=z))
    n = len(wins)
    x = [(w1 + w2) / 2 for w1, w2 in wins.tolist()]
    p = sum(x) / n
    se_p = _stdev(x) / math.sqrt(n)
    se_u = math.sqrt(p * (1 - p) / (2 * n))
    diffs = [r["a_points"] - r["b_points"] for r in rows]
    per_pair = []
    for pair in (7, 8, 9):
        d = [r["a_points"] - r["b_points"] for r in rows if r["pair"] == pair]
        per_pair.append(sum(d) / len(d))
    lengths = [sum(1 for r in rows if (r["pair"], r["a_side"]) == (pair, side))
               for pair in (7, 8, 9) for side in (0, 1)]
    want = {"pairs": 3, "matches": 6, "target": target, "a_win": p, "se_paired": se_p,
            "se_unpaired": se_u, "ci95": [p - z * se_p, p + z * se_p],
            "half_width_paired": z * se_p, "half_width_unpaired": z * se_u,
            "variance_reduction": (se_u / se_p) ** 2,
            "a_points_per_deal": sum(diffs) / len(diffs),
            "se_points_per_deal": _stdev(per_pair) / math.sqrt(n),
            "deals_per_match": sum(lengths) / len(lengths),
            "match_length_quartiles": _quartiles(lengths), "deals": len(rows)}
    assert set(got) == set(want) | {"contracts", "bands"}
    for k, v in want.items():
        assert got[k] == pytest.approx(v, rel=1e-12, abs=1e-15), k
    assert lengths == [3, 2, 4, 1, 2, 3]


def test_playoff_summary_edges():
    """Every pair split 1-1: no paired variance (None, not a division by zero); a share of
    0 or 1 keeps a tiny unpaired error (1e-12 under the root); one pair is refused."""
    from bazarsim.matches.playoff import playoff_summary

    rows = _rows([{"pair": 0, "a_side": 0, "a_points": 10}, {"pair": 0, "a_side": 1},
                  {"pair": 1, "a_side": 0}, {"pair": 1, "a_side": 1, "b_points": 4}])
    got = playoff_summary(np.array([[1, 0], [0, 1]]), rows, 100)
    assert got["a_win"] == 0.5 and got["se_paired"] == 0.0
    assert got["variance_reduction"] is None
    assert got["se_unpaired"] == pytest.approx(math.sqrt(0.25 / 4), rel=1e-12)
    assert got["se_points_per_deal"] == pytest.approx(_stdev([5.0, -2.0]) / math.sqrt(2))
    got = playoff_summary(np.array([[1, 1], [1, 1]]), rows, 100)
    assert got["a_win"] == 1.0
    assert got["se_unpaired"] == pytest.approx(math.sqrt(1e-12 / 4), rel=1e-12)
    assert got["half_width_unpaired"] == pytest.approx(1.959964 * math.sqrt(1e-12 / 4))
    with pytest.raises(BazarsimError, match="at least 2 match pairs"):
        playoff_summary(np.array([[1, 0]]), rows[:2], 100)


def test_contract_shares_against_plain_counts():
    from bazarsim.matches.playoff import _contract_shares

    _wins, rows = _playoff_case()
    o = {f: _rows(rows)[:, i] for i, f in enumerate(FIELDS)}
    got = _contract_shares(o)
    n = len(rows)
    want = {"redeal": sum(r["declarer"] == -1 for r in rows) / n}
    for name, side in (("a", 0), ("b", 1)):
        mine = [r for r in rows if r["declarer"] == side]
        want[f"{name}_declares"] = len(mine) / n
        want[f"{name}_made"] = sum(r["flags"] % 2 == 1 for r in mine) / len(mine)
        want[f"{name}_contra"] = sum(r["contra"] >= 1 for r in mine) / len(mine)
    assert got == pytest.approx(want, rel=1e-12)
    assert 0 < want["a_made"] < 1 and 0 < want["b_contra"] < 1 and want["redeal"] > 0
    # B never declares: its shares of its own contracts are None; no deals at all: 0 / None
    only_a = _rows([{"declarer": 0, "flags": 1, "contra": 2}, {"declarer": -1}])
    got = _contract_shares({f: only_a[:, i] for i, f in enumerate(FIELDS)})
    assert got == {"redeal": 0.5, "a_declares": 0.5, "a_made": 1.0, "a_contra": 1.0,
                   "b_declares": 0.0, "b_made": None, "b_contra": None}
    none = _rows([])
    got = _contract_shares({f: none[:, i] for i, f in enumerate(FIELDS)})
    assert got == {"redeal": 0.0, "a_declares": 0.0, "a_made": None, "a_contra": None,
                   "b_declares": 0.0, "b_made": None, "b_contra": None}


@pytest.mark.parametrize("target,edges", [(301, (30, 100)), (1000, (100, 333)),
                                          (151, (15, 50)), (41, (4, 14)), (5, (1, 2)),
                                          (3, (1, 2)), (8, (1, 3))])
def test_band_edges_by_hand(target, edges):
    """A tenth and a third of the target, rounded (at least 1 and 2)."""
    from bazarsim.matches.playoff import band_edges

    assert band_edges(target) == edges


@pytest.mark.parametrize("target", [301, 41])
def test_score_bands_against_plain_counts(target):
    """Gaps on each side of every band edge; a band A never declares in (a_made None) and
    one without deals (every figure None)."""
    from bazarsim.matches.playoff import score_bands

    small, big = {301: (30, 100), 41: (4, 14)}[target]
    gaps = [-big - 5, -big, -big + 1, -small, -small + 1, 0, small - 1, small, big - 1, big]
    rows = []
    for k, gap in enumerate(gaps * 2):
        decl = 1 if -big < gap <= -small else (k % 3) - 1  # A never declares there
        rows.append({"a_score": 200 + max(gap, 0), "b_score": 200 - min(gap, 0),
                     "declarer": decl, "flags": (k % 4) | 4, "a_points": 7 * k,
                     "b_points": 162 - 7 * k})
    rows.append({"a_score": 0, "b_score": 0, "declarer": 0, "flags": 1, "a_points": 0,
                 "b_points": 0})  # level
    o = {f: _rows(rows)[:, i] for i, f in enumerate(FIELDS)}
    got = score_bands(o, target)

    def band(gap):
        if gap <= -big:
            return 0
        if gap <= -small:
            return 1
        if gap < small:
            return 2
        return 3 if gap < big else 4

    names = [f"A behind by {big}+", f"A behind by {small}-{big - 1}",
             f"level (within {small - 1})", f"A ahead by {small}-{big - 1}",
             f"A ahead by {big}+"]
    assert [b["band"] for b in got] == names
    for i, b in enumerate(got):
        mine = [r for r in rows if band(r["a_score"] - r["b_score"]) == i]
        n = len(mine)
        assert b["deals"] == n
        if not n:
            assert b["a_points_per_deal"] is b["a_declares"] is b["b_declares"] is None
            continue
        a_decl = [r for r in mine if r["declarer"] == 0]
        want = {"a_points_per_deal": sum(r["a_points"] - r["b_points"] for r in mine) / n,
                "a_declares": len(a_decl) / n,
                "b_declares": sum(r["declarer"] == 1 for r in mine) / n,
                "a_made": sum(r["flags"] % 2 for r in a_decl) / len(a_decl) if a_decl else None}
        for k, v in want.items():
            assert b[k] == (None if v is None else pytest.approx(v, rel=1e-12)), (b["band"], k)
    assert [b["deals"] for b in got] == [4, 4, 7, 4, 2]
    assert got[1]["a_made"] is None and got[1]["a_declares"] == 0.0
    level = score_bands({f: _rows(rows[-1:])[:, i] for i, f in enumerate(FIELDS)}, target)
    assert [b["deals"] for b in level] == [0, 0, 1, 0, 0]
    assert all(b[k] is None for b in level[:2] + level[3:]
               for k in ("a_points_per_deal", "a_declares", "b_declares", "a_made"))


# --------------------------------------------------------------------------- smoothing


def _classes(cell):
    """A cell's (group, position, first count, second count, bucket) by hand: the cell
    number is bucket + 16 * (second + 4 * (first + 9 * (position + 4 * group)))."""
    cell, q = divmod(cell, 16)
    cell, b = divmod(cell, 4)
    cell, a = divmod(cell, 9)
    g, pos = divmod(cell, 4)
    return g, pos, a, b, q


@pytest.mark.parametrize("prior", [20.0, 3.5])
def test_smooth_against_plain_shrinkage(prior):
    """Each level's rate is (made + prior x the coarser level's rate) / (deals + prior),
    from the group's (made + 0.5) / (deals + 1) through (group, bucket), (group, position,
    bucket), (group, position, first count, bucket) down to the cell; sums counted here
    over the cells with deals, at cells with and without deals, in all three groups."""
    from bazarsim.matches.model import smooth

    rng = np.random.default_rng(5)
    n = np.zeros(N_CELLS, np.int64)
    made = np.zeros((N_CELLS, 2), np.int64)
    rich = [int(c) for c in rng.choice(N_CELLS, 40, replace=False)]
    # siblings and cousins of cell 7: same parents at each level
    rich += [7, 7 + 16, 7 + 64, 7 + 64 * 9, 7 + 16 * 4 * 9 * 4 + 3, 2 * GROUP_CELLS + 7]
    for c in rich:
        n[c] = int(rng.integers(1, 60))
        made[c] = np.sort(rng.integers(0, n[c] + 1, 2))[::-1]
    deals = {c: (int(n[c]), made[c].tolist()) for c in set(rich)}

    def sums(match):
        d, m = 0, [0, 0]
        for c, (k, mm) in deals.items():
            if match(_classes(c)):
                d += k
                m = [m[0] + mm[0], m[1] + mm[1]]
        return d, m

    def rate(cell, j):
        g, pos, a, b, q = _classes(cell)
        d, m = sums(lambda x: x[0] == g)
        r = (m[j] + 0.5) / (d + 1)
        for keys in ((0, 4), (0, 1, 4), (0, 1, 2, 4), (0, 1, 2, 3, 4)):
            d, m = sums(lambda x, keys=keys: all(x[i] == (g, pos, a, b, q)[i] for i in keys))
            r = (m[j] + prior * r) / (d + prior)
        return r

    got = smooth(n, made, prior)
    check = sorted(set(rich) | {8, 7 + 32, 7 + 64 * 2, GROUP_CELLS + 100, N_CELLS - 1,
                                int(rng.integers(N_CELLS))})
    for c in check:
        for j in (0, 1):
            assert got[c, j] == pytest.approx(rate(c, j), rel=1e-12), (c, j)
    assert got.shape == (N_CELLS, 2)


# --------------------------------------------------------------------------- equity

EQ_COLS = ("a_deals", "a_score", "b_score", "declarer", "flags", "a_points", "b_points",
           "eight")
# (a_deals, a_score, b_score, declarer, flags, a_points, b_points, eight); target 20
EQ_ROWS = [
    (1, 0, 0, 0, 1, 12, 4, -1), (1, 0, 0, 0, 1, 12, 4, -1), (1, 4, 6, 0, 0, 0, 16, -1),
    (1, 8, 2, 1, 1, 3, 13, -1), (1, 8, 2, -1, 0, 0, 0, -1), (1, 12, 12, 0, 3, 25, 0, -1),
    (0, 0, 0, 1, 1, 5, 11, -1), (0, 2, 10, 0, 1, 14, 2, -1), (0, 2, 10, 0, 0, 0, 16, -1),
    (0, 16, 3, 1, 0, 16, 0, -1), (0, 5, 5, -1, 0, 0, 0, -1), (0, 5, 5, 1, 1, 6, 10, 1),
    (0, 9, 15, 0, 1, 10, 6, -1),
]
EQ_TARGET = 20


def _eq_rows(rows=EQ_ROWS):
    out = np.zeros((len(rows), len(FIELDS)), np.int64)
    for i, row in enumerate(rows):
        for name, v in zip(EQ_COLS, row, strict=True):
            out[i, FIELDS.index(name)] = v
    return out


def _winner(a, b, target):
    """No end rule besides the target: the side at the target with more points."""
    if a >= target and a > b:
        return 0
    if b >= target and b > a:
        return 1
    return -1


def _hand_result(seed=3, rows=EQ_ROWS, target=EQ_TARGET):
    """A result as match_equity returns it, with an equity table of random values (the
    break-even map and the grid read only the table, the rows, the target and the rules)."""
    size = target + 25 + 1
    eq = np.random.default_rng(seed).random((size, size, 2))
    return {"eq": eq, "size": size, "target": target, "rules": 0, "outcomes": _eq_rows(rows)}


def _plain_break_even(result, a, b, t, rows=EQ_ROWS):
    eq, target = result["eq"], result["target"]
    top = eq.shape[0] - 1
    parts = {"made": lambda r: r[3] == 0 and r[4] % 2 == 1,
             "failed": lambda r: r[3] == 0 and r[4] % 2 == 0,
             "pass": lambda r: r[3] != 0}
    e = {}
    for name, keep in parts.items():
        mine = [r for r in rows if keep(r) and r[0] == t]
        if not mine:
            return math.nan
        total = 0.0
        for r in mine:
            na, nb = a + r[5], b + r[6]
            w = _winner(na, nb, target) if r[3] >= 0 else -1
            total += (1.0 if w == 0 else 0.0 if w == 1
                      else eq[min(na, top), min(nb, top), 1 - t]) / len(mine)
        e[name] = total
    spread = e["made"] - e["failed"]
    if spread <= 1e-9:
        return math.nan
    return min(1.0, max(0.0, (e["pass"] - e["failed"]) / spread))


@pytest.mark.parametrize("step", [5, 7])
def test_thresholds_and_grid_against_plain_expectations(step):
    """Break-even at every step-point bin and dealer from E(made), E(failed), E(pass)
    summed here over the rows (a win at the target is 1, a loss 0, else the table's value
    of the next score, held at its top), clipped to [0, 1], NaN where the spread is nil;
    and the equity at the bins averaged over who deals next."""
    from bazarsim.matches.equity import equity_grid, thresholds

    result = _hand_result()
    got = thresholds(result, step)
    grid = list(range(0, EQ_TARGET, step))
    assert got["grid"] == grid
    assert got["deals"] == {"made": [2, 3], "failed": [1, 1], "pass": [4, 2]}
    th = got["thresholds"]
    assert th.shape == (2, len(grid), len(grid))
    seen = set()
    for t in (0, 1):
        for i, a in enumerate(grid):
            for j, b in enumerate(grid):
                want = _plain_break_even(result, a, b, t)
                seen.add("nan" if math.isnan(want) else want in (0.0, 1.0) or "inside")
                if math.isnan(want):
                    assert math.isnan(th[t, i, j]), (t, a, b)
                else:
                    assert th[t, i, j] == pytest.approx(want, rel=1e-12, abs=1e-15), (t, a, b)
    assert "inside" in seen and True in seen
    g, eq = equity_grid(result, step)
    assert g == grid
    for i, a in enumerate(grid):
        for j, b in enumerate(grid):
            assert eq[i, j] == pytest.approx((result["eq"][a, b, 0] + result["eq"][a, b, 1]) / 2)


def test_thresholds_blank_for_a_dealer_without_failed_contracts():
    """A dealer whose deals hold no failed contract of A's: no break-even there (NaN)."""
    from bazarsim.matches.equity import thresholds

    rows = [r for r in EQ_ROWS if not (r[0] == 0 and r[3] == 0 and r[4] % 2 == 0)]
    got = thresholds(_hand_result(rows=rows), 10)
    assert got["deals"]["failed"] == [0, 1]
    assert np.isnan(got["thresholds"][0]).all() and not np.isnan(got["thresholds"][1]).all()


def test_distribution_counts_each_dealer():
    from bazarsim.matches.equity import distribution

    arrays, prob, counts = distribution(_eq_rows())
    assert counts == [7, 6]
    for t in (0, 1):
        rows = [(r[5], r[6], r[3], r[4], r[7]) for r in EQ_ROWS if r[0] == t]
        want = {k: rows.count(k) / len(rows) for k in set(rows)}
        got = {tuple(int(x) for x in arrays[:, t, k]): prob[t, k]
               for k in range(arrays.shape[2]) if prob[t, k] > 0}
        assert got == pytest.approx(want, rel=1e-12)
        for k in range(len(want), arrays.shape[2]):  # padding: no declarer, no eight
            assert prob[t, k] == 0 and arrays[2, t, k] == -1 and arrays[4, t, k] == -1
    assert arrays.shape == (5, 2, 7)
    mask = np.array([r[0] == 1 and r[1] == 0 for r in EQ_ROWS])
    arrays, prob, counts = distribution(_eq_rows(), mask)
    assert counts == [0, 2]
    assert arrays.shape == (5, 2, 1) and prob.tolist() == [[0.0], [1.0]]
    assert arrays[:, 1, 0].tolist() == [12, 4, 0, 1, -1]
    assert arrays[:, 0, 0].tolist() == [0, 0, -1, -1, -1]
    arrays, prob, counts = distribution(_eq_rows(), np.zeros(len(EQ_ROWS), bool))
    assert counts == [0, 0] and arrays.shape == (5, 2, 1) and not prob.any()


def test_regime_map_by_hand():
    from bazarsim.matches.equity import regime_map
    from bazarsim.matches.policy import Policy, ScoreRule

    own = np.array([0, 30, 0, 90, 95])
    other = np.array([0, 0, 30, 0, 70])
    r, n = regime_map(None, own, other, 100)
    assert n == 1 and r.tolist() == [0] * 5
    pa = Policy(name="a", score=(ScoreRule("ahead", 20), ScoreRule("level", 5)))
    pb = Policy(name="b", score=(ScoreRule("behind", 20, 15),))
    r, n = regime_map((pa, pb), own, other, 100)
    # A: ahead by 20 -> 0, within 5 -> 1, else 2; B (own = B's): behind by 20 with the
    # leader within 15 of 100 -> 0, else 1; regime = A's * 2 + B's
    assert n == 6
    assert r.tolist() == [1 * 2 + 1, 0 * 2 + 1, 2 * 2 + 1, 0 * 2 + 0, 0 * 2 + 0]
    near = Policy(name="n", score=(ScoreRule("ahead", 5, 10),))  # leader within 10 of 100
    r, n = regime_map((near, Policy(name="b")), np.array([95, 50]), np.array([80, 40]), 100)
    assert n == 2 and r.tolist() == [0, 1]


def test_start_equity_and_simulated_check_by_hand():
    from bazarsim.matches.equity import simulated_vs_dp, start_equity

    eq = np.zeros((3, 3, 2))
    eq[0, 0] = (0.25, 0.75)  # A not dealing next, A dealing next
    result = {"eq": eq}
    assert start_equity(result, np.array([True, False, False, False])) == 0.375
    wins = np.array([[1, 0], [1, 1], [0, 0], [1, 0], [1, 1]])
    got = simulated_vs_dp(result, wins)
    # pair m: first dealer m % 4; A at N-S first (deals first when m % 4 is even), then E-W
    firsts = [(m % 4) % 2 == 0 for m in range(5) for _ in (0,)]
    dp = sum((0.75 if f else 0.25) + (0.25 if f else 0.75) for f in firsts) / 10
    x = [0.5, 1.0, 0.0, 0.5, 1.0]
    sim = 6 / 10
    assert got == pytest.approx({"matches": 10, "simulated": sim, "dp": dp,
                                 "difference": sim - dp,
                                 "simulated_se": _stdev(x) / math.sqrt(5),
                                 "simulated_se_unpaired": math.sqrt(sim * (1 - sim) / 10)},
                                rel=1e-12)
    two = simulated_vs_dp(result, wins[:2])  # two pairs: a paired SE already
    assert two["simulated_se"] == pytest.approx(_stdev([0.5, 1.0]) / math.sqrt(2), rel=1e-12)
    one = simulated_vs_dp(result, np.array([[1, 1]]))
    assert one["simulated_se"] == 0.0 and one["simulated"] == 1.0
    assert one["simulated_se_unpaired"] == pytest.approx(math.sqrt(1e-12 / 2))


@pytest.mark.parametrize("step", [2, 3])
def test_derived_rules_against_plain_weighted_means(step):
    """Per band of A's lead (behind / ahead by a third of the target with the leader within
    a third of it, then by a tenth; the first band that applies takes a bin), the mean
    break-even weighted by how often the rows reached each bin and dealer, minus the mean
    over the bins no band takes, within +-0.5 and to 0.01; a rule for each non-zero
    shift."""
    from bazarsim.matches.equity import derived_rules
    from bazarsim.matches.policy import Policy

    # and two deals at scores in the last bins (one past the target: clipped to the last)
    rows = EQ_ROWS + [(0, 18, 19, -1, 0, 0, 0, -1), (1, 25, 3, 1, 1, 2, 3, -1),
                      (0, 2, 27, -1, 0, 0, 0, -1)]
    result = _hand_result(seed=11, rows=rows)
    target = EQ_TARGET
    small, big, near = 2, 7, 6  # a tenth and a third of 20, rounded; a third, floored
    grid = list(range(0, target, step))
    k = len(grid)
    visits = {}
    for r in rows:
        key = (r[0], min(r[1] // step, k - 1), min(r[2] // step, k - 1))
        visits[key] = visits.get(key, 0) + 1

    def band(a, b):
        lead = a - b
        close = target - max(a, b) <= near
        if lead <= -big and close:
            return 0
        if lead >= big and close:
            return 1
        if lead <= -small:
            return 2
        return 3 if lead >= small else -1

    def mean(which):
        num = den = 0.0
        for (t, i, j), n in visits.items():
            p = _plain_break_even(result, grid[i], grid[j], t, rows)
            if band(grid[i], grid[j]) == which and not math.isnan(p):
                num += n * p
                den += n
        return num / den if den else None

    base = mean(-1)
    got_rules, report = derived_rules(result, step, Policy(name="x"))
    assert report["base_break_even"] == pytest.approx(base, rel=1e-12)
    names = [("behind", big, near), ("ahead", big, near), ("behind", small, 0),
             ("ahead", small, 0)]
    want_bands, want_rules = [], []
    for n, (when, by, nr) in enumerate(names):
        v = mean(n)
        if v is None:
            continue
        shift = round(min(0.5, max(-0.5, v - base)), 2)
        seen = sum(c for (t, i, j), c in visits.items() if band(grid[i], grid[j]) == n)
        want_bands.append({"when": when, "by": by, "near": nr, "shift": 0.0,
                           "break_even": v, "shift_": shift, "visits": float(seen)})
        if shift:
            want_rules.append((when, by, nr, shift))
    assert len(report["bands"]) == len(want_bands) >= 2
    for g, w in zip(report["bands"], want_bands, strict=True):
        assert (g["when"], g["by"], g["near"], g["visits"]) == (w["when"], w["by"], w["near"],
                                                               w["visits"])
        assert g["break_even"] == pytest.approx(w["break_even"], rel=1e-12)
        assert g["shift"] == w["shift_"]
    assert [(r.when, r.by, r.near, r.shift) for r in got_rules] == want_rules
    assert want_rules


def test_match_equity_table_size_deals_and_regimes():
    """pad: the largest single-deal gain, at most the target; the deals behind each dealer;
    per regime the deals played under it (0 where it borrows every deal's); refusals."""
    from bazarsim.matches.equity import match_equity
    from bazarsim.matches.policy import Policy, ScoreRule

    rs = get_ruleset("bazar-blot")
    res = match_equity(_eq_rows(), rs, 30)
    assert (res["pad"], res["size"], res["deals"], res["regimes"]) == (25, 56, [7, 6], 1)
    assert res["eq"].shape == (56, 56, 2) and res["regime_deals"] == [13]
    assert res["target"] == 30 and res["ruleset"] is rs
    res = match_equity(_eq_rows(), rs, EQ_TARGET)
    assert (res["pad"], res["size"]) == (EQ_TARGET, 2 * EQ_TARGET + 1)
    # A: a rule when ahead by 5 or more (rows at 8:2, 16:3: A deals next in one of each);
    # B: none. Regime 0 (A's rule) lacks deals of one dealer: it borrows every deal's
    ahead = (Policy(name="a", score=(ScoreRule("ahead", 5),)), Policy(name="b"))
    res = match_equity(_eq_rows(), rs, EQ_TARGET, ahead)
    mine = sum(r[1] - r[2] >= 5 for r in EQ_ROWS)
    assert res["regimes"] == 2 and res["regime_deals"] == [mine, len(EQ_ROWS) - mine]
    assert {r[0] for r in EQ_ROWS if r[1] - r[2] >= 5} == {0, 1}
    one = [r for r in EQ_ROWS if not (r[1] - r[2] >= 5 and r[0] == 0)]
    res = match_equity(_eq_rows(one), rs, EQ_TARGET, ahead)
    assert res["regime_deals"] == [0, len(one) - sum(r[1] - r[2] >= 5 for r in one)]
    b_gains = [(t, 0, 0, 1, 1, 3, 27, -1) for t in (0, 1)] + [(0, 3, 0, 0, 1, 9, 0, -1)]
    res = match_equity(_eq_rows(b_gains), rs, 30)  # B's largest gain sets the pad
    assert (res["pad"], res["size"]) == (27, 58)
    passed = [(t, 0, 0, -1, 0, 0, 0, -1) for t in (0, 1)]  # nothing ever scored: no pad
    res = match_equity(_eq_rows(passed), rs, 30)
    assert (res["pad"], res["size"]) == (0, 31) and (res["eq"] == 0.5).all()
    with pytest.raises(BazarsimError, match="no deal outcomes"):
        match_equity(_eq_rows([]), rs, EQ_TARGET)
    with pytest.raises(BazarsimError, match="dealt by both sides"):
        match_equity(_eq_rows([r for r in EQ_ROWS if r[0] == 1]), rs, EQ_TARGET)


def test_playoff_match_length_quartiles_interpolate():
    """Matches of 1, 2, 3, 5, 8 and 13 deals: quartiles between two lengths (2.25, 4,
    7.25 by linear interpolation), the mean 32 / 6."""
    from bazarsim.matches.playoff import playoff_summary

    lengths = [13, 1, 8, 2, 3, 5]
    rows = [{"pair": m // 2, "a_side": m % 2, "a_points": d} for m, n in enumerate(lengths)
            for d in range(n)]
    got = playoff_summary(np.array([[1, 0], [0, 0], [1, 1]]), _rows(rows), 100)
    assert got["match_length_quartiles"] == pytest.approx(_quartiles(lengths), rel=1e-12)
    assert got["match_length_quartiles"] == pytest.approx([2.25, 4.0, 7.25], rel=1e-12)
    assert got["deals_per_match"] == pytest.approx(32 / 6) and got["deals"] == 32


def test_equity_maps_by_hand():
    """What `bazarsim equity` prints: the DP under the policies' regimes, its check against
    the simulated matches, the equity at --step bins and the break-even map at
    --threshold-step bins, both averaged over who deals next (a bin blank for one dealer
    is blank)."""
    from bazarsim.matches.equity import equity_maps, match_equity
    from bazarsim.matches.policy import Policy, ScoreRule

    rs = get_ruleset("bazar")  # no end rule besides the target
    policies = (Policy(name="a", score=(ScoreRule("ahead", 5),)), Policy(name="b"))
    wins = np.array([[1, 0], [0, 0], [1, 1]])
    got = equity_maps(_eq_rows(), wins, rs, EQ_TARGET, policies, 5, 7)
    res = got["result"]
    assert res["regimes"] == 2 and res["target"] == EQ_TARGET
    assert np.array_equal(res["eq"], match_equity(_eq_rows(), rs, EQ_TARGET, policies)["eq"])
    eq = res["eq"]
    assert got["grid"] == [0, 5, 10, 15]
    for i, a in enumerate(got["grid"]):
        for j, b in enumerate(got["grid"]):
            assert got["equity"][i, j] == pytest.approx((eq[a, b, 0] + eq[a, b, 1]) / 2)
    assert got["threshold_grid"] == [0, 7, 14]
    for i, a in enumerate(got["threshold_grid"]):
        for j, b in enumerate(got["threshold_grid"]):
            want = (_plain_break_even(res, a, b, 0) + _plain_break_even(res, a, b, 1)) / 2
            assert got["thresholds"][i, j] == pytest.approx(want, rel=1e-12, abs=1e-15)
    dealt = [(m % 4) % 2 == j for m in range(3) for j in (0, 1)]  # A deals first
    dp = sum(eq[0, 0, 1] if f else eq[0, 0, 0] for f in dealt) / 6
    assert got["check"]["dp"] == pytest.approx(dp, rel=1e-12)
    assert got["check"]["simulated"] == 0.5 and got["check"]["matches"] == 6


def test_break_even_blank_at_a_spread_of_1e_9():
    """A made contract worth exactly 1e-9 more than a failed one: no break-even (the spread
    must exceed 1e-9)."""
    from bazarsim.matches.equity import thresholds

    rows = [(t, 0, 0, 0, 1, 1, 0, -1) for t in (0, 1)]  # made: to 1:0
    rows += [(t, 0, 0, 0, 0, 0, 12, -1) for t in (0, 1)]  # failed: B reaches 12, wins
    rows += [(t, 0, 0, 1, 1, 0, 1, -1) for t in (0, 1)]  # B's contract: to 0:1
    eq = np.zeros((20, 20, 2))
    eq[1, 0] = 1e-9
    eq[0, 1] = 0.5
    got = thresholds({"eq": eq, "target": 10, "rules": 0, "outcomes": _eq_rows(rows)}, 10)
    assert got["grid"] == [0] and np.isnan(got["thresholds"]).all()
    eq[1, 0] = 2e-9
    got = thresholds({"eq": eq, "target": 10, "rules": 0, "outcomes": _eq_rows(rows)}, 10)
    assert (got["thresholds"] == 1.0).all()


@pytest.mark.parametrize("p, want", [
    # break-even at (A deals next, 0:0), (A does not, 10:10), (A deals, 0:10), (A does not,
    # 10:0) -> base (2 x 0.3 + 0.0) / 3, behind 0.1 - 0.2, ahead 0.9 - 0.2 held at +0.5
    ((0.3, 0.0, 0.1, 0.9), (0.2, -0.1, 0.5)),
    # base (2 x 0.9 + 0.6) / 3 = 0.8: behind 0.1 - 0.8 held at -0.5, ahead 0.7 - 0.8
    ((0.9, 0.6, 0.1, 0.7), (0.8, -0.5, -0.1)),
])
def test_derived_rules_by_hand(monkeypatch, p, want):
    """Target 20, 10-point bins (0 and 10): A ahead or behind by 10 falls in the small
    bands (a tenth of 20: 2), too far from the end (a third: 6) for the big ones. The
    break-even map is set by hand; the rows visit 0:0 twice and 10:10 once (no band), 0:10
    twice with A dealing next and once without (a bin blank there: left out, visits
    counted), and 10:0 once: a band reached by a single deal still has its mean. Shifts
    beyond 0.5 either way are held at 0.5."""
    import bazarsim.matches.equity as equity
    from bazarsim.matches.policy import Policy

    _base_deals, _base_other, behind, ahead = p
    table = np.full((2, 2, 2), 0.5)  # [A deals next, A's bin, B's bin]; 0.5: never visited
    table[1, 0, 0], table[0, 1, 1], table[1, 0, 1], table[0, 1, 0] = p
    table[0, 0, 1] = np.nan
    monkeypatch.setattr(equity, "thresholds",
                        lambda result, step: {"grid": [0, 10], "thresholds": table})
    rows = [(1, 0, 0), (1, 3, 9), (0, 10, 10), (1, 0, 10), (1, 5, 19), (0, 2, 12), (0, 19, 0)]
    result = {"target": 20, "outcomes": _eq_rows([r + (-1, 0, 0, 0, -1) for r in rows])}
    rules, report = equity.derived_rules(result, 10, Policy(name="x"))
    base, behind_shift, ahead_shift = want
    assert report["base_break_even"] == pytest.approx(base, rel=1e-12)
    got = [(b["when"], b["by"], b["near"], b["visits"], b["shift"]) for b in report["bands"]]
    assert got == [("behind", 2, 0, 3.0, behind_shift), ("ahead", 2, 0, 1.0, ahead_shift)]
    assert [b["break_even"] for b in report["bands"]] == pytest.approx([behind, ahead],
                                                                       rel=1e-12)
    assert [(r.when, r.by, r.near, r.shift) for r in rules] == [
        ("behind", 2, 0, behind_shift), ("ahead", 2, 0, ahead_shift)]
