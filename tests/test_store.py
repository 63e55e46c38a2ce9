"""The dataset on disk: OS errors as one line, damaged parts found, named and redone,
``bazarsim verify`` and its repair, and a run rebuilt from its manifest."""

from __future__ import annotations

import errno
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.deals.constraints import parse_constraints
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.engine.verify import verify_dataset
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store import parts as store
from bazarsim.store.parts import MANIFEST, StoreError, part_files, read_dataframe

runner = CliRunner()
SIM = ["simulate", "-n", "3000", "--chunk", "1000", "-s", "3", "--columns", "lean", "-q"]


def cli(*args):
    return runner.invoke(app, list(args))


def one_error_line(result) -> str:
    lines = result.output.strip().splitlines()
    errors = [ln for ln in lines if ln.startswith("error: ")]
    assert len(errors) == 1 and "Traceback" not in result.output, result.output
    return errors[0]


@pytest.fixture()
def dataset(tmp_path):
    out = tmp_path / "ds"
    assert cli(*SIM, "--out", str(out)).exit_code == 0
    return out


def test_unusable_output_paths_are_one_error_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    for out in ("/dev/null/x", str(blocker), str(blocker / "sub")):
        result = cli("simulate", "-n", "10", "--out", out, "-q")
        assert result.exit_code == 2
        line = one_error_line(result)
        assert out.split("/sub")[0] in line or str(blocker) in line, line
    assert list(tmp_path.iterdir()) == [blocker]  # nothing else left behind


def test_missing_input_is_one_error_line(tmp_path):
    for args in (("table", "freq", str(tmp_path / "none")), ("verify", str(tmp_path / "none"))):
        result = cli(*args)
        assert result.exit_code == 2 and str(tmp_path / "none") in one_error_line(result)


def test_disk_full_leaves_no_partial_file(tmp_path, monkeypatch):
    def full(*_args, **_kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store.pq, "write_table", full)
    out = tmp_path / "ds"
    with pytest.raises(StoreError, match="No space left on device") as err:
        run_simulation(Simulation(deals=100, seed=1, kinds=(1,), columns="lean"), out)
    assert "part-0000000000000000" in str(err.value)
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST]  # no part, no temp file


def test_truncated_part_is_named_by_readers_and_redone_by_simulate(dataset):
    whole = read_dataframe(dataset)
    victim = part_files(dataset)[1]
    victim.write_bytes(victim.read_bytes()[:3000])
    result = cli("table", "freq", str(dataset))
    assert result.exit_code == 2
    line = one_error_line(result)
    assert victim.name in line and f"bazarsim verify {dataset} --repair" in line
    with pytest.raises(StoreError, match=victim.name):
        read_dataframe(dataset)
    again = cli(*SIM, "--out", str(dataset))
    assert again.exit_code == 0
    assert f"{victim.name} is damaged" in again.output
    assert read_dataframe(dataset).equals(whole)


def test_part_of_another_run_is_redone(dataset, tmp_path):
    other = tmp_path / "other"
    assert cli(*SIM[:-3], "-s", "4", "--columns", "lean", "-q", "--out", str(other)).exit_code == 0
    whole = read_dataframe(dataset)
    name = part_files(dataset)[0].name
    (dataset / name).write_bytes((other / name).read_bytes())
    reason = store.check_part(dataset / name, store.read_manifest(dataset))
    assert reason and "seed" in reason
    run_simulation(Simulation.from_params(store.read_manifest(dataset)), dataset)
    assert read_dataframe(dataset).equals(whole)


def test_verify_finds_faults_and_repairs_them(dataset):
    whole = read_dataframe(dataset)
    files = part_files(dataset)
    files[2].write_bytes(files[2].read_bytes()[:100])
    files[4].unlink()
    result = cli("verify", str(dataset))
    assert result.exit_code == 1
    assert files[2].name in result.output and "have no part" in result.output
    fixed = cli("verify", str(dataset), "--repair", "-q")
    assert fixed.exit_code == 0, fixed.output
    assert cli("verify", str(dataset), "--sample", "10").exit_code == 0
    assert read_dataframe(dataset).equals(whole)


def test_verify_sample_catches_wrong_values(dataset):
    """Wrong values under the sound part's digest: the digest names the column; under a
    digest taken of the wrong values (a part written wrong), only recomputation sees it."""
    path = part_files(dataset)[0]
    rows = pq.read_table(path)
    points = rows.column("N_H_points").to_numpy().copy()
    points[:] = 99
    bad = rows.set_column(rows.schema.get_field_index("N_H_points"), "N_H_points",
                          pa.array(points))
    pq.write_table(bad.replace_schema_metadata(rows.schema.metadata), path)
    (fault,) = verify_dataset(dataset).faults
    assert fault.startswith(f"{path.name}: column N_H_points (1 of ")
    own = {k: v for k, v in rows.schema.metadata.items() if k != store.DIGEST_KEY}
    pq.write_table(store.with_content_digest(bad.replace_schema_metadata(own)), path)
    assert verify_dataset(dataset).ok
    found = verify_dataset(dataset, sample=50)
    assert not found.ok and any("N_H_points" in f for f in found.faults)
    result = cli("verify", str(dataset), "--sample", "50", "--format", "json")
    assert result.exit_code == 1 and json.loads(result.output)["ok"] is False


@pytest.mark.parametrize("kw", [
    {},
    {"ruleset": get_ruleset("belote-fr", **{"play.undertrump_required": "false"}),
     "kinds": (1, 4), "dealer": 2, "columns": "lean", "first": 500},
    {"constraints": parse_constraints(["S=AJ9.K7.Q.T8"], ["len(N,H)>=3"]), "seed": 9},
])
def test_run_rebuilt_from_its_manifest(kw):
    sim = Simulation(deals=1000, **kw)
    assert Simulation.from_params(sim.params()).params() == sim.params()


# --------------------------------------------------------------------------- unit checks
# The store's pure pieces on tiny hand-made parts, against plain references (hashlib and
# the ranges written out by hand).

PARAMS = {"seed": 7, "deals": 40, "ruleset": "bazar", "columns": "lean"}


def tiny_part(start, end, params=PARAMS, chunks=1, **cols):
    """A part of deal indices ``[start, end)`` with its metadata (the run ``params``)."""
    import numpy as np

    n = end - start
    data = {"index": np.arange(start, end, dtype=np.int64),
            "pts": (np.arange(n, dtype=np.int16) * 7) % 11,
            "ok": np.arange(n) % 3 == 0, "x": np.linspace(0, 1, n), **cols}
    table = pa.table(data)
    if chunks > 1:
        cut = max(1, n // chunks)
        table = pa.concat_tables([table.slice(0, cut), table.slice(cut)])
    meta = dict(params, start=start, end=end, package_version="0")
    return store.with_part_metadata(table, meta)


def plain_run_digest(params, start, end, name="sha256"):
    import hashlib

    ident = {k: params[k] for k in sorted(params) if k != "deals"}
    text = "{" + ",".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in ident.items()) + "}"
    return hashlib.new(name, f"{text}|{start}|{end}".encode()).digest()


def plain_column_digests(table, params, start, end, name="sha256"):
    """Per column: the run digest, then ``|name|type|``, then the values little-endian one
    after another (booleans one byte each), 32 hex digits kept."""
    import hashlib
    import struct

    run = plain_run_digest(params, start, end, name)
    out = {}
    for f in table.schema:
        h = hashlib.new(name, run)
        h.update(f"|{f.name}|{f.type}|".encode())
        values = table.column(f.name).to_pylist()
        code = {"int64": "q", "int16": "h", "double": "d", "bool": "?"}[str(f.type)]
        h.update(struct.pack(f"<{len(values)}{code}", *values))
        out[f.name] = h.hexdigest()[:32]
    return out


@pytest.mark.parametrize("name", ["sha256", "md5"])
def test_run_and_column_digests_against_hashlib(name):
    """The run's identity (its deals aside) and range, each column's name, type and values,
    however the column is chunked; another hash by name; 128 bits kept."""
    t = tiny_part(10, 30)
    assert store.run_digest(PARAMS, 10, 30, name) == plain_run_digest(PARAMS, 10, 30, name)
    assert store.run_digest(PARAMS, 10, 30) == plain_run_digest(PARAMS, 10, 30)
    assert store.run_digest(dict(PARAMS, deals=99), 10, 30) == store.run_digest(PARAMS, 10, 30)
    assert store.run_digest(PARAMS, 10, 31) != store.run_digest(PARAMS, 10, 30)
    want = plain_column_digests(t, PARAMS, 10, 30, name)
    got = store.column_digests(t, PARAMS, 10, 30, name)
    assert got == want and all(len(v) == 32 for v in got.values())
    assert store.column_digests(tiny_part(10, 30, chunks=3), PARAMS, 10, 30, name) == want
    assert store.column_digests(t, PARAMS, 10, 30) == plain_column_digests(t, PARAMS, 10, 30)


def test_column_digest_of_a_column_with_nulls():
    """A null makes the values their Python repr (never in a sound part, but digested)."""
    import hashlib

    t = pa.table({"v": pa.array([1, None, 3], pa.int64())})
    h = hashlib.sha256(plain_run_digest(PARAMS, 0, 3))
    h.update(b"|v|int64|")
    h.update(b"[1, None, 3]")
    assert store.column_digests(t, PARAMS, 0, 3) == {"v": h.hexdigest()[:32]}


def test_with_content_digest_writes_the_run_and_every_column():
    t = tiny_part(5, 17, chunks=2)
    got = store.with_content_digest(t)
    assert got.equals(t)
    meta = got.schema.metadata
    assert meta[store.METADATA_KEY] == t.schema.metadata[store.METADATA_KEY]
    run = {k: v for k, v in PARAMS.items()}
    digest = json.loads(meta[store.DIGEST_KEY])
    assert digest == {"hash": "sha256", "run": plain_run_digest(run, 5, 17).hex()[:32],
                      "columns": plain_column_digests(t, run, 5, 17)}


def write_tiny(path, table, digest=True):
    store.write_part(table, path, "zstd", digest=digest)
    return path


def test_check_part_and_content_name_each_fault(tmp_path):
    good = write_tiny(tmp_path / store.part_name(0, 20), tiny_part(0, 20))
    assert store.check_part(good, PARAMS) is None
    assert store.check_part(good, dict(PARAMS, deals=1000)) is None  # extent aside
    assert store.check_part(good, dict(PARAMS, seed=8)) == (
        "written by another run (differs in: seed)")
    assert store.check_part(good, dict(PARAMS, seed=8, extra=1)) == (
        "written by another run (differs in: extra, seed)")
    found = store.check_content(good, PARAMS)
    assert found.faults == [] and found.digested is True
    assert found.table.column("index").to_pylist() == list(range(20))
    short = write_tiny(tmp_path / store.part_name(20, 40), tiny_part(20, 39))
    assert store.check_part(short, PARAMS) == "19 rows where its name says 20"
    moved = write_tiny(tmp_path / store.part_name(40, 60), tiny_part(0, 20))
    assert store.check_part(moved, PARAMS) == "its metadata says indices 0..20"
    broken = tmp_path / store.part_name(60, 70)
    broken.write_bytes(b"PAR1 not a parquet file")
    assert store.check_part(broken, PARAMS).startswith("unreadable (")
    found = store.check_content(broken, PARAMS)
    assert found.faults[0].startswith("unreadable (") and found.digested is None
    assert found.table is None
    old = write_tiny(tmp_path / store.part_name(70, 80), tiny_part(70, 80), digest=False)
    found = store.check_content(old, PARAMS)
    assert found.faults == [] and found.digested is False and found.table.num_rows == 10
    other = store.check_content(good, dict(PARAMS, seed=8))
    assert other.faults == ["its content digest was written for another run or other deal "
                            "indices than 0..19"] and other.digested is True
    assert sorted((p.name, why) for p, why in store.damaged_parts(tmp_path, PARAMS)) == [
        (short.name, "19 rows where its name says 20"),
        (moved.name, "its metadata says indices 0..20"),
        (broken.name, store.check_part(broken, PARAMS))]
    assert [p for p, _ in store.damaged_parts(tmp_path, PARAMS)] == sorted([short, moved, broken])
    assert store.damaged_parts(tmp_path / "none", PARAMS) == []


def test_existing_and_missing_ranges(tmp_path):
    assert store.existing_parts(tmp_path / "none") == []
    assert store.missing_ranges(tmp_path / "none", 0, 10) == [(0, 10)]
    for a, b in ((10, 20), (0, 5), (30, 40)):
        (tmp_path / store.part_name(a, b)).write_bytes(b"")
    (tmp_path / "part-1-2.parquet").write_bytes(b"")  # not a part's name
    (tmp_path / f"{store.part_name(5, 10)}.tmp").write_bytes(b"")
    (tmp_path / MANIFEST).write_text("{}")
    assert sorted(store.existing_parts(tmp_path)) == [(0, 5), (10, 20), (30, 40)]
    assert store.missing_ranges(tmp_path, 0, 45) == [(5, 10), (20, 30), (40, 45)]
    assert store.missing_ranges(tmp_path, 0, 40) == [(5, 10), (20, 30)]


@pytest.mark.parametrize("ranges,first,end,gaps", [
    ([], 0, 10, [(0, 10)]),
    ([(0, 10)], 0, 10, []),
    ([(3, 5)], 3, 8, [(5, 8)]),
    ([(5, 8)], 3, 8, [(3, 5)]),
    ([(6, 8), (0, 2), (2, 4)], 0, 10, [(4, 6), (8, 10)]),
    ([(1, 2), (3, 4)], 0, 5, [(0, 1), (2, 3), (4, 5)]),
])
def test_uncovered_by_hand(ranges, first, end, gaps):
    assert store.uncovered(ranges, first, end, "d") == gaps


@pytest.mark.parametrize("ranges,first,end", [
    ([(0, 5), (4, 8)], 0, 10),  # overlap
    ([(0, 5), (0, 5)], 0, 10),  # twice
    ([(0, 11)], 0, 10),  # past the end
    ([(2, 4)], 3, 10),  # before the first
])
def test_uncovered_refuses_overlaps_and_strays(ranges, first, end):
    from bazarsim.core.errors import BazarsimError

    with pytest.raises(BazarsimError, match=r"^d: part part-\d{16}-\d{16}\.parquet overlaps"):
        store.uncovered(ranges, first, end, "d")


def test_check_part_through_fsspec_and_unreadable_reasons(tmp_path):
    """A part on an fsspec file system (memory://, the code of s3://) is checked like a
    local one; an unreadable part's reason quotes the reader's error."""
    from bazarsim.store.location import resolve

    base = resolve(f"memory://bazarsim-check/{tmp_path.name}")
    base.mkdir(parents=True, exist_ok=True)
    good = base / store.part_name(0, 20)
    store.write_part(tiny_part(0, 20), good, "zstd", digest=True)
    assert store.check_part(good, PARAMS) is None
    assert store.check_part(good, dict(PARAMS, seed=8)) == (
        "written by another run (differs in: seed)")
    bad = base / store.part_name(20, 40)
    with bad.open("wb") as fh:
        fh.write(b"PAR1 not a parquet file")
    assert store.check_part(bad, PARAMS).startswith("unreadable (")
    assert [(p.name, w[:12]) for p, w in store.damaged_parts(base, PARAMS)] == [
        (bad.name, "unreadable (")]
    local = tmp_path / store.part_name(0, 5)
    local.write_bytes(b"PAR1 not a parquet file")
    try:
        pq.ParquetFile(local)
        raise AssertionError("read")
    except pa.ArrowException as exc:
        said = " ".join(str(exc).split())
    assert said and store.check_part(local, PARAMS) == f"unreadable ({said})"
    found = store.check_content(local, PARAMS)
    assert found.faults == [f"unreadable ({said})"]


def test_listing_errors_name_the_directory(tmp_path, monkeypatch):
    """An OS error listing the parts (as an fsspec file system raises it: no file name)
    is one error naming the action and the directory; overlapping parts name it too."""
    import errno
    from pathlib import Path

    (tmp_path / store.part_name(0, 10)).write_bytes(b"")
    (tmp_path / store.part_name(5, 15)).write_bytes(b"")
    with pytest.raises(store.BazarsimError,
                       match=rf"^{tmp_path}: part part-0+5-0+15\.parquet overlaps"):
        store.missing_ranges(tmp_path, 0, 20)

    def refused(self):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(Path, "iterdir", refused)
    with pytest.raises(StoreError) as err:
        store.damaged_parts(tmp_path, PARAMS)
    assert str(err.value) == f"cannot read {str(tmp_path)!r}: Input/output error"
