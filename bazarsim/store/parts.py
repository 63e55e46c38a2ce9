"""Part files and the manifest of a dataset directory: atomic writes, resume, reading.

A dataset is a directory of part files ``part-<start>-<end>.parquet`` (16-digit deal
index range ``[start, end)``) and a manifest ``_run.json`` holding the run's parameters.
Every file is written to a temporary name, fsynced and renamed into place, so a part is
either whole or absent whatever kills the writer; what is missing is found again from
the part names (:func:`missing_ranges`), which is all a resumed run needs.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from bazarsim.core.errors import BazarsimError
from bazarsim.store.schema import METADATA_KEY

MANIFEST = "_run.json"
PART_RE = re.compile(r"^part-(\d{16})-(\d{16})\.parquet$")
TMP_PREFIX = ".tmp-"


def part_name(start: int, end: int) -> str:
    return f"part-{start:016d}-{end:016d}.parquet"


def _tmp_path(path: Path) -> Path:
    return path.with_name(f"{TMP_PREFIX}{os.getpid()}-{path.name}")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary name, fsync, then rename: whole or absent."""
    tmp = _tmp_path(path)
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_part(table: pa.Table, path: Path, compression: str) -> None:
    """Write a part to a temporary name, fsync, then rename: whole or absent."""
    tmp = _tmp_path(path)
    with open(tmp, "wb") as fh:
        # Dictionary encoding costs a hash per value on ~100 small-integer columns and
        # buys little after zstd; plain encoding + zstd level 1 is several times faster.
        pq.write_table(table, fh, compression=compression, use_dictionary=False,
                       compression_level=1 if compression == "zstd" else None)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def with_part_metadata(table: pa.Table, meta: dict) -> pa.Table:
    return table.replace_schema_metadata({METADATA_KEY: json.dumps(meta).encode()})


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


def missing_ranges(out: Path, first: int, end: int) -> list[tuple[int, int]]:
    """Index ranges of ``[first, end)`` not yet covered by parts in ``out``."""
    covered = sorted(existing_parts(out))
    gaps, pos = [], first
    for a, b in covered:
        if a < pos or b > end:
            raise BazarsimError(f"{out}: part {part_name(a, b)} overlaps another part or "
                                f"lies outside {first}..{end}; the directory was "
                                "modified by hand")
        if a > pos:
            gaps.append((pos, a))
        pos = b
    if pos < end:
        gaps.append((pos, end))
    return gaps


def prepare_directory(out: Path, params: dict) -> None:
    """Create ``out`` or check that it holds the run ``params``; drop stale temp files."""
    out.mkdir(parents=True, exist_ok=True)
    manifest = out / MANIFEST
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
        atomic_write_bytes(manifest, json.dumps(params, indent=2).encode())
    for tmp in out.glob(f"{TMP_PREFIX}*"):
        tmp.unlink()


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
    arrow = open_dataset(out).to_table(columns=columns)
    return arrow.to_pandas().sort_values("index", kind="stable").reset_index(drop=True)


def part_metadata(path: str | Path) -> dict:
    schema = pq.read_schema(path)
    return json.loads(schema.metadata[METADATA_KEY])
