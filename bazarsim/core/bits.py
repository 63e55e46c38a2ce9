"""Bit helpers shared by the Numba kernels (pure, inlined, no I/O)."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, inline="always")
def popcount32(x):
    """Number of set bits of a 32-bit value (SWAR; LLVM turns it into one popcnt)."""
    x = np.uint32(x)
    x = x - ((x >> np.uint32(1)) & np.uint32(0x55555555))
    x = (x & np.uint32(0x33333333)) + ((x >> np.uint32(2)) & np.uint32(0x33333333))
    x = (x + (x >> np.uint32(4))) & np.uint32(0x0F0F0F0F)
    # Numba widens uint32 * uint32 to 64 bits: keep the low 32 bits before the shift.
    return np.int64(((x * np.uint32(0x01010101)) & np.uint32(0xFFFFFFFF)) >> np.uint32(24))


@nb.njit(cache=True, inline="always")
def suit_bits(hand, suit):
    """The byte of one suit of a hand (bit r = natural rank r)."""
    return np.int64((np.uint32(hand) >> np.uint32(8 * suit)) & np.uint32(0xFF))
