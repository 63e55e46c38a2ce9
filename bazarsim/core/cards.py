"""Cards as bits: one ``uint32`` holds any set of the 32 cards.

Bit ``suit * 8 + rank`` is set when the card is present. Suits are ``S H D C`` (0..3);
ranks are numbered in *natural* order ``7 8 9 T J Q K A`` (0..7), the order in which
sequences (terz, fifty, quint) are counted, so a sequence is a run of adjacent bits
inside one suit's byte. Strength order for play (trump ``J 9 A T K Q 8 7``) lives in the
compiled rules (:mod:`bazarsim.rules.compiled`), not here.

Text forms (docs/rules.md, Notation):

* card: rank + suit, ``JS``, ``TH``, ``10H``, ``A♦``;
* card list: ``JS 9S AH 10D`` (spaces or commas);
* hand: suit-dot form ``spades.hearts.diamonds.clubs``, e.g. ``AJ9.K7.Q.T8``
  (``-`` may mark a void);
* deal or position: PBN style ``N:<hand> <hand> <hand> <hand>``, hands clockwise from
  the named seat.

Deals are ``numpy.uint32`` arrays of shape ``(4,)`` (or ``(n, 4)`` for many deals) in
seat order N, E, S, W.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from bazarsim.core.errors import CardError

SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANKS = "789TJQKA"  # natural order, index = rank number
SEATS = "NESW"
SEAT_NAMES = ("North", "East", "South", "West")
FULL_DECK = 0xFFFFFFFF
HAND_SIZE = 8

_SUIT_OF_CHAR = {c: i for i, c in enumerate(SUITS)}
_SUIT_OF_CHAR.update({c: i for i, c in enumerate(SUIT_SYMBOLS)})
_SUIT_OF_CHAR.update({c.lower(): i for i, c in enumerate(SUITS)})
# Symbols sometimes arrive in their text (non-emoji) variants.
_SUIT_OF_CHAR.update({"♤": 0, "♡": 1, "♢": 2, "♧": 3})
_RANK_OF_TEXT = {c: i for i, c in enumerate(RANKS)}
_RANK_OF_TEXT.update({c.lower(): i for i, c in enumerate(RANKS)})
_RANK_OF_TEXT["10"] = RANKS.index("T")


def card_index(suit: int, rank: int) -> int:
    """Bit position of the card of ``suit`` (0..3) and natural ``rank`` (0..7)."""
    return suit * 8 + rank


def card_bit(suit: int, rank: int) -> int:
    return 1 << card_index(suit, rank)


def suit_of(card: int) -> int:
    return card >> 3


def rank_of(card: int) -> int:
    return card & 7


def cards_of(mask: int) -> list[int]:
    """Card indices present in ``mask``, lowest bit first."""
    mask = int(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def count(mask: int) -> int:
    return int(mask).bit_count()


def suit_byte(mask: int, suit: int) -> int:
    """The 8 bits of one suit (bit r = natural rank r)."""
    return (int(mask) >> (8 * suit)) & 0xFF


# --------------------------------------------------------------------------- cards


def parse_card(token: str) -> int:
    """Parse ``JS``, ``10H``, ``a♦`` ... into a card index (0..31)."""
    tok = token.strip()
    if len(tok) < 2:
        raise CardError(f"bad card {token!r}: expected rank + suit, e.g. 'JS' or '10H'", token)
    rank_text, suit_text = tok[:-1], tok[-1]
    if suit_text not in _SUIT_OF_CHAR:
        raise CardError(
            f"bad card {token!r}: unknown suit {suit_text!r} (use S H D C or ♠ ♥ ♦ ♣)", token
        )
    if rank_text not in _RANK_OF_TEXT:
        raise CardError(
            f"bad card {token!r}: unknown rank {rank_text!r} (use A K Q J T/10 9 8 7)", token
        )
    return card_index(_SUIT_OF_CHAR[suit_text], _RANK_OF_TEXT[rank_text])


def format_card(card: int, symbols: bool = False) -> str:
    suit = SUIT_SYMBOLS[suit_of(card)] if symbols else SUITS[suit_of(card)]
    return RANKS[rank_of(card)] + suit


def parse_cards(text: str) -> int:
    """Parse a card list such as ``"JS 9S AH 10D"`` into a mask; duplicates are an error."""
    mask = 0
    tokens = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
    if not tokens:
        raise CardError("empty card list: expected cards such as 'JS 9S AH 10D'", text)
    for tok in tokens:
        bit = 1 << parse_card(tok)
        if mask & bit:
            raise CardError(f"duplicate card {tok!r} in {text!r}", tok)
        mask |= bit
    return mask


def format_cards(mask: int, symbols: bool = False) -> str:
    """Cards high to low within suits S H D C, as a card list."""
    out = []
    for suit in range(4):
        for rank in range(7, -1, -1):
            if int(mask) >> card_index(suit, rank) & 1:
                out.append(format_card(card_index(suit, rank), symbols))
    return " ".join(out)


# --------------------------------------------------------------------------- hands


def _parse_suit_holding(text: str, suit: int, whole: str) -> int:
    mask = 0
    i = 0
    body = "" if text in ("-", "—") else text
    while i < len(body):
        tok = body[i : i + 2] if body.startswith("10", i) else body[i]
        i += len(tok)
        if tok not in _RANK_OF_TEXT:
            raise CardError(
                f"bad hand {whole!r}: unknown rank {tok!r} in {SUIT_NAMES[suit]} "
                "(use A K Q J T/10 9 8 7)",
                tok,
            )
        bit = card_bit(suit, _RANK_OF_TEXT[tok])
        if mask & bit:
            raise CardError(
                f"bad hand {whole!r}: duplicate card {tok}{SUITS[suit]}", tok + SUITS[suit]
            )
        mask |= bit
    return mask


def parse_hand(text: str) -> int:
    """Parse a hand: suit-dot form ``AJ9.K7.Q.T8`` or a card list ``AS JS 9S KH``."""
    src = text.strip()
    if "." not in src:
        return parse_cards(src)
    parts = src.split(".")
    if len(parts) != 4:
        raise CardError(
            f"bad hand {text!r}: suit-dot form needs 4 suits separated by dots "
            f"(spades.hearts.diamonds.clubs), got {len(parts)}",
            text,
        )
    mask = 0
    for suit, part in enumerate(parts):
        mask |= _parse_suit_holding(part.strip(), suit, text)
    if count(mask) > HAND_SIZE:
        raise CardError(f"bad hand {text!r}: {count(mask)} cards, a hand holds at most 8", text)
    return mask


def format_hand(mask: int, symbols: bool = False) -> str:
    """Suit-dot form, ranks high to low; with ``symbols`` a readable ``♠AJ9 ♥K7 ...`` form."""
    parts = []
    for suit in range(4):
        byte = suit_byte(mask, suit)
        ranks = "".join(RANKS[r] for r in range(7, -1, -1) if byte >> r & 1)
        parts.append(SUIT_SYMBOLS[suit] + (ranks or "-") if symbols else ranks)
    return " ".join(parts) if symbols else ".".join(parts)


# --------------------------------------------------------------------------- deals


def validate_hands(hands: Iterable[int], full: bool = False) -> np.ndarray:
    """Check four disjoint hands of equal size 1..8; return them as ``uint32[4]``."""
    # an array's ``tolist`` gives Python ints at once (indexing it costs ~0.5 us a hand)
    hs = [int(h) for h in (hands.tolist() if isinstance(hands, np.ndarray) else hands)]
    if len(hs) != 4:
        raise CardError(f"a deal has 4 hands, got {len(hs)}")
    seen = 0
    for seat, h in enumerate(hs):
        dup = seen & h
        if dup:
            card = format_cards(dup).split()[0]
            raise CardError(f"card {card} is in two hands (again in {SEAT_NAMES[seat]})", card)
        seen |= h
    sizes = [count(h) for h in hs]
    if max(sizes) > HAND_SIZE:
        seat = sizes.index(max(sizes))
        raise CardError(f"{SEAT_NAMES[seat]} holds {sizes[seat]} cards, at most 8 allowed")
    if len(set(sizes)) != 1:
        detail = ", ".join(f"{SEATS[s]}={n}" for s, n in enumerate(sizes))
        raise CardError(f"hands must hold the same number of cards ({detail})")
    if sizes[0] == 0:
        raise CardError("a position needs at least one card in each hand")
    if full and sizes[0] != HAND_SIZE:
        raise CardError(f"a full deal has 8 cards a hand, got {sizes[0]}")
    return np.array(hs, dtype=np.uint32)


def parse_deal(text: str, full: bool = False) -> np.ndarray:
    """Parse ``N:AKQ.J.T.987 ...`` (PBN style) into ``uint32[4]`` in seat order N E S W.

    The seat prefix is optional (``N`` assumed); each hand may carry its own seat label
    (``N:... E:... S:... W:...``, as ``play -f json`` prints a deal). With ``full`` the
    deal must have all
    32 cards; otherwise any position with 1..8 cards in each hand is accepted.
    """
    src = text.strip()
    first = 0
    m = re.match(r"^\s*([NESWnesw])\s*:\s*", src)
    if m:
        first = SEATS.index(m.group(1).upper())
        src = src[m.end() :]
    elif ":" in src:
        raise CardError(f"bad deal {text!r}: seat before ':' must be one of N E S W", text)
    tokens = src.split()
    if len(tokens) != 4:
        raise CardError(
            f"bad deal {text!r}: expected 4 hands in suit-dot form after the seat, "
            f"got {len(tokens)}",
            text,
        )
    hands = [0, 0, 0, 0]
    given: set[int] = set()
    for k, tok in enumerate(tokens):
        seat = (first + k) % 4
        label = re.match(r"^([NESWnesw]):", tok)  # 'N:... E:... S:... W:...' (each labelled)
        if label:
            seat = SEATS.index(label.group(1).upper())
            tok = tok[label.end():]
        if seat in given:
            raise CardError(f"bad deal {text!r}: seat {SEATS[seat]} is given twice", text)
        given.add(seat)
        if "." not in tok:
            raise CardError(f"bad deal {text!r}: hand {tok!r} is not in suit-dot form", tok)
        hands[seat] = parse_hand(tok)
    return validate_hands(hands, full=full)


def format_deal(hands, first: int = 0) -> str:
    """PBN style, hands clockwise from seat ``first`` (default North)."""
    hs = [int(h) for h in hands]
    return SEATS[first] + ":" + " ".join(format_hand(hs[(first + k) % 4]) for k in range(4))


def parse_seat(text: str) -> int:
    t = text.strip().upper()
    names = {s: i for i, s in enumerate(SEATS)}
    names.update({n.upper(): i for i, n in enumerate(SEAT_NAMES)})
    if t not in names:
        raise CardError(f"bad seat {text!r}: use N, E, S or W", text)
    return names[t]


def side_of(seat: int) -> int:
    """0 for North-South, 1 for East-West."""
    return seat & 1


SIDES = ("NS", "EW")
