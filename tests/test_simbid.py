"""Bidding by simulation (``analyze --auction``, the simulation bidder) against plain
references: each candidate's final contract replayed call by call by the Python policy
(:class:`PolicyBidder`) and judged by the naive auction judge (tests/naive_auction.py),
its score by the naive scorer (tests/naive_scoring.py) on a DD solve of that kind; the
paired figures against numpy on the per-world results; the candidates against the naive
judge's legal calls; the match-win chances against the match referee."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from bazarsim.beliefs.calls import lowest_bids, seat_cells
from bazarsim.beliefs.evidence import load_hand_model
from bazarsim.cli import app
from bazarsim.core.contracts import N_KINDS, Contract
from bazarsim.dd.batch import dd_tables
from bazarsim.evaluate.hands import evaluate_deals
from bazarsim.matches.bidding import PolicyBidder, SeatView, deal_key
from bazarsim.matches.equity import end_rules
from bazarsim.matches.model import bid_levels, kind_trump_masks
from bazarsim.matches.policy import PolicyError, load_policy, parse_policy, policy_toml
from bazarsim.rules.auction import BID, CONTRA, PASS, RECONTRA, Auction, Call, run_auction
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.match import Match
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.rules.scoring import DealOutcome, score_deal
from bazarsim.simbid.advice import (
    MIN_MAKE,
    advice_rows,
    auction_query,
    draw_worlds,
    judge_calls,
)
from bazarsim.simbid.bidder import SimulationBidder
from bazarsim.simbid.continuation import F_DECLARER
from bazarsim.simbid.outcomes import solve_worlds

from . import naive_auction as naive
from . import naive_scoring as NS
from .test_auction import _naive_rules, _to_naive

runner = CliRunner()
WORLDS = 24
# (ruleset, hand, seat, dealer, calls so far): an opening to answer, a contra to weigh,
# the first call of a deal, a dealer who may not pass
QUESTIONS = [
    ("bazar", "AJ9.K7.Q.T8", 2, 3, "8H P", {}),
    ("bazar", "AT7.J9.AK.Q", 1, 3, "9S", {}),
    ("bazar-blot", "J98.AT.K7.A", 0, 3, "", {}),
    ("bazar-blot", "KQ.JT9.87.Q", 2, 3, "9D X", {}),
    ("bazar", "87.T9.Q8.K9", 3, 3, "P P P",
     {"auction.dealer_must_name_after_three_passes": True}),
]


def _question(i, **kw):
    name, hand, seat, dealer, calls, options = QUESTIONS[i]
    rs = get_ruleset(name).with_options(**options) if options else get_ruleset(name)
    return auction_query(rs, hand, seat, dealer, calls, "careful", "bold", **kw)


@pytest.fixture(scope="module", params=range(len(QUESTIONS)))
def judged(request):
    q = _question(request.param)
    worlds = draw_worlds(q, WORLDS, seed=3)
    results = judge_calls(q, worlds.hands, seed=3)
    return q, worlds.hands, results


def _views(q, hands):
    """Each seat's view of its own hand in a world: the hand model's estimates (as
    bazarsim.beliefs.evidence.bid_deal builds them)."""
    rs = q.ruleset
    T = compiled_rules(rs)
    masks = kind_trump_masks(T)
    kinds = np.array(rs.kinds, np.int64)
    cells = np.zeros(N_KINDS, np.int64)
    out = []
    for s in range(4):
        seat_cells(np.int64(hands[s]), (s - q.dealer - 1) % 4 + 1, T, masks, kinds, cells)
        out.append(SeatView(s, q.model.rates[0, cells].copy(), q.model.rates[1, cells].copy()))
    return out


def _replay(q, hands, call):
    """The auction after ``call``, each seat calling as its Python policy does."""
    auction = run_auction([c for _s, c in q.calls], q.dealer, q.ruleset)
    auction.call(call)
    views = _views(q, hands)
    while not auction.finished:
        seat = auction.to_speak
        auction.call(PolicyBidder(q.policies[seat]).call(auction, views[seat]))
    return [c for _s, c in auction.history]


_SOLVED: dict = {}


def _solved(q, hands, kind):
    """A DD solve of one kind and the declarations of one world (kept: many candidates
    end in the same kind)."""
    key = (q.ruleset.name, q.dealer, tuple(int(h) for h in hands), kind)
    if key not in _SOLVED:
        deal = np.array([hands], np.uint32)
        dd = dd_tables(deal, dealer=q.dealer, ruleset=q.ruleset, capot=True, kinds=[kind])
        ev = evaluate_deals(deal, q.dealer, kind, q.ruleset)
        _SOLVED[key] = dd, ev
    return _SOLVED[key]


def _naive_net(q, hands, contract):
    """Our side's score minus theirs by the naive scorer on a DD solve of the kind."""
    if contract == "redeal":
        return 0, False
    level, kind, declarer, contra, capot = contract
    rs = q.ruleset
    dd, ev = _solved(q, hands, kind)
    name = {0: "S", 1: "H", 2: "D", 3: "C", 4: "BK", 5: "VK"}[kind]
    ns = int(dd[f"{name}_ns_points"][0])
    total = rs.total_points(kind)
    tricks = (8, 0) if dd[f"{name}_capot_ns"][0] else (0, 8) if dd[f"{name}_capot_ew"][0] \
        else (4, 4)
    made, _m, s_ns, s_ew, _c = NS.score(
        rs, level, kind, declarer % 2, contra, capot, (ns, total - ns), tricks,
        (int(ev["declarations_ns"][0]), int(ev["declarations_ew"][0])),
        (int(ev["bela_ns"][0]), int(ev["bela_ew"][0])))
    ours, theirs = (s_ns, s_ew) if q.side == 0 else (s_ew, s_ns)
    return ours - theirs, made


def test_final_contracts_and_scores_against_a_plain_replay(judged):
    """Every candidate in every world: the final contract is the plain-Python replay's,
    legal call by call for the naive judge, and the score is the naive scorer's."""
    q, hands, results = judged
    rules = _naive_rules(q.ruleset)
    worlds = range(0, len(hands), 3)  # a third of the worlds: the DD solves are the cost
    for r in results:
        for w in worlds:
            seq = [_to_naive(c) for c in _replay(q, hands[w], r.call)]
            before = [_to_naive(c) for _s, c in q.calls]
            assert naive.first_illegal(seq, q.dealer, rules) is None
            assert seq[: len(before) + 1] == before + [_to_naive(r.call)]
            end = naive.final(seq, q.dealer, rules)
            con = r.contracts[w]
            if end == "redeal":
                assert con[F_DECLARER] == -1
            else:
                assert tuple(int(x) for x in con) == (end[2], end[1], end[0], int(end[4]),
                                                      end[3])
            net, made = _naive_net(q, hands[w], end)
            assert r.net[w] == net and bool(r.made[w]) == bool(made), (str(r.call), w)


def test_paired_figures_against_numpy(judged):
    """E[score] is the mean over the worlds, its SE the plain SE of the per-world scores;
    the difference to the best call the mean of the per-world differences, its SE theirs;
    P(we declare) and P(make) the shares of the worlds; ranked by E[score]."""
    q, hands, results = judged
    n = len(hands)
    w = np.full(n, 1.0 / n)
    rows = advice_rows(q, results, w, float(n))
    best = results[0].net.astype(float)
    for row, r in zip(rows, results, strict=True):
        x = r.net.astype(float)
        d = best - x
        assert row["expected_score"] == pytest.approx(x.mean())
        assert row["se_score"] == pytest.approx(x.std() / math.sqrt(n))
        assert row["behind_best"] == pytest.approx(d.mean())
        assert row["se_behind_best"] == pytest.approx(d.std() / math.sqrt(n))
        ours = [(c[0] >= 0 and c[0] % 2 == q.side) for c in r.contracts]
        assert row["p_declare"] == pytest.approx(np.mean(ours))
        if any(ours):
            assert row["p_make"] == pytest.approx(np.mean(r.made[ours]))
        assert sum(e["share"] for e in row["ends"]) <= 1 + 1e-9
    means = [row["expected_score"] for row in rows]
    assert means == sorted(means, reverse=True)


def test_candidates_are_the_legal_calls_that_can_make(judged):
    """Every candidate is legal for the naive judge; pass, contra and recontra are offered
    wherever legal; per kind, the bids offered run from the lowest legal level up while
    the side makes them in at least 5 % of the worlds (naive scoring on DD)."""
    q, hands, results = judged
    rs = q.ruleset
    rules = _naive_rules(rs)
    before = [_to_naive(c) for _s, c in q.calls]
    offered = [r.call for r in results]
    for c in offered:
        assert naive.first_illegal(before + [_to_naive(c)], q.dealer, rules) is None
    for t in (PASS, CONTRA, RECONTRA):
        legal = naive.first_illegal(before + [_to_naive(Call(t))], q.dealer, rules) is None
        assert (Call(t) in offered) == legal
    dealer_forced = naive.first_illegal(before + [("P",)], q.dealer, rules) is not None
    for kind in rs.kinds:
        levels = [lv for lv in bid_levels(rs) if naive.first_illegal(
            before + [("B", lv, kind, False)], q.dealer, rules) is None]
        got = sorted(c.level for c in offered if c.type == BID and c.kind == kind
                     and not c.capot)
        assert got == levels[: len(got)]  # from the lowest legal level up, no gap
        for lv in levels[: len(got) + 1]:
            made = np.mean([_naive_net(q, h, (lv, kind, q.seat, 0, False))[1] for h in hands])
            if lv in got:
                assert made >= MIN_MAKE or (dealer_forced and lv == levels[0])
            else:
                assert made < MIN_MAKE


def test_lowest_bids_against_the_naive_judge():
    """The lowest legal bid of each kind, read off the bazar rules, is the naive judge's
    first legal level, over random auctions of both listenable rulesets."""
    rng = np.random.default_rng(5)
    for name in ("bazar", "bazar-blot"):
        rs = get_ruleset(name)
        rules = _naive_rules(rs)
        levels = bid_levels(rs)
        for _ in range(12):
            a = Auction(dealer=int(rng.integers(4)), ruleset=rs)
            while not a.finished:
                low, cap = lowest_bids(a, levels)
                before = [_to_naive(c) for _s, c in a.history]
                for kind in rs.kinds:
                    for capot, got in ((False, low[kind]), (True, cap[kind])):
                        want = next((lv for lv in levels if naive._judge(
                            before, ("B", lv, kind, capot), a.dealer, rules) is None), -1)
                        assert got == want
                calls = a.legal_calls()
                weights = np.array([6.0 if c.type == PASS else 1.0 for c in calls])
                a.call(calls[rng.choice(len(calls), p=weights / weights.sum())])


def test_match_win_chances_against_the_referee():
    """With a match score, each world's P(win) after the deal is 1 or 0 where the match
    referee (rules.match.Match) ends it, else the equity table at the new score with the
    other side to deal; calls are then ranked by it."""
    q = _question(0, score=(180, 240), target=301)
    worlds = draw_worlds(q, 12, seed=4)
    eq = {"eq": np.random.default_rng(2).random((400, 400, 2)), "rules": end_rules(q.ruleset),
          "target": 301}
    results = judge_calls(q, worlds.hands, seed=4, equity=eq)
    rs = q.ruleset
    res = solve_worlds(worlds.hands, q.dealer, rs, rs.kinds)
    values = []
    for r in results:
        for w in range(len(worlds.hands)):
            c = r.contracts[w]
            if c[0] < 0:
                want = eq["eq"][180, 240, 0 if q.dealer % 2 == q.side else 1]
            else:
                con = Contract(int(c[2]), int(c[1]), int(c[0]), int(c[4]), bool(c[3]))
                k = con.kind
                ns = int(res.ns[w, k])
                tricks = (8, 0) if res.capot[w, k] == 1 else (0, 8) if res.capot[w, k] == 2 \
                    else (4, 4)
                out = DealOutcome((ns, rs.total_points(k) - ns), tricks,
                                  tuple(res.decl[w, k]), tuple(res.bela[w, k]))
                game = Match(rs, 301, totals=[180, 240] if q.side == 0 else [240, 180])
                winner = game.record(score_deal(con, out, rs), None)
                if winner is not None:
                    want = 1.0 if winner == q.side else 0.0
                else:
                    mine, theirs = game.totals[q.side], game.totals[1 - q.side]
                    want = eq["eq"][min(mine, 399), min(theirs, 399),
                                    0 if q.dealer % 2 == q.side else 1]
            assert r.equity[w] == pytest.approx(want)
        values.append(r.equity.mean())
    assert values == sorted(values, reverse=True)


# --------------------------------------------------------------------------- the bidder

SIM = """kind = "simulation"
name = "sim-test"
[open]
make = 0.65
[simulation]
worlds = 16
assume = "careful"
margin = 0.2
"""


def test_simulation_policy_file_reads_back_and_refuses_mistakes():
    p = parse_policy(SIM)
    assert p.simulates and p.simulation_worlds == 16 and p.simulation_margin == 0.2
    assert parse_policy(policy_toml(p)) == p
    assert "[simulation]" not in policy_toml(load_policy("careful"))
    for bad, what in [(SIM.replace('kind = "simulation"', ""), "kind = \"simulation\" only"),
                      (SIM.replace("worlds = 16", "worlds = 1"), "worlds"),
                      (SIM.replace('assume = "careful"', 'assume = " "'), "assume"),
                      (SIM.replace('kind = "simulation"', 'kind = "oracle"'), "kind")]:
        with pytest.raises(PolicyError, match=what):
            parse_policy(bad)


def test_simulation_bidder_keeps_clear_calls_and_is_reproducible():
    """A call whose margin exceeds the policy's is the base policy's, unsimulated; a
    simulated call is the best of the candidates on its worlds, the same for the same
    deal key, and counted."""
    rs = get_ruleset("bazar")
    model = load_hand_model(None, rs)
    policy = parse_policy(SIM)
    rng = np.random.default_rng(9)
    perm = rng.permutation(32)
    hands = [sum(1 << int(c) for c in perm[8 * s: 8 * s + 8]) for s in range(4)]
    q = auction_query(rs, hands[2], 2, 3, "8H P", "careful", "careful", policy, model)
    view = _views(q, hands)[2]
    view.hand, view.key = hands[2], deal_key(7, 1, 2)
    auction = q.auction()
    choices = []
    for margin in (0.0, 1.0):
        bidder = SimulationBidder(parse_policy(SIM.replace("0.2", str(margin))), model)
        bidder.log = []
        choices.append(bidder.call(auction, view))
        assert bidder.stats["calls"] == 1
        assert bidder.stats["simulated"] == (margin == 1.0)
    assert choices[0] == PolicyBidder(policy).call(auction, view)
    again = SimulationBidder(parse_policy(SIM.replace("0.2", "1.0")), model)
    assert again.call(auction, view) == choices[1]
    log = bidder.log[0]
    assert log["chosen"] == str(choices[1])
    assert max(log["means"].values()) == log["means"][log["chosen"]]


# --------------------------------------------------------------------------- the command


def test_analyze_auction_json_and_table(tmp_path):
    args = ["analyze", "AJ9.K7.Q.T8", "--seat", "S", "-d", "W", "-a", "8H P", "-n", "40",
            "-q"]
    res = runner.invoke(app, [*args, "-f", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["auction"] == "8H P" and doc["worlds"] == 40 and doc["calls"]
    assert doc["best"] == doc["calls"][0]["call"]
    calls = {c["call"] for c in doc["calls"]}
    assert "P" in calls and "X" not in calls  # partner holds the bid: no contra
    page = tmp_path / "a.html"
    res = runner.invoke(app, [*args, "--html", str(page)])
    assert res.exit_code == 0, res.output
    assert doc["calls"][0]["call"] in res.output and "usually ends in" in res.output
    assert page.exists() and "Every call, best first" in page.read_text()


@pytest.mark.parametrize("args, message", [
    (["-a", "8H P P P P"], "the auction is over"),
    (["-a", "8H"], "it is E's turn, not S's"),
    (["-a", "8H Q"], "bad call 'Q'"),
    (["-a", "8H P", "--partner", "nonesuch"], "nonesuch"),
    (["-a", "8H P", "--score", "320-10"], "not below the target 301"),
    (["-a", "8H P", "--score", "20-10"], "--score needs --equity"),
    (["-a", "8H P", "--equity", "x"], "--equity needs --score"),
    (["-a", "8H P", "--fix", "N:AH"], "--fix does not apply with --auction"),
    (["--partner", "bold"], "--partner needs --auction"),
    (["-a", "8H P", "-r", "belote-fr"], "belote-fr"),
])
def test_bad_auction_questions_are_one_error_line(args, message):
    res = runner.invoke(app, ["analyze", "AJ9.K7.Q.T8", "--seat", "S", "-d", "W", "-n", "20",
                              "-q", *args])
    assert res.exit_code != 0
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert lines[-1].startswith("error:") and message in lines[-1], res.output


# --------------------------------------------------------------------------- where it plays


@pytest.fixture(scope="module")
def small_solved(tmp_path_factory):
    """A small solved bazar dataset and the hand model fitted on it."""
    from bazarsim.engine.simulation import Simulation
    from bazarsim.matches.model import fit_model

    from .conftest import built_dataset

    data = built_dataset(tmp_path_factory, "simbid-deals", Simulation(
        deals=400, seed=31, ruleset=get_ruleset("bazar"), columns="lean", dd=True, chunk=200))
    model = tmp_path_factory.mktemp("simbid-model") / "model.json"
    fit_model(data)[0].save(model)
    policy = tmp_path_factory.mktemp("simbid-policy") / "sim.toml"
    policy.write_text(SIM.replace("margin = 0.2", "margin = 0.05"))
    return data, model, policy


def _match(small_solved, out, chunk: str):
    data, model, policy = small_solved
    res = runner.invoke(app, ["match", str(policy), "careful", "-m", "3", "--chunk", chunk,
                              "--dataset", str(data), "--model", str(model), "-q",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    return res.output


def test_a_simulation_policy_plays_matches(small_solved, tmp_path):
    """``match`` with a simulation policy: the share of simulated calls printed, and
    recorded in the parts."""
    from bazarsim.matches.run import read_bidder_stats

    output = _match(small_solved, tmp_path / "a", "3")
    st = read_bidder_stats(tmp_path / "a")["a"]
    assert 0 < st["simulated"] <= st["calls"] and st["changed"] <= st["simulated"]
    assert f"simulated {st['simulated']:,} of its {st['calls']:,} calls" in " ".join(
        output.split())


@pytest.mark.gate
def test_a_simulation_policy_plays_the_same_matches_in_worker_processes(small_solved,
                                                                         tmp_path):
    """The same rows in one process (one chunk) and in spawned workers (a chunk a pair),
    after this process ran the parallel kernels (a forked worker could not).
    Sample in make test: test_a_simulation_policy_plays_matches."""
    from bazarsim.matches.run import read_playoff

    _match(small_solved, tmp_path / "a", "3")
    _match(small_solved, tmp_path / "b", "1")
    a, b = read_playoff(tmp_path / "a"), read_playoff(tmp_path / "b")
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_a_simulation_policy_bids_simulate_auction_datasets(small_solved, tmp_path):
    """``simulate --auction`` with a simulation policy at N-S: legal auctions ending in
    the rows' contracts, the same rows with another chunk size; ``verify --repair``
    rebuilds a part with the simulation bidder."""
    from bazarsim.store.parts import read_dataframe

    _data, _model, policy = small_solved
    frames = []
    for name, chunk in (("a", "2"), ("b", "5")):
        res = runner.invoke(app, ["simulate", "-n", "6", "--seed", "4", "--auction",
                                  f"careful,N={policy},S={policy}", "--chunk", chunk,
                                  "--out", str(tmp_path / name), "-q"])
        assert res.exit_code == 0, res.output
        frames.append(read_dataframe(tmp_path / name).sort_values("index")
                      .reset_index(drop=True))
    cols = ["auction", "declarer", "contract_kind", "contract_level", "contract_dd_ns"]
    assert frames[0][cols].equals(frames[1][cols])
    rules = _naive_rules(get_ruleset("bazar"))
    for _, r in frames[0].iterrows():
        if r["redeal"]:
            continue
        seq = [_to_naive(c) for c in run_auction(r["auction"], int(r["dealer"]),
                                                  get_ruleset("bazar")).history and
               [c for _s, c in run_auction(r["auction"], int(r["dealer"]),
                                           get_ruleset("bazar")).history]]
        assert naive.first_illegal(seq, int(r["dealer"]), rules) is None
        end = naive.final(seq, int(r["dealer"]), rules)
        assert end == "redeal" or end[2] == r["declarer"]
    part = sorted((tmp_path / "a").glob("part-*.parquet"))[0]
    part.write_bytes(part.read_bytes()[:-40])
    res = runner.invoke(app, ["verify", str(tmp_path / "a"), "--repair", "-q"])
    assert res.exit_code == 0, res.output
    again = read_dataframe(tmp_path / "a").sort_values("index").reset_index(drop=True)
    assert again[cols].equals(frames[0][cols])


def test_single_dummy_results_are_the_sd_tables():
    """With --play sd each final contract is scored on the SD table of its kind (four PIMC
    players), world ``i`` played as deal ``i`` of the seed: the naive scorer on
    sd_tables' points gives the same net score."""
    from bazarsim.players.batch import sd_tables

    q = _question(0, play="sd", sd_worlds=2)
    hands = np.unique(draw_worlds(q, 6, seed=5).hands, axis=0)  # judge_calls' own order
    calls = [Call(PASS), Call(BID, 9, 0)]
    results = judge_calls(q, hands, seed=5, calls=calls)
    rs = q.ruleset
    for r in results:
        for w in range(len(hands)):
            c = r.contracts[w]
            if c[0] < 0:
                assert r.net[w] == 0
                continue
            level, kind, declarer, capot, contra = int(c[2]), int(c[1]), int(c[0]), \
                bool(c[3]), int(c[4])
            name = {0: "S", 1: "H", 2: "D", 3: "C", 4: "BK", 5: "VK"}[kind]
            sd = sd_tables(hands[w:w + 1], dealer=q.dealer, ruleset=rs, kinds=[kind],
                           worlds=2, seed=5, indices=[w])
            ns, t = int(sd[f"{name}_sd_ns"][0]), int(sd[f"{name}_sd_tricks_ns"][0])
            ev = evaluate_deals(hands[w:w + 1], q.dealer, kind, rs)
            made, _m, s_ns, s_ew, _c = NS.score(
                rs, level, kind, declarer % 2, contra, capot, (ns, rs.total_points(kind) - ns),
                (8, 0) if t == 8 else (0, 8) if t == 0 else (4, 4),
                (int(ev["declarations_ns"][0]), int(ev["declarations_ew"][0])),
                (int(ev["bela_ns"][0]), int(ev["bela_ew"][0])))
            net = s_ns - s_ew if q.side == 0 else s_ew - s_ns
            assert r.net[w] == net and bool(r.made[w]) == bool(made)
