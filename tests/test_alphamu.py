"""The alpha-mu player (bazarsim/players/alphamu.py) against the plain references.

* At full depth, on positions with 2-3 tricks left and 1-4 worlds of every ruleset and
  kind, its values are the exact information-set values: the brute force over every
  strategy of the seat (tests/naive_infoset.py), for points and for the contract.
* At depth d it equals the Python alpha-mu cut at d own moves (double dummy after them).
* At depth 1 it is PIMC: the values of :func:`~bazarsim.players.pimc.decide_worlds` on the
  same worlds.
* Its root cut (cards whose PIMC bound is below a value reached are not searched) keeps
  the card and the values of the cards searched.
* The player, inside the play-out kernel and card by card (where an illegal card is
  refused), plays the same cards, and the deal's points are all taken.
"""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.core.cards import parse_card
from bazarsim.core.contracts import KIND_NAMES, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.dd.search import DEFAULT_TT_BITS, O_ALL, new_context
from bazarsim.deals.generator import DealGenerator
from bazarsim.players.alphamu import N_ST, alphamu_values
from bazarsim.players.pimc import O_CONTRACT, O_POINTS, decide_worlds
from bazarsim.players.players import AlphaMuPlayer
from bazarsim.players.playout import play_deal
from bazarsim.rules.play import clockwise_seats, contract_play
from bazarsim.rules.rulesets import get_ruleset
from tests import naive_infoset as NI
from tests import naive_play as NP
from tests.test_naive_infoset import CASES, LIMIT, position, worlds_of

runner = CliRunner()
CTX = new_context(DEFAULT_TT_BITS, O_ALL)


def _card(text: str) -> int:
    return int(parse_card(text.replace("T", "10")))


class Kernel:
    """A reference position in the kernel's terms (seats clockwise, cards as bits)."""

    def __init__(self, name, kind, worlds, me, leader, trick):
        rs = get_ruleset(name)
        d = rs.play.direction
        self.seat = lambda s: int(clockwise_seats(s, d))
        self.play = contract_play(rs, parse_kind(kind))
        self.worlds = np.zeros((len(worlds), 4), np.int64)
        for i, w in enumerate(worlds):
            for s in range(4):
                self.worlds[i, self.seat(s)] = sum(1 << _card(c) for c in w[s])
        self.me, self.leader = self.seat(me), self.seat(leader)
        self.trick = np.zeros(4, np.int64)
        self.n = len(trick)
        self.trick[: self.n] = [_card(c) for _s, c in trick]
        gone = 0xFFFFFFFF
        for s in range(4):
            gone &= ~int(self.worlds[0, s])
        for c in self.trick[: self.n]:
            gone &= ~(1 << int(c))
        self.gone = gone
        self.total = sum(NP.points(c, kind) for h in worlds[0] for c in h) + sum(
            NP.points(c, kind) for _s, c in trick) + NP.LAST_TRICK

    def values(self, depth, objective=O_POINTS, decl_side=0, need=0, prune=False,
               budget=10**9):
        """(card, values by reference card name) of alpha-mu at ``depth``."""
        values = np.empty(32)
        card = alphamu_values(np.int64(self.me), self.worlds, np.int64(self.gone),
                              np.int64(self.leader), self.trick, np.int64(self.n), self.play,
                              CTX, np.int64(depth), np.int64(objective), np.int64(decl_side),
                              np.int64(need), np.int64(10**6), prune, np.int64(budget), values,
                              np.zeros(N_ST, np.int64))
        return int(card), values

    def mine(self, values, cards):
        """N-S values of the kernel as the reference's points of ``me``'s side."""
        side = self.me % 2
        return {c: (values[_card(c)] if side == 0 else self.total - values[_card(c)])
                for c in cards}


def reference_positions(seed: int, count: int, tricks: int, n_worlds: int, limit=LIMIT):
    """``count`` positions with a choice (a forced card is played unvalued) small enough
    for the brute force: (case, worlds, args)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        name, kind = CASES[int(rng.integers(len(CASES)))]
        hands, leader, trick, me, step, rules = position(rng, tricks, name, kind)
        worlds = worlds_of(rng, hands, me, n_worlds)
        args = (worlds, me, leader, kind, rules, trick, step)
        if len(NP.legal(hands[me], me, list(trick), kind, rules)) < 2:
            continue
        if limit is None or NI.strategy_count(*args) <= limit:
            out.append((name, kind, worlds, args))
    return out


def check_exact(seed: int, count: int, tricks: int, n_worlds: int) -> int:
    """Full depth equals the brute force over every strategy; returns how many positions
    had a card PIMC values above its exact value (fusion the search removed)."""
    fused = 0
    for name, kind, worlds, args in reference_positions(seed, count, tricks, n_worlds):
        k = Kernel(name, kind, worlds, args[1], args[2], args[5])
        exact = NI.brute_force_values(*args)
        _card_, values = k.values(8)
        assert k.mine(values, exact) == pytest.approx(exact), (name, kind, worlds, args[5])
        _c, pimc = k.values(1)
        fused += any(k.mine(pimc, exact)[c] > exact[c] + 1e-9 for c in exact)
    return fused


def test_full_depth_is_the_exact_information_set_value():
    """45 positions, every ruleset and kind, 2 and 3 tricks left, 1 to 3 worlds."""
    check_exact(1, 15, 2, 3)
    check_exact(2, 10, 3, 1)
    assert check_exact(21, 20, 3, 3) > 0  # positions where PIMC fuses: a PIMC kernel fails


@pytest.mark.gate
def test_full_depth_is_the_exact_information_set_value_gate():
    """1,000 positions of other seeds.

    Sample in make test: test_full_depth_is_the_exact_information_set_value"""
    check_exact(11, 200, 2, 4)
    assert check_exact(12, 600, 3, 4) > 10
    check_exact(13, 200, 3, 6)


def test_depth_limited_equals_the_reference_cut_at_that_depth():
    """Depth 2 and 3 with 3-4 tricks left: the reference's alpha-mu with the seat seeing
    the world after that many of its own cards (the cut the player makes)."""
    for depth, tricks, n_worlds, count, seed in ((2, 3, 4, 12, 5),
                                                 (3, 4, 2, 2, 7)):
        for name, kind, worlds, args in reference_positions(seed, count, tricks, n_worlds,
                                                            limit=None):
            k = Kernel(name, kind, worlds, args[1], args[2], args[5])
            ref = NI.alpha_mu_values(*args, depth=depth)
            _c, values = k.values(depth)
            assert k.mine(values, ref) == pytest.approx(ref), (depth, name, kind)


def test_depth_one_is_pimc_and_the_root_cut_keeps_the_card():
    """Depth 1 equals the PIMC kernel's values on the same worlds, and so does any depth
    with no node budget left (the bound on a decision's time); with the root cut,
    the same card as without, the searched cards' values unchanged and the others kept
    at their PIMC value (an upper bound, below the chosen card's)."""
    cut = 0
    for name, kind, worlds, args in reference_positions(9, 40, 4, 5, limit=None):
        k = Kernel(name, kind, worlds, args[1], args[2], args[5])
        card1, v1 = k.values(1)
        pv = np.empty(32)
        card_p = decide_worlds(np.int64(k.me), np.int64(k.worlds[0, k.me]), k.worlds,
                               np.ones(len(worlds)), np.int64(k.gone),
                               np.int64(k.leader), k.trick, np.int64(k.n), k.play, CTX,
                               O_POINTS, 0, np.int64(0), pv)
        assert card1 == card_p
        np.testing.assert_array_equal(v1, pv)
        _c, spent = k.values(3, budget=0)  # no node to search: each world on its own
        np.testing.assert_array_equal(spent, v1)
        card, full = k.values(3)
        card_c, pruned = k.values(3, prune=True)
        assert card_c == card
        for c in range(32):
            if np.isnan(full[c]):
                assert np.isnan(pruned[c])
            elif pruned[c] != full[c]:
                cut += 1
                assert pruned[c] == v1[c]  # the bound kept
                side = 1 if k.me % 2 == 0 else -1
                assert side * (pruned[c] - full[c]) > 0
                assert side * (pruned[card] - pruned[c]) > 0
    assert cut > 0


def goal_brute_force(worlds, me, leader, kind, rules, trick, step, goal):
    """The brute force for a goal: each card's best mean over the worlds of 1 where
    ``me``'s side takes at least ``goal`` points from the position (the others playing
    for that event or against it, knowing the world and the strategy)."""
    import itertools

    sets = NI.information_sets(worlds, me, leader, kind, rules, trick, step)
    keys = list(sets)
    best: dict[str, float] = {}

    def value(strategy, hands, leader, trick, seen, acc):
        if len(trick) == 4:
            winner = NP.trick_winner(list(trick), kind)
            gain = sum(NP.points(c, kind) for _s, c in trick) + (
                NP.LAST_TRICK if not any(hands) else 0)
            acc += gain if winner % 2 == me % 2 else 0
            if not any(hands):
                return int(acc >= goal)
            return value(strategy, hands, winner, (), seen, acc)
        seat = (leader + step * len(trick)) % 4
        moves = ([strategy[seen]] if seat == me else
                 NP.legal(list(hands[seat]), seat, list(trick), kind, rules))
        out = []
        for card in moves:
            rest = list(hands)
            rest[seat] = tuple(c for c in hands[seat] if c != card)
            out.append(value(strategy, tuple(rest), leader, trick + ((seat, card),),
                             seen + ((seat, card),), acc))
        return max(out) if seat % 2 == me % 2 else min(out)

    for choice in itertools.product(*(sets[k] for k in keys)):
        strategy = dict(zip(keys, choice, strict=True))
        mean = sum(value(strategy, tuple(tuple(h) for h in w), leader, tuple(trick), (), 0)
                   for w in worlds) / len(worlds)
        best[strategy[()]] = max(best.get(strategy[()], -1.0), mean)
    return best


def test_contract_objective_is_the_exact_chance_of_the_goal():
    """Objective contract at full depth, the seat on the declaring side and against it:
    P(the declaring side reaches what it needs) equals the brute force for that goal."""
    rng = np.random.default_rng(30)
    for name, kind, worlds, args in reference_positions(31, 24, 3, 3, limit=256):
        k = Kernel(name, kind, worlds, args[1], args[2], args[5])
        decl_side = int(rng.integers(2))
        need = int(rng.integers(1, k.total + 1))
        _c, values = k.values(8, O_CONTRACT, decl_side, need)
        mine = k.me % 2 == decl_side
        goal = need if mine else k.total - need + 1
        ref = goal_brute_force(*args, goal)
        got = {c: values[_card(c)] if mine else 1 - values[_card(c)] for c in ref}
        assert got == pytest.approx(ref), (name, kind, decl_side, need)


def test_player_in_the_kernel_plays_as_card_by_card():
    """Four alpha-mu players (4 worlds, depth 2) inside the play-out kernel and through
    decide(view) (which refuses an illegal card): the same 32 cards, and all the points of
    the deal taken (two deals a ruleset)."""
    for name in ("bazar", "bela-hr", "belote-fr", "bazar-blot"):
        rs = get_ruleset(name)
        for i, deal in enumerate(DealGenerator(5, ruleset=rs).deal(0, 2).hands):
            kind = rs.kinds[i % len(rs.kinds)]
            a = play_deal(deal, KIND_NAMES[kind], "S", "alphamu", 4, seed=3, ruleset=rs,
                          deal_index=i)
            b = play_deal(deal, KIND_NAMES[kind], "S", "alphamu", 4, seed=3, ruleset=rs,
                          deal_index=i, kernel=False)
            cards = [c["card"] for t in a["tricks"] for c in t["cards"]]
            assert cards == [c["card"] for t in b["tricks"] for c in t["cards"]]
            assert a["ns_points"] + a["ew_points"] == a["total"] in (162, 258)


def test_bad_depth_and_players_are_refused():
    with pytest.raises(BazarsimError, match="--depth 0"):
        AlphaMuPlayer(depth=0)
    deal = "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97"
    r = runner.invoke(app, ["play", deal, "-c", "9H", "--declarer", "N", "--depth", "2"])
    assert r.exit_code != 0 and "--depth 2: it applies only to alphamu" in r.output
    r = runner.invoke(app, ["play", deal, "-c", "9H", "--declarer", "N", "--players",
                            "alphamu", "--depth", "9"])
    assert r.exit_code != 0 and "--depth 9" in r.output
    r = runner.invoke(app, ["simulate", "-n", "2", "--out", "x", "--players", "alphamu"])
    assert r.exit_code != 0 and "only with --sd" in r.output
    r = runner.invoke(app, ["simulate", "-n", "2", "--out", "x", "--sd", "--players", "dd"])
    assert r.exit_code != 0 and "use pimc or alphamu" in r.output
    r = runner.invoke(app, ["analyze", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "E",
                            "--players", "alphamu"])
    assert r.exit_code != 0 and "only with --play sd" in r.output


def test_sd_dataset_and_analyze_with_alphamu(tmp_path):
    """``simulate --sd --players alphamu``: the manifest says who played, and each deal's
    column is play_deal's result with four alpha-mu players (same seed and index), and
    ``table bias`` names them;
    ``analyze --play sd --players alphamu`` says who played and reads the same play-outs
    too."""
    import json

    import pandas as pd

    out = tmp_path / "am"
    r = runner.invoke(app, ["simulate", "-n", "4", "-s", "5", "--kinds", "H", "--dd", "--sd", "-w",
                            "2", "--players", "alphamu", "--depth", "2", "-q", "--out",
                            str(out)])
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "_run.json").read_text())
    assert manifest.get("params", manifest)["sd"] == {"players": "alphamu", "worlds": 2,
                                                      "depth": 2}
    df = pd.read_parquet(out).sort_values("index").reset_index(drop=True)
    rs = get_ruleset("bazar")
    for _i, row in df.iterrows():
        deal = [int(row[s]) for s in "NESW"]
        rec = play_deal(deal, "H", "N", "alphamu", 2, seed=5, dealer=int(row["dealer"]),
                        ruleset=rs, deal_index=int(row["index"]))
        assert rec["ns_points"] == row["H_sd_ns"]
    r = runner.invoke(app, ["table", "bias", str(out), "-f", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["sd"] == "single dummy, alpha-mu 2 worlds, depth 2"
    r = runner.invoke(app, ["analyze", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "E", "-n",
                            "4", "--kinds", "H", "--play", "sd", "-w", "2", "--players",
                            "alphamu", "-q", "-f", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert rows and all(x["players"] == "alphamu" and x["depth"] == 2 for x in rows)
