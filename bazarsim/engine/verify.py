"""Checking a dataset against the run its manifest describes, and repairing it.

Every part must be readable to its last page, hold exactly the deal indices its name
says, and carry the manifest's run in its metadata; together the parts must cover the
run's index range. A sample of rows can also be recomputed from their seed and index
(:meth:`~bazarsim.engine.simulation.Simulation.compute_range` is a pure function), which
catches a part whose bytes are sound but whose values are not: every column the run gives,
the bid-time cards included (drawn from the seed and index like the deal). Repair drops the damaged
parts and computes them again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bazarsim.core.errors import BazarsimError
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.store.parts import (
    PART_RE,
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

    @property
    def ok(self) -> bool:
        return not self.faults

    def as_dict(self) -> dict:
        return {"out": self.out, "ok": self.ok, "parts": self.parts, "rows": self.rows,
                "sampled_rows": self.sampled, "faults": self.faults,
                "repaired": self.repaired}


def verify_dataset(out: str | Path, sample: int = 0, repair: bool = False,
                   notice: Callable[[str], None] | None = None,
                   progress: Callable[[int, int], None] | None = None) -> Verification:
    """Check every part of ``out`` (and ``sample`` recomputed rows); with ``repair``, redo
    the damaged and missing parts, then check again."""
    out = Path(out)
    params = read_manifest(out)
    sim = Simulation.from_params(params)
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
    for path in _parts(out):
        v.parts += 1
        why = check_part(path, params) or _read_fully(path)
        if why:
            v.faults.append(f"{path.name}: {why}")
            v.damaged.append(path.name)
        else:
            sound.append(path)
            v.rows += pq.ParquetFile(path).metadata.num_rows
    try:  # damaged parts count as missing
        v.gaps = uncovered([part_range(p) for p in sound], sim.first, sim.end, out)
    except BazarsimError as exc:  # overlapping parts: the directory was modified by hand
        v.faults.append(str(exc))
    for a, b in v.gaps:
        if not _within_damaged(a, b, v.damaged):
            v.faults.append(f"deal indices {a}..{b - 1} have no part")
    if sample and sound:
        v.sampled = _sample_rows(sim, sound, sample, v.faults)
    return v


def _read_fully(path: Path) -> str | None:
    """Decode every page of a part and check its ``index`` column (None when sound)."""
    start, end = part_range(path)
    try:
        rows = pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        return f"unreadable ({' '.join(str(exc).split())})"
    index = rows.column("index").to_numpy()
    if not np.array_equal(index, np.arange(start, end)):
        return "its index column does not hold the indices its name says"
    return None


def _sample_rows(sim: Simulation, parts: list[Path], sample: int, faults: list[str]) -> int:
    """Recompute ``sample`` rows spread over the sound parts (a fixed choice, so a
    rerun checks the same rows) and compare every column."""
    rng = np.random.default_rng(0)
    picks = rng.choice(len(parts), size=sample, replace=True)
    checked = 0
    for k in np.unique(picks):
        path = parts[k]
        start, end = part_range(path)
        stored = pq.read_table(path)
        for i in sorted(set(rng.integers(start, end, size=int((picks == k).sum())).tolist())):
            fresh = sim.compute_range(i, i + 1)
            row = stored.slice(i - start, 1)
            for name in fresh.schema.names:
                if name not in row.schema.names:
                    faults.append(f"{path.name}: no column {name}, which the run's "
                                  "parameters give")
                    break
                if fresh.column(name).to_pylist() != row.column(name).to_pylist():
                    faults.append(f"{path.name}: deal index {i}, column {name}: stored "
                                  f"{row.column(name)[0]} but recomputed "
                                  f"{fresh.column(name)[0]}")
                    break
            checked += 1
    return checked

