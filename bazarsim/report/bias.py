"""The bias table (:func:`bazarsim.analysis.bias.bias_table`) in its reading form."""

from __future__ import annotations

import math

from bazarsim.report.records import Format, percent


def _pct(x: float | None, spec: str = ".1f") -> str:
    return percent(x, spec, missing="-")


def _pm(x: float, se: float, spec: str = "+.1f") -> str:
    if x is None or math.isnan(x):
        return "-"
    return f"{x:{spec}}" + ("" if se is None or math.isnan(se) else f" ± {se:.1f}")


def bias_records(res: dict, fmt: Format) -> list[dict]:
    """Rounded columns for reading (table: what fits 80 columns; md: the intervals too);
    json and csv keep every raw value."""
    if fmt not in (Format.table, Format.md):
        return res["rows"]
    out = []
    counted = "contracts" if "contracts" in res else "sides"
    for r in res["rows"]:
        row = {"bid": r["bid"], counted: f"{r['n']:,}",
               "DD %": _pct(r["p_make_dd"]), "SD %": _pct(r["p_make_sd"])}
        if fmt == Format.md:
            row["DD interval"] = f"{_pct(r['dd_low'])} .. {_pct(r['dd_high'])}"
            row["SD interval"] = f"{_pct(r['sd_low'])} .. {_pct(r['sd_high'])}"
        row["SD - DD"] = _pm(100 * r["make_diff"], 100 * r["se_make_diff"])
        row["SD if DD made %"] = _pct(r["p_sd_given_dd_made"])
        row["SD if DD down %"] = _pct(r["p_sd_given_dd_failed"])
        if fmt == Format.md:
            row["SD if DD made interval"] = f"{_pct(r['kept_low'])} .. {_pct(r['kept_high'])}"
            row["SD if DD down interval"] = f"{_pct(r['saved_low'])} .. {_pct(r['saved_high'])}"
        row["points gap"] = _pm(r["points_gap"], r["se_points_gap"])
        out.append(row)
    return out


def bias_title(res: dict) -> str:
    if "contracts" in res:
        bid_by = ", ".join(f"{s} {p}" for s, p in res["policies"].items())
        return (f"DD bias of the contracts bid in {res['dataset']} ({res['ruleset']}, "
                f"{res['contracts']:,} contracts of {res['deals']:,} deals, bid by {bid_by}): "
                f"{res['dd']} against {res['sd']}")
    return (f"DD bias in {res['dataset']} ({res['ruleset']}, {res['deals']:,} deals): "
            f"{res['dd']} against {res['sd']}")


BIAS_NOTES = [
    "sides: declaring sides counted (two a deal); DD %, SD %: P(make) under double dummy "
    "and under hidden-card play; SD - DD: their difference in points of %, ± its paired "
    "standard error.",
    "SD if DD made %: P(SD makes | DD makes); SD if DD down %: P(SD makes | DD fails); "
    "points "
    "gap: the declaring side's card points SD minus DD where DD makes the bid, ± its "
    "paired standard error. Intervals: --format md or json.",
]

CONTRACT_NOTES = [
    "contracts: the deals whose auction ended in this bid and contra (each deal once, for "
    "its declaring side, scored with its contra); DD %, SD %: P(make) under double dummy "
    "and under hidden-card play; SD - DD: their difference in points of %, ± its paired "
    "standard error.",
    BIAS_NOTES[1],
]
