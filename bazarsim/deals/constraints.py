"""Constraints on dealing: fixed cards per seat and predicates on hands.

Fixed cards (``--fix``) are placed, never dealt: the dealer only decodes the unseen
cards, so they cost nothing. Predicates (``--where``) become rows of an ``int64`` array
``(type, seat, arg, lo, hi)`` that the dealing kernel checks (all must hold).

Text forms (seats ``N E S W``, sides ``NS EW`` = the two hands together):

* ``--fix N:AS KS QS`` or ``--fix S=AJ9.K7.Q.T8`` (card list or suit-dot hand);
* ``len(N,S)>=5``, ``len(NS,H)=8..10``: cards of a suit;
* ``points(N,H)>=40``: card points under a contract kind (``S H D C BK VK``);
* ``decl(E,H)>=50``; ``decl(E,H)`` alone: a scoring declaration present;
* ``has(N,JH 9H)``, ``lacks(W,AS)``: holds all / none of the cards.

Comparisons: ``= == >= <= > <`` with an integer, or ``=A..B`` (``=A-B``) for a range,
read by :func:`bazarsim.core.ranges.parse_range` as every option that takes ranges.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from bazarsim.core.cards import SEATS, SUITS, format_cards, parse_cards, parse_hand
from bazarsim.core.contracts import KIND_NAMES, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.core.ranges import BIG, parse_range

P_LEN = 0
P_POINTS = 1
P_DECL = 2
P_HOLDS = 3
P_LACKS = 4
_TYPES = {"len": P_LEN, "points": P_POINTS, "decl": P_DECL, "has": P_HOLDS, "lacks": P_LACKS}
SIDE_CODES = {"NS": 4, "EW": 5}


@dataclass(frozen=True)
class Constraints:
    """Fixed cards per seat (N E S W masks) and predicate rows, with their source text."""

    fixed: tuple[int, int, int, int] = (0, 0, 0, 0)
    predicates: np.ndarray = field(default_factory=lambda: np.zeros((0, 5), np.int64))
    texts: tuple[str, ...] = ()

    @property
    def fixed_mask(self) -> int:
        return self.fixed[0] | self.fixed[1] | self.fixed[2] | self.fixed[3]

    def describe(self) -> str:
        return "; ".join(self.texts) if self.texts else "none"

    def kinds_used(self) -> set[int]:
        return {int(r[2]) for r in self.predicates if r[0] in (P_POINTS, P_DECL)}

    def check_kinds(self, ruleset) -> None:
        for kind in self.kinds_used():
            ruleset.check_kind(kind)

    def as_dict(self) -> dict:
        return {
            "fix": {SEATS[s]: format_cards(h) for s, h in enumerate(self.fixed) if h},
            "where": [t for t in self.texts if not t.startswith("fix ")],
        }


def no_constraints() -> Constraints:
    return Constraints()


def parse_fix(items: list[str] | None) -> tuple[int, int, int, int]:
    """``["N:AS KS", "S=AJ9.K7.Q.T8"]`` -> fixed masks per seat; checks conflicts."""
    fixed = [0, 0, 0, 0]
    for item in items or []:
        m = re.match(r"^\s*([NESWnesw])\s*[:=]\s*(.+)$", item)
        if not m:
            raise BazarsimError(
                f"bad --fix {item!r}: expected SEAT:CARDS, e.g. 'N:AS KS QS' or "
                "'S=AJ9.K7.Q.T8'", item)
        seat = SEATS.index(m.group(1).upper())
        body = m.group(2).strip()
        mask = parse_hand(body) if "." in body else parse_cards(body)
        for other in range(4):
            clash = fixed[other] & mask
            if clash:
                card = format_cards(clash).split()[0]
                where = "twice" if other == seat else f"to {SEATS[other]} and {SEATS[seat]}"
                raise BazarsimError(f"impossible --fix: card {card} fixed {where}", card)
        fixed[seat] |= mask
        if fixed[seat].bit_count() > 8:
            raise BazarsimError(
                f"impossible --fix: {fixed[seat].bit_count()} cards fixed to {SEATS[seat]}, "
                "a hand holds 8", item)
    return tuple(fixed)


_PRED = re.compile(
    r"^\s*(?P<neg>!)?(?P<name>[a-z]+)\s*\(\s*(?P<seat>[A-Za-z]+)\s*,\s*(?P<arg>[^)]*?)\s*\)"
    r"\s*(?:(?P<op>==|=|>=|<=|>|<)\s*(?P<val>\S.*?))?\s*$"
)


def parse_predicate(text: str) -> tuple[int, int, int, int, int]:
    """One ``--where`` text -> ``(type, seat, arg, lo, hi)``."""
    m = _PRED.match(text)
    if not m:
        raise BazarsimError(
            f"bad --where {text!r}: expected e.g. 'len(N,S)>=5', 'points(S,H)=30..60', "
            "'decl(E,H)', 'has(N,JH 9H)'", text)
    name = m.group("name").lower()
    if name not in _TYPES:
        raise BazarsimError(
            f"bad --where {text!r}: unknown test {name!r} (use {', '.join(_TYPES)})", name)
    typ = _TYPES[name]
    if m.group("neg"):
        if typ not in (P_HOLDS, P_LACKS):
            raise BazarsimError(f"bad --where {text!r}: '!' only negates has/lacks", text)
        typ = P_LACKS if typ == P_HOLDS else P_HOLDS
    seat_txt = m.group("seat").upper()
    if seat_txt in SIDE_CODES:
        seat = SIDE_CODES[seat_txt]
    elif len(seat_txt) == 1 and seat_txt in SEATS:
        seat = SEATS.index(seat_txt)
    else:
        raise BazarsimError(f"bad --where {text!r}: unknown seat {seat_txt!r} "
                            "(use N E S W, or NS EW for a side)", seat_txt)
    argt = m.group("arg")
    if typ in (P_HOLDS, P_LACKS):
        if m.group("op"):
            raise BazarsimError(f"bad --where {text!r}: has/lacks takes no comparison", text)
        return typ, seat, parse_cards(argt), 0, 0
    if typ == P_LEN:
        a = argt.upper()
        if len(a) != 1 or a not in SUITS + "♠♥♦♣":
            raise BazarsimError(f"bad --where {text!r}: unknown suit {argt!r} (use S H D C)",
                                argt)
        arg = (SUITS + "♠♥♦♣").index(a) % 4
    else:
        arg = parse_kind(argt)
    op, val = m.group("op"), m.group("val")
    if op is None:
        if typ != P_DECL:
            raise BazarsimError(f"bad --where {text!r}: needs a comparison, e.g. >=5", text)
        return typ, seat, arg, 1, BIG
    if op in ("=", "=="):  # a value or a range, as every option that takes ranges reads it
        lo_, hi_ = parse_range(val, f"bad --where {text!r}")
    elif not re.fullmatch(r"-?\d+", val):
        what = "a range needs '=', e.g. =3..5" if re.search(r"\.\.|\d-", val) else \
            f"{val!r} is not a whole number"
        raise BazarsimError(f"bad --where {text!r}: {what}", val)
    else:
        v = int(val)
        lo_, hi_ = {">=": (v, BIG), "<=": (-BIG, v), ">": (v + 1, BIG), "<": (-BIG, v - 1)}[op]
    if lo_ > hi_:
        raise BazarsimError(f"impossible --where {text!r}: empty range {lo_}..{hi_}", text)
    return typ, seat, arg, lo_, hi_


def _check_structure(fixed, rows, texts) -> None:
    """Reject constraints that no deal can meet, before any dealing (clear errors)."""
    free = 0xFFFFFFFF & ~(fixed[0] | fixed[1] | fixed[2] | fixed[3])
    for (typ, seat, arg, lo, hi), text in zip(rows, texts, strict=True):
        seats = [seat] if seat < 4 else [seat - 4, seat - 2]
        if typ in (P_HOLDS, P_LACKS):
            mine = 0
            for s in seats:
                mine |= fixed[s]
            if typ == P_HOLDS and arg & ~(mine | free):
                card = format_cards(arg & ~(mine | free)).split()[0]
                raise BazarsimError(f"impossible --where {text!r}: {card} is fixed elsewhere",
                                    card)
            if typ == P_LACKS and arg & mine:
                card = format_cards(arg & mine).split()[0]
                raise BazarsimError(f"impossible --where {text!r}: {card} is fixed there", card)
        elif typ == P_LEN:
            suit_mask = 0xFF << (8 * arg)
            have = sum((fixed[s] & suit_mask).bit_count() for s in seats)
            room = sum(8 - fixed[s].bit_count() for s in seats)
            most = have + min(room, (free & suit_mask).bit_count())
            if hi < have or lo > most:
                raise BazarsimError(
                    f"impossible --where {text!r}: that length can only be {have}..{most}",
                    text)


def parse_constraints(fix: list[str] | None = None,
                      where: list[str] | None = None) -> Constraints:
    """Build :class:`Constraints` from ``--fix`` and ``--where`` texts (checked)."""
    fixed = parse_fix(fix)
    rows = [parse_predicate(w) for w in where or []]
    texts = list(where or [])
    _check_structure(fixed, rows, texts)
    preds = np.array(rows, np.int64).reshape(-1, 5)
    all_texts = tuple(f"fix {f}" for f in fix or []) + tuple(texts)
    return Constraints(fixed, preds, all_texts)


def describe_predicate(row) -> str:
    """Canonical text of one predicate row (for metadata and messages)."""
    typ, seat, arg, lo, hi = (int(v) for v in row)
    who = SEATS[seat] if seat < 4 else ("NS", "EW")[seat - 4]
    if typ in (P_HOLDS, P_LACKS):
        return f"{'has' if typ == P_HOLDS else 'lacks'}({who},{format_cards(arg)})"
    name = {P_LEN: "len", P_POINTS: "points", P_DECL: "decl"}[typ]
    a = SUITS[arg] if typ == P_LEN else KIND_NAMES[arg]
    rng = f"={lo}..{hi}" if hi < BIG and lo > -BIG else (f">={lo}" if hi >= BIG else f"<={hi}")
    return f"{name}({who},{a}){rng}"
