"""Bit helpers shared by the Numba kernels (pure, inlined, no I/O): the one home of the
popcount, the bit scans and the suit byte.

The counts and scans are LLVM intrinsics (one ``popcnt``, ``tzcnt`` or ``lzcnt``
instruction each) on the value widened to int64, so a uint32 hand and an int64 card mask
are counted alike.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import types as nbtypes
from numba.extending import intrinsic


def _int64_op(x, emit):
    """Signature and code generator of an LLVM operation on an integer widened to int64
    (``None``, no match, for any other type)."""
    if not isinstance(x, nbtypes.Integer):
        return None

    def codegen(context, builder, signature, args):
        return emit(builder, context.cast(builder, args[0], signature.args[0], nbtypes.int64))

    return nbtypes.int64(x), codegen


@intrinsic
def _ctpop(typingctx, x):
    """LLVM population count of an int64 (one ``popcnt``)."""
    return _int64_op(x, lambda builder, v: builder.ctpop(v))


@intrinsic
def _cttz(typingctx, x):
    """LLVM count-trailing-zeros of an int64 (one ``tzcnt``/``bsf``)."""
    return _int64_op(x, lambda builder, v: builder.cttz(v, ir.Constant(ir.IntType(1), 0)))


@intrinsic
def _ctlz(typingctx, x):
    """LLVM count-leading-zeros of an int64 (one ``lzcnt``/``bsr``)."""
    return _int64_op(x, lambda builder, v: builder.ctlz(v, ir.Constant(ir.IntType(1), 0)))


@nb.njit(cache=True, inline="always")
def popcount32(x):
    """Number of set bits of a value in ``[0, 2^32)``: a uint32 hand or a non-negative
    int64 card mask (a negative int64 would count its 64 bits)."""
    return _ctpop(np.int64(x))


@nb.njit(cache=True, inline="always")
def lowest_bit(mask):
    """Index of the lowest set bit of a non-zero mask (the weakest card in the solver's
    layout)."""
    return _cttz(np.int64(mask))


@nb.njit(cache=True, inline="always")
def highest_bit(mask):
    """Index of the highest set bit of a non-zero, non-negative mask."""
    return 63 - _ctlz(np.int64(mask))


@nb.njit(cache=True, inline="always")
def suit_bits(hand, suit):
    """The byte of one suit of a hand (bit r = natural rank r)."""
    return np.int64((np.uint32(hand) >> np.uint32(8 * suit)) & np.uint32(0xFF))


# NumPy forms of the same helpers, for arrays of hands in Python-level code (analysis).


def popcount_array(x: np.ndarray) -> np.ndarray:
    """Set bits of every element of an unsigned integer array, as int64."""
    return np.bitwise_count(x).astype(np.int64)


def suit_bytes(hands: np.ndarray, suit: int) -> np.ndarray:
    """The byte of one suit of every hand of a ``uint32`` array (bit r = natural rank r)."""
    return (hands >> np.uint32(8 * suit)) & np.uint32(0xFF)
