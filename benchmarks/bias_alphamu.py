"""The DD bias table again, with alpha-mu players: how much of the DD-to-hidden-card gap
was PIMC's strategy fusion (issue 67).

Two datasets of the same deals (``simulate -n N --dd --sd -w 20 -r bazar -s 7``, the
first N deals of ``make bias``), one played out by four PIMC-20 players and one by four
alpha-mu players (``--players alphamu``, depth 2). For every bid, the bias table's
figures side by side (P(make) double dummy, with each player, and the points gap: the
declaring side's points with hidden cards minus DD where DD makes the bid); and per kind,
the paired difference of the N-S points of the same deal between the two players.

``python -m benchmarks.bias_alphamu runs/bias-am-pimc runs/bias-am-alphamu`` writes
``reports/bias-alphamu.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "reports" / "bias-alphamu.md"


def main(argv: list[str] | None = None) -> None:
    sys.path.insert(0, str(ROOT))
    import pandas as pd

    from bazarsim.analysis.bias import bias_table

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pimc", type=Path)
    ap.add_argument("alphamu", type=Path)
    args = ap.parse_args(argv)
    a, b = bias_table(args.pimc), bias_table(args.alphamu)
    assert a["deals"] == b["deals"], "the two datasets must hold the same deals"
    lines = [
        "# The DD bias table with alpha-mu players",
        "",
        f"Written by `python -m benchmarks.bias_alphamu {args.pimc} {args.alphamu}`: "
        f"{a['deals']:,} deals (bazar, seed 7, the first of `make bias`), played out by "
        f"four players each way: {a['sd']} against {b['sd']}. Rows are declaring sides, "
        "two a deal. Gap: the declaring side's points with hidden cards minus DD where DD "
        "makes the bid (± its paired SE).",
        "",
        "| bid | DD % | SD % PIMC | SD % alpha-mu | gap PIMC | gap alpha-mu |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    gaps = []
    for ra, rb in zip(a["rows"], b["rows"], strict=True):
        assert ra["bid"] == rb["bid"] and ra["p_make_dd"] == rb["p_make_dd"]
        lines.append(
            f"| {ra['bid']} | {100 * ra['p_make_dd']:.1f} | {100 * ra['p_make_sd']:.1f} | "
            f"{100 * rb['p_make_sd']:.1f} | {ra['points_gap']:+.1f} ± {ra['se_points_gap']:.1f}"
            f" | {rb['points_gap']:+.1f} ± {rb['se_points_gap']:.1f} |")
        if ra["dd_made"] >= 30:
            gaps.append((ra["points_gap"], rb["points_gap"], ra["p_make_sd"], rb["p_make_sd"]))
    g = np.array(gaps)
    da = pd.read_parquet(args.pimc).sort_values("index").reset_index(drop=True)
    db = pd.read_parquet(args.alphamu).sort_values("index").reset_index(drop=True)
    assert (da["index"].to_numpy() == db["index"].to_numpy()).all()
    lines += [
        "",
        f"Over the {len(g)} bids DD makes at least 30 times: mean gap "
        f"{g[:, 0].mean():+.2f} points with PIMC, {g[:, 1].mean():+.2f} with alpha-mu; mean "
        f"SD P(make) {100 * g[:, 2].mean():.1f} % and {100 * g[:, 3].mean():.1f} %.",
        "",
        "The same deals, N-S points alpha-mu minus PIMC (paired, ± SE over the deals), and "
        "how often the two plays end on different points:",
        "",
        "| kind | deals | mean difference | play-outs with other points |",
        "|---|---:|---:|---:|",
    ]
    for col in [c for c in da.columns if c.endswith("_sd_ns")]:
        d = (db[col].astype(float) - da[col].astype(float)).to_numpy()
        lines.append(f"| {col.split('_')[0]} | {len(d):,} | {d.mean():+.2f} ± "
                     f"{d.std(ddof=1) / np.sqrt(len(d)):.2f} | {100 * (d != 0).mean():.0f} % |")
    REPORT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
