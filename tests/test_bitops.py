"""Numba bit helpers against plain Python."""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import highest_bit, lowest_bit, popcount32, suit_bits


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
