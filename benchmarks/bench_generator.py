"""Dealing throughput: the counter-based Numba dealer at 1 and 2 threads against a NumPy
dealer (argsort of 32 random keys per deal) in the same run; generation alone,
generation + evaluation, and end to end to Parquet."""

from __future__ import annotations

import shutil
import tempfile
import time

import numpy as np

from bazarsim.deals.constraints import parse_constraints
from bazarsim.deals.generator import DealBatch, DealGenerator, numpy_deal
from bazarsim.deals.numbering import deal_numbers
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.evaluate.hands import evaluate_deals_kernel, evaluate_hands_kernel
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.rulesets import get_ruleset

from .common import median_of, median_time, numba_threads, row, thread_counts, threads_label

GROUP = "dealing"


class NumpyGenerator:
    """The NumPy baseline beside :class:`~bazarsim.deals.generator.DealGenerator`."""

    def __init__(self, seed: int):
        self.seed = seed

    def deal(self, start: int, n: int) -> DealBatch:
        hands = numpy_deal(np.random.default_rng([self.seed, start]), n)
        return DealBatch(start, hands, deal_numbers(hands), np.ones(n, np.int64))


def _evaluate(hands: np.ndarray, t, kinds) -> None:
    n = hands.shape[0]
    flat = hands.reshape(-1)
    outs = [np.empty(4 * n, d) for d in (np.int16, np.int8, np.int8, np.int8, np.int8, np.int8,
                                         np.int16, np.int32, np.uint8)]
    douts = [np.empty(n, d) for d in (np.int8, np.int8, np.int16, np.int16, np.int16, np.int16,
                                      np.bool_, np.bool_)]
    dealers = np.zeros(n, np.int8)
    for kind in kinds:
        evaluate_hands_kernel(flat, kind, t, *outs)
        evaluate_deals_kernel(hands, dealers, kind, t, *douts)


def _e2e(dealer_factory, n: int, chunk: int, kinds, columns: str) -> float:
    """Deals/s of a whole simulation run into a fresh directory (compiled beforehand)."""
    tmp = tempfile.mkdtemp(prefix="bazarsim-bench-")
    try:
        warm = Simulation(deals=2000, seed=1, kinds=kinds, chunk=1000, columns=columns)
        warm.generator = dealer_factory()
        run_simulation(warm, f"{tmp}/warm")
        sim = Simulation(deals=n, seed=1, kinds=kinds, chunk=chunk, columns=columns)
        sim.generator = dealer_factory()
        return n / median_time(lambda: run_simulation(sim, f"{tmp}/run"), repeats=1, warmup=0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def collect(quick: bool) -> list[dict]:
    n = 2_000_000 if quick else 8_000_000
    n_e2e = 1_000_000 if quick else 4_000_000
    repeats = 3 if quick else 5
    how = median_of(repeats)
    rs = get_ruleset("bazar")
    t = compiled_rules(rs)
    dealer = DealGenerator(1)
    counts = thread_counts((1, 2))
    most = counts[-1]  # the NumPy dealer's rows run Numba's evaluation on this many
    rows = []
    numpy_rate = n / median_time(lambda: numpy_deal(np.random.default_rng(1), n),
                                 repeats=repeats)
    rows.append(row(GROUP, "generate: NumPy argsort dealer", numpy_rate, "deals/s",
                    f"baseline, 1 thread (NumPy); {n:,} deals, {how}"))
    for threads in counts:
        with numba_threads(threads):
            rate = n / median_time(lambda: dealer.deal(0, n), repeats=repeats)
            cpu = n / median_time(lambda: dealer.deal(0, n), repeats, clock=time.process_time)
        rows.append(row(GROUP, f"generate: Numba dealer, {threads} thread(s)", rate, "deals/s",
                        f"{rate / numpy_rate:.1f}x NumPy; with deal numbers; {how}"))
        rows.append(row(GROUP, f"generate: Numba dealer, {threads} thread(s), per CPU-second",
                        cpu, "deals/cpu-s", "deals per second of CPU time used: the rate "
                        f"per free core when the machine is shared; {how} (CPU time)"))
    fixed = DealGenerator(1, parse_constraints(["S=AJ9.K7.Q.T8"]))
    with numba_threads(most):
        rate = n / median_time(lambda: fixed.deal(0, n), repeats=repeats)
        cpu = n / median_time(lambda: fixed.deal(0, n), repeats, clock=time.process_time)
    rows.append(row(GROUP, f"generate: South's 8 cards fixed, {threads_label(most)}", rate,
                    "deals/s", f"{rate / numpy_rate:.1f}x NumPy; only the 24 unseen cards "
                    f"dealt; {how}"))
    rows.append(row(GROUP, "generate: South's 8 cards fixed, per CPU-second", cpu,
                    "deals/cpu-s", f"{threads_label(most)}; compare with the unconstrained "
                    f"rate per CPU-second; {how} (CPU time)"))
    for label, kinds in (("H", (1,)), ("all 6 kinds", tuple(rs.kinds))):
        with numba_threads(most):
            np_rate = n / median_time(
                lambda kinds=kinds: _evaluate(numpy_deal(np.random.default_rng(2), n), t,
                                              kinds),
                repeats=repeats)
        rows.append(row(GROUP, f"generate + evaluate {label}: NumPy dealer", np_rate, "deals/s",
                        f"NumPy dealing, Numba evaluation ({threads_label(most)}); {how}"))
        for threads in counts:
            with numba_threads(threads):
                rate = n / median_time(
                    lambda kinds=kinds: _evaluate(dealer.deal(0, n).hands, t, kinds),
                    repeats=repeats)
            rows.append(row(GROUP, f"generate + evaluate {label}: Numba, {threads} thread(s)",
                            rate, "deals/s", f"{rate / np_rate:.1f}x NumPy dealer; {how}"))
    chunk = 1 << 20
    cases = (("H, lean columns", (1,), "lean", n_e2e),
             ("all 6 kinds, full columns", tuple(rs.kinds), "full", n_e2e // 4))
    for label, kinds, columns, m in cases:
        with numba_threads(most):
            np_rate = _e2e(lambda: NumpyGenerator(1), m, chunk, kinds, columns)
        rows.append(row(GROUP, f"end to end to Parquet, {label}: NumPy dealer", np_rate,
                        "deals/s", f"{m:,} deals, zstd-1 parts of 2^20, Numba evaluation on "
                        f"{threads_label(most)}; one run"))
        for threads in counts:
            with numba_threads(threads):
                rate = _e2e(lambda: DealGenerator(1), m, chunk, kinds, columns)
            rows.append(row(GROUP, f"end to end to Parquet, {label}: Numba, {threads} thread(s)",
                            rate, "deals/s", f"{rate / np_rate:.2f}x NumPy dealer; "
                            f"{threads_label(threads)} of Numba (Parquet written by the "
                            "writer threads as well); one run"))
    return rows
