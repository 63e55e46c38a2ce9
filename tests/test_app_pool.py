"""The app's worker pool on its own: answers, errors, a worker that dies, cancel of a
waiting and of a running job, the queue's limit and the news a page waits for."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bazarsim.app.pool import Busy, Pool


def wait(pool: Pool, job_id: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        st = pool.status(job_id)
        if st["state"] not in ("queued", "running"):
            return st
        assert time.monotonic() < deadline, st
        time.sleep(0.02)


@pytest.fixture(scope="module")
def pool():
    p = Pool("tests.app_tasks", jobs=1, warm=None, queue_limit=3)
    yield p
    p.close()


def test_answers_errors_and_a_worker_that_dies(pool):
    st = wait(pool, pool.submit("echo", {"x": 1}).id)
    assert st["state"] == "done" and st["result"]["x"] == 1
    pid = st["result"]["pid"]
    st = wait(pool, pool.submit("refuse", {}).id)
    assert (st["state"], st["error"]) == ("error", "no such hand")
    st = wait(pool, pool.submit("boom", {}).id)
    assert st["state"] == "error" and "internal error: ZeroDivisionError: a bug" in st["error"]
    assert pool.errors and "Traceback" in pool.errors[-1]  # for the server's log only
    st = wait(pool, pool.submit("die", {}).id)
    assert st["state"] == "error" and "exit code 3" in st["error"]
    st = wait(pool, pool.submit("echo", {"x": 2}).id)  # a new worker took the slot
    assert st["state"] == "done" and st["result"]["pid"] != pid


def test_partial_result_news_and_cancel(pool):
    running = pool.submit("echo", {"x": "slow", "sleep": 30})
    waiting = pool.submit("echo", {"x": "next"})
    st = pool.status(running.id)
    while st["state"] != "running" or "partial" not in st:
        st = pool.status(running.id, since=st["version"])  # answered on a change
    assert st["partial"] == {"ahead": "slow"} and st["share"] == 0.5
    assert pool.status(waiting.id)["place"] == 1
    t0 = time.monotonic()
    quiet = pool.status(waiting.id, since=pool.status(waiting.id)["version"], timeout=0.3)
    assert time.monotonic() - t0 >= 0.25 and quiet["state"] == "queued"  # no news: it waited
    assert pool.cancel(waiting.id)["state"] == "cancelled"
    pid = pool.workers()[0]["pid"]
    assert pool.cancel(running.id)["state"] == "cancelled"
    assert not Path(f"/proc/{pid}").exists()  # the worker's process has ended
    assert pool.cancel(running.id)["state"] == "cancelled"  # twice: no harm
    assert pool.cancel("nothing") is None and pool.status("nothing") is None
    assert wait(pool, pool.submit("echo", {"x": 3}).id)["result"]["x"] == 3


def test_queue_limit(pool):
    jobs = [pool.submit("echo", {"x": 0, "sleep": 5})]
    while pool.status(jobs[0].id)["state"] != "running":
        time.sleep(0.02)
    jobs += [pool.submit("echo", {"x": i}) for i in range(3)]  # the queue is full
    with pytest.raises(Busy, match="waiting already"):
        pool.submit("echo", {"x": 9})
    for j in jobs:
        pool.cancel(j.id)


def test_serve_refuses_bad_options_in_one_line(tmp_path):
    """bazarsim serve: bad options are one error line before any worker starts."""
    import socket

    from typer.testing import CliRunner

    from bazarsim.cli import app

    runner = CliRunner()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for args, words in [(["--jobs", "0"], "--jobs 0"),
                            (["--port", "70000"], "--port 70000"),
                            (["--port", str(port)], "choose another --port"),
                            (["--port", "0", "--data", str(tmp_path / "none")],
                             "not a directory")]:
            r = runner.invoke(app, ["serve", "--no-browser", *args])
            assert r.exit_code == 2 and words in r.output, (args, r.output)
            assert "Traceback" not in r.output
