"""Issue #27's speed point: ``analyze`` on 1,000 deals, with the pre-#31 solver beside it.

The README's example (``bazarsim analyze AJ9.K7.Q.T8 --seat S --dealer E -n 1000``:
bazar, six kinds) in one process with compiled code. Its time is almost all DD tables, so
the same 1,000 deals are also solved, in the same process and in turn, by today's
``dd_tables`` and by the copy of the solver as committed at
:data:`benchmarks.bench_baseline.BASE_REV`. Their ratio says how much of the time is the
host's speed: the issue's 5 s were set when that baseline ran 245 DD tables/s on 2
threads. Both solvers must give the same values, or this raises. The limit is reported
as pass/fail, never asserted. The control row times today's solver against a copy of
itself under another name (``bz_work``, as :mod:`benchmarks.bench_baseline` makes it) in
the same way, in turn in the same process: its ratio, ideally x1.00, is the noise of the
old-against-new one.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time

import numpy as np

from .bench_baseline import (
    BASE_REV,
    SIDES,
    base_copy,
    check_same_tables,
    run_child,
    work_copy,
)

GROUP = "analyze (issue #27)"
HAND, SEAT, DEALER, SEED = "AJ9.K7.Q.T8", 2, 1, 7  # South's hand, East deals
LIMIT_S = 5.0  # issue #27: 1,000 deals in at most 5 s on 2 cores
BASE_RATE_AT_GOAL = 245  # the baseline's DD tables/s on 2 threads when the limit was set


def _child(home: str, control_home: str, n: int, rounds: int) -> None:
    """Time ``analyze``, both solvers' DD tables on its deals and the control (today's
    solver under another name), ``rounds`` times in turn; one JSON line of seconds per
    round."""
    import numba

    import bazarsim as bz
    from bazarsim.analysis.hand import deal_generator
    from bazarsim.dd.batch import dd_tables

    sys.path.insert(0, home)
    sys.path.insert(0, control_home)
    base = importlib.import_module(f"{SIDES[0]}.dd.batch")
    control = importlib.import_module(f"{SIDES[1]}.dd.batch")
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    query = bz.hand_query(bz.get_ruleset("bazar"), HAND, seat=SEAT, dealer=DEALER)
    hands = deal_generator(query, SEED).deal(0, n).hands
    bz.analyze(query, deals=20, seed=SEED)  # load or compile, untimed
    base.dd_tables(hands[:1], dealer=DEALER, capot=True)
    control.dd_tables(hands[:1], dealer=DEALER, capot=True)
    solvers = {"work": dd_tables, "base": base.dd_tables, "control": control.dd_tables}
    times: dict[str, list[float]] = {"analyze": [], "work": [], "base": [], "control": []}
    for r in range(rounds):
        order = ("analyze", "work", "base", "control")
        order = order if r % 2 == 0 else order[::-1]
        outs = {}
        for what in order:
            t0 = time.perf_counter()
            if what == "analyze":
                done = bz.analyze(query, deals=n, seed=SEED).deals
                assert done == n, done
            else:
                outs[what] = solvers[what](hands, dealer=DEALER, capot=True)
            times[what].append(time.perf_counter() - t0)
        check_same_tables(outs["base"], outs["work"], "analyze's deals")
        check_same_tables(outs["control"], outs["work"], "analyze's deals, control")
    print(json.dumps({**times, "threads": numba.get_num_threads()}))


def collect(quick: bool) -> list[dict]:
    from .common import row

    n, rounds = (100, 1) if quick else (1000, 3)
    runs = run_child("bench_analyze", "--child", str(base_copy()), "--control",
                     str(work_copy()), "-n", str(n), "--rounds", str(rounds))
    threads = runs.pop("threads")
    t = {k: float(np.median(v)) for k, v in runs.items()}
    control = np.asarray(runs["control"]) / np.asarray(runs["work"])
    how = (f"{n:,} deals of {HAND} (South, East deals, bazar, 6 kinds), {threads} "
           f"thread{'s' * (threads > 1)}, "
           f"median of {rounds} round{'s' * (rounds > 1)}")
    limit = LIMIT_S * n / 1000
    return [
        row(GROUP, "analyze, in-process", t["analyze"], "s",
            f"{how}; limit {limit:g} s: {'PASS' if t['analyze'] <= limit else 'FAIL'}"),
        row(GROUP, "its DD tables, today's solver", t["work"], "s",
            f"{n / t['work']:.0f} tables/s; x{t['base'] / t['work']:.2f} vs baseline "
            f"{BASE_REV}, same deals and values, in turn in the same process; median of "
            f"{rounds} round{'s' * (rounds > 1)}"),
        row(GROUP, f"its DD tables, baseline {BASE_REV}", t["base"], "s",
            f"{n / t['base']:.0f} tables/s here, {BASE_RATE_AT_GOAL} when the limit was set; "
            f"median of {rounds} round{'s' * (rounds > 1)}"),
        row(GROUP, "its DD tables, control: today's solver against itself", float(
            np.median(control)), "x",
            f"A against A: today's solver and a copy of it under another name, in turn in "
            f"the same process as the pair above; median of {rounds} per-round ratio"
            f"{'s' * (rounds > 1)} (from x{control.min():.2f} to x{control.max():.2f}); "
            "ideally x1.00, the noise of the ratio vs the baseline"),
    ]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--child", metavar="HOME", help="(internal) run the timings")
    ap.add_argument("--control", metavar="HOME", help="(internal) the control copy's home")
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child, args.control, args.n, args.rounds)
    else:
        for r in collect(quick=False):
            print(f"{r['name']:<40} {r['value']:8.2f} {r['unit']:<4} {r['note']}")


if __name__ == "__main__":
    main()
