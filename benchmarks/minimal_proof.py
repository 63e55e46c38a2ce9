"""How much a perfect first guess at the root could save: the exact value's full-window
search against the two null-window probes that prove it (N-S take at least v, and not
v + 1), each from an empty table, per contract kind.

``python -m benchmarks.minimal_proof [DEALS] [SEED]`` (default 60 deals, seed 21). No
driver of the exact value can do better than proving both bounds, so the ratio printed is
a floor for any root window or guess (MTD(f), aspiration) over today's full window.
"""

from __future__ import annotations

import sys

from bazarsim.core.contracts import KIND_NAMES
from bazarsim.dd.solver import Solver

from .bench_solver import deals


def main(n: int = 60, seed: int = 21) -> None:
    s = Solver()
    ds = deals(n, seed=seed)
    res = {k: [0, 0, 0] for k in KIND_NAMES}
    for d in ds:
        for kind in KIND_NAMES:
            sol = s.solve(d, kind, "E")
            v = sol.ns_points
            a = s._nodes()
            s.can_reach(d, kind, "E", "NS", v)
            b = s._nodes()
            s.can_reach(d, kind, "E", "NS", v + 1)
            c = s._nodes()
            res[kind][0] += sol.nodes
            res[kind][1] += b - a
            res[kind][2] += c - b
    print(f"{n} deals of seed {seed}, East leads; mean nodes a solve")
    for k, (f, p1, p2) in res.items():
        print(f"{k:>2}: full window {f / n:8.0f}  probe >= v {p1 / n:8.0f}  "
              f"probe >= v+1 {p2 / n:8.0f}  both / full {(p1 + p2) / f:.2f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
