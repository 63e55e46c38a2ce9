"""The app's workers: a fixed number of processes that answer the questions, one at a time
each, while the server only takes requests and hands out results.

Why processes, not the server's threads: Numba's parallel kernels must not be called from
two threads at once, and a kernel cannot be interrupted; a process can be stopped. So a
cancelled question stops its worker (within a second) and a fresh worker takes its place.
Workers are spawned, not forked: a fork of a process that has run the parallel kernels
aborts. Each worker talks to the server over its own pipe, so stopping one cannot corrupt
what the others send.

A question is a *job*: an id (random, so two users' jobs cannot be mistaken for each other),
its task and parameters, and its state: ``queued`` (with its place in the queue),
``running`` (share done and a few words), ``done`` (the result), ``error`` (a message) or
``cancelled``. Finished jobs are kept for a while (the newest :data:`KEEP`), then dropped.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import socket
import threading
import time
import traceback
import uuid
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any

from bazarsim.core.errors import BazarsimError

log = logging.getLogger("bazarsim.app")

ERRORS_KEPT = 20  # internal errors' tracebacks kept (each is also logged)
KEEP = 16  # finished jobs kept (with their results) for their pages to fetch
WAIT = 1.0  # seconds a page's request for news of a job may wait for a change
QUEUE_LIMIT = 50  # questions that may wait at once; more are refused (the server says so)
PROGRESS_EVERY = 0.05  # seconds between two progress messages of a worker
STOP_WAIT = 0.5  # seconds a stopped worker gets to end before it is killed

WARM_TASK = "warm"  # the first job of every worker: load the compiled kernels


class Busy(BazarsimError):
    """The queue is full: the server answers 503."""


@dataclass
class Job:
    """One question and where it stands."""

    id: str
    task: str
    params: dict[str, Any]
    state: str = "queued"
    share: float | None = None
    words: str = ""
    result: Any = None
    partial: Any = None  # a part of the result sent ahead of the rest
    error: str | None = None
    submitted: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    worker: int | None = None

    def as_dict(self, place: int | None = None) -> dict[str, Any]:
        out = {"id": self.id, "task": self.task, "state": self.state, "share": self.share,
               "words": self.words, "error": self.error, "submitted": self.submitted,
               "started": self.started, "finished": self.finished}
        if place is not None:
            out["place"] = place
        if self.state == "done":
            out["result"] = self.result
        elif self.state == "running" and self.partial is not None:
            out["partial"] = self.partial
        return out


def worker_main(conn, tasks_module: str, tasks_name: str) -> None:
    """A worker's life: take ``(job id, task, params)`` from the pipe, run it, send
    ``progress`` messages while it runs and ``done`` or ``error`` at the end."""
    import importlib

    tasks = getattr(importlib.import_module(tasks_module), tasks_name)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        job_id, task_name, params = msg
        last = [0.0]

        def progress(share, words, partial=None, job_id=job_id, last=last):
            now = time.monotonic()
            if (partial is not None or now - last[0] >= PROGRESS_EVERY
                    or (share is not None and share >= 1)):
                last[0] = now
                conn.send(("progress", job_id, (share, str(words)), partial))

        try:
            result = tasks[task_name].run(params, progress)
        except BazarsimError as exc:
            conn.send(("error", job_id, str(exc), None))
        except Exception as exc:  # a bug: the page says so, the worker lives on
            conn.send(("error", job_id, f"internal error: {type(exc).__name__}: {exc}",
                       traceback.format_exc()))
        else:
            conn.send(("done", job_id, result, None))


class Slot:
    """One worker process and the job it runs."""

    def __init__(self, index: int, ctx, tasks_module: str, tasks_name: str):
        self.index = index
        self.ctx = ctx
        self.target = (tasks_module, tasks_name)
        self.job: Job | None = None
        self.ready = False
        self.started = 0
        self.start()

    def start(self) -> None:
        self.conn, child = self.ctx.Pipe()
        self.process = self.ctx.Process(target=worker_main, args=(child, *self.target),
                                        name=f"bazarsim-worker-{self.index}", daemon=True)
        self.process.start()
        child.close()
        self.ready = False
        self.started += 1

    def stop(self) -> None:
        """End the process now: a polite signal, then a kill."""
        self.process.terminate()
        self.process.join(STOP_WAIT)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(STOP_WAIT)
        self.conn.close()


class Pool:
    """``jobs`` worker processes answering the tasks of ``tasks_module.tasks_name`` (a dict
    of :class:`~bazarsim.app.task.Task`), the oldest waiting question first."""

    def __init__(self, tasks_module: str, tasks_name: str = "TASKS", jobs: int = 1,
                 warm: dict[str, Any] | None = None, keep: int = KEEP,
                 queue_limit: int = QUEUE_LIMIT):
        if jobs < 1:
            raise BazarsimError(f"--jobs {jobs}: at least one worker")
        self.ctx = mp.get_context("spawn")
        self.keep = keep
        self.queue_limit = queue_limit
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.queue: deque[str] = deque()
        self.lock = threading.Lock()
        # every change of any job counts one version: a page asks for news after the
        # version it has seen and is answered as soon as there are some (no polling delay)
        self.version = 0
        self.changed = threading.Condition(self.lock)
        # tracebacks of internal errors: logged for the server's terminal, the last kept
        self.errors: deque[str] = deque(maxlen=ERRORS_KEPT)
        self._wake_r, self._wake_w = socket.socketpair()
        self._closing = False
        self.slots = [Slot(i, self.ctx, tasks_module, tasks_name) for i in range(jobs)]
        self.warm = warm
        for slot in self.slots:
            self._warm(slot)
        self._thread = threading.Thread(target=self._dispatch, name="bazarsim-pool",
                                        daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ requests

    def submit(self, task: str, params: dict[str, Any]) -> Job:
        with self.lock:
            if len(self.queue) >= self.queue_limit:
                raise Busy(f"{len(self.queue)} questions are waiting already: try again when "
                           "some have finished")
            job = Job(uuid.uuid4().hex, task, params)
            self.jobs[job.id] = job
            self.queue.append(job.id)
            self._changed()
        self._wake()
        return job

    def status(self, job_id: str, since: int | None = None,
               timeout: float = WAIT) -> dict[str, Any] | None:
        """Where the job stands; with ``since`` (a version the asker has seen), once
        something has changed since, or after ``timeout`` seconds."""
        with self.changed:
            if since is not None and self.jobs.get(job_id) is not None:
                self.changed.wait_for(lambda: self.version > since, timeout)
            job = self.jobs.get(job_id)
            if job is None:
                return None
            place = self.queue.index(job_id) + 1 if job.state == "queued" else None
            return {**job.as_dict(place), "version": self.version}

    def cancel(self, job_id: str) -> dict[str, Any] | None:
        """Stop a job: a queued one leaves the queue, a running one's worker is stopped
        (and replaced). Finished jobs stay as they are."""
        with self.lock:
            job = self.jobs.get(job_id)
            if job is None:
                return None
            if job.state == "queued":
                self.queue.remove(job_id)
                self._finish(job, "cancelled")
            elif job.state == "running":
                slot = self.slots[job.worker]
                slot.stop()
                self._finish(job, "cancelled")
                slot.job = None
                slot.start()
                self._warm(slot)
            self._changed()
        self._wake()
        return self.status(job_id)

    def workers(self) -> list[dict[str, Any]]:
        """Each worker: its process id, whether it is ready, and the job it runs."""
        with self.lock:
            return [{"worker": s.index, "pid": s.process.pid, "alive": s.process.is_alive(),
                     "ready": s.ready, "job": s.job.id if s.job and s.job.task != WARM_TASK
                     else None, "starts": s.started, "rss_kib": memory_kib(s.process.pid)}
                    for s in self.slots]

    def waiting(self) -> int:
        with self.lock:
            return len(self.queue)

    def close(self) -> None:
        self._closing = True
        self._wake()
        self._thread.join(5)
        for slot in self.slots:
            try:
                slot.conn.send(None)
            except OSError:
                pass
        for slot in self.slots:
            slot.process.join(2)
            if slot.process.is_alive():
                slot.stop()
        self._wake_r.close()
        self._wake_w.close()

    # ------------------------------------------------------------------ the dispatcher

    def _warm(self, slot: Slot) -> None:
        """Give a new worker its first job: loading the kernels (so that the user's first
        question does not wait for them). Not listed among the jobs."""
        if self.warm is None:
            slot.ready = True
            return
        job = Job(f"warm-{slot.index}-{slot.started}", WARM_TASK, self.warm, state="running",
                  worker=slot.index)
        slot.job = job
        slot.conn.send((job.id, WARM_TASK, job.params))

    def _changed(self) -> None:
        """Count a change and wake the requests waiting for one (the lock is held)."""
        self.version += 1
        self.changed.notify_all()

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass

    def _finish(self, job: Job, state: str) -> None:
        job.state = state
        job.finished = time.time()
        done = [k for k, j in self.jobs.items() if j.state not in ("queued", "running")]
        for k in done[: max(0, len(done) - self.keep)]:
            del self.jobs[k]

    def _start_queued(self) -> None:
        for slot in self.slots:
            if not self.queue:
                return
            if slot.job is None and slot.ready:
                job = self.jobs[self.queue.popleft()]
                job.state, job.started, job.worker = "running", time.time(), slot.index
                job.share, job.words = 0.0, "started"
                slot.job = job
                slot.conn.send((job.id, job.task, job.params))

    def _dispatch(self) -> None:
        while not self._closing:
            with self.lock:
                conns = {s.conn: s for s in self.slots if not s.conn.closed}
                sentinels = {s.process.sentinel: s for s in self.slots if s.job is not None}
            ready = wait([*conns, *sentinels, self._wake_r], timeout=1.0)
            with self.lock:
                for r in ready:
                    if r is self._wake_r:
                        self._wake_r.recv(4096)
                    elif r in conns and not r.closed:
                        self._receive(conns[r])
                for sentinel, slot in sentinels.items():
                    if sentinel in ready and not slot.process.is_alive():
                        self._lost(slot)
                self._start_queued()
                if ready:
                    self._changed()

    def _receive(self, slot: Slot) -> None:
        while not slot.conn.closed and slot.conn.poll():
            try:
                kind, job_id, payload, detail = slot.conn.recv()
            except (EOFError, OSError):
                return
            job = slot.job
            if job is None or job.id != job_id:
                continue  # a message of a job cancelled meanwhile
            if job.task == WARM_TASK:
                if kind in ("done", "error"):
                    slot.ready, slot.job = True, None
                    if kind == "error":
                        self._log_error(f"warm-up: {payload}\n{detail or ''}")
                continue
            if kind == "progress":
                job.share, job.words = payload
                if detail is not None:
                    job.partial = detail
            elif kind == "done":
                job.result, job.share, job.words = payload, 1.0, "done"
                job.partial = None
                self._finish(job, "done")
                slot.job = None
            elif kind == "error":
                job.error = payload
                if detail:
                    self._log_error(detail)
                self._finish(job, "error")
                slot.job = None

    def _log_error(self, text: str) -> None:
        log.error("a question failed in a worker:\n%s", text)
        self.errors.append(text)

    def _lost(self, slot: Slot) -> None:
        """A worker ended by itself (killed from outside, out of memory): its job fails,
        saying so, and a new worker takes the slot."""
        job = slot.job
        if job is not None and job.task != WARM_TASK and job.state == "running":
            code = slot.process.exitcode
            job.error = (f"the worker stopped (exit code {code}) before answering; a new one "
                         "has started: ask again")
            self._finish(job, "error")
        slot.job = None
        try:
            slot.conn.close()
        except OSError:
            pass
        slot.start()
        self._warm(slot)


def memory_kib(pid: int) -> int | None:
    """Resident memory of a process (KiB), from /proc; ``None`` where it cannot be read."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None

