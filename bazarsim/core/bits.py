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
from numba.core import cgutils
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


def _fast_pext() -> bool:
    """Whether the kernels are compiled for a CPU with a fast ``pext`` (BMI2): any with
    BMI2 but AMD's before Zen 3, which run it in microcode at tens of cycles. A target
    set through Numba's ``NUMBA_CPU_NAME`` counts only with ``+bmi2`` in its features.
    Numba keys its cache on the target CPU and its features, so a kernel compiled with
    either choice is never loaded on a CPU of the other."""
    import llvmlite.binding as llvm
    from numba.core import config

    if config.CPU_NAME is not None:
        return "+bmi2" in (config.CPU_FEATURES or "")
    try:
        name = llvm.get_host_cpu_name()
        bmi2 = bool(llvm.get_host_cpu_features().get("bmi2"))
    except RuntimeError:  # features not known on this platform
        return False
    return bmi2 and name not in ("znver1", "znver2", "bdver4", "bdver3", "bdver2", "bdver1")


FAST_PEXT = _fast_pext()


@intrinsic
def _pext64(typingctx, x, m):
    """LLVM's x86 ``pext`` of two int64 (BMI2): the bits of ``x`` at the set bits of
    ``m``, packed into the low bits. Only for CPUs that have it (:data:`FAST_PEXT`)."""
    if not (isinstance(x, nbtypes.Integer) and isinstance(m, nbtypes.Integer)):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i64, [i64, i64]), "llvm.x86.bmi.pext.64"
        )
        a = context.cast(builder, args[0], signature.args[0], nbtypes.int64)
        b = context.cast(builder, args[1], signature.args[1], nbtypes.int64)
        return builder.call(fn, [a, b])

    return nbtypes.int64(x, m), codegen


@nb.njit(cache=True, inline="always")
def pext_loop(x, m):
    """:func:`pext` one bit of ``m`` at a time, for CPUs without a fast ``pext``."""
    r = np.int64(0)
    k = 0
    mm = np.int64(m)
    while mm != 0:
        r |= ((np.int64(x) >> _cttz(mm)) & 1) << k
        k += 1
        mm &= mm - 1
    return r


@nb.njit(cache=True, inline="always")
def pext(x, m):
    """The bits of ``x`` at the set bits of ``m``, packed into the low bits (non-negative
    int64 masks): one instruction where :data:`FAST_PEXT`, else :func:`pext_loop`."""
    if FAST_PEXT:
        return _pext64(np.int64(x), np.int64(m))
    return pext_loop(x, m)


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
