"""Numba bit helpers against plain Python."""

from __future__ import annotations

import os
import subprocess
import sys

import numba as nb
import numpy as np

from bazarsim.core.bits import (
    highest_bit,
    lowest_bit,
    pext,
    pext_loop,
    popcount32,
    suit_bits,
)


@nb.njit(cache=True)
def _popcounts(xs):
    out = np.empty(xs.size, np.int64)
    for i in range(xs.size):
        out[i] = popcount32(xs[i])
    return out


@nb.njit(cache=True)
def _scans(xs):
    out = np.empty((xs.size, 2), np.int64)
    for i in range(xs.size):
        out[i, 0] = lowest_bit(xs[i])
        out[i, 1] = highest_bit(xs[i])
    return out


@nb.njit(cache=True)
def _suit_bytes(xs):
    out = np.empty((xs.size, 4), np.int64)
    for i in range(xs.size):
        for s in range(4):
            out[i, s] = suit_bits(xs[i], s)
    return out


def _values() -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.concatenate([rng.integers(0, 2**32, 20_000, dtype=np.uint32),
                           np.array([0, 1, 0xFFFFFFFF, 0x80808080, 0x01010101], np.uint32)])


def test_popcount_and_suit_bytes_match_python():
    """Hands as uint32 (the deal kernels) and card masks as int64 (the solver)."""
    xs = _values()
    want = [int(x).bit_count() for x in xs]
    assert list(_popcounts(xs)) == want
    assert list(_popcounts(xs.astype(np.int64))) == want
    got = _suit_bytes(xs)
    assert all(list(got[i]) == [int(x) >> (8 * s) & 0xFF for s in range(4)]
               for i, x in enumerate(xs))


def test_bit_scans_match_python():
    xs = _values()
    xs = xs[xs != 0]
    for arr in (xs, xs.astype(np.int64)):
        got = _scans(arr)
        assert list(got[:, 0]) == [(int(x) & -int(x)).bit_length() - 1 for x in xs]
        assert list(got[:, 1]) == [int(x).bit_length() - 1 for x in xs]


@nb.njit(cache=True)
def _pexts(xs, ms):
    out = np.empty((xs.size, 2), np.int64)
    for i in range(xs.size):
        out[i, 0] = pext(xs[i], ms[i])
        out[i, 1] = pext_loop(xs[i], ms[i])
    return out


def pext_ref(x: int, m: int) -> int:
    """The bits of ``x`` at the set bits of ``m``, packed down, one bit at a time."""
    out, k = 0, 0
    for b in range(64):
        if (m >> b) & 1:
            out |= ((x >> b) & 1) << k
            k += 1
    return out


def test_pext_matches_python():
    """Both forms (the instruction where the CPU has a fast one, and the loop), on
    32-bit hands and masks and on the 64-bit words of the table's keys."""
    xs = _values().astype(np.int64)
    ms = np.roll(xs, 7) | np.roll(xs, 3)
    wide = np.random.default_rng(1).integers(0, 2**62, (2, 5_000), dtype=np.int64)
    xs, ms = np.concatenate([xs, wide[0]]), np.concatenate([ms, wide[1]])
    got = _pexts(xs, ms)
    want = [pext_ref(int(x), int(m)) for x, m in zip(xs, ms, strict=True)]
    assert list(got[:, 0]) == want
    assert list(got[:, 1]) == want


def test_pext_compiles_for_a_cpu_without_bmi2(tmp_path):
    """Compiled for a generic x86-64 target (no BMI2), ``pext`` takes the loop and gives
    the same bits (the instruction's intrinsic is never emitted there). Numba keys its
    cache on the target, so this build lives beside the host's; the search itself keeps
    the loop's key on such a target."""
    code = (
        "from bazarsim.core import bits\n"
        "assert not bits.FAST_PEXT\n"
        "import numba as nb\n"
        "f = nb.njit(lambda x, m: bits.pext(x, m))\n"
        "assert f(0b101101, 0b111100) == 0b1011\n"
    )
    env = dict(os.environ, NUMBA_CPU_NAME="generic", NUMBA_CACHE_DIR=str(tmp_path))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
