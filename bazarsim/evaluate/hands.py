"""Hand and deal evaluation: card points, trumps, declarations, bela.

The kernels are Numba functions over arrays (millions of hands at a time, parallel with
``prange``); they read a ruleset only through :class:`~bazarsim.rules.compiled.CompiledRules`.
The Python functions at the bottom wrap them for the API and the CLI.

Per hand and contract kind: card points, trump count, trump jacks and nines, aces,
belas, the declaration total and the best declaration key, and two flags (four 7s:
redeal; four 8s: cancel). Per deal and dealer: which side's declarations score, each
side's declaration and bela points (see docs/rules.md, Declarations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numba as nb
import numpy as np

from bazarsim.core.bits import popcount32, suit_bits
from bazarsim.core.cards import RANKS, SIDES, SUITS, card_bit, format_cards
from bazarsim.core.contracts import BK, KIND_NAMES, parse_kind
from bazarsim.rules.compiled import (
    F_BELA_VALUE,
    F_FOUR7_REDEAL,
    F_FOUR8_CANCEL,
    RANK_7,
    RANK_8,
    compiled_rules,
    four_key_of,
    seq_key_of,
    sequence_runs,
    sequence_score,
)
from bazarsim.rules.rulesets import Ruleset, get_ruleset

SPECIAL_FOUR_SEVENS = 1
SPECIAL_FOUR_EIGHTS = 2
NO_SIDE = -1

HAND_FIELDS = (
    ("points", np.int16),
    ("trumps", np.int8),
    ("trump_jacks", np.int8),
    ("trump_nines", np.int8),
    ("aces", np.int8),
    ("belas", np.int8),
    ("declaration_points", np.int16),
    ("best_declaration", np.int32),
    ("special", np.uint8),
)
DEAL_FIELDS = (
    ("declaration_side", np.int8),
    ("declaration_seat", np.int8),
    ("declarations_ns", np.int16),
    ("declarations_ew", np.int16),
    ("bela_ns", np.int16),
    ("bela_ew", np.int16),
    ("redeal", np.bool_),
    ("cancelled", np.bool_),
)


# --------------------------------------------------------------------------- kernels


class HandValues(NamedTuple):
    """What one hand holds under a contract kind (the kernels' per-hand result)."""

    points: int  # card points
    trumps: int
    jacks: int  # jack of trump held (0/1 per trump suit)
    nines: int  # nine of trump held
    aces: int
    belas: int  # K+Q of a bela suit
    decl: int  # declaration points before the comparison between seats
    key: int  # the hand's best declaration key (compiled rules: larger beats smaller)
    special: int  # SPECIAL_FOUR_SEVENS | SPECIAL_FOUR_EIGHTS where the ruleset uses them


@nb.njit(cache=True, inline="always")
def hand_values(h, kind, T):
    """Evaluate one hand (a ``uint32`` card mask) under ``kind``: a :class:`HandValues`."""
    four_row = 1 if kind == BK else 0
    points = 0
    trumps = 0
    jacks = 0
    nines = 0
    belas = 0
    decl = 0
    key = 0
    all_suits = np.int64(0xFF)
    for s in range(4):
        b = suit_bits(h, s)
        all_suits &= b
        points += T.suit_points[kind, s, b]
        decl += T.seq_value[b]
        k = T.seq_key[b]
        if T.is_trump[kind, s]:
            trumps += popcount32(b)
            jacks += (b >> 4) & 1
            nines += (b >> 2) & 1
            if k:
                k |= 1
        if T.bela_suit[kind, s] and (b & 0x60) == 0x60:
            belas += 1
        if k > key:
            key = k
    aces = popcount32(np.uint32(h) & np.uint32(0x80808080))
    decl += T.four_value[four_row, all_suits]
    fk = T.four_key[four_row, all_suits]
    if fk > key:
        key = fk
    special = 0
    if (all_suits >> 0) & 1 and T.flags[F_FOUR7_REDEAL]:
        special |= SPECIAL_FOUR_SEVENS
    if (all_suits >> 1) & 1 and T.flags[F_FOUR8_CANCEL]:
        special |= SPECIAL_FOUR_EIGHTS
        decl = 0
        key = 0
    return HandValues(points, trumps, jacks, nines, aces, belas, decl, key, special)


@nb.njit(parallel=True, cache=True)
def evaluate_hands_kernel(hands, kind, T, points, trumps, jacks, nines, aces, belas, decl,
                          best, special):
    """Fill the output arrays for every hand (parallel over hands)."""
    for i in nb.prange(hands.shape[0]):
        p, t, j, n9, a, be, d, k, sp = hand_values(hands[i], kind, T)
        points[i] = p
        trumps[i] = t
        jacks[i] = j
        nines[i] = n9
        aces[i] = a
        belas[i] = be
        decl[i] = d
        best[i] = k
        special[i] = sp


@nb.njit(parallel=True, cache=True)
def points_and_declarations_kernel(hands, kind, T, points, decl):
    """The lean pair that bid studies need most: card points and declaration total."""
    for i in nb.prange(hands.shape[0]):
        r = hand_values(hands[i], kind, T)
        points[i] = r.points
        decl[i] = r.decl


class DealValues(NamedTuple):
    """Which side's declarations score in one deal, and what they are worth."""

    side: int  # 0 NS, 1 EW, NO_SIDE
    seat: int  # the seat holding the best declaration, -1 for none
    ns: int  # declaration points that score for N-S
    ew: int
    bela_ns: int
    bela_ew: int
    redeal: bool  # four sevens where the ruleset redeals
    cancelled: bool  # four eights where the ruleset cancels declarations


@nb.njit(cache=True, inline="always")
def deal_values(d, dealer, kind, T):
    """Score the declarations of one deal (row of 4 hands N E S W): a :class:`DealValues`."""
    best_key = 0
    best_seat = -1
    tot0 = 0
    tot1 = 0
    bela0 = 0
    bela1 = 0
    redeal = False
    cancel = False
    bela_value = T.flags[F_BELA_VALUE]
    for step in range(4):
        seat = (dealer + 1 + step) & 3  # from the dealer's left, clockwise
        r = hand_values(d[seat], kind, T)
        if r.special & SPECIAL_FOUR_SEVENS:
            redeal = True
        if r.special & SPECIAL_FOUR_EIGHTS:
            cancel = True
        if seat & 1:
            tot1 += r.decl
            bela1 += r.belas * bela_value
        else:
            tot0 += r.decl
            bela0 += r.belas * bela_value
        if r.key > best_key:  # strict: on equal keys the earlier seat keeps it
            best_key = r.key
            best_seat = seat
    side = NO_SIDE
    ns = 0
    ew = 0
    if cancel:
        best_seat = -1
    elif best_seat >= 0:
        side = best_seat & 1
        if side == 0:
            ns = tot0
        else:
            ew = tot1
    if redeal:
        side, best_seat, ns, ew, bela0, bela1 = -1, -1, 0, 0, 0, 0
    return DealValues(side, best_seat, ns, ew, bela0, bela1, redeal, cancel)


@nb.njit(parallel=True, cache=True)
def evaluate_deals_kernel(deals, dealers, kind, T, side, seat, ns, ew, bela_ns, bela_ew,
                          redeal, cancelled):
    """Declaration winner and points for every deal (parallel over deals)."""
    for i in nb.prange(deals.shape[0]):
        r = deal_values(deals[i], dealers[i], kind, T)
        side[i] = r.side
        seat[i] = r.seat
        ns[i] = r.ns
        ew[i] = r.ew
        bela_ns[i] = r.bela_ns
        bela_ew[i] = r.bela_ew
        redeal[i] = r.redeal
        cancelled[i] = r.cancelled


# --------------------------------------------------------------------------- API


def _kind(contract, ruleset: Ruleset) -> int:
    kind = parse_kind(contract) if isinstance(contract, str) else int(contract)
    return ruleset.check_kind(kind)


def evaluate_hands(hands, contract="H", ruleset: Ruleset | str | None = None) -> dict:
    """Evaluate an array of hands (``uint32``) under one contract kind.

    Returns a dict of equally long arrays named as in :data:`HAND_FIELDS`.
    """
    rs = get_ruleset(ruleset)
    kind = _kind(contract, rs)
    hands = np.ascontiguousarray(hands, dtype=np.uint32).reshape(-1)
    out = {name: np.empty(hands.shape[0], dtype) for name, dtype in HAND_FIELDS}
    evaluate_hands_kernel(hands, kind, compiled_rules(rs), *out.values())
    return out


def evaluate_deals(deals, dealer=0, contract="H", ruleset: Ruleset | str | None = None) -> dict:
    """Declaration and bela scoring for deals ``uint32[n, 4]`` (seats N E S W).

    ``dealer`` is a seat number or an array of them; declarations are compared in turn
    order from the dealer's left. ``declaration_side`` is 0 (NS), 1 (EW) or -1 (none).
    """
    rs = get_ruleset(ruleset)
    kind = _kind(contract, rs)
    deals = np.ascontiguousarray(deals, dtype=np.uint32).reshape(-1, 4)
    n = deals.shape[0]
    dealers = np.broadcast_to(np.asarray(dealer, dtype=np.int8), (n,)).copy()
    out = {name: np.empty(n, dtype) for name, dtype in DEAL_FIELDS}
    evaluate_deals_kernel(deals, dealers, kind, compiled_rules(rs), *out.values())
    return out


@dataclass
class Declaration:
    kind: str  # terz, fifty, quint, four
    cards: str
    value: int
    key: int
    cancelled: bool = False

    def as_dict(self) -> dict:
        return {"kind": self.kind, "cards": self.cards, "value": self.value,
                "cancelled": self.cancelled}


@dataclass
class HandEvaluation:
    hand: int
    contract: str
    ruleset: str
    points: int
    trumps: int
    trump_jacks: int
    trump_nines: int
    aces: int
    belas: int
    bela: int
    declaration_points: int
    best_declaration: str | None
    four_sevens_redeal: bool
    four_eights_cancel: bool
    declarations: list[Declaration] = field(default_factory=list)

    def as_dict(self) -> dict:
        from bazarsim.core.cards import format_hand

        d = {k: v for k, v in self.__dict__.items() if k != "declarations"}
        d["hand"] = format_hand(self.hand)
        d["declarations"] = [x.as_dict() for x in self.declarations]
        return d


def list_declarations(hand: int, contract="H", ruleset: Ruleset | str | None = None):
    """Every declaration a hand holds, best first, with the key the kernels compare."""
    rs = get_ruleset(ruleset)
    kind = _kind(contract, rs)
    t = compiled_rules(rs)
    dr = rs.declarations
    out: list[Declaration] = []
    for s in range(4):
        b = int(hand) >> (8 * s) & 0xFF
        for length, top in sequence_runs(b):
            run_mask = sum(card_bit(s, r) for r in range(top - length + 1, top + 1))
            for name, value, ranked, t_top in sequence_score(length, top, dr):
                part_len = 3 if (name == "terz" and length == 8) else ranked
                part = sum(card_bit(s, r) for r in range(t_top - part_len + 1, t_top + 1))
                key = seq_key_of(ranked, t_top, bool(t.is_trump[kind, s]))
                out.append(Declaration(name, format_cards(part & run_mask), value, key))
    values = dr.four_values_bk if kind == BK else dr.four_values
    order = dr.four_order_bk if kind == BK else dr.four_order
    common = 0xFF
    for s in range(4):
        common &= int(hand) >> (8 * s) & 0xFF
    cancelled = bool(common >> RANK_8 & 1) and dr.four_eights_cancel
    for r in range(8):
        if common >> r & 1 and r not in (RANK_7, RANK_8) and values.get(RANKS[r], 0) > 0:
            cards = " ".join(RANKS[r] + s for s in SUITS)
            out.append(Declaration("four", cards, values[RANKS[r]], four_key_of(r, order)))
    if cancelled:
        for d in out:
            d.cancelled = True
    out.sort(key=lambda d: -d.key)
    return out


def evaluate_hand(hand, contract="H", ruleset: Ruleset | str | None = None) -> HandEvaluation:
    """Evaluate one hand (mask or text) with the kernel, plus its declaration list."""
    from bazarsim.core.cards import parse_hand

    rs = get_ruleset(ruleset)
    mask = parse_hand(hand) if isinstance(hand, str) else int(hand)
    kind = _kind(contract, rs)
    r = evaluate_hands(np.array([mask], np.uint32), kind, rs)
    decls = list_declarations(mask, kind, rs)
    best = next((d for d in decls if not d.cancelled), None)
    return HandEvaluation(
        hand=mask,
        contract=KIND_NAMES[kind],
        ruleset=rs.name,
        points=int(r["points"][0]),
        trumps=int(r["trumps"][0]),
        trump_jacks=int(r["trump_jacks"][0]),
        trump_nines=int(r["trump_nines"][0]),
        aces=int(r["aces"][0]),
        belas=int(r["belas"][0]),
        bela=int(r["belas"][0]) * rs.declarations.bela_value,
        declaration_points=int(r["declaration_points"][0]),
        best_declaration=f"{best.kind} {best.cards}" if best else None,
        four_sevens_redeal=bool(r["special"][0] & SPECIAL_FOUR_SEVENS),
        four_eights_cancel=bool(r["special"][0] & SPECIAL_FOUR_EIGHTS),
        declarations=decls,
    )


def describe_deal_declarations(deal, dealer=0, contract="H", ruleset=None) -> dict:
    """One deal's declaration outcome as plain values (for the CLI and reports)."""
    r = evaluate_deals(np.asarray(deal, np.uint32).reshape(1, 4), dealer, contract, ruleset)
    side = int(r["declaration_side"][0])
    return {
        "declaration_side": SIDES[side] if side >= 0 else None,
        "declaration_seat": "NESW"[int(r["declaration_seat"][0])] if side >= 0 else None,
        "declarations": {"NS": int(r["declarations_ns"][0]), "EW": int(r["declarations_ew"][0])},
        "bela": {"NS": int(r["bela_ns"][0]), "EW": int(r["bela_ew"][0])},
        "redeal": bool(r["redeal"][0]),
        "cancelled": bool(r["cancelled"][0]),
    }


# --------------------------------------------------------------------------- shown cards


@nb.njit(cache=True)
def declared_cards(h, kind, T):
    """The cards of a hand's declarations (every sequence of 3 or more, every four of a
    kind worth points under ``kind``): what its side shows when its declarations score.
    Empty when four eights cancel them."""
    four_row = 1 if kind == BK else 0
    all_suits = np.int64(0xFF)
    out = np.int64(0)
    for s in range(4):
        b = np.int64(suit_bits(h, s))
        all_suits &= b
        if T.seq_value[b] > 0:
            starts = b & (b >> 1) & (b >> 2)
            out |= (starts | (starts << 1) | (starts << 2)) << (8 * s)
    for r in range(8):
        if (all_suits >> r) & 1 and T.four_value[four_row, 1 << r] > 0:
            out |= np.int64(0x01010101) << r
    if (all_suits >> 1) & 1 and T.flags[F_FOUR8_CANCEL]:
        return np.int64(0)
    return out


@nb.njit(cache=True)
def shown_cards_kernel(deals, dealers, kind, T, out):
    """``out[i, s]``: the declared cards seat ``s`` of deal ``i`` shows (those of the side
    whose declarations score, :func:`deal_values`; nothing for the other side)."""
    for i in range(deals.shape[0]):
        side = deal_values(deals[i], dealers[i], kind, T).side
        for s in range(4):
            out[i, s] = declared_cards(deals[i, s], kind, T) if side >= 0 and s % 2 == side else 0


def shown_cards(deals, dealer=0, contract="H", ruleset: Ruleset | str | None = None) -> np.ndarray:
    """Declared cards each seat shows, ``int64[n, 4]`` (N E S W), for many deals."""
    rs = get_ruleset(ruleset)
    kind = _kind(contract, rs)
    deals = np.ascontiguousarray(np.asarray(deals, np.uint32).reshape(-1, 4))
    dealers = np.broadcast_to(np.asarray(dealer, np.int8), (len(deals),)).copy()
    out = np.zeros((len(deals), 4), np.int64)
    shown_cards_kernel(deals, dealers, kind, compiled_rules(rs), out)
    return out
