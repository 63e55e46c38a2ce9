"""The local engine: a simulation's missing index ranges, computed and written on this
machine, resumable at any moment.

Restarting the same command scans the parts present and deals only the missing ranges
(:func:`bazarsim.store.parts.missing_ranges`): since a range's rows are a pure function
of the run and the range, the result is the same dataset whatever was interrupted, and
whatever the chunk size or thread count. Each chunk is written as ``writers`` part files
by as many threads (Parquet encoding releases the GIL) while the next chunk is dealt and
evaluated, so memory is bounded by two chunks in flight.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from bazarsim.engine.faults import parts_written
from bazarsim.store.parts import (
    damaged_parts,
    missing_ranges,
    os_errors,
    part_name,
    prepare_directory,
    record_engine,
    write_part,
)

if TYPE_CHECKING:
    from bazarsim.engine.simulation import Simulation


def split_range(start: int, end: int, pieces: int) -> list[tuple[int, int]]:
    """``[start, end)`` cut into at most ``pieces`` contiguous non-empty ranges."""
    pieces = max(1, min(pieces, end - start))
    cuts = [start + (end - start) * k // pieces for k in range(pieces + 1)]
    return [(cuts[k], cuts[k + 1]) for k in range(pieces)]


def chunk_ranges(gaps: list[tuple[int, int]], chunk: int) -> list[tuple[int, int]]:
    """The missing ranges cut into pieces of at most ``chunk`` deals: the local engine's
    chunks, the Dask engine's tasks."""
    return [(s, min(b, s + chunk)) for a, b in gaps for s in range(a, b, chunk)]


def engine_record(name: str, **how: object) -> dict:
    """The manifest's record of one engine run (not part of the dataset's identity)."""
    from bazarsim import __version__

    return {"engine": name, **how, "bazarsim": __version__,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def drop_damaged_parts(sim: Simulation, out: Path,
                       notice: Callable[[str], None] | None = None) -> list[str]:
    """Remove the parts of ``out`` that are not sound parts of ``sim`` (unreadable,
    truncated, of another run), so that they are computed again; returns their names."""
    dropped = []
    for path, why in damaged_parts(out, sim.params()):
        if notice:
            notice(f"{path.name} is damaged ({why}): computing it again")
        with os_errors("remove", path):
            path.unlink()
        dropped.append(path.name)
    return dropped


def run_local(sim: Simulation, out: Path,
              progress: Callable[[int, int], None] | None = None,
              notice: Callable[[str], None] | None = None) -> dict:
    """Write the missing parts of ``sim``'s dataset in ``out``; returns a summary.

    Parts already present are checked first (:func:`drop_damaged_parts`); ``notice``
    hears about each one redone."""
    sim.check_feasible()  # refuse, don't hang
    prepare_directory(out, sim.params(), notice)
    repaired = drop_damaged_parts(sim, out, notice)
    gaps = missing_ranges(out, sim.first, sim.end)
    todo = sum(b - a for a, b in gaps)
    done_before = sim.deals - todo
    if todo:
        record_engine(out, engine_record("local", chunk=sim.chunk, writers=sim.writers))
    if progress:
        progress(done_before, sim.deals)
    t0 = time.perf_counter()
    pool = ThreadPoolExecutor(sim.writers)
    pending: list[Future] = []
    written = parts = 0
    try:
        for start, end in chunk_ranges(gaps, sim.chunk):
            rows = sim.compute_range(start, end)
            for f in pending:  # at most two chunks in memory
                f.result()
            parts += len(pending)
            parts_written(parts)
            pending = [pool.submit(write_part, sim.slice_range(rows, s0 - start, s0, s1),
                                   out / part_name(s0, s1), sim.compression, digest=True)
                       for s0, s1 in split_range(start, end, sim.writers)]
            written += end - start
            if progress:
                progress(done_before + written, sim.deals)
        for f in pending:
            f.result()
    finally:
        pool.shutdown(wait=True)
    elapsed = time.perf_counter() - t0
    return {"out": str(out), "deals": sim.deals, "resumed_from": done_before,
            "written": written, "repaired": repaired, "seconds": elapsed,
            "deals_per_second": written / elapsed if elapsed > 0 else float("nan")}
