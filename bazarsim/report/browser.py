"""Open a report page in headless Chromium and say what a reader would see.

Playwright (its sync API) drives the system's Chromium, the distribution's package found on
PATH: no browser is ever downloaded. For a page it gives: console errors and uncaught
exceptions, any request that left the machine (a page must need no network), each figure's
drawn size, number of SVG elements and share of its box painted on screen, each table's
cells (shown text and raw ``data-v`` value), the sections marked missing, and optionally a
screenshot (PNG) and the number of A4 pages it prints on.

``python -m bazarsim.report.browser PAGE.html [--screenshot PNG]`` prints that as JSON and
exits with 1 when the page has a console error, an outside request or an empty figure.
:func:`launch` gives other tests (the web app's) a Playwright ``Browser`` on the same
Chromium, with the same flags (:data:`CHROMIUM_ARGS`).
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Chromium's flags besides headless: no sandbox (it cannot start as root or in most
# containers without it), no GPU, and none of its own connections (updates, components,
# sync): closed networks refuse them, and a checked page must be the only thing that
# makes a request.
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run")

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
    """No Chromium, or it could not be started."""


def launch(playwright: Playwright, binary: str | None = None) -> Browser:
    """A headless Playwright ``Browser`` on the system's Chromium (``binary``, default
    :func:`find_chromium`), started with :data:`CHROMIUM_ARGS`; the caller closes it."""
    from playwright.sync_api import Error

    binary = binary or find_chromium()
    if not binary:
        raise BrowserError("no Chromium on PATH (apt-get install chromium)")
    try:
        return playwright.chromium.launch(executable_path=binary, headless=True,
                                          args=list(CHROMIUM_ARGS))
    except Error as exc:
        raise BrowserError(f"cannot start {binary}: {exc.message}") from None


class Chromium:
    """One headless Chromium that checks pages, each in a fresh tab; use as a context
    manager. ``playwright``: a running Playwright to launch it from (and leave running),
    else it starts its own, stopped on close. Playwright's sync API runs an asyncio loop
    in the calling thread, so one thread has one Playwright at a time: share it."""

    def __init__(self, binary: str | None = None, timeout: float = 60.0,
                 playwright: Playwright | None = None):
        from playwright.sync_api import sync_playwright

        self.timeout = timeout
        self._own = playwright is None
        self._playwright = sync_playwright().start() if playwright is None else playwright
        try:
            self.browser = launch(self._playwright, binary)
            # one context for every check (a page of its own each): a context costs as
            # much again as a page to set up
            self._context = self.browser.new_context(device_scale_factor=1)
            self._context.set_default_timeout(timeout * 1000)
        except BaseException:
            if self._own:
                self._playwright.stop()
            raise

    def check(self, page: str | Path, screenshot: str | Path | None = None,
              width: int = 1000, max_height: int = 6000, pdf: bool = False,
              paint: bool = True) -> dict:
        """Load ``page`` in a fresh tab ``width`` CSS pixels wide and report what
        happened (see the module doc); ``paint``: also how much of each figure's box is
        painted (a screenshot each), ``pdf``: print it and count the pages."""
        errors: list[str] = []
        requests: set[str] = set()
        tab = self._context.new_page()
        try:
            tab.set_viewport_size({"width": width, "height": 800})
            tab.on("console", lambda msg: errors.extend(console_errors([msg])))
            tab.on("pageerror", lambda exc: errors.append(f"exception: {exc.stack or exc}"))
            tab.on("request", lambda req: requests.add(req.url))
            tab.goto(Path(page).resolve().as_uri(), wait_until="load")
            # a JSON string: Playwright's own serialisation of the tables' cells is slow
            info = json.loads(tab.evaluate(f"JSON.stringify({INSPECT.strip()})"))
            info["errors"] = errors
            info["requests"] = sorted(u for u in requests
                                      if not u.startswith(("file:", "data:", "about:")))
            for fig in info["figures"]:  # paint=False: None, not checked
                fig["painted"] = painted(tab, fig) if paint else None
            if screenshot:
                tab.set_viewport_size({"width": width,
                                       "height": min(int(info["height"]), max_height)})
                tab.screenshot(path=str(screenshot))
            if pdf:
                raw = tab.pdf(prefer_css_page_size=True)
                info["pdf_pages"] = len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", raw))
                boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)", raw)
                info["pdf_a4"] = bool(boxes) and all(
                    abs(float(w) - 595.3) < 1.5 and abs(float(h) - 841.9) < 1.5
                    for w, h in boxes)
            return info
        finally:
            tab.close()

    def close(self) -> None:
        try:
            self.browser.close()
        finally:
            if self._own:
                self._playwright.stop()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def painted(tab: Page, fig: dict) -> float | None:
    """Share of the figure's box (as INSPECT gives it, in page coordinates) that is not
    (near) white on the screen of ``tab``: what was drawn, seen as pixels (``None`` without
    Pillow to read the PNG)."""
    if fig["width"] < 1 or fig["height"] < 1:
        return 0.0
    try:
        from PIL import Image
    except ImportError:
        return None
    png = tab.screenshot(full_page=True, clip={"x": fig["x"], "y": fig["y"],
                                           "width": fig["width"], "height": fig["height"]})
    hist = Image.open(io.BytesIO(png)).convert("L").histogram()
    return 1 - sum(hist[235:]) / max(1, sum(hist))


def console_errors(messages: list[ConsoleMessage]) -> list[str]:
    """Console errors and failed assertions among ``messages`` (Chromium's error log
    entries, such as a resource that failed to load, come as console errors too)."""
    return [f"console.{m.type}: {m.text}" for m in messages if m.type in ("error", "assert")]


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
