"""Deal numbers: a bijection between deals and the integers 0 .. 32!/(8!^4) - 1.

32!/(8!^4) = 99,561,092,450,391,000 (about 9.96e16; the issue's "9.96e15" drops a
digit), below 2^57, so numbers fit ``int64``.

A deal is read as the string of seats holding cards 0, 1, ..., 31 (card order of
:mod:`bazarsim.cards`: suits S H D C, ranks 7 8 9 T J Q K A); its number is the rank of
that string in lexicographic order (seats N < E < S < W) among all strings with eight
of each seat. Number 0 gives North all spades, East all hearts, South all diamonds, West
all clubs; the last number gives West all spades, and so on.

The same code numbers *completions* of a partly known deal: the unseen cards, in card
order, with each seat's remaining capacity; the constrained dealer uses that.

Kernels walk the cards once with a table ``THRESH[state, s]`` = the number of
completions in which the current card goes to a seat below or equal to ``s``. A state
is the vector of remaining capacities ``(rN, rE, rS, rW)``, encoded as
``rN*729 + rE*81 + rS*9 + rW`` (each 0..8), so 6,561 states.
"""

from __future__ import annotations

from math import factorial

import numba as nb
import numpy as np

from .cards import HAND_SIZE
from .errors import BazarsimError

STATE_STRIDE = np.array([729, 81, 9, 1], dtype=np.int64)
N_STATES = 9**4
FULL_STATE = 8 * (729 + 81 + 9 + 1)
N_DEALS = factorial(32) // factorial(8) ** 4  # 9,956,461,674,940,800 (about 9.96e15)


def state_of(capacities) -> int:
    """State code of remaining capacities ``(rN, rE, rS, rW)``, each 0..8."""
    return int(sum(int(c) * int(s) for c, s in zip(capacities, STATE_STRIDE, strict=True)))


def multinomial(counts) -> int:
    """Number of ways to deal ``sum(counts)`` distinct cards into piles of ``counts``."""
    out = factorial(sum(counts))
    for c in counts:
        out //= factorial(c)
    return out


def _build_tables() -> tuple[np.ndarray, np.ndarray]:
    count = np.zeros(N_STATES, np.int64)
    thresh = np.zeros((N_STATES, 4), np.int64)
    for code in range(N_STATES):
        r = [(code // int(s)) % 9 for s in STATE_STRIDE]
        count[code] = multinomial(r)
        acc = 0
        for s in range(4):
            if r[s] > 0:
                r[s] -= 1
                acc += multinomial(r)
                r[s] += 1
            thresh[code, s] = acc
    count.setflags(write=False)
    thresh.setflags(write=False)
    return count, thresh


COUNT, THRESH = _build_tables()


# --------------------------------------------------------------------------- kernels


@nb.njit(cache=True, inline="always")
def unrank_step(x, state, thresh):
    """Seat of the next card for completion number ``x`` in ``state``.

    Returns ``(seat, x', state')``. Branch-free: three compares against the state's
    cumulative counts (a seat with no room has an empty interval, so the compares are
    monotone and ``seat`` is their sum).
    """
    t0 = thresh[state, 0]
    t1 = thresh[state, 1]
    t2 = thresh[state, 2]
    b0 = np.int64(x >= t0)
    b1 = np.int64(x >= t1)
    b2 = np.int64(x >= t2)
    seat = b0 + b1 + b2
    sub = b0 * t0 + b1 * (t1 - t0) + b2 * (t2 - t1)
    stride = np.int64(729) - b0 * 648 - b1 * 72 - b2 * 8  # 729 81 9 1
    return seat, x - sub, state - stride


@nb.njit(cache=True)
def unrank_kernel(numbers, cards, state0, fixed, thresh, out):
    """Deals ``out[n, 4]`` for completion numbers; ``cards`` are the unseen cards in
    order, ``state0`` the seats' capacities, ``fixed[4]`` the known cards per seat."""
    for i in range(numbers.shape[0]):
        x = np.int64(numbers[i])
        state = np.int64(state0)
        h0 = np.uint32(fixed[0])
        h1 = np.uint32(fixed[1])
        h2 = np.uint32(fixed[2])
        h3 = np.uint32(fixed[3])
        for c in cards:
            seat, x, state = unrank_step(x, state, thresh)
            bit = np.uint32(1) << np.uint32(c)
            if seat == 0:
                h0 |= bit
            elif seat == 1:
                h1 |= bit
            elif seat == 2:
                h2 |= bit
            else:
                h3 |= bit
        out[i, 0] = h0
        out[i, 1] = h1
        out[i, 2] = h2
        out[i, 3] = h3


@nb.njit(cache=True, inline="always")
def rank_one(h0, h1, h2, h3, cards, state0, thresh):
    """Completion number of one deal (its unseen ``cards`` in order)."""
    x = np.int64(0)
    state = np.int64(state0)
    for c in cards:
        b = np.uint32(c)
        s1 = np.int64((np.uint32(h1) >> b) & np.uint32(1))
        s2 = np.int64((np.uint32(h2) >> b) & np.uint32(1))
        s3 = np.int64((np.uint32(h3) >> b) & np.uint32(1))
        seat = s1 + 2 * s2 + 3 * s3
        if seat > 0:
            x += thresh[state, seat - 1]
        state -= 729 if seat == 0 else (81 if seat == 1 else (9 if seat == 2 else 1))
    return x


@nb.njit(parallel=True, cache=True)
def rank_kernel(deals, cards, state0, thresh, out):
    """Completion numbers of ``deals[n, 4]`` (parallel over deals)."""
    for i in nb.prange(deals.shape[0]):
        out[i] = rank_one(deals[i, 0], deals[i, 1], deals[i, 2], deals[i, 3], cards, state0,
                          thresh)


# --------------------------------------------------------------------------- API

ALL_CARDS = np.arange(32, dtype=np.uint8)


def deal_numbers(deals) -> np.ndarray:
    """Numbers (``int64``) of full deals ``uint32[n, 4]`` in seat order N E S W."""
    deals = np.ascontiguousarray(deals, dtype=np.uint32).reshape(-1, 4)
    out = np.empty(deals.shape[0], np.int64)
    rank_kernel(deals, ALL_CARDS, FULL_STATE, THRESH, out)
    return out


def deals_from_numbers(numbers) -> np.ndarray:
    """Full deals ``uint32[n, 4]`` for deal numbers (each in ``0 .. N_DEALS - 1``)."""
    nums = np.atleast_1d(np.asarray(numbers, dtype=np.int64))
    if nums.size and (nums.min() < 0 or nums.max() >= N_DEALS):
        bad = nums[(nums < 0) | (nums >= N_DEALS)][0]
        raise BazarsimError(f"deal number {bad} out of range 0 .. {N_DEALS - 1}", str(bad))
    out = np.empty((nums.shape[0], 4), np.uint32)
    unrank_kernel(nums, ALL_CARDS, FULL_STATE, np.zeros(4, np.uint32), THRESH, out)
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
