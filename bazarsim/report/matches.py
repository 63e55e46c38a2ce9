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
    rows = [{"role": role, "forecasts": f"{v['forecasts']:,}", "Brier": _num(v["brier"]),
             "base rate Brier": _num(v["brier_base_rate"]), "skill %": percent(v["skill"])}
            for role, v in cal["roles"].items()]
    rows.append({"role": "all", "forecasts": f"{cal['forecasts']:,}", "Brier": _num(cal["brier"]),
                 "base rate Brier": _num(cal["brier_base_rate"]),
                 "skill %": percent(cal["skill"])})
    rel = [{"forecast": r["bin"], "forecasts": f"{r['forecasts']:,}",
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
        variance_record(s),
        {"figure": f"{a} points per deal", "value": f"{s['a_points_per_deal']:+.1f}",
         "note": f"minus {b}'s; SE {s['se_points_per_deal']:.1f}"},
        {"figure": "deals per match", "value": f"{s['deals_per_match']:.2f}",
         "note": f"quartiles {q[0]:g} / {q[1]:g} / {q[2]:g}"},
    ]


def variance_record(s: dict) -> dict:
    """The pairing's gain; none to show where every pair split 1-1 (paired SE 0)."""
    if s["variance_reduction"] is None:
        return {"figure": "variance reduction", "value": "-",
                "note": "paired SE 0: every pair split its two matches 1-1"}
    return {"figure": "variance reduction", "value": f"{s['variance_reduction']:.2f}x",
            "note": "unpaired variance / paired variance"}


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


def page_step(target: int) -> int:
    """Score bin of the page's heat maps: about 15 bins to the target, in tens."""
    return max(10, round(target / 15 / 10) * 10)


def playoff_page(out: str, title: str | None = None):
    """The coach's page of a play-off run: A's win chance with its interval, contracts,
    results by score band, the DP against the matches, the equity heat map and the
    break-even threshold map."""
    from bazarsim.matches.equity import equity_maps
    from bazarsim.matches.playoff import playoff_summary
    from bazarsim.matches.run import load_spec, read_playoff, spec_ruleset
    from bazarsim.report import figures
    from bazarsim.report.html import Column, Page, count, num, pct, text

    spec = load_spec(out)
    wins, rows = read_playoff(out, spec.pairs)
    s = playoff_summary(wins, rows, spec.target)
    rs = spec_ruleset(spec)
    step = page_step(spec.target)
    maps = equity_maps(rows, wins, rs, spec.target, (spec.a, spec.b), step, step)
    check, grid, eq, tmean = maps["check"], maps["grid"], maps["equity"], maps["thresholds"]
    a, b = spec.a.name, spec.b.name
    page = Page(title or f"{a} against {b}: matches to {spec.target}",
                lead=f"Duplicate match play-off of two bidding policies in {rs.name}: every "
                "deal sequence played twice with the teams swapped. Who wins more matches, "
                "and what each score is worth.")
    page.section("run", "What was played")
    page.meta([("policy A", f"{a}: {spec.a.description}"),
               ("policy B", f"{b}: {spec.b.description}"),
               ("matches", f"{s['matches']:,} ({s['pairs']:,} pairs), to {spec.target}"),
               ("deals from", f"{spec.dataset} ({spec.play.upper()} results)"),
               ("seed", str(spec.seed)), ("run directory", str(out))])
    lo, hi = s["ci95"]
    page.section("result", "Result")
    page.paragraph(f"{a} wins {100 * s['a_win']:.1f} % of the matches (95 % interval "
                   f"{100 * lo:.1f}-{100 * hi:.1f} %, paired standard error "
                   f"{100 * s['se_paired']:.2f} pp; counted as unpaired matches it would be "
                   f"{100 * s['se_unpaired']:.2f} pp" + (
                       f": the pairing divides the variance by {s['variance_reduction']:.2f})."
                       if s["variance_reduction"] is not None else
                       "; every pair split its two matches 1-1, so the paired error is 0)."))
    summary = [{"a_win": s["a_win"], "ci_low": lo, "ci_high": hi, "se_paired": s["se_paired"],
                "se_unpaired": s["se_unpaired"], "variance_reduction": s["variance_reduction"],
                "a_points_per_deal": s["a_points_per_deal"],
                "deals_per_match": s["deals_per_match"]}]
    page.table("result", "Match result", [
        Column("a_win", f"{a} wins %", pct(2)), Column("ci_low", "95% low %", pct(2)),
        Column("ci_high", "95% high %", pct(2)), Column("se_paired", "paired SE %", pct(2)),
        Column("se_unpaired", "unpaired SE %", pct(2)),
        Column("variance_reduction", "variance reduction", num(2)),
        Column("a_points_per_deal", f"{a} pts/deal", num(1, sign=True)),
        Column("deals_per_match", "deals/match", num(2))], summary)
    c = s["contracts"]
    page.table("contracts", "Contracts", [
        Column("team", "team", text, True), Column("declares", "declares %", pct(1)),
        Column("made", "made %", pct(1)), Column("contra", "contra'd %", pct(1))],
        [{"team": name, "declares": c[f"{k}_declares"], "made": c[f"{k}_made"],
          "contra": c[f"{k}_contra"]} for k, name in (("a", a), ("b", b))])
    page.section("bands", "By score")
    page.table("bands", "Deals by A's lead at the deal", [
        Column("band", "score at the deal", text, True), Column("deals", "deals", count),
        Column("a_points_per_deal", f"{a} pts/deal", num(1, sign=True)),
        Column("a_declares", f"{a} declares %", pct(1)),
        Column("b_declares", f"{b} declares %", pct(1)),
        Column("a_made", f"{a} made %", pct(1))], s["bands"])
    page.section("equity", "Match equity")
    page.paragraph(f"P({a} wins) from every score by dynamic programming over the "
                   f"{len(rows):,} deal outcomes of these matches (who deals next included). "
                   f"From 0:0 it gives {100 * check['dp']:.2f} % against "
                   f"{100 * check['simulated']:.2f} ± {100 * check['simulated_se']:.2f} % "
                   "simulated (deal outcomes taken per score rule in force, so policies "
                   "that change with the score are modelled).")
    labels = [str(g) for g in grid]
    page.figure("equity", figures.heatmap(
        "equity", f"P({a} wins), %", f"{b}'s score", f"{a}'s score", labels, labels,
        eq.tolist(), label="P(A wins), %"),
        f"Rows: {a}'s score; columns: {b}'s (bins of {step}); mean over who deals next. "
        "The map need not rise with every point: where a policy's score rule switches on, "
        "that policy bids differently from there, and a step across that line can lower "
        "P(A wins). That is the policy, not noise.")
    page.table("equity", "Match equity (P(A wins))", [Column("a", f"{a}'s score", count)]
               + [Column(str(g), str(g), pct(1)) for g in grid],
               [{"a": g, **{str(h): float(eq[i, j]) for j, h in enumerate(grid)}}
                for i, g in enumerate(grid)])
    page.section("thresholds", "Thresholds by score")
    page.figure("thresholds", figures.heatmap(
        "thresholds", f"break-even P(make) for {a} to bid, %", f"{b}'s score",
        f"{a}'s score", labels, labels, tmean.tolist(), label="break-even P(make), %"),
        "The P(make) above which bidding raises A's match equity, given the outcomes of "
        "A's made and failed contracts and of the deals A left to B (blank: not enough "
        "deals of a kind).")
    page.table("threshold-map", "Break-even P(make)", [Column("a", f"{a}'s score", count)]
               + [Column(str(g), str(g), pct(1)) for g in grid],
               [{"a": g, **{str(h): (None if np.isnan(tmean[i, j]) else float(tmean[i, j]))
                            for j, h in enumerate(grid)}} for i, g in enumerate(grid)])
    return page
