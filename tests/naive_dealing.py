"""Slow, obvious references for the dealer and deal numbers (plain Python integers).

Written from the definitions in the module docstrings of ``bazarsim.dealer`` and
``bazarsim.dealnum``, with none of their tables or bit tricks: SplitMix64 with Python
big integers, Lemire's reduction with an exact 128-bit product, and the lexicographic
rank of a seat string by multinomial coefficients computed from factorials (completions),
and deal numbers from lists of subsets, bit by bit.
"""

from __future__ import annotations

from math import comb, factorial

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


HALF = 12870  # C(16, 8)
_BY_SIZE: dict[int, list[int]] = {}


def masks_of_size(k: int) -> list[int]:
    """16-bit masks with ``k`` bits, in increasing order."""
    if k not in _BY_SIZE:
        _BY_SIZE[k] = [m for m in range(1 << 16) if m.bit_count() == k]
    return _BY_SIZE[k]


def deposit(pattern: int, mask: int) -> int:
    """Bits of ``pattern`` (low first) placed on the set bits of ``mask``."""
    out, t = 0, 0
    for pos in range(32):
        if mask >> pos & 1:
            if pattern >> t & 1:
                out |= 1 << pos
            t += 1
    return out


def extract(x: int, mask: int) -> int:
    out, t = 0, 0
    for pos in range(32):
        if mask >> pos & 1:
            if x >> pos & 1:
                out |= 1 << t
            t += 1
    return out


def _off(k: int) -> int:
    return sum(comb(16, j) * comb(16, 16 - j) for j in range(k))


def deal_of_number(number: int) -> list[int]:
    """Full deal (N E S W masks) with this number (definition in bazarsim.dealnum)."""
    a, rest = divmod(number, HALF * HALF)
    b, c = divmod(rest, HALF)
    k = max(q for q in range(17) if _off(q) <= a)
    i, j = divmod(a - _off(k), comb(16, 16 - k))
    ns = masks_of_size(k)[i] | masks_of_size(16 - k)[j] << 16
    ew = 0xFFFFFFFF ^ ns
    north = deposit(masks_of_size(8)[b], ns)
    east = deposit(masks_of_size(8)[c], ew)
    return [north, east, ns ^ north, ew ^ east]


def number_of_deal(hands) -> int:
    n, e, s, w = (int(h) for h in hands)
    ns, ew = n | s, e | w
    low, high = ns & 0xFFFF, ns >> 16
    k = low.bit_count()
    a = _off(k) + masks_of_size(k).index(low) * comb(16, 16 - k) + masks_of_size(16 - k).index(
        high)
    b = masks_of_size(8).index(extract(n, ns))
    c = masks_of_size(8).index(extract(e, ew))
    return (a * HALF + b) * HALF + c


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
        hands = completion(x, fixed) if any(fixed) else deal_of_number(x)
        if accept is None or accept(hands):
            return hands, x
