"""Bulk deal scoring (``score_deals``) against the scalar ``score_deal``, deals per second."""

from __future__ import annotations

import numpy as np

from bazarsim.core.contracts import Contract
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.rules.scoring import (
    DealOutcome,
    score_deal,
    score_deals,
    score_deals_kernel,
    scoring_params,
)

from .common import median_of, median_time, row


def _inputs(n: int, seed: int = 5) -> dict:
    """Random consistent deal outcomes (suit contracts)."""
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


def _kernel_only(rs, a):
    """The Numba kernel on ready int64 arrays: what the wrapper's conversions cost."""
    params, totals = scoring_params(rs)
    n = len(a["level"])
    outs = (
        np.empty(n, np.bool_),
        np.empty(n, np.int64),
        np.empty((n, 2), np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
    )
    args = (
        a["level"], a["kind"], a["declarer_side"], a["contra"], a["capot_bid"],
        a["points"], a["tricks"], a["declarations"], a["bela"],
    )  # fmt: skip
    return lambda: score_deals_kernel(params, totals, *args, *outs)


def collect(quick: bool) -> list[dict]:
    n = 200_000 if quick else 2_000_000
    n_scalar = 2_000 if quick else 20_000
    rows = []
    a = {k: np.ascontiguousarray(v, dtype=np.bool_ if k == "capot_bid" else np.int64)
         for k, v in _inputs(n).items()}  # fmt: skip
    for name in ("bazar", "bazar-blot"):
        rs = get_ruleset(name)
        t = median_time(_kernel_only(rs, a), repeats=3)
        rows.append(row("scoring", f"kernel {name}", n / t, "deals/s",
                        f"n={n}, 1 core (a serial kernel); {median_of(3)}"))
        for check in (False, True):
            t = median_time(lambda rs=rs, c=check: score_deals(rs, check=c, **a), repeats=3)
            label = "checked" if check else "unchecked"
            rows.append(row("scoring", f"score_deals {name} {label}", n / t, "deals/s",
                            f"n={n}; {median_of(3)}"))
        items = [
            (
                Contract(
                    int(a["level"][i]), int(a["kind"][i]), int(a["declarer_side"][i]),
                    int(a["contra"][i]),
                ),
                DealOutcome(
                    tuple(a["points"][i].tolist()), tuple(a["tricks"][i].tolist()),
                    tuple(a["declarations"][i].tolist()), tuple(a["bela"][i].tolist()),
                ),
            )
            for i in range(n_scalar)
        ]  # fmt: skip
        t = median_time(
            lambda items=items, rs=rs: [score_deal(c, o, rs) for c, o in items], repeats=3
        )
        rows.append(
            row("scoring", f"score_deal scalar {name}", n_scalar / t, "deals/s",
                f"n={n_scalar}, pure Python; {median_of(3)}")
        )  # fmt: skip
    return rows
