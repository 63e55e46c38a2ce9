"""The auction as evidence: call likelihoods and auction-weighted worlds against plain
references.

References, each its own code: the threshold policy is :class:`PolicyBidder` (Python); its
soft form is integrated by scanning the threshold move and bisecting where the Python
policy's call changes; legal calls are counted by the naive judge of tests/naive_auction.py;
worlds are listed by :func:`all_worlds` and weighted by the Python policy. Most tests use a
synthetic hand model (random rates, falling with the level) so that they need no dataset.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from bazarsim.beliefs.calls import (
    CallModel,
    call_code,
    call_contexts,
    check_listenable,
    policy_code,
    seat_cells,
)
from bazarsim.beliefs.evidence import Evidence, parse_seat_policies, weighted_sample
from bazarsim.beliefs.worlds import ENUMERATE
from bazarsim.core.errors import BazarsimError
from bazarsim.matches.bidding import PolicyBidder, SeatView
from bazarsim.matches.model import N_CELLS, HandModel, bid_levels, model_bids
from bazarsim.matches.policy import ScoreRule, load_policy
from bazarsim.players.worlds import all_worlds
from bazarsim.rules.auction import BID, PASS, Auction, Call
from bazarsim.rules.rulesets import get_ruleset

from . import naive_auction as naive
from .test_auction import _naive_rules

LISTENABLE = ("bazar", "bazar-blot")


def synthetic_model(rs, seed: int = 1) -> HandModel:
    """Random rates per cell, falling with the level (the capot column lowest)."""
    rng = np.random.default_rng(seed)
    b = len(model_bids(rs, rs.kinds[0]))
    rates = np.sort(rng.random((2, N_CELLS, b)) ** 0.7, axis=2)[:, :, ::-1].copy()
    return HandModel(rs, rates, np.zeros((2, N_CELLS), np.int64), 20.0, {})


def deal(rng) -> list[int]:
    deck = rng.permutation(32)
    return [int(sum(1 << int(c) for c in deck[8 * s: 8 * s + 8])) for s in range(4)]


def random_auction(rs, dealer, rng, max_calls=10) -> list[tuple[int, Call]]:
    """Random legal calls (half of them passes where a pass is legal)."""
    a = Auction(dealer=dealer, ruleset=rs)
    out = []
    while not a.finished and len(out) < max_calls:
        legal = a.legal_calls()
        if legal[0].type == PASS and rng.random() < 0.5:
            c = legal[0]
        else:
            c = legal[int(rng.integers(len(legal)))]
        out.append((a.to_speak, c))
        a.call(c)
    return out


def estimates(cm: CallModel, hand: int, position: int):
    cells = np.zeros(6, np.int64)
    seat_cells(np.int64(hand), position, cm.T, cm.trump_masks, cm.kinds, cells)
    rates = cm.model.rates
    return rates[0, cells], rates[1, cells]


def moved(policy, e: float):
    """The policy with every threshold moved by ``e`` (a score rule that always applies,
    first, added to the policy's own shift at the score)."""
    return replace(policy, score=(ScoreRule("any", 0, 0, e),))


def naive_legal_count(rs, prefix: list[tuple[int, Call]], dealer: int) -> int:
    """Legal calls after ``prefix`` by the naive judge, bids over the model's levels."""
    rules = _naive_rules(rs)
    hist = [_to_naive(c) for _s, c in prefix]
    cands = [("P",), ("X",), ("XX",)]
    for kind in rs.kinds:
        for capot in (False, True):
            cands += [("B", lv, kind, capot) for lv in bid_levels(rs)]
    return sum(naive.first_illegal(hist + [c], dealer, rules) is None for c in cands)


def _to_naive(call: Call):
    if call.type == BID:
        return ("B", call.level, call.kind, call.capot)
    return (("P",), None, ("X",), ("XX",))[call.type]


# --------------------------------------------------------------------------- the policy


POLICY_CASES = [("careful", (0, 0)), ("bold", (50, 200)), ("bold", (200, 50))]


@pytest.mark.parametrize("ruleset", LISTENABLE)
@pytest.mark.parametrize("name, score", POLICY_CASES)
def test_policy_kernel_is_the_python_policy(ruleset, name, score):
    """The kernel's call (no threshold move) equals PolicyBidder's on random hands after
    random legal auctions, for every seat; bold at 50-200 to 301 has its score rule in
    force for N-S (behind by 150, E-W 101 from the target), at 200-50 for E-W. 40
    auctions a case.

    Gate: test_policy_kernel_is_the_python_policy_gate (1,000 a case)"""
    _check_policy_kernel(ruleset, name, score, 40, 11)


@pytest.mark.gate
@pytest.mark.parametrize("ruleset", LISTENABLE)
@pytest.mark.parametrize("name, score", POLICY_CASES)
def test_policy_kernel_is_the_python_policy_gate(ruleset, name, score):
    """Sample in make test: test_policy_kernel_is_the_python_policy"""
    _check_policy_kernel(ruleset, name, score, 1000, 12)


def _check_policy_kernel(ruleset, name, score, auctions: int, seed: int) -> None:
    rs = get_ruleset(ruleset)
    model = synthetic_model(rs)
    pol = load_policy(name)
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(auctions):
        dealer = int(rng.integers(4))
        hands = deal(rng)
        calls = random_auction(rs, dealer, rng)
        pols = {s: pol for s in range(4)}
        ctx = call_contexts(calls, dealer, rs, pols, (0, 1, 2, 3), score, 301)
        cm = CallModel(rs, ctx, model, pols)
        a = Auction(dealer=dealer, ruleset=rs)
        for i, (seat, c) in enumerate(calls):
            make, opp = estimates(cm, hands[seat], int(ctx.position[i]))
            own, other = score[seat & 1], score[1 - (seat & 1)]
            want = PolicyBidder(pol).call(a, SeatView(seat, make, opp, own, other, 301))
            got = policy_code(make, opp, i, cm.ints, ctx.low, ctx.cap_low, ctx.need,
                              ctx.thresholds, ctx.shift[i], cm.kinds, cm.lvl0, cm.n_levels)
            assert got == call_code(want), (calls[: i + 1], str(want))
            checked += 1
            a.call(c)
    assert checked > 3 * auctions


def reference_soft(rs, policy, auction_prefix, seat, make, opp, call, softness, score,
                   target=301):
    """P_soft(call) by scanning the threshold move over +-12 softness (1,200 steps) with
    the Python policy and bisecting each change of its call to 1e-10."""
    a = Auction(dealer=auction_prefix[0], ruleset=rs)
    for c in auction_prefix[1]:
        a.call(c)
    own, other = score[seat & 1], score[1 - (seat & 1)]

    def call_at(e):
        return PolicyBidder(moved(policy, e + policy.shift(own, other, target))).call(
            a, SeatView(seat, make, opp, own, other, target))

    tail = 12 * softness
    grid = np.linspace(-tail, tail, 301)
    calls = [call_at(e) for e in grid]
    edges = [-math.inf]
    owners = [calls[0]]
    for j in range(1, len(grid)):
        if calls[j] != calls[j - 1]:
            lo, hi = grid[j - 1], grid[j]
            while hi - lo > 1e-10:
                mid = (lo + hi) / 2
                if call_at(mid) == calls[j - 1]:
                    lo = mid
                else:
                    hi = mid
            edges.append((lo + hi) / 2)
            owners.append(calls[j])
    edges.append(math.inf)

    def cdf(x):
        return 0.0 if x == -math.inf else 1.0 if x == math.inf else 1 / (1 + math.exp(
            -x / softness))

    return sum(cdf(edges[k + 1]) - cdf(edges[k]) for k in range(len(owners))
               if owners[k] == call)


@pytest.mark.parametrize("ruleset", LISTENABLE)
def test_soft_likelihood_against_scanned_policy(ruleset):
    """Each call's soft probability (kernel) equals the logistic mass of the threshold
    moves under which the Python policy makes it, and with the floor the probabilities of
    all legal calls sum to 1 (naive judge's count). 8 calls a ruleset.

    Gate: test_soft_likelihood_against_scanned_policy_gate (100 a ruleset)"""
    _check_soft(ruleset, 8, 5)


@pytest.mark.gate
@pytest.mark.parametrize("ruleset", LISTENABLE)
def test_soft_likelihood_against_scanned_policy_gate(ruleset):
    """Sample in make test: test_soft_likelihood_against_scanned_policy"""
    _check_soft(ruleset, 100, 50)


def _check_soft(ruleset: str, cases: int, seed: int) -> None:
    rs = get_ruleset(ruleset)
    model = synthetic_model(rs, 3)
    pol = load_policy("careful")
    rng = np.random.default_rng(seed)
    done = 0
    while done < cases:
        dealer = int(rng.integers(4))
        hands = deal(rng)
        calls = random_auction(rs, dealer, rng, 6)
        i = int(rng.integers(len(calls)))
        seat = calls[i][0]
        pols = {s: pol for s in range(4)}
        ctx = call_contexts(calls, dealer, rs, pols, (seat,))
        row = sum(1 for s, _c in calls[:i] if s == seat)  # the seat's calls before it
        cm = CallModel(rs, ctx, model, pols)
        make, opp = estimates(cm, hands[seat], int(ctx.position[row]))
        prefix = (dealer, [c for _s, c in calls[:i]])
        want = reference_soft(rs, pol, prefix, seat, make, opp, calls[i][1], 0.05, (0, 0))
        rows = np.array([row], np.int64)
        got = cm.likelihood_rows(hands[seat], rows)
        n = naive_legal_count(rs, calls[:i], dealer)
        assert ctx.n_legal[row] == n
        assert got == pytest.approx(0.98 * want + 0.02 / n, abs=1e-6)
        # every legal call's probability: they sum to 1
        a = Auction(dealer=dealer, ruleset=rs)
        for _s, c in calls[:i]:
            a.call(c)
        total = 0.0
        for c in a.legal_calls(max_level=bid_levels(rs)[-1]):  # the levels the model knows
            cm.ints[row, 8] = call_code(c)
            total += cm.likelihood_rows(hands[seat], rows)
        assert total == pytest.approx(1.0, abs=1e-6)
        done += 1


# --------------------------------------------------------------------------- the worlds


def late_position(rng, rs, cards_left: int, calls: int = 99):
    """A deal, an auction bid by careful on it (its first ``calls`` calls), and every
    seat's first cards gone (any cards: the worlds only need the counts): S's view."""
    from bazarsim.matches.bidding import policy_auction

    model = synthetic_model(rs, 7)
    hands = deal(rng)
    dealer = int(rng.integers(4))
    pol = load_policy("careful")
    bidders = [PolicyBidder(pol)] * 4
    cm0 = CallModel(rs, call_contexts([], dealer, rs, {}, ()), model, {})
    views = []
    for s in range(4):
        make, opp = estimates(cm0, hands[s], (s - dealer - 1) % 4 + 1)
        views.append(SeatView(s, make, opp))
    auction = policy_auction(bidders, views, dealer, rs)
    played_by = np.zeros(4, np.int64)
    now = list(hands)
    for s in range(4):
        for c in [c for c in range(32) if hands[s] >> c & 1][: 8 - cards_left]:
            played_by[s] |= 1 << c
            now[s] &= ~(1 << c)
    return model, hands, now, dealer, auction.history[:calls], played_by


class PythonWeights:
    """A world's likelihood by the Python policy, hard (softness 0) with the floor: the
    product over the other seats of their calls' probabilities, each seat's computed once
    per dealt hand (a world's weight depends on each seat's hand alone)."""

    def __init__(self, rs, model, dealer, calls, me, pol):
        self.rs, self.dealer, self.calls, self.me, self.pol = rs, dealer, calls, me, pol
        self.cm0 = CallModel(rs, call_contexts([], dealer, rs, {}, ()), model, {})
        self.n_legal = [naive_legal_count(rs, calls[:i], dealer) for i in range(len(calls))]
        self.memo: dict[tuple[int, int], float] = {}

    def seat(self, s: int, dealt: int) -> float:
        if (s, dealt) not in self.memo:
            w = 1.0
            a = Auction(dealer=self.dealer, ruleset=self.rs)
            make, opp = estimates(self.cm0, dealt, (s - self.dealer - 1) % 4 + 1)
            f = self.pol.likelihood_floor
            for i, (who, c) in enumerate(self.calls):
                if who == s:
                    made = PolicyBidder(self.pol).call(a, SeatView(s, make, opp))
                    w *= (1 - f) * (made == c) + f / self.n_legal[i]
                a.call(c)
            self.memo[(s, dealt)] = w
        return self.memo[(s, dealt)]

    def __call__(self, world, played_by) -> float:
        out = 1.0
        for s in range(4):
            if s != self.me:
                out *= self.seat(s, int(world[s]) | int(played_by[s]))
        return out


@pytest.mark.parametrize("ruleset", LISTENABLE)
def test_every_world_weighted_exactly_when_few(ruleset):
    """With at most ENUMERATE consistent worlds the sampler returns each once, weighted by
    its likelihood over the sum, the likelihood as the Python policy gives it (hard
    policy with the floor)."""
    rs = get_ruleset(ruleset)
    rng = np.random.default_rng(21)
    pol = replace(load_policy("careful"), likelihood_softness=0.0)
    for _ in range(3):
        model, _hands, now, dealer, calls, played_by = late_position(rng, rs, 3)
        me = 2
        ev = Evidence(rs, dealer, calls, me, {s: pol for s in range(4) if s != me}, model)
        fixed = np.zeros(4, np.int64)
        counts = np.full(4, 3, np.int64)
        played = int(played_by.sum())
        ww = weighted_sample(ev, now[me], fixed, fixed, counts, played, played_by, 10, key=3)
        worlds = all_worlds(me, now[me], fixed, fixed, counts, played)
        assert ww.exhaustive and ww.n == len(worlds) <= ENUMERATE
        weight = PythonWeights(rs, model, dealer, calls, me, pol)
        ref = np.array([weight(w, played_by) for w in worlds])
        got = {tuple(int(x) for x in h): wt for h, wt in zip(ww.hands, ww.weights,
                                                              strict=True)}
        assert sorted(got) == sorted(worlds)
        for w, r in zip(worlds, ref / ref.sum(), strict=True):
            assert got[w] == pytest.approx(r, rel=1e-9)


@pytest.mark.parametrize("ruleset", LISTENABLE)
def test_sampled_card_shares_match_enumeration(ruleset):
    """Past the enumeration size the weighted draws' card shares per seat match the exact
    posterior's (every world listed, Python-policy weights): each of the 36 hidden
    card-seat shares within 4.5 standard errors (ESS-based, the ESS reached: 1,000 or more
    from 60,000 draws; a hard policy spreads the weights). A share off by 0.08 at an ESS of
    1,000 is 5 SE out: caught; on correct code a share leaves 4.5 SE with
    probability 7e-6, so the test fails by chance about once in 4,000 runs."""
    rs = get_ruleset(ruleset)
    rng = np.random.default_rng(8)
    # a hard policy with a wide floor: weights spread enough for the test's ESS in few draws
    pol = replace(load_policy("careful"), likelihood_softness=0.0, likelihood_floor=0.5)
    model, _hands, now, dealer, calls, played_by = late_position(rng, rs, 4, calls=4)
    me = 2
    ev = Evidence(rs, dealer, calls, me, {s: pol for s in range(4) if s != me}, model)
    fixed = np.zeros(4, np.int64)
    counts = np.full(4, 4, np.int64)
    played = int(played_by.sum())
    worlds = all_worlds(me, now[me], fixed, fixed, counts, played)
    assert len(worlds) > ENUMERATE
    h = np.array(worlds, np.int64)
    weight = PythonWeights(rs, model, dealer, calls, me, pol)
    ref = np.array([weight(w, played_by) for w in worlds])
    p = ref / ref.sum()
    ww = weighted_sample(ev, now[me], fixed, fixed, counts, played, played_by, 3000, key=5,
                         max_draws=60_000)
    assert not ww.exhaustive and ww.ess >= 1000
    for s in (0, 1, 3):
        for c in range(32):
            if (now[me] >> c & 1) or (played >> c & 1):
                continue
            exact = p @ ((h[:, s] >> c) & 1)
            est = ww.weights @ ((ww.hands[:, s] >> c) & 1)
            se = math.sqrt(max(exact * (1 - exact), 1e-4) / ww.ess)
            assert abs(est - exact) < 4.5 * se, (s, c, est, exact)


def _check_hard_limit(kept_size: int, seed: int) -> None:
    rs = get_ruleset("bazar")
    model = synthetic_model(rs, 4)
    pol = replace(load_policy("careful"), likelihood_softness=0.0, likelihood_floor=0.0)
    rng = np.random.default_rng(seed)
    me, dealer = 2, 0
    own = deal(rng)[me]
    # E opens 8 of the kind careful opens most often with S's cards out, S passes, W passes
    calls = [(1, Call(BID, 8, 1)), (2, Call(PASS)), (3, Call(PASS))]
    weight = PythonWeights(rs, model, dealer, calls, me, pol)
    ev = Evidence(rs, dealer, calls, me, {s: pol for s in range(4) if s != me}, model)
    z = np.zeros(4, np.int64)
    ww = weighted_sample(ev, own, z, z, np.full(4, 8, np.int64), 0, z, kept_size, key=seed,
                         max_draws=400_000)
    assert ww.ess >= kept_size
    rest = [c for c in range(32) if not own >> c & 1]
    kept = []
    while len(kept) < kept_size:
        perm = rng.permutation(rest)
        world = [0, 0, 0, 0]
        world[me] = own
        for k, s in enumerate((3, 0, 1)):
            world[s] = int(sum(1 << int(c) for c in perm[8 * k: 8 * k + 8]))
        if weight.seat(1, world[1]) > 0 and weight.seat(3, world[3]) > 0:
            kept.append(world)
    kept = np.array(kept, np.int64)
    for s in (0, 1, 3):
        for c in rest:
            a = ww.weights @ ((ww.hands[:, s] >> c) & 1)
            b = ((kept[:, s] >> c) & 1).mean()
            pbar = (a + b) / 2
            se = math.sqrt(max(pbar * (1 - pbar), 1e-4) * (1 / ww.ess + 1 / len(kept)))
            assert abs(a - b) < 4.5 * se, (s, c, a, b)


def test_hard_limit_is_rejection_sampling():
    """Softness and floor 0: the weighted worlds are the deals that give the same calls.
    Rejection sampling from scratch (deal the hidden cards, replay the Python policy, keep
    the deals that call as observed) against the sampler, 1,000 kept deals and an ESS of
    1,000: every card-seat share (72) within 4.5 SE of the difference. A share off by 0.1
    is 5 SE out at p = 0.5: caught; on correct code the test fails by chance about once
    in 2,000 runs. Gate: 10,000 (off by 0.03 caught).

    Gate: test_hard_limit_is_rejection_sampling_gate"""
    _check_hard_limit(1000, 2)


@pytest.mark.gate
def test_hard_limit_is_rejection_sampling_gate():
    """10,000 kept deals. Sample in make test: test_hard_limit_is_rejection_sampling"""
    _check_hard_limit(10_000, 3)


@pytest.mark.parametrize("ruleset", LISTENABLE)
def test_truth_is_never_impossible(ruleset):
    """Over policy-bid deals, the true deal's likelihood is positive from every seat's
    view (the default softness and floor). 30 deals a ruleset.

    Gate: test_truth_is_never_impossible_gate (1,000 a ruleset)"""
    _check_truth(ruleset, 30, 13)


@pytest.mark.gate
@pytest.mark.parametrize("ruleset", LISTENABLE)
def test_truth_is_never_impossible_gate(ruleset):
    """Sample in make test: test_truth_is_never_impossible"""
    _check_truth(ruleset, 1000, 14)


def _check_truth(ruleset: str, deals: int, seed: int) -> None:
    rs = get_ruleset(ruleset)
    rng = np.random.default_rng(seed)
    pol = load_policy("careful")
    for _ in range(deals):
        model, hands, _now, dealer, calls, _pb = late_position(rng, rs, 8)
        for me in range(4):
            ev = Evidence(rs, dealer, calls, me, {s: pol for s in range(4) if s != me},
                          model)
            for s in range(4):
                if s != me and ev.n_rows[s]:
                    assert ev.model.likelihood(s, [hands[s]])[0] > 0


# --------------------------------------------------------------------------- errors


def test_belote_and_bela_are_refused():
    for name in ("belote-fr", "bela-hr"):
        with pytest.raises(BazarsimError, match="bid time"):
            check_listenable(get_ruleset(name))


def test_policy_per_seat():
    pols = parse_seat_policies("bold,E=careful", me=2)
    assert {s: p.name for s, p in pols.items()} == {0: "bold", 1: "careful", 3: "bold"}
    with pytest.raises(BazarsimError, match="not a seat"):
        parse_seat_policies("Q=bold", me=2)
    with pytest.raises(BazarsimError, match="no policy file"):
        parse_seat_policies("E=nosuch", me=2)


def test_listener_classes_hands_as_the_matches_do(tmp_path_factory):
    """The model class the listener computes from a whole hand (seat_cells) is the class
    the matches read from a dataset's rows (row_cells), for every deal, seat and kind of a
    small solved dataset of each listenable ruleset; so bid_deal bids as match does."""
    from bazarsim.engine.simulation import Simulation
    from bazarsim.matches.deals import load_deals

    from .conftest import built_dataset

    for name in LISTENABLE:
        rs = get_ruleset(name)
        path = built_dataset(tmp_path_factory, f"beliefs-{name}", Simulation(
            deals=120, seed=5, ruleset=rs, columns="lean", dd=True, chunk=60))
        table = load_deals(path)
        cm = CallModel(rs, call_contexts([], 0, rs, {}, ()), synthetic_model(rs), {})
        cells = np.zeros(6, np.int64)
        for i in range(table.n):
            for s in range(4):
                pos = (s - int(table.dealer[i]) - 1) % 4 + 1
                seat_cells(np.int64(table.hands[i, s]), pos, cm.T, cm.trump_masks, cm.kinds,
                           cells)
                assert list(cells[list(rs.kinds)]) == list(table.cells[i, s, list(rs.kinds)])
