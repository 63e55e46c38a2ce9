"""Slow, obvious references for the dealer and deal numbers (plain Python integers).

Written from the definitions in the module docstrings of ``bazarsim.deals.generator`` and
``bazarsim.deals.numbering``, with none of their tables or bit tricks: SplitMix64 with Python
big integers, Lemire's reduction with an exact 128-bit product, and deal and completion numbers
from explicit lists of subsets, deposited bit by bit.
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
    """Full deal (N E S W masks) with this number (definition in bazarsim.deals.numbering)."""
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
    """Deal from completion number ``x`` of the fixed cards (definition in dealnum)."""
    known = fixed[0] | fixed[1] | fixed[2] | fixed[3]
    unseen = [c for c in range(32) if not known >> c & 1]
    room = [8 - int(h).bit_count() for h in fixed]
    m, p = len(unseen), room[0] + room[2]
    m1 = min(m, 16)
    m2 = m - m1
    cn, ce = comb(p, room[0]), comb(m - p, room[1])
    a, rest = divmod(x, cn * ce)
    b, c = divmod(rest, ce)

    def size(j):  # a-values with j of NS's positions among the low m1
        return comb(m1, j) * comb(m2, p - j) if 0 <= p - j <= m2 and j <= m1 else 0

    j = 0
    while a >= size(j):
        a -= size(j)
        j += 1
    i, l_ = divmod(a, comb(m2, p - j))
    ns_pos = masks_of_size(j)[i] | masks_of_size(p - j)[l_] << m1
    unseen_mask = sum(1 << u for u in unseen)
    ns = deposit(ns_pos, unseen_mask)
    ew = unseen_mask ^ ns
    north = deposit(masks_of_size(room[0])[b], ns)
    east = deposit(masks_of_size(room[1])[c], ew)
    dealt = [north, east, ns ^ north, ew ^ east]
    return [int(fixed[s]) | dealt[s] for s in range(4)]


def deal(seed: int, i: int, fixed=(0, 0, 0, 0), accept=None) -> tuple[list[int], int]:
    """Deal ``i`` of ``seed``: first candidate of its stream that ``accept(hands)``."""
    key = seed_key(seed)
    room = [8 - int(h).bit_count() for h in fixed]
    m = 32 - sum(int(h).bit_count() for h in fixed)
    p = room[0] + room[2]
    sizes = (multinomial(room) // (comb(p, room[0]) * comb(m - p, room[1])),
             comb(p, room[0]), comb(m - p, room[1]))
    k = 0
    while True:
        if any(fixed):  # three draws: the parts a, b, c of the completion number
            a, k = draw_below(key, i, k, sizes[0])
            b, k = draw_below(key, i, k, sizes[1])
            c, k = draw_below(key, i, k, sizes[2])
            x = (a * sizes[1] + b) * sizes[2] + c
            hands = completion(x, fixed)
        else:
            x, k = draw_below(key, i, k, multinomial(room))
            hands = deal_of_number(x)
        if accept is None or accept(hands):
            return hands, x
