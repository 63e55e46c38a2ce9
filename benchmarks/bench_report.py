"""``bazarsim report`` over a large DD dataset: build time on this machine and page size.

Solving a million deals double dummy takes hours, and the report only reads the columns,
so the dataset is synthetic: a small real one (every kind of bazar solved double dummy,
``--columns lean``) repeated to ``ROWS`` rows with fresh deal indices and written as parts
of the real schema with a matching manifest. Deals repeat, which changes no cost: the
report scans every row the same way. Timed in this process after a warm-up on the small
dataset (compiled kernels, matplotlib loaded): the frequency table, the four bid-table
scans behind the figures, the figures and the page written.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import bazarsim
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.report.html import write_page
from bazarsim.report.pages import dataset_page
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store.parts import part_files, part_name, read_manifest
from bazarsim.store.schema import METADATA_KEY

from .common import row

ROWS = 1_000_000
PART = 131_072


def replicate(base: Path, out: Path, rows: int) -> None:
    """``base`` repeated to ``rows`` rows, deal indices 0 .. rows - 1, parts and manifest
    as ``simulate`` writes them."""
    table = pa.concat_tables([pq.read_table(p) for p in part_files(base)])
    table = table.sort_by("index")
    reps = -(-rows // table.num_rows)
    big = pa.concat_tables([table] * reps).slice(0, rows)
    col = big.schema.get_field_index("index")
    big = big.set_column(col, big.schema.field(col),
                         pa.array(np.arange(rows), big.schema.field(col).type))
    manifest = read_manifest(base)
    manifest.update(deals=rows, first=0)
    out.mkdir(parents=True)
    for start in range(0, rows, PART):
        end = min(rows, start + PART)
        meta = dict(manifest, start=start, end=end, package_version=bazarsim.__version__)
        part = big.slice(start, end - start).replace_schema_metadata(
            {METADATA_KEY: json.dumps(meta).encode()})
        pq.write_table(part, out / part_name(start, end), compression="zstd",
                       use_dictionary=False)
    (out / "_run.json").write_text(json.dumps(manifest, indent=2))


def collect(quick: bool) -> list[dict]:
    rows = 50_000 if quick else ROWS
    tmp = Path(tempfile.mkdtemp(prefix="bench-report-"))
    try:
        base = tmp / "base"
        run_simulation(Simulation(deals=96 if quick else 512, seed=9, ruleset=get_ruleset("bazar"),
                                  columns="lean", dd=True), base)
        write_page(dataset_page(str(base)), tmp / "warm.html", "bench")  # warm-up
        big = tmp / "big"
        replicate(base, big, rows)
        t0 = time.perf_counter()
        page = dataset_page(str(big))
        write_page(page, tmp / "big.html", "bench")
        seconds = time.perf_counter() - t0
        size = (tmp / "big.html").stat().st_size
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    note = (f"{rows:,} deals x 6 kinds DD (synthetic: a real {96 if quick else 512}-deal "
            "dataset repeated), "
            f"{page.figures} figures, {len(page.tables)} tables; one run")
    return [
        row("report", f"bazarsim report, {rows:,} DD deals", seconds, "s", note),
        row("report", "page size", size / 1e6, "MB", "one self-contained HTML file; one run"),
    ]
