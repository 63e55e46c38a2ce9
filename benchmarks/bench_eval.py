"""Hand evaluation throughput: Numba kernels (1 and all threads) vs a vectorized NumPy
implementation of the same evaluation (card points + declaration total, one contract)."""

from __future__ import annotations

import numba
import numpy as np

from bazarsim.evaluate.hands import (
    HAND_FIELDS,
    evaluate_hands_kernel,
    points_and_declarations_kernel,
)
from bazarsim.rules.compiled import F_FOUR8_CANCEL, compiled_rules
from bazarsim.rules.rulesets import get_ruleset

from .common import median_of, median_time, numba_threads, row, thread_counts

GROUP = "hand evaluation"


def numpy_points_and_declarations(hands: np.ndarray, kind: int, t) -> tuple[np.ndarray, np.ndarray]:
    """The same evaluation with NumPy array operations and the same lookup tables."""
    suits = [((hands >> np.uint32(8 * s)) & np.uint32(0xFF)).astype(np.intp) for s in range(4)]
    points = t.suit_points[kind, 0][suits[0]].astype(np.int16)
    decl = t.seq_value[suits[0]].astype(np.int16)
    for s in range(1, 4):
        points += t.suit_points[kind, s][suits[s]]
        decl += t.seq_value[suits[s]]
    common = suits[0] & suits[1] & suits[2] & suits[3]
    decl += t.four_value[1 if kind == 4 else 0][common]
    if t.flags[F_FOUR8_CANCEL]:
        decl[(common >> 1) & 1 == 1] = 0
    return points, decl


def random_hands(n: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    block = 1_000_000
    perm = np.argsort(rng.random((block, 32)), axis=1)[:, :8].astype(np.uint32)
    base = np.bitwise_or.reduce(np.left_shift(np.uint32(1), perm), axis=1)
    return np.resize(base, n)  # tiles the block: every hand is a valid 8-card hand


def collect(quick: bool) -> list[dict]:
    n = 4_000_000 if quick else 20_000_000
    repeats = 3 if quick else 7
    kind = 1  # hearts
    t = compiled_rules(get_ruleset("bazar"))
    hands = random_hands(n)
    pts = np.empty(n, np.int16)
    decl = np.empty(n, np.int16)
    full = [np.empty(n, dt) for _, dt in HAND_FIELDS]

    # Same answers before timing anything.
    ref_pts, ref_decl = numpy_points_and_declarations(hands[:200_000], kind, t)
    points_and_declarations_kernel(hands[:200_000], kind, t, pts[:200_000], decl[:200_000])
    assert np.array_equal(ref_pts, pts[:200_000]) and np.array_equal(ref_decl, decl[:200_000])

    rows = []
    rates = {}
    all_threads = numba.config.NUMBA_NUM_THREADS
    for threads in thread_counts({1, all_threads}):
        with numba_threads(threads):
            sec = median_time(lambda: points_and_declarations_kernel(hands, kind, t, pts, decl),
                              repeats)
            rates[("lean", threads)] = n / sec
            rows.append(row(GROUP, f"Numba points + declarations, {threads} thread(s)", n / sec,
                            "hands/s", f"{n:,} hands, {median_of(repeats)}"))
            sec = median_time(lambda: evaluate_hands_kernel(hands, kind, t, *full), repeats)
            rates[("full", threads)] = n / sec
            rows.append(row(GROUP, f"Numba all features (9 columns), {threads} thread(s)",
                            n / sec, "hands/s",
                            "points, trumps, J/9, aces, bela, decl, best, flags; "
                            f"{median_of(repeats)}"))
    np_repeats = max(2, repeats // 2)
    sec = median_time(lambda: numpy_points_and_declarations(hands, kind, t), np_repeats)
    numpy_rate = n / sec
    rows.append(row(GROUP, "NumPy points + declarations (vectorized)", numpy_rate, "hands/s",
                    f"same tables, array operations, 1 thread; {median_of(np_repeats)}"))
    for threads in thread_counts({1, all_threads}):
        rows.append(row(GROUP, f"ratio Numba/NumPy, points + declarations, {threads} thread(s)",
                        rates[("lean", threads)] / numpy_rate, "x",
                        "from the rows above (ratio of the two medians, timed one after the "
                        "other, not paired)"))
    return rows
