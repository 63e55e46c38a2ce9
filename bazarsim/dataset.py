"""Simulations streamed to a Parquet dataset: chunked, atomic, resumable.

A run deals indices ``0 .. N-1`` of one seed (:mod:`bazarsim.deals.generator`), evaluates every
deal for each contract kind (:mod:`bazarsim.evaluate.hands` kernels) and writes one row per
deal. Chunks become part files ``part-<start>-<end>.parquet`` (16-digit index range
``[start, end)``; a chunk is written as ``writers`` parts by parallel threads), each
written to a temporary name and renamed into place, so a part is either whole or absent.
Restarting the same command scans the parts present and deals only the missing
ranges: since deal ``i`` depends only on ``(seed, i)`` the result is the same dataset
whatever was interrupted, and whatever the chunk size or thread count. ``_run.json``
records the run's parameters; a different command on the same directory is refused.
``first`` starts the run at another index, so shards of one seed (disjoint index
ranges, run anywhere) read together give the same rows as one run. Memory is bounded by
the chunk size (at most two chunks in flight: one being written while the next is
computed).

Columns (one row per deal):

* ``number`` (deal number, :mod:`bazarsim.deals.numbering`), ``seed``, ``index``, ``dealer``
  (0..3 = N E S W), hands ``N E S W`` (``uint32`` card masks, :mod:`bazarsim.core.cards`);
* per seat: ``{seat}_aces``; per seat and kind (``S H D C BK VK`` as the ruleset has
  them): ``{seat}_{kind}_points``, ``_trumps``, ``_trump_jacks``, ``_trump_nines``,
  ``_belas``, ``_declarations`` (declaration points before the comparison);
* per kind: ``{kind}_declaration_side`` (0 NS, 1 EW, -1 none), ``{kind}_declarations_ns``,
  ``_ew`` (points that score), ``{kind}_bela_ns``, ``_ew``; per deal: ``redeal`` (four
  sevens) and ``cancelled`` (four eights).

``columns="lean"`` keeps, besides the deal columns and hands, only ``{seat}_{kind}_points``,
``{kind}_declaration_side``, ``{kind}_declarations_ns`` / ``_ew``, ``redeal`` and
``cancelled``: what the hands alone do not give by a bit test (trumps, J/9 of trump, bela
and aces do). Parquet writing costs about the same per column whatever the type, so the
lean set (52 columns for six kinds instead of 188) is several times faster to write.

Schema metadata key ``bazarsim`` (JSON): schema version, package version, ruleset and
its options, seed, index range of the part, constraints, dealer mode and kinds.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bazarsim import __version__
from bazarsim.core.cards import SEATS, parse_seat
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.constraints import Constraints, no_constraints
from bazarsim.deals.generator import DealGenerator
from bazarsim.evaluate.hands import (
    DEAL_FIELDS,
    HAND_FIELDS,
    evaluate_deals_kernel,
    evaluate_hands_kernel,
    points_and_declarations_kernel,
)
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.rulesets import Ruleset, get_ruleset

SCHEMA_VERSION = 1
MANIFEST = "_run.json"
PART_RE = re.compile(r"^part-(\d{16})-(\d{16})\.parquet$")
DEFAULT_CHUNK = 1 << 20
METADATA_KEY = b"bazarsim"

HAND_COLUMNS = (  # (suffix, evaluate_hands field, dtype)
    ("points", "points", np.int16),
    ("trumps", "trumps", np.int8),
    ("trump_jacks", "trump_jacks", np.int8),
    ("trump_nines", "trump_nines", np.int8),
    ("belas", "belas", np.int8),
    ("declarations", "declaration_points", np.int16),
)
DEAL_COLUMNS = ("declaration_side", "declarations_ns", "declarations_ew", "bela_ns", "bela_ew")
COLUMN_SETS = ("full", "lean")


def part_name(start: int, end: int) -> str:
    return f"part-{start:016d}-{end:016d}.parquet"


def parse_dealer(text: str | int) -> int:
    """``rotate`` (dealer = index mod 4, code -1) or a seat N E S W (0..3)."""
    if isinstance(text, int):
        return text
    if text.strip().lower() == "rotate":
        return -1
    return parse_seat(text)


@dataclass
class Simulation:
    """Parameters of one run; ``run(out)`` writes (or completes) its dataset."""

    deals: int
    seed: int = 0
    ruleset: Ruleset = field(default_factory=get_ruleset)
    constraints: Constraints = field(default_factory=no_constraints)
    dealer: int = -1  # -1: rotate with the index
    kinds: tuple[int, ...] | None = None
    chunk: int = DEFAULT_CHUNK
    compression: str = "zstd"
    columns: str = "full"
    first: int = 0  # first deal index: shards of one seed are runs over disjoint ranges
    writers: int = 2  # part files written in parallel per chunk (threads)

    def __post_init__(self):
        if self.deals < 0:
            raise BazarsimError(f"--deals {self.deals}: must be >= 0")
        if self.first < 0:
            raise BazarsimError(f"--first {self.first}: must be >= 0")
        if self.chunk < 1:
            raise BazarsimError(f"--chunk {self.chunk}: must be >= 1")
        if self.writers < 1:
            raise BazarsimError(f"writers {self.writers}: must be >= 1")
        if self.columns not in COLUMN_SETS:
            raise BazarsimError(f"--columns {self.columns!r}: choose full or lean",
                                self.columns)
        self.kinds = tuple(self.kinds) if self.kinds else tuple(self.ruleset.kinds)
        for k in self.kinds:
            self.ruleset.check_kind(k)
        self.generator = DealGenerator(self.seed, self.constraints, self.ruleset)
        self.acceptance = 1.0
        self.compiled = compiled_rules(self.ruleset)

    # ------------------------------------------------------------------ identity
    def params(self) -> dict:
        """What defines the dataset (the chunk size and compression do not)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "seed": self.seed,
            "deals": self.deals,
            "first": self.first,
            "ruleset": self.ruleset.name,
            "options": {k: _plain(v) for k, v in self.ruleset.options().items()},
            "constraints": self.constraints.as_dict(),
            "dealer": "rotate" if self.dealer < 0 else SEATS[self.dealer],
            "kinds": [KIND_NAMES[k] for k in self.kinds],
            "columns": self.columns,
        }

    # ------------------------------------------------------------------ compute
    def chunk_table(self, start: int, end: int) -> pa.Table:
        """Deal, evaluate and tabulate indices ``start .. end - 1``."""
        n = end - start
        batch = self.generator.deal(start, n)
        index = np.arange(start, end, dtype=np.int64)
        dealers = (index & 3).astype(np.int8) if self.dealer < 0 else np.full(
            n, self.dealer, np.int8)
        cols: dict[str, np.ndarray] = {
            "number": batch.numbers,
            "seed": np.full(n, self.seed, np.uint64),
            "index": index,
            "dealer": dealers,
        }
        hands = batch.hands
        by_seat = np.ascontiguousarray(hands.T)  # seat-major: outputs slice per seat, no copy
        for s, name in enumerate(SEATS):
            cols[name] = by_seat[s]
        flat = by_seat.reshape(-1)
        full = self.columns == "full"
        t = self.compiled
        for j, kind in enumerate(self.kinds):
            kname = KIND_NAMES[kind]
            if full:
                out = {f: np.empty(4 * n, d) for f, d in HAND_FIELDS}
                evaluate_hands_kernel(flat, kind, t, *out.values())
                if j == 0:
                    for s, name in enumerate(SEATS):
                        cols[f"{name}_aces"] = out["aces"][s * n:(s + 1) * n]
                for s, name in enumerate(SEATS):
                    for suffix, fld, _dtype in HAND_COLUMNS:
                        cols[f"{name}_{kname}_{suffix}"] = out[fld][s * n:(s + 1) * n]
            else:
                points = np.empty(4 * n, np.int16)
                decl = np.empty(4 * n, np.int16)
                points_and_declarations_kernel(flat, kind, t, points, decl)
                for s, name in enumerate(SEATS):
                    cols[f"{name}_{kname}_points"] = points[s * n:(s + 1) * n]
            deal_out = {f: np.empty(n, d) for f, d in DEAL_FIELDS}
            evaluate_deals_kernel(hands, dealers, kind, t, *deal_out.values())
            for fld in (DEAL_COLUMNS if full else DEAL_COLUMNS[:3]):
                cols[f"{kname}_{fld}"] = deal_out[fld]
            if j == 0:
                cols["redeal"] = deal_out["redeal"]
                cols["cancelled"] = deal_out["cancelled"]
        return self.with_range(pa.table(cols), 0, start, end)

    def with_range(self, table: pa.Table, offset: int, start: int, end: int) -> pa.Table:
        """Rows ``offset ..`` of ``table`` for indices ``start .. end - 1``, with metadata."""
        meta = dict(self.params(), start=start, end=end, package_version=__version__)
        part = table.slice(offset, end - start)
        return part.replace_schema_metadata({METADATA_KEY: json.dumps(meta).encode()})

    # ------------------------------------------------------------------ files
    def missing_ranges(self, out: Path) -> list[tuple[int, int]]:
        """Index ranges of ``[first, first + deals)`` not yet covered by parts in ``out``."""
        covered = sorted(existing_parts(out))
        end = self.first + self.deals
        gaps, pos = [], self.first
        for a, b in covered:
            if a < pos or b > end:
                raise BazarsimError(f"{out}: part {part_name(a, b)} overlaps another part or "
                                    f"lies outside {self.first}..{end}; the directory was "
                                    "modified by hand")
            if a > pos:
                gaps.append((pos, a))
            pos = b
        if pos < end:
            gaps.append((pos, end))
        return gaps

    def prepare(self, out: Path) -> None:
        """Create ``out`` or check that it holds this same run; drop stale temp files."""
        out.mkdir(parents=True, exist_ok=True)
        manifest = out / MANIFEST
        params = self.params()
        if manifest.exists():
            old = json.loads(manifest.read_text())
            if old != params:
                diff = sorted(k for k in set(old) | set(params) if old.get(k) != params.get(k))
                raise BazarsimError(
                    f"{out} holds a different simulation (differs in: {', '.join(diff)}); "
                    "use another --out directory")
        else:
            if any(out.glob("part-*.parquet")):
                raise BazarsimError(f"{out} has part files but no {MANIFEST}: not a "
                                    "bazarsim dataset; use another --out directory")
            _atomic_write_bytes(manifest, json.dumps(params, indent=2).encode())
        for tmp in out.glob(".tmp-*"):
            tmp.unlink()

    def run(self, out: str | Path, progress: Callable[[int, int], None] | None = None) -> dict:
        """Write the missing parts of the dataset in ``out``; returns a summary.

        Each chunk is written as ``writers`` part files by as many threads (Parquet
        encoding releases the GIL), while the next chunk is dealt and evaluated.
        """
        out = Path(out)
        if self.constraints.predicates.shape[0]:
            self.acceptance = self.generator.check_feasible()  # refuse, don't hang
        self.prepare(out)
        gaps = self.missing_ranges(out)
        todo = sum(b - a for a, b in gaps)
        done_before = self.deals - todo
        if progress:
            progress(done_before, self.deals)
        t0 = time.perf_counter()
        pool = ThreadPoolExecutor(self.writers)
        pending: list[Future] = []
        written = 0
        try:
            for a, b in gaps:
                for start in range(a, b, self.chunk):
                    end = min(b, start + self.chunk)
                    table = self.chunk_table(start, end)
                    for f in pending:  # at most two chunks in memory
                        f.result()
                    pending = [pool.submit(_write_part, self.with_range(table, s0 - start, s0, s1),
                                           out / part_name(s0, s1), self.compression)
                               for s0, s1 in _split(start, end, self.writers)]
                    written += end - start
                    if progress:
                        progress(done_before + written, self.deals)
            for f in pending:
                f.result()
        finally:
            pool.shutdown(wait=True)
        elapsed = time.perf_counter() - t0
        return {"out": str(out), "deals": self.deals, "resumed_from": done_before,
                "written": written, "seconds": elapsed,
                "deals_per_second": written / elapsed if elapsed > 0 else float("nan")}


def _split(start: int, end: int, pieces: int) -> list[tuple[int, int]]:
    """``[start, end)`` cut into at most ``pieces`` contiguous non-empty ranges."""
    pieces = max(1, min(pieces, end - start))
    cuts = [start + (end - start) * k // pieces for k in range(pieces + 1)]
    return [(cuts[k], cuts[k + 1]) for k in range(pieces)]


def _plain(v):
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    return v


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".tmp-{os.getpid()}-{path.name}")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _write_part(table: pa.Table, path: Path, compression: str) -> None:
    """Write a part to a temporary name, fsync, then rename: whole or absent."""
    tmp = path.with_name(f".tmp-{os.getpid()}-{path.name}")
    with open(tmp, "wb") as fh:
        # Dictionary encoding costs a hash per value on ~100 small-integer columns and
        # buys little after zstd; plain encoding + zstd level 1 is several times faster.
        pq.write_table(table, fh, compression=compression, use_dictionary=False,
                       compression_level=1 if compression == "zstd" else None)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def existing_parts(out: Path) -> list[tuple[int, int]]:
    """Index ranges of the complete part files in ``out``."""
    if not out.exists():
        return []
    parts = []
    for p in out.iterdir():
        m = PART_RE.match(p.name)
        if m:
            parts.append((int(m.group(1)), int(m.group(2))))
    return parts


def part_files(out: str | Path) -> list[Path]:
    out = Path(out)
    if not out.is_dir():
        raise BazarsimError(f"no dataset directory {str(out)!r}")
    files = sorted(p for p in out.iterdir() if PART_RE.match(p.name))
    if not files:
        raise BazarsimError(f"{str(out)!r} holds no part files (part-*.parquet)")
    return files


def read_manifest(out: str | Path) -> dict:
    path = Path(out) / MANIFEST
    if not path.exists():
        raise BazarsimError(f"{str(out)!r} is not a bazarsim dataset (no {MANIFEST})")
    return json.loads(path.read_text())


def open_dataset(out: str | Path):
    """A ``pyarrow.dataset.Dataset`` over the complete part files."""
    import pyarrow.dataset as ds

    return ds.dataset([str(p) for p in part_files(out)], format="parquet")


def read_dataframe(out: str | Path, columns: list[str] | None = None):
    """The dataset as a pandas DataFrame sorted by ``index`` (for tests and small runs)."""
    if columns is not None and "index" not in columns:
        columns = ["index", *columns]
    table = open_dataset(out).to_table(columns=columns)
    return table.to_pandas().sort_values("index", kind="stable").reset_index(drop=True)


def part_metadata(path: str | Path) -> dict:
    schema = pq.read_schema(path)
    return json.loads(schema.metadata[METADATA_KEY])
