"""bazarsim's double-dummy solver beside colver, a public Contree engine in Rust.

The same 240 full-deal suit contracts (60 fixed random deals x 4 trumps, leaders in
turn) on one thread, in one process, each contract solved by both back to back (the
order alternating). colver's query gives every lead's exact value from one search (it
has no cheaper query for the deal's value alone); ours gives the deal's value
(``Solver.solve``) or every lead's (``Solver.card_values``, the same output as colver's).
Like is compared with like in the "every lead's value" rows; the deal's value rows are
there to show what the cheaper query saves, and say that colver computes more. The
control row times ``card_values`` a second time in the same alternating order (A against
A): the noise of the ratios. Rules: ``belote-fr`` without the undertrump duty, which is
what colver plays (``tests/colver_ref.py``); the values are compared, lead by lead.
Skipped (no rows) where colver is not installed.
"""

from __future__ import annotations

import importlib.util
import time

import numpy as np

from bazarsim.core.cards import parse_card
from bazarsim.dd.solver import Solver
from tests.colver_ref import COLVER_RULESET, COLVER_VERSION, colver_lead_values, same_points

from .bench_solver import deals
from .common import numba_threads, row

GROUP = "solver vs colver"
N_DEALS = 60


def collect(quick: bool) -> list[dict]:
    if importlib.util.find_spec("colver") is None:
        return []
    ds = deals(6 if quick else N_DEALS, seed=31)
    times: dict[str, list[float]] = {"colver": [], "value": [], "leads": [], "again": []}
    agree = leads = 0
    with numba_threads(1):
        solver = Solver()
        queries = {
            "colver": colver_lead_values,
            "value": lambda d, t, ld: solver.solve(d, t, ld, COLVER_RULESET),
            "leads": lambda d, t, ld: solver.card_values(d, t, ld, COLVER_RULESET),
            "again": lambda d, t, ld: solver.card_values(d, t, ld, COLVER_RULESET),
        }
        for query in queries.values():  # JIT warm-up
            query(ds[0], 0, 0)
        for i, deal in enumerate(ds):
            leader = i % 4
            for trump in range(4):
                order = list(queries)
                if (4 * i + trump) % 2:
                    order.reverse()
                got = {}
                for name in order:
                    t0 = time.perf_counter()
                    got[name] = queries[name](deal, trump, leader)
                    times[name].append((time.perf_counter() - t0) * 1e3)
                total = got["value"].total
                for c, (v, _ew) in got["leads"].items():
                    agree += same_points(got["colver"][parse_card(c)], v, total)
                    leads += 1
    cv, value, lead, again = (np.array(times[k]) for k in ("colver", "value", "leads", "again"))
    n = len(cv)
    note = (f"{n} suit contracts ({len(ds)} deals x 4), 1 thread, back to back, each timed "
            "once")
    theirs = f"colver {COLVER_VERSION}: every lead's value"
    return [
        row(GROUP, f"{theirs}, median", np.median(cv), "ms", f"{note}; median of {n}"),
        row(GROUP, f"{theirs}, mean", cv.mean(), "ms", f"{note}; mean of {n}"),
        row(GROUP, "bazarsim: every lead's value, median", np.median(lead), "ms",
            f"{note}; median of {n}; the same output as colver's"),
        row(GROUP, "bazarsim: every lead's value, mean", lead.mean(), "ms",
            f"{note}; mean of {n}; the same output as colver's"),
        row(GROUP, "bazarsim: the deal's value, median", np.median(value), "ms",
            f"{note}; median of {n}; one value, not colver's output (every lead's)"),
        row(GROUP, "bazarsim: the deal's value, mean", value.mean(), "ms",
            f"{note}; mean of {n}; one value, not colver's output (every lead's)"),
        row(GROUP, "speed-up, every lead's value (total time)", cv.sum() / lead.sum(), "x",
            f"colver's time / bazarsim's, total of {n} contracts each, same output (like "
            "with like)"),
        row(GROUP, "speed-up, the deal's value (total time)", cv.sum() / value.sum(), "x",
            f"colver's time (every lead's value) / bazarsim's (the deal's value only), total "
            f"of {n} contracts each: not like with like, colver's query gives all 8 leads' values"),
        row(GROUP, "control: bazarsim's every lead's value against itself", again.sum()
            / lead.sum(), "x", f"A against A: card_values timed twice in the same "
            f"alternating order, total of {n} contracts each (per contract median "
            f"x{np.median(again / lead):.2f}); ideally x1.00, the noise of the ratios above"),
        row(GROUP, "leads whose values agree", agree, "leads", f"counted, of {leads}"),
    ]
