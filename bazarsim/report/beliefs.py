"""The page of ``bazarsim infer --html``: the summary table, each seat's suit lengths, and
a heat map of the chance each other seat holds each card."""

from __future__ import annotations

import math

from bazarsim.core.cards import RANKS, SEATS, SUIT_SYMBOLS, SUITS, format_card, format_hand
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.report import figures
from bazarsim.report.html import Column, Page, pct


def infer_page(res, title: str | None = None) -> Page:
    from bazarsim.beliefs.infer import key_card_rows, summary_rows

    w = res.worlds
    page = Page(title or f"What the auction says: {SEATS[res.seat]}'s view",
                lead="Every deal of the hidden cards weighed by how likely the other seats' "
                "calls were with those cards, under the policy assumed for each seat.")
    page.section("view", "The view")
    hand = 0
    for s, c in res.played:
        if s == res.seat:
            hand |= 1 << c
    own = int(w.hands[0, res.seat]) | hand
    page.meta([("ruleset", res.ruleset.name), ("seat", SEATS[res.seat]),
               ("hand", format_hand(own)), ("dealer", SEATS[res.dealer]),
               ("auction", res.auction or "(none)"),
               ("cards played", " ".join(
                   f"{SEATS[s]}:{format_card(c)}" for s, c in res.played) or "-"),
               ("worlds", "every consistent deal, exactly weighted" if w.exhaustive else
                f"ESS {w.ess:,.0f} from {w.draws:,} weighted draws (seed {res.seed})")])
    if w.capped:
        page.paragraph(f"The draws stopped at the cap ({w.draws:,}) before the ESS asked "
                       f"({res.ess_asked:,.0f}): the auction is very unlikely under the "
                       "policies assumed.", "note")
    page.section("seats", "The other seats")
    rows = summary_rows(res)
    page.table("seats", f"Expected points and strength in {KIND_NAMES[res.kind]} (dealt "
               "hands), suit lengths and key cards (held now)",
               [Column(k, k, str, k in ("seat", "policy", "calls")) for k in rows[0]], rows)
    keys = key_card_rows(res)
    page.table("key-cards", "P(the seat holds the jack and nine of each suit now)",
               [Column(k, k, str, k == "seat") for k in keys[0]], keys)
    page.section("cards", "Who holds each card")
    labels, values = [], []
    known = res.known
    for b in res.seats:
        for suit in range(4):
            labels.append(f"{SEATS[b.seat]} {SUIT_SYMBOLS[suit]}")
            values.append([math.nan if known >> (suit * 8 + r) & 1 else
                           float(b.card[suit * 8 + r]) for r in range(7, -1, -1)])
    page.figure("cards", figures.heatmap(
        "infer-cards", "P(the seat holds the card), %", "rank", "seat and suit",
        [RANKS[r] for r in range(7, -1, -1)], labels, values, label="P(holds), %"),
        "One row per other seat and suit; blank where the card is in this seat's hand or "
        "played.")
    page.section("lengths", "Suit lengths")
    length_rows = []
    for b in res.seats:
        for suit in range(4):
            row = {"seat": SEATS[b.seat], "suit": SUITS[suit]}
            for n in range(9):
                row[str(n)] = float(b.length[suit, n])
            length_rows.append(row)
    page.table("lengths", "P(the seat holds n cards of the suit now)",
               [Column("seat", "seat", str, True), Column("suit", "suit", str, True)]
               + [Column(str(n), str(n), pct(0)) for n in range(9)], length_rows)
    return page
