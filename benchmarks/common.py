"""Timing helpers shared by the benchmark modules.

Times are taken in-process with ``time.perf_counter``; JIT compilation is excluded by a
warm-up call. How a row was measured differs from module to module (the median of
repeats, the best of interleaved rounds, one run, a median over deals each timed once),
so every row's note says it (:func:`check_how`, enforced by the runner). Compare variants
measured in the same run (ratios), since the machines are shared and noisy.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import numba


def median_time(fn: Callable[[], object], repeats: int = 5, warmup: int = 1,
                clock: Callable[[], float] = time.perf_counter) -> float:
    """Median time of ``fn()`` in seconds, after ``warmup`` untimed calls.

    ``clock`` is wall time by default; ``time.process_time`` gives CPU time of all threads.
    """
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


def median_of(repeats: int) -> str:
    """The note's words for :func:`median_time` with ``repeats``."""
    return "one run" if repeats == 1 else f"median of {repeats} runs"


@contextmanager
def numba_threads(n: int) -> Iterator[int]:
    """Run the block with exactly ``n`` Numba threads in this thread (restored afterwards).

    Raises ``ValueError`` when Numba cannot run ``n`` threads here (``n`` above
    ``NUMBA_NUM_THREADS``): a row labelled "2 threads" must have run on 2 threads. Use
    :func:`thread_counts` to keep the counts this machine can run.
    """
    if not 1 <= n <= numba.config.NUMBA_NUM_THREADS:
        raise ValueError(f"cannot run {n} Numba threads (NUMBA_NUM_THREADS="
                         f"{numba.config.NUMBA_NUM_THREADS})")
    old = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield numba.get_num_threads()
    finally:
        numba.set_num_threads(old)


def thread_counts(wanted: Iterable[int]) -> list[int]:
    """The thread counts of ``wanted`` that :func:`numba_threads` can set here, sorted."""
    return sorted({n for n in wanted if 1 <= n <= numba.config.NUMBA_NUM_THREADS})


def threads_label(n: int) -> str:
    return f"{n} thread{'s' * (n != 1)}"


# What a row's note must say: how its figure was obtained (a statistic of how many runs,
# one run, or derived from other rows / counted, for figures that are not timings).
HOW = re.compile(r"\b(median|best|mean|p\d\d|max(imum)?|total|sum) of (\d|the|every|all)"
                 r"|\bone run\b|\btimed once\b|\bfrom the rows\b|\bcounted\b", re.I)


def check_how(r: dict) -> None:
    """Raise unless row ``r``'s note says how its figure was measured."""
    if not HOW.search(r.get("note", "")):
        raise ValueError(f"benchmark row {r['group']!r} / {r['name']!r}: its note "
                         f"{r.get('note', '')!r} does not say how it was measured (median "
                         "/ best / mean of N, one run, from the rows above, counted)")


def row(group: str, name: str, value: float, unit: str, note: str = "") -> dict:
    """One result line of the report."""
    return {"group": group, "name": name, "value": float(value), "unit": unit, "note": note}
