"""``simulate --dd`` end to end against the batch DD tables alone, on the same deals.

The end-to-end run deals, evaluates, solves six kinds double dummy and writes Parquet;
the batch row only solves. Their ratio says what the rest of the pipeline costs (the
target: at least 90 % of the batch rate). Both are timed in this process, interleaved,
best of a few rounds, after a warm-up that compiles everything.
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

from .common import row


def collect(quick: bool) -> list[dict]:
    deals = 300 if quick else 2000
    rounds = 1 if quick else 3
    rs = get_ruleset("bazar")
    batch = DealGenerator(2026).deal(0, deals)
    index_dealers = np.arange(deals) & 3  # as simulate rotates the dealer
    best_batch = best_sim = float("inf")
    tmp = Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    try:
        dd_tables(batch.hands[:4], dealer=index_dealers[:4], ruleset=rs)  # compile
        run_simulation(Simulation(deals=4, seed=1, columns="lean", dd=True), tmp / "warm")
        for r in range(rounds):
            t0 = time.perf_counter()
            dd_tables(batch.hands, dealer=index_dealers, ruleset=rs)
            best_batch = min(best_batch, time.perf_counter() - t0)
            out = tmp / f"run{r}"
            t0 = time.perf_counter()
            run_simulation(
                Simulation(deals=deals, seed=2026, columns="lean", dd=True, ruleset=rs), out)
            best_sim = min(best_sim, time.perf_counter() - t0)
            shutil.rmtree(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    batch_rate, sim_rate = deals / best_batch, deals / best_sim
    return [
        row("pipeline", "batch DD tables, 6 kinds", batch_rate, "deals/s",
            f"{deals} deals, best of {rounds}"),
        row("pipeline", "simulate --dd end to end, 6 kinds", sim_rate, "deals/s",
            f"deal + evaluate + DD + Parquet (lean); {sim_rate / batch_rate:.0%} of the "
            "batch rate"),
    ]
