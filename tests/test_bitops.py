"""Numba bit helpers against plain Python."""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import popcount32, suit_bits


@nb.njit(cache=True)
def _popcounts(xs):
    out = np.empty(xs.size, np.int64)
    for i in range(xs.size):
        out[i] = popcount32(xs[i])
    return out


@nb.njit(cache=True)
def _suit_bytes(xs):
    out = np.empty((xs.size, 4), np.int64)
    for i in range(xs.size):
        for s in range(4):
            out[i, s] = suit_bits(xs[i], s)
    return out


def test_popcount_and_suit_bytes_match_python():
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.integers(0, 2**32, 20_000, dtype=np.uint32),
                         np.array([0, 1, 0xFFFFFFFF, 0x80808080, 0x01010101], np.uint32)])
    assert list(_popcounts(xs)) == [int(x).bit_count() for x in xs]
    got = _suit_bytes(xs)
    assert all(list(got[i]) == [int(x) >> (8 * s) & 0xFF for s in range(4)]
               for i, x in enumerate(xs))
