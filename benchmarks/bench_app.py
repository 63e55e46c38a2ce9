"""The web app (``bazarsim serve``): what the page adds to a question, and whether the
server or its workers grow.

* Time from the form's submit to the first progress shown and to the finished table, for
  a 1,000-deal hand analysis asked in headless Chromium (timed by the page itself), beside
  the in-process ``bazarsim.analyze`` of the same hand and seed in this process (its first
  progress callback and its return), asked in turns, the same hands and seeds, kernels
  warm on both sides. Goal: the page adds at most 5 % or 0.3 s, whichever is larger.
* Memory: the resident size of the server and of its worker after the first 10 analyses
  and after 100 (each a different hand and seed, 1,000 deals, asked through the app's
  API as the page asks). Goal: no growth beyond 10 % after the first ten.

One worker (``--jobs 1``), which has the machine's cores for its kernels, as the
in-process call does.
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from bazarsim.analysis.hand import analyze, hand_query
from bazarsim.core.cards import parse_seat
from bazarsim.rules.rulesets import get_ruleset

from .common import row

GROUP = "web app"
DEALS = 1000
HANDS = ["AJ9.K7.Q.T8", "KQ.AJT9.8.A", "J9A.T.KQ7.8", "A.AK.JT9.Q8", "QJ9.K.A8.KT",
         "AKQJ.7.8.9T", "T98.J9.A.KQ", "J.Q9A.K7.T8"]


def _hand(i: int) -> str:
    """Hands of 8 cards: the list above, each in its own seat and dealer."""
    return HANDS[i % len(HANDS)]


class ServedApp:
    """``bazarsim serve`` in a child process (one worker), ready to answer."""

    def __init__(self, data: str | None = None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bazarsim", "serve", "--port", "0", "--no-browser",
             "--jobs", "1", *(["--data", data] if data else [])],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        m = re.search(r"(http://[\d.]+:\d+)/", self.proc.stderr.readline())
        if not m:
            self.proc.kill()
            raise RuntimeError("bazarsim serve did not start")
        self.url = m.group(1)
        while not all(w["ready"] for w in self.status()["workers"]):
            time.sleep(0.2)

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        req = urllib.request.Request(self.url + path, method=method, data=None if body is None
                                     else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=600) as r:
            return json.loads(r.read())

    def status(self) -> dict:
        for _ in range(100):
            try:
                return self.call("GET", "/api/status")
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("bazarsim serve does not answer")

    def analyse(self, fields: dict) -> dict:
        job = self.call("POST", "/api/jobs", {"task": "hand", "fields": fields})
        while job["state"] in ("queued", "running"):
            time.sleep(0.05)
            job = self.call("GET", f"/api/jobs/{job['id']}")
        if job["state"] != "done":
            raise RuntimeError(f"analysis {fields}: {job['state']} {job.get('error')}")
        return job

    def memory(self) -> tuple[int, int]:
        st = self.status()
        return st["server"]["rss_kib"], st["workers"][0]["rss_kib"]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def _fields(i: int) -> dict:
    return {"hand": _hand(i), "seat": "NESW"[i % 4], "dealer": "NESW"[(i + 1) % 4],
            "deals": str(DEALS), "seed": str(100 + i)}


def _in_process(fields: dict) -> tuple[float, float]:
    """``bazarsim.analyze`` of the same question here: seconds to its first progress
    callback and to its return."""
    rs = get_ruleset("bazar")
    first: list[float] = []
    t0 = time.perf_counter()
    q = hand_query(rs, fields["hand"], parse_seat(fields["seat"]), parse_seat(fields["dealer"]))
    analyze(q, deals=int(fields["deals"]), seed=int(fields["seed"]),
            progress=lambda done, total: first or first.append(time.perf_counter() - t0))
    return first[0], time.perf_counter() - t0


def _page_times(app: ServedApp, page, fields: dict) -> tuple[float, float, float]:
    """The page's own clock (performance.now): submit to the first progress, to the table
    shown, and to the figures shown."""
    page.goto(app.url + "/hand")
    page.fill("#hand-cards", fields["hand"])
    page.select_option("#hand-seat", fields["seat"])
    page.select_option("#hand-dealer", fields["dealer"])
    page.fill("#hand-deals", fields["deals"])
    page.fill("#hand-seed", fields["seed"])
    page.click("#hand-run")
    page.wait_for_function("() => document.querySelector('#hand-status').dataset.state "
                           "=== 'done' && document.querySelector('#hand-result table')",
                           timeout=600_000)
    t = page.evaluate("window.bzTimes[window.bzTimes.length - 1]")
    return tuple((t[k] - t["submit"]) / 1000 for k in ("progress", "shown", "done"))


def _cancel_time(app: ServedApp, i: int) -> float:
    """Seconds from the cancel request of a running 200,000-deal analysis to its answer,
    by which time the worker's process has ended (checked here)."""
    job = app.call("POST", "/api/jobs", {"task": "hand", "fields": {
        **_fields(i), "deals": "200000"}})
    while job["state"] != "running" or not job["share"]:
        time.sleep(0.05)
        job = app.call("GET", f"/api/jobs/{job['id']}")
    pid = app.status()["workers"][0]["pid"]
    t0 = time.perf_counter()
    job = app.call("DELETE", f"/api/jobs/{job['id']}")
    took = time.perf_counter() - t0
    if job["state"] != "cancelled" or Path(f"/proc/{pid}").exists():
        raise RuntimeError(f"cancel did not stop the worker: {job}")
    while not all(w["ready"] for w in app.status()["workers"]):
        time.sleep(0.1)  # the new worker loads its kernels before the next question
    return took


def collect(quick: bool = False) -> list[dict]:
    from playwright.sync_api import sync_playwright

    from bazarsim.report.browser import launch

    turns = 4 if quick else 12
    analyses = 30 if quick else 100
    app = ServedApp()
    try:
        _in_process(_fields(0))  # this process's kernels loaded
        page_first, page_done, page_figures, here_first, here_done = [], [], [], [], []
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page()
            _page_times(app, page, _fields(0))  # the browser's first page
            for i in range(1, turns + 1):
                f = _fields(i)
                a, b, e = _page_times(app, page, f)
                c, d = _in_process(f)
                page_first.append(a)
                page_done.append(b)
                page_figures.append(e)
                here_first.append(c)
                here_done.append(d)
            browser.close()
        stops = [_cancel_time(app, i) for i in range(3 if quick else 6)]
        memory = []
        for i in range(analyses):
            app.analyse(_fields(1000 + i))
            if i + 1 in (10, analyses):
                memory.append(app.memory())
    finally:
        app.close()
    added = [b - d for b, d in zip(page_done, here_done, strict=True)]
    med_page, med_here = statistics.median(page_done), statistics.median(here_done)
    allowed = max(0.05 * med_here, 0.3)
    (server10, worker10), (server_n, worker_n) = memory
    grow_server = 100 * (server_n / server10 - 1)
    grow_worker = 100 * (worker_n / worker10 - 1)
    return [
        row(GROUP, "hand analysis in the page: submit to the table", med_page, "s",
            f"median of {turns} questions in headless Chromium (page clock), one worker; "
            f"in-process bazarsim.analyze of the same hands and seeds, in turns: median "
            f"{med_here:.2f} s"),
        row(GROUP, "the same with its two figures drawn", statistics.median(page_figures), "s",
            f"median of {turns}: the table is shown first, the figures (matplotlib, as "
            "analyze --html draws them) replace the page's result when drawn"),
        row(GROUP, "page's overhead on a 1,000-deal analysis", statistics.median(added), "s",
            f"median of the paired differences page - in-process over {turns} questions "
            f"(largest {max(added):+.2f} s); goal at most {allowed:.2f} s (5 % or 0.3 s, "
            f"the larger): {'met' if statistics.median(added) <= allowed else 'NOT met'}"),
        row(GROUP, "submit to the first progress shown", statistics.median(page_first), "s",
            f"median of {turns}; in-process, the first progress callback (after the first "
            f"batch of deals): median {statistics.median(here_first):.2f} s"),
        row(GROUP, "cancel: the request to the worker stopped", statistics.median(stops), "s",
            f"median of {len(stops)} cancels of a running 200,000-deal analysis (slowest "
            f"{max(stops):.2f} s); the worker's process has ended when the answer comes "
            "(goal at most 1 s)"),
        row(GROUP, f"server memory growth, 10 to {analyses} analyses", grow_server, "%",
            f"one run: resident size {server10 / 1024:.0f} MiB after 10, "
            f"{server_n / 1024:.0f} MiB after {analyses} (goal at most 10 %)"),
        row(GROUP, f"worker memory growth, 10 to {analyses} analyses", grow_worker, "%",
            f"one run: resident size {worker10 / 1024:.0f} MiB after 10, "
            f"{worker_n / 1024:.0f} MiB after {analyses} (goal at most 10 %)"),
    ]
