"""Part files and the manifest of a dataset directory: atomic writes, resume, reading.

A dataset is a directory of part files ``part-<start>-<end>.parquet`` (16-digit deal
index range ``[start, end)``) and a manifest ``_run.json`` holding the run's parameters.
Every file is written to a temporary name, fsynced and renamed into place, so a part is
either whole or absent whatever kills the writer; what is missing is found again from
the part names (:func:`missing_ranges`), which is all a resumed run needs.

Each part of a simulation carries a content digest in its schema metadata (key
``bazarsim.digest``, :func:`with_content_digest`): per column, a hash of the run's identity,
the part's index range and the column's name, type and values, computed from the Arrow
buffers as the part is written, so that ``bazarsim verify`` can tell damaged pages,
rewritten rows and another run's part under a sound footer without recomputing a row
(:func:`check_content`). Parts written before digests existed have none.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bazarsim.core.errors import BazarsimError
from bazarsim.store.location import FsPath, resolve
from bazarsim.store.schema import METADATA_KEY

AnyPath = Path | FsPath  # a local path, or a path on an fsspec file system (location.py)


class StoreError(BazarsimError):
    """A dataset path that cannot be read or written, or a damaged part file."""


MANIFEST = "_run.json"
# Manifest key listing the engines that wrote parts of the dataset (local, dask: workers,
# scheduler, chunk, version): a record, not part of the run's identity, which
# :func:`read_manifest` returns without it.
ENGINES = "engines"
MAX_ENGINE_RECORDS = 100
# Run parameters that set how far a run reaches, not which deals it holds: deal ``i`` of a
# seed is the same whatever the run's size, so a dataset grows by running the same command
# with a larger ``--deals`` (:func:`prepare_directory`), and its parts stay sound.
EXTENT_KEYS = ("deals",)
# Schema metadata key of a part's content digest (JSON: the hash's name, the digest of the
# run and the range, and one digest per column; see :func:`with_content_digest`).
DIGEST_KEY = b"bazarsim.digest"
# SHA-256 runs on the SHA extensions of current x86 and ARM cores: a part's column digests
# at 1.98 GB/s a core here, beside sha1 2.10, blake2b 1.38 and md5 0.87, and FIPS builds
# allow it (reports/verify-notes.md).
DIGEST_HASH = "sha256"
DIGEST_HEX = 32  # hex digits kept of each digest (128 bits)
PART_RE = re.compile(r"^part-(\d{16})-(\d{16})\.parquet$")
TMP_PREFIX = ".tmp-"


def part_name(start: int, end: int) -> str:
    return f"part-{start:016d}-{end:016d}.parquet"


@contextmanager
def os_errors(action: str, path: str | Path) -> Iterator[None]:
    """Turn an OS error (missing, not a directory, no permission, disk full...) into one
    :class:`StoreError` line naming the path."""
    try:
        yield
    except OSError as exc:
        where = exc.filename if exc.filename is not None else path
        raise StoreError(f"cannot {action} {str(where)!r}: {exc.strerror or exc}",
                         str(where)) from None


def _tmp_path(path: Path) -> Path:
    return path.with_name(f"{TMP_PREFIX}{os.getpid()}-{path.name}")


@contextmanager
def _atomic(path: AnyPath) -> Iterator[AnyPath]:
    """A temporary file renamed onto ``path`` when the block ends well and removed when
    it fails: the file is whole or absent."""
    tmp = _tmp_path(path)
    try:
        with os_errors("write", path):
            yield tmp
            if isinstance(tmp, FsPath):
                tmp.replace(path)
            else:
                os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


@contextmanager
def _durable(tmp: AnyPath) -> Iterator:
    """``tmp`` open for writing; a local file is fsynced before it is closed."""
    if isinstance(tmp, FsPath):
        with tmp.open("wb") as fh:
            yield fh
        return
    with open(tmp, "wb") as fh:
        yield fh
        fh.flush()
        os.fsync(fh.fileno())


def atomic_write_bytes(path: AnyPath, data: bytes) -> None:
    """Write ``data`` to a temporary name, fsync, then rename: whole or absent."""
    with _atomic(path) as tmp, _durable(tmp) as fh:
        fh.write(data)


def write_part(table: pa.Table, path: AnyPath, compression: str,
               digest: bool = False) -> None:
    """Write a part to a temporary name, fsync, then rename: whole or absent. With
    ``digest`` (a simulation's part: metadata with its run and range), its content digest
    is computed here, in the writer's thread, and written with it."""
    if digest:
        table = with_content_digest(table)
    with _atomic(path) as tmp, _durable(tmp) as fh:
        # Dictionary encoding costs a hash per value on ~100 small-integer columns and
        # buys little after zstd; plain encoding + zstd level 1 is several times faster.
        pq.write_table(table, fh, compression=compression, use_dictionary=False,
                       compression_level=1 if compression == "zstd" else None)


def with_part_metadata(table: pa.Table, meta: dict) -> pa.Table:
    return table.replace_schema_metadata({METADATA_KEY: json.dumps(meta).encode()})


def part_run(meta: dict) -> dict:
    """The run a part's metadata names: the metadata without the part's range and the
    version of the package that wrote it."""
    return {k: v for k, v in meta.items() if k not in ("start", "end", "package_version")}


def run_digest(params: dict, start: int, end: int, name: str = DIGEST_HASH) -> bytes:
    """The digest of a run's identity (its parameters without their extent, as canonical
    JSON) and a part's index range ``[start, end)``: what every column digest starts from."""
    identity = json.dumps(run_identity(params), sort_keys=True, separators=(",", ":"))
    return hashlib.new(name, f"{identity}|{start}|{end}".encode()).digest()


def _value_bytes(chunk: pa.Array):
    """A column chunk's values as bytes that do not depend on how Arrow holds them (a
    slice's offset, bit-packed booleans): little-endian, one item after another."""
    if chunk.null_count or not (pa.types.is_integer(chunk.type) or pa.types.is_floating(
            chunk.type) or pa.types.is_boolean(chunk.type)):
        return repr(chunk.to_pylist()).encode()  # never in a sound part: slow is fine
    values = np.ascontiguousarray(chunk.to_numpy(zero_copy_only=False))
    return values.astype(values.dtype.newbyteorder("<"), copy=False).view(np.uint8)


def column_digests(table: pa.Table, params: dict, start: int, end: int,
                   name: str = DIGEST_HASH) -> dict[str, str]:
    """Per column of ``table`` (the rows of deal indices ``[start, end)`` of the run
    ``params``), the hex digest of the run and range, the column's name and type, and its
    values (:func:`_value_bytes`, chunk after chunk: the same however the column is cut)."""
    run = run_digest(params, start, end, name)
    digests = {}
    for fld, column in zip(table.schema, table.columns, strict=True):
        h = hashlib.new(name, run)
        h.update(f"|{fld.name}|{fld.type}|".encode())
        for chunk in column.chunks:
            h.update(_value_bytes(chunk))
        digests[fld.name] = h.hexdigest()[:DIGEST_HEX]
    return digests


def with_content_digest(table: pa.Table) -> pa.Table:
    """``table`` (a part with its metadata: :meth:`Simulation.slice_range`) with its
    content digest (key :data:`DIGEST_KEY`) added to the schema metadata."""
    meta = json.loads(table.schema.metadata[METADATA_KEY])
    run, start, end = part_run(meta), meta["start"], meta["end"]
    digest = {"hash": DIGEST_HASH,
              "run": run_digest(run, start, end).hex()[:DIGEST_HEX],
              "columns": column_digests(table, run, start, end)}
    return table.replace_schema_metadata(
        {**table.schema.metadata, DIGEST_KEY: json.dumps(digest).encode()})


def existing_parts(out: AnyPath) -> list[tuple[int, int]]:
    """Index ranges of the complete part files in ``out``."""
    out = resolve(out)
    if not out.exists():
        return []
    parts = []
    for p in out.iterdir():
        m = PART_RE.match(p.name)
        if m:
            parts.append((int(m.group(1)), int(m.group(2))))
    return parts


def uncovered(ranges: list[tuple[int, int]], first: int, end: int,
              where: str | Path) -> list[tuple[int, int]]:
    """Index ranges of ``[first, end)`` that none of ``ranges`` (the parts' ``[start,
    end)``) covers; overlapping ranges, or ones outside the run, are refused."""
    gaps, pos = [], first
    for a, b in sorted(ranges):
        if a < pos or b > end:
            raise BazarsimError(f"{where}: part {part_name(a, b)} overlaps another part or "
                                f"lies outside {first}..{end}; the directory was "
                                "modified by hand")
        if a > pos:
            gaps.append((pos, a))
        pos = b
    if pos < end:
        gaps.append((pos, end))
    return gaps


def missing_ranges(out: AnyPath, first: int, end: int) -> list[tuple[int, int]]:
    """Index ranges of ``[first, end)`` not yet covered by parts in ``out``."""
    return uncovered(existing_parts(out), first, end, out)


def run_identity(params: dict) -> dict:
    """What makes two runs' rows the same: the parameters without their extent."""
    return {k: v for k, v in params.items() if k not in EXTENT_KEYS}


def _differences(old: dict, new: dict) -> list[str]:
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


def prepare_directory(out: AnyPath, params: dict, notice=None) -> None:
    """Create ``out`` or check that it holds the run ``params``; drop stale temp files.

    The same run with more deals extends the dataset: the manifest takes the new count and
    the missing index ranges are dealt (``notice`` hears it). Fewer deals than the dataset
    holds are refused: a run grows, it is never cut."""
    with os_errors("create the dataset directory", out):
        out.mkdir(parents=True, exist_ok=True)
    manifest = out / MANIFEST
    if manifest.exists():
        old = read_manifest(out)
        diff = _differences(run_identity(old), run_identity(params))
        if diff:
            raise BazarsimError(
                f"{out} holds a different simulation (differs in: {', '.join(diff)}); "
                "use another --out directory")
        if params["deals"] < old["deals"]:
            raise BazarsimError(
                f"{out} holds a run of {old['deals']} deals: give --deals {old['deals']} "
                "or more (a dataset grows, it is never cut; use another --out directory for "
                "fewer deals)", str(params["deals"]))
        if params["deals"] > old["deals"]:
            full = read_manifest_record(out)
            full["deals"] = params["deals"]
            atomic_write_bytes(manifest, json.dumps(full, indent=2).encode())
            if notice:
                notice(f"{out} held {old['deals']} deals: extending it to {params['deals']}")
    else:
        if any(out.glob("part-*.parquet")):
            raise BazarsimError(f"{out} has part files but no {MANIFEST}: not a "
                                "bazarsim dataset; use another --out directory")
        atomic_write_bytes(manifest, json.dumps(params, indent=2).encode())
    remove_temp_files(out)


def not_a_dataset(out, why: str) -> StoreError:
    """The one wording of "this is not a dataset", whichever command reads it."""
    return StoreError(f"{str(out)!r} is not a bazarsim dataset ({why}): write one with "
                      "bazarsim simulate", str(out))


def part_files(out: str | AnyPath) -> list[AnyPath]:
    out = resolve(out)
    if not out.is_dir():
        raise not_a_dataset(out, "no such directory")
    with os_errors("read", out):
        files = sorted(p for p in out.iterdir() if PART_RE.match(p.name))
    if not files:
        raise BazarsimError(f"{str(out)!r} holds no part files (part-*.parquet)")
    return files


def read_manifest(out: str | Path) -> dict:
    """The run's parameters (its identity): the manifest without its engine record."""
    data = read_manifest_record(out)
    data.pop(ENGINES, None)
    return data


def read_manifest_record(out: str | Path) -> dict:
    """The whole manifest: the run's parameters and the engines that wrote it."""
    path = resolve(out) / MANIFEST
    if not path.exists():
        raise not_a_dataset(out, f"no {MANIFEST}")
    with os_errors("read", path):
        text = path.read_text()
    try:
        return json.loads(text)
    except ValueError:
        raise StoreError(f"damaged manifest {str(path)!r}: not JSON; a dataset without its "
                         "manifest cannot be repaired, simulate it again", str(path)) from None


def record_engine(out: str | Path, entry: dict) -> None:
    """Add ``entry`` (which engine wrote parts, how) to the manifest's engine record."""
    full = read_manifest_record(out)
    history = [*full.get(ENGINES, []), entry][-MAX_ENGINE_RECORDS:]
    full[ENGINES] = history
    atomic_write_bytes(resolve(out) / MANIFEST, json.dumps(full, indent=2).encode())


def remove_temp_files(out: AnyPath) -> None:
    """Drop the temporary files a killed writer left behind (never a part)."""
    with os_errors("clean up", out):
        for tmp in out.glob(f"{TMP_PREFIX}*"):
            tmp.unlink(missing_ok=True)


def read_manifest_or_none(out: str | Path) -> dict | None:
    """The manifest, or None where there is none or it cannot be read."""
    try:
        return read_manifest(out)
    except BazarsimError:
        return None


def repair_hint(out: str | Path) -> str:
    return f"repair it with: bazarsim verify {out} --repair"


def part_range(path: AnyPath) -> tuple[int, int]:
    m = PART_RE.match(path.name)
    return int(m.group(1)), int(m.group(2))


def check_part(path: AnyPath, params: dict) -> str | None:
    """Why the part at ``path`` is not a sound part of the run ``params`` (None if it is):
    its footer must be readable, its row count and metadata index range must match its
    name, and its metadata must name the same run as the manifest (its size aside: a part
    written before the run was extended is a part of it)."""
    start, end = part_range(path)
    try:
        if isinstance(path, FsPath):
            with path.open("rb") as fh:
                footer = pq.ParquetFile(fh).metadata
        else:
            footer = pq.ParquetFile(path).metadata
        meta = json.loads(footer.schema.to_arrow_schema().metadata[METADATA_KEY])
    except (OSError, pa.ArrowException, KeyError, TypeError, ValueError) as exc:
        return f"unreadable ({_one_line(exc)})"
    rows = footer.num_rows
    if rows != end - start:
        return f"{rows} rows where its name says {end - start}"
    if (meta.get("start"), meta.get("end")) != (start, end):
        return f"its metadata says indices {meta.get('start')}..{meta.get('end')}"
    diff = _differences(run_identity(part_run(meta)), run_identity(params))
    if diff:
        return f"written by another run (differs in: {', '.join(diff)})"
    return None


def _names(names: list[str], most: int = 4) -> str:
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else f"{shown} and {len(names) - most} more"


class ContentCheck(NamedTuple):
    """What :func:`check_content` found: the faults (none: sound), whether the part
    carries a content digest (None: unreadable, cannot tell), and its rows as read."""

    faults: list[str]
    digested: bool | None
    table: pa.Table | None


def check_content(path: AnyPath, params: dict) -> ContentCheck:
    """What is wrong with the content of the part at ``path`` (a sound footer: see
    :func:`check_part`) as a part of the run ``params``. Every page is read; the ``index``
    column must be exactly ``start .. end - 1`` in order; where there is a digest, it must
    be the run's and range's, and each column's must match the values read. A part without
    a digest (written before digests) gets the pages and index checks only. The rows read
    are returned, so that a caller can use them without reading the part again."""
    try:
        table = _read_part(path, None)
    except (OSError, pa.ArrowException) as exc:
        return ContentCheck([f"unreadable ({_one_line(exc)})"], None, None)
    return ContentCheck(*_content_faults(table, path, params), table)


def _content_faults(table: pa.Table, path: AnyPath, params: dict) -> tuple[list[str], bool]:
    start, end = part_range(path)
    faults = []
    if "index" not in table.column_names:
        faults.append("no index column")
    else:
        index = table.column("index").to_numpy()
        wrong = np.flatnonzero(index != np.arange(start, start + len(index)))
        if wrong.size:
            k = int(wrong[0])
            faults.append(f"its index column is not {start}..{end - 1} in order "
                          f"({wrong.size:,} of {len(index):,} rows; row {k} holds {index[k]})")
    raw = (table.schema.metadata or {}).get(DIGEST_KEY)
    if raw is None:
        return faults, False
    try:
        digest = json.loads(raw)
        name, run, stored = digest["hash"], digest["run"], dict(digest["columns"])
        expected = run_digest(params, start, end, name).hex()[:DIGEST_HEX]
    except (ValueError, KeyError, TypeError):
        return [*faults, "its content digest is unreadable"], True
    if run != expected:
        return [*faults, f"its content digest was written for another run or other deal "
                         f"indices than {start}..{end - 1}"], True
    fresh = column_digests(table, params, start, end, name)
    differ = [c for c in fresh if c in stored and stored[c] != fresh[c]]
    if differ:
        one = len(differ) == 1
        faults.append(f"{'column' if one else 'columns'} {_names(differ)} ({len(differ)} of "
                      f"{len(fresh)}) {'differs' if one else 'differ'} from the digest "
                      "written with the part (damaged pages, or rows rewritten)")
    unlisted = [c for c in fresh if c not in stored]
    if unlisted:
        faults.append(f"column {_names(unlisted)} not in its digest")
    lost = [c for c in stored if c not in fresh]
    if lost:
        faults.append(f"no column {_names(lost)}, which its digest lists")
    return faults, True


def damaged_parts(out: AnyPath, params: dict) -> list[tuple[AnyPath, str]]:
    """Every part of ``out`` that :func:`check_part` rejects, with the reason."""
    found = []
    with os_errors("read", out):
        paths = sorted(p for p in out.iterdir() if PART_RE.match(p.name)) if out.is_dir() else []
    for path in paths:
        why = check_part(path, params)
        if why:
            found.append((path, why))
    return found


def checked_part_files(out: str | AnyPath) -> list[AnyPath]:
    """The part files of a dataset, each one's footer and metadata checked against the
    manifest; a damaged one is named in a :class:`StoreError` with the repair command."""
    params = read_manifest(out)
    files = part_files(out)
    for path in files:
        why = check_part(path, params)
        if why:
            raise StoreError(f"damaged part {str(path)!r}: {why}; {repair_hint(out)}",
                             str(path))
    return files


def open_dataset(out: str | Path):
    """A ``pyarrow.dataset.Dataset`` over the part files (checked: see
    :func:`checked_part_files`)."""
    import pyarrow.dataset as ds

    files = checked_part_files(out)
    if isinstance(files[0], FsPath):
        return ds.dataset([p.path for p in files], format="parquet",
                          filesystem=files[0].arrow_filesystem())
    return ds.dataset([str(p) for p in files], format="parquet")


def _read_part(path: AnyPath, columns: list[str] | None) -> pa.Table:
    if isinstance(path, FsPath):
        with path.open("rb") as fh:
            return pq.ParquetFile(fh).read(columns=columns)
    return pq.ParquetFile(path).read(columns=columns)


def part_schema(path: AnyPath) -> pa.Schema:
    """The Arrow schema of a part (its footer only)."""
    if isinstance(path, FsPath):
        with path.open("rb") as fh:
            return pq.read_schema(fh)
    return pq.read_schema(path)


def stream_batches(files: list[AnyPath], columns: list[str],
                   batch_size: int = 1 << 20) -> Iterator[pa.RecordBatch]:
    """The rows of ``files`` (parts, e.g. :func:`checked_part_files`) in file order,
    ``columns`` only, at most ``batch_size`` rows a batch. The next part is read (in a
    thread) while the caller works on this one, and no further: memory holds two parts'
    columns whatever the number of parts. (pyarrow's dataset scanner reads ahead as fast
    as it can when the consumer is slower than the disk: 1.7 GB for a 100 M-row table
    freq whose parts hold 12 MB of its columns each.)"""
    from concurrent.futures import ThreadPoolExecutor

    if not files:
        return
    with ThreadPoolExecutor(1) as pool:
        ahead = pool.submit(_read_part, files[0], columns)
        for k in range(len(files)):
            table = ahead.result()
            if k + 1 < len(files):
                ahead = pool.submit(_read_part, files[k + 1], columns)
            yield from table.to_batches(max_chunksize=batch_size)
            del table


@contextmanager
def reading(out: str | Path) -> Iterator[None]:
    """Wrap a scan of a dataset: a part damaged past its footer (a bad page) becomes one
    :class:`StoreError` line with the repair command."""
    try:
        with os_errors("read", out):
            yield
    except pa.ArrowException as exc:
        raise StoreError(f"damaged dataset {str(out)!r}: {_one_line(exc)}; "
                         f"{repair_hint(out)}", str(out)) from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def read_dataframe(out: str | Path, columns: list[str] | None = None):
    """The dataset as a pandas DataFrame sorted by ``index`` (for tests and small runs)."""
    if columns is not None and "index" not in columns:
        columns = ["index", *columns]
    with reading(out):
        arrow = open_dataset(out).to_table(columns=columns)
    return arrow.to_pandas().sort_values("index", kind="stable").reset_index(drop=True)


def part_metadata(path: str | AnyPath) -> dict:
    path = resolve(path) if isinstance(path, str) else path
    if isinstance(path, FsPath):
        with path.open("rb") as fh:
            schema = pq.read_schema(fh)
    else:
        schema = pq.read_schema(path)
    return json.loads(schema.metadata[METADATA_KEY])
