"""A rich progress bar for long deal loops: deals/s and ETA, on stderr; silent if quiet."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

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
    """Yields ``update(done, total)`` (or ``None`` when quiet)."""
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
            progress.update(task, completed=done)

    with progress:
        yield update
