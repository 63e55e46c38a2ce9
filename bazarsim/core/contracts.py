"""Contract kinds (a trump suit, BK for no trump, VK for all trumps) and contracts.

The integer codes of the kinds index the compiled rules in every kernel: 0..3 are the
trump suits S H D C (equal to the suit number), 4 is BK, 5 is VK. A :class:`Contract` is
what an auction ends in (:mod:`bazarsim.rules.auction`) and what scoring reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from bazarsim.core.cards import SEATS, SIDES, SUIT_SYMBOLS, SUITS, side_of
from bazarsim.core.errors import BazarsimError

BK = 4
VK = 5
N_KINDS = 6
KIND_NAMES = ("S", "H", "D", "C", "BK", "VK")
CONTRA_NAMES = ("", "X", "XX")  # contra level 0, 1, 2
# The suit taken as trump wherever a figure needs one and every suit gives the same value
# (exact odds, frequency tables): hearts, so the two always join.
REFERENCE_TRUMP = 1
KIND_LONG = ("spades", "hearts", "diamonds", "clubs", "no trump (BK)", "all trumps (VK)")

_ALIASES = {name: i for i, name in enumerate(KIND_NAMES)}
_ALIASES.update({sym: i for i, sym in enumerate(SUIT_SYMBOLS)})
_ALIASES.update({"NT": BK, "NOTRUMP": BK, "AT": VK, "ALLTRUMP": VK, "ALLTRUMPS": VK})
_ALIASES.update({"SPADES": 0, "HEARTS": 1, "DIAMONDS": 2, "CLUBS": 3})


def parse_kind(text: str) -> int:
    """``H``, ``♥``, ``hearts`` -> 1; ``BK``/``NT`` -> 4; ``VK``/``AT`` -> 5."""
    key = text.strip().upper()
    if key not in _ALIASES:
        raise BazarsimError(
            f"bad contract kind {text!r}: use one of {' '.join(KIND_NAMES)} (NT = BK, AT = VK)",
            text,
        )
    return _ALIASES[key]


def kind_name(kind: int) -> str:
    return KIND_NAMES[kind]


def is_suit_kind(kind: int) -> bool:
    return 0 <= kind < 4


def trump_suit_label(kind: int) -> str:
    return SUITS[kind] if is_suit_kind(kind) else KIND_NAMES[kind]


def bid_text(level: int, kind: int, capot: bool = False) -> str:
    """``9H``, ``8BK``, ``9H-CAPOT``; level 0 (belote and bela games): the kind alone."""
    return (str(level) if level else "") + KIND_NAMES[kind] + ("-CAPOT" if capot else "")


@dataclass(frozen=True)
class Contract:
    """The contract an auction ends in: what the declaring side must make."""

    level: int
    kind: int
    declarer: int  # seat 0..3 (N E S W)
    contra: int = 0  # 0 none, 1 contra, 2 recontra
    capot: bool = False

    @property
    def side(self) -> int:
        """Declaring side: 0 = NS, 1 = EW."""
        return side_of(self.declarer)

    @property
    def label(self) -> str:
        bid = bid_text(self.level, self.kind, self.capot)
        extra = f" {CONTRA_NAMES[self.contra]}" if self.contra else ""
        return f"{bid}{extra} by {SEATS[self.declarer]}"

    def as_dict(self) -> dict:
        return {
            "level": self.level,
            "kind": KIND_NAMES[self.kind],
            "declarer": SEATS[self.declarer],
            "side": SIDES[self.side],
            "contra": self.contra,
            "capot": self.capot,
            "label": self.label,
        }
