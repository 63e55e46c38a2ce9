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
* ``bids``: DD solving 10^7 deals would take days on this machine, so the rows of a real
  DD dataset of :data:`TILE` solved deals (kinds H and BK; 2,048 quick) are copied under
  new index ranges into a dataset of 10 M rows (200 k quick) with a consistent manifest
  and part metadata, in a random order (:func:`scrambled_order`): every real row appears
  as often as in plain tiling, but no longer in runs of the same ``TILE`` rows, which
  Parquet's zstd compressed several times better than real rows (so reading them was
  cheaper). The "on disk" row measures it: bytes a row of the real dataset, of the
  scrambled copies and of tiled copies, and the "tiled copies" row what tiling flattered
  in ``table bids``' speed. Each row keeps its own dealer (the deal is self-consistent;
  the dealer no longer follows the new index mod 4). With ``TILE`` distinct rows, a
  hand column still holds only ``TILE`` distinct values, which compress better than
  real hands: the note gives the ratio to the real dataset's bytes a row.
* ``scan only``: reading ``freq``'s columns and doing nothing else: what a faster query
  engine (DuckDB) could at most save, since the rest is the features' NumPy.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
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
TILE = 16_384  # real DD-solved deals behind the bids dataset (2,048 with --quick)
PART = 1 << 20

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


def dd_source(tile: int) -> Path:
    """A real DD-solved lean dataset of ``tile`` deals (kinds H and BK), in one part."""
    src = CACHE / f"dd-{tile}"
    run_simulation(Simulation(deals=tile, seed=2026, columns="lean", dd=True, kinds=(1, 4),
                              chunk=tile, writers=1), src)
    return src


def scrambled_order(rows: int, tile: int, seed: int = 2026) -> np.ndarray:
    """The source row of each of ``rows`` copied rows: tiling's ``arange(rows) % tile``,
    randomly permuted (each source row as often as in tiling, in no repeating run)."""
    return np.random.default_rng(seed).permutation(rows) % tile


def copied_dd_dataset(rows: int, tile: int, scrambled: bool = True) -> Path:
    """``rows`` rows copied from :func:`dd_source`'s ``tile`` real rows under new index
    ranges: in :func:`scrambled_order`, or tiled (the source repeated in order)."""
    out = CACHE / f"dd-{'scrambled' if scrambled else 'tiled'}-{tile}-{rows}"
    if (out / MANIFEST).exists() and sum(b - a for a, b in existing_parts(out)) == rows:
        return out
    src = dd_source(tile)
    base = pq.read_table(part_files(src)).sort_by("index")
    params = dict(read_manifest(src), deals=rows)
    prepare_directory(out, params)
    atomic_write_bytes(out / MANIFEST, json.dumps(params, indent=2).encode())
    have = set(existing_parts(out))
    order = scrambled_order(rows, tile) if scrambled else np.arange(rows) % tile
    for start in range(0, rows, PART):
        end = min(rows, start + PART)
        if (start, end) in have:
            continue
        t = base.take(pa.array(order[start:end]))
        t = t.set_column(t.schema.get_field_index("index"), "index",
                         pa.array(range(start, end), pa.int64()))
        meta = json.loads(base.schema.metadata[METADATA_KEY])
        meta.update(params, start=start, end=end)
        write_part(with_part_metadata(t, meta), out / part_name(start, end), "zstd")
    return out


def bytes_per_row(path: Path, rows: int) -> float:
    """The dataset's part files' bytes over its rows."""
    return sum(p.stat().st_size for p in part_files(path)) / rows


def collect(quick: bool) -> list[dict]:
    rows: list[dict] = []
    big = 2_000_000 if quick else 100_000_000
    tile = 2_048 if quick else TILE
    for what, make, n in (("freq", lean_dataset, big),
                          ("bids", lambda m: copied_dd_dataset(m, tile), big // 10)):
        small = make(n // 10)
        full = make(n)
        m_small, m_full = measure(what, small), measure(what, full)
        data = ("real rows (simulated)" if what == "freq" else
                f"scrambled copies of {tile:,} real DD-solved rows")
        rows.append(row("out of core", f"table {what}, {n:,} rows", n / m_full["seconds"],
                        "rows/s", f"{data}; one run in a fresh process; peak "
                        f"{m_full['peak_mb']:,.0f} MB (at {n // 10:,} rows: "
                        f"{m_small['peak_mb']:,.0f} MB); as a DataFrame "
                        f"{dataframe_gb(full, n):.1f} GB"))
        rows.append(row("out of core", f"table {what} peak memory, {n:,} rows",
                        m_full["peak_mb"], "MB", f"{data}; one run; {m_small['peak_mb']:,.0f} "
                        "MB at 1/10 of the rows"))
        if what == "freq":
            scan = measure("scan", full)
            rows.append(row("out of core", f"scan only (freq's columns), {n:,} rows",
                            n / scan["seconds"], "rows/s",
                            f"one run; {scan['seconds'] / m_full['seconds']:.0%} of table "
                            "freq's time: what a faster scanner could save"))
        else:  # after the rows above: the kernels loaded alike (the first run compiles)
            tiled = copied_dd_dataset(n, tile, scrambled=False)
            m_tiled = measure("bids", tiled)
            real = bytes_per_row(dd_source(tile), tile)
            scr, til = bytes_per_row(full, n), bytes_per_row(tiled, n)
            rows.append(row("out of core", f"table bids on tiled copies, {n:,} rows",
                            n / m_tiled["seconds"], "rows/s",
                            f"the {tile:,} rows repeated in order, as this benchmark read "
                            f"them before; one run; x{m_full['seconds'] / m_tiled['seconds']:.2f}"
                            " the rate on the scrambled copies (row above)"))
            rows.append(row("out of core", "bids dataset on disk, scrambled copies", scr,
                            "bytes/row", f"counted (part files' bytes / rows), {n:,} rows: "
                            f"tiled copies {til:.1f} bytes/row (x{scr / til:.1f} smaller than "
                            f"scrambled), the real {tile:,}-deal dataset {real:.1f} bytes/row "
                            f"(scrambled x{real / scr:.2f} smaller than real)"))
    return rows
