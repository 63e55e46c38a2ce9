"""``simulate --dd`` end to end against the batch DD tables alone, on the same deals.

The end-to-end run deals, evaluates, solves six kinds double dummy and writes Parquet;
the batch row only solves. Their ratio says what the rest of the pipeline costs (the
target: at least 90 % of the batch rate). Both are timed in this process, interleaved,
best of a few rounds, after a warm-up that compiles everything, on 2 Numba threads (or
fewer where Numba has fewer). The batch is timed twice a round, before and after the
end-to-end run (in turn first): the control row, the batch against itself, shows the
noise of the ratio.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from bazarsim.dd.batch import dd_tables
from bazarsim.deals.generator import DealGenerator
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.rules.rulesets import get_ruleset

from .common import numba_threads, row, thread_counts, threads_label


def collect(quick: bool) -> list[dict]:
    deals = 300 if quick else 2000
    rounds = 1 if quick else 3
    rs = get_ruleset("bazar")
    batch = DealGenerator(2026).deal(0, deals)
    index_dealers = np.arange(deals) & 3  # as simulate rotates the dealer
    best = {"batch": float("inf"), "again": float("inf"), "sim": float("inf")}
    threads = thread_counts((1, 2))[-1]
    tmp = Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    try:
        with numba_threads(threads):
            dd_tables(batch.hands[:4], dealer=index_dealers[:4], ruleset=rs)  # compile
            run_simulation(Simulation(deals=4, seed=1, columns="lean", dd=True), tmp / "warm")
            for r in range(rounds):
                order = ("batch", "sim", "again") if r % 2 == 0 else ("again", "sim", "batch")
                for what in order:
                    out = tmp / f"run{r}"
                    t0 = time.perf_counter()
                    if what == "sim":
                        run_simulation(Simulation(deals=deals, seed=2026, columns="lean",
                                                  dd=True, ruleset=rs), out)
                    else:
                        dd_tables(batch.hands, dealer=index_dealers, ruleset=rs)
                    best[what] = min(best[what], time.perf_counter() - t0)
                    shutil.rmtree(out, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    batch_rate, sim_rate = deals / best["batch"], deals / best["sim"]
    how = f"{deals} deals, {threads_label(threads)}, best of {rounds}"
    return [
        row("pipeline", "batch DD tables, 6 kinds", batch_rate, "deals/s", how),
        row("pipeline", "simulate --dd end to end, 6 kinds", sim_rate, "deals/s",
            f"deal + evaluate + DD + Parquet (lean); {sim_rate / batch_rate:.0%} of the "
            f"batch rate; {how}"),
        row("pipeline", "control: batch DD tables against itself", best["batch"]
            / best["again"], "x", f"A against A: the batch timed a second time in each round "
            f"(before or after the end-to-end run, in turn); {how} each; ideally x1.00, the "
            "noise of the percentage above"),
    ]
