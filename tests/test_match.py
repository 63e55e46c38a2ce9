"""Match play: targets and each ruleset's end rules (docs/rules.md, Scoring)."""

from __future__ import annotations

import random

import pytest

from bazarsim.core.contracts import Contract
from bazarsim.core.errors import BazarsimError
from bazarsim.rules.match import Match
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.rules.scoring import DealOutcome, DealScore, score_deal

from . import naive_match

N, E, S, W = range(4)
H = 1
BK = 4


def outcome(rs, points_ns, tricks_ns, decl=(0, 0), bela=(0, 0), kind=H):
    total = get_ruleset(rs).deal_total[kind]
    return DealOutcome((points_ns, total - points_ns), (tricks_ns, 8 - tricks_ns), decl, bela)


def test_bazar_small_points_to_301():
    m = Match("bazar")
    assert m.target == 301
    assert m.play(Contract(8, H, N), outcome("bazar", 100, 5)) is None  # 100 / 62
    assert m.play(Contract(8, H, N), outcome("bazar", 100, 5)) is None  # 200 / 124
    assert m.play(Contract(8, H, N), outcome("bazar", 101, 5)) == 0  # 301 / 185
    assert m.reason == "reached 301" and m.totals == [301, 185]
    with pytest.raises(BazarsimError, match="match is over"):
        m.play(Contract(8, H, N), outcome("bazar", 100, 5))


def test_equal_scores_at_the_target_play_on():
    m = Match(get_ruleset("bela-hr", **{"scoring.targets": (100,)}), target=100)
    m.play(Contract(0, H, N), outcome("bela-hr", 81, 4, decl=(20, 0)))  # NS 101 / EW 81
    assert m.winner == 0
    m = Match(get_ruleset("bazar", **{"scoring.targets": ()}), target=162)
    assert m.play(Contract(8, H, N), outcome("bazar", 81, 4)) is None
    assert m.play(Contract(8, H, E), outcome("bazar", 81, 4)) is None  # 162 / 162
    assert m.play(Contract(8, H, E), outcome("bazar", 80, 4)) == 1


def test_blot_to_101_and_failed_leader_does_not_win():
    m = Match("bazar-blot")
    assert m.target == 101
    m.totals = [95, 100]
    # EW bid 10H and fail: NS write 10 + 16 = 26 -> 121 and win (they did not fail)
    assert m.play(Contract(10, H, E), outcome("bazar-blot", 80, 4)) == 0
    m = Match("bazar-blot")
    m.totals = [101, 60]  # NS at the target without having won (after a capot deal)
    # NS bid 12H with bela and fail: bela is the defenders' here; NS write 0 and cannot win
    assert m.play(Contract(12, H, N), outcome("bazar-blot", 100, 4)) is None
    assert m.totals == [101, 60 + 12 + 16]
    # with bela kept by its holder NS would reach 103 on a failed deal: still no win
    rs = get_ruleset("bazar-blot", **{"scoring.bela_on_failure": "holder"})
    m = Match(rs)
    m.totals = [100, 60]
    assert m.play(Contract(12, H, N), outcome(rs, 80, 4, bela=(20, 0))) is None
    assert m.totals == [102, 60 + 28]
    # the rule is an option: without it the failed leader wins
    m = Match(rs.with_options(**{"scoring.failed_bidders_cannot_win": False}))
    m.totals = [100, 60]
    assert m.play(Contract(12, H, N), outcome(rs, 80, 4, bela=(20, 0))) == 0


def test_blot_capot_ends_match_only_if_bid_contra_made():
    m = Match("bazar-blot")
    m.totals = [90, 0]
    assert m.play(Contract(8, H, N), outcome("bazar-blot", 162, 8)) is None  # +33, no bid
    assert m.totals[0] == 90 + 8 + 25
    m = Match("bazar-blot")
    m.totals = [90, 0]
    assert m.play(Contract(9, H, N, 0, True), outcome("bazar-blot", 162, 8)) is None  # no contra
    m = Match("bazar-blot")
    m.totals = [90, 0]
    assert m.play(Contract(9, H, N, 1, True), outcome("bazar-blot", 162, 8)) == 0
    # bazar has no such rule: a capot that reaches 301 wins
    m = Match("bazar")
    m.totals = [100, 0]
    assert m.play(Contract(8, H, N), outcome("bazar", 162, 8)) == 0


def test_blot_reverse_capot_loses_at_once():
    m = Match("bazar-blot")
    m.totals = [100, 0]
    assert m.play(Contract(8, H, N), outcome("bazar-blot", 0, 0)) == 1
    assert "reverse capot" in m.reason
    m = Match("bazar")  # not a bazar rule
    assert m.play(Contract(8, H, N), outcome("bazar", 0, 0)) is None


def test_belote_tie_points_carried_to_next_winner():
    m = Match("belote-fr")
    assert m.target == 1001
    m.play(Contract(0, H, N), outcome("belote-fr", 81, 4))  # tie: NS 0, EW 81, 81 carried
    assert m.totals == [0, 81] and m.carry == 81
    m.play(Contract(0, H, E), outcome("belote-fr", 70, 4))  # EW make 92 vs 70: EW get the 81
    assert m.totals == [70, 81 + 92 + 81] and m.carry == 0


def test_bela_eight_of_a_suit_wins():
    m = Match("bela-hr")
    assert m.play(Contract(0, H, N), outcome("bela-hr", 100, 5), eight_of_a_suit_side=1) == 1
    m = Match("bazar")
    assert m.play(Contract(8, H, N), outcome("bazar", 100, 5), eight_of_a_suit_side=1) is None


def test_target_choices():
    assert Match("bazar", target=101).target == 101
    assert Match("bazar-blot", target=151).target == 151
    with pytest.raises(BazarsimError, match="bad match target 0"):
        Match("bazar", target=0)
    with pytest.raises(BazarsimError, match="choose 101, 151, 201, 301"):
        Match("bazar-blot", target=1001)


@pytest.mark.parametrize("name", ["bazar", "bazar-blot", "belote-fr", "bela-hr"])
def test_random_matches_end_and_totals_add_up(name):
    rs = get_ruleset(name)
    rng = random.Random(7)
    for _ in range(30):
        m = Match(rs)
        for _ in range(500):
            kind = rng.choice(rs.kinds)
            total = rs.deal_total[kind]
            t = rng.randint(1, 7)
            p = rng.randint(10, total - 10)
            level = rng.randint(8, 11) if rs.scoring.scheme in ("bazar", "bazar-blot") else 0
            contra = rng.choice([0, 0, 0, 1]) if rs.auction.contra else 0
            out = DealOutcome((p, total - p), (t, 8 - t), (rng.choice([0, 20]), 0))
            if m.play(Contract(level, kind, rng.randint(0, 3), contra), out) is not None:
                break
        assert m.over
        if name != "belote-fr":  # no carried points: the totals are the deals' sums
            assert m.totals == [sum(d.ns for d in m.deals), sum(d.ew for d in m.deals)]
        assert sum(m.totals) + m.carry == sum(sum(d.scores) + d.carry for d in m.deals)
        w = m.winner
        assert m.totals[w] >= m.target and m.totals[w] > m.totals[1 - w]


def test_eight_of_a_suit_side_from_a_deal():
    from bazarsim.core.cards import parse_deal
    from bazarsim.rules.match import eight_of_a_suit_side

    d = parse_deal("N:-.AKQJT987.-.- AKQJ.-.AKQJ.- T987.-.T987.- -.-.-.AKQJT987")
    assert eight_of_a_suit_side(d) == 0  # North holds every heart
    d = parse_deal("N:AKQJ.AKQJ.-.- T987.T987.-.- -.-.AKQJ.AKQJ -.-.T987.T987")
    assert eight_of_a_suit_side(d) is None
    d = parse_deal("N:AKQJ.AKQJ.-.- -.-.AKQJT987.- T987.T987.-.- -.-.-.AKQJT987")
    assert eight_of_a_suit_side(d) == 1  # East holds every diamond (West every club)


# ------------------------------------------------------------------ against the referee

_MATCH_VARIANTS = [
    ("bazar", {}),
    ("bazar", {"scoring.unit": "big"}),
    ("bazar-blot", {}),
    ("bazar-blot", {"scoring.failed_bidders_cannot_win": False}),
    ("bazar-blot", {"scoring.capot_ends_match_only_if_bid_contra_made": False}),
    ("bazar-blot", {
        "scoring.reverse_capot_loses_match": False, "scoring.bela_on_failure": "holder",
    }),
    ("belote-fr", {}),
    ("belote-fr", {"scoring.made_with_contra": "all_to_bidders"}),
    ("bela-hr", {}),
]


def _naive_match_rules(rs, target):
    sr = rs.scoring
    return {
        "target": target,
        "failed_cannot_win": sr.failed_bidders_cannot_win,
        "capot_needs_bid_contra_made": sr.capot_ends_match_only_if_bid_contra_made,
        "reverse_capot_loses": sr.reverse_capot_loses_match,
        "eight_wins": sr.eight_of_a_suit_wins_match,
    }


def _random_deal(rs, rng, target, sheet):
    """A deal score: scored from a random outcome (half the time) or made up outright
    (scores near the target, failed bidders with points, ties after ties, capots, and
    deals that bring the two totals level: ``sheet`` is the referee's (ns, ew, pot))."""
    if rng.random() < 0.4:
        kind = rng.choice(rs.kinds)
        total = rs.deal_total[kind]
        tricks = rng.choice([0, 8] + [rng.randint(1, 7)] * 30)
        p = 0 if tricks == 0 else total if tricks == 8 else rng.randint(5, total - 5)
        if rs.name == "belote-fr" and 0 < tricks < 8 and rng.random() < 0.2:
            p = total // 2  # equal card points: a belote tie if declarations are level too
        bazar = rs.auction.style == "bazar"
        level = rng.randint(8, 16) if bazar else 0
        capot = bazar and rs.auction.capot_bids and rng.random() < 0.2
        contra = rng.choice([0] * 8 + [1, 2]) if rs.auction.contra else 0
        decl = (rng.choice([0, 0, 20, 50, 100]), rng.choice([0, 0, 20, 50]))
        bela = (0, 0) if kind == BK else (rng.choice([0, 0, 20]), rng.choice([0, 0, 20]))
        contract = Contract(level, kind, rng.randint(0, 3), contra, capot)
        outcome = DealOutcome((p, total - p), (tricks, 8 - tricks), decl, bela)
        deal = score_deal(contract, outcome, rs)
    else:
        contract = Contract(8, H, rng.randint(0, 3), rng.choice([0, 0, 1, 2]), rng.random() < 0.3)
        made = rng.random() < 0.6
        tie = rng.random() < 0.1
        step = max(2, target // 8)
        scores = [rng.randint(0, step), rng.randint(0, step)]
        ns, ew, _ = sheet
        if rng.random() < 0.15 and not tie:  # both totals level (at the target, often)
            high = max(ns, ew, target - rng.randint(0, 1)) + rng.randint(0, 2)
            scores = [high - ns, high - ew]
        capot_side = rng.choice([-1] * 12 + [0, 1])
        carry = rng.randint(0, step) if tie else 0
        deal = DealScore(contract, made and not tie, 0, 0, 0, tuple(scores), capot_side, tie, carry)
    eight = rng.choice([0, 1]) if rng.random() < 0.01 else None
    return deal, eight


def _as_naive_deal(deal, eight):
    return {
        "ns": deal.scores[0],
        "ew": deal.scores[1],
        "bidders": deal.contract.declarer % 2,
        "made": deal.made,
        "all_tricks": None if deal.capot_side < 0 else deal.capot_side,
        "capot_bid": deal.contract.capot,
        "contra": deal.contract.contra,
        "tie": deal.tie,
        "carried": deal.carry,
        "eight": eight,
    }


_WHY = {"eight": "eight cards of one suit", "reverse capot": "reverse capot", "target": "reached"}


def _check_random_matches(variant, n_matches, seed):
    name, opts = _MATCH_VARIANTS[variant]
    rs = get_ruleset(name, **opts)
    rng = random.Random(seed)
    ends = set()
    for _ in range(n_matches):
        target = rng.choice(rs.scoring.targets or (rs.scoring.target,))
        rules = _naive_match_rules(rs, target)
        deals, plain = [], []
        for _ in range(80):
            deals.append(_random_deal(rs, rng, target, naive_match.sheet(plain)))
            plain.append(_as_naive_deal(*deals[-1]))
        winner, played, why, sheets = naive_match.play(plain, rules)
        m = Match(rs, target=target)
        for n, (deal, eight) in enumerate(deals, 1):
            got = m.record(deal, eight)
            assert (m.totals[0], m.totals[1], m.carry) == sheets[n - 1], (n, plain[:n])
            if n == played:
                break
            assert got is None and not m.over, (n, m.reason, plain[:n])
        assert m.winner == winner, (m.reason, winner, why, plain[:played])
        if winner is not None:
            assert _WHY[why] in m.reason
            ends.add(why)
    return ends


@pytest.mark.parametrize("variant", range(len(_MATCH_VARIANTS)))
def test_random_matches_match_the_referee(variant):
    """200 random matches per variant (every deal's totals, the end and its winner)."""
    ends = _check_random_matches(variant, 200, variant)
    assert "target" in ends


@pytest.mark.gate
@pytest.mark.parametrize("variant", range(len(_MATCH_VARIANTS)))
def test_random_matches_match_the_referee_gate(variant):
    """5,000 random matches per variant.

    Sample in make test: test_random_matches_match_the_referee"""
    _check_random_matches(variant, 5_000, 1000 + variant)
