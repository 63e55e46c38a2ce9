"""Bidding by simulation: what a simulated call and ``analyze --auction`` cost.

* A simulated call: the shipped ``simulation`` policy (200 worlds, double dummy) at N-S
  against careful at E-W, on deals dealt from seed 2028 (bazar); only the calls it
  simulates are timed (the clear ones cost nothing), one Numba thread, kernels warm, the
  model loaded. Goal: at most 1 s (BEN's 1-2 s a call is the anchor).
* ``analyze --auction`` with 1,000 worlds on 2 threads: the question of the seat to speak
  after the first two calls of careful auctions (seed 2029), from the worlds' draw to the
  ranked table. Goal: at most 10 s.
"""

from __future__ import annotations

import statistics
import time

from bazarsim.beliefs.evidence import bid_deal, load_hand_model
from bazarsim.deals.generator import DealGenerator
from bazarsim.matches.policy import load_policy
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.simbid.advice import SEVENS, analyze_auction, auction_query
from bazarsim.simbid.bidder import SimulationBidder

from .common import numba_threads, row

GROUP = "bidding by simulation"


class TimedBidder(SimulationBidder):
    """The simulation bidder, its simulated calls timed."""

    times: list[float] = []

    def call(self, auction, view):
        before = self.stats["simulated"]
        t0 = time.perf_counter()
        out = super().call(auction, view)
        if self.stats["simulated"] > before:
            TimedBidder.times.append(time.perf_counter() - t0)
        return out


def _call_times(rs, model, deals: int) -> list[float]:
    sim, careful = load_policy("simulation"), load_policy("careful")
    pols = {0: sim, 1: careful, 2: sim, 3: careful}
    gen = DealGenerator(2028)

    def make(policy, m, seed):
        return TimedBidder(policy, m, seed) if policy.simulates else None

    with numba_threads(1):
        bid_deal(gen.deal(0, 1).hands[0], 0, rs, pols, model, key=0, bidders=make)  # compile
        TimedBidder.times = []
        for i in range(1, deals + 1):
            hands = gen.deal(i, 1).hands[0]
            if any(int(h) & SEVENS == SEVENS for h in hands):
                continue  # four sevens: the deal is void in bazar, nobody bids
            bid_deal(hands, i % 4, rs, pols, model, key=i, bidders=make)
    return list(TimedBidder.times)


def _analyze_times(rs, model, questions: int) -> list[float]:
    careful = load_policy("careful")
    pols = {s: careful for s in range(4)}
    gen = DealGenerator(2029)
    out = []
    i = 0
    with numba_threads(2):
        while len(out) < questions + 1:
            hands = [int(h) for h in gen.deal(i, 1).hands[0]]
            dealer = i % 4
            i += 1
            if any(h & SEVENS == SEVENS for h in hands):
                continue
            a = bid_deal(hands, dealer, rs, pols, model)
            if len(a.history) < 3 or a.contract is None:
                continue
            calls = a.history[:2]
            seat = (dealer + 3) % 4
            q = auction_query(rs, hands[seat], seat, dealer,
                              " ".join(str(c) for _s, c in calls), model=model)
            t0 = time.perf_counter()
            analyze_auction(q, 1000, seed=i)
            out.append(time.perf_counter() - t0)
    return out[1:]  # the first compiles


def collect(quick: bool = False) -> list[dict]:
    rs = get_ruleset("bazar")
    model = load_hand_model(None, rs)
    calls = _call_times(rs, model, 15 if quick else 60)
    questions = _analyze_times(rs, model, 3 if quick else 12)
    q = statistics.quantiles(calls, n=10)
    return [
        row(GROUP, "simulated call: 200 worlds, DD, one core", statistics.median(calls), "s",
            f"median of the {len(calls)} calls the simulation policy simulated at N-S in "
            f"deals of seed 2028 (bazar; careful at E-W); 90th percentile {q[-1]:.2f} s, "
            f"slowest {max(calls):.2f} s; one Numba thread, kernels warm (goal 1 s)"),
        row(GROUP, "analyze --auction: 1,000 worlds, 2 cores", statistics.median(questions),
            "s", f"median of {len(questions)} questions (the seat to speak after two calls of "
            f"careful auctions, seed 2029, bazar); slowest {max(questions):.2f} s; worlds "
            "drawn, every candidate played on and scored; 2 Numba threads (goal 10 s)"),
    ]
