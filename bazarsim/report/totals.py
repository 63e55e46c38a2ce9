"""The declaring side's totals for chosen bids, made and failed, as histograms.

The same rows as the bid tables (:func:`bazarsim.analysis.bids.declarer_rows`: every seat
as the possible declarer, the DD points, declarations and bela that count for its side)
and the same rule for "made" (:func:`bazarsim.analysis.bids.bid_scores`), so a bid's
made and failed rows here add up to its ``n`` and ``made`` in ``bazarsim table bids``.
Only the totals are binned, which the bid table keeps as quartiles.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bazarsim.analysis.bids import (
    MAX_TOTAL,
    bid_scores,
    declarer_rows,
    open_study,
    parse_bid,
)
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.core.errors import BazarsimError


def side_totals(out: str | Path, bids: list[str], width: int = 10, contra: str = "none",
                seats: list[str] | None = None) -> list[dict]:
    """Rows ``{bid, total_low, total_high, made, failed, made_share, failed_share, n}`` (the
    shares: of the bid's ``n`` rows) per bid and bin of ``width``
    points of the declaring side's total (cards + last trick + declarations + bela), bins
    from 0 to the highest total seen; ``n`` is the bid's number of declarer rows."""
    if not bids:
        raise BazarsimError("no bids to show the totals of")
    study = open_study(out, seats=seats, contra=contra)
    parsed = [parse_bid(b, study.ruleset) for b in bids]
    for b in parsed:
        if b.kind not in study.kinds:
            raise BazarsimError(f"bid {b.label}: kind {KIND_NAMES[b.kind]} not simulated in "
                                f"{out}", b.label)
    parsed = list(dict.fromkeys(parsed))
    study.kinds = tuple(dict.fromkeys(b.kind for b in parsed))
    made_h = np.zeros((len(parsed), MAX_TOTAL), np.int64)
    failed_h = np.zeros((len(parsed), MAX_TOTAL), np.int64)
    for row in declarer_rows(study):
        which = [j for j, b in enumerate(parsed) if b.kind == row["kind"]]
        made, _ = bid_scores(study, row, [parsed[j] for j in which])
        tot = np.clip(row["side_total"], 0, MAX_TOTAL - 1)
        for i, j in enumerate(which):
            ok = made[i].astype(bool)
            made_h[j] += np.bincount(tot[ok], minlength=MAX_TOTAL)
            failed_h[j] += np.bincount(tot[~ok], minlength=MAX_TOTAL)
    seen = np.nonzero((made_h + failed_h).sum(0))[0]
    top = int(seen[-1]) if len(seen) else 0
    edges = range(0, top + 1, width)
    rows = []
    for j, b in enumerate(parsed):
        n = int(made_h[j].sum() + failed_h[j].sum())
        for lo in edges:
            m = int(made_h[j, lo:lo + width].sum())
            f = int(failed_h[j, lo:lo + width].sum())
            rows.append({"bid": b.label, "total_low": lo, "total_high": lo + width - 1,
                         "made": m, "failed": f, "made_share": m / n if n else 0.0,
                         "failed_share": f / n if n else 0.0, "n": n})
    return rows
