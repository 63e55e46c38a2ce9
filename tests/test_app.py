"""The web app (``bazarsim serve``) in a real browser: a server started as a user starts it
(the command, a free port, two workers), pages driven in headless Chromium by Playwright:
forms filled, buttons clicked, numbers read off the page and compared with the command
line's JSON for the same seed; bad input, cancel, two users at once, the queue, and files
outside ``--data``.

The browser tests are skipped, saying so, only where no Chromium is installed (``.ci/run``
installs it).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bazarsim.cli import app as cli_app

runner = CliRunner()
START_TIMEOUT = 240  # seconds for the server and its workers to be ready (a cold cache
# compiles the kernels the warm-up uses)


class Server:
    """``bazarsim serve`` in a child process, and a small HTTP client of its API."""

    def __init__(self, data: Path, jobs: int = 2):
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bazarsim", "serve", "--port", "0", "--no-browser",
             "--data", str(data), "--jobs", str(jobs)],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
        line = self.proc.stderr.readline()
        m = re.search(r"(http://[\d.]+:\d+/)", line)
        if not m:
            self.proc.kill()
            raise AssertionError(f"serve did not start: {line}{self.proc.stderr.read()}")
        self.url = m.group(1).rstrip("/")
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                st = self.get("/api/status")[1]
                if all(w["ready"] for w in st["workers"]):
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            assert self.proc.poll() is None, "the server stopped"
            assert time.monotonic() < deadline, "the workers did not get ready"
            time.sleep(0.2)

    def call(self, method: str, path: str, body: object = None, raw: bytes | None = None,
             headers: dict | None = None) -> tuple[int, object]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.url + path, method=method, data=data, headers={
            "Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                status, text, kind = r.status, r.read(), r.headers.get("content-type", "")
        except urllib.error.HTTPError as e:
            status, text, kind = e.code, e.read(), e.headers.get("content-type", "")
        return status, (json.loads(text) if "json" in kind else text.decode())

    def get(self, path: str):
        return self.call("GET", path)

    def wait(self, job_id: str, timeout: float = 120) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            st = self.get(f"/api/jobs/{job_id}")[1]
            if st["state"] not in ("queued", "running"):
                return st
            assert time.monotonic() < deadline, st
            time.sleep(0.05)

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.proc.stderr.close()


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """A data directory with a small solved dataset, and beside it a secret file and a link
    from inside the directory to it (which the app must refuse to follow)."""
    from bazarsim.engine.run import run_simulation
    from bazarsim.engine.simulation import Simulation
    from bazarsim.rules.rulesets import get_ruleset

    base = tmp_path_factory.mktemp("app")
    root = base / "data"
    root.mkdir()
    run_simulation(Simulation(deals=80, seed=3, ruleset=get_ruleset("bazar"), kinds=(1,),
                              columns="lean", dd=True, sd=1, chunk=80), root / "hearts")
    (base / "secret.txt").write_text("not for the app")
    (root / "out").symlink_to(base)
    return root


@pytest.fixture(scope="module")
def server(data_dir):
    s = Server(data_dir)
    yield s
    s.close()


@pytest.fixture(scope="module")
def page_factory(chromium):
    """New browser pages (each its own context: another user), with console errors and
    requests that leave the machine recorded on them."""
    contexts = []

    def new():
        ctx = chromium.new_context(viewport={"width": 1100, "height": 900})
        contexts.append(ctx)
        page = ctx.new_page()
        page.errors = []
        page.outside = []
        page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("request", lambda r: None if r.url.startswith(("http://127.0.0.1", "data:",
                                                               "blob:", "about:"))
                else page.outside.append(r.url))
        return page

    yield new
    for ctx in contexts:
        ctx.close()


def cli_json(*argv: str):
    r = runner.invoke(cli_app, list(argv))
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def table_cells(page, scope: str) -> tuple[list[str], list[list[str]]]:
    """The first data table under ``scope``: column keys and each row's raw ``data-v``."""
    return page.evaluate("""scope => {
      const t = document.querySelector(scope + ' table[data-table]');
      if (!t) return [[], []];
      return [[...t.querySelectorAll('thead th')].map(th => th.dataset.key),
              [...t.querySelectorAll('tbody tr')].map(tr =>
                 [...tr.querySelectorAll('td')].map(td => td.dataset.v))];
    }""", scope)


def assert_same_records(keys: list[str], rows: list[list[str]], records: list[dict]) -> None:
    """Every cell shown equals the record's value exactly (the raw value on the page)."""
    assert len(rows) == len(records) and rows
    for row, rec in zip(rows, records, strict=True):
        for key, v in zip(keys, row, strict=True):
            want = rec[key]
            if want is None:
                assert v == "", (key, v)
            elif isinstance(want, bool):
                assert v.lower() == str(want).lower(), (key, v, want)
            elif isinstance(want, int | float):
                assert float(v) == want, (rec.get("bid"), key, v, want)
            else:
                assert v == str(want), (key, v, want)


def ask_hand(page, server, hand: str, seat: str, dealer: str, deals: int, seed: int,
             auction: str | None = None) -> None:
    page.goto(server.url + "/hand")
    page.fill("#hand-cards", hand)
    page.select_option("#hand-seat", seat)
    page.select_option("#hand-dealer", dealer)
    page.fill("#hand-deals", str(deals))
    page.fill("#hand-seed", str(seed))
    if auction:
        page.fill("#hand-auction", auction)
    page.click("#hand-run")


def finished(page, status: str = "#hand-status", timeout: float = 120_000) -> str:
    page.wait_for_function(
        "s => ['done', 'error', 'cancelled'].includes(document.querySelector(s).dataset.state)",
        arg=status, timeout=timeout)
    return page.eval_on_selector(status, "e => e.dataset.state")


# --------------------------------------------------------------------------- hand analysis


def test_hand_screen_same_numbers_as_analyze_json(server, page_factory):
    page = page_factory()
    ask_hand(page, server, "AJ9.K7.Q.T8", "S", "E", 100, 11)
    assert finished(page) == "done"
    keys, rows = table_cells(page, "#hand-result")
    want = cli_json("analyze", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "E", "-n", "100",
                    "-s", "11", "-f", "json", "-q")
    assert_same_records(keys, rows, want)
    figures = page.eval_on_selector_all("#hand-result figure.fig svg", "s => s.length")
    assert figures == 2  # P(make) and E[score] per bid, as analyze --html draws them
    assert page.errors == [] and page.outside == []
    # one card changed, asked again on the same page: the answer follows the form
    page.fill("#hand-cards", "AJ9.K7.Q.T7")
    page.click("#hand-run")
    page.wait_for_function("() => document.querySelector('#hand-result').dataset.title"
                           ".includes('T7')", timeout=120_000)
    keys, rows = table_cells(page, "#hand-result")
    assert_same_records(keys, rows, cli_json(
        "analyze", "AJ9.K7.Q.T7", "--seat", "S", "--dealer", "E", "-n", "100", "-s", "11",
        "-f", "json", "-q"))


def test_bad_input_is_a_message_and_a_400(server, page_factory):
    page = page_factory()
    ask_hand(page, server, "AJ9.K7.Q.T", "S", "E", 100, 7)
    assert finished(page) == "error"
    text = page.inner_text("#hand-status")
    assert "7 cards" in text and "Traceback" not in text
    for fields, words in [({"hand": "AJ9.K7.Q.T8", "seat": "Q", "dealer": "E"}, "seat"),
                          ({"hand": "AJ9.K7.Q.T8 AS", "seat": "S", "dealer": "E"}, "AS"),
                          ({"hand": "AJ9.K7.Q.T8", "seat": "S", "dealer": "E",
                            "deals": "lots"}, "whole number"),
                          ({"hand": "AJ9.K7.Q.T8", "seat": "S", "dealer": "E",
                            "seed": "-1"}, "seed"),
                          ({"hand": "AJ9.K7.Q.T8", "seat": "S", "dealer": "E",
                            "auction": "8H 8H"}, "8H")]:
        status, body = server.call("POST", "/api/jobs", {"task": "hand", "fields": fields})
        assert status == 400 and words in body["error"], (fields, body)
    assert server.call("POST", "/api/jobs", raw=b"{not json")[0] == 400
    assert server.call("POST", "/api/jobs", raw=b"x", headers={
        "Content-Type": "text/plain"})[0] == 415
    assert server.call("POST", "/api/jobs", {"task": "warm", "fields": {}})[0] == 404
    status, body = server.get("/no/such/page")
    assert status == 404 and "Traceback" not in body
    assert server.call("GET", "/hand", headers={"Host": "evil.example"})[0] == 400
    assert server.proc.poll() is None  # the server lives on


def test_ruleset_options_as_the_command_line_takes_them(server, page_factory):
    """The hand screen's ruleset options (one ``-o`` a line) change the answer as ``-o``
    does: the records equal ``analyze -o ... -f json``; a bad option is a 400."""
    page = page_factory()
    page.goto(server.url + "/hand")
    page.fill("#hand-cards", "AJ9.K7.Q.T8")
    page.fill("#hand-deals", "40")
    page.fill("#hand-options", "scoring.capot_value=500\nplay.undertrump_required=true")
    page.click("#hand-run")
    assert finished(page) == "done", page.inner_text("#hand-status")
    keys, rows = table_cells(page, "#hand-result")
    assert_same_records(keys, rows, cli_json(
        "analyze", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "E", "-n", "40", "-o",
        "scoring.capot_value=500", "-o", "play.undertrump_required=true", "-f", "json", "-q"))
    status, body = server.call("POST", "/api/jobs", {"task": "hand", "fields": {
        "hand": "AJ9.K7.Q.T8", "seat": "S", "dealer": "E", "options": "play.nothing=1"}})
    assert status == 400 and "unknown option 'play.nothing'" in body["error"]


def test_cancel_stops_the_worker(server, page_factory):
    """Cancel ends the work by ending the worker's process (its time is measured in
    benchmarks/bench_app.py, not asserted here): gone when the page says cancelled, and
    replaced; the other worker untouched."""
    page = page_factory()
    before = {w["worker"]: w for w in server.get("/api/status")[1]["workers"]}
    ask_hand(page, server, "AJ9.K7.Q.T8", "S", "E", 200_000, 5)
    page.wait_for_selector("#hand-status .running button.cancel", timeout=60_000)
    job = page.eval_on_selector("#hand-status", "e => e.dataset.job")
    running = server.get(f"/api/jobs/{job}")[1]
    assert running["state"] == "running"
    pid = next(w["pid"] for w in server.get("/api/status")[1]["workers"] if w["job"] == job)
    page.click("#hand-status button.cancel")
    assert finished(page, timeout=30_000) == "cancelled"
    assert not Path(f"/proc/{pid}").exists()  # the process has ended, not only the job
    after = {w["worker"]: w for w in server.get("/api/status")[1]["workers"]}
    stopped = [i for i in after if after[i]["pid"] != before[i]["pid"]]
    assert len(stopped) == 1  # that worker was stopped and replaced, the other untouched
    assert server.get(f"/api/jobs/{job}")[1]["state"] == "cancelled"


def test_two_users_at_once_do_not_mix(server, page_factory):
    a, b = page_factory(), page_factory()
    ask_hand(a, server, "AJ9.K7.Q.T8", "S", "E", 40, 21)
    ask_hand(b, server, "KQ.AJT9.8.A", "W", "N", 40, 22)
    for page in (a, b):
        assert finished(page) == "done", page.inner_text("#hand-status")
    for page, argv in ((a, ("AJ9.K7.Q.T8", "--seat", "S", "--dealer", "E", "-s", "21")),
                       (b, ("KQ.AJT9.8.A", "--seat", "W", "--dealer", "N", "-s", "22"))):
        keys, rows = table_cells(page, "#hand-result")
        assert_same_records(keys, rows, cli_json("analyze", *argv, "-n", "40", "-f", "json",
                                                 "-q"))


def test_queue_places_and_the_limit_of_work_at_once(server):
    """Three long questions on two workers: two run, the third waits in place 1; cancelled,
    the waiting one leaves the queue and the running ones stop."""
    ids = [server.call("POST", "/api/jobs", {"task": "hand", "fields": {
        "hand": "AJ9.K7.Q.T8", "seat": "S", "dealer": "E", "deals": "200000",
        "seed": str(s)}})[1]["id"] for s in range(3)]
    deadline = time.monotonic() + 60
    while True:
        seen = [server.get(f"/api/jobs/{i}")[1] for i in ids]
        if sum(s["state"] == "running" for s in seen) == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert [s["state"] for s in seen] == ["running", "running", "queued"]
    assert seen[2]["place"] == 1
    assert server.call("DELETE", f"/api/jobs/{ids[2]}")[1]["state"] == "cancelled"
    for i in ids[:2]:
        assert server.call("DELETE", f"/api/jobs/{i}")[1]["state"] == "cancelled"
    assert server.get("/api/status")[1]["waiting"] == 0


# --------------------------------------------------------------------------- study browser


def page_tables(page, scope: str) -> dict[str, tuple[list[str], list[list[str]]]]:
    """Every data table under ``scope``: id -> (column keys, rows of raw ``data-v``)."""
    return page.evaluate("""scope => Object.fromEntries(
      [...document.querySelectorAll(scope + ' table[data-table]')].map(t => [t.dataset.table,
        [[...t.querySelectorAll('thead th')].map(th => th.dataset.key),
         [...t.querySelectorAll('tbody tr')].map(tr =>
            [...tr.querySelectorAll('td')].map(td => td.dataset.v))]]))""", scope)


def test_study_screen_same_numbers_as_the_tables(server, page_factory, data_dir, tmp_path):
    page = page_factory()
    page.goto(server.url + "/study")
    page.wait_for_selector("#study-dataset option[value='hearts']", state="attached")
    page.select_option("#study-dataset", "hearts")
    page.wait_for_selector("#study-kinds input", timeout=10_000)
    page.fill("#study-levels", "8..10")
    row = page.locator("#study-by-rows .by-row").first
    row.locator(".by-feature").select_option("points")
    row.locator(".by-edges").fill("0..39,40..")
    by = json.loads(page.eval_on_selector("#by-expression", "e => e.dataset.by"))
    assert by == ["points=0..39,40.."]  # the expression the page builds, as the CLI takes it
    page.click("#study-run")
    assert finished(page, "#study-status") == "done", page.inner_text("#study-status")
    tables = page_tables(page, "#study-result")
    keys, rows = tables["bids"]
    want = cli_json("table", "bids", str(data_dir / "hearts"), "--by", "points=0..39,40..",
                    "--levels", "8..10", "--kinds", "H", "-f", "json")
    assert_same_records(keys, rows, want)
    keys, rows = tables["bias"]
    assert_same_records(keys, rows, cli_json("table", "bias", str(data_dir / "hearts"),
                                             "--levels", "8..10", "--kinds", "H", "-f",
                                             "json")["rows"])
    assert page.eval_on_selector_all("#study-result figure.fig svg", "s => s.length") == 1
    with page.expect_download() as dl:
        page.click("#study-downloads button.csv[data-table='bids']")
    path = tmp_path / "bids.csv"
    dl.value.save_as(path)
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + len(want)
    assert page.errors == [] and page.outside == []


# --------------------------------------------------------------------------- deal replay

DEAL = "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97"


def play_cells(page) -> list[tuple[str, str, str]]:
    """The replay's card table: (seat, card, DD N-S after it) of each card played."""
    keys, rows = page_tables(page, "#replay-result")["cards"]
    at = {k: i for i, k in enumerate(keys)}
    return [(r[at["seat"]], r[at["card"]], r[at["dd_ns"]]) for r in rows]


def test_replay_screen_plays_as_play_and_lets_a_user_pick(server, page_factory):
    page = page_factory()
    page.goto(server.url + "/replay")
    page.fill("#replay-deal", DEAL)
    page.fill("#replay-contract", "9H")
    page.select_option("#replay-declarer", "N")
    for seat in "NESW":
        page.select_option(f"#replay-player-{seat}", "dd")
    page.click("#replay-run")
    assert finished(page, "#replay-status") == "done", page.inner_text("#replay-status")
    rec = cli_json("play", DEAL, "-c", "9H", "--declarer", "N", "--players", "dd", "-f",
                   "json")
    want = [(c["seat"], c["card"], str(c["dd_ns"])) for t in rec["tricks"] for c in t["cards"]]
    assert play_cells(page) == want
    # stepping: the position and the DD value follow the buttons
    page.click("#replay-first")
    page.click("#replay-next")
    page.click("#replay-next")
    assert page.eval_on_selector("#replay-pos", "e => e.dataset.pos") == "2"
    assert page.eval_on_selector("#replay-dd", "e => e.dataset.v") == want[1][2]
    # the user plays S: the page waits for S's card, offering the legal ones
    page.select_option("#replay-player-S", "you")
    page.click("#replay-run")
    assert finished(page, "#replay-status") == "done"
    page.wait_for_selector("#replay-picks button.pick")
    legal = page.eval_on_selector_all("#replay-picks button.pick", "bs => bs.map(b => "
                                      "b.dataset.card)")
    played = play_cells(page)
    assert played and all(seat != "S" for seat, _, _ in played)
    lead = played[0][1][-1]  # S must follow the suit led when it can
    follow = [c for c in legal if c.endswith(lead)]
    assert follow == legal and legal
    page.click(f"#replay-picks button.pick[data-card='{legal[-1]}']")
    page.wait_for_function("c => [...document.querySelectorAll('#replay-result table"
                           "[data-table=cards] tbody tr')].some(tr => tr.children[1]"
                           ".dataset.v === 'S' && tr.children[2].dataset.v === c)",
                           arg=legal[-1], timeout=60_000)
    again = play_cells(page)
    assert again[: len(played)] == played  # the other seats' cards stay the same
    assert page.errors == [] and page.outside == []


# --------------------------------------------------------------------------- files


def test_only_files_under_data_can_be_read(server):
    for path in ("../secret.txt", "/etc/passwd", "out/secret.txt", "out", "hearts/../../x",
                 "C:\\x", ""):
        for name in ("dataset",):
            status, body = server.call("GET", f"/api/info/{name}?"
                                       + urllib.parse.urlencode({"path": path}))
            assert status == 400 and "Traceback" not in json.dumps(body), (path, body)
    status, body = server.get("/api/info/datasets")
    assert status == 200
    assert [d["path"] for d in body["datasets"]] == ["hearts"]


# --------------------------------------------------------------------------- full gates


@pytest.mark.gate
@pytest.mark.parametrize("case", [
    ("AJ9.K7.Q.T8", "S", "W", "8H P", "bazar"),
    ("KQ.AJT9.8.A", "W", "N", "P 9S", "bazar"),
    ("AJ9.K7.Q.T8", "N", "E", "", "bazar-blot"),
    ("J9A.T.KQ7.8", "N", "S", "P", "bazar-blot"),
])
def test_hand_screen_every_kind_of_question(server, page_factory, case):
    """The hand screen with the auction so far, and in bazar-blot: the page's numbers are
    those of analyze (--auction) --format json for the same seed.
    Sample in make test: test_hand_screen_same_numbers_as_analyze_json"""
    hand, seat, dealer, auction, ruleset = case
    page = page_factory()
    page.goto(server.url + "/hand")
    page.fill("#hand-cards", hand)
    page.select_option("#hand-seat", seat)
    page.select_option("#hand-dealer", dealer)
    page.select_option("#hand-ruleset", ruleset)
    page.fill("#hand-deals", "200")
    page.fill("#hand-seed", "3")
    if auction:
        page.fill("#hand-auction", auction)
    page.click("#hand-run")
    assert finished(page) == "done", page.inner_text("#hand-status")
    argv = ["analyze", hand, "--seat", seat, "--dealer", dealer, "-r", ruleset, "-n", "200",
            "-s", "3", "-f", "json", "-q"]
    want = cli_json(*argv, *(["--auction", auction] if auction else []))
    if auction:  # the calls' table: each row's numbers as in the JSON's calls
        keys, rows = table_cells(page, "#hand-result")
        calls = [{**c, "ends_text": None, "diff": -c["behind_best"]} for c in want["calls"]]
        keep = [k for k in keys if k != "ends_text"]
        assert_same_records(keep, [[v for k, v in zip(keys, r, strict=True) if k in keep]
                                   for r in rows], calls)
    else:
        keys, rows = table_cells(page, "#hand-result")
        assert_same_records(keys, rows, want)
    assert page.errors == [] and page.outside == []


@pytest.mark.gate
def test_replay_a_dataset_deal_played_by_the_user_to_the_end(server, page_factory, data_dir):
    """A deal of the dataset under --data, South played by the user card by card to the
    last trick: the cards played before a pick never change, and the finished deal has 32
    cards, South's the ones picked, and offers no more.
    Sample in make test: test_replay_screen_plays_as_play_and_lets_a_user_pick"""
    page = page_factory()
    page.goto(server.url + "/replay")
    page.check("#replay-source-dataset")
    page.fill("#replay-dataset", "hearts")
    page.fill("#replay-index", "5")
    page.fill("#replay-contract", "8H")
    page.select_option("#replay-declarer", "E")
    for seat in "NEW":
        page.select_option(f"#replay-player-{seat}", "dd")
    page.select_option("#replay-player-S", "you")
    page.click("#replay-run")
    picks: list[str] = []
    before: list = []
    for _ in range(8):
        assert finished(page, "#replay-status") == "done", page.inner_text("#replay-status")
        page.wait_for_selector("#replay-picks button.pick")
        legal = page.eval_on_selector_all("#replay-picks button.pick",
                                          "bs => bs.map(b => b.dataset.card)")
        cells = play_cells(page)
        assert cells[: len(before)] == before
        before = cells
        picks.append(legal[0])
        page.click(f"#replay-picks button.pick[data-card='{legal[0]}']")
        page.wait_for_function("n => [...document.querySelectorAll('#replay-result table"
                               "[data-table=cards] tbody tr')].filter(tr => tr.children[1]"
                               ".dataset.v === 'S').length >= n", arg=len(picks),
                               timeout=120_000)
    assert finished(page, "#replay-status") == "done"
    cells = play_cells(page)
    assert len(cells) == 32 and [c for s, c, _ in cells if s == "S"] == picks
    assert page.eval_on_selector_all("#replay-picks button.pick", "bs => bs.length") == 0
    assert page.errors == [] and page.outside == []
