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


def solver_cached(batch: bool) -> bool:
    """Whether Numba's cache holds the solver's compiled entry point (``batch``: the DD
    tables kernel; else the single-position solve)."""
    import numba

    from bazarsim.dd import batch as batch_module
    from bazarsim.dd import search

    src = Path((batch_module if batch else search).__file__)
    pattern = f"{src.stem}.{'dd_tables_kernel' if batch else 'solve_deal'}-*.nbi"
    # NUMBA_CACHE_DIR, when set, is the only place Numba reads
    cache = numba.config.CACHE_DIR
    dirs = [Path(cache)] if cache else [src.parent / "__pycache__"]
    return any(next(d.rglob(pattern), None) is not None for d in dirs if d.exists())


def prepare_solver(quiet: bool, ruleset, kinds=None, batch: bool = True) -> None:
    """Compile the solver before a long run when the cache does not have it yet, saying so
    (a minute of silence looks like a hang): solves one deal under a spinner."""
    if solver_cached(batch):
        return
    import time

    import numpy as np

    from bazarsim.deals.numbering import deal_from_number

    hands = np.asarray(deal_from_number(0), np.uint32).reshape(1, 4)
    console = Console(stderr=True)
    t0 = time.perf_counter()
    message = "compiling the solver (first run after an install only, about a minute)..."
    if not quiet and not console.is_terminal:
        console.print(message)  # a spinner is not drawn off a terminal: say it plainly
    status = console.status(message) if not quiet and console.is_terminal else nullcontext()
    with status:
        if batch:
            from bazarsim.dd.batch import dd_tables

            dd_tables(hands, ruleset=ruleset, kinds=kinds)
        else:  # what `solve` uses: one solve and the capot test
            from bazarsim.dd.solver import Solver

            solver = Solver()
            solver.solve(hands[0], ruleset.kinds[0], 1, ruleset)
            solver.capot_possible(hands[0], ruleset.kinds[0], 1, 0, ruleset)
    if not quiet:
        console.print(f"solver compiled in {time.perf_counter() - t0:.0f} s (cached from now on)")


def players_cached(batch: bool) -> bool:
    """Whether Numba's cache holds the hidden-card players' entry point (``batch``: the
    single-dummy tables kernel; else one play-out)."""
    import numba

    from bazarsim.players import batch as batch_module
    from bazarsim.players import pimc

    src = Path((batch_module if batch else pimc).__file__)
    pattern = f"{src.stem}.{'playout_tables_kernel' if batch else 'play_out'}-*.nbi"
    cache = numba.config.CACHE_DIR
    dirs = [Path(cache)] if cache else [src.parent / "__pycache__"]
    return any(next(d.rglob(pattern), None) is not None for d in dirs if d.exists())


def prepare_players(quiet: bool, ruleset, batch: bool = True) -> None:
    """Compile the PIMC players before a run when the cache does not have them, saying so:
    one tiny play-out (or single-dummy table) under a spinner."""
    if players_cached(batch):
        return
    import time

    import numpy as np

    from bazarsim.deals.numbering import deal_from_number

    hands = np.asarray(deal_from_number(0), np.uint32).reshape(1, 4)
    console = Console(stderr=True)
    t0 = time.perf_counter()
    message = "compiling the card players (first run after an install only, 1-2 minutes)..."
    if not quiet and not console.is_terminal:
        console.print(message)
    status = console.status(message) if not quiet and console.is_terminal else nullcontext()
    with status:
        if batch:
            from bazarsim.players.batch import sd_tables

            sd_tables(hands, ruleset=ruleset, kinds=[ruleset.kinds[0]], worlds=1)
        else:
            from bazarsim.core.contracts import Contract
            from bazarsim.players.playout import play_deal

            play_deal(hands[0], Contract(0, ruleset.kinds[0], 0), 0, worlds=1, ruleset=ruleset)
    if not quiet:
        console.print(f"players compiled in {time.perf_counter() - t0:.0f} s "
                      "(cached from now on)")
