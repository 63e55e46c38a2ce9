"""``bazarsim compile``: compile the Numba kernels now, on every core.

Every kernel is compiled on its first call and cached on disk (``cache=True``), so the
first command after an install pays for what it uses. This command pays for all of it at
once: the kernel families compile in parallel processes, the longest first (see
:data:`SCHEDULE`). The solver's two entry points (one position: ``solve``; many deals: DD
tables) compile one after the other in one process, the DD tables reusing the search just
compiled. Cached families only load, in a second or two. ``make test`` and ``make run``
start with it; ``benchmarks/bench_compile.py`` times the families one by one.
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


def _players() -> None:
    import numpy as np

    from bazarsim.deals.numbering import deal_from_number
    from bazarsim.players.batch import sd_tables
    from bazarsim.players.playout import play_deal

    deal = deal_from_number(0)
    play_deal(deal, "H", "N", worlds=2)
    sd_tables(np.asarray(deal, np.uint32).reshape(1, 4), kinds=[1], worlds=2)


def _matches() -> None:
    import numpy as np

    from bazarsim.matches.equity import equity_kernel, expected_kernel
    from bazarsim.matches.model import hand_cells

    hand_cells(np.array([255], np.uint32), np.uint32(255), 0, np.array([1]), np.array([30]),
               np.empty(1, np.int64))
    z = np.zeros((1, 2, 1), np.int64)
    eq = equity_kernel(z + 5, z, z, z, z - 1, np.full((1, 2, 1), 1.0),
                       np.zeros((16, 16), np.int64), 10, 0, 16)
    w = np.zeros(1, np.int64)
    expected_kernel(eq, w + 5, w, w, w, w - 1, np.ones(1), 10, 0, 0, 0, 0)


def _beliefs() -> None:
    import numpy as np

    from bazarsim.beliefs.evidence import Evidence, weighted_sample
    from bazarsim.beliefs.listener import resample
    from bazarsim.matches.model import N_CELLS, HandModel, model_bids
    from bazarsim.matches.policy import load_policy
    from bazarsim.rules.auction import run_auction
    from bazarsim.rules.rulesets import get_ruleset

    rs = get_ruleset("bazar")
    rates = np.full((2, N_CELLS, len(model_bids(rs, 0))), 0.5)
    model = HandModel(rs, rates, np.zeros((2, N_CELLS), np.int64), 20.0, {})
    pol = load_policy("careful")
    ev = Evidence(rs, 0, run_auction("8H P", 0, rs).history, 3, {0: pol, 1: pol, 2: pol},
                  model)
    z = np.zeros(4, np.int64)
    for cards in (8, 1):  # sampled, then every world
        ww = weighted_sample(ev, 0xFF, z, z, np.full(4, cards, np.int64),
                             0 if cards == 8 else 0xFFFFFFFF & ~0x0101_0101, z, 4, key=1,
                             pilot=16)
    resample(ww.weights, 2, 0.5)
    # the listening player's solve of given worlds (its search is the players family's)
    from bazarsim.dd.search import DEFAULT_TT_BITS, O_ALL, new_context
    from bazarsim.players.pimc import decide_worlds
    from bazarsim.rules.play import contract_play

    last = np.array([[1 << (8 * s) for s in range(4)]], np.int64)  # one 7 each
    decide_worlds(np.int64(0), np.int64(1), last, np.ones(1), np.int64(0xFFFFFFFF & ~0x01010101),
                  np.int64(0), np.zeros(4, np.int64), np.int64(0), contract_play(rs, 1),
                  new_context(DEFAULT_TT_BITS, O_ALL), 0, 0, np.int64(0), np.empty(32))


def _simbid() -> None:
    import numpy as np

    from bazarsim.matches.bidding import SeatView
    from bazarsim.matches.model import N_CELLS, HandModel, model_bids
    from bazarsim.matches.policy import load_policy
    from bazarsim.rules.auction import run_auction
    from bazarsim.rules.rulesets import get_ruleset
    from bazarsim.simbid.bidder import SimulationBidder
    from bazarsim.simbid.continuation import SeatRates, play_on
    from bazarsim.simbid.outcomes import equity_after

    rs = get_ruleset("bazar")
    rates = np.full((2, N_CELLS, len(model_bids(rs, 0))), 0.5)
    model = HandModel(rs, rates, np.zeros((2, N_CELLS), np.int64), 20.0, {})
    pol = load_policy("careful")
    hands = np.array([[0xFF, 0xFF00, 0xFF0000, 0xFF000000]], np.uint32)
    seats = SeatRates.of(hands, 0, rs, model)
    auction = run_auction("8H", 0, rs)
    play_on(auction, np.arange(1), seats, {s: pol for s in range(4)})
    one = np.zeros(1, np.int64)
    equity_after(np.zeros((2, 2, 2)), 0, 0, one, one, one, one, one, 1, 0, True, np.empty(1))
    view = SeatView(2, seats.make[0, 2], seats.opp[0, 2], hand=0xFF0000)
    SimulationBidder(load_policy("simulation"), model).margin(auction, view)


# family -> the first calls that compile it (under a minute for the solver's entry points,
# seconds for the others)
FAMILIES: dict[str, Callable[[], None]] = {
    "solver": _solver,
    "DD tables": _dd_tables,
    "evaluation": _evaluation,
    "dealing": _dealing,
    "scoring": _scoring,
    "players": _players,
    "matches": _matches,
    "beliefs": _beliefs,
    "simbid": _simbid,
}
# What ``compile_all`` hands to one process, longest first: DD tables right after the
# solver in the same process, since they call the search the solver has just compiled
# (alone they compile it again: 75 s, against 44 s for the solver and 25-31 s more for the
# DD tables after it, on 2 busy cores).
SCHEDULE: tuple[tuple[str, ...], ...] = (
    ("solver", "DD tables"),
    ("players",),  # one play-out and the SD tables: the search again, inside the players
    ("dealing",),
    ("evaluation",),
    ("scoring",),
    ("matches",),
    ("beliefs",),
    ("simbid",),
)


def compile_family(name: str) -> tuple[str, float, float]:
    """Compile one family in this process: ``(name, seconds, peak MB)``."""
    import resource

    t0 = time.perf_counter()
    FAMILIES[name]()
    return name, time.perf_counter() - t0, resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss / 1024


def compile_chain(names: tuple[str, ...]) -> list[tuple[str, float, float]]:
    """Compile families one after the other in this process (see :data:`SCHEDULE`)."""
    return [compile_family(name) for name in names]


def compile_all(workers: int | None = None,
                done: Callable[[str, float, float], None] | None = None) -> float:
    """Compile every family, ``workers`` processes at a time (default: the cores), as
    :data:`SCHEDULE` groups them. Returns the wall time; ``done`` hears of each family as
    it finishes (a chain's families when the chain does)."""
    t0 = time.perf_counter()
    chains = [tuple(n for n in chain if n in FAMILIES) for chain in SCHEDULE]
    chains = [c for c in chains if c]
    scheduled = {n for c in chains for n in c}
    chains += [(n,) for n in FAMILIES if n not in scheduled]
    workers = max(1, min(workers or os.cpu_count() or 1, len(chains)))
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        jobs = [pool.submit(compile_chain, chain) for chain in chains]
        for job in as_completed(jobs):
            for name, seconds, peak in job.result():
                if done is not None:
                    done(name, seconds, peak)
    return time.perf_counter() - t0


@command("compile")
def compile_command(
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=0, help="Local processes at once "
                    "(default: this machine's cores). --workers is for Dask workers in "
                    "every command.")] = 0,
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
        wall = compile_all(jobs or None, done)
    finally:
        if status is not None:
            status.stop()
    if not quiet:
        console.print(f"kernels ready in {wall:.1f} s (cached from now on)")
