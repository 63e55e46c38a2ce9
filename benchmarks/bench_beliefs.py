"""The auction as evidence: how well the weighted sampler uses its draws, what ``infer``
and a listening PIMC decision cost.

* ESS per draw: deals dealt from seed 2026, bid by the careful policy at every seat with
  the shipped hand model; the first 2, 3 or 4 calls of each auction (in turn) seen by the
  seat to speak next; the weighted worlds asked for an ESS of 200; the ratio of the ESS
  reached to every draw made (the pilot rounds included). Goal: a median of at least 10 %.
* infer: an ESS of 1,000 for three-call auctions, one core, kernels warm, model loaded.
* Listening PIMC players (ESS 20) against plain PIMC-20 players: each set of four plays
  out the same deals bid by careful, and only their decisions are timed; the ratio of the
  summed times (a seat's decisions after its first start from its fitted card weights).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from bazarsim.beliefs.evidence import (
    Evidence,
    bid_deal,
    load_hand_model,
    weighted_sample,
)
from bazarsim.beliefs.infer import infer
from bazarsim.beliefs.listener import ListeningPimcPlayer
from bazarsim.deals.generator import DealGenerator
from bazarsim.matches.policy import load_policy
from bazarsim.players.players import PimcPlayer
from bazarsim.players.view import PlayerView
from bazarsim.rules.auction import Auction
from bazarsim.rules.rulesets import get_ruleset

from .common import numba_threads, row

GROUP = "auction inference"


def policy_auctions(rs, model, n: int, seed: int = 2026):
    """``(hands, dealer, calls)`` of ``n`` deals bid by careful at every seat (redeals
    skipped)."""
    pol = load_policy("careful")
    pols = {s: pol for s in range(4)}
    out = []
    i = 0
    while len(out) < n:
        hands = [int(h) for h in DealGenerator(seed).deal(i, 1).hands[0]]
        dealer = i % 4
        a = bid_deal(hands, dealer, rs, pols, model)
        i += 1
        if a.contract is not None:
            out.append((hands, dealer, a.history))
    return out


def ess_ratios(rs, model, auctions, ess: float = 200.0) -> list[float]:
    pol = load_policy("careful")
    out = []
    z = np.zeros(4, np.int64)
    for j, (hands, dealer, calls) in enumerate(auctions):
        k = 2 + j % 3
        prefix = calls[:k]
        me = (dealer + 1 + k) % 4  # the seat to speak next
        ev = Evidence(rs, dealer, prefix, me, {s: pol for s in range(4) if s != me}, model)
        ww = weighted_sample(ev, hands[me], z, z, np.full(4, 8, np.int64), 0, z, ess, key=j)
        out.append(ww.ess / ww.draws)
    return out


def collect(quick: bool) -> list[dict]:
    rows: list[dict] = []
    for name in ("bazar", "bazar-blot"):
        rs = get_ruleset(name)
        model = load_hand_model(None, rs)
        n = 200 if quick else 1000
        auctions = policy_auctions(rs, model, n)
        with numba_threads(1):
            ess_ratios(rs, model, auctions[:3])  # compile
            r = ess_ratios(rs, model, auctions)
        q = np.quantile(r, [0.25, 0.5, 0.75])
        rows.append(row(GROUP, f"{name}: ESS per draw, 2-4 call auctions", 100 * q[1], "%",
                        f"median of {n} careful auctions (first 2, 3 or 4 calls, seen by the "
                        f"seat to speak next, ESS 200 asked); quartiles {100 * q[0]:.1f} - "
                        f"{100 * q[2]:.1f} %; {100 * np.mean(np.array(r) >= 0.1):.0f} % of "
                        "them at 10 % or more; pilot draws counted"))
        if name == "bazar":
            rows += _infer_time(rs, model, auctions, 10 if quick else 40)
            rows += _decision_cost(rs, model, auctions, 6 if quick else 30)
    return rows


def _infer_time(rs, model, auctions, n) -> list[dict]:
    times = []
    with numba_threads(1):
        for j, (hands, dealer, calls) in enumerate(auctions[: n + 1]):
            prefix = calls[:3]
            me = dealer  # the seat to speak after three calls
            text = " ".join(str(c) for _s, c in prefix)
            ev = Evidence(rs, dealer, prefix, me, {s: load_policy("careful") for s in range(4)
                                                   if s != me}, model)
            t0 = time.perf_counter()
            res = infer(rs, hands[me], me, dealer, text, ev, ess=1000.0, seed=j)
            if j:  # the first compiles
                times.append(time.perf_counter() - t0)
            assert res.worlds.ess >= 1000 or res.worlds.capped
    return [row(GROUP, "infer: ESS 1,000, three calls", statistics.median(times), "s",
                f"median of {n} careful auctions, one core, kernels warm, model loaded; max "
                f"{max(times):.2f} s")]


def _decision_cost(rs, model, auctions, n) -> list[dict]:
    """Whole play-outs: four listening players (ESS 20) and four plain PIMC-20 players
    each play the deals bid by careful; only their decisions are timed."""
    pol = load_policy("careful")
    totals = {"plain": [], "heard": []}
    with numba_threads(1):
        for j, (hands, dealer, calls) in enumerate(auctions[: n + 1]):
            a = Auction(dealer=dealer, ruleset=rs)
            for _s, c in calls:
                a.call(c)
            con = a.contract
            leader = (dealer + 1) % 4
            for kind in ("plain", "heard"):
                seats = ([PimcPlayer(20, seed=7) for _ in range(4)] if kind == "plain" else
                         [ListeningPimcPlayer({s: pol for s in range(4)}, model, 20, seed=7)
                          for _ in range(4)])
                hist: list = []
                spent = 0.0
                for _k in range(32):
                    seat = PlayerView(rs, con, dealer, leader, 0, 0, list(hist)).to_play()
                    view = PlayerView.from_deal(hands, con, hist, seat, dealer, rs,
                                                deal_index=j, auction=tuple(calls))
                    t0 = time.perf_counter()
                    card = seats[seat].decide(view).card
                    spent += time.perf_counter() - t0
                    hist.append((seat, card))
                if j:  # the first compiles
                    totals[kind].append(spent)
    ratio = sum(totals["heard"]) / sum(totals["plain"])
    per = [h / p for h, p in zip(totals["heard"], totals["plain"], strict=True)]
    return [row(GROUP, "listening PIMC play-out / plain PIMC-20", ratio, "x",
                f"total of {n} careful auctions played out by four of each (ESS 20 against 20 "
                f"worlds a decision, one core, decisions alone timed); per deal: median "
                f"{statistics.median(per):.2f}x, plain {statistics.median(totals['plain']):.2f}"
                f" s and listening {statistics.median(totals['heard']):.2f} s a deal "
                "(medians)")]
