"""The screenshots of docs/web-app.md: the three screens of ``bazarsim serve``, each asked
a real question, in headless Chromium (``make reports`` runs this).

The study browser's dataset is made here (bazar, 2,000 deals, hearts, DD and single dummy
with four PIMC-8 players, seed 7), in a scratch directory given to the app as ``--data``.

``python -m benchmarks.app_screens [--out docs/images]``
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from .bench_app import ServedApp

DEAL = "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97"
WIDTH, HEIGHT = 1100, 1900  # the shot's size: the form and the first screen of its answer


def _done(page, status: str) -> None:
    page.wait_for_function("s => document.querySelector(s).dataset.state === 'done'",
                           arg=status, timeout=600_000)


def _shot(page, path: Path) -> None:
    height = min(HEIGHT, page.evaluate("document.documentElement.scrollHeight"))
    page.screenshot(path=str(path), clip={"x": 0, "y": 0, "width": WIDTH, "height": height},
                    full_page=True)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> None:
    from playwright.sync_api import sync_playwright

    from bazarsim.engine.run import run_simulation
    from bazarsim.engine.simulation import Simulation
    from bazarsim.report.browser import launch
    from bazarsim.rules.rulesets import get_ruleset

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="docs/images")
    out = Path(ap.parse_args(argv).out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        print("simulating the study's dataset ...", flush=True)
        run_simulation(Simulation(deals=2000, seed=7, ruleset=get_ruleset("bazar"), kinds=(1,),
                                  columns="lean", dd=True, sd=8), Path(tmp) / "hearts-2000")
        app = ServedApp(tmp)
        try:
            with sync_playwright() as p:
                browser = launch(p)
                page = browser.new_page(viewport={"width": WIDTH, "height": 900})
                page.goto(app.url + "/hand")
                page.fill("#hand-cards", "AJ9.K7.Q.T8")
                page.select_option("#hand-seat", "S")
                page.select_option("#hand-dealer", "W")
                page.fill("#hand-auction", "8H P")
                page.click("#hand-run")
                _done(page, "#hand-status")
                _shot(page, out / "app-hand.png")

                page.goto(app.url + "/study")
                page.wait_for_selector("#study-dataset option[value='hearts-2000']",
                                       state="attached")
                page.select_option("#study-dataset", "hearts-2000")
                page.wait_for_selector("#study-kinds input")
                page.fill("#study-levels", "8..10")
                row = page.locator("#study-by-rows .by-row").first
                row.locator(".by-feature").select_option("trumps")
                row.locator(".by-edges").fill("0..2,3,4,5..")
                page.click("#study-run")
                _done(page, "#study-status")
                _shot(page, out / "app-study.png")

                page.goto(app.url + "/replay")
                page.fill("#replay-deal", DEAL)
                page.fill("#replay-contract", "9H")
                page.select_option("#replay-declarer", "N")
                page.select_option("#replay-player-S", "you")
                page.click("#replay-run")
                _done(page, "#replay-status")
                page.click("#replay-picks button.pick >> nth=0")
                page.wait_for_selector("#replay-picks button.pick", timeout=120_000)
                _done(page, "#replay-status")
                _shot(page, out / "app-replay.png")
                browser.close()
        finally:
            app.close()


if __name__ == "__main__":
    main()
