"""Issue #31's targets, with today's solver beside the baseline (``bfaa382``) in one run.

Measures, for the working tree's package and for the package as committed at
:data:`BASE_REV`: DD tables/s on 2 threads (six kinds; capot flags on, and points only),
and per contract kind the exact value on one thread (median, mean, p99 ms; mean nodes).
Each side runs in fresh processes of its own (renamed copies from
:mod:`benchmarks.ab_solver`, each with its Numba cache), in interleaved rounds that
alternate which side goes first; the best of each side is kept (highest rate; per deal,
the lowest time). On a shared, noisy host only the ratios of one run mean much, and
the steadiest is the paired row: both copies in one process, each set of deals run by
the two sides back to back (:func:`_paired_child`). Both sides must give the same
values (points, totals, capot flags), or this raises. The issue's limits are reported
as pass/fail notes, never asserted.
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

BASE_REV = "bfaa382"
GROUP = f"solver vs baseline {BASE_REV}"
THREADS = 2
# Issue #31's limits.
TARGET_TABLES = 500.0  # DD tables/s on 2 threads
LIMITS_MS = {"median": 0.6, "mean": 1.0, "p99": 6.0}  # exact value, per kind
# Values compared between the sides (nodes may differ: that is what a change does).
VALUE_FIELDS = ("ns_points", "total", "capot_ns", "capot_ew")
SIDES = ("bz_base", "bz_work")
# the paired measurement's sets of deals (each run in turn by both sides)
PAIRED_SETS = 8


# --- helpers shared with the other benchmarks that run the baseline beside today --------

def base_copy() -> Path:
    """The kept copy of the package as committed at :data:`BASE_REV` (``bz_base``)."""
    from .ab_solver import _base_id, _copy_revision, _kept_copy

    return _kept_copy(SIDES[0], _base_id(BASE_REV), lambda d: _copy_revision(BASE_REV, d))


def work_copy() -> Path:
    """The kept copy of the working tree's package (``bz_work``)."""
    from .ab_solver import _copy_work, _kept_copy, _work_id

    return _kept_copy(SIDES[1], _work_id(), _copy_work)


def run_child(module: str, *args: str) -> dict:
    """Run ``python -m benchmarks.MODULE ARGS`` from the repository; its last output line
    is the JSON it returns."""
    root = Path(__file__).resolve().parent.parent
    res = subprocess.run([sys.executable, "-m", f"benchmarks.{module}", *args], cwd=root,
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{module} {' '.join(args[:2])} failed ({res.returncode}):\n"
                           f"{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def check_same_tables(base: dict, work: dict, what: str) -> None:
    """Raise unless two ``dd_tables`` outputs give the same values (nodes may differ)."""
    for k, v in work.items():
        if k.split("_", 1)[1] in VALUE_FIELDS and not np.array_equal(v, base[k]):
            raise RuntimeError(f"{k} differs between {BASE_REV} and today's solver ({what})")


# --- child: one side in its own process; imports nothing of bazarsim but its copy -------

def _tables(batch, ds, capot: bool, passes: int) -> tuple[float, dict]:
    """Best rate (tables/s) of ``passes`` calls and the values of the last one."""
    best = 0.0
    for _ in range(passes):
        t0 = time.perf_counter()
        out = batch.dd_tables(ds, dealer=0, capot=capot)
        best = max(best, len(ds) / (time.perf_counter() - t0))
    values = {k: v.astype(int).tolist() for k, v in out.items()
              if k.split("_", 1)[1] in VALUE_FIELDS}
    return best, values


def _child(home: str, package: str, deals_path: str, passes: int) -> None:
    """Tables/s and per-deal exact solve times of one side, as one JSON line."""
    sys.path.insert(0, home)
    batch = importlib.import_module(f"{package}.dd.batch")
    solver = importlib.import_module(f"{package}.dd.solver").Solver()
    with np.load(deals_path) as f:
        tables, exact = f["tables"], f["exact"]
    numba.set_num_threads(min(THREADS, numba.config.NUMBA_NUM_THREADS))
    batch.dd_tables(tables[:1], dealer=0, capot=True)  # load or compile, untimed
    out: dict = {"threads": numba.get_num_threads()}
    for key, capot in (("capot", True), ("points", False)):
        out[key], out[f"{key}_values"] = _tables(batch, tables, capot, passes)
    numba.set_num_threads(1)
    solver.solve(exact[0], 0, 1)  # load or compile, untimed
    times = [[float("inf")] * len(exact) for _ in range(6)]
    nodes = [[0] * len(exact) for _ in range(6)]
    values = [[0] * len(exact) for _ in range(6)]
    for _ in range(passes):
        for kind in range(6):
            for i, d in enumerate(exact):
                t0 = time.perf_counter()
                sol = solver.solve(d, kind, 1)
                times[kind][i] = min(times[kind][i], (time.perf_counter() - t0) * 1e3)
                nodes[kind][i] = sol.nodes
                values[kind][i] = [sol.ns_points, sol.total]
    out.update(exact_ms=times, exact_nodes=nodes, exact_values=values)
    print(json.dumps(out))


def _paired_child(homes: list[str], deals_path: str, rounds: int) -> None:
    """DD tables (capot flags, 2 threads) of both sides in one process, a set of deals at
    a time, the two runs of a set back to back and in turn first: the host's slow spells
    (a shared machine) then fall on both sides of a pair alike. The control pair, timed
    the same way on each set: today's code against itself (the copy ``bz_work`` against
    the working tree's ``bazarsim``, two names for the same code in one process, as the
    pair above), whose ratio shows the noise of the pair's. One JSON line: each side's
    time per run, in the same order."""
    mods = []
    for home, package in zip(homes, SIDES, strict=True):
        sys.path.insert(0, home)
        mods.append(importlib.import_module(f"{package}.dd.batch"))
    mods.append(importlib.import_module("bazarsim.dd.batch"))  # the control: today again
    with np.load(deals_path) as f:
        tables = f["tables"]
    numba.set_num_threads(min(THREADS, numba.config.NUMBA_NUM_THREADS))
    for m in mods:
        m.dd_tables(tables[:1], dealer=0, capot=True)  # load or compile, untimed
    sets = np.array_split(tables, PAIRED_SETS)
    # (first, second) module of each pair and the keys their times go under
    pairs = (((0, "base"), (1, "work")), ((2, "control"), (1, "work_control")))
    times: dict[str, list[float]] = {k: [] for p in pairs for _, k in p}
    for r in range(rounds):
        for i, ds in enumerate(sets):
            for j, pair in enumerate(pairs if (r + i) % 2 == 0 else pairs[::-1]):
                outs = {}
                for m, key in (pair if (r + i + j) % 2 == 0 else pair[::-1]):
                    t0 = time.perf_counter()
                    outs[key] = mods[m].dd_tables(ds, dealer=0, capot=True)
                    times[key].append(time.perf_counter() - t0)
                a, b = outs.values()
                check_same_tables(a, b, "paired run")
    print(json.dumps({**times, "threads": numba.get_num_threads(),
                      "sizes": [len(ds) for ds in sets] * rounds}))


# --- parent: copies, rounds, rows -------------------------------------------------------

def _run_side(home: Path, package: str, deals_path: Path, passes: int) -> dict:
    return run_child("bench_baseline", "--child", str(home), package, "--deals",
                     str(deals_path), "--passes", str(passes))


def _measure(n_tables: int, n_exact: int, rounds: int, passes: int) -> tuple:
    """Warm-up run per side, then ``rounds`` interleaved rounds (every result kept), then
    the paired run of :func:`_paired_child`."""
    from .bench_solver import deals

    homes = (base_copy(), work_copy())
    with tempfile.TemporaryDirectory() as tmp:
        tiny, full = Path(tmp) / "tiny.npz", Path(tmp) / "deals.npz"
        np.savez(tiny, tables=deals(1), exact=deals(1))
        np.savez(full, tables=deals(n_tables), exact=deals(n_exact))
        for i in (0, 1):  # compile each copy (first run on new code), untimed
            _run_side(homes[i], SIDES[i], tiny, 1)
        results: list[list[dict]] = [[], []]
        for r in range(rounds):
            for i in ((0, 1) if r % 2 == 0 else (1, 0)):
                results[i].append(_run_side(homes[i], SIDES[i], full, passes))
        paired = run_child("bench_baseline", "--paired", str(homes[0]), str(homes[1]),
                           "--deals", str(full), "--passes", str(rounds))
    return results[0], results[1], paired


def _check_same(base: list[dict], work: list[dict]) -> None:
    """Raise unless every run of both sides gave the same values."""
    ref = base[0]
    for run in base + work:
        for key in ("capot_values", "points_values", "exact_values"):
            if run[key] != ref[key]:
                bad = [k for k in ref[key] if run[key][k] != ref[key][k]] \
                    if isinstance(ref[key], dict) else key
                raise RuntimeError(f"{key} differ between baseline {BASE_REV} and the "
                                   f"working tree: {bad}")


def _fmt(v: float) -> str:
    return f"{v:.3g}" if v < 100 else f"{v:,.0f}"


def collect(quick: bool, rounds: int | None = None) -> list[dict]:
    from bazarsim.core.contracts import KIND_NAMES

    from .bench_solver import N_EXACT, N_TABLES
    from .common import row

    n_tables, n_exact = (12, 12) if quick else (N_TABLES, N_EXACT)
    rounds = rounds or (1 if quick else 3)
    passes = 1 if quick else 2
    base, work, paired = _measure(n_tables, n_exact, rounds, passes)
    _check_same(base, work)
    threads = work[0]["threads"]
    how = f"best of {rounds} round{'s' * (rounds > 1)} x {passes} pass{'es' * (passes > 1)}"
    vs = f"vs baseline {BASE_REV}"
    rows: list[dict] = []

    def pair(name: str, today: float, old: float, unit: str, note: str) -> None:
        rows.append(row(GROUP, f"{name} (today)", today, unit,
                        f"x{today / old:.2f} {vs} ({_fmt(old)} {unit}), {note}"))
        rows.append(row(GROUP, f"{name} (baseline {BASE_REV})", old, unit, note))

    rate = {}
    for key, what in (("capot", "capot flags"), ("points", "points only")):
        rate[key] = (max(r[key] for r in work), max(r[key] for r in base))
        pair(f"DD tables, 6 kinds, {what}, {threads} threads", *rate[key], "tables/s",
             f"{n_tables} deals, {how}, same values")
    # the paired run: every set's two times side by side, so that the ratio holds even
    # where the host's speed drifts between the rounds above
    tb, tw = np.asarray(paired["base"]), np.asarray(paired["work"])
    n_deals = float(np.sum(paired["sizes"]))
    n_sets = len(paired["sizes"])
    q1, q2, q3 = np.percentile(tb / tw, [25, 50, 75])
    paired_how = (f"{n_tables} deals in {PAIRED_SETS} sets, {rounds} "
                  f"round{'s' * (rounds > 1)}, one process, each set by both sides back to "
                  f"back; total of {n_sets} set runs a side")
    pair(f"DD tables, 6 kinds, capot flags, {threads} threads, paired", n_deals / tw.sum(),
         n_deals / tb.sum(), "tables/s",
         f"{paired_how}; per set x{q2:.2f} (quartiles x{q1:.2f}-x{q3:.2f}), same values")
    tc, twc = np.asarray(paired["control"]), np.asarray(paired["work_control"])
    c1, c2, c3 = np.percentile(tc / twc, [25, 50, 75])
    rows.append(row(
        GROUP, f"DD tables, 6 kinds, capot flags, {paired['threads']} threads, paired control "
        "(today against itself)", c2, "x",
        f"A against A: today's code under two names in the same process, timed the same "
        f"paired way on the same sets; median of {n_sets} per-set ratios (quartiles "
        f"x{c1:.2f}-x{c3:.2f}), totals x{tc.sum() / twc.sum():.2f}; ideally x1.00, the "
        "noise of the paired ratio above"))
    ok = {k: rate[k][0] >= TARGET_TABLES for k in rate}
    rows.append(row(GROUP, f"target: >= {TARGET_TABLES:.0f} tables/s on {threads} threads",
                    rate["capot"][0], "tables/s",
                    "from the rows above; "
                    f"{'PASS' if all(ok.values()) else 'FAIL'}: capot flags "
                    f"{_fmt(rate['capot'][0])} ({'pass' if ok['capot'] else 'fail'}), "
                    f"points only {_fmt(rate['points'][0])} "
                    f"({'pass' if ok['points'] else 'fail'})"))

    def stats(side: list[dict], kind: int) -> dict:
        # Per deal, the best time over all rounds; then the statistics over the deals.
        t = np.min([r["exact_ms"][kind] for r in side], axis=0)
        return {"median": float(np.median(t)), "mean": float(t.mean()),
                "p99": float(np.percentile(t, 99)),
                "nodes": float(np.mean(side[0]["exact_nodes"][kind]))}

    note = f"{n_exact} deals, 1 thread, per deal {how}"
    for kind, name in enumerate(KIND_NAMES):
        now, old = stats(work, kind), stats(base, kind)
        for s in ("median", "mean", "p99"):
            pair(f"exact {name} {s}", now[s], old[s], "ms", note)
        pair(f"exact {name} nodes mean", now["nodes"], old["nodes"], "nodes",
             f"mean of {n_exact} deals (exact counts), same values")
        met = {s: now[s] <= lim for s, lim in LIMITS_MS.items()}
        rows.append(row(
            GROUP, f"limits {name}: median <= 0.6, mean <= 1.0, p99 <= 6 ms",
            sum(met.values()), "of 3 met",
            "from the rows above; " + ("PASS" if all(met.values()) else "FAIL") + ": " + ", ".join(
                f"{s} {now[s]:.3g} {'<=' if met[s] else '>'} {LIMITS_MS[s]:g}"
                for s in LIMITS_MS)))
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", nargs=2, metavar=("HOME", "PACKAGE"), help=argparse.SUPPRESS)
    ap.add_argument("--paired", nargs=2, metavar=("BASE", "WORK"), help=argparse.SUPPRESS)
    ap.add_argument("--deals", help=argparse.SUPPRESS)
    ap.add_argument("--passes", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="12 deals, 1 round")
    ap.add_argument("--rounds", type=int, help="interleaved rounds (default 3, quick 1)")
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child[0], args.child[1], args.deals, args.passes)
        return
    if args.paired:
        _paired_child(args.paired, args.deals, args.passes)
        return
    for r in collect(args.quick, args.rounds):
        print(f"{r['name']:<58} {r['value']:>10.4g} {r['unit']:<9} {r['note']}")


if __name__ == "__main__":
    main()
