"""The Dask engine: a simulation's missing index ranges run as tasks on a ``dask.distributed``
cluster (a scheduler's address, or a ``LocalCluster`` of worker processes started here).

Each task is one index range: the worker rebuilds the run from its parameters (the
manifest's, :meth:`Simulation.from_params`), deals, evaluates, DD-solves (with ``--dd``)
and writes its own part file atomically into the dataset directory, which every worker
must reach by the same name: a shared file system path, or an fsspec URL
(:mod:`bazarsim.store.location`: ``s3://``...). Since a range's rows are a pure function
of the run and the range, the dataset is the one the local engine writes, whatever the
number of workers or the chunk size; only the part boundaries differ.

Faults: a worker that dies mid-task leaves at most a temporary file (removed at the end);
the scheduler runs its task again elsewhere; a part written twice (a task run again after
all) is replaced by the same bytes, atomically. A driver killed and started again resumes
from the parts on disk, as with the local engine. A scheduler that cannot be reached, no
worker, a worker running another bazarsim version, or a worker that cannot see the
dataset directory: one :class:`BazarsimError`.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bazarsim import __version__
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.faults import parts_written, task_pause
from bazarsim.store.location import resolve
from bazarsim.store.parts import (
    MANIFEST,
    TMP_PREFIX,
    missing_ranges,
    part_name,
    prepare_directory,
    record_engine,
    remove_temp_files,
    write_part,
)

if TYPE_CHECKING:
    from bazarsim.engine.simulation import Simulation

DEFAULT_TIMEOUT = 10.0  # seconds to reach the scheduler, and for a first worker to join
TASK_RETRIES = 2


@dataclass(frozen=True)
class DaskEngine:
    """Where the tasks run: ``scheduler`` (an address such as ``tcp://host:8786``),
    ``workers`` local worker processes, or (Python API) ``client``, a connected
    ``distributed.Client`` (a hosted cluster's, with its TLS security); ``timeout``:
    seconds to reach the scheduler and for a first worker to be there;
    ``numba_threads``: Numba threads a task uses (None: this machine's cores shared
    among local workers, 1 on a remote cluster: run one single-threaded worker process
    per core there)."""

    scheduler: str | None = None
    workers: int | None = None
    timeout: float = DEFAULT_TIMEOUT
    numba_threads: int | None = None
    client: object = None

    def __post_init__(self):
        given = [x is not None for x in (self.scheduler, self.workers, self.client)]
        if sum(given) != 1:
            raise BazarsimError("choose one of --scheduler ADDRESS or --workers N")
        if self.workers is not None and self.workers < 1:
            raise BazarsimError(f"--workers {self.workers}: must be >= 1")
        if self.timeout <= 0:
            raise BazarsimError(f"--connect-timeout {self.timeout}: must be > 0")

    def task_threads(self) -> int:
        if self.numba_threads is not None:
            return max(1, self.numba_threads)
        if self.workers is not None:
            return max(1, (os.cpu_count() or 1) // self.workers)
        return 1

    def describe(self) -> dict:
        if self.workers is not None:
            return {"local_workers": self.workers}
        if self.scheduler is not None:
            return {"scheduler": self.scheduler}
        return {"scheduler": str(getattr(self.client, "scheduler_info", lambda: {})()
                                 .get("address"))}


@dataclass(frozen=True)
class KillOnce:
    """Fault injection for tests: the worker running the task that starts at ``start``
    writes half a temporary part file, then SIGKILLs itself, once (``marker``: a file it
    creates first, so that the retried task runs normally)."""

    start: int
    marker: str


@dataclass(frozen=True)
class TaskSpec:
    """What a task needs besides its range (small: sent with every task)."""

    params: dict
    out: str
    compression: str
    version: str
    numba_threads: int
    kill: KillOnce | None = None
    pause: float = 0.0  # seconds a task waits first (faults.task_pause: kill tests only)
    extra: object = None  # the simulation's column source (pickled), if it has one


# --------------------------------------------------------------------------- worker side

_SIMS: dict[str, Simulation] = {}
_SEEN_DIRS: set[str] = set()


def worker_info() -> dict:
    """What the driver checks on every worker before the run."""
    from bazarsim.store.schema import SCHEMA_VERSION

    return {"bazarsim": __version__, "schema": SCHEMA_VERSION, "host": socket.gethostname(),
            "python": sys.version.split()[0], "pid": os.getpid()}


def _simulation(spec: TaskSpec) -> Simulation:
    import json

    from bazarsim.engine.simulation import Simulation

    key = json.dumps(spec.params, sort_keys=True) + spec.compression
    sim = _SIMS.get(key)
    if sim is None:
        sim = Simulation.from_params(spec.params, extra=spec.extra,
                                     compression=spec.compression, writers=1)
        _SIMS.clear()  # one run at a time per worker process
        _SIMS[key] = sim
    return sim


def _kill_here(kill: KillOnce, path: Path, rows) -> None:
    """Write half a temporary part (as a writer killed mid-write leaves), then SIGKILL."""
    import io

    import pyarrow.parquet as pq

    try:
        fd = os.open(kill.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return  # killed once already: run normally
    os.close(fd)
    buf = io.BytesIO()
    pq.write_table(rows, buf)
    data = buf.getvalue()
    with open(path.with_name(f"{TMP_PREFIX}{os.getpid()}-{path.name}"), "wb") as fh:
        fh.write(data[: len(data) // 2])
        fh.flush()
        os.fsync(fh.fileno())
    os.kill(os.getpid(), signal.SIGKILL)


def compute_part(spec: TaskSpec, start: int, end: int) -> dict:
    """The task: deal, evaluate (and solve) indices ``start .. end - 1`` and write them as
    one part file, atomically; returns the range and what it cost."""
    import numba

    if spec.version != __version__:
        raise BazarsimError(f"worker {socket.gethostname()} runs bazarsim {__version__}, the "
                            f"driver bazarsim {spec.version}: install the same version on "
                            "every worker")
    out = resolve(spec.out)  # a path, or a URL on an fsspec file system
    if spec.out not in _SEEN_DIRS:
        if not (out / MANIFEST).exists():
            raise BazarsimError(f"worker {socket.gethostname()} cannot see the dataset "
                                f"directory {spec.out!r}: write to a path every worker "
                                "shares (a network file system) or a URL every worker can "
                                "write (s3://...)", spec.out)
        _SEEN_DIRS.add(spec.out)
    if spec.pause:
        time.sleep(spec.pause)
    t0 = time.perf_counter()
    sim = _simulation(spec)
    old = numba.get_num_threads()
    numba.set_num_threads(min(spec.numba_threads, numba.config.NUMBA_NUM_THREADS))
    try:
        rows = sim.compute_range(start, end)
    finally:
        numba.set_num_threads(old)
    path = out / part_name(start, end)
    if spec.kill is not None and spec.kill.start == start and isinstance(path, Path):
        _kill_here(spec.kill, path, rows)
    write_part(rows, path, spec.compression, digest=True)  # the local engine's bytes
    return {"start": start, "end": end, "seconds": time.perf_counter() - t0,
            "pid": os.getpid(), "host": socket.gethostname()}


# --------------------------------------------------------------------------- driver side


@contextmanager
def quiet_dask_logs():
    """Dask logs a worker's death or a lost connection at WARNING on stderr; the driver
    reports what matters itself."""
    names = ("distributed", "distributed.nanny", "distributed.scheduler",
             "distributed.worker", "distributed.core", "distributed.client",
             "distributed.comm", "tornado")
    old = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for n, level in old.items():
            logging.getLogger(n).setLevel(level)


@contextmanager
def connect(engine: DaskEngine):
    """A ``Client`` on the engine's cluster (a ``LocalCluster`` is started and closed
    here); errors as one :class:`BazarsimError`."""
    from distributed import Client, LocalCluster

    if engine.client is not None:
        yield engine.client  # the caller's: left open
        return
    cluster = None
    try:
        if engine.workers is not None:
            try:
                cluster = LocalCluster(n_workers=engine.workers, threads_per_worker=1,
                                       processes=True, dashboard_address=":0",
                                       silence_logs=logging.CRITICAL)
            except Exception as exc:  # noqa: BLE001 (any failure to start: one line)
                raise BazarsimError(f"cannot start {engine.workers} local Dask workers: "
                                    f"{_one_line(exc)}") from None
            client = Client(cluster, timeout=engine.timeout)
        else:
            try:
                client = Client(engine.scheduler, timeout=engine.timeout)
            except (OSError, TimeoutError) as exc:
                raise BazarsimError(f"cannot reach the Dask scheduler {engine.scheduler!r} "
                                    f"within {engine.timeout:g} s: {_one_line(exc)}",
                                    engine.scheduler) from None
            except ValueError as exc:
                raise BazarsimError(f"bad --scheduler {engine.scheduler!r}: "
                                    f"{_one_line(exc)}", engine.scheduler) from None
        try:
            yield client
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def check_workers(client, engine: DaskEngine) -> dict:
    """Wait for a first worker; every worker must run this bazarsim version."""
    try:
        client.wait_for_workers(1, timeout=engine.timeout)
    except (TimeoutError, OSError):
        raise BazarsimError(f"no Dask worker joined the scheduler {engine.scheduler} within "
                            f"{engine.timeout:g} s: start some (dask worker "
                            f"{engine.scheduler})") from None
    info = client.run(worker_info)
    for addr, w in sorted(info.items()):
        if w["bazarsim"] != __version__:
            raise BazarsimError(f"Dask worker {addr} ({w['host']}) runs bazarsim "
                                f"{w['bazarsim']}, this driver bazarsim {__version__}: install "
                                "the same version on every worker")
    return info


def preflight(engine: DaskEngine) -> None:
    """Reach the scheduler and check its workers now (before a progress bar starts):
    the errors :func:`run_dask` would give first, at the cost of one more connection."""
    if engine.scheduler is None:
        return
    with quiet_dask_logs(), connect(engine) as client:
        check_workers(client, engine)


def run_dask(sim: Simulation, out: Path, engine: DaskEngine,
             progress: Callable[[int, int], None] | None = None,
             notice: Callable[[str], None] | None = None,
             kill: KillOnce | None = None) -> dict:
    """Write the missing parts of ``sim``'s dataset in ``out`` with Dask tasks; returns a
    summary (as the local engine's, plus the engine and worker count)."""
    from distributed import as_completed
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    from bazarsim.engine.local import chunk_ranges, drop_damaged_parts, engine_record

    sim.check_feasible()  # refuse, don't hang
    with quiet_dask_logs(), connect(engine) as client:
        info = check_workers(client, engine)
        prepare_directory(out, sim.params(), notice)
        repaired = drop_damaged_parts(sim, out, notice)
        gaps = missing_ranges(out, sim.first, sim.end)
        ranges = chunk_ranges(gaps, sim.chunk)
        todo = sum(b - a for a, b in gaps)
        done_before = sim.deals - todo
        if todo:
            record_engine(out, engine_record("dask", **engine.describe(), workers=len(info),
                                             chunk=sim.chunk))
        if progress:
            progress(done_before, sim.deals)
        spec = TaskSpec(sim.params(), str(out), sim.compression, __version__,
                        engine.task_threads(), kill, task_pause(), sim.extra)
        t0 = time.perf_counter()
        # retries: a task that raised (a flaky object store...) runs again twice; one
        # whose worker died is run elsewhere by the scheduler (up to 3 deaths a task)
        futures = [client.submit(compute_part, spec, a, b, pure=False, retries=TASK_RETRIES,
                                 key=f"bazarsim-part-{a:016d}-{b:016d}-{os.getpid()}-{t0}")
                   for a, b in ranges]
        written = parts = 0
        try:
            for fut in as_completed(futures):
                try:
                    r = fut.result()
                except KilledWorker as exc:
                    raise BazarsimError(f"a task killed every worker that ran it ({exc}); "
                                        "look at the workers' logs (memory?)") from None
                except FutureCancelledError:
                    raise BazarsimError("the Dask scheduler cancelled the run's tasks (was "
                                        "the scheduler restarted?)") from None
                written += r["end"] - r["start"]
                parts += 1
                parts_written(parts)
                if progress:
                    progress(done_before + written, sim.deals)
        finally:
            for f in futures:
                f.cancel()
        elapsed = time.perf_counter() - t0
        remove_temp_files(out)  # what killed workers left (every task has ended)
    return {"out": str(out), "deals": sim.deals, "resumed_from": done_before,
            "written": written, "repaired": repaired, "seconds": elapsed,
            "deals_per_second": written / elapsed if elapsed > 0 else float("nan"),
            "engine": "dask", "workers": len(info)}


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
