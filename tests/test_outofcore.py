"""Tables read datasets by streaming record batches: the same figures whatever the batch
size (a dataset far larger than one batch is the out-of-core case), and from a file://
URL as from its path; fsspec URLs (memory://, the same code as s3://) write and read
datasets like paths."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bazarsim.analysis.bids import bid_table
from bazarsim.analysis.freq import frequency_table
from bazarsim.cli import app
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.store.location import resolve
from bazarsim.store.parts import part_files, read_dataframe, read_manifest


def test_freq_streams_batches_and_reads_file_urls(tmp_path):
    run_simulation(Simulation(deals=2000, seed=9, columns="lean", chunk=700), tmp_path / "d")
    whole = frequency_table(tmp_path / "d")
    assert frequency_table(tmp_path / "d", batch_size=450) == whole
    assert frequency_table((tmp_path / "d").as_uri()) == whole


def test_bids_stream_batches_and_read_file_urls(tmp_path):
    run_simulation(
        Simulation(deals=30, seed=4, columns="lean", dd=True, kinds=(1, 4), chunk=11),
        tmp_path / "dd")
    whole = bid_table(tmp_path / "dd", by=["trumps"])
    assert bid_table(tmp_path / "dd", by=["trumps"], batch_size=7) == whole
    assert bid_table((tmp_path / "dd").as_uri(), by=["trumps"]) == whole
    res = CliRunner().invoke(app, ["table", "bids", (tmp_path / "dd").as_uri(), "--kind", "H",
                                   "--format", "csv"])
    assert res.exit_code == 0 and "p_make" in res.output


def test_fsspec_urls_write_and_read_like_paths(tmp_path):
    """A memory:// dataset (any fsspec file system: the same code as s3://): same rows,
    same tables, a damaged part found and redone."""
    import fsspec

    run_simulation(Simulation(deals=2000, seed=2, columns="lean", chunk=700), tmp_path / "local")
    url = f"memory://bazarsim-test/{tmp_path.name}"
    summary = run_simulation(Simulation(deals=2000, seed=2, columns="lean", chunk=450), url)
    assert summary["written"] == 2000 and summary["out"] == url
    local = read_dataframe(tmp_path / "local")
    assert read_dataframe(url).equals(local)
    assert frequency_table(url) == frequency_table(tmp_path / "local")
    assert read_manifest(url) == read_manifest(tmp_path / "local")
    mem = fsspec.filesystem("memory")
    victim = part_files(url)[2]
    mem.pipe_file(victim.path, mem.cat_file(victim.path)[:300])
    with pytest.raises(BazarsimError, match="damaged part"):
        frequency_table(url)
    notes = []
    again = run_simulation(
        Simulation(deals=2000, seed=2, columns="lean", chunk=450), url, notice=notes.append)
    assert again["written"] == 225 and "damaged" in notes[0]
    assert read_dataframe(url).equals(local)
    assert not [p for p in mem.ls(f"/bazarsim-test/{tmp_path.name}", detail=False)
                if "/.tmp-" in p]
    mem.rm(f"/bazarsim-test/{tmp_path.name}", recursive=True)


def test_bad_urls_are_one_error(tmp_path):
    assert resolve("file:///tmp/x") == resolve("/tmp/x")
    assert str(resolve("file://localhost/tmp/a%20b")) == "/tmp/a b"
    with pytest.raises(BazarsimError, match="this machine"):
        resolve("file://otherhost/tmp/x")
    with pytest.raises(BazarsimError, match="nosuchfs://"):
        resolve("nosuchfs://bucket/runs/s7")
    res = CliRunner().invoke(app, ["table", "freq", "nosuchfs://bucket/runs/s7"])
    assert res.exit_code == 2 and res.output.startswith("error: ")


def test_stream_reads_one_part_ahead(tmp_path, monkeypatch):
    """While the caller counts part k, part k + 1 is being read, and no other."""
    from bazarsim.store import parts

    run_simulation(Simulation(deals=6_000, seed=3, columns="lean", chunk=1_000), tmp_path / "d")
    files = parts.checked_part_files(tmp_path / "d")
    started = []
    read = parts._read_part
    monkeypatch.setattr(parts, "_read_part", lambda path, cols: started.append(path)
                        or read(path, cols))
    rows = 0
    for k, batch in enumerate(parts.stream_batches(files, ["index", "N"], 1 << 20)):
        assert len(started) <= k + 2  # this part and the next
        assert batch.column("index")[0].as_py() == rows  # in index order
        rows += batch.num_rows
    assert len(files) == 12 and started == files and rows == 6_000


def _left_allocated(fn) -> int:
    """Arrow memory still allocated after ``fn`` ran with the cyclic GC off: what a
    reference cycle kept alive (batches of every part, on a large dataset GBs)."""
    import gc

    import pyarrow as pa

    gc.collect()
    base = pa.total_allocated_bytes()
    gc.disable()
    try:
        fn()
        return pa.total_allocated_bytes() - base
    finally:
        gc.enable()
        gc.collect()


def test_tables_keep_no_batch_alive(tmp_path):
    run_simulation(Simulation(deals=6_000, seed=3, columns="lean", chunk=1_000), tmp_path / "d")
    assert _left_allocated(lambda: frequency_table(tmp_path / "d")) == 0
    run_simulation(Simulation(deals=40, seed=4, columns="lean", dd=True, kinds=(1,), chunk=4,
                              writers=1), tmp_path / "dd")
    assert _left_allocated(lambda: bid_table(tmp_path / "dd", by=["trumps"])) == 0
