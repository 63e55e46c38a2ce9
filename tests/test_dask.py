"""The Dask engine: the same dataset as the in-process engine on a real LocalCluster of
worker processes, a worker SIGKILLed mid-task, a driver resumed, and the errors a team
meets first (no scheduler, another bazarsim version on a worker)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import bazarsim.engine.dask as dask_engine
from bazarsim.cli import app
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.dask import DaskEngine, KillOnce
from bazarsim.engine.faults import KILL_AFTER_PARTS
from bazarsim.engine.local import chunk_ranges
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store.parts import (
    MANIFEST,
    TMP_PREFIX,
    existing_parts,
    part_files,
    read_dataframe,
    read_manifest,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def cluster():
    """Two single-threaded worker processes, shared by the module's tests."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=50) as c:
        yield c


CHECKS = ("same_dataset_as_in_process_with_any_chunk", "dd_and_sd_run_is_the_same_dataset",
          "auction_run_is_the_same_dataset",
          "worker_killed_mid_task_loses_nothing", "resumes_from_the_parts_on_disk",
          "cli_on_a_scheduler_with_a_file_url", "workers_write_through_an_fsspec_url",
          "worker_with_another_version_is_an_error", "driver_killed_and_restarted_resumes")


def test_on_a_local_cluster(tmp_path, cluster):
    """Every check on one cluster of worker processes (one test, so that pytest-xdist
    does not start a cluster in each of its workers): each check_* below in turn."""
    engine = DaskEngine(scheduler=cluster.scheduler_address, numba_threads=1)
    for name in CHECKS:
        (tmp_path / name).mkdir()
        globals()[f"check_{name}"](tmp_path / name, engine, cluster)


def lean(**kw) -> Simulation:
    return Simulation(**{"deals": 3000, "seed": 7, "columns": "lean", "kinds": (1, 4), **kw})


def assert_same_dataset(a: Path, b: Path) -> None:
    da, db = read_dataframe(a), read_dataframe(b)
    assert len(da) == len(db) and list(da.columns) == list(db.columns)
    assert da.equals(db)
    assert read_manifest(a) == read_manifest(b)


def assert_clean(out: Path, first: int, end: int) -> None:
    """Parts tile ``[first, end)`` exactly (no duplicate, no overlap), no temp file."""
    ranges = sorted(existing_parts(out))
    assert ranges[0][0] == first and ranges[-1][1] == end
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:], strict=False))
    assert not [p for p in out.iterdir() if p.name.startswith(TMP_PREFIX)]
    for p in part_files(out):
        assert pq.ParquetFile(p).metadata.num_rows > 0


def check_same_dataset_as_in_process_with_any_chunk(tmp_path, engine, _cluster):
    run_simulation(lean(chunk=1000), tmp_path / "local")
    summary = run_simulation(lean(chunk=430), tmp_path / "dask", engine=engine)
    assert summary["written"] == 3000 and summary["engine"] == "dask"
    assert summary["workers"] == 2
    assert_same_dataset(tmp_path / "local", tmp_path / "dask")
    assert_clean(tmp_path / "dask", 0, 3000)
    assert len(part_files(tmp_path / "dask")) == 7  # one part a task
    record = json.loads((tmp_path / "dask" / MANIFEST).read_text())["engines"]
    assert record[-1]["engine"] == "dask" and record[-1]["chunk"] == 430
    assert json.loads((tmp_path / "local" / MANIFEST).read_text())["engines"][-1][
        "engine"] == "local"


def check_dd_and_sd_run_is_the_same_dataset(tmp_path, engine, _cluster):
    kw = {"deals": 24, "seed": 3, "columns": "lean", "dd": True, "sd": 2, "kinds": (1, 4)}
    run_simulation(Simulation(**kw, chunk=24), tmp_path / "local")
    run_simulation(Simulation(**kw, chunk=5, first=0), tmp_path / "dask", engine=engine)
    assert_same_dataset(tmp_path / "local", tmp_path / "dask")
    assert {"H_dd_ns", "H_sd_ns", "BK_sd_capot"} <= set(read_dataframe(tmp_path / "dask").columns)


def check_auction_run_is_the_same_dataset(tmp_path, engine, _cluster):
    """simulate --auction: the column source travels with the tasks (without its model,
    which each worker loads), same rows as in process."""
    from bazarsim.beliefs.auctioned import AuctionColumns, parse_table_policies

    src = AuctionColumns(get_ruleset("bazar"), parse_table_policies("careful,E=bold"), None, 2)
    kw = {"deals": 8, "seed": 3, "columns": "lean", "extra": src}
    run_simulation(Simulation(**kw, chunk=8), tmp_path / "local")
    run_simulation(Simulation(**kw, chunk=3), tmp_path / "dask", engine=engine)
    assert_same_dataset(tmp_path / "local", tmp_path / "dask")
    assert read_manifest(tmp_path / "dask")["auction"]["sd"]["worlds"] == 2


def check_worker_killed_mid_task_loses_nothing(tmp_path, engine, cluster):
    run_simulation(lean(chunk=3000), tmp_path / "local")
    marker = tmp_path / "killed-once"
    pids = {w.process.pid for w in cluster.workers.values()}
    summary = dask_engine.run_dask(lean(chunk=500), tmp_path / "dask", engine,
                                   kill=KillOnce(start=1000, marker=str(marker)))
    assert marker.exists()  # a worker did die, mid-write (half a temp part)
    assert summary["written"] == 3000
    assert_same_dataset(tmp_path / "local", tmp_path / "dask")
    assert_clean(tmp_path / "dask", 0, 3000)
    assert len(part_files(tmp_path / "dask")) == 6
    guard = time.time() + 600  # the nanny restarts the dead worker (a hang guard only)
    while time.time() < guard:
        alive = {w.process.pid for w in cluster.workers.values() if w.process}
        if len(alive) == 2 and alive != pids and len(cluster.scheduler.workers) == 2:
            break
        time.sleep(0.2)
    assert alive != pids and len(cluster.scheduler.workers) == 2


def check_resumes_from_the_parts_on_disk(tmp_path, engine, _cluster):
    out = tmp_path / "d"
    run_simulation(lean(chunk=600), tmp_path / "local")
    run_simulation(lean(chunk=600), out)  # in-process, then lose two parts and damage one
    files = part_files(out)
    files[1].unlink()
    files[4].unlink()
    files[6].write_bytes(files[6].read_bytes()[:100])
    notes = []
    summary = run_simulation(lean(chunk=250), out, engine=engine, notice=notes.append)
    assert summary["written"] == 3 * 300 and summary["resumed_from"] == 2100
    assert len(notes) == 1 and "damaged" in notes[0]
    assert_same_dataset(tmp_path / "local", out)
    assert_clean(out, 0, 3000)
    again = run_simulation(lean(chunk=250), out, engine=engine)
    assert again["written"] == 0
    engines = [e["engine"] for e in json.loads((out / MANIFEST).read_text())["engines"]]
    assert engines == ["local", "dask"]  # a run with nothing to do records nothing


def check_cli_on_a_scheduler_with_a_file_url(tmp_path, _engine, cluster):
    out = tmp_path / "cli"
    res = CliRunner().invoke(app, ["simulate", "-n", "1500", "--seed", "7", "--columns",
                                   "lean", "--kinds", "H,BK", "--chunk", "400", "--out",
                                   out.as_uri(), "--scheduler", cluster.scheduler_address])
    assert res.exit_code == 0, res.output
    assert "on 2 Dask workers" in res.output
    run_simulation(lean(deals=1500), tmp_path / "local")
    assert_same_dataset(tmp_path / "local", out)


def check_workers_write_through_an_fsspec_url(tmp_path, engine, _cluster):
    """local:// goes through fsspec on the workers (the code path of s3://); a URL the
    workers cannot see (memory:// lives in the driver's process) is one error."""
    run_simulation(lean(deals=1200), tmp_path / "local")
    url = f"local://{tmp_path}/fs"
    summary = run_simulation(lean(deals=1200, chunk=500), url, engine=engine)
    assert summary["written"] == 1200 and summary["out"] == url
    assert_same_dataset(tmp_path / "local", tmp_path / "fs")
    assert_clean(tmp_path / "fs", 0, 1200)
    with pytest.raises(BazarsimError, match="cannot see the dataset directory"):
        run_simulation(lean(deals=100), f"memory://bazarsim-test/{tmp_path.name}", engine=engine)


def check_worker_with_another_version_is_an_error(tmp_path, engine, cluster):
    real = dask_engine.__version__
    dask_engine.__version__ = "9.9.9"  # the driver's version, as the engine sees it
    try:
        with pytest.raises(BazarsimError,
                           match=rf"runs bazarsim {re.escape(real)}.*driver bazarsim 9\.9\.9"):
            run_simulation(lean(), tmp_path / "d", engine=engine)
    finally:
        dask_engine.__version__ = real
    assert not (tmp_path / "d").exists()  # checked before anything is written


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_scheduler_is_one_error_line(tmp_path):
    res = CliRunner().invoke(app, ["simulate", "-n", "100", "--out", str(tmp_path / "x"),
                                   "--scheduler", f"tcp://127.0.0.1:{closed_port()}",
                                   "--connect-timeout", "1"])
    assert res.exit_code == 2
    err = res.output.splitlines()
    assert len(err) == 1 and err[0].startswith("error: cannot reach the Dask scheduler")
    assert not (tmp_path / "x").exists()


def test_engine_options_are_checked():
    with pytest.raises(BazarsimError, match="one of"):
        DaskEngine(scheduler="tcp://127.0.0.1:1", workers=2)
    with pytest.raises(BazarsimError, match="--workers 0"):
        DaskEngine(workers=0)
    assert chunk_ranges([(0, 10), (20, 25)], 4) == [(0, 4), (4, 8), (8, 10), (20, 24),
                                                   (24, 25)]


# --------------------------------------------------------------------------- gates


@pytest.mark.gate
@pytest.mark.parametrize("workers", [1, 3])
def test_local_clusters_of_1_and_3_workers(tmp_path, workers):
    """Sample in make test: test_on_a_local_cluster (two workers)"""
    kw = {"deals": 40, "seed": 11, "dd": True, "columns": "full"}
    run_simulation(Simulation(**kw), tmp_path / "local")
    for chunk in (1, 13):
        run_simulation(Simulation(**kw, chunk=chunk), tmp_path / f"w{chunk}",
                       engine=DaskEngine(workers=workers))
        assert_same_dataset(tmp_path / "local", tmp_path / f"w{chunk}")
        assert_clean(tmp_path / f"w{chunk}", 0, 40)


@pytest.mark.gate
def test_driver_killed_and_restarted_resumes(tmp_path, cluster):
    """SIGKILL the `bazarsim simulate --scheduler` driver of a DD and SD run once parts exist;
    the same command again finishes the dataset, identical to an in-process one.

    Sample in make test: test_on_a_local_cluster (its driver check, without DD)"""
    driver_killed_then_resumed(tmp_path, cluster, Simulation(deals=60, seed=5, dd=True, sd=2,
                                                             columns="lean"), chunk=4)


def check_driver_killed_and_restarted_resumes(tmp_path, _engine, cluster):
    driver_killed_then_resumed(tmp_path, cluster, Simulation(deals=3000, seed=5,
                                                             columns="lean"), chunk=200)


def driver_killed_then_resumed(tmp_path, cluster, sim: Simulation, chunk: int) -> None:
    out = tmp_path / "d"
    args = [sys.executable, "-m", "bazarsim", "simulate", "-n", str(sim.deals), "--seed",
            str(sim.seed), *(["--dd"] if sim.dd else []),
            *(["--sd", "-w", str(sim.sd)] if sim.sd else []), "--columns", sim.columns,
            "--chunk", str(chunk), "--out", str(out), "--scheduler",
            cluster.scheduler_address, "-q"]
    tasks = -(-sim.deals // chunk)
    # the driver SIGKILLs itself once 3 parts are written (engine/faults.py), not a clock
    p = subprocess.run(args, cwd=ROOT, capture_output=True,
                       env=dict(os.environ, **{KILL_AFTER_PARTS: "3"}))
    assert p.returncode == -signal.SIGKILL
    assert 3 <= len(existing_parts(out)) < tasks
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    run_simulation(sim, tmp_path / "local")
    assert_same_dataset(tmp_path / "local", out)
    assert_clean(out, 0, sim.deals)
