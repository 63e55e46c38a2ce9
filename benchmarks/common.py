"""Timing helpers shared by the benchmark modules.

Times are taken in-process with ``time.perf_counter``; JIT compilation is excluded by a
warm-up call; each figure is the median of several repeats. Compare variants measured
in the same run (ratios), since the machines are shared and noisy.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
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


@contextmanager
def numba_threads(n: int):
    """Run the block with ``n`` Numba threads (restored afterwards)."""
    old = numba.get_num_threads()
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(old)


def row(group: str, name: str, value: float, unit: str, note: str = "") -> dict:
    """One result line of the report."""
    return {"group": group, "name": name, "value": float(value), "unit": unit, "note": note}
