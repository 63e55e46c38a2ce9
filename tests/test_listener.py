"""Players that listen, and the commands of the auction as evidence: ``infer`` and ``play
--auction``.

References: the weighted PIMC values against plain minimax (tests/naive_play.py) per world;
``infer``'s printed figures against plain numpy over every consistent world, each weighted
by the Python policy (tests/test_beliefs.py); the listener's decisions against the plain
PIMC player where nothing is heard."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest
from typer.testing import CliRunner

from bazarsim.beliefs.listener import ListeningPimcPlayer, resample
from bazarsim.cli import app
from bazarsim.core.cards import format_card
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.dd.search import DEFAULT_TT_BITS, O_ALL, new_context
from bazarsim.evaluate.hands import evaluate_hands
from bazarsim.matches.policy import load_policy, policy_toml
from bazarsim.players.pimc import O_POINTS, decide_worlds
from bazarsim.players.players import PimcPlayer
from bazarsim.players.playout import play_deal
from bazarsim.players.view import PlayerView
from bazarsim.players.worlds import all_worlds
from bazarsim.rules.auction import parse_contract, run_auction
from bazarsim.rules.play import contract_play
from bazarsim.rules.rulesets import get_ruleset

from . import naive_play as NP
from .test_beliefs import PythonWeights, deal, synthetic_model
from .test_players import cards_of, random_deal, text

runner = CliRunner()


def test_weighted_values_are_weighted_means_of_minimax():
    """decide_worlds over every world of a late position with random weights: each legal
    card's value is the weighted mean of plain minimax over the worlds, the best card the
    side's best (bazar, every kind, 12 positions)."""
    rs = get_ruleset("bazar")
    rng = np.random.default_rng(4)
    ctx = new_context(DEFAULT_TT_BITS, O_ALL)
    values = np.empty(32)
    for case in range(12):
        kind = case % 6
        play = contract_play(rs, kind)
        hands = [sum(1 << c for c in cards_of(h)[:2]) for h in random_deal(rng)]
        gone = 0xFFFFFFFF & ~(hands[0] | hands[1] | hands[2] | hands[3])
        leader, me = 0, 0
        z = np.zeros(4, np.int64)
        counts = np.full(4, 2, np.int64)
        worlds = np.array(all_worlds(me, hands[me], z, z, counts, gone), np.int64)
        w = rng.random(len(worlds))
        card = decide_worlds(np.int64(me), np.int64(hands[me]), worlds, w, np.int64(gone),
                             np.int64(leader), np.zeros(4, np.int64), np.int64(0), play, ctx,
                             O_POINTS, 0, np.int64(0), values)
        legal = NP.legal([text(c) for c in cards_of(hands[me])], 0, [], KIND_NAMES[kind],
                         NP.RULES["bazar"])
        if len(legal) == 1:
            continue
        for c in cards_of(hands[me]):
            ns = []
            for world in worlds:
                h = [[text(x) for x in cards_of(int(world[s]))] for s in range(4)]
                h[me] = [x for x in h[me] if x != text(c)]
                ns.append(NP.minimax(h, leader, KIND_NAMES[kind], NP.RULES["bazar"],
                                     [(me, text(c))]))
            assert values[c] == pytest.approx(np.average(ns, weights=w))
        assert values[card] == max(values[c] for c in cards_of(hands[me]))


def test_resampling_counts():
    """Systematic resampling takes n worlds, each floor or ceil of n times its weight."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        w = rng.random(int(rng.integers(1, 50))) ** 3
        w /= w.sum()
        n = int(rng.integers(1, 40))
        t = resample(w, n, float(rng.random()))
        assert t.sum() == n
        assert (t >= np.floor(n * w) - 1e-9).all() and (t <= np.ceil(n * w) + 1e-9).all()


def _listener(rs, seed=7, worlds=8):
    pol = load_policy("careful")
    return ListeningPimcPlayer({s: pol for s in range(4)}, synthetic_model(rs, 2), worlds,
                               seed=seed)


def test_listener_without_calls_is_plain_pimc():
    """No auction, or one where only the deciding seat spoke (E opens 8H, dealer N, E
    leads): the plain player's decision (card, values, worlds), bit for bit."""
    rs = get_ruleset("bazar")
    hands = deal(np.random.default_rng(3))
    con = parse_contract("8H", "E", 0, rs)
    plain = PimcPlayer(8, seed=7)
    own_call = tuple(run_auction("8H", 0, rs).history)  # E's call alone
    for auction in ((), own_call):
        view = PlayerView.from_deal(hands, con, [], 1, 0, rs, auction=auction)
        a, b = _listener(rs).decide(view), plain.decide(view)
        assert (a.card, a.values, a.worlds, a.ess) == (b.card, b.values, b.worlds, None)


def test_listener_reads_no_hidden_card():
    """The first lead of a listening player over three layouts of the hidden cards (the
    same hand and auction): the same card, values and ESS."""
    rs = get_ruleset("bazar")
    rng = np.random.default_rng(9)
    hands = deal(rng)
    state = run_auction("8H P P P P", 0, rs)  # E opens 8H; dealer N
    con = state.contract
    me = 1  # E leads first (the dealer's left)
    out = []
    for _ in range(3):
        rest = [c for c in range(32) if not hands[me] >> c & 1]
        perm = rng.permutation(rest)
        layout = [0, 0, 0, 0]
        layout[me] = hands[me]
        for k, s in enumerate(x for x in range(4) if x != me):
            layout[s] = int(sum(1 << int(c) for c in perm[8 * k: 8 * k + 8]))
        view = PlayerView.from_deal(layout, con, [], me, 0, rs, auction=state.history)
        d = _listener(rs).decide(view)
        out.append((d.card, d.values, d.ess, d.draws))
    assert out[0] == out[1] == out[2]


def test_play_with_auction_listens_and_records(tmp_path):
    """play --auction: the contract is the auction's, each decision's ESS and draws are in
    the record, the same seed gives the same record, and --infer without auction plays as
    the plain players."""
    rs = get_ruleset("bazar")
    model = tmp_path / "model.json"
    synthetic_model(rs, 2).save(model)
    deal_text = "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97"
    args = ["play", deal_text, "--auction", "P 8D P P P P", "--dealer", "W", "-w", "4",
            "--model", str(model), "-f", "json"]
    r1 = runner.invoke(app, args)
    assert r1.exit_code == 0, r1.output
    rec = json.loads(r1.output)
    assert rec["contract"] == "8D" and rec["declarer"] == "E" and rec["listening"]
    cards = [c for t in rec["tricks"] for c in t["cards"]]
    heard = [c for c in cards if "ess" in c]
    assert heard and all(c["draws"] >= 1 and c["ess"] > 0 for c in heard)
    assert json.loads(runner.invoke(app, args).output) == rec
    deaf = json.loads(runner.invoke(app, [*args, "--infer", "voids,limits,bela,shown"]).output)
    assert not deaf["listening"] and all("ess" not in c for t in deaf["tricks"]
                                         for c in t["cards"])
    plain = play_deal(parse_hand_deal(deal_text), "8D", "E", worlds=4, dealer=3, ruleset=rs)
    assert [c["card"] for t in plain["tricks"] for c in t["cards"]] == [
        c["card"] for t in deaf["tricks"] for c in t["cards"]]


def parse_hand_deal(text_: str):
    from bazarsim.core.cards import parse_deal

    return parse_deal(text_)


# --------------------------------------------------------------------------- infer


def _played_after_tricks(rs, hands, con, dealer, tricks):
    """``(seat, card)`` of the first ``tricks`` tricks, each seat playing its lowest legal
    card."""
    play = contract_play(rs, con.kind)
    from bazarsim.players.view import next_seat, winner_seat
    from bazarsim.rules.play import legal_cards

    cur = list(hands)
    leader = (dealer + 1) % 4
    out = []
    for _t in range(tricks):
        trick = []
        for i in range(4):
            s = next_seat(leader, i, rs)
            tr = np.zeros(4, np.int64)
            tr[:i] = trick
            legal = int(legal_cards(np.int64(cur[s]), tr, i, play.strength, play.above,
                                    play.rules))
            c = (legal & -legal).bit_length() - 1
            trick.append(c)
            cur[s] &= ~(1 << c)
            out.append((s, c))
        leader = winner_seat(trick, leader, rs, con.kind)
    return out


@pytest.mark.parametrize("ruleset, auction, dealer", [("bazar", "8H P 9S P P P P", 0),
                                                      ("bazar-blot", "P 8C P 9D P P P P", 1)])
def test_infer_figures_against_enumeration(tmp_path, ruleset, auction, dealer):
    """infer -f json after 5 tricks (few enough worlds to take them all): every figure (the
    points and strength with their SEs, lengths, card and bela chances) equals plain numpy
    over every consistent world weighted by the Python policy (hard, with the floor)."""
    rs = get_ruleset(ruleset)
    model = synthetic_model(rs, 6)
    model_path = tmp_path / "model.json"
    model.save(model_path)
    pol = replace(load_policy("careful"), likelihood_softness=0.0)
    pol_path = tmp_path / "hard.toml"
    pol_path.write_text(policy_toml(pol))
    rng = np.random.default_rng(17)
    hands = deal(rng)
    state = run_auction(auction, dealer, rs)
    con = state.contract
    seated = _played_after_tricks(rs, hands, con, dealer, 5)
    cards = [c for _s, c in seated]
    me = 2
    r = runner.invoke(app, [
        "infer", format_hand_text(hands[me]), "--seat", "S", "--dealer", "NESW"[dealer],
        "--auction", auction, "--played", " ".join(format_card(c) for c in cards),
        "--policy", str(pol_path), "--model", str(model_path), "-r", ruleset, "-f", "json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    assert got["exhaustive"]
    # the reference: the view's constraints, every world, Python-policy weights
    view = PlayerView.from_deal(hands, con, seated, me, dealer, rs)
    fixed, forbid, counts, _g = view.constraints(3)  # voids and limits, as infer reads
    played = sum(1 << c for c in cards)
    worlds = all_worlds(me, view.hand, fixed, forbid, counts, played)
    played_by = np.zeros(4, np.int64)
    for s, c in view.history:
        played_by[s] |= 1 << c
    weight = PythonWeights(rs, model, dealer, state.history, me, pol)
    w = np.array([weight(x, played_by) for x in worlds])
    w /= w.sum()
    h = np.array(worlds, np.int64)
    kind = con.kind
    assert got["kind"] == KIND_NAMES[kind]
    for b in got["seats"]:
        s = "NESW".index(b["seat"])
        dealt = (h[:, s] | played_by[s]).astype(np.uint32)
        ev = evaluate_hands(dealt, kind, rs)
        pts = ev["points"].astype(float)
        strength = pts + ev["declaration_points"] + 20 * ev["belas"]
        for name, x in (("points", pts), ("strength", strength)):
            mean = w @ x
            se = math.sqrt(np.sum(w * w * (x - mean) ** 2))
            assert b[name] == pytest.approx(mean, abs=0.006)
            assert b[f"{name}_se"] == pytest.approx(se, abs=0.006)
        for c in range(32):
            assert b["card"][format_card(c)] == pytest.approx(w @ ((h[:, s] >> c) & 1),
                                                              abs=6e-5)
        for suit in range(4):
            n = np.array([bin((int(x) >> (8 * suit)) & 0xFF).count("1") for x in h[:, s]])
            ref = [w @ (n == k) for k in range(9)]
            assert b["length"]["SHDC"[suit]] == pytest.approx(ref, abs=6e-5)
        kq = ((dealt.astype(np.int64) >> (8 * kind)) & 0x60) == 0x60
        assert b["bela"] == pytest.approx(w @ kq, abs=6e-5)


def format_hand_text(mask: int) -> str:
    from bazarsim.core.cards import format_hand

    return format_hand(mask)


@pytest.mark.parametrize("args, message", [
    (["--auction", "8H P 7S"], "call 3 (7S by W) is illegal"),
    (["--auction", "8H P P P P X"], "comes after the end of the auction"),
    (["--auction", "8H P Z"], "bad call 'Z'"),
    (["--auction", "8H", "--policy", "E=nosuch"], "no policy file 'nosuch'"),
    (["--auction", "8H", "--policy", "Q=bold"], "not a seat"),
    (["--auction", "8H", "-r", "belote-fr"], "bid time"),
    (["--auction", "8H", "--played", "7S"], "finished auction"),
    (["--auction", "8H P P P P", "--played", "AS"], "in S's hand"),
    (["--auction", "8H", "--ess", "0"], "--ess 0"),
    (["--auction", "8H", "--score", "abc"], "--score 'abc'"),
    (["--auction", "8H", "--kinds", "Q"], "contract kind"),
])
def test_infer_bad_input_is_one_error_line(tmp_path, args, message):
    rs = get_ruleset("bazar")
    model = tmp_path / "model.json"
    synthetic_model(rs).save(model)
    r = runner.invoke(app, ["infer", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "N",
                            "--model", str(model), *args])
    assert r.exit_code != 0
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], r.output


def test_infer_table_and_page(tmp_path):
    """The table names every other seat with its calls; the page is written with its heat
    map (tests/test_report_html.py checks it in Chromium)."""
    rs = get_ruleset("bazar")
    model = tmp_path / "model.json"
    synthetic_model(rs).save(model)
    page = tmp_path / "infer.html"
    r = runner.invoke(app, ["infer", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "N",
                            "--auction", "P 10H P", "--model", str(model), "--ess", "200",
                            "--html", str(page)])
    assert r.exit_code == 0, r.output
    assert "ESS" in r.output and "JH" in r.output
    text_ = page.read_text()
    assert "<svg" in text_ and "P(holds)" in text_


def test_a_call_the_policy_never_makes_is_named(tmp_path):
    """careful never opens above the lowest level (no jumps): E's opening 9H is weighed by
    the floor alone, and infer says so; E's 8H is heard."""
    rs = get_ruleset("bazar")
    model = tmp_path / "model.json"
    synthetic_model(rs).save(model)
    base = ["infer", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "N", "--model", str(model),
            "--ess", "100", "-f", "json"]
    jump = json.loads(runner.invoke(app, [*base, "--auction", "9H"]).output)
    assert jump["silent_calls"] == ["E 9H"]
    low = json.loads(runner.invoke(app, [*base, "--auction", "8H"]).output)
    assert low["silent_calls"] == []
