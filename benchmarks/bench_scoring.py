"""Bulk deal scoring (``score_deals``) against the scalar ``score_deal``, deals per second."""

from __future__ import annotations

import numpy as np

from bazarsim.auction import Contract
from bazarsim.rulesets import get_ruleset
from bazarsim.scoring import DealOutcome, score_deal, score_deals

from .common import median_time, numba_threads, row


def _inputs(rs, n: int, seed: int = 5) -> dict:
    """Random consistent deal outcomes (suit contracts) for ``rs``."""
    rng = np.random.default_rng(seed)
    t0 = rng.integers(1, 8, n)
    p0 = rng.integers(0, 163, n)
    return {
        "level": rng.integers(8, 13, n),
        "kind": rng.integers(0, 4, n),
        "declarer_side": rng.integers(0, 2, n),
        "points": np.stack([p0, 162 - p0], 1),
        "tricks": np.stack([t0, 8 - t0], 1),
        "declarations": rng.choice([0, 20, 50, 100], (n, 2)),
        "bela": rng.choice([0, 20], (n, 2)),
        "contra": rng.integers(0, 3, n),
        "capot_bid": np.zeros(n, bool),
    }


def collect(quick: bool) -> list[dict]:
    n = 200_000 if quick else 2_000_000
    n_scalar = 2_000 if quick else 20_000
    rows = []
    for name in ("bazar", "bazar-blot"):
        rs = get_ruleset(name)
        a = _inputs(rs, n)
        for threads in (1, 2):
            with numba_threads(threads):
                t = median_time(lambda a=a, rs=rs: score_deals(rs, check=False, **a), repeats=3)
            rows.append(
                row(
                    "scoring",
                    f"score_deals {name} {threads}t",
                    n / t,
                    "deals/s",
                    f"n={n}, no input check",
                )
            )
        t = median_time(lambda a=a, rs=rs: score_deals(rs, check=True, **a), repeats=3)
        rows.append(
            row(
                "scoring",
                f"score_deals {name} checked",
                n / t,
                "deals/s",
                f"n={n}, with the Numba input check, default threads",
            )
        )
        items = [
            (
                Contract(
                    int(a["level"][i]),
                    int(a["kind"][i]),
                    int(a["declarer_side"][i]),
                    int(a["contra"][i]),
                ),
                DealOutcome(
                    tuple(a["points"][i].tolist()),
                    tuple(a["tricks"][i].tolist()),
                    tuple(a["declarations"][i].tolist()),
                    tuple(a["bela"][i].tolist()),
                ),
            )
            for i in range(n_scalar)
        ]
        t = median_time(
            lambda items=items, rs=rs: [score_deal(c, o, rs) for c, o in items], repeats=3
        )
        rows.append(
            row(
                "scoring",
                f"score_deal scalar {name}",
                n_scalar / t,
                "deals/s",
                f"n={n_scalar}, pure Python",
            )
        )
    return rows
