"""Double-dummy solver: exact values and threshold probes per contract kind, DD tables.

Fixed random full deals (``default_rng(SEED).permutation(32)``), first lead East.
Per contract kind on one thread: exact value (median, p90, p99, max ms; nodes) and a
threshold probe "N-S take more than half" (median ms); the search rate in nodes/s.
DD tables (6 contracts, 192 deals) per second with 1 and 2 threads, side by side, points
only and with the capot flags the CLI prints. Ablation in the same run, on full deals:
each enhancement switched off alone and the other drivers; all off on 6-trick positions
(where it finishes), beside all on there. Times and node counts are given as ratios to
all on, timed in interleaved rounds.
"""

from __future__ import annotations

import time

import numpy as np

from bazarsim.core.contracts import KIND_NAMES
from bazarsim.dd.batch import dd_tables
from bazarsim.dd.search import O_ALL
from bazarsim.dd.solver import OPTION_NAMES, Solver

from .common import numba_threads, row, thread_counts

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
            note = f"{n} deals, 1 thread, each solve timed once"
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
                f"{6 * n} solves, 1 thread, Python call overhead included; total of the "
                "nodes over total of the times, each solve timed once"),
            row(GROUP, "exact all kinds median", med, "ms", f"{6 * n} solves, timed once"),
            row(GROUP, "exact all kinds mean", mean, "ms", f"{6 * n} solves, timed once"),
            row(GROUP, "exact all kinds p99", p99, "ms", f"{6 * n} solves, timed once"),
        ]

        # Ablation on full deals (a suit, BK and VK each): each enhancement off alone and
        # the other drivers; everything off (plain alpha-beta) only on 6-trick positions,
        # where it finishes, beside all on there.
        full = deals(6 if quick else 20, seed=SEED + 1)
        small = deals(4 if quick else 10, cards=6, seed=SEED + 1)
        # The control: a second, separate solver with every option on, timed in the same
        # rounds as the others; its "time x" is the noise of every ratio below (ideally
        # x1.00, nodes exactly x1.00).
        variants = [("all on", Solver(), full),
                    ("all on again (A against A control)", Solver(), full)]
        variants += [(f"without {k}", Solver(opts=O_ALL & ~v), full)
                     for k, v in OPTION_NAMES.items()]
        variants += [("bisection driver instead of auto", Solver(method="bisect"), full),
                     ("MTD(f) driver instead of auto", Solver(method="mtdf"), full),
                     ("full-window driver instead of auto", Solver(method="full"), full),
                     ("6 tricks: all on", Solver(), small),
                     ("6 tricks: all off (plain alpha-beta, full window)",
                      Solver(opts=0, method="full"), small)]
        # Interleaved rounds in a new random order each, each solve's best time kept (then
        # averaged): on a shared host, load that comes back with the period of a round
        # would otherwise hit the same variant every time (reports/solver-notes.md).
        for _, s, ds in variants:
            s.solve(ds[0], 0, 1)
        solve_best = [np.full(3 * len(ds), np.inf) for _, _, ds in variants]
        nodes = [0] * len(variants)
        rng = np.random.default_rng(SEED)
        rounds = 2 if quick else 4
        for _ in range(rounds):
            for i in rng.permutation(len(variants)):
                _, s, ds = variants[i]
                n_i = 0
                for j, d in enumerate(ds):
                    for k, kind in enumerate((0, 4, 5)):
                        t0 = time.perf_counter()
                        n_i += s.solve(d, kind, 1).nodes
                        t = (time.perf_counter() - t0) * 1e3
                        solve_best[i][3 * j + k] = min(solve_best[i][3 * j + k], t)
                nodes[i] = n_i / (3 * len(ds))
        best = [float(b.mean()) for b in solve_best]
        for i, (label, _, ds) in enumerate(variants):
            ref = 0 if ds is full else len(variants) - 2
            name = label if ds is small else f"ablation: {label}"
            rows.append(row(GROUP, name, best[i], "ms/solve",
                            f"{len(ds)} deals x (S, BK, VK), {nodes[i]:.0f} nodes/solve, "
                            f"nodes x{nodes[i] / nodes[ref]:.2f}, time x{best[i] / best[ref]:.2f}"
                            f" (each solve's best of {rounds} interleaved rounds, mean of the "
                            "solves)"))

    batch = deals(4 if quick else N_TABLES, seed=SEED + 2)
    for capot in (False, True):
        rates = {}
        for threads in thread_counts((1, 2)):
            with numba_threads(threads):
                dd_tables(batch[:1], dealer=0, capot=capot)
                t0 = time.perf_counter()
                dd_tables(batch, dealer=0, capot=capot)
                rates[threads] = len(batch) / (time.perf_counter() - t0)
        what = "with capot flags" if capot else "points only"
        for threads in rates:
            rows.append(row(GROUP, f"DD tables (6 contracts, {what}), {threads} "
                            f"thread{'s' * (threads > 1)}", rates[threads], "deals/s",
                            f"{len(batch)} deals, x{rates[threads] / rates[1]:.2f} vs 1; one run"))
    return rows
