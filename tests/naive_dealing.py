"""Slow, obvious references for the dealer and deal numbers (plain Python integers).

Written from the definitions in the module docstrings of ``bazarsim.dealer`` and
``bazarsim.dealnum``, with none of their tables or bit tricks: SplitMix64 with Python
big integers, Lemire's reduction with an exact 128-bit product, and the lexicographic
rank of a seat string by multinomial coefficients computed from factorials.
"""

from __future__ import annotations

from math import factorial

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def seed_key(seed: int) -> int:
    return mix64(mix64(seed + GAMMA))


def draw_below(key: int, i: int, k: int, total: int) -> tuple[int, int]:
    """Uniform integer below ``total`` from deal ``i``'s stream at draw ``k`` (Lemire)."""
    while True:
        u = mix64(key + ((i << 20) | k) * GAMMA)
        k += 1
        prod = u * total
        if prod & MASK64 >= (1 << 64) % total:
            return prod >> 64, k


def multinomial(counts) -> int:
    out = factorial(sum(counts))
    for c in counts:
        out //= factorial(c)
    return out


def rank_seats(seats: list[int], counts) -> int:
    """Lexicographic rank of a seat string among strings with ``counts`` of each seat."""
    r = list(counts)
    x = 0
    for s in seats:
        for t in range(s):
            if r[t]:
                r[t] -= 1
                x += multinomial(r)
                r[t] += 1
        r[s] -= 1
    return x


def unrank_seats(x: int, counts) -> list[int]:
    r = list(counts)
    out = []
    for _ in range(sum(counts)):
        for t in range(4):
            if not r[t]:
                continue
            r[t] -= 1
            n = multinomial(r)
            if x < n:
                out.append(t)
                break
            x -= n
            r[t] += 1
    return out


def deal_of_number(number: int) -> list[int]:
    """Full deal (N E S W masks) with this number."""
    hands = [0, 0, 0, 0]
    for card, seat in enumerate(unrank_seats(number, (8, 8, 8, 8))):
        hands[seat] |= 1 << card
    return hands


def number_of_deal(hands) -> int:
    seats = [next(s for s in range(4) if int(hands[s]) >> c & 1) for c in range(32)]
    return rank_seats(seats, (8, 8, 8, 8))


def completion(x: int, fixed) -> list[int]:
    """Deal from completion number ``x`` of the fixed cards (unseen cards in order)."""
    known = fixed[0] | fixed[1] | fixed[2] | fixed[3]
    unseen = [c for c in range(32) if not known >> c & 1]
    room = [8 - int(h).bit_count() for h in fixed]
    hands = [int(h) for h in fixed]
    for card, seat in zip(unseen, unrank_seats(x, room), strict=True):
        hands[seat] |= 1 << card
    return hands


def deal(seed: int, i: int, fixed=(0, 0, 0, 0), accept=None) -> tuple[list[int], int]:
    """Deal ``i`` of ``seed``: first candidate of its stream that ``accept(hands)``."""
    key = seed_key(seed)
    room = [8 - int(h).bit_count() for h in fixed]
    total = multinomial(room)
    k = 0
    while True:
        x, k = draw_below(key, i, k, total)
        hands = completion(x, fixed)
        if accept is None or accept(hands):
            return hands, x
