"""Auction state machine: worked examples, and random sequences of every style (bazar,
belote, bela) against the naive judges."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.rules.auction import (
    BID,
    CONTRA,
    PASS,
    RECONTRA,
    Auction,
    AuctionError,
    Call,
    parse_call,
    parse_contract,
    run_auction,
)
from bazarsim.rules.rulesets import get_ruleset

from . import naive_auction as naive

# machine message fragment for each reason code of the naive judge
REASON_TEXT = {
    "over": "auction is over",
    "dealer_must_name": "dealer must name",
    "no_contra_rule": "has no contra",
    "nothing_to_contra": "no bid to contra",
    "already_contra": "already contra'd",
    "contra_own_side": "opponent of the last bidder",
    "recontra_no_contra": "recontra answers a contra",
    "already_recontra": "already recontra'd",
    "recontra_wrong_side": "called by the contracted side",
    "bid_after_contra": "no bids after a contra",
    "closed": "bidding closed",
    "kind": "does not exist",
    "capot_off": "no capot bids",
    "first_round_passed": "passed in the first round",
    "min_level": "the lowest bid",
    "max_level": "the highest bid",
    "capot_only": "only a higher capot bid",
    "too_low": "must be at least",
}


# ------------------------------------------------------------------ notation


@pytest.mark.parametrize(
    "text, call",
    [
        ("P", Call(PASS)),
        ("pass", Call(PASS)),
        ("X", Call(CONTRA)),
        ("XX", Call(RECONTRA)),
        ("8H", Call(BID, 8, 1)),
        ("9s", Call(BID, 9, 0)),
        ("8BK", Call(BID, 8, 4)),
        ("8NT", Call(BID, 8, 4)),
        ("10VK", Call(BID, 10, 5)),
        ("10AT", Call(BID, 10, 5)),
        ("9H-CAPOT", Call(BID, 9, 1, True)),
        ("CAPOT-9H", Call(BID, 9, 1, True)),
        ("9h-kaput", Call(BID, 9, 1, True)),
        ("H", Call(BID, 0, 1)),
    ],
)
def test_parse_call(text, call):
    assert parse_call(text) == call
    if call.type == BID and call.level:
        assert parse_call(str(call)) == call


@pytest.mark.parametrize("bad", ["8Z", "Q", "", "8", "-CAPOT", "XXX"])
def test_parse_call_rejects(bad):
    with pytest.raises(AuctionError, match="bad call"):
        parse_call(bad)


# ------------------------------------------------------------------ worked examples


def test_bid_three_passes_then_last_word_pass():
    a = run_auction("8H P P P P", "N")
    assert a.finished and not a.redeal
    c = a.contract
    assert (c.level, c.kind, c.declarer, c.contra, c.capot) == (8, 1, 1, 0, False)
    assert c.side == 1


def test_four_passes_redeal_and_dealer_must_name_option():
    assert run_auction("P P P P", "S").redeal
    rs = get_ruleset("bazar", **{"auction.dealer_must_name_after_three_passes": True})
    with pytest.raises(AuctionError, match="call 4 .*dealer must name"):
        run_auction("P P P P", "S", rs)
    a = run_auction("P P P 8C P P P P", "S", rs)
    assert a.contract.declarer == 2  # the dealer S named it


def test_suits_are_equal_and_bids_go_up_one_level():
    with pytest.raises(AuctionError, match=r"call 2 \(8S by S\).*at least 9"):
        run_auction("8H 8S", "N")
    a = run_auction("8H 9S 10BK P P P P", "N")
    assert a.contract.kind == 4 and a.contract.level == 10 and a.contract.declarer == 3


def test_contra_ends_bidding_recontra_by_contracted_side():
    a = run_auction("8H P 9S X P P P", "N")  # W bid 9S, N contra, three passes
    c = a.contract
    assert (c.level, c.kind, c.declarer, c.contra) == (9, 0, 3, 1)
    a = run_auction("8H P 9S X XX", "N")  # E recontras for EW
    assert a.finished and a.contract.contra == 2
    with pytest.raises(AuctionError, match="no bids after a contra"):
        run_auction("8H X 9H", "N")
    with pytest.raises(AuctionError, match="opponent of the last bidder"):
        run_auction("8H P X", "N")  # W is E's partner
    with pytest.raises(AuctionError, match="recontra is called by the contracted side"):
        run_auction("8H X P XX", "N")  # S contras E, N (a defender) tries recontra
    with pytest.raises(AuctionError, match="no bid to contra"):
        run_auction("X", "N")


def test_capot_only_after_capot():
    with pytest.raises(AuctionError, match="only a higher capot bid"):
        run_auction("9H-CAPOT 12S", "N")
    a = run_auction("9H-CAPOT 10S-CAPOT P P P", "N")
    assert not a.finished  # last word for S
    a.call("P")
    assert a.contract.capot and a.contract.level == 10 and a.contract.declarer == 2


def test_both_passed_in_first_round_may_only_contra():
    # dealer N: E P, S 8H, W P, N P -> EW both passed in the first round
    with pytest.raises(AuctionError, match="EW players passed in the first round"):
        run_auction("P 8H P P 9S", "N")
    a = run_auction("P 8H P P X P P P", "N")
    assert a.contract.contra == 1
    rs = get_ruleset("bazar", **{"auction.both_passed_first_round_only_contra": False})
    assert run_auction("P 8H P P 9S P P P P", "N", rs).contract.declarer == 1


def test_last_word_details():
    a = run_auction("8H P P P 9H P", "N")  # S passed; W to speak (E's partner)
    assert a.why_illegal(parse_call("X")).startswith("contra is called by an opponent")
    a.call("P")
    a.call("X")  # N contra
    assert not a.finished
    a.call("XX")  # E recontra
    assert a.contract.contra == 2 and a.contract.level == 9
    # changing the kind in the last word reopens the bidding
    a = run_auction("8H 9S P P P 10D 11H P P P P", "N")  # S changes, W may bid again
    assert a.contract.declarer == 3 and a.contract.level == 11
    # a change must go one level up by default; option 0 allows the same level
    with pytest.raises(AuctionError, match="to change the contract"):
        run_auction("8H P P P 8S", "N")
    rs = get_ruleset("bazar", **{"auction.last_word_change_min_raise": 0})
    assert run_auction("8H P P P 8S P P P P", "N", rs).contract.kind == 0
    # with raise_reopens a same-kind raise is an ordinary bid
    rs = get_ruleset("bazar", **{"auction.last_word_raise_reopens": True})
    assert run_auction("8H 9S P P P 10S 11H P P P P", "N", rs).contract.declarer == 3
    with pytest.raises(AuctionError, match="bidding closed"):
        run_auction("8H 9S P P P 10S 11H", "N")


def test_kinds_of_the_ruleset():
    with pytest.raises(AuctionError, match="VK does not exist in ruleset bazar-blot"):
        run_auction("8VK", "N", "bazar-blot")
    with pytest.raises(AuctionError, match="has no contra"):
        run_auction("P X", "N", "bela-hr")


def test_calls_after_the_end_are_rejected():
    with pytest.raises(AuctionError, match="call 6 .* after the end"):
        run_auction("8H P P P P P", "N")


def test_bela_style_each_speaks_once_dealer_must_name():
    a = run_auction("P H", "N", "bela-hr")
    assert a.finished and a.contract.kind == 1 and a.contract.declarer == 2
    with pytest.raises(AuctionError, match="dealer must name a suit"):
        run_auction("P P P P", "N", "bela-hr")
    assert run_auction("P P P S", "N", "bela-hr").contract.declarer == 0
    with pytest.raises(AuctionError, match="BK does not exist"):
        run_auction("BK", "N", "bela-hr")
    with pytest.raises(AuctionError, match="no level"):
        run_auction("9H", "N", "bela-hr")


def test_belote_style_games_go_up_and_passed_players_are_out():
    a = run_auction("H BK P P P", "N", "belote-fr")
    assert a.contract.kind == 4 and a.contract.declarer == 2
    with pytest.raises(AuctionError, match="must rank above"):
        run_auction("H S", "N", "belote-fr")
    with pytest.raises(AuctionError, match="may not name a game"):
        run_auction("P H P P VK", "N", "belote-fr")
    a = run_auction("H X XX", "N", "belote-fr")
    assert not a.finished
    for _ in range(3):
        a.call("P")
    assert a.contract.contra == 2
    assert run_auction("P P P P", "N", "belote-fr").redeal
    # a redouble closes the naming of games (the article on variants is silent): an option
    with pytest.raises(AuctionError, match="no games after a redouble"):
        run_auction("H X XX BK", "N", "belote-fr")
    rs = get_ruleset("belote-fr", **{"auction.belote_games_after_redouble": True})
    a = run_auction("H X XX BK P P P", "N", rs)  # N had not spoken: names BK
    c = a.contract
    assert (c.kind, c.declarer, c.contra) == (4, 0, 0)
    assert run_auction("H X XX P VK P P P", "N", rs).contract.declarer == 1  # E raises
    with pytest.raises(AuctionError, match="S passed, doubled or redoubled"):
        run_auction("H X XX P P VK", "N", rs)  # S doubled: no game any more


def test_legal_calls_are_exactly_the_accepted_ones():
    a = run_auction("8H P 9S", "N")
    legal = a.legal_calls(max_level=12)
    assert Call(CONTRA) in legal and Call(BID, 10, 4) in legal
    assert Call(BID, 9, 1) not in legal and Call(RECONTRA) not in legal


def test_parse_contract():
    c = parse_contract("9H-CAPOT", "E", 1)
    assert c.label == "9H-CAPOT X by E" and c.side == 1
    with pytest.raises(AuctionError, match="at least 8"):
        parse_contract("7H", "E")


# ------------------------------------------------------------------ random sequences

_RULE_VARIANTS = [
    ("bazar", {}),
    ("bazar-blot", {}),
    ("bazar", {"auction.dealer_must_name_after_three_passes": True}),
    ("bazar", {"auction.last_word_raise_reopens": True, "auction.last_word_change_min_raise": 0}),
    ("bazar", {"auction.both_passed_first_round_only_contra": False, "auction.max_level": 12}),
    ("bazar", {"auction.capot_bids": False, "auction.contra": False}),
]


def _naive_rules(rs):
    ar = rs.auction
    return {
        "kinds": set(rs.kinds),
        "min_level": ar.min_level,
        "max_level": ar.max_level,
        "only_contra": ar.both_passed_first_round_only_contra,
        "dealer_must_name": ar.dealer_must_name_after_three_passes,
        "contra": ar.contra,
        "capot_bids": ar.capot_bids,
        "raise_reopens": ar.last_word_raise_reopens,
        "change_min": ar.last_word_change_min_raise,
    }


def _to_naive(call: Call):
    if call.type == BID:
        return ("B", call.level, call.kind, call.capot)
    return (("P",), None, ("X",), ("XX",))[call.type]


@pytest.mark.parametrize("variant", range(len(_RULE_VARIANTS)))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    calls=st.lists(
        st.one_of(
            st.sampled_from([Call(PASS)] * 5 + [Call(CONTRA), Call(RECONTRA)]),
            st.builds(
                lambda lv, k, cp: Call(BID, lv, k, cp),
                st.integers(7, 14),
                st.integers(0, 5),
                st.sampled_from([False] * 5 + [True]),
            ),
        ),
        min_size=1,
        max_size=16,
    ),
    dealer=st.integers(0, 3),
)
def test_random_sequences_match_naive_judge(variant, calls, dealer):
    name, opts = _RULE_VARIANTS[variant]
    rs = get_ruleset(name, **opts)
    rules = _naive_rules(rs)
    seq = [_to_naive(c) for c in calls]
    expected = naive.first_illegal(seq, dealer, rules)
    a = Auction(dealer=dealer, ruleset=rs)
    for i, c in enumerate(calls):
        reason = a.why_illegal(c)
        if expected is not None and i == expected[0]:
            assert reason is not None, f"accepted illegal call {i} ({c}): {expected[1]}"
            assert REASON_TEXT[expected[1]] in reason, (expected, reason)
            with pytest.raises(AuctionError, match=f"call {i + 1} "):
                a.call(c)
            return
        assert reason is None, f"rejected legal call {i} ({c}): {reason}"
        a.call(c)
        # every call the machine lists as legal, the judge accepts too
        for cand in a.legal_calls(max_level=14):
            assert naive.first_illegal(seq[: i + 1] + [_to_naive(cand)], dealer, rules) is None
    outcome = naive.final(seq, dealer, rules)
    if outcome == "open":
        assert not a.finished
    elif outcome == "redeal":
        assert a.redeal
    else:
        c = a.contract
        assert (c.level, c.kind, c.declarer, c.contra, c.capot) == outcome


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), dealer=st.integers(0, 3))
def test_random_legal_auctions_end_in_a_valid_contract(seed, dealer):
    """Walk legal calls at random: the auction always ends, in a contract the rules allow."""
    rng = random.Random(seed)
    a = Auction(dealer=dealer, ruleset=get_ruleset("bazar"))
    for _ in range(200):
        if a.finished:
            break
        legal = a.legal_calls(max_level=16)
        assert legal, "no legal call in an open auction"
        a.call(rng.choice(legal))
    assert a.finished
    if not a.redeal:
        c = a.contract
        assert c.level >= 8
        # the contract is the last bid of the sequence, by the seat that made it
        last = [(s, x) for s, x in a.history if x.type == BID][-1]
        assert (last[0], last[1].level, last[1].kind) == (c.declarer, c.level, c.kind)


# ------------------------------------------------------------------ CLI


def test_cli_auction_json_and_errors():
    runner = CliRunner()
    r = runner.invoke(app, ["auction", "8H P 9S X P P XX", "--format", "json"])
    assert r.exit_code == 0, r.output
    assert '"contra": 2' in r.output and '"declarer": "W"' in r.output
    r = runner.invoke(app, ["auction", "8H 8S"])
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [
        "error: call 2 (8S by S) is illegal: a bid must be at least 9 (one level above 8H)"
    ]
    r = runner.invoke(app, ["auction", "8Q"])
    assert r.exit_code == 2 and "error: bad call '8Q'" in r.output
    r = runner.invoke(app, ["auction", "8H", "--dealer", "Q"])
    assert r.exit_code == 2 and "bad seat" in r.output
    r = runner.invoke(app, ["auction", "8H P"])
    assert r.exit_code == 0 and "in progress: W to speak" in r.output


def _any_call(rng) -> Call:
    r = rng.random()
    if r < 0.3:
        return Call(PASS)
    if r < 0.4:
        return Call(CONTRA)
    if r < 0.5:
        return Call(RECONTRA)
    return Call(BID, rng.randint(7, 15), rng.randint(0, 5), rng.random() < 0.15)


@pytest.mark.parametrize("variant", range(len(_RULE_VARIANTS)))
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), dealer=st.integers(0, 3))
def test_mostly_legal_walks_match_naive_judge(variant, seed, dealer):
    """Long auctions (legal calls, then one random call): same verdicts as the judge."""
    rng = random.Random(seed)
    name, opts = _RULE_VARIANTS[variant]
    rs = get_ruleset(name, **opts)
    rules = _naive_rules(rs)
    a = Auction(dealer=dealer, ruleset=rs)
    seq = []
    while len(seq) < 40:
        legal = a.legal_calls(max_level=16)
        r = rng.random()
        if not legal or r < 0.15:
            c = _any_call(rng)
        elif r < 0.6 and Call(PASS) in legal:
            c = Call(PASS)  # passes often, so auctions end, redeal and reach the last word
        else:
            c = rng.choice(legal)
        expected = naive.first_illegal(seq + [_to_naive(c)], dealer, rules)
        reason = a.why_illegal(c)
        if expected is not None:
            assert expected[0] == len(seq)
            assert reason is not None and REASON_TEXT[expected[1]] in reason, (expected, reason)
            if expected[1] == "over":
                break
            continue
        assert reason is None, (seq, c, reason)
        a.call(c)
        seq.append(_to_naive(c))
    outcome = naive.final(seq, dealer, rules)
    if outcome == "open":
        assert not a.finished
    elif outcome == "redeal":
        assert a.redeal
    else:
        c = a.contract
        assert (c.level, c.kind, c.declarer, c.contra, c.capot) == outcome


def test_cli_auction_words_and_missing_calls():
    runner = CliRunner()
    a = runner.invoke(app, ["auction", "8H", "P", "9S", "X", "P", "P", "XX", "-f", "json"])
    b = runner.invoke(app, ["auction", "8H P 9S X P P XX", "-f", "json"])
    assert a.exit_code == 0 and a.output == b.output
    for args, msg in [([], "missing calls"), (["8H", "--foo"], "bad call '--foo'")]:
        r = runner.invoke(app, ["auction", *args])
        lines = r.output.strip().splitlines()
        assert r.exit_code == 2 and len(lines) == 1 and msg in lines[0], r.output


def test_auction_accepts_names():
    a = Auction(dealer="W", ruleset="bazar-blot")
    assert a.to_speak == 0 and a.ruleset.name == "bazar-blot"
    with pytest.raises(AuctionError, match="bad dealer"):
        Auction(dealer=7)


# ------------------------------------------------------------------ belote and bela styles

REASON_TEXT.update(
    {
        "game_has_level": "without level or capot",
        "spoke_out": "may not name a game",
        "after_redouble": "no games after a redouble",
        "not_higher": "must rank above",
        "suit_only": "names a suit only",
    }
)

_GAME_VARIANTS = [
    ("belote-fr", {}),
    ("belote-fr", {"auction.belote_game_order": "suit<VK<BK"}),
    ("belote-fr", {"auction.contra": False}),
    ("bela-hr", {}),
    ("belote-fr", {"auction.belote_games_after_redouble": True}),
]

# every call of a game auction: pass, contra, recontra, the six games (no level)
_GAME_CALLS = [Call(PASS), Call(CONTRA), Call(RECONTRA)] + [Call(BID, 0, k) for k in range(6)]


def _game_rules(rs):
    return {
        "kinds": set(rs.kinds),
        "contra": rs.auction.contra,
        "order": rs.auction.belote_game_order,
        # the article on variants does not say: an option (default: a redouble closes the
        # naming of games)
        "no_game_after_redouble": not rs.auction.belote_games_after_redouble,
    }


def _odd_game_call(rng) -> Call:
    """Any call, often malformed for a game auction (a level, a capot flag)."""
    if rng.random() < 0.5:
        return rng.choice(_GAME_CALLS)
    return Call(BID, rng.choice([0, 8, 9]), rng.randint(0, 5), rng.random() < 0.3)


def _check_game_auctions(variant, n_auctions, seed):
    name, opts = _GAME_VARIANTS[variant]
    rs = get_ruleset(name, **opts)
    rules = _game_rules(rs)
    belote = rs.auction.style == "belote"
    judge = naive.belote_violations if belote else naive.bela_violations
    outcome_of = naive.belote_outcome if belote else naive.bela_outcome
    rng = random.Random(seed)
    seen = set()
    for _ in range(n_auctions):
        dealer = rng.randint(0, 3)
        a = Auction(dealer=dealer, ruleset=rs)
        seq = []
        for _ in range(40):
            legal = [c for c in _GAME_CALLS if not judge(seq, _to_naive(c), dealer, rules)]
            assert sorted(map(str, a.legal_calls())) == sorted(map(str, legal)), seq
            r = rng.random()
            if r < 0.25 or not legal:
                c = _odd_game_call(rng)
            elif r < 0.55:
                c = Call(PASS)  # often, so auctions end (bela: the dealer may not pass)
            else:
                c = rng.choice(legal)
            broken = judge(seq, _to_naive(c), dealer, rules)
            reason = a.why_illegal(c)
            if broken:
                assert reason is not None, f"accepted {c} after {seq}: breaks {broken}"
                assert any(REASON_TEXT[b] in reason for b in broken), (seq, c, broken, reason)
                with pytest.raises(AuctionError, match=f"call {len(seq) + 1} "):
                    a.call(c)
                assert len(a.history) == len(seq)  # a refused call changes nothing
                seen.update(broken)
                if "over" in broken:
                    break
                continue
            assert reason is None, f"refused {c} after {seq}: {reason}"
            a.call(c)
            seq.append(_to_naive(c))
        outcome = outcome_of(seq, dealer)
        seen.add(outcome if isinstance(outcome, str) else ("contract", outcome[3]))
        if outcome == "open":
            assert not a.finished, seq
        elif outcome == "redeal":
            assert a.finished and a.redeal and a.contract is None, seq
        else:
            c = a.contract
            assert a.finished and not a.redeal, seq
            assert (c.level, c.kind, c.declarer, c.contra, c.capot) == outcome, seq
    return seen


@pytest.mark.parametrize("variant", range(len(_GAME_VARIANTS)))
def test_random_game_auctions_match_naive_judge(variant):
    """500 random belote / bela auctions per variant: the legal calls, every verdict on
    legal and illegal calls, and the contract or redeal, against the naive judges."""
    seen = _check_game_auctions(variant, 500, variant)
    assert "over" in seen
    if _GAME_VARIANTS[variant][0] == "belote-fr":
        assert {"redeal", ("contract", 0), "spoke_out", "not_higher"} <= seen
        opts = _GAME_VARIANTS[variant][1]
        if opts.get("auction.contra", True):
            assert {("contract", 1), ("contract", 2)} <= seen
            redouble_closes = not opts.get("auction.belote_games_after_redouble", False)
            assert ("after_redouble" in seen) == redouble_closes
    else:
        assert {"dealer_must_name", "suit_only", "kind"} <= seen


@pytest.mark.gate
@pytest.mark.parametrize("variant", range(len(_GAME_VARIANTS)))
def test_random_game_auctions_match_naive_judge_gate(variant):
    """20,000 random belote / bela auctions per variant.

    Sample in make test: test_random_game_auctions_match_naive_judge"""
    _check_game_auctions(variant, 20_000, 1000 + variant)
