"""``bazarsim compile``: compile the Numba kernels now, one family per process.

Every kernel is compiled on its first call and cached on disk (``cache=True``), so the
first command after an install pays for what it uses. This command pays for all of it at
once, on every core: each kernel family compiles in its own process, the longest first.
The solver's two entry points (one position: ``solve``; many deals: DD tables) compile in
two processes: on two cores that is sooner than one after the other, though both compile
the search. Cached families only load, in a second or two. ``make test`` and ``make run``
start with it; ``benchmarks/bench_compile.py`` times the same families one by one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import Annotated

import typer

from bazarsim.cli.common import command


def _solver() -> None:
    from bazarsim.dd.solver import Solver
    from bazarsim.deals.numbering import deal_from_number

    Solver().solve(deal_from_number(0), "H", "E")


def _dd_tables() -> None:
    import numpy as np

    from bazarsim.dd.batch import dd_tables
    from bazarsim.deals.numbering import deal_from_number

    dd_tables(np.asarray(deal_from_number(0), np.uint32).reshape(1, 4))


def _evaluation() -> None:
    import numpy as np

    from bazarsim.evaluate.hands import evaluate_deals, evaluate_hands

    evaluate_hands(np.arange(64, dtype=np.uint32), "H")
    evaluate_deals(np.array([[255, 255 << 8, 255 << 16, 255 << 24]], np.uint32), 0, "H")


def _dealing() -> None:
    from bazarsim.deals.bidtime import bid_time, bid_time_cards
    from bazarsim.deals.constraints import parse_constraints
    from bazarsim.deals.generator import DealGenerator
    from bazarsim.deals.numbering import deal_numbers, deals_from_numbers
    from bazarsim.rules.rulesets import get_ruleset

    hands = DealGenerator(1).deal(0, 100).hands
    deals_from_numbers(deal_numbers(hands))
    fixed = parse_constraints(["S=AJ9.K7.Q.T8"], ["len(N,H)>=3"])
    DealGenerator(1, fixed).deal(0, 10)
    bid_time_cards(1, 0, hands, bid_time(get_ruleset("belote-fr")))


def _scoring() -> None:
    import numpy as np

    from bazarsim.rules.scoring import score_deals

    score_deals(None, level=np.array([8]), kind=np.array([1]), declarer_side=np.array([0]),
                points=np.array([[100, 62]]), tricks=np.array([[5, 3]]),
                declarations=np.zeros((1, 2), int), bela=np.zeros((1, 2), int))


# family -> the first calls that compile it (under a minute for the solver's entry points,
# seconds for the others), longest first
FAMILIES: dict[str, Callable[[], None]] = {
    "DD tables": _dd_tables,
    "solver": _solver,
    "evaluation": _evaluation,
    "dealing": _dealing,
    "scoring": _scoring,
}


def compile_family(name: str) -> tuple[str, float, float]:
    """Compile one family in this process: ``(name, seconds, peak MB)``."""
    import resource

    t0 = time.perf_counter()
    FAMILIES[name]()
    return name, time.perf_counter() - t0, resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss / 1024


def compile_all(workers: int | None = None,
                done: Callable[[str, float, float], None] | None = None) -> float:
    """Compile every family, ``workers`` processes at a time (default: the cores).
    Returns the wall time; ``done`` hears of each family as it finishes."""
    t0 = time.perf_counter()
    workers = max(1, min(workers or os.cpu_count() or 1, len(FAMILIES)))
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        jobs = [pool.submit(compile_family, name) for name in FAMILIES]
        for job in as_completed(jobs):
            name, seconds, peak = job.result()
            if done is not None:
                done(name, seconds, peak)
    return time.perf_counter() - t0


@command("compile")
def compile_command(
    workers: Annotated[int, typer.Option("--workers", "-j", help="Processes at once "
                       "(default: this machine's cores).")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing.")] = False,
) -> None:
    """Compile every Numba kernel now (after an install; cached kernels only load).

    Without it each command compiles what it needs on first use: under a minute for the
    solver on 2 cores. Families compile in parallel processes, the longest first."""
    from rich.console import Console

    console = Console(stderr=True)

    def done(name: str, seconds: float, peak: float) -> None:
        if not quiet:
            console.print(f"  {name}: {seconds:.1f} s, peak {peak:.0f} MB")

    status = console.status("compiling the Numba kernels...") if not quiet else None
    if status is not None:
        status.start()
    try:
        wall = compile_all(workers or None, done)
    finally:
        if status is not None:
            status.stop()
    if not quiet:
        console.print(f"kernels ready in {wall:.1f} s (cached from now on)")
