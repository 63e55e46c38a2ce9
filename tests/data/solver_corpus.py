"""Regenerate ``solver_corpus.jsonl``, the frozen regression corpus of solved positions.

Small positions (1-4 tricks) take their values from the brute-force reference
(tests/naive_play.py) and must agree with the solver; full deals take theirs from the
solver with every enhancement on, checked against a differently configured search
(table only, full window). Run: ``.venv/bin/python tests/data/solver_corpus.py``.
Only regenerate on purpose: the test compares the solver with these frozen values.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import naive_play as NP  # noqa: E402

from bazarsim.core.cards import SEATS, format_deal  # noqa: E402
from bazarsim.core.contracts import KIND_NAMES  # noqa: E402
from bazarsim.dd.search import O_TT  # noqa: E402
from bazarsim.dd.solver import Solver  # noqa: E402
from bazarsim.rules.rulesets import RULESETS, get_ruleset  # noqa: E402


def position(rng, k):
    perm = rng.permutation(32)
    return [sum(1 << int(c) for c in perm[s * k : (s + 1) * k]) for s in range(4)]


def main() -> None:
    rng = np.random.default_rng(20261129)
    fast, other = Solver(), Solver(opts=O_TT, method="full")
    rows = []
    for rs_name in RULESETS:
        rs = get_ruleset(rs_name)
        step = -1 if rs_name in NP.COUNTERCLOCKWISE else 1
        for i in range(48):
            kind = rs.kinds[i % len(rs.kinds)]
            hands = position(rng, 1 + i % 4)
            leader = int(rng.integers(4))
            ref = NP.minimax(NP.hands_from_masks(hands), leader, KIND_NAMES[kind],
                             NP.RULES[rs_name], step=step)
            sol = fast.solve(np.array(hands, np.uint32), kind, leader, rs)
            assert sol.ns_points == ref
            rows.append(dict(deal=format_deal(hands), contract=KIND_NAMES[kind],
                             leader=SEATS[leader], ruleset=rs_name, ns_points=ref,
                             ew_points=sol.total - ref, source="brute force"))
        for _ in range(2):
            hands = position(rng, 8)
            for kind in rs.kinds:
                leader = int(rng.integers(4))
                sol = fast.solve(np.array(hands, np.uint32), kind, leader, rs)
                check = other.solve(np.array(hands, np.uint32), kind, leader, rs)
                assert sol.ns_points == check.ns_points
                rows.append(dict(deal=format_deal(hands), contract=KIND_NAMES[kind],
                                 leader=SEATS[leader], ruleset=rs_name, ns_points=sol.ns_points,
                                 ew_points=sol.ew_points, source="solver, cross-checked"))
    out = HERE / "solver_corpus.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"wrote {len(rows)} positions to {out}")


if __name__ == "__main__":
    main()
