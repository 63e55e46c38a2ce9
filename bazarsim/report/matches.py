"""Records of the match stage for tables: the hand model's calibration, a play-off's
result, the equity table and the threshold map (in column blocks that fit the width)."""

from __future__ import annotations

import math

import numpy as np

from bazarsim.report.records import percent


def _num(v, spec=".4f"):
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def calibration_records(cal: dict) -> tuple[list[dict], list[dict]]:
    """Brier scores per role (and overall) beside the base rate's, and the reliability
    table of the held-out forecasts."""
    rows = [{"role": role, "forecasts": v["forecasts"], "Brier": _num(v["brier"]),
             "base rate Brier": _num(v["brier_base_rate"]), "skill %": percent(v["skill"])}
            for role, v in cal["roles"].items()]
    rows.append({"role": "all", "forecasts": cal["forecasts"], "Brier": _num(cal["brier"]),
                 "base rate Brier": _num(cal["brier_base_rate"]),
                 "skill %": percent(cal["skill"])})
    rel = [{"forecast": r["bin"], "forecasts": r["forecasts"],
            "mean forecast %": percent(r["mean_forecast"]),
            "observed %": percent(r["observed"])} for r in cal["reliability"]]
    return rows, rel


def playoff_records(s: dict, a: str, b: str) -> list[dict]:
    """The headline of a play-off: A's win chance, its interval and the pairing's gain."""
    lo, hi = s["ci95"]
    q = s["match_length_quartiles"]
    return [
        {"figure": f"{a} wins (vs {b})", "value": f"{percent(s['a_win'])} %",
         "note": f"95 % interval {percent(lo)}-{percent(hi)} %"},
        {"figure": "paired SE", "value": f"{percent(s['se_paired'], '.2f')} pp",
         "note": f"over {s['pairs']:,} pairs ({s['matches']:,} matches)"},
        {"figure": "unpaired SE", "value": f"{percent(s['se_unpaired'], '.2f')} pp",
         "note": "the same matches counted as independent"},
        {"figure": "variance reduction", "value": f"{s['variance_reduction']:.2f}x",
         "note": "unpaired variance / paired variance"},
        {"figure": f"{a} points per deal", "value": f"{s['a_points_per_deal']:+.1f}",
         "note": f"minus {b}'s; SE {s['se_points_per_deal']:.1f}"},
        {"figure": "deals per match", "value": f"{s['deals_per_match']:.2f}",
         "note": f"quartiles {q[0]:g} / {q[1]:g} / {q[2]:g}"},
    ]


def contract_records(s: dict, a: str, b: str) -> list[dict]:
    c = s["contracts"]
    return [{"team": name, "declares %": percent(c[f"{k}_declares"]),
             "made %": percent(c[f"{k}_made"]),
             "contra'd %": percent(c[f"{k}_contra"])}
            for k, name in (("a", a), ("b", b))] + [
        {"team": "passed out", "declares %": percent(c["redeal"]), "made %": "",
         "contra'd %": ""}]


def band_records(s: dict, a: str, b: str) -> list[dict]:
    return [{"score at the deal": r["band"], "deals": r["deals"],
             f"{a} pts/deal": _num(r["a_points_per_deal"], "+.1f"),
             f"{a} declares %": percent(r["a_declares"]),
             f"{b} declares %": percent(r["b_declares"]),
             f"{a} made %": percent(r["a_made"])} for r in s["bands"]]


def grid_blocks(grid: list[int], values: np.ndarray, width: int, corner: str,
                scale: float = 100.0, spec: str = ".0f") -> list[list[dict]]:
    """A square table (rows: A's score, columns: B's) cut into column blocks that fit
    ``width``; cells ``values * scale`` formatted with ``spec`` (blank where NaN)."""
    cell = max(len(str(grid[-1])), len(format(scale, spec))) + 2
    per_block = max(1, (width - len(corner) - 4) // cell)
    blocks = []
    for start in range(0, len(grid), per_block):
        cols = range(start, min(start + per_block, len(grid)))
        rows = []
        for i, a in enumerate(grid):
            rec = {corner: str(a)}
            for j in cols:
                v = values[i, j]
                rec[str(grid[j])] = "" if np.isnan(v) else format(v * scale, spec)
            rows.append(rec)
        blocks.append(rows)
    return blocks
