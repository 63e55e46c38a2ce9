"""The auction as evidence: how well the weighted sampler uses its draws, what ``infer``
and a listening PIMC decision cost.

* ESS per draw: deals dealt from seed 2026, bid by the careful policy at every seat with
  the shipped hand model; the first 2, 3 or 4 calls of each auction (in turn) seen by the
  seat to speak next; the weighted worlds asked for an ESS of 200; the ratio of the ESS
  reached to every draw made (the pilot rounds included). Goal: a median of at least 10 %.
* infer: an ESS of 1,000 for three-call auctions, one core, kernels warm, model loaded.
* A listening PIMC decision (ESS 20) against a plain PIMC-20 decision on the same views:
  first leads and the first card of trick 3 of deals bid by careful, both players timed
  in turn on each view; the ratio of the summed times.
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
from bazarsim.beliefs.listener import ListeningPimcPlayer
from bazarsim.deals.generator import DealGenerator
from bazarsim.matches.policy import load_policy
from bazarsim.players.players import PimcPlayer
from bazarsim.players.view import PlayerView
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
    from bazarsim.beliefs.infer import infer
    from bazarsim.rules.auction import Auction

    pol_name = "careful"
    times = []
    with numba_threads(1):
        for j, (hands, dealer, calls) in enumerate(auctions[: n + 1]):
            prefix = calls[:3]
            me = (dealer + 4) % 4  # the dealer: the seat to speak after three calls
            a = Auction(dealer=dealer, ruleset=rs)
            for _s, c in prefix:
                a.call(c)
            text = " ".join(str(c) for _s, c in prefix)
            ev = Evidence.from_text(rs, dealer, text, me, pol_name)
            t0 = time.perf_counter()
            res = infer(rs, hands[me], me, dealer, text, ev, ess=1000.0, seed=j)
            if j:  # the first compiles
                times.append(time.perf_counter() - t0)
            assert res.worlds.ess >= 1000 or res.worlds.capped
    return [row(GROUP, "infer: ESS 1,000, three calls", statistics.median(times), "s",
                f"median of {n} careful auctions, one core, kernels warm, model loaded; max "
                f"{max(times):.2f} s")]


def _decision_cost(rs, model, auctions, n) -> list[dict]:
    pol = load_policy("careful")
    plain_t, heard_t = [], []
    with numba_threads(1):
        for j, (hands, dealer, calls) in enumerate(auctions[: n + 1]):
            from bazarsim.rules.auction import Auction

            a = Auction(dealer=dealer, ruleset=rs)
            for _s, c in calls:
                a.call(c)
            con = a.contract
            leader = (dealer + 1) % 4
            views = [PlayerView.from_deal(hands, con, [], leader, dealer, rs, deal_index=j,
                                          auction=tuple(calls))]
            plain = PimcPlayer(20, seed=7)
            heard = ListeningPimcPlayer({s: pol for s in range(4)}, model, 20, seed=7)
            # trick 3's first card: play two tricks with the plain player
            hist: list = []
            for _k in range(8):
                v = PlayerView.from_deal(hands, con, hist, _to_play(hist, leader, rs, con),
                                         dealer, rs, deal_index=j)
                hist.append((v.seat, plain.decide(v).card))
            views.append(PlayerView.from_deal(hands, con, hist, _to_play(hist, leader, rs,
                                                                          con),
                                              dealer, rs, deal_index=j, auction=tuple(calls)))
            for view in views:
                for who, bucket in ((plain, plain_t), (heard, heard_t)):
                    t0 = time.perf_counter()
                    who.decide(view)
                    if j:
                        bucket.append(time.perf_counter() - t0)
    ratio = sum(heard_t) / sum(plain_t)
    return [row(GROUP, "listening PIMC decision / plain PIMC-20", ratio, "x",
                f"total of {len(heard_t)} decisions each (first leads and trick 3's first "
                f"card of {n} careful auctions), ESS 20 against 20 worlds, in turn, one "
                f"core; plain {1000 * statistics.median(plain_t):.1f} ms, listening "
                f"{1000 * statistics.median(heard_t):.1f} ms (medians)")]


def _to_play(hist, leader, rs, con) -> int:
    from bazarsim.players.playout import _to_play as to_play

    return to_play(hist, leader, rs, con.kind)
