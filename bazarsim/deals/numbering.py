"""Deal numbers: a bijection between deals and the integers 0 .. 32!/(8!^4) - 1.

32!/(8!^4) = 99,561,092,450,391,000 (about 9.96e16; the issue's "9.96e15" drops a
digit), below 2^57, so numbers fit ``int64``.

Deal number ``x = (a * 12870 + b) * 12870 + c`` (12870 = C(16, 8)):

* ``a`` in ``[0, C(32, 16))`` says which 16 cards North-South hold. With ``k`` of them
  among the low 16 cards (spades, hearts) and ``16 - k`` among the high 16 (diamonds,
  clubs), ``a = OFF[k] + i * C(16, 16 - k) + j``, where ``OFF[k]`` counts the choices with
  fewer low cards, ``i`` numbers the low half's pattern among the 16-bit masks with
  ``k`` bits and ``j`` the high half's among those with ``16 - k`` bits, masks of one
  size numbered in increasing order;
* ``b`` in ``[0, C(16, 8))``: which 8 of North-South's 16 cards (taken in card order)
  are North's (the rest are South's), numbered the same way;
* ``c``: which 8 of East-West's 16 cards are East's.

Decoding is a few table lookups (:data:`SUB16` lists the 16-bit masks by size, then
value) and bit deposits done a byte at a time through 256 x 256 tables, so it has no
long dependency chain: that is what lets the dealer reach tens of millions of deals
per second. Number 0 gives North the diamonds, South the clubs, East the spades and
West the hearts (North-South hold no low card: ``k = 0`` comes first).

The same scheme numbers the *completions* of a partly known deal (fixed cards): the
``m`` unseen cards, in card order, are positions ``0 .. m-1``; with ``r_s`` cards still
to go to seat ``s`` and ``p = r_N + r_S``, a completion is
``x = (a * C(p, r_N) + b) * C(m - p, r_E) + c``: ``a`` picks North-South's ``p``
positions (low half = the first ``min(m, 16)`` positions, as above), ``b`` North's among
them, ``c`` East's among East-West's. With nothing fixed this *is* the deal number.
"""

from __future__ import annotations

from math import comb, factorial

import numba as nb
import numpy as np

from bazarsim.core.bits import popcount32
from bazarsim.core.cards import HAND_SIZE
from bazarsim.core.errors import BazarsimError

N_DEALS = factorial(32) // factorial(8) ** 4  # 99,561,092,450,391,000
HALF = 12870  # C(16, 8)


def binom(n: int, k: int) -> int:
    return comb(n, k) if 0 <= k <= n else 0


# --------------------------------------------------------------------------- deal numbers


def _build_subset_tables():
    sizes = np.array([int(m).bit_count() for m in range(1 << 16)])
    sub16 = np.argsort(sizes * (1 << 16) + np.arange(1 << 16), kind="stable").astype(np.uint16)
    start16 = np.zeros(17, np.int64)
    c16 = np.array([comb(16, k) for k in range(17)], np.int64)
    start16[1:] = np.cumsum(c16)[:-1]
    rank16 = np.empty(1 << 16, np.int32)
    rank16[sub16.astype(np.int64)] = np.arange(1 << 16) - start16[sizes[sub16.astype(np.int64)]]
    off = np.zeros(18, np.int64)
    off[1:] = np.cumsum([c16[k] * c16[16 - k] for k in range(17)])
    pdep8 = np.zeros((256, 256), np.uint8)
    pext8 = np.zeros((256, 256), np.uint8)
    for m in range(256):
        pos = [b for b in range(8) if m >> b & 1]
        for v in range(256):
            pdep8[m, v] = sum(1 << p for t, p in enumerate(pos) if v >> t & 1)
            pext8[m, v] = sum(1 << t for t, p in enumerate(pos) if v >> p & 1)
    for arr in (sub16, start16, c16, rank16, off, pdep8, pext8):
        arr.setflags(write=False)
    return sub16, start16, c16, rank16, off, pdep8, pext8


SUB16, START16, C16, RANK16, OFF, PDEP8, PEXT8 = _build_subset_tables()
assert OFF[17] == comb(32, 16) and OFF[17] * HALF * HALF == N_DEALS


@nb.njit(cache=True, inline="always")
def _deposit16(p, m, pdep8):
    """Bits of ``p`` (low first) placed on the set bits of the 16-bit mask ``m``."""
    m = np.int64(m)
    p = np.int64(p)
    lo = m & 255
    k = popcount32(np.uint32(lo))
    return np.int64(pdep8[lo, p & 255]) | (np.int64(pdep8[m >> 8, (p >> k) & 255]) << 8)


@nb.njit(cache=True, inline="always")
def _extract16(x, m, pext8):
    """The bits of ``x`` at the set bits of the 16-bit mask ``m``, packed low."""
    m = np.int64(m)
    x = np.int64(x)
    lo = m & 255
    k = popcount32(np.uint32(lo))
    return np.int64(pext8[lo, x & 255]) | (np.int64(pext8[m >> 8, (x >> 8) & 255]) << k)


@nb.njit(cache=True, inline="always")
def decode_deal(x, sub16, start16, c16, off, pdep8):
    """Deal number -> hands ``(N, E, S, W)`` as uint32 masks."""
    x = np.int64(x)
    c = x % HALF
    t = x // HALF
    b = t % HALF
    a = t // HALF
    k = np.int64(0)
    for q in range(1, 17):
        k += np.int64(a >= off[q])
    r = np.uint32(a - off[k])
    d = np.uint32(c16[16 - k])
    i = np.int64(r // d)
    j = np.int64(r - np.uint32(i) * d)
    low = np.int64(sub16[start16[k] + i])
    high = np.int64(sub16[start16[16 - k] + j])
    pn = np.int64(sub16[start16[8] + b])
    pe = np.int64(sub16[start16[8] + c])
    ewlow = low ^ 0xFFFF
    ewhigh = high ^ 0xFFFF
    kk = 16 - k
    n_ = _deposit16(pn & ((1 << k) - 1), low, pdep8) | (_deposit16(pn >> k, high, pdep8) << 16)
    e_ = _deposit16(pe & ((1 << kk) - 1), ewlow, pdep8) | (
        _deposit16(pe >> kk, ewhigh, pdep8) << 16)
    ns = low | (high << 16)
    ew = ewlow | (ewhigh << 16)
    return np.uint32(n_), np.uint32(e_), np.uint32(ns ^ n_), np.uint32(ew ^ e_)


@nb.njit(cache=True, inline="always")
def encode_deal(h0, h1, h2, h3, rank16, c16, off, pext8):
    """Hands ``(N, E, S, W)`` -> deal number."""
    ns = np.int64(np.uint32(h0) | np.uint32(h2))
    low = ns & 0xFFFF
    high = ns >> 16
    k = popcount32(np.uint32(low))
    a = off[k] + np.int64(rank16[low]) * c16[16 - k] + np.int64(rank16[high])
    n_ = np.int64(np.uint32(h0))
    pn = _extract16(n_ & 0xFFFF, low, pext8) | (_extract16(n_ >> 16, high, pext8) << k)
    ew = np.int64(np.uint32(h1) | np.uint32(h3))
    e_ = np.int64(np.uint32(h1))
    pe = _extract16(e_ & 0xFFFF, ew & 0xFFFF, pext8) | (
        _extract16(e_ >> 16, ew >> 16, pext8) << (16 - k))
    return (a * HALF + np.int64(rank16[pn])) * HALF + np.int64(rank16[pe])


@nb.njit(parallel=True, cache=True)
def decode_kernel(numbers, sub16, start16, c16, off, pdep8, out):
    for i in nb.prange(numbers.shape[0]):
        h0, h1, h2, h3 = decode_deal(numbers[i], sub16, start16, c16, off, pdep8)
        out[i, 0] = h0
        out[i, 1] = h1
        out[i, 2] = h2
        out[i, 3] = h3


@nb.njit(parallel=True, cache=True)
def encode_kernel(deals, rank16, c16, off, pext8, out):
    for i in nb.prange(deals.shape[0]):
        out[i] = encode_deal(deals[i, 0], deals[i, 1], deals[i, 2], deals[i, 3], rank16, c16,
                             off, pext8)


@nb.njit(cache=True, inline="always")
def _deposit32(p, m, pdep8):
    """Bits of ``p`` (low first) placed on the set bits of the 32-bit mask ``m``."""
    m = np.int64(m)
    p = np.int64(p)
    out = np.int64(0)
    for byte in range(4):
        mb = (m >> (8 * byte)) & 255
        out |= np.int64(pdep8[mb, p & 255]) << (8 * byte)
        p >>= popcount32(np.uint32(mb))
    return out


# Completion parameters (int64[8 + 18 + 17]): see completion_params.
CP_UNSEEN, CP_M1, CP_P, CP_RN, CP_RE, CP_CN, CP_CE, CP_M2 = range(8)
CP_OFF = 8  # 18 entries: OFF[j] = completions' a-values with fewer than j low positions
CP_C2 = 26  # 17 entries: C(m2, p - j)


def completion_params(fixed) -> np.ndarray:
    """Parameters of the completion decoder for fixed cards ``fixed[4]`` (N E S W)."""
    known = 0
    for h in fixed:
        known |= int(h)
    unseen = 0xFFFFFFFF & ~known
    room = [8 - int(h).bit_count() for h in fixed]
    m = unseen.bit_count()
    m1 = min(m, 16)
    m2 = m - m1
    p = room[0] + room[2]
    out = np.zeros(CP_C2 + 17, np.int64)
    out[CP_UNSEEN] = unseen
    out[CP_M1], out[CP_M2], out[CP_P], out[CP_RN], out[CP_RE] = m1, m2, p, room[0], room[1]
    out[CP_CN] = binom(p, room[0])
    out[CP_CE] = binom(m - p, room[1])
    acc = 0
    for j in range(17):
        out[CP_OFF + j] = acc
        acc += binom(m1, j) * binom(m2, p - j)
        out[CP_C2 + j] = binom(m2, p - j)
    out[CP_OFF + 17] = acc
    return out


def completion_count(params: np.ndarray) -> int:
    return int(params[CP_OFF + 17]) * int(params[CP_CN]) * int(params[CP_CE])


def completion_parts(params: np.ndarray) -> tuple[int, int, int]:
    """Sizes of the three parts ``a, b, c`` of a completion number."""
    return int(params[CP_OFF + 17]), int(params[CP_CN]), int(params[CP_CE])


@nb.njit(cache=True, inline="always")
def decode_completion_parts(a, b, c, cp, sub16, start16, pdep8):
    """Completion ``(a, b, c)`` -> the dealt part of each hand ``(N, E, S, W)`` (fixed
    cards not included): the :func:`decode_deal` scheme over the unseen cards."""
    a = np.int64(a)
    k = np.int64(0)
    for q in range(1, 17):
        k += np.int64(a >= cp[CP_OFF + q])
    d = np.uint32(cp[CP_C2 + k])
    r = np.uint32(a - cp[CP_OFF + k])  # < C(32, 16) < 2^30: a 32-bit division suffices
    i = np.int64(r // d)
    j = np.int64(r - np.uint32(i) * d)
    p = cp[CP_P]
    low = np.int64(sub16[start16[k] + i])
    high = np.int64(sub16[start16[p - k] + j])
    unseen = cp[CP_UNSEEN]
    ns = _deposit32(low | (high << cp[CP_M1]), unseen, pdep8)
    ew = unseen ^ ns
    n_ = _deposit32(np.int64(sub16[start16[cp[CP_RN]] + b]), ns, pdep8)
    e_ = _deposit32(np.int64(sub16[start16[cp[CP_RE]] + c]), ew, pdep8)
    return np.uint32(n_), np.uint32(e_), np.uint32(ns ^ n_), np.uint32(ew ^ e_)


@nb.njit(cache=True, inline="always")
def decode_completion(x, cp, sub16, start16, pdep8):
    """Completion number ``x = (a * C(p, rN) + b) * C(m - p, rE) + c`` -> dealt parts."""
    x = np.int64(x)
    ce = cp[CP_CE]
    cn = cp[CP_CN]
    t = x // ce
    return decode_completion_parts(t // cn, t % cn, x % ce, cp, sub16, start16, pdep8)


@nb.njit(parallel=True, cache=True)
def decode_completion_kernel(numbers, cp, sub16, start16, pdep8, out):
    for i in nb.prange(numbers.shape[0]):
        h0, h1, h2, h3 = decode_completion(numbers[i], cp, sub16, start16, pdep8)
        out[i, 0] = h0
        out[i, 1] = h1
        out[i, 2] = h2
        out[i, 3] = h3


# --------------------------------------------------------------------------- API

def deal_numbers(deals) -> np.ndarray:
    """Numbers (``int64``) of full deals ``uint32[n, 4]`` in seat order N E S W."""
    deals = np.ascontiguousarray(deals, dtype=np.uint32).reshape(-1, 4)
    out = np.empty(deals.shape[0], np.int64)
    encode_kernel(deals, RANK16, C16, OFF, PEXT8, out)
    return out


def deals_from_numbers(numbers) -> np.ndarray:
    """Full deals ``uint32[n, 4]`` for deal numbers (each in ``0 .. N_DEALS - 1``)."""
    nums = np.atleast_1d(np.asarray(numbers, dtype=np.int64))
    if nums.size and (nums.min() < 0 or nums.max() >= N_DEALS):
        bad = nums[(nums < 0) | (nums >= N_DEALS)][0]
        raise BazarsimError(f"deal number {bad} out of range 0 .. {N_DEALS - 1}", str(bad))
    out = np.empty((nums.shape[0], 4), np.uint32)
    decode_kernel(nums, SUB16, START16, C16, OFF, PDEP8, out)
    return out


def deal_number(deal) -> int:
    """Number of one full deal (``uint32[4]`` N E S W)."""
    d = np.asarray(deal, dtype=np.uint32).reshape(1, 4)
    if int(np.bitwise_or.reduce(d[0])) != 0xFFFFFFFF or any(
        int(h).bit_count() != HAND_SIZE for h in d[0]
    ):
        raise BazarsimError("a deal number needs a full deal: 8 cards in each hand")
    return int(deal_numbers(d)[0])


def deal_from_number(number: int) -> np.ndarray:
    """The deal ``uint32[4]`` with this number."""
    number = int(number)
    if not 0 <= number < N_DEALS:
        raise BazarsimError(f"deal number {number} out of range 0 .. {N_DEALS - 1}", str(number))
    return deals_from_numbers(np.array([number], np.int64))[0]
