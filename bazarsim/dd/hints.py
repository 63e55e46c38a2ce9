"""Best-move hints (``O_HINTS``): a node's best move, tried first where the same hand
faces the same card again.

A node that did not fail low keeps its best move under the hand to play, the card holding
the trick and the suit led (:func:`hint_hash`); where that hand faces that card again its
hint is tried first (before the table has a move, or where it has none): the same reply
usually refutes the other hands' variations too. One word a slot of ``ctx.hints``, the
key with the card in its five low bits; the generation is hashed into the key, so the
hints of older searches are never found.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.dd.context import HINT_BITS, NO_CARD
from bazarsim.dd.table import HASH_C1, HASH_C2


@nb.njit(cache=True, _nrt=False, forceinline=True)
def hint_hash(hands, p, tricks, toff, nn, gen, widx):
    """The hint key of seat ``p`` to play card ``nn`` of a trick (``O_HINTS``): a hash of
    its hand, the card holding the trick so far (index ``widx``), the suit led and the
    generation. Its slot (:func:`_hint_slot`) holds ``h`` with the hinted card in its five
    low bits."""
    tm = np.int64(0)
    if nn > 0:
        tm = (tricks[toff + (widx & 3)] & 31) | (((tricks[toff] >> 3) & 3) << 5)
    return ((hands[p] | (tm << 32)) ^ (gen * HASH_C2)) * HASH_C1


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _hint_slot(h):
    """Where the hint of key ``h`` (:func:`hint_hash`) is kept in ``hints``: high bits of
    the product, which depend on every bit of the key."""
    return (h >> 49) & ((1 << HINT_BITS) - 1)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def hint_get(hints, h):
    """The card hinted under key ``h`` (:func:`hint_hash`), or ``NO_CARD``."""
    hw = hints[_hint_slot(h)]
    if (hw ^ h) & ~31 == 0:
        return hw & 31
    return np.int64(NO_CARD)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def hint_put(hints, h, c):
    """Keep card ``c`` as the hint under key ``h`` (:func:`hint_hash`)."""
    hints[_hint_slot(h)] = (h & ~31) | (c & 31)
