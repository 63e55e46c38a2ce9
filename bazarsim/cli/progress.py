"""A rich progress bar for long deal loops: deals/s and ETA, on stderr; silent if quiet."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class DealRateColumn(ProgressColumn):
    """Deals per second since the bar started (deals found already done are not counted)."""

    def render(self, task) -> Text:
        elapsed = task.finished_time if task.finished else task.elapsed
        done = task.completed - task.fields.get("initial", 0)
        if not elapsed or done <= 0:
            return Text("-- deals/s")
        return Text(f"{done / elapsed:,.0f} deals/s")


@contextmanager
def deal_progress(quiet: bool, label: str) -> Iterator[Callable[[int, int], None] | None]:
    """Yields ``update(done, total)`` (or ``None`` when quiet); the first call's ``done`` is
    what was there before (not counted in the rate), later calls may change ``total``."""
    if quiet:
        yield None
        return
    progress = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), DealRateColumn(),
                        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                        console=Console(stderr=True), transient=False)
    task = None

    def update(done: int, total: int) -> None:
        nonlocal task
        if task is None:
            task = progress.add_task(label, total=total, completed=done, initial=done)
        else:
            progress.update(task, completed=done, total=total)

    with progress:
        yield update


def kernel_cached(module, kernel: str) -> bool:
    """Whether Numba's cache holds ``kernel`` of ``module`` (compiled before)."""
    import numba

    src = Path(module.__file__)
    pattern = f"{src.stem}.{kernel}-*.nbi"
    # NUMBA_CACHE_DIR, when set, is the only place Numba reads
    cache = numba.config.CACHE_DIR
    dirs = [Path(cache)] if cache else [src.parent / "__pycache__"]
    return any(next(d.rglob(pattern), None) is not None for d in dirs if d.exists())


def solver_cached(batch: bool) -> bool:
    """Whether Numba's cache holds the solver's compiled entry point (``batch``: the DD
    tables kernel; else the single-position solve)."""
    from bazarsim.dd import batch as batch_module
    from bazarsim.dd import search

    return (kernel_cached(batch_module, "dd_tables_kernel") if batch
            else kernel_cached(search, "solve_deal"))


def players_cached(batch: bool) -> bool:
    """Whether Numba's cache holds the hidden-card players' entry point (``batch``: the
    play-out tables kernel; else one play-out)."""
    from bazarsim.players import batch as batch_module
    from bazarsim.players import playout_kernel

    return (kernel_cached(batch_module, "playout_tables_kernel") if batch
            else kernel_cached(playout_kernel, "play_out"))


def compiling(quiet: bool, what: str, minutes: str, work: Callable[[], None]) -> None:
    """Run ``work`` (the first calls of some kernels) saying that ``what`` compiles and,
    when done, in how long: a minute of silence looks like a hang."""
    import time

    console = Console(stderr=True)
    t0 = time.perf_counter()
    message = f"compiling {what} (first run after an install only, {minutes})..."
    if not quiet and not console.is_terminal:
        console.print(message)  # a spinner is not drawn off a terminal: say it plainly
    status = console.status(message) if not quiet and console.is_terminal else nullcontext()
    with status:
        work()
    if not quiet:
        console.print(f"{what} compiled in {time.perf_counter() - t0:.0f} s "
                      "(cached from now on)")


def _one_deal():
    import numpy as np

    from bazarsim.deals.numbering import deal_from_number

    return np.asarray(deal_from_number(0), np.uint32).reshape(1, 4)


def prepare_solver(quiet: bool, ruleset, kinds=None, batch: bool = True) -> None:
    """Compile the solver before a long run when the cache does not have it yet, saying
    so: solves one deal under a spinner."""
    if solver_cached(batch):
        return

    def work():
        hands = _one_deal()
        if batch:
            from bazarsim.dd.batch import dd_tables

            dd_tables(hands, ruleset=ruleset, kinds=kinds)
        else:  # what `solve` uses: one solve and the capot test
            from bazarsim.dd.solver import Solver

            solver = Solver()
            solver.solve(hands[0], ruleset.kinds[0], 1, ruleset)
            solver.capot_possible(hands[0], ruleset.kinds[0], 1, 0, ruleset)

    compiling(quiet, "the solver", "about a minute", work)


def prepare_players(quiet: bool, ruleset, batch: bool = True) -> None:
    """Compile the PIMC players before a run when the cache does not have them, saying so:
    one tiny play-out (or single-dummy table) under a spinner."""
    if players_cached(batch):
        return

    def work():
        hands = _one_deal()
        if batch:
            from bazarsim.players.batch import sd_tables

            sd_tables(hands, ruleset=ruleset, kinds=[ruleset.kinds[0]], worlds=1)
        else:
            from bazarsim.core.contracts import Contract
            from bazarsim.players.playout import play_deal

            play_deal(hands[0], Contract(0, ruleset.kinds[0], 0), 0, worlds=1, ruleset=ruleset)

    compiling(quiet, "the card players", "1-2 minutes", work)
