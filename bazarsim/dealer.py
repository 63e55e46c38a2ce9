"""Reproducible parallel dealing: deal ``i`` of seed ``s`` is a pure function of ``(s, i)``.

Generator (counter-based). Draw ``k`` of deal ``i`` is SplitMix64's output at position
``(i << 20) | k`` of the stream keyed by the seed: ``mix64(key + ctr * GAMMA)``, with
``key = mix64(mix64(seed + GAMMA))`` and ``mix64`` the SplitMix64 finaliser (Steele, Lea,
Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014). ``mix64`` is a
bijection, so distinct ``(i, k)`` read distinct stream positions; nothing depends on
which thread, chunk or process asks for deal ``i``.

Deal. A draw is mapped to a uniform integer ``x`` in ``[0, C)``, ``C`` the number of
deals (or of completions of the fixed cards), by Lemire's multiply-and-reject method
(exact: the rare draws that would bias the result are rejected and the next ``k`` is
used). With nothing fixed, ``x`` is a deal number, decoded by
:func:`bazarsim.dealnum.decode_deal` (a few table lookups, no long dependency chain):
the deal's number is ``x`` itself and uniformity over deals follows from uniformity of
``x``. With fixed cards, ``x`` numbers a completion: only the unseen cards are decoded
(card by card, into the seats' remaining room), so fixed cards cost nothing; that
decoder is a chain of dependent lookups, so ``LANES`` deals are decoded side by side
for the CPU to overlap them.

Predicates (:mod:`bazarsim.constraints`) are checked inside the kernel; a rejected deal
draws again from the same ``(s, i)`` stream (next ``k``), so deal ``i`` is the first
accepted candidate of its own stream: still a pure function of ``(s, i)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from .bitops import popcount32, suit_bits
from .constraints import (
    P_HOLDS,
    P_LACKS,
    P_LEN,
    P_POINTS,
    Constraints,
    no_constraints,
)
from .dealnum import (
    C16,
    COUNT,
    OFF,
    PDEP8,
    START16,
    SUB16,
    THRESH,
    deal_numbers,
    decode_deal,
    state_of,
    unrank_step,
)
from .errors import BazarsimError
from .evaluate import _hand
from .rulesets import Ruleset, get_ruleset
from .tables import rule_tables

GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
M32 = np.uint64(0xFFFFFFFF)
K_BITS = 20
MAX_TRIES = (1 << K_BITS) - 1  # candidates per deal before giving up (draws, not deals)
MAX_INDEX = 1 << (64 - K_BITS)
MIN_ACCEPTANCE = 1e-4  # below this, per-deal retries could run out: refuse, report the rate
LANES = 8
BLOCK = 2048


# --------------------------------------------------------------------------- generator


@nb.njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64 finaliser: a bijection of 64-bit words with full avalanche."""
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True)
def seed_key(seed):
    return mix64(mix64(np.uint64(seed) + GAMMA))


@nb.njit(cache=True, inline="always")
def stream_word(key, i, k):
    """Draw ``k`` of deal ``i``: SplitMix64 at stream position ``(i << 20) | k``."""
    ctr = (np.uint64(i) << np.uint64(K_BITS)) | np.uint64(k)
    return mix64(np.uint64(key) + ctr * GAMMA)


@nb.njit(cache=True, inline="always")
def mul_hi_lo(a, b):
    """The 128-bit product of two uint64 as (high word, low word)."""
    a = np.uint64(a)
    b = np.uint64(b)
    a_lo = a & M32
    a_hi = a >> np.uint64(32)
    b_lo = b & M32
    b_hi = b >> np.uint64(32)
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    mid = (p0 >> np.uint64(32)) + (p1 & M32) + (p2 & M32)
    hi = p3 + (p1 >> np.uint64(32)) + (p2 >> np.uint64(32)) + (mid >> np.uint64(32))
    return hi, a * b


@nb.njit(cache=True, inline="always")
def draw_below(key, i, k, total, reject_below):
    """Uniform integer in ``[0, total)`` from deal ``i``'s stream starting at draw ``k``.

    Lemire: ``x = hi(u * total)``, exact after rejecting ``lo < 2^64 mod total``.
    Returns ``(x, next k)``.
    """
    while True:
        u = stream_word(key, i, k)
        k += 1
        hi, lo = mul_hi_lo(u, total)
        if lo >= reject_below or k >= MAX_TRIES:
            return np.int64(hi), k


# --------------------------------------------------------------------------- predicates


@nb.njit(cache=True, inline="always")
def _hand_value(h, typ, arg, T):
    if typ == P_LEN:
        return popcount32(suit_bits(h, arg))
    r = _hand(h, arg, T)
    if typ == P_POINTS:
        return np.int64(r[0])
    return np.int64(r[6])  # P_DECL


@nb.njit(cache=True)
def accepts(h0, h1, h2, h3, preds, T):
    """True when the deal satisfies every predicate row ``(type, seat, arg, lo, hi)``.

    Seats 0..3 are N E S W; 4 is NS and 5 is EW (values summed over the two hands,
    cards held by either).
    """
    hs = (np.uint32(h0), np.uint32(h1), np.uint32(h2), np.uint32(h3))
    for j in range(preds.shape[0]):
        typ = preds[j, 0]
        seat = preds[j, 1]
        arg = preds[j, 2]
        if seat < 4:
            h = hs[seat]
        else:
            h = hs[seat - 4] | hs[seat - 2]
        if typ == P_HOLDS or typ == P_LACKS:
            m = np.uint32(arg)
            held = h & m
            if typ == P_HOLDS and held != m:
                return False
            if typ == P_LACKS and held != 0:
                return False
            continue
        if seat < 4:
            v = _hand_value(h, typ, arg, T)
        else:
            v = _hand_value(hs[seat - 4], typ, arg, T) + _hand_value(hs[seat - 2], typ, arg, T)
        if v < preds[j, 3] or v > preds[j, 4]:
            return False
    return True


# --------------------------------------------------------------------------- kernel


@nb.njit(cache=True, inline="always")
def compress_even(x):
    """Gather the 32 even bits of a 64-bit word into 32 bits (bit 2c -> bit c)."""
    x = np.uint64(x) & np.uint64(0x5555555555555555)
    x = (x | (x >> np.uint64(1))) & np.uint64(0x3333333333333333)
    x = (x | (x >> np.uint64(2))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    x = (x | (x >> np.uint64(4))) & np.uint64(0x00FF00FF00FF00FF)
    x = (x | (x >> np.uint64(8))) & np.uint64(0x0000FFFF0000FFFF)
    x = (x | (x >> np.uint64(16))) & np.uint64(0x00000000FFFFFFFF)
    return np.uint32(x)


@nb.njit(cache=True, inline="always")
def seat_string_hands(S, dealt, fixed):
    """Hands N E S W from a seat string (2 bits per card, bit pair 2c = seat of card c)."""
    lo = np.uint64(S)
    hi = lo >> np.uint64(1)
    d = np.uint32(dealt)
    h0 = (compress_even(~lo & ~hi) & d) | np.uint32(fixed[0])
    h1 = (compress_even(lo & ~hi) & d) | np.uint32(fixed[1])
    h2 = (compress_even(~lo & hi) & d) | np.uint32(fixed[2])
    h3 = (compress_even(lo & hi) & d) | np.uint32(fixed[3])
    return h0, h1, h2, h3


@nb.njit(parallel=True, cache=True)
def deal_free_kernel(key, start, total, reject_below, preds, T, sub16, start16, c16, off, pdep8,
                     out_hands, out_x, out_tries):
    """Deals ``start .. start + n - 1`` with no fixed cards: each draw is a deal number,
    decoded directly (:func:`bazarsim.dealnum.decode_deal`). Outputs as
    :func:`deal_fixed_kernel`."""
    npred = preds.shape[0]
    for i in nb.prange(out_hands.shape[0]):
        x, k = draw_below(key, start + i, 0, total, reject_below)
        h0, h1, h2, h3 = decode_deal(x, sub16, start16, c16, off, pdep8)
        ok = True
        if npred:  # kept out of the common path: the plain loop overlaps deals better
            ok = accepts(h0, h1, h2, h3, preds, T)
            while not ok and k < MAX_TRIES:
                x, k = draw_below(key, start + i, k, total, reject_below)
                h0, h1, h2, h3 = decode_deal(x, sub16, start16, c16, off, pdep8)
                ok = accepts(h0, h1, h2, h3, preds, T)
        out_hands[i, 0] = h0
        out_hands[i, 1] = h1
        out_hands[i, 2] = h2
        out_hands[i, 3] = h3
        out_x[i] = x
        out_tries[i] = k if ok else MAX_TRIES


@nb.njit(parallel=True, cache=True)
def deal_fixed_kernel(key, start, cards, state0, total, reject_below, fixed, preds, T, thresh,
                out_hands, out_x, out_tries):
    """Deals ``start .. start + n - 1`` around fixed cards into ``out_hands[n, 4]``.

    Each draw numbers a completion (the unseen cards' seats), decoded card by card;
    ``LANES`` deals are decoded side by side so their dependent chains overlap.
    ``out_x``: each deal's completion number;
    ``out_tries``: draws used (>= 1; ``MAX_TRIES`` means the deal failed its predicates).
    """
    n = out_hands.shape[0]
    nblocks = (n + BLOCK - 1) // BLOCK
    dealt = np.uint32(0)
    for c in cards:
        dealt |= np.uint32(1) << np.uint32(c)
    for blk in nb.prange(nblocks):
        a = blk * BLOCK
        b = min(n, a + BLOCK)
        xs = np.zeros(LANES, np.int64)
        x0 = np.zeros(LANES, np.int64)
        sts = np.zeros(LANES, np.int64)
        ks = np.zeros(LANES, np.int64)
        ss = np.zeros(LANES, np.uint64)
        pending = np.zeros(LANES, np.bool_)
        for g in range(a, b, LANES):
            cnt = min(LANES, b - g)
            for lane in range(LANES):
                ks[lane] = 0
                pending[lane] = lane < cnt
                x0[lane] = 0
            npend = cnt
            while npend > 0:
                for lane in range(cnt):
                    if pending[lane]:
                        x, k = draw_below(key, start + g + lane, ks[lane], total, reject_below)
                        x0[lane] = x
                        ks[lane] = k
                for lane in range(LANES):
                    xs[lane] = x0[lane]
                    sts[lane] = state0
                    ss[lane] = 0
                for c in cards:
                    shift = np.uint64(2 * c)
                    for lane in range(LANES):  # independent chains: the CPU overlaps them
                        seat, xn, sn = unrank_step(xs[lane], sts[lane], thresh)
                        xs[lane] = xn
                        sts[lane] = sn
                        ss[lane] |= np.uint64(seat) << shift
                for lane in range(cnt):
                    if not pending[lane]:
                        continue
                    h0, h1, h2, h3 = seat_string_hands(ss[lane], dealt, fixed)
                    ok = accepts(h0, h1, h2, h3, preds, T)
                    if ok or ks[lane] >= MAX_TRIES:
                        i = g + lane
                        out_hands[i, 0] = h0
                        out_hands[i, 1] = h1
                        out_hands[i, 2] = h2
                        out_hands[i, 3] = h3
                        out_x[i] = x0[lane]
                        out_tries[i] = ks[lane] if ok else MAX_TRIES
                        pending[lane] = False
                        npend -= 1


@nb.njit(parallel=True, cache=True)
def pilot_kernel(key, trials, cards, state0, total, reject_below, fixed, preds, T, thresh):
    """How many of ``trials`` single candidates meet the predicates (acceptance rate)."""
    hits = 0
    for i in nb.prange(trials):
        x, _k = draw_below(key, i, 0, total, reject_below)
        state = state0
        h0 = np.uint32(fixed[0])
        h1 = np.uint32(fixed[1])
        h2 = np.uint32(fixed[2])
        h3 = np.uint32(fixed[3])
        for c in cards:
            seat, x, state = unrank_step(x, state, thresh)
            bit = np.uint32(1) << np.uint32(c)
            h0 |= bit if seat == 0 else np.uint32(0)
            h1 |= bit if seat == 1 else np.uint32(0)
            h2 |= bit if seat == 2 else np.uint32(0)
            h3 |= bit if seat == 3 else np.uint32(0)
        if accepts(h0, h1, h2, h3, preds, T):
            hits += 1
    return hits


# --------------------------------------------------------------------------- API


def _check_seed(seed: int) -> int:
    seed = int(seed)
    if not 0 <= seed < 2**64:
        raise BazarsimError(f"seed {seed} out of range 0 .. 2^64 - 1", str(seed))
    return seed


@dataclass
class DealBatch:
    """Deals ``start .. start + len - 1`` of one seed: hands, numbers, draws used."""

    start: int
    hands: np.ndarray  # uint32[n, 4]
    numbers: np.ndarray  # int64[n]
    tries: np.ndarray  # int32[n]

    def __len__(self) -> int:
        return int(self.hands.shape[0])


class Dealer:
    """Deals of one seed under optional constraints; ``deal(start, n)`` is reproducible."""

    def __init__(self, seed: int = 0, constraints: Constraints | None = None,
                 ruleset: Ruleset | str | None = None):
        self.seed = _check_seed(seed)
        self.constraints = constraints or no_constraints()
        self.ruleset = get_ruleset(ruleset)
        self.constraints.check_kinds(self.ruleset)
        c = self.constraints
        self.key = np.uint64(seed_key(np.uint64(self.seed)))
        self.fixed = np.array(c.fixed, np.uint32)
        self.cards = np.array([b for b in range(32) if not (c.fixed_mask >> b) & 1], np.uint8)
        self.state0 = state_of([8 - int(h).bit_count() for h in c.fixed])
        self.total = int(COUNT[self.state0])
        self.reject_below = np.uint64((2**64) % self.total)
        self.preds = c.predicates
        self.tables = rule_tables(self.ruleset)

    @property
    def has_fixed(self) -> bool:
        return self.constraints.fixed_mask != 0

    def deal(self, start: int, n: int, check: bool = True) -> DealBatch:
        """Deals ``start .. start + n - 1`` (deal numbers included)."""
        start, n = int(start), int(n)
        if start < 0 or start + n > MAX_INDEX:
            raise BazarsimError(f"deal index range {start}..{start + n} outside 0 .. 2^44")
        hands = np.empty((n, 4), np.uint32)
        xs = np.empty(n, np.int64)
        tries = np.empty(n, np.int32)
        if self.has_fixed:
            deal_fixed_kernel(self.key, np.int64(start), self.cards, np.int64(self.state0),
                              np.uint64(self.total), self.reject_below, self.fixed, self.preds,
                              self.tables, THRESH, hands, xs, tries)
        else:
            deal_free_kernel(self.key, np.int64(start), np.uint64(self.total), self.reject_below,
                             self.preds, self.tables, SUB16, START16, C16, OFF, PDEP8, hands,
                             xs, tries)
        if check and n and tries.max() >= MAX_TRIES:
            bad = start + int(np.argmax(tries >= MAX_TRIES))
            raise BazarsimError(
                f"deal {bad}: no candidate out of {MAX_TRIES:,} met the constraints "
                f"({self.constraints.describe()})")
        numbers = deal_numbers(hands) if self.has_fixed else xs
        return DealBatch(start, hands, numbers, tries)

    def acceptance(self, trials: int = 1_000_000) -> tuple[float, int, int]:
        """Fraction of candidates meeting the predicates, on a pilot stream of ``trials``.

        Returns ``(rate, accepted, trials)``; 1.0 when there are no predicates.
        """
        if self.preds.shape[0] == 0:
            return 1.0, trials, trials
        key = np.uint64(seed_key(np.uint64(self.seed ^ 0x5A5A5A5A5A5A5A5A)))
        hits = pilot_kernel(key, np.int64(trials), self.cards, np.int64(self.state0),
                            np.uint64(self.total), self.reject_below, self.fixed, self.preds,
                            self.tables, THRESH)
        return hits / trials, int(hits), trials

    def check_feasible(self, trials: int = 1_000_000) -> float:
        """Acceptance rate, or a clear error when constraints are impossible or too rare."""
        rate, hits, n = self.acceptance(trials)
        if hits == 0:
            raise BazarsimError(
                f"no deal meets the constraints ({self.constraints.describe()}) "
                f"in a pilot of {n:,} candidates: impossible or rarer than 1 in {n:,}")
        if rate < MIN_ACCEPTANCE:
            raise BazarsimError(
                f"constraints too rare: acceptance rate {rate:.2e} "
                f"({self.constraints.describe()}) is below {MIN_ACCEPTANCE:.0e}; fix the "
                "cards you require with --fix instead of filtering for them, or loosen --where")
        return rate


def deal(seed: int, start: int = 0, n: int = 1, constraints: Constraints | None = None,
         ruleset: Ruleset | str | None = None) -> np.ndarray:
    """Hands ``uint32[n, 4]`` of deals ``start .. start + n - 1`` of ``seed``."""
    return Dealer(seed, constraints, ruleset).deal(start, n).hands


def numpy_deal(rng: np.random.Generator, n: int) -> np.ndarray:
    """Baseline dealer in plain NumPy (argsort of 32 random keys per deal), for benchmarks."""
    perm = np.argsort(rng.random((n, 32), dtype=np.float32), axis=1).astype(np.uint32)
    bits = np.left_shift(np.uint32(1), perm)
    return np.bitwise_or.reduce(bits.reshape(n, 4, 8), axis=2)
