"""The tables, notes and page of ``analyze HAND --auction``: what each call now is worth."""

from __future__ import annotations

from bazarsim.core.cards import SEATS, format_hand
from bazarsim.report import figures
from bazarsim.report.html import Column, Page, num, pct


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def ends_text(row: dict, top: int | None = None) -> str:
    """``12VK by W 39%, 11S by S 33%``: the most frequent final contracts of a call."""
    return ", ".join(f"{e['contract']} {100 * e['share']:.0f}%" for e in row["ends"][:top])


def _short(label: str) -> str:
    """``12VK X by W`` -> ``12VK x W``: the text table's narrow form."""
    return label.replace(" by ", " ").replace(" XX ", " xx ").replace(" X ", " x ")


def advice_title(adv) -> str:
    q = adv.query
    return (f"{format_hand(q.hand)} at {SEATS[q.seat]}, dealer {SEATS[q.dealer]}, after "
            f"{q.auction_text or '(no calls)'} ({q.ruleset.name}, {q.play.upper()}, "
            f"{adv.worlds.n:,} worlds of ESS {adv.worlds.ess:,.0f})")


def advice_records(adv) -> list[dict]:
    """The text table: one row per call, best first (the most frequent final contract, x
    contra, xx recontra; the next ones in json and on the page; the ESS, the same for
    every call, in the title). With a match score, the difference to the best call is in
    the match-win chance (json has both)."""
    out = []
    for r in adv.rows:
        first = r["rank"] == 1
        row = {"call": r["call"],
               "usually ends in": " ".join(f"{_short(e['contract'])} {100 * e['share']:.0f}%"
                                           for e in r["ends"][:1]),
               "we decl": _pct(r["p_declare"]), "P(make)": _pct(r["p_make"]),
               "E[score]": f"{r['expected_score']:+.1f} ± {r['se_score']:.1f}"}
        if "equity" in r:  # ranked by the match-win chance: its difference to the best
            row["E[score]"] = f"{r['expected_score']:+.1f}"  # its SE in json
            row["P(win) %"] = f"{100 * r['equity']:.1f} ± {100 * r['se_equity']:.1f}"
            row["vs best, pp"] = "best" if first else (
                f"{-100 * r['equity_behind_best']:+.1f} ± "
                f"{100 * r['se_equity_behind_best']:.1f}")
        else:
            row["vs best"] = "best" if first else (
                f"{-r['behind_best']:+.1f} ± {r['se_behind_best']:.1f}")
        out.append(row)
    return out


def advice_json(adv) -> dict:
    q = adv.query
    w = adv.worlds
    return {"hand": format_hand(q.hand), "seat": SEATS[q.seat], "dealer": SEATS[q.dealer],
            "auction": q.auction_text, "ruleset": q.ruleset.name, "play": q.play,
            **({"sd_worlds": q.sd_worlds} if q.play == "sd" else {}),
            "policies": {SEATS[s]: q.policies[s].name for s in range(4) if s != q.seat},
            "me": q.policies[q.seat].name,
            "score": list(q.score) if q.score else None, "target": q.target,
            "seed": adv.seed, "worlds": w.n, "ess": w.ess, "draws": w.draws,
            "capped": w.capped, "best": adv.rows[0]["call"], "calls": adv.rows}


def advice_notes(adv) -> list[str]:
    q = adv.query
    w = adv.worlds
    pol = {SEATS[s]: q.policies[s].name for s in range(4)}
    others = ", ".join(f"{s} {p}" for s, p in pol.items() if s != SEATS[q.seat])
    notes = [
        f"{w.n:,} worlds resampled from {w.draws:,} auction-weighted draws (ESS "
        f"{w.ess:,.0f}), seed {adv.seed}; each call played on by the policies ({others}; "
        f"{SEATS[q.seat]}'s later calls: {pol[SEATS[q.seat]]}) to a final contract, "
        + ("solved double dummy" if q.play == "dd" else
           f"played out by four PIMC players ({q.sd_worlds} worlds a decision)")
        + ", scored with the ruleset's full scoring.",
        "E[score]: our side's score minus theirs (0 when the deal is passed out); P(make): "
        "of our contract, when we declare; vs best: the paired difference to the best call "
        "over the same worlds; ± one standard error.",
    ]
    if q.score is not None:
        notes.append(f"ranked by P(win match) at {q.score[0]}-{q.score[1]} to {q.target}: "
                     "our side's chance to win the match after this deal, from the equity "
                     "table.")
    if w.capped:
        notes.append(f"the draws stopped at their cap ({w.draws:,}) before the ESS asked: the "
                     "auction is very unlikely under the policies assumed.")
    return notes


ADVICE_COLUMNS = [
    Column("call", "call", str, True), Column("ends_text", "auction ends in", str, True),
    Column("p_declare", "we declare", pct(1)), Column("p_make", "P(make)", pct(1)),
    Column("expected_score", "E[score]", num(1, sign=True)), Column("se_score", "± SE", num(1)),
    Column("diff", "vs best", num(1, sign=True)), Column("se_behind_best", "± SE", num(1)),
]


def advice_page(adv, title: str | None = None) -> Page:
    """The question, the expected score per call as a figure, and the table."""
    q = adv.query
    page = Page(title or f"What to call: {advice_title(adv)}",
                lead="Every legal call judged on the same auction-weighted worlds: the "
                "auction played on by the policies to a final contract, scored in full.")
    page.section("question", "The question")
    page.meta([("ruleset", q.ruleset.name), ("hand", format_hand(q.hand)),
               ("seat", SEATS[q.seat]), ("dealer", SEATS[q.dealer]),
               ("auction", q.auction_text or "(no calls)"),
               ("policies", ", ".join(f"{SEATS[s]} {q.policies[s].name}" for s in range(4))),
               ("play", q.play.upper()),
               ("match score", f"{q.score[0]}-{q.score[1]} to {q.target}" if q.score else
                "not given"),
               ("seed", str(adv.seed))])
    for line in advice_notes(adv):
        page.paragraph(line, "note")
    rows = [dict(r, ends_text=ends_text(r), diff=-r["behind_best"]) for r in adv.rows]
    page.section("calls", "The calls")
    page.figure("advice-score", figures.bid_bars(
        "advice-score", f"Expected score per call ({adv.worlds.n:,} worlds)",
        [r["call"] for r in rows], [r["expected_score"] for r in rows],
        [r["expected_score"] - 1.96 * r["se_score"] for r in rows],
        [r["expected_score"] + 1.96 * r["se_score"] for r in rows],
        "expected score, points a deal (ours − theirs; ± 1.96 SE)", 0, zero_label="0"),
        "Bars: the mean over the worlds of our side's score minus theirs; outlined: the best "
        "call.")
    cols = list(ADVICE_COLUMNS)
    if q.score is not None:
        cols += [Column("equity", "P(win match)", pct(1)),
                 Column("se_equity", "± SE", pct(1))]
    page.table("calls", "Every call, best first", cols, rows)
    return page
