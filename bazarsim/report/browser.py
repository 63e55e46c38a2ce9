"""Open a report page in headless Chromium and say what a reader would see.

A small client of the Chrome DevTools protocol over ``--remote-debugging-pipe`` (file
descriptors 3 and 4, messages ended by a NUL byte), standard library only. For a page it
gives: console errors and uncaught exceptions, any request that left the machine (a page
must need no network), each figure's drawn size and number of SVG elements, each table's
cells (shown text and raw ``data-v`` value), the sections marked missing, and optionally a
screenshot (PNG) and the number of A4 pages it prints on.

``python -m bazarsim.report.browser PAGE.html [--screenshot PNG]`` prints that as JSON and
exits with 1 when the page has a console error, an outside request or an empty figure.
"""

from __future__ import annotations

import base64
import fcntl
import io
import json
import os
import queue
import re
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

INSPECT = r"""
(() => {
  const figs = [...document.querySelectorAll('figure.fig')].map(f => {
    const svg = f.querySelector('svg');
    const r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    return {id: f.dataset.figure, width: r.width, height: r.height,
            x: r.left + window.scrollX, y: r.top + window.scrollY,
            elements: svg ? svg.querySelectorAll('path, text, use, rect, line, polyline')
                                .length : 0,
            text: svg ? svg.textContent.trim().length : 0};
  });
  const tables = [...document.querySelectorAll('table[data-table]')].map(t => ({
    id: t.dataset.table, command: t.dataset.command || null,
    // CSS pixels the table is wider than its box (> 0: a horizontal scrollbar)
    overflow: t.parentElement ? t.parentElement.scrollWidth - t.parentElement.clientWidth
                              : 0,
    keys: [...t.querySelectorAll('thead th')].map(th => th.dataset.key),
    rows: [...t.querySelectorAll('tbody tr')].map(tr =>
      [...tr.querySelectorAll('td')].map(td => [td.dataset.v, td.textContent]))
  }));
  const missing = [...document.querySelectorAll('[data-missing]')].map(e => e.dataset.missing);
  return {title: document.title, figures: figs, tables: tables, missing: missing,
          width: document.documentElement.scrollWidth,
          height: document.documentElement.scrollHeight,
          scripts: document.querySelectorAll('script').length};
})()
"""


def find_chromium() -> str | None:
    """The Chromium (or Chrome) binary on PATH, or ``None``."""
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    """Chromium could not be started or did not answer."""


class Chromium:
    """One headless Chromium process, driven over a pipe; use as a context manager."""

    def __init__(self, binary: str | None = None, timeout: float = 60.0):
        self.binary = binary or find_chromium()
        if not self.binary:
            raise BrowserError("no Chromium on PATH (apt-get install chromium)")
        self.timeout = timeout
        self._next = 0
        self._events: list[dict] = []
        self._replies: dict[int, dict] = {}
        self._inbox: queue.Queue = queue.Queue()
        to_r, to_w = os.pipe()  # we write commands, Chromium reads fd 3
        from_r, from_w = os.pipe()  # Chromium writes fd 4, we read
        # the child's ends, moved above fd 9 so that putting them on 3 and 4 clobbers neither
        child = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_r, from_w)]
        os.close(to_r)
        os.close(from_w)
        self._profile = tempfile.mkdtemp(prefix="bazarsim-chromium-")  # no shared profile
        args = [self.binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
                f"--user-data-dir={self._profile}", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--mute-audio", "--hide-scrollbars",
                "about:blank"]
        # posix_spawn, not fork + preexec_fn: no Python code runs in the child, so a
        # process with threads (Numba's, pytest's) cannot deadlock it
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            self._pid = os.posix_spawn(self.binary, args, dict(os.environ), file_actions=[
                (os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
                (os.POSIX_SPAWN_DUP2, devnull, 2), (os.POSIX_SPAWN_DUP2, child[0], 3),
                (os.POSIX_SPAWN_DUP2, child[1], 4)])
        except OSError as exc:
            shutil.rmtree(self._profile, ignore_errors=True)
            for fd in (to_w, from_r):
                os.close(fd)
            raise BrowserError(f"cannot start {self.binary}: {exc.strerror or exc}") from None
        finally:
            os.close(devnull)
            for fd in child:
                os.close(fd)
        self._out = os.fdopen(to_w, "wb", buffering=0)
        self._in = os.fdopen(from_r, "rb", buffering=0)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # ------------------------------------------------------------------ protocol

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = self._in.read(65536)
            except OSError:
                chunk = b""
            if not chunk:
                self._inbox.put(None)
                return
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                self._inbox.put(json.loads(msg))

    def _pump(self, deadline: float) -> None:
        try:
            msg = self._inbox.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            return
        if msg is None:
            raise BrowserError("Chromium closed the pipe (did it start? try it by hand: "
                               f"{self.binary} --headless=new --no-sandbox about:blank)")
        if "id" in msg:
            self._replies[msg["id"]] = msg
        else:
            self._events.append(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None):
        self._next += 1
        ident = self._next
        msg = {"id": ident, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._out.write(json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while ident not in self._replies:
            if time.monotonic() > deadline:
                raise BrowserError(f"no answer to {method} in {self.timeout:g} s")
            self._pump(deadline)
        reply = self._replies.pop(ident)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def wait_event(self, method: str, session: str, timeout: float | None = None) -> dict:
        deadline = time.monotonic() + (timeout or self.timeout)
        seen = 0
        while True:
            for ev in self._events[seen:]:
                if ev.get("method") == method and ev.get("sessionId") == session:
                    return ev
            seen = len(self._events)
            if time.monotonic() > deadline:
                raise BrowserError(f"no {method} in {timeout or self.timeout:g} s")
            self._pump(deadline)

    # ------------------------------------------------------------------ pages

    def check(self, page: str | Path, screenshot: str | Path | None = None,
              width: int = 1000, max_height: int = 6000, pdf: bool = False,
              paint: bool = True) -> dict:
        """Load ``page`` in a fresh tab ``width`` CSS pixels wide and report what
        happened (see the module doc); ``paint``: also how much of each figure's box is
        painted (a screenshot each), ``pdf``: print it and count the pages."""
        url = Path(page).resolve().as_uri()
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target,
                                                      "flatten": True})["sessionId"]
        try:
            for domain in ("Page", "Runtime", "Log", "Network"):
                self.send(f"{domain}.enable", session=session)
            self.send("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": 800, "deviceScaleFactor": 1, "mobile": False},
                session=session)
            start = len(self._events)
            self.send("Page.navigate", {"url": url}, session=session)
            self.wait_event("Page.loadEventFired", session)
            # a moment for late console messages (none expected: the page has no script)
            end = time.monotonic() + 0.05
            while time.monotonic() < end:
                self._pump(end)
            info = self.send("Runtime.evaluate", {"expression": INSPECT, "returnByValue": True},
                             session=session)["result"]["value"]
            events = [e for e in self._events[start:] if e.get("sessionId") == session]
            info["errors"] = console_errors(events)
            info["requests"] = sorted({
                e["params"]["request"]["url"] for e in events
                if e.get("method") == "Network.requestWillBeSent"
                and not e["params"]["request"]["url"].startswith(("file:", "data:", "about:"))})
            for fig in info["figures"]:  # paint=False: None, not checked
                fig["painted"] = self._painted(session, fig) if paint else None
            if screenshot:
                height = min(int(info["height"]), max_height)
                self.send("Emulation.setDeviceMetricsOverride", {
                    "width": width, "height": height, "deviceScaleFactor": 1,
                    "mobile": False}, session=session)
                shot = self.send("Page.captureScreenshot", {"format": "png"}, session=session)
                Path(screenshot).write_bytes(base64.b64decode(shot["data"]))
            if pdf:
                data = self.send("Page.printToPDF", {"preferCSSPageSize": True},
                                 session=session)["data"]
                raw = base64.b64decode(data)
                info["pdf_pages"] = len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", raw))
                boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)", raw)
                info["pdf_a4"] = bool(boxes) and all(
                    abs(float(w) - 595.3) < 1.5 and abs(float(h) - 841.9) < 1.5
                    for w, h in boxes)
            return info
        finally:
            self.send("Target.closeTarget", {"targetId": target})

    def _painted(self, session: str, fig: dict) -> float | None:
        """Share of the figure's box that is not (near) white on screen: what was drawn,
        seen as pixels (``None`` without Pillow to read the PNG)."""
        if fig["width"] < 1 or fig["height"] < 1:
            return 0.0
        try:
            from PIL import Image
        except ImportError:
            return None
        shot = self.send("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": fig["x"], "y": fig["y"], "width": fig["width"],
                     "height": fig["height"], "scale": 0.5}}, session=session)
        grey = Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("L")
        hist = grey.histogram()
        return 1 - sum(hist[235:]) / max(1, sum(hist))

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (BrowserError, OSError):
            pass
        deadline = time.monotonic() + 10
        while os.waitpid(self._pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(self._pid, signal.SIGKILL)
                os.waitpid(self._pid, 0)
                break
            time.sleep(0.05)
        for f in (self._out, self._in):
            try:
                f.close()
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def console_errors(events: list[dict]) -> list[str]:
    """Console errors, failed assertions, uncaught exceptions and error log entries."""
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console." + p["type"] + ": " + " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: " + str(d.get("exception", {}).get("description")
                                           or d.get("text")))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append("log: " + p["entry"].get("text", ""))
    return out


def problems(info: dict) -> list[str]:
    """What is wrong with a checked page: errors, outside requests, empty figures."""
    out = list(info["errors"])
    out += [f"request to {u}" for u in info["requests"]]
    out += [f"figure {f['id']} is empty ({f['width']:.0f} x {f['height']:.0f} px, "
            f"{f['elements']} elements, {_share(f.get('painted'))} of it painted)"
            for f in info["figures"]
            if f["width"] < 100 or f["height"] < 50 or f["elements"] < 10 or f["text"] < 5
            or (f.get("painted") is not None and f["painted"] < 0.01)]
    if info.get("scripts"):
        out.append(f"{info['scripts']} script elements (a report has none)")
    return out


def _share(v: float | None) -> str:
    return "?" if v is None else f"{100 * v:.1f} %"


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("page")
    ap.add_argument("--screenshot")
    ap.add_argument("--width", type=int, default=1000)
    ap.add_argument("--max-height", type=int, default=6000)
    args = ap.parse_args(argv)
    with Chromium() as browser:
        info = browser.check(args.page, args.screenshot, args.width, args.max_height, pdf=True)
    bad = problems(info)
    summary = {k: info[k] for k in ("title", "errors", "requests", "missing", "pdf_pages",
                                    "pdf_a4")}
    summary["figures"] = [(f["id"], round(f["width"]), round(f["height"]), f["elements"],
                           _share(f["painted"])) for f in info["figures"]]
    summary["tables"] = {t["id"]: len(t["rows"]) for t in info["tables"]}
    summary["problems"] = bad
    print(json.dumps(summary, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
