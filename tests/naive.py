"""Slow, obvious reference implementations that the fast kernels are checked against.

Written from docs/rules.md directly, over lists of (suit, rank) cards; they read a ruleset's
*values* (points, declaration values, orders) but none of the precomputed tables or
bit tricks the kernels use.
"""

from __future__ import annotations

from bazarsim.core.cards import RANKS, SUITS

RANK_CHARS = RANKS  # natural order 7 8 9 T J Q K A, index = rank
BK, VK = 4, 5


def hand_cards(mask: int) -> list[tuple[int, int]]:
    return [(c // 8, c % 8) for c in range(32) if mask >> c & 1]


def is_trump(kind: int, suit: int) -> bool:
    return kind == VK or kind == suit


def card_points(card, kind, rs) -> int:
    suit, rank = card
    ch = RANK_CHARS[rank]
    if kind == BK:
        return rs.cards.bk_points[ch]
    if is_trump(kind, suit):
        return rs.cards.trump_points[ch]
    return rs.cards.plain_points[ch]


def runs_in_suit(ranks: list[int]) -> list[tuple[int, int]]:
    """(length, top) of each maximal run of 3+ consecutive ranks."""
    ranks = sorted(set(ranks))
    runs, start = [], 0
    for i in range(1, len(ranks) + 1):
        if i == len(ranks) or ranks[i] != ranks[i - 1] + 1:
            length = i - start
            if length >= 3:
                runs.append((length, ranks[i - 1]))
            start = i
    return runs


def declarations(mask: int, kind: int, rs) -> list[dict]:
    """All declarations of a hand as dicts with a comparable 'rank' tuple."""
    dr = rs.declarations
    cards = hand_cards(mask)
    out = []
    for suit in range(4):
        for length, top in runs_in_suit([r for s, r in cards if s == suit]):
            trump = is_trump(kind, suit)
            if length == 8 and dr.eight_card_sequence == "quint_plus_terz":
                out.append({"value": dr.sequence_values[2], "rank": (1, 5, top, trump)})
                out.append({"value": dr.sequence_values[0], "rank": (1, 3, top - 5, trump)})
                continue
            value = dr.sequence_values[min(length, 5) - 3]
            out.append({"value": value, "rank": (1, length, top, trump)})
    values = dr.four_values_bk if kind == BK else dr.four_values
    order = dr.four_order_bk if kind == BK else dr.four_order
    for rank in range(8):
        if sum(1 for s, r in cards if r == rank) == 4:
            ch = RANK_CHARS[rank]
            if ch in "78" or values.get(ch, 0) <= 0:
                continue
            out.append({"value": values[ch], "rank": (2, len(order) - order.index(ch))})
    return out


def four_of(mask: int, rank: int) -> bool:
    return all(mask >> (s * 8 + rank) & 1 for s in range(4))


def evaluate_hand(mask: int, kind: int, rs) -> dict:
    cards = hand_cards(mask)
    decls = declarations(mask, kind, rs)
    cancel = rs.declarations.four_eights_cancel and four_of(mask, RANK_CHARS.index("8"))
    belas = 0
    if kind != BK:
        for suit in range(4):
            if is_trump(kind, suit) and (kind != VK or rs.declarations.bela_every_suit_in_vk):
                held = {r for s, r in cards if s == suit}
                if {RANK_CHARS.index("K"), RANK_CHARS.index("Q")} <= held:
                    belas += 1
    trumps = [c for c in cards if kind != BK and is_trump(kind, c[0])]
    return {
        "points": sum(card_points(c, kind, rs) for c in cards),
        "trumps": len(trumps),
        "trump_jacks": sum(1 for c in trumps if RANK_CHARS[c[1]] == "J"),
        "trump_nines": sum(1 for c in trumps if RANK_CHARS[c[1]] == "9"),
        "aces": sum(1 for c in cards if RANK_CHARS[c[1]] == "A"),
        "belas": belas,
        "declaration_points": 0 if cancel else sum(d["value"] for d in decls),
        "best": None if cancel or not decls else max(d["rank"] for d in decls),
        "four_sevens": rs.declarations.four_sevens_redeal and four_of(mask, 0),
        "four_eights": bool(cancel),
    }


def deal_declarations(deal, dealer: int, kind: int, rs) -> dict:
    """Which side scores declarations, and each side's declaration and bela points."""
    evals = [evaluate_hand(int(h), kind, rs) for h in deal]
    bela = [0, 0]
    totals = [0, 0]
    for seat, e in enumerate(evals):
        bela[seat % 2] += e["belas"] * rs.declarations.bela_value
        totals[seat % 2] += e["declaration_points"]
    redeal = any(e["four_sevens"] for e in evals)
    cancel = any(e["four_eights"] for e in evals)
    best, best_seat = None, None
    for step in range(4):  # turn order from the dealer's left; ties keep the earlier seat
        seat = (dealer + 1 + step) % 4
        b = evals[seat]["best"]
        if b is not None and (best is None or b > best):
            best, best_seat = b, seat
    points = [0, 0]
    side = None
    if best_seat is not None and not cancel:
        side = best_seat % 2
        points[side] = totals[side]
    if redeal:
        return {"side": None, "points": [0, 0], "bela": [0, 0], "redeal": True, "cancel": cancel}
    return {"side": side, "points": points, "bela": bela, "redeal": False, "cancel": cancel}


def suit_name(suit: int) -> str:
    return SUITS[suit]


def all_hands(size: int = 8):
    """Every ``size``-card hand as a ``uint32`` array, in increasing order (Gosper's hack)."""
    import numba
    import numpy as np

    @numba.njit(cache=True)
    def _enumerate(size, out):
        v = np.uint64((1 << size) - 1)
        i = 0
        while v < np.uint64(1) << np.uint64(32):
            out[i] = np.uint32(v)
            i += 1
            c = v & (~v + np.uint64(1))
            r = v + c
            v = (((r ^ v) >> np.uint64(2)) // c) | r
        return i

    from math import comb

    out = np.empty(comb(32, size), np.uint32)
    n = _enumerate(size, out)
    assert n == out.size
    return out
