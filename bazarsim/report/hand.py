"""A hand analysis in its reading form (table, Markdown) and as flat JSON records."""

from __future__ import annotations

import math

from bazarsim.analysis.bids import has_levels
from bazarsim.analysis.hand import HandAnalysis, seen_at_bid_time
from bazarsim.core.cards import SEATS, SUITS
from bazarsim.report.records import Format

STOPS = {
    "deals": "the {n:,} deals asked for (-n)",
    "precision": "precision reached: the best bid's P(make) is known to ±{hw:.3f} "
                 "(≤ {p:g}) after {n:,} deals",
    "significant": "the best bid's lead over the second best is significant after {n:,} deals",
    "ceiling": "ceiling of {n:,} deals (-n) reached before the precision {p:g}",
}


def hand_json_records(a: HandAnalysis) -> list[dict]:
    """One flat record per bid, with the hand's context; NaN becomes null."""
    ctx = dict(a.query.describe(), seed=a.seed, deals=a.deals, stop=a.stop,
               precision=a.precision)
    return [{**ctx, **{k: _plain(v) for k, v in row.items()}} for row in a.rows]


SHOW_FROM = 0.10  # table and md: bids less likely to make are shown only as a kind's first


def hand_records(a: HandAnalysis, fmt: Format, every_bid: bool = False) -> list[dict]:
    """The records to print: every raw field for json and csv; for table and md rounded
    columns and, unless ``every_bid``, per kind the levels down to the first that makes
    less than 10 % of the time (capot bids only when they make 10 %)."""
    if fmt not in (Format.table, Format.md):
        return hand_json_records(a)
    out = []
    for row in _shown(a.rows, every_bid):
        out.append({
            "bid": row["bid"],
            "make %": f"{100 * row['p_make']:.1f}",
            f"{100 * a.confidence:g}% interval": f"{100 * row['ci_low']:.1f} .. "
                                                f"{100 * row['ci_high']:.1f}",
            "side total": f"{row['mean_total']:.1f} ± {_num(row['se_total'], '.1f')}",
            "capot %": f"{100 * row['p_capot']:.1f}",
            "expected score": f"{row['expected_score']:+.1f} ± {_num(row['se_score'], '.1f')}",
            "vs best": _vs_best(row),
        })
    return out


def hand_title(a: HandAnalysis) -> str:
    q = a.query.describe()
    turned = f" + turned {q['turned']}" if q["turned"] else ""
    return (f"{q['hand']}{turned} at {q['seat']}, dealer {q['dealer']}, {q['ruleset']}: "
            f"{a.deals:,} deals, " + ("double dummy" if a.query.play == "dd" else
                                      f"single dummy (PIMC, {a.query.worlds} worlds)"))


def hand_notes(a: HandAnalysis, every_bid: bool = False) -> list[str]:
    """The lines under the table: best bid, ties, passing, why dealing stopped, what the
    player could not see."""
    s = a.summary
    best = a.rows[s.best]
    e_best = f"E[score] {best['expected_score']:+.1f} ± {_num(best['se_score'], '.1f')}"
    if best["best"]:
        lines = [f"best bid: {best['bid']}, {e_best} (passing: 0)"]
    else:
        lines = [f"best call: pass (0): every bid loses on average; the least bad, "
                 f"{best['bid']}, {e_best}"]
    if s.second >= 0:
        sig = "significant" if s.significant else "not significant"
        whose = "lead" if best["best"] else f"{best['bid']}'s lead"
        lines.append(f"{whose} over the second best, {a.rows[s.second]['bid']}: "
                     f"{s.margin:+.1f} ± {_num(s.se_margin, '.1f')} a deal (paired; {sig} at "
                     f"{100 * a.confidence:g}%)")
    if s.ties:
        lines.append("equal to the best on every sample deal: "
                     + " ".join(a.rows[j]["bid"] for j in s.ties))
    paying = _highest_paying(a.rows)
    if not paying:
        if best["best"]:  # only a capot bid pays
            lines.append("no bid but a capot pays on average (E[score] > 0)")
    elif has_levels(a.query.ruleset):
        lines.append("highest bid that pays (E[score] > 0) per kind: " + ", ".join(paying))
    else:
        lines.append("bids that pay (E[score] > 0): " + ", ".join(paying))
    lines.append("stopped: " + STOPS[a.stop].format(n=a.deals, hw=s.half_width,
                                                    p=a.precision or 0))
    rs = a.query.ruleset
    seen, with_turned = seen_at_bid_time(rs)
    seat = SEATS[a.query.seat]
    if with_turned:
        suit = SUITS[(a.query.turned.bit_length() - 1) // 8]
        lines.append(f"{seat} takes the turned card and 2 more (dealt at random); in the first "
                     f"round only {suit} may be taken, in the second any other kind")
    elif seen < 8:
        lines.append(f"{seat}'s other {8 - seen} cards are hidden at bid time: dealt at "
                     "random among the unseen cards")
    lines.append(f"intervals: Wilson {100 * a.confidence:g}%; totals and scores: mean ± one "
                 "SE; score: declarers' minus defenders'; vs best: paired difference")
    hidden = len(a.rows) - len(_shown(a.rows, every_bid))
    if hidden:
        what = "bid makes" if hidden == 1 else "bids make"
        lines.append(f"{hidden} more {what} less than {100 * SHOW_FROM:.0f}% of the time "
                     "(--all shows every bid, as --format json does)")
    return lines


def _highest_paying(rows: list[dict]) -> list[str]:
    best: dict[str, dict] = {}
    for r in rows:
        if r["expected_score"] > 0 and not r["capot"]:
            best[r["kind"]] = r
    return [r["bid"] for r in best.values()]


def _shown(rows: list[dict], every_bid: bool = False) -> list[dict]:
    """The rows of the reading form (see :func:`hand_records`); the best bid always."""
    if every_bid:
        return rows
    out = []
    below: set[str] = set()
    for r in rows:
        if r["p_make"] < SHOW_FROM and r["rank"] != 1:
            if r["capot"] or r["kind"] in below:
                continue
            below.add(r["kind"])
        out.append(r)
    return out


def _vs_best(row: dict) -> str:
    if row["rank"] == 1 and not row["best"]:  # every bid loses: passing is the best call
        return (f"pass +{-row['expected_score']:.1f} ± {_num(row['se_score'], '.1f')} "
                "over this")
    if row["best"]:
        return "best" if row["margin"] is None or math.isnan(row["margin"]) else (
            f"best, +{row['margin']:.1f} ± {_num(row['se_margin'], '.1f')} over {row['second']}")
    if row["equal_to_best"]:
        return "= best on every deal"
    return f"-{row['behind_best']:.1f} ± {_num(row['se_behind_best'], '.1f')}"


def _num(v, spec: str) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def _plain(v):
    if isinstance(v, float) and math.isnan(v):
        return None
    return v
