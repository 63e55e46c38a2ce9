"""What content digests cost: ``simulate`` with and without them, side by side in one
run, the digest of one part alone under a few hashlib hashes, and ``verify`` of a
1,000,000-deal dataset (default columns: full, six kinds) against its footer checks alone.

Each part's digest (:func:`bazarsim.store.parts.with_content_digest`) is computed in the
writer's thread as the part is written. "Without" runs the same engine with
``write_part(digest=False)``: the engine as it was before digests. The two are timed in
turn, fresh directories, best of a few rounds, on 2 Numba threads (or fewer where Numba
has fewer). ``verify`` reads every page of every part, checks each index column and
recomputes each column's digest; the rows below split that into its steps.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

import bazarsim.engine.local as local
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.engine.verify import verify_dataset
from bazarsim.store.parts import (
    check_part,
    column_digests,
    part_files,
    part_range,
    part_run,
    read_manifest,
)
from bazarsim.store.schema import METADATA_KEY

from .common import numba_threads, row, thread_counts, threads_label

GROUP = "verify and content digests"


@contextmanager
def without_digests():
    """The local engine writing parts as before digests existed."""
    write = local.write_part
    local.write_part = lambda table, path, compression, digest=False: write(table, path,
                                                                           compression)
    try:
        yield
    finally:
        local.write_part = write


def _simulate(sim: Simulation, out: Path, digest: bool) -> tuple[float, float]:
    """Wall and CPU seconds (all of this process's threads) of one run."""
    t0, c0 = time.perf_counter(), time.process_time()
    if digest:
        run_simulation(sim, out)
    else:
        with without_digests():
            run_simulation(sim, out)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    shutil.rmtree(out, ignore_errors=True)
    return seconds, cpu


def _digest_rates(path: Path, names: tuple[str, ...], repeats: int) -> dict[str, float]:
    """MB/s of the column digests of one part under each hash (values in memory)."""
    table = pq.read_table(path)
    meta = json.loads(table.schema.metadata[METADATA_KEY])
    run, (start, end) = part_run(meta), part_range(path)
    rates = {}
    for name in names:
        best = min(_timed(lambda n=name: column_digests(table, run, start, end, n))[0]
                   for _ in range(repeats))
        rates[name] = table.nbytes / best / 1e6
    return rates


def _timed(fn) -> tuple[float, float]:
    """Wall and CPU seconds (all threads) of ``fn()``."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def collect(quick: bool) -> list[dict]:
    rounds = 2 if quick else 7
    threads = thread_counts((1, 2))[-1]
    cases = (("lean, hearts", dict(columns="lean", kinds=(1,)), 1_000_000 if quick
              else 4_000_000),
             ("full, 6 kinds", dict(columns="full"), 250_000 if quick else 1_000_000))
    tmp = Path(tempfile.mkdtemp(prefix="bench-verify-"))
    rows: list[dict] = []
    try:
        with numba_threads(threads):
            run_simulation(Simulation(deals=2000, seed=1, chunk=1000), tmp / "warm")
            for label, kw, deals in cases:
                sim = Simulation(deals=deals, seed=2026, **kw)
                best = {True: float("inf"), False: float("inf")}
                cpu = {True: float("inf"), False: float("inf")}
                ratios = []  # with / without rate, per round (back to back: less noise)
                for r in range(rounds):
                    walls = {}
                    for digest in ((True, False) if r % 2 == 0 else (False, True)):
                        walls[digest], used = _simulate(sim, tmp / "run", digest)
                        best[digest] = min(best[digest], walls[digest])
                        cpu[digest] = min(cpu[digest], used)
                    ratios.append(walls[False] / walls[True])
                on, off = deals / best[True], deals / best[False]
                how = (f"{deals:,} deals, default chunk (2^20 deals, 2 parts a chunk), "
                       f"{threads_label(threads)}, best of {rounds} rounds, with and without "
                       "in turn")
                rows.append(row(GROUP, f"simulate {label}: with digests", on, "deals/s",
                                f"{on / off:.1%} of the best rate without, "
                                f"{statistics.median(ratios):.1%} the median of the rounds' "
                                f"ratios; {how}"))
                rows.append(row(GROUP, f"simulate {label}: without digests", off, "deals/s",
                                f"the engine as before digests; {how}"))
                for digest in (True, False):
                    rows.append(row(
                        GROUP, f"simulate {label}: CPU {'with' if digest else 'without'} "
                        "digests", cpu[digest] / deals * 1e6, "cpu-s/M deals",
                        "CPU time of all threads: the work added, whatever else runs on "
                        "the machine" + (f" (x{cpu[True] / cpu[False]:.3f})" if digest else "")
                        + f"; {how}"))
            deals = 250_000 if quick else 1_000_000
            out = tmp / "verify"
            run_simulation(Simulation(deals=deals, seed=2026), out)
            files = part_files(out)
            params = read_manifest(out)
            size = sum(p.stat().st_size for p in files)
            data = sum(pq.ParquetFile(p).metadata.num_rows for p in files)
            what = f"verify {deals / 1e6:g} M deals"
            how = (f"{deals:,} deals (full columns, 6 kinds), {len(files)} parts, "
                   f"{size / 1e6:.0f} MB on disk (in the page cache); best of {rounds} runs, "
                   "the steps in turn")
            steps = (("footers only", lambda: [check_part(p, params) for p in files],
                      "what readers check before a scan (check_part)"),
                     ("+ every page read, index checked",
                      lambda: [_pages_and_index(p) for p in files], "verify before digests"),
                     ("+ digests (bazarsim verify)", lambda: verify_dataset(out),
                      "every check"),
                     ("--sample 100", lambda: verify_dataset(out, sample=100),
                      "100 rows recomputed from the seed (one Numba thread)"))
            assert verify_dataset(out).ok and data == deals
            wall, cpu = {}, {}
            for _ in range(rounds):  # the steps in turn, round after round
                for label, fn, _ in steps:
                    w, c = _timed(fn)
                    wall[label] = min(wall.get(label, w), w)
                    cpu[label] = min(cpu.get(label, c), c)
            before, now = steps[1][0], steps[2][0]
            for label, _, what_it_is in steps:
                extra = ""
                if label == now:
                    extra = (f"; {deals / wall[label] / 1e6:.2f} M deals/s; the digests "
                             f"{cpu[now] - cpu[before]:.2f} CPU-s of it, "
                             f"x{cpu[now] / cpu[before]:.2f} the CPU time before digests")
                if label == steps[3][0]:
                    extra = (f"; {(cpu[label] - cpu[now]) * 10:.1f} CPU-ms a row recomputed")
                rows.append(row(GROUP, f"{what}: {label}", wall[label], "s",
                                f"{what_it_is}; CPU {cpu[label]:.2f} s{extra}; {how}"))
            rates = _digest_rates(files[0], ("sha256", "sha1", "blake2b", "md5"), rounds)
            part_rows = pq.ParquetFile(files[0]).metadata.num_rows
            for name, rate in rates.items():
                rows.append(row(GROUP, f"column digests of a part, {name}", rate, "MB/s",
                                f"{part_rows:,} rows, full columns, Arrow bytes in memory, "
                                f"one thread; best of {rounds} runs"
                                + ("; the hash parts carry" if name == "sha256" else "")))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def _pages_and_index(path: Path) -> bool:
    """Every page read and the index column checked: ``verify`` before digests."""
    start, end = part_range(path)
    return bool(np.array_equal(pq.read_table(path).column("index").to_numpy(),
                               np.arange(start, end)))
