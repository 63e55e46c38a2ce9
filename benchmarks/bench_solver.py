"""Double-dummy solver: exact values and threshold probes per contract kind, DD tables.

Fixed random full deals (``default_rng(SEED).permutation(32)``), first lead East.
Per contract kind on one thread: exact value (median, p90, p99, max ms; nodes) and a
threshold probe "N-S take more than half" (median ms); the search rate in nodes/s.
DD tables (6 contracts, 192 deals) per second with 1 and 2 threads, side by side, points
only and with the capot flags the CLI prints. Ablation in the same run, on 6-trick
positions (where every variant finishes): each enhancement switched off alone, the other
drivers, and all off.
"""

from __future__ import annotations

import time

import numpy as np

from bazarsim.contracts import KIND_NAMES
from bazarsim.solver import OPTION_NAMES, Solver
from bazarsim.solver.batch import dd_tables
from bazarsim.solver.search import O_ALL

from .common import numba_threads, row

SEED = 2026
GROUP = "solver"


def deals(n: int, cards: int = 8, seed: int = SEED) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 4), np.uint32)
    for i in range(n):
        perm = rng.permutation(32)
        for s in range(4):
            for c in perm[s * cards : (s + 1) * cards]:
                out[i, s] |= np.uint32(1 << int(c))
    return out


def _stats(times_ms: list[float]) -> tuple[float, float, float, float, float]:
    a = np.asarray(times_ms)
    return (float(np.median(a)), float(np.percentile(a, 90)), float(np.percentile(a, 99)),
            float(a.max()), float(a.mean()))


# Deals per contract kind for the exact and probe rows. Solve times are heavy-tailed and
# a probe's cost depends on how near the threshold the value lies, so small samples
# mislead: on 20 deals one kind's probe median came out 0.264 ms, on 200 deals 0.162 ms,
# and 20 deals x 6 kinds have no real p99 (it is nearly the maximum of 120 solves).
N_EXACT = 200
N_TABLES = 192


def collect(quick: bool) -> list[dict]:
    n = 6 if quick else N_EXACT
    ds = deals(n)
    rows: list[dict] = []
    with numba_threads(1):
        solver = Solver()
        solver.solve(ds[0], 0, 1)  # JIT warm-up (cached after the first run)
        solver.can_reach(ds[0], 0, 1, "NS", 81)
        all_t, all_nodes = [], []
        for kind in range(6):
            times, nodes, probe_t = [], [], []
            for d in ds:
                t0 = time.perf_counter()
                sol = solver.solve(d, kind, 1)
                times.append((time.perf_counter() - t0) * 1e3)
                nodes.append(sol.nodes)
                t0 = time.perf_counter()
                solver.can_reach(d, kind, 1, "NS", sol.total // 2 + 1)
                probe_t.append((time.perf_counter() - t0) * 1e3)
            med, p90, p99, mx, mean = _stats(times)
            name = KIND_NAMES[kind]
            note = f"{n} deals, 1 thread"
            rows += [
                row(GROUP, f"exact {name} median", med, "ms", note),
                row(GROUP, f"exact {name} mean", mean, "ms", note),
                row(GROUP, f"exact {name} p90", p90, "ms", note),
                row(GROUP, f"exact {name} p99", p99, "ms", note),
                row(GROUP, f"exact {name} max", mx, "ms", note),
                row(GROUP, f"exact {name} nodes median", float(np.median(nodes)), "nodes", note),
                row(GROUP, f"probe {name} median", float(np.median(probe_t)), "ms",
                    note + ", N-S > half"),
            ]
            all_t += times
            all_nodes += nodes
        med, p90, p99, mx, mean = _stats(all_t)
        rate = sum(all_nodes) / (sum(all_t) / 1e3) / 1e6
        rows += [
            row(GROUP, "exact search rate", rate, "Mnodes/s",
                f"{6 * n} solves, 1 thread, Python call overhead included"),
            row(GROUP, "exact all kinds median", med, "ms", f"{6 * n} solves"),
            row(GROUP, "exact all kinds mean", mean, "ms", f"{6 * n} solves"),
            row(GROUP, "exact all kinds p99", p99, "ms", f"{6 * n} solves"),
        ]

        # Ablation on 6-trick positions (without the table, full deals take too long):
        # each enhancement off alone, the other drivers, and everything off.
        small = deals(4 if quick else 10, cards=6, seed=SEED + 1)
        variants = [("all on", Solver())]
        variants += [(f"without {k}", Solver(opts=O_ALL & ~v)) for k, v in OPTION_NAMES.items()]
        variants += [("bisection driver instead of auto", Solver(method="bisect")),
                     ("MTD(f) driver instead of auto", Solver(method="mtdf")),
                     ("full-window driver instead of auto", Solver(method="full")),
                     ("all off (plain alpha-beta, full window)", Solver(opts=0, method="full"))]
        base_nodes = None
        for label, s in variants:
            s.solve(small[0], 0, 1)
            t0 = time.perf_counter()
            nodes = 0
            for d in small:
                for kind in (0, 4, 5):
                    nodes += s.solve(d, kind, 1).nodes
            per = (time.perf_counter() - t0) * 1e3 / (3 * len(small))
            base_nodes = base_nodes or nodes
            rows.append(row(GROUP, f"6 tricks: {label}", per, "ms/solve",
                            f"{nodes / (3 * len(small)):.0f} nodes/solve, "
                            f"x{nodes / base_nodes:.2f} vs all on"))

    batch = deals(4 if quick else N_TABLES, seed=SEED + 2)
    for capot in (False, True):
        rates = {}
        for threads in (1, 2):
            with numba_threads(threads):
                dd_tables(batch[:1], dealer=0, capot=capot)
                t0 = time.perf_counter()
                dd_tables(batch, dealer=0, capot=capot)
                rates[threads] = len(batch) / (time.perf_counter() - t0)
        what = "with capot flags" if capot else "points only"
        for threads in (1, 2):
            rows.append(row(GROUP, f"DD tables (6 contracts, {what}), {threads} "
                            f"thread{'s' * (threads > 1)}", rates[threads], "deals/s",
                            f"{len(batch)} deals, x{rates[threads] / rates[1]:.2f} vs 1"))
    return rows
