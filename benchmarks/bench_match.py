"""Duplicate match play-offs between bidding policies (:mod:`bazarsim.matches`).

On a pre-solved bazar DD dataset (solved once into ``runs/``, not timed): matches a
second in one process and on every core (worker processes), the wall time of 10,000
match pairs to 301 (the issue's goal: under 10 minutes here), the 95 % half-width of A's
win chance paired and unpaired with the pairing's variance reduction, the equity DP's
time and its agreement with the simulated matches (careful against bold, whose score
rule the DP models by taking outcomes per rule in force, and against bold without it).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import time
from pathlib import Path

from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.matches.bidding import PolicyBidder
from bazarsim.matches.deals import load_deals
from bazarsim.matches.equity import match_equity, simulated_vs_dp
from bazarsim.matches.model import fit_model
from bazarsim.matches.playoff import play_pairs, playoff_summary
from bazarsim.matches.policy import load_policy
from bazarsim.matches.run import PlayoffSpec, read_playoff, run_playoff
from bazarsim.rules.rulesets import get_ruleset

from .common import row

GROUP = "match play-offs (bidding policies)"
ROOT = Path(__file__).resolve().parent.parent


def solved_dataset(deals: int) -> Path:
    out = ROOT / "runs" / f"bench-match-bazar-7-{deals}"
    run_simulation(Simulation(deals=deals, seed=7, ruleset=get_ruleset("bazar"), dd=True,
                              columns="lean"), out)
    return out


def collect(quick: bool) -> list[dict]:
    deals = 2000 if quick else 20_000
    pairs = 200 if quick else 10_000
    one = 50 if quick else 1000
    data = solved_dataset(deals)
    tmp = Path(tempfile.mkdtemp(prefix="bench-match-"))
    try:
        model, _cal = fit_model(data)
        model_file = tmp / "model.json"
        model.save(model_file)
        table = load_deals(data)
        careful, bold = load_policy("careful"), load_policy("bold")
        flat = dataclasses.replace(bold, name="bold-flat", score=())
        a, b = PolicyBidder(careful), PolicyBidder(bold)
        play_pairs(model, table, a, b, 1, 0, 5, 301)  # warm-up (imports, first calls)
        t0 = time.perf_counter()
        wins, rows = play_pairs(model, table, a, b, 7, 0, one, 301)
        single = time.perf_counter() - t0
        cores = os.cpu_count() or 1
        out = [row(GROUP, "matches a second, 1 process", 2 * one / single, "matches/s",
                   f"one run of {one:,} pairs ({2 * one:,} matches to 301, "
                   f"{len(rows) / (2 * one):.2f} deals a match) on {deals:,} solved deals")]
        results = {}
        for rival in (bold, flat):
            spec = PlayoffSpec(str(data), str(model_file), careful, rival, 7, 301, "dd", pairs)
            t0 = time.perf_counter()
            run_playoff(spec, tmp / rival.name, chunk=100, processes=cores)
            results[rival.name] = (time.perf_counter() - t0, *read_playoff(tmp / rival.name))
        wall, wins, rows = results["bold"]
        out.append(row(GROUP, f"{pairs:,} pairs to 301, {cores} processes", wall, "s",
                       f"one run (goal: under 600 s for 10,000 pairs); "
                       f"{2 * pairs / wall:,.0f} matches/s; careful against bold"))
        s = playoff_summary(wins, rows, 301)
        out.append(row(GROUP, f"95 % half-width, paired ({pairs:,} pairs)",
                       100 * s["half_width_paired"], "pp",
                       f"one run; careful wins {100 * s['a_win']:.2f} %"))
        out.append(row(GROUP, f"95 % half-width, unpaired ({2 * pairs:,} matches)",
                       100 * s["half_width_unpaired"], "pp",
                       "from the rows above: the same matches counted as independent"))
        out.append(row(GROUP, "variance reduction of the pairing", s["variance_reduction"],
                       "x", "from the rows above: unpaired / paired variance"))
        policies = {"bold": (careful, bold), "bold-flat": (careful, flat)}
        for name, (_w, wins, rows) in results.items():
            t0 = time.perf_counter()
            res = match_equity(rows, table.ruleset, 301, policies[name])
            dp_time = time.perf_counter() - t0
            check = simulated_vs_dp(res, wins)
            out.append(row(GROUP, f"simulated minus DP, careful vs {name}",
                           100 * check["difference"], "pp",
                           f"one run: DP {100 * check['dp']:.2f} % against "
                           f"{100 * check['simulated']:.2f} ± "
                           f"{100 * check['simulated_se']:.2f} % over {check['matches']:,} "
                           f"matches; DP {dp_time:.1f} s ({res['size']}² scores x 2 dealers, "
                           f"{sum(res['deals']):,} outcomes)"))
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
