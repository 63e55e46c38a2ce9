"""``simulate --dd`` on the Dask engine against the in-process engine, on this machine.

Three engines run the same DD-solved command (six kinds, lean columns) in one process
run: in-process (Numba threads on every core, its default chunk), a ``LocalCluster`` of 1
worker process (every core's Numba threads) and one of 2 single-threaded worker processes
(16 tasks each). The clusters
are started, and their workers have loaded the compiled kernels, before the clock starts
(a warm-up run); ratios against the in-process rate say what the task engine costs, and
deals/s per core is what a cluster of N cores multiplies (the README's estimate).
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from pathlib import Path

import numba

from bazarsim.engine.dask import DaskEngine, quiet_dask_logs
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.rules.rulesets import get_ruleset

from .common import row


def _timed(deals: int, chunk: int | None, out: Path, engine=None) -> float:
    sim = Simulation(deals=deals, seed=2026, columns="lean", dd=True, chunk=chunk,
                     ruleset=get_ruleset("bazar"))
    t0 = time.perf_counter()
    run_simulation(sim, out, engine=engine)
    elapsed = time.perf_counter() - t0
    shutil.rmtree(out)
    return elapsed


def collect(quick: bool) -> list[dict]:
    with quiet_dask_logs():
        return _collect(quick)


def _collect(quick: bool) -> list[dict]:
    from distributed import LocalCluster

    deals = 160 if quick else 1600
    chunk = deals // 16  # 16 tasks: both workers busy to the end
    rounds = 1 if quick else 2
    cores = os.cpu_count() or 1
    tmp = Path(tempfile.mkdtemp(prefix="bench-dask-"))
    best: dict[str, float] = {}
    started: dict[int, float] = {}
    try:
        run_simulation(
            Simulation(deals=8, seed=1, columns="lean", dd=True), tmp / "warm")  # compile
        clusters = {}
        for n in (1, 2):
            t0 = time.perf_counter()
            clusters[n] = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.CRITICAL)
            engine = DaskEngine(scheduler=clusters[n].scheduler_address,
                                numba_threads=max(1, cores // n))
            _timed(2 * n, 1, tmp / f"warm{n}", engine)  # workers load the kernels
            started[n] = time.perf_counter() - t0
        try:
            for r in range(rounds):  # interleaved: the machine's noise hits all three
                for name, engine in (("local", None), *(
                        (f"dask{n}", DaskEngine(scheduler=c.scheduler_address,
                                                numba_threads=max(1, cores // n)))
                        for n, c in clusters.items())):
                    # in-process: its default chunk (all the deals at once), as users run it
                    t = _timed(deals, chunk if engine else None, tmp / f"{name}-{r}", engine)
                    best[name] = min(best.get(name, float("inf")), t)
        finally:
            for c in clusters.values():
                c.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rate = {k: deals / v for k, v in best.items()}
    local_threads = numba.get_num_threads()  # what the in-process run used
    note = f"{deals} deals, 6 kinds, lean, best of {rounds}"
    return [
        row("dask", "simulate --dd in-process", rate["local"], "deals/s",
            f"{note}; default chunk; {local_threads} Numba threads on {cores} cores"),
        row("dask", "simulate --dd --workers 1", rate["dask1"], "deals/s",
            f"{rate['dask1'] / rate['local']:.2f} x in-process; {note}; {deals // chunk} "
            "tasks; 1 worker process, "
            f"{cores} Numba threads; cluster up in {started[1]:.1f} s (not timed)"),
        row("dask", "simulate --dd --workers 2", rate["dask2"], "deals/s",
            f"{rate['dask2'] / rate['local']:.2f} x in-process, "
            f"{rate['dask2'] / rate['dask1']:.2f} x 1 worker; 2 worker processes of "
            f"{max(1, cores // 2)} Numba thread{'s' * (cores // 2 > 1)}; {note}; cluster up "
            f"in {started[2]:.1f} s (not timed)"),
        row("dask", "simulate --dd per core (2 workers)", rate["dask2"] / min(2, cores),
            "deals/s/core", "from the rows above (--workers 2 / 2); N cores on a cluster: "
            "about N x this, less the scheduler's few ms a task"),
    ]
