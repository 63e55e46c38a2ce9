"""Checking a dataset against the run its manifest describes, and repairing it.

Every part must be readable to its last page, hold exactly the deal indices its name
says (its index column ``start .. end - 1`` in order), carry the manifest's run in its
metadata, and match the content digest written with it
(:func:`~bazarsim.store.parts.check_content`: damaged pages under a sound footer, rows
rewritten or reordered, another run's part); together the parts must cover the run's index
range. Parts written before digests existed are read and their index checked, and listed
as carrying no digest (not a fault). A sample of rows can also be recomputed from their
seed and index (:meth:`~bazarsim.engine.simulation.Simulation.compute_range` is a pure
function), which catches what a digest cannot: a part written wrong in the first place
(its digest taken of wrong values), in every column the run gives, the bid-time cards
included (drawn from the seed and index like the deal). Repair drops the damaged parts and
computes them again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np
import pyarrow as pa

from bazarsim.core.errors import BazarsimError
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.store.parts import (
    PART_RE,
    check_content,
    check_part,
    os_errors,
    part_range,
    read_manifest,
    uncovered,
)


@dataclass
class Verification:
    """What :func:`verify_dataset` found."""

    out: str
    parts: int = 0
    rows: int = 0
    sampled: int = 0
    faults: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)  # part names
    gaps: list[tuple[int, int]] = field(default_factory=list)  # index ranges, no sound part
    repaired: list[str] = field(default_factory=list)
    without_digest: list[str] = field(default_factory=list)  # sound parts, no digest

    @property
    def ok(self) -> bool:
        return not self.faults

    def as_dict(self) -> dict:
        return {"out": self.out, "ok": self.ok, "parts": self.parts, "rows": self.rows,
                "sampled_rows": self.sampled, "faults": self.faults,
                "repaired": self.repaired, "without_digest": self.without_digest}


def verify_dataset(out: str | Path, sample: int = 0, repair: bool = False,
                   notice: Callable[[str], None] | None = None,
                   progress: Callable[[int, int], None] | None = None,
                   extra: Callable[[dict], object] | None = None) -> Verification:
    """Check every part of ``out`` (and ``sample`` recomputed rows); with ``repair``, redo
    the damaged and missing parts, then check again. ``extra``: builds the run's column
    source from its manifest (datasets of ``simulate --auction``)."""
    out = Path(out)
    params = read_manifest(out)
    sim = Simulation.from_params(params, extra=extra(params) if extra else None)
    result = _check(out, sim, params, sample)
    if repair and not result.ok:
        for fault in result.faults:
            if notice:
                notice(f"fault: {fault}")
        for name in result.damaged:
            with os_errors("remove", out / name):
                (out / name).unlink()
        run_simulation(sim, out, progress=progress, notice=notice)
        again = _check(out, sim, params, sample)
        again.repaired = result.damaged + [f"deal indices {a}..{b - 1}" for a, b in result.gaps
                                           if not _within_damaged(a, b, result.damaged)]
        return again
    return result


def _parts(out: Path) -> list[Path]:
    with os_errors("read", out):
        return sorted(p for p in out.iterdir() if PART_RE.match(p.name))


def _within_damaged(a: int, b: int, damaged: list[str]) -> bool:
    """The gap ``[a, b)`` is only the ranges of damaged parts (already listed)."""
    covered = sum(e - s for s, e in (part_range(Path(n)) for n in damaged)
                  if a <= s and e <= b)
    return covered == b - a


def _check(out: Path, sim: Simulation, params: dict, sample: int) -> Verification:
    v = Verification(str(out))
    sound: list[Path] = []
    paths = _parts(out)
    picks = _sample_picks([part_range(p) for p in paths], sample)
    for path, rows in zip(paths, picks, strict=True):
        v.parts += 1
        why, found = check_part(path, params), None
        if why is None:
            found = check_content(path, params)
            why = "; ".join(found.faults) or None
        if why:
            v.faults.append(f"{path.name}: {why}")
            v.damaged.append(path.name)
            continue
        sound.append(path)
        v.rows += found.table.num_rows
        if not found.digested:
            v.without_digest.append(path.name)
        if rows.size:  # recomputed while the part's rows are in memory
            v.sampled += _compare_rows(sim, path, found.table, rows, v.faults)
    try:  # damaged parts count as missing
        v.gaps = uncovered([part_range(p) for p in sound], sim.first, sim.end, out)
    except BazarsimError as exc:  # overlapping parts: the directory was modified by hand
        v.faults.append(str(exc))
    for a, b in v.gaps:
        if not _within_damaged(a, b, v.damaged):
            v.faults.append(f"deal indices {a}..{b - 1} have no part")
    return v


def _sample_picks(spans: list[tuple[int, int]], sample: int) -> list[np.ndarray]:
    """Per part, the deal indices of ``sample`` distinct rows drawn evenly from all the
    parts' rows (all of them if fewer; a fixed choice, so a rerun checks the same rows).
    Rows of a part found damaged are not recomputed: the part is a fault already."""
    sizes = np.array([end - start for start, end in spans], dtype=np.int64)
    ends = np.cumsum(sizes)
    total = int(ends[-1]) if len(spans) else 0
    picks = np.sort(np.random.default_rng(0).choice(total, size=min(sample, total),
                                                    replace=False))
    owner = np.searchsorted(ends, picks, side="right")
    return [start + picks[owner == k] - (ends[k] - sizes[k])
            for k, (start, _end) in enumerate(spans)]


@contextmanager
def _one_numba_thread(yes: bool) -> Iterator[None]:
    """One row dealt and evaluated leaves nothing to share: the parallel kernels' thread
    wake-ups cost 15-25 ms a row on a busy 2-core machine, one thread 1 ms. (A row's DD
    or SD play-outs do share out, a kind a thread: those keep every thread.)"""
    threads = numba.get_num_threads()
    numba.set_num_threads(1 if yes else threads)
    try:
        yield
    finally:
        numba.set_num_threads(threads)


def _compare_rows(sim: Simulation, path: Path, stored: pa.Table, indices: np.ndarray,
                  faults: list[str]) -> int:
    """Recompute the rows of deal ``indices`` from their seed and index, compare every
    column with ``stored`` (the part's rows), and name the part once if a row differs
    (its first); returns the rows recomputed."""
    start, _end = part_range(path)
    wrong = []
    with _one_numba_thread(not (sim.dd or sim.sd)):
        for i in indices.tolist():
            (fresh,) = sim.compute_range(i, i + 1).to_pylist()
            (row,) = stored.slice(i - start, 1).to_pylist()
            for name, value in fresh.items():
                if name not in row:
                    wrong.append(f"no column {name}, which the run's parameters give")
                    break
                if row[name] != value:
                    wrong.append(f"deal index {i}, column {name}: stored {row[name]} but "
                                 f"recomputed {value}")
                    break
    if wrong:
        more = f" ({len(wrong)} of {len(indices)} rows recomputed differ)"
        faults.append(f"{path.name}: {wrong[0]}{more if len(wrong) > 1 else ''}")
    return len(indices)
