"""Issue #27's speed point: ``analyze`` on 1,000 deals, with the pre-#31 solver beside it.

The README's example (``bazarsim analyze AJ9.K7.Q.T8 --seat S --dealer E -n 1000``:
bazar, six kinds) in one process with compiled code. Its time is almost all DD tables, so
the same 1,000 deals are also solved, in the same process and in turn, by today's
``dd_tables`` and by the copy of the solver as committed at
:data:`benchmarks.bench_baseline.BASE_REV`. Their ratio says how much of the time is the
host's speed: the issue's 5 s were set when that baseline ran 245 DD tables/s on 2
threads. Both solvers must give the same values, or this raises. The limit is reported
as pass/fail, never asserted.
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from .bench_baseline import BASE_REV, SIDES, VALUE_FIELDS

GROUP = "analyze (issue #27)"
HAND, SEAT, DEALER, SEED = "AJ9.K7.Q.T8", 2, 1, 7  # South's hand, East deals
LIMIT_S = 5.0  # issue #27: 1,000 deals in at most 5 s on 2 cores


def _child(home: str, n: int, rounds: int) -> None:
    """Time ``analyze`` and both solvers' DD tables on its deals, ``rounds`` times in
    turn; one JSON line of seconds per round."""
    import numba

    import bazarsim as bz
    from bazarsim.analysis.hand import deal_generator
    from bazarsim.dd.batch import dd_tables

    sys.path.insert(0, home)
    base = importlib.import_module(f"{SIDES[0]}.dd.batch")
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    query = bz.hand_query(bz.get_ruleset("bazar"), HAND, seat=SEAT, dealer=DEALER)
    hands = deal_generator(query, SEED).deal(0, n).hands
    bz.analyze(query, deals=20, seed=SEED)  # load or compile, untimed
    base.dd_tables(hands[:1], dealer=DEALER, capot=True)
    times: dict[str, list[float]] = {"analyze": [], "work": [], "base": []}
    for r in range(rounds):
        order = ("analyze", "work", "base") if r % 2 == 0 else ("base", "work", "analyze")
        outs = {}
        for what in order:
            t0 = time.perf_counter()
            if what == "analyze":
                done = bz.analyze(query, deals=n, seed=SEED).deals
                assert done == n, done
            else:
                solver = dd_tables if what == "work" else base.dd_tables
                outs[what] = solver(hands, dealer=DEALER, capot=True)
            times[what].append(time.perf_counter() - t0)
        for k, v in outs["work"].items():
            if k.split("_", 1)[1] in VALUE_FIELDS and not np.array_equal(v, outs["base"][k]):
                raise RuntimeError(f"{k} differs between today's solver and {BASE_REV}")
    print(json.dumps(times))


def _measure(n: int, rounds: int) -> dict:
    from .ab_solver import _base_id, _copy_revision, _kept_copy

    home = _kept_copy(SIDES[0], _base_id(BASE_REV), lambda d: _copy_revision(BASE_REV, d))
    root = Path(__file__).resolve().parent.parent
    cmd = [sys.executable, "-m", "benchmarks.bench_analyze", "--child", str(home),
           "-n", str(n), "--rounds", str(rounds)]
    res = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"analyze child failed ({res.returncode}):\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def collect(quick: bool) -> list[dict]:
    from .common import row

    n, rounds = (100, 1) if quick else (1000, 3)
    t = {k: float(np.median(v)) for k, v in _measure(n, rounds).items()}
    how = (f"{n:,} deals of {HAND} (South, East deals, bazar, 6 kinds), 2 threads, "
           f"median of {rounds} round{'s' * (rounds > 1)}")
    ok = t["analyze"] <= LIMIT_S * n / 1000
    return [
        row(GROUP, "analyze, in-process", t["analyze"], "s",
            f"{how}; limit {LIMIT_S * n / 1000:g} s: {'PASS' if ok else 'FAIL'}"),
        row(GROUP, "its DD tables, today's solver", t["work"], "s",
            f"{n / t['work']:.0f} tables/s; x{t['base'] / t['work']:.2f} vs baseline "
            f"{BASE_REV}, same deals and values, in turn in the same process"),
        row(GROUP, f"its DD tables, baseline {BASE_REV}", t["base"], "s",
            f"{n / t['base']:.0f} tables/s here, 245 when the limit was set"),
    ]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--child", metavar="HOME", help="(internal) run the timings")
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child, args.n, args.rounds)
    else:
        for r in collect(quick=False):
            print(f"{r['name']:<40} {r['value']:8.2f} {r['unit']:<4} {r['note']}")


if __name__ == "__main__":
    main()
