"""``table freq`` and ``table bids`` on datasets larger than memory would comfortably hold
as a DataFrame: rows per second and the peak memory of the process.

Both tables stream the dataset part by part, only the columns they need
(:func:`bazarsim.store.parts.stream_batches`: the next part read in a thread while this
one is counted, no further), and add each batch into running counts (NumPy bit operations
and ``np.bincount`` for ``freq``, a Numba loop for ``bids``), so memory does not grow with
the dataset. Each figure is taken
in a fresh process (its peak RSS, ``VmHWM``) at two sizes, 1/10 and all of the rows:
the same peak at both is the bound. The "DataFrame" note is what ``read_dataframe`` would
need for the columns alone (the schema's bytes a row times the rows).

* ``freq``: a lean dataset of every kind (100 M deals; 2 M with ``--quick``), simulated
  once into the system temp directory and kept there (simulate resumes it; delete
  ``bazarsim-bench-outofcore`` to drop it, about 6 GB).
* ``bids``: DD solving 10^7 deals would take days on this machine, so a DD dataset of
  512 solved deals (kinds H and BK) is tiled: its rows repeated under new index ranges into
  a dataset of 10 M rows (1 M quick) with a consistent manifest and part metadata. The
  values repeat, the reading and arithmetic do not get cheaper.
* ``scan only``: reading ``freq``'s columns and doing nothing else: what a faster query
  engine (DuckDB) could at most save, since the rest is the features' NumPy.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.store.parts import (
    MANIFEST,
    atomic_write_bytes,
    existing_parts,
    part_files,
    part_name,
    prepare_directory,
    read_manifest,
    with_part_metadata,
    write_part,
)
from bazarsim.store.schema import METADATA_KEY

from .common import row

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(tempfile.gettempdir()) / "bazarsim-bench-outofcore"

MEASURE = r"""
import json, sys, time
what, path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if what == "freq":
    from bazarsim.analysis.freq import frequency_table
    frequency_table(path)
elif what == "bids":
    from bazarsim.analysis.bids import bid_table
    bid_table(path, by=["points=0..29,30..49,50..", "trumps"])
else:
    from bazarsim.store.parts import checked_part_files, part_schema, stream_batches
    files = checked_part_files(path)
    cols = ["N", "E", "S", "W", "redeal", "cancelled"]
    cols += [c for c in part_schema(files[0]).names if c.endswith("_declaration_side")]
    for _ in stream_batches(files, cols, 1 << 20):
        pass
seconds = time.perf_counter() - t0
# VmHWM, not getrusage: ru_maxrss keeps the forking parent's peak across exec
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
print(json.dumps({"seconds": seconds, "peak_mb": int(hwm.split()[1]) / 1024}))
"""


def measure(what: str, path: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", MEASURE, what, str(path)], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def dataframe_gb(path: Path, rows: int) -> float:
    schema = pq.read_schema(part_files(path)[0])
    per_row = sum(f.type.bit_width // 8 for f in schema if pa.types.is_primitive(f.type))
    return per_row * rows / 1e9


def lean_dataset(deals: int) -> Path:
    out = CACHE / f"lean-{deals}"
    run_simulation(Simulation(deals=deals, seed=2026, columns="lean"), out)  # resumes what is there
    return out


def tiled_dd_dataset(rows: int, tile: int = 512) -> Path:
    """``rows`` rows: a DD-solved run of ``tile`` deals repeated under new index ranges."""
    out = CACHE / f"dd-tiled-{rows}"
    if (out / MANIFEST).exists() and sum(b - a for a, b in existing_parts(out)) == rows:
        return out
    src = CACHE / f"dd-{tile}"
    run_simulation(Simulation(deals=tile, seed=2026, columns="lean", dd=True, kinds=(1, 4),
                              chunk=tile), src)
    base = pq.read_table(part_files(src)).sort_by("index")
    params = dict(read_manifest(src), deals=rows)
    prepare_directory(out, params)
    atomic_write_bytes(out / MANIFEST, json.dumps(params, indent=2).encode())
    per_part = 1 << 20
    have = set(existing_parts(out))
    reps = per_part // tile
    block = pa.concat_tables([base] * reps)
    for start in range(0, rows, per_part):
        end = min(rows, start + per_part)
        if (start, end) in have:
            continue
        t = block.slice(0, end - start)
        t = t.set_column(t.schema.get_field_index("index"), "index",
                         pa.array(range(start, end), pa.int64()))
        meta = json.loads(base.schema.metadata[METADATA_KEY])
        meta.update(params, start=start, end=end)
        write_part(with_part_metadata(t, meta), out / part_name(start, end), "zstd")
    return out


def collect(quick: bool) -> list[dict]:
    rows: list[dict] = []
    big = 2_000_000 if quick else 100_000_000
    for what, make, n in (("freq", lean_dataset, big),
                          ("bids", tiled_dd_dataset, big // 10)):
        small = make(n // 10)
        full = make(n)
        m_small, m_full = measure(what, small), measure(what, full)
        rows.append(row("out of core", f"table {what}, {n:,} rows", n / m_full["seconds"],
                        "rows/s", f"peak {m_full['peak_mb']:,.0f} MB (at {n // 10:,} rows: "
                        f"{m_small['peak_mb']:,.0f} MB); as a DataFrame "
                        f"{dataframe_gb(full, n):.1f} GB"))
        rows.append(row("out of core", f"table {what} peak memory, {n:,} rows",
                        m_full["peak_mb"], "MB", f"{m_small['peak_mb']:,.0f} MB at 1/10 "
                        "of the rows"))
        if what == "freq":
            scan = measure("scan", full)
            rows.append(row("out of core", f"scan only (freq's columns), {n:,} rows",
                            n / scan["seconds"], "rows/s",
                            f"{scan['seconds'] / m_full['seconds']:.0%} of table freq's "
                            "time: what a faster scanner could save"))
    return rows
