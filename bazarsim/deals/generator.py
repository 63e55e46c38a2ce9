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
:func:`bazarsim.deals.numbering.decode_deal` (a few table lookups, no long dependency chain):
the deal's number is ``x`` itself and uniformity over deals follows from uniformity of
``x``. With fixed cards, three draws give the three independent parts of a completion
number (:func:`bazarsim.deals.numbering.decode_completion_parts`, the same scheme over the
unseen cards): only the unseen cards are placed, so fixed cards cost nothing.

Predicates (:mod:`bazarsim.deals.constraints`) are checked inside the kernel; a rejected deal
draws again from the same ``(s, i)`` stream (next ``k``), so deal ``i`` is the first
accepted candidate of its own stream: still a pure function of ``(s, i)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from bazarsim.core.bits import popcount32, suit_bits
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.constraints import (
    P_HOLDS,
    P_LACKS,
    P_LEN,
    P_POINTS,
    Constraints,
    no_constraints,
)
from bazarsim.deals.numbering import (
    C16,
    OFF,
    PDEP8,
    START16,
    SUB16,
    completion_count,
    completion_params,
    completion_parts,
    deal_numbers,
    decode_completion_parts,
    decode_deal,
)
from bazarsim.evaluate.hands import hand_values
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.rulesets import Ruleset, get_ruleset

DEFAULT_SEED = 7  # the seed of every command and API call that is given none


def seed_number(value) -> int:
    """The one seed rule of every command and of the web app: an integer 0 .. 2^64-1 (what
    the dealer's and the samplers' 64-bit generators take)."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        try:
            number = int(str(value).strip().replace("_", ""), 10)
        except ValueError:
            raise BazarsimError(f"{value!r} is not a seed: use an integer 0 .. 2^64-1") from None
    if not 0 <= number < 2**64:
        raise BazarsimError(f"{number} is not a seed: use an integer 0 .. 2^64-1")
    return number

GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
M32 = np.uint64(0xFFFFFFFF)
K_BITS = 20
MAX_TRIES = (1 << K_BITS) - 1  # candidates per deal before giving up (draws, not deals)
MAX_INDEX = 1 << (64 - K_BITS)
MIN_ACCEPTANCE = 1e-4  # below this, per-deal retries could run out: refuse, report the rate


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
    r = hand_values(h, arg, T)
    if typ == P_POINTS:
        return np.int64(r.points)
    return np.int64(r.decl)  # P_DECL


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


@nb.njit(parallel=True, cache=True)
def deal_free_kernel(key, start, total, reject_below, preds, T, sub16, start16, c16, off, pdep8,
                     out_hands, out_x, out_tries):
    """Deals ``start .. start + n - 1`` with no fixed cards: each draw is a deal number,
    decoded directly (:func:`bazarsim.deals.numbering.decode_deal`). Outputs as
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


@nb.njit(cache=True, inline="always")
def draw_completion(key, i, k, sizes, rejects):
    """A uniform completion ``(a, b, c)`` from three draws (no 64-bit division needed)."""
    a, k = draw_below(key, i, k, sizes[0], rejects[0])
    b, k = draw_below(key, i, k, sizes[1], rejects[1])
    c, k = draw_below(key, i, k, sizes[2], rejects[2])
    return a, b, c, k


@nb.njit(parallel=True, cache=True)
def deal_fixed_kernel(key, start, sizes, rejects, cp, fixed, preds, T, sub16, start16, pdep8,
                      out_hands, out_x, out_tries):
    """Deals ``start .. start + n - 1`` around fixed cards: the draws give a completion
    ``(a, b, c)`` (:func:`bazarsim.deals.numbering.decode_completion_parts`), uniform because its
    parts are independent and uniform; only the unseen cards are placed. ``out_x`` is the
    completion number ``(a * sizes[1] + b) * sizes[2] + c``."""
    npred = preds.shape[0]
    f0 = np.uint32(fixed[0])
    f1 = np.uint32(fixed[1])
    f2 = np.uint32(fixed[2])
    f3 = np.uint32(fixed[3])
    for i in nb.prange(out_hands.shape[0]):
        a, b, c, k = draw_completion(key, start + i, 0, sizes, rejects)
        h0, h1, h2, h3 = decode_completion_parts(a, b, c, cp, sub16, start16, pdep8)
        ok = True
        if npred:
            ok = accepts(h0 | f0, h1 | f1, h2 | f2, h3 | f3, preds, T)
            while not ok and k < MAX_TRIES:
                a, b, c, k = draw_completion(key, start + i, k, sizes, rejects)
                h0, h1, h2, h3 = decode_completion_parts(a, b, c, cp, sub16, start16, pdep8)
                ok = accepts(h0 | f0, h1 | f1, h2 | f2, h3 | f3, preds, T)
        out_hands[i, 0] = h0 | f0
        out_hands[i, 1] = h1 | f1
        out_hands[i, 2] = h2 | f2
        out_hands[i, 3] = h3 | f3
        out_x[i] = (a * np.int64(sizes[1]) + b) * np.int64(sizes[2]) + c
        out_tries[i] = k if ok else MAX_TRIES


@nb.njit(parallel=True, cache=True)
def pilot_kernel(key, trials, sizes, rejects, cp, fixed, preds, T, sub16, start16, pdep8):
    """How many of ``trials`` single candidates meet the predicates (acceptance rate)."""
    hits = 0
    for i in nb.prange(trials):
        a, b, c, _k = draw_completion(key, i, 0, sizes, rejects)
        h0, h1, h2, h3 = decode_completion_parts(a, b, c, cp, sub16, start16, pdep8)
        if accepts(h0 | np.uint32(fixed[0]), h1 | np.uint32(fixed[1]),
                   h2 | np.uint32(fixed[2]), h3 | np.uint32(fixed[3]), preds, T):
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


class DealGenerator:
    """Deals of one seed under optional constraints; ``deal(start, n)`` is reproducible."""

    def __init__(self, seed: int = DEFAULT_SEED, constraints: Constraints | None = None,
                 ruleset: Ruleset | str | None = None):
        self.seed = _check_seed(seed)
        self.constraints = constraints or no_constraints()
        self.ruleset = get_ruleset(ruleset)
        self.constraints.check_kinds(self.ruleset)
        c = self.constraints
        self.key = np.uint64(seed_key(np.uint64(self.seed)))
        self.fixed = np.array(c.fixed, np.uint32)
        self.cp = completion_params(c.fixed)
        self.total = completion_count(self.cp)
        parts = completion_parts(self.cp)
        self.sizes = np.array(parts, np.uint64)
        self.rejects = np.array([(2**64) % n for n in parts], np.uint64)
        self.reject_below = np.uint64((2**64) % self.total)
        self.preds = c.predicates
        self.compiled = compiled_rules(self.ruleset)

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
            deal_fixed_kernel(self.key, np.int64(start), self.sizes, self.rejects, self.cp,
                              self.fixed, self.preds, self.compiled, SUB16, START16, PDEP8,
                              hands, xs, tries)
        else:
            deal_free_kernel(self.key, np.int64(start), np.uint64(self.total), self.reject_below,
                             self.preds, self.compiled, SUB16, START16, C16, OFF, PDEP8, hands,
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
        hits = pilot_kernel(key, np.int64(trials), self.sizes, self.rejects, self.cp,
                            self.fixed, self.preds, self.compiled, SUB16, START16, PDEP8)
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
    return DealGenerator(seed, constraints, ruleset).deal(start, n).hands


def numpy_deal(rng: np.random.Generator, n: int) -> np.ndarray:
    """Baseline dealer in plain NumPy (argsort of 32 random keys per deal), for benchmarks."""
    perm = np.argsort(rng.random((n, 32), dtype=np.float32), axis=1).astype(np.uint32)
    bits = np.left_shift(np.uint32(1), perm)
    return np.bitwise_or.reduce(bits.reshape(n, 4, 8), axis=2)
