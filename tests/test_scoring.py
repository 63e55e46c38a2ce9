"""Deal scoring: worked examples per ruleset (docs/rules.md, Scoring), properties, bulk = scalar."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.core.contracts import Contract
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.rules.scoring import DealOutcome, ScoringError, score_deal, score_deals, to_sai

from . import naive_scoring

N, E, S, W = range(4)
H, BK, VK = 1, 4, 5


def deal(
    rs,
    level,
    kind,
    declarer,
    points_ns,
    tricks_ns,
    decl=(0, 0),
    bela=(0, 0),
    contra=0,
    capot=False,
    **opts,
):
    rs = get_ruleset(rs, **opts)
    total = rs.deal_total[kind]
    out = DealOutcome((points_ns, total - points_ns), (tricks_ns, 8 - tricks_ns), decl, bela)
    return score_deal(Contract(level, kind, declarer, contra, capot), out, rs)


# ------------------------------------------------------------------ bazar, small points


def test_bazar_made_each_side_writes_its_own():
    # 9H by E: EW 92 + terz 20 + bela 20 = 132 >= 90
    r = deal("bazar", 9, H, E, 70, 3, decl=(0, 20), bela=(0, 20))
    assert r.made and r.margin == 42 and r.scores == (70, 132)


def test_bazar_declarations_decide_the_contract():
    # EW takes 72 card points: 72 < 80, but with a terz 92 >= 80
    assert not deal("bazar", 8, H, E, 90, 4).made
    r = deal("bazar", 8, H, E, 90, 4, decl=(0, 20))
    assert r.made and r.margin == 12 and r.scores == (90, 92)
    # exactly 10 x level is enough (margin 0); one point short fails (margin -1)
    assert deal("bazar", 9, H, E, 72, 4).margin == 0
    assert deal("bazar", 9, H, E, 73, 4).margin == -1


def test_bazar_failed_everything_to_the_defenders():
    # 10H by E: EW 89 + 0 = 89 < 100. NS get 162 + all declarations (EW terz 20, NS 50);
    # EW's bela stays with EW (option bela_on_failure=holder).
    r = deal("bazar", 13, H, E, 73, 4, decl=(0, 20), bela=(0, 20))
    assert not r.made and r.margin == 89 + 40 - 130 == -1
    assert r.scores == (162 + 20, 20)
    r = deal("bazar", 10, H, E, 73, 4, decl=(50, 0), bela=(0, 0))
    assert not r.made and r.scores == (162 + 50, 0)
    r = deal(
        "bazar",
        13,
        H,
        E,
        73,
        4,
        decl=(0, 20),
        bela=(0, 20),
        **{"scoring.bela_on_failure": "defenders"},
    )
    assert r.scores == (162 + 20 + 20, 0)


def test_bazar_contra_doubles_recontra_quadruples():
    assert deal("bazar", 9, H, E, 70, 3, contra=1).scores == (140, 184)
    assert deal("bazar", 9, H, E, 70, 3, contra=2).scores == (280, 368)
    assert deal("bazar", 11, H, E, 70, 3, contra=1).scores == (324, 0)
    r = deal("bazar", 9, H, E, 70, 3, contra=1, **{"scoring.made_with_contra": "all_to_bidders"})
    assert r.scores == (0, 324)


def test_bazar_capot_and_vk_totals():
    r = deal("bazar", 8, H, N, 162, 8)
    assert r.made and r.capot and r.scores == (252, 0)
    r = deal("bazar", 9, VK, N, 258, 8, decl=(20, 0))
    assert r.scores == (258 + 90 + 20, 0)
    r = deal("bazar", 15, VK, N, 140, 5)
    assert not r.made and r.scores == (0, 258)
    # a bid capot needs every trick even when the points are there
    r = deal("bazar", 9, H, N, 150, 7, capot=True)
    assert not r.made and r.margin == -1 and r.scores == (0, 252)


def test_bazar_reverse_capot_always_fails():
    # NS bid 8H, take no trick; their four jacks (200) would "reach" 80 but cannot save them
    r = deal("bazar", 8, H, N, 0, 0, decl=(200, 0))
    assert not r.made and r.reverse_capot and r.scores == (0, 162 + 90 + 200)


# ------------------------------------------------------------------ bazar, big points

BIG = {"scoring.unit": "big"}
# the club rules' open capot points (docs/rules.md, Scoring), each set to its non-default value
CAPOT_OPEN = {"scoring.capot_bonus_counts_for_level": True, "scoring.failed_capot_base": 16}


def test_bazar_big_points_16_26_25():
    assert deal("bazar", 8, H, N, 85, 4, **BIG).scores == (8, 8)  # 85 -> 8, 77 -> 8
    assert deal("bazar", 8, H, N, 86, 4, **BIG).scores == (9, 8)  # 86 -> 9, 76 -> 8: 17
    r = deal("bazar", 8, H, N, 86, 4, **BIG, **{"scoring.sai_rounding": "sum_to_total"})
    assert r.scores == (8, 8)  # defenders 76 -> 8, bidders the rest of 16
    assert deal("bazar", 8, H, N, 162, 8, **BIG).scores == (25, 0)
    assert deal("bazar", 8, VK, N, 258, 8, **BIG).scores == (35, 0)
    assert deal("bazar", 10, H, N, 90, 4, **BIG).scores == (0, 16)
    assert deal("bazar", 14, VK, N, 130, 4, **BIG).scores == (0, 26)
    assert deal("bazar", 14, VK, N, 130, 4, contra=1, **BIG).scores == (0, 52)
    assert deal("bazar", 14, VK, N, 130, 4, contra=2, **BIG).scores == (0, 104)
    r = deal("bazar", 10, H, N, 90, 4, decl=(20, 50), bela=(20, 0), **BIG)
    assert r.made and r.scores == (9 + 2 + 2, 7 + 5)


# ------------------------------------------------------------------ bazar-blot


def test_blot_sai_rounding_85_86():
    assert to_sai(85, "down_1_5") == 8 and to_sai(86, "down_1_5") == 9
    assert to_sai(85, "half_up") == 9 and to_sai(84, "half_up") == 8
    assert to_sai(162, "down_1_5") == 16 and to_sai(258, "down_1_5") == 26
    assert to_sai(0, "down_1_5") == 0 and to_sai(5, "down_1_5") == 0 and to_sai(6, "down_1_5") == 1


def test_blot_made_without_contra():
    # 8H by N; EW take 76 -> 8 sai. NS: 8 x 1 + 16 - 8 = 16; EW 8
    assert deal("bazar-blot", 8, H, N, 86, 4).scores == (16, 8)
    # NS 77 + terz 20 make 8; EW 85 points -> 8 sai (1-5 down); 86 -> 9 (6-9 up)
    assert deal("bazar-blot", 8, H, N, 77, 4, decl=(20, 0)).scores == (18, 8)
    assert deal("bazar-blot", 8, H, N, 76, 4, decl=(20, 0)).scores == (17, 9)
    r = deal("bazar-blot", 8, H, N, 77, 4, decl=(20, 0), **{"scoring.sai_rounding": "half_up"})
    assert r.scores == (17, 9)
    # bonuses in tens: NS terz 2 + bela 2, EW fifty 5
    assert deal("bazar-blot", 8, H, N, 86, 4, decl=(20, 50), bela=(20, 0)).scores == (20, 13)
    # BK multiplier 2: 9 x 2 + 16 - 6 = 28
    assert deal("bazar-blot", 9, BK, N, 100, 4).scores == (28, 6)


def test_blot_made_with_contra_all_to_bidders():
    # 8H X: 8 x 2 + 16 + all bonuses (2 + 5) = 39; defenders 0
    assert deal("bazar-blot", 8, H, N, 86, 4, decl=(20, 50), contra=1).scores == (39, 0)
    assert deal("bazar-blot", 8, H, N, 86, 4, contra=2).scores == (8 * 4 + 16, 0)
    assert deal("bazar-blot", 9, BK, E, 60, 4, contra=1).scores == (0, 9 * 3 + 16)
    assert deal("bazar-blot", 9, BK, E, 60, 4, contra=2).scores == (0, 9 * 5 + 16)
    r = deal(
        "bazar-blot", 8, H, N, 86, 4, contra=1, **{"scoring.contra_style": "double_whole_score"}
    )
    assert r.scores == ((8 + 16) * 2, 0)


def test_blot_failed_bidders_zero():
    # 10H by N: NS 70 + terz 20 = 90 < 100. EW: 10 x 1 + 16 + both sides' bonuses
    # (NS terz 2, EW bela 2); EW's own sai are not counted
    r = deal("bazar-blot", 10, H, N, 70, 4, decl=(20, 0), bela=(0, 20))
    assert not r.made and r.margin == -10 and r.scores == (0, 30)
    assert deal("bazar-blot", 10, H, N, 60, 4, contra=1).scores == (0, 36)


def test_blot_capot_and_reverse_capot():
    r = deal("bazar-blot", 8, H, N, 162, 8, decl=(20, 0))
    assert r.capot and r.scores == (8 + 25 - 0 + 2, 0)
    r = deal("bazar-blot", 8, H, N, 0, 0, decl=(0, 50))
    assert r.reverse_capot and not r.made and r.scores == (0, 8 + 25 + 5)
    r = deal("bazar-blot", 9, H, N, 162, 8, contra=1, capot=True)
    assert r.made and r.scores == (9 * 2 + 25, 0)


# ------------------------------------------------------------------ no bela in BK, the club capot


def cli_json(*args):
    """``bazarsim score ... -f json``: exit code and the parsed result (the output on error)."""
    r = CliRunner().invoke(app, ["score", *args, "-f", "json"])
    return r.exit_code, (json.loads(r.output) if r.exit_code == 0 else r.output)


@pytest.mark.parametrize("name", ["bazar", "bazar-blot", "belote-fr"])
def test_no_bela_in_bk_refused_by_scalar_and_bulk_check(name):
    """docs/rules.md, Declarations: no bela in BK. 8BK by N, NS 70 + bela 20 would make 80."""
    with pytest.raises(ScoringError, match="no bela in BK"):
        deal(name, 8, BK, N, 70, 4, bela=(20, 0))
    with pytest.raises(ScoringError, match="no bela in BK"):
        deal(name, 8, BK, N, 70, 4, bela=(0, 20))
    rows = dict(
        level=[8, 8],
        kind=[H, BK],
        declarer_side=0,
        points=[[70, 92]] * 2,
        tricks=[[4, 4]] * 2,
        bela=[[20, 0], [20, 0]],
    )
    with pytest.raises(ScoringError, match=r"deal 1: .*no bela in BK"):
        score_deals(name, **rows)
    # unchecked, the kernel itself never counts it: the same as no bela at all
    got = score_deals(name, **rows, check=False)
    none = score_deals(name, **dict(rows, bela=[[20, 0], [0, 0]]))
    for key in got:
        assert np.array_equal(got[key], none[key]), key
    if name != "belote-fr":
        assert not got["made"][1] and got["margin"][1] == -10


@pytest.mark.parametrize("name", ["bazar", "bazar-blot"])
def test_no_bela_in_bk_cli_one_error_line(name):
    r = CliRunner().invoke(
        app, ["score", "-r", name, *"-c 8BK --declarer N -p NS=70 --bela NS=20".split()])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert lines[0].startswith("error: no bela in BK"), r.output
    # the same deal with the bela in a trump contract is accepted (and made: 70 + 20)
    code, d = cli_json("-r", name, *"-c 8H --declarer N -p NS=70 --bela NS=20".split())
    assert code == 0 and d["made"], d


@pytest.mark.parametrize("name", ["bazar", "bazar-blot"])
def test_evaluation_gives_no_bela_in_bk(name):
    """Deal evaluation (and so the bid tables built on it) never finds a bela in BK:
    compiled rules' bela_suit is 0 for every suit under BK."""
    from bazarsim.evaluate.hands import evaluate_deals, evaluate_hand
    from bazarsim.rules.compiled import compiled_rules

    assert not compiled_rules(get_ruleset(name)).bela_suit[BK].any()
    hand = "KQ.KQ.KQ.KQ"  # K+Q of every suit
    assert evaluate_hand(hand, "H", name).bela == 20
    assert evaluate_hand(hand, "BK", name).bela == 0
    rng = np.random.default_rng(33)
    deals = np.zeros((400, 4), np.uint32)
    for i in range(len(deals)):
        perm = rng.permutation(32)
        for seat in range(4):
            deals[i, seat] = sum(1 << int(c) for c in perm[8 * seat : 8 * seat + 8])
    in_h, in_bk = evaluate_deals(deals, 0, "H", name), evaluate_deals(deals, 0, "BK", name)
    assert in_h["bela_ns"].any() and in_h["bela_ew"].any()
    assert not in_bk["bela_ns"].any() and not in_bk["bela_ew"].any()


LEVEL = {"scoring.capot_bonus_counts_for_level": True}
BASE16 = {"scoring.failed_capot_base": 16}


def test_capot_bonus_counts_for_level():
    """20H by N, every trick (162) + terz: 182 < 200 fails by default; with the option the
    capot counts 252, and 252 + 20 >= 200 makes it. bazar-blot writes 20 + 25 + 2 = 47
    either way, to the defenders or to the bidders."""
    r = deal("bazar-blot", 20, H, N, 162, 8, decl=(20, 0))
    assert not r.made and r.margin == -18 and r.bidders_total == 182 and r.scores == (0, 47)
    r = deal("bazar-blot", 20, H, N, 162, 8, decl=(20, 0), **LEVEL)
    assert r.made and r.margin == 72 and r.bidders_total == 272 and r.scores == (47, 0)
    # bazar, small points: everything (162 + 90 + 20) to the defenders, or to the bidders
    assert deal("bazar", 20, H, N, 162, 8, decl=(20, 0)).scores == (0, 272)
    assert deal("bazar", 20, H, N, 162, 8, decl=(20, 0), **LEVEL).scores == (272, 0)
    # the bonus is the capot side's only: 7 tricks never count it
    assert not deal("bazar-blot", 16, H, N, 152, 7, **LEVEL).made
    args = "-r bazar-blot -c 20H --declarer N --points NS=162 --tricks NS=8 --decl NS=20".split()
    code, d = cli_json(*args)
    assert code == 0 and not d["made"] and (d["ns"], d["ew"], d["margin"]) == (0, 47, -18)
    code, d = cli_json(*args, "-o", "scoring.capot_bonus_counts_for_level=true")
    assert code == 0 and d["made"] and (d["ns"], d["ew"], d["margin"]) == (47, 0, 72)


def test_failed_capot_base():
    """9H-CAPOT by N takes 7 tricks: the defenders write 9 x 1 + 25 = 34 (the bid's capot
    base, default) or 9 x 1 + 16 = 25 (the plain base)."""
    r = deal("bazar-blot", 9, H, N, 150, 7, capot=True)
    assert not r.made and r.margin == -1 and r.scores == (0, 34)
    r = deal("bazar-blot", 9, H, N, 150, 7, capot=True, **BASE16)
    assert not r.made and r.scores == (0, 25)
    # a capot actually taken keeps its base: the defenders' (reverse) capot is still 25
    r = deal("bazar-blot", 9, H, N, 0, 0, capot=True, **BASE16)
    assert r.scores == (0, 34)
    # bazar: 162 + 90 or 162 small points; 25 or 16 big points
    assert deal("bazar", 9, H, N, 150, 7, capot=True).scores == (0, 252)
    assert deal("bazar", 9, H, N, 150, 7, capot=True, **BASE16).scores == (0, 162)
    assert deal("bazar", 9, H, N, 150, 7, capot=True, **BIG).scores == (0, 25)
    assert deal("bazar", 9, H, N, 150, 7, capot=True, **BIG, **BASE16).scores == (0, 16)
    args = "-r bazar-blot -c 9H-CAPOT --declarer N --points NS=150 --tricks NS=7".split()
    code, d = cli_json(*args)
    assert code == 0 and not d["made"] and (d["ns"], d["ew"]) == (0, 34)
    code, d = cli_json(*args, "-o", "scoring.failed_capot_base=16")
    assert code == 0 and (d["ns"], d["ew"]) == (0, 25)
    code, out = cli_json(*args, "-o", "scoring.failed_capot_base=20")
    assert code == 2 and "choose from 25, 16" in out


@pytest.mark.parametrize("opts", [{}, LEVEL, BASE16, CAPOT_OPEN])
@pytest.mark.parametrize("name", ["bazar", "bazar-blot"])
def test_issue_33_examples_bulk_equals_scalar_and_naive(name, opts):
    """The worked examples above, one row each, through all three scorers."""
    rs = get_ruleset(name, **opts)
    rows = [  # level, kind, side, capot bid, points NS, tricks NS, decl NS
        (20, H, 0, False, 162, 8, 20),
        (9, H, 0, True, 150, 7, 0),
        (9, H, 0, True, 0, 0, 0),
        (8, BK, 0, False, 70, 4, 0),
    ]
    a = dict(
        level=np.array([r[0] for r in rows]),
        kind=np.array([r[1] for r in rows]),
        declarer_side=np.array([r[2] for r in rows]),
        contra=np.zeros(len(rows), np.int64),
        capot_bid=np.array([r[3] for r in rows]),
        points=np.array([[r[4], 162 - r[4]] for r in rows]),
        tricks=np.array([[r[5], 8 - r[5]] for r in rows]),
        declarations=np.array([[r[6], 0] for r in rows]),
        bela=np.zeros((len(rows), 2), np.int64),
    )
    got = score_deals(rs, **a)
    for i in range(len(rows)):
        r = scalar_of(rs, a, i)
        assert (bool(got["made"][i]), int(got["margin"][i])) == (r.made, r.margin)
        assert tuple(got["scores"][i].tolist()) == r.scores
        assert (r.made, r.margin, r.ns, r.ew, r.carry) == naive_of(rs, a, i)


def test_naive_and_kernel_ignore_bela_in_bk():
    """Unchecked bulk scoring with belas in BK rows equals the naive reference (which
    reads section 4's "No bela in BK" literally)."""
    rs = get_ruleset("bazar-blot")
    rng = np.random.default_rng(5)
    a = random_inputs(rs, 600, rng)
    a["bela"] = rng.choice([0, 20, 40], (600, 2))
    got = score_deals(rs, **a, check=False)
    assert (a["kind"] == BK).any()
    for i in range(600):
        bulk = (bool(got["made"][i]), int(got["margin"][i]), *got["scores"][i].tolist())
        assert bulk == naive_of(rs, a, i)[:4], i


# ------------------------------------------------------------------ belote-fr


def test_belote_made_failed_tie():
    assert deal("belote-fr", 0, H, N, 90, 4, decl=(20, 0)).scores == (110, 72)
    r = deal("belote-fr", 0, H, N, 70, 4, decl=(20, 50), bela=(20, 0))
    assert not r.made and r.scores == (0, 162 + 70 + 20)  # bela too (bela_on_failure)
    r = deal("belote-fr", 0, H, N, 81, 4)
    assert r.tie and not r.made and r.scores == (0, 81) and r.carry == 81
    assert deal("belote-fr", 0, H, N, 90, 4, contra=1).scores == (180, 144)


def test_belote_capot_100_and_trickless_declarations_void():
    r = deal("belote-fr", 0, H, N, 162, 8, decl=(20, 50))
    assert r.made and r.scores == (162 + 100 + 20, 0)
    r = deal("belote-fr", 0, H, N, 0, 0, decl=(50, 0))
    assert not r.made and r.scores == (0, 262)


# ------------------------------------------------------------------ bela-hr


def test_bela_more_than_half():
    # all points 162 + NS terz 20 = 182; NS need 92
    r = deal("bela-hr", 0, H, N, 72, 4, decl=(20, 0))
    assert r.made and r.margin == 0 and r.scores == (92, 90)
    r = deal("bela-hr", 0, H, N, 71, 4, decl=(20, 0))  # 91 of 182: a tie fails
    assert not r.made and r.scores == (0, 182)
    r = deal("bela-hr", 0, H, E, 40, 2, decl=(0, 0), bela=(0, 20))
    assert r.made and r.scores == (40, 142)


def test_bela_capot_90_and_declarations_to_capot_side():
    r = deal("bela-hr", 0, H, N, 162, 8, decl=(0, 50), bela=(0, 20))
    assert r.made and r.scores == (162 + 90 + 50 + 20, 0)


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "points, tricks, decl, msg",
    [
        ((100, 100), (4, 4), (0, 0), r"N-S 100 \+ E-W 100 = 200 card"),
        ((100, 62), (4, 5), (0, 0), r"N-S 4 \+ E-W 5 = 9 tricks"),
        ((0, 162), (1, 7), (0, 0), None),
        ((10, 152), (0, 8), (0, 0), "took no trick"),
        ((80, 82), (4, 4), (25, 0), "multiple of 10"),
    ],
)
def test_inconsistent_outcomes_rejected(points, tricks, decl, msg):
    out = DealOutcome(points, tricks, decl)
    c = Contract(8, H, N)
    if msg is None:
        score_deal(c, out)
        return
    with pytest.raises(ScoringError, match=msg):
        score_deal(c, out)


# ------------------------------------------------------------------ random outcomes

RULESET_VARIANTS = [
    ("bazar", {}),
    ("bazar", BIG),
    (
        "bazar",
        {**BIG, "scoring.sai_rounding": "sum_to_total", "scoring.bela_on_failure": "defenders"},
    ),
    (
        "bazar",
        {"scoring.made_with_contra": "all_to_bidders", "scoring.trickless_declarations": "void"},
    ),
    ("bazar-blot", {}),
    (
        "bazar-blot",
        {"scoring.sai_rounding": "half_up", "scoring.contra_style": "double_whole_score"},
    ),
    (
        "bazar-blot",
        {"scoring.bela_on_failure": "holder", "scoring.trickless_declarations": "to_capot_side"},
    ),
    ("belote-fr", {}),
    (
        "belote-fr",
        {"scoring.made_with_contra": "all_to_bidders", "scoring.bela_on_failure": "holder"},
    ),
    ("bela-hr", {}),
    ("bazar-blot", CAPOT_OPEN),
    ("bazar", CAPOT_OPEN),
    ("bazar", {**BIG, **CAPOT_OPEN}),
]
DECLS = (0, 0, 0, 20, 20, 40, 50, 70, 100, 120, 140, 150, 200)


def random_inputs(rs, n, rng):
    kinds = np.array(rs.kinds)
    kind = rng.choice(kinds, n)
    totals = np.array([rs.deal_total.get(k, 0) for k in range(6)])[kind]
    t0 = rng.choice([0, 1, 2, 3, 4, 4, 5, 6, 7, 8], n)
    p0 = rng.integers(0, totals + 1)
    p0 = np.where(t0 == 0, 0, np.where(t0 == 8, totals, p0))
    points = np.stack([p0, totals - p0], 1)
    tricks = np.stack([t0, 8 - t0], 1)
    decl = rng.choice(DECLS, (n, 2))
    bela = rng.choice([0, 0, 0, 20, 40], (n, 2))
    bela[kind == BK] = 0  # no bela in BK
    if rs.scoring.scheme in ("bazar", "bazar-blot"):
        level = rng.integers(8, 23, n)  # up to 22: a capot's 252 toward the level matters
    else:
        level = np.zeros(n, np.int64)
    side = rng.integers(0, 2, n)
    contra = rng.integers(0, 3, n) if rs.auction.contra else np.zeros(n, np.int64)
    capot = rng.random(n) < 0.15 if rs.auction.capot_bids else np.zeros(n, bool)
    return dict(
        level=level,
        kind=kind,
        declarer_side=side,
        points=points,
        tricks=tricks,
        declarations=decl,
        bela=bela,
        contra=contra,
        capot_bid=capot,
    )


def scalar_of(rs, a, i):
    c = Contract(
        int(a["level"][i]),
        int(a["kind"][i]),
        int(a["declarer_side"][i]),
        int(a["contra"][i]),
        bool(a["capot_bid"][i]),
    )
    out = DealOutcome(
        tuple(int(x) for x in a["points"][i]),
        tuple(int(x) for x in a["tricks"][i]),
        tuple(int(x) for x in a["declarations"][i]),
        tuple(int(x) for x in a["bela"][i]),
    )
    return score_deal(c, out, rs)


def naive_of(rs, a, i):
    """Row ``i`` of ``a`` scored by the naive reference: (made, margin, ns, ew, carry)."""
    return naive_scoring.score(
        rs,
        *(int(a[k][i]) for k in ("level", "kind", "declarer_side", "contra")),
        bool(a["capot_bid"][i]),
        *([int(x) for x in a[k][i]] for k in ("points", "tricks", "declarations", "bela")),
    )


@pytest.mark.parametrize("variant", range(len(RULESET_VARIANTS)))
def test_bulk_equals_scalar_on_random_deals(variant):
    name, opts = RULESET_VARIANTS[variant]
    rs = get_ruleset(name, **opts)
    rng = np.random.default_rng(1234 + variant)
    a = random_inputs(rs, 1500, rng)
    got = score_deals(rs, **a)
    for i in range(len(a["level"])):
        r = scalar_of(rs, a, i)
        assert bool(got["made"][i]) == r.made, i
        assert int(got["margin"][i]) == r.margin, i
        assert tuple(int(x) for x in got["scores"][i]) == r.scores, (i, r)
        assert int(got["capot_side"][i]) == r.capot_side
        assert int(got["carry"][i]) == r.carry


@pytest.mark.parametrize("variant", range(len(RULESET_VARIANTS)))
def test_scalar_equals_naive_transcription_on_random_deals(variant):
    """score_deal against tests/naive_scoring.py, a literal reading of docs/rules.md (Scoring)."""
    name, opts = RULESET_VARIANTS[variant]
    rs = get_ruleset(name, **opts)
    rng = np.random.default_rng(777 + variant)
    a = random_inputs(rs, 1500, rng)
    for i in range(len(a["level"])):
        r = scalar_of(rs, a, i)
        want = naive_scoring.score(
            rs,
            int(a["level"][i]),
            int(a["kind"][i]),
            int(a["declarer_side"][i]),
            int(a["contra"][i]),
            bool(a["capot_bid"][i]),
            [int(x) for x in a["points"][i]],
            [int(x) for x in a["tricks"][i]],
            [int(x) for x in a["declarations"][i]],
            [int(x) for x in a["bela"][i]],
        )
        assert (r.made, r.margin, r.ns, r.ew, r.carry) == want, (i, r, want)


@pytest.mark.parametrize("variant", range(len(RULESET_VARIANTS)))
def test_scoring_properties_on_random_deals(variant):
    name, opts = RULESET_VARIANTS[variant]
    rs = get_ruleset(name, **opts)
    sr = rs.scoring
    rng = np.random.default_rng(99 + variant)
    a = random_inputs(rs, 800, rng)
    for i in range(len(a["level"])):
        r = scalar_of(rs, a, i)
        b = r.contract.side
        mult = (1, sr.contra_multiplier, sr.recontra_multiplier)[r.contract.contra]
        assert min(r.scores) >= 0 and r.carry >= 0
        assert r.made == (r.margin >= 0)
        if not r.made and not r.tie:
            if sr.bela_on_failure == "defenders":
                assert r.scores[b] == 0, "failed bidders write nothing"
            else:
                assert r.scores[b] <= 40 * mult
        if r.reverse_capot:
            assert not r.made
        if r.contract.capot and r.capot_side != b:
            assert not r.made
        # totals add up: what the two sides write (plus a carried tie) is the whole deal
        if sr.scheme == "bela-hr" or (sr.scheme in ("bazar", "belote-fr") and sr.unit == "small"):
            everything = int(a["points"][i].sum() + a["declarations"][i].sum() + a["bela"][i].sum())
            failed_capot_bid = r.contract.capot and not r.made and sr.failed_capot_base == 25
            if r.capot_side >= 0 or failed_capot_bid:
                everything += sr.capot_bonus
                if sr.trickless_declarations == "void" and r.capot_side >= 0:
                    loser = 1 - r.capot_side
                    everything -= int(a["declarations"][i][loser] + a["bela"][i][loser])
            assert sum(r.scores) + r.carry == everything * mult
        if sr.scheme == "bazar-blot":
            m = sr.bid_multipliers["BK" if r.contract.kind == BK else "suit"]
            whole = 1
            if sr.contra_style == "double_whole_score":
                m, whole = m[0], mult
            else:
                m = m[r.contract.contra]
            capot_base = r.contract.capot and sr.failed_capot_base == 25
            base = 25 if (r.capot_side >= 0 or capot_base) else 16
            bonuses = int(a["declarations"][i].sum() + a["bela"][i].sum()) // 10
            if r.capot_side >= 0 and sr.trickless_declarations == "void":
                loser = 1 - r.capot_side
                bonuses -= int(a["declarations"][i][loser] + a["bela"][i][loser]) // 10
            assert sum(r.scores) == (r.contract.level * m + base + bonuses) * whole


@settings(max_examples=300, deadline=None)
@given(
    level=st.integers(8, 16),
    p_ns=st.integers(0, 162),
    t_ns=st.integers(1, 7),
    d_b=st.sampled_from(DECLS),
    extra=st.integers(1, 30),
)
def test_more_points_never_hurts_the_bidders(level, p_ns, t_ns, d_b, extra):
    """bazar: the bidders' result is monotone in their points (made stays made)."""
    lo = deal("bazar", level, H, N, p_ns, t_ns, decl=(d_b, 0))
    hi_pts = min(162, p_ns + extra)
    hi = deal("bazar", level, H, N, hi_pts, t_ns, decl=(d_b, 0))
    assert hi.margin - lo.margin == hi_pts - p_ns
    assert hi.made or not lo.made
    assert hi.ns >= lo.ns


def test_bulk_rejects_bad_rows():
    rs = get_ruleset("bazar")
    with pytest.raises(ScoringError, match="deal 1"):
        score_deals(rs, 8, 1, 0, [[80, 82], [80, 80]], [[4, 4], [4, 4]])


# ------------------------------------------------------------------ CLI


def test_cli_score_json_and_errors():
    runner = CliRunner()
    r = runner.invoke(
        app,
        [
            "score",
            "-r",
            "bazar-blot",
            "-c",
            "9H",
            "--declarer",
            "E",
            "--points",
            "NS=70",
            "--decl",
            "EW=20",
            "--bela",
            "EW=20",
            "--contra",
            "-f",
            "json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert '"ns": 0' in r.output and '"ew": 38' in r.output and '"made": true' in r.output
    r = runner.invoke(
        app, ["score", "-c", "8H", "--declarer", "N", "--points", "NS=162", "-f", "json"])
    assert '"capot": true' in r.output and '"ns": 252' in r.output
    for args, msg in [
        (["-c", "9Q", "--declarer", "E", "--points", "NS=70"], "'9Q'"),
        (["-c", "9H", "--declarer", "Z", "--points", "NS=70"], "bad seat"),
        (["-c", "9H", "--declarer", "E", "--points", "NS=300"], "N-S 300 card"),
        (["-c", "9H", "--declarer", "E", "--points", "XY=3"], "'XY=3'"),
        (["-c", "9H", "--declarer", "E", "--points", "NS=7", "--tricks", "NS=9"],
         "N-S 9 tricks, but"),
        (["-c", "9H", "--declarer", "E", "--points", "NS=7", "--contra", "--recontra"], "not both"),
        (["-c", "9VK", "--declarer", "E", "--points", "NS=7", "-r", "bazar-blot"],
         "VK does not exist"),
    ]:
        r = runner.invoke(app, ["score", *args])
        assert r.exit_code == 2, (args, r.output)
        lines = r.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:") and msg in lines[0], r.output


@pytest.mark.parametrize(
    "row, what",
    [
        ({"kind": 5}, "kind"),
        ({"declarer_side": 2}, "side"),
        ({"contra": 3}, "contra"),
        ({"level": 0}, "level"),
        ({"points": [-1, 163]}, "points"),
        ({"tricks": [0, 8], "points": [10, 152]}, "tricks"),
        ({"declarations": [15, 0]}, "declarations"),
        ({"bela": [0, -20]}, "bela"),
    ],
)
def test_bulk_check_names_the_first_bad_row(row, what):
    """Each kind of bad value (``what``) in row 2 is reported as deal 2."""
    rs = get_ruleset("bazar-blot")  # no VK
    a = {
        "level": [8, 8, 8],
        "kind": [1, 1, 1],
        "declarer_side": [0, 0, 0],
        "points": [[80, 82]] * 3,
        "tricks": [[4, 4]] * 3,
        "declarations": [[0, 0]] * 3,
        "bela": [[0, 0]] * 3,
        "contra": [0, 0, 0],
    }
    score_deals(rs, **a)
    for key, value in row.items():
        a[key] = list(a[key])
        a[key][2] = value
    with pytest.raises(ScoringError, match=r"deal 2: inconsistent input"):
        score_deals(rs, **a)
    with pytest.raises(ScoringError, match="tricks has shape"):
        score_deals(rs, 8, 1, 0, [[80, 82]] * 3, [[4, 4]] * 2)


def test_cli_score_side_values_as_separate_words():
    runner = CliRunner()
    base = ["score", "-c", "9H", "--declarer", "E", "-f", "json"]
    a = runner.invoke(app, [*base, "--points", "NS=70", "EW=92", "--decl", "NS=20", "EW=50"])
    b = runner.invoke(app, [*base, "--points", "NS=70", "--decl", "NS=20,EW=50"])
    c = runner.invoke(app, [*base, "--points=NS=70", "--decl", "NS=20", "--decl", "EW=50"])
    assert a.exit_code == b.exit_code == c.exit_code == 0, (a.output, b.output, c.output)
    assert a.output == b.output == c.output
    assert '"ns": 90' in a.output and '"ew": 142' in a.output
    for args, msg in [
        (["-c", "9H", "--declarer", "E"], "missing --points"),
        (["--declarer", "E", "-p", "NS=3"], "missing --contract"),
        (["-c", "9H", "--declarer", "E", "-p", "NS=70", "junk"], "unexpected argument 'junk'"),
        (["-c", "9H", "--declarer", "E", "-p", "NS=70", "--frobnicate"], "'--frobnicate'"),
    ]:
        r = runner.invoke(app, ["score", *args])
        lines = r.output.strip().splitlines()
        assert r.exit_code == 2 and len(lines) == 1 and msg in lines[0], r.output


@st.composite
def scored_deals(draw):
    """A ruleset variant, a contract it allows and a consistent outcome."""
    name, opts = draw(st.sampled_from(RULESET_VARIANTS))
    rs = get_ruleset(name, **opts)
    kind = draw(st.sampled_from(rs.kinds))
    total = rs.deal_total[kind]
    t_ns = draw(st.integers(0, 8))
    if t_ns == 0:
        p_ns = 0
    elif t_ns == 8:
        p_ns = total
    else:
        p_ns = draw(st.integers(0, total))
    level = draw(st.integers(8, 20)) if rs.scoring.scheme in ("bazar", "bazar-blot") else 0
    contra = draw(st.integers(0, 2)) if rs.auction.contra else 0
    capot = draw(st.booleans()) if rs.auction.capot_bids else False
    c = Contract(level, kind, draw(st.integers(0, 3)), contra, capot)
    decl = (draw(st.sampled_from(DECLS)), draw(st.sampled_from(DECLS)))
    bela = (draw(st.sampled_from((0, 20, 40))), draw(st.sampled_from((0, 20, 40))))
    if kind == BK:
        bela = (0, 0)  # no bela in BK
    out = DealOutcome((p_ns, total - p_ns), (t_ns, 8 - t_ns), decl, bela)
    return rs, c, out


def test_bela_handed_to_failed_bidders_stays_with_them():
    """Bidders who take every trick but fail (19 hearts with 182) receive the trickless
    defenders' bela (to_capot_side) and, bela staying with its holder on failure, write it:
    2 sai; the defenders write the rest (a case hypothesis found)."""
    rs = get_ruleset("bazar-blot", **{"scoring.trickless_declarations": "to_capot_side",
                                      "scoring.bela_on_failure": "holder"})
    r = score_deal(Contract(19, 0, 0), DealOutcome((162, 0), (8, 0), (0, 0), (0, 20)), rs)
    assert not r.made and r.scores == (2, 44)


@settings(max_examples=400, deadline=None)
@given(scored_deals())
def test_hypothesis_scoring_invariants(case):
    """Never negative; made iff margin >= 0; failed bidders write 0 (or only their bela
    where it stays with its holder); the deal's whole value is what the sides write."""
    rs, c, out = case
    sr = rs.scoring
    r = score_deal(c, out, rs)
    b = c.side
    mult = (1, sr.contra_multiplier, sr.recontra_multiplier)[c.contra]
    assert min(r.scores) >= 0 and r.carry >= 0
    assert r.made == (r.margin >= 0)
    assert not (r.made and r.tie)
    if r.reverse_capot or (c.capot and r.capot_side != b and sr.scheme.startswith("bazar")):
        assert not r.made
    if not r.made and not r.tie:
        own_bela = out.bela[b]
        if out.tricks[b] == 0 and sr.trickless_declarations != "keep":
            own_bela = 0  # a trickless side's bela is void or handed over
        elif out.tricks[1 - b] == 0 and sr.trickless_declarations == "to_capot_side":
            own_bela += out.bela[1 - b]  # the trickless defenders' bela, handed to the bidders
        if sr.bela_on_failure == "defenders":
            assert r.scores[b] == 0
        elif sr.scheme == "bazar-blot":
            whole = mult if sr.contra_style == "double_whole_score" else 1
            assert r.scores[b] == own_bela // 10 * whole
        elif sr.unit == "small" or sr.scheme != "bazar":
            assert r.scores[b] == own_bela * mult
        else:
            assert r.scores[b] == own_bela // 10 * mult
    # the same deal scored in bulk gives the same numbers
    got = score_deals(
        rs,
        [c.level],
        [c.kind],
        [b],
        [out.points],
        [out.tricks],
        [out.declarations],
        [out.bela],
        [c.contra],
        [c.capot],
    )
    assert tuple(got["scores"][0].tolist()) == r.scores and bool(got["made"][0]) == r.made
    # more declarations for the bidders never turn a made contract into a failed one
    more = list(out.declarations)
    more[b] += 50
    r2 = score_deal(c, DealOutcome(out.points, out.tricks, tuple(more), out.bela), rs)
    assert r2.made or not r.made


def test_bulk_takes_evaluate_deals_declarations():
    """Declaration and bela arrays of evaluate_deals plug straight into score_deals."""
    from bazarsim.evaluate.hands import evaluate_deals

    rng = np.random.default_rng(3)
    n = 300
    deals = np.zeros((n, 4), np.uint32)
    for i in range(n):
        perm = rng.permutation(32)
        for seat in range(4):
            deals[i, seat] = sum(1 << int(c) for c in perm[8 * seat : 8 * seat + 8])
    ev = evaluate_deals(deals, 0, "H", "bazar")
    decl = np.stack([ev["declarations_ns"], ev["declarations_ew"]], 1)
    bela = np.stack([ev["bela_ns"], ev["bela_ew"]], 1)
    p0 = rng.integers(10, 153, n)
    points = np.stack([p0, 162 - p0], 1)
    tricks = np.full((n, 2), 4)
    got = score_deals("bazar", 9, 1, 0, points, tricks, decl, bela)
    for i in range(n):
        out = DealOutcome(
            tuple(points[i].tolist()), (4, 4), tuple(decl[i].tolist()), tuple(bela[i].tolist())
        )
        r = score_deal(Contract(9, H, N), out, "bazar")
        assert tuple(got["scores"][i].tolist()) == r.scores
    assert decl.any() and bela.any()  # the sample holds declarations and belas


@pytest.mark.parametrize("name", ["bazar", "bazar-blot", "belote-fr", "bela-hr"])
def test_deal_totals_162_258(name):
    from bazarsim.rules.compiled import compiled_rules

    rs = get_ruleset(name)
    tables = compiled_rules(rs)
    for kind in rs.kinds:
        from_tables = int(tables.card_points[kind].sum()) + rs.cards.last_trick_bonus
        assert rs.total_points(kind) == rs.deal_total[kind] == from_tables
        assert from_tables == (258 if kind == VK else 162)
