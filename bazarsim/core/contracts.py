"""Contract kinds: a trump suit, BK (no trump) or VK (all trumps).

The integer codes are used as table indices by every kernel: 0..3 are the trump suits
S H D C (equal to the suit number), 4 is BK, 5 is VK.
"""

from __future__ import annotations

from bazarsim.core.cards import SUIT_SYMBOLS, SUITS
from bazarsim.core.errors import BazarsimError

BK = 4
VK = 5
N_KINDS = 6
KIND_NAMES = ("S", "H", "D", "C", "BK", "VK")
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
