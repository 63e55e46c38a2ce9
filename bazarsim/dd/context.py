"""The search's switches and buffers: the option bits, the exact-value drivers, the
``stats`` slots, the frames of the explicit stack, and the :class:`SearchContext` holding
them (made by :func:`new_context`, reused between calls).

Every room of the search (the modules of :mod:`bazarsim.dd`, one technique each, listed
in :mod:`bazarsim.dd.search`) reads its switches and buffers from here, so the context's
layout is written in one place and a new enhancement takes its bit beside the others.

Enhancements, each switchable through ``opts`` so that tests compare "all off" with "all
on" and the benchmark shows what each buys (the figures, and the commits that measured
them, are in ``reports/solver-notes.md``); the room that implements each in brackets:

* ``O_TT`` (``table``): a transposition table at trick boundaries (bounds on the points
  left and the best lead), keyed on the hands and the leader with each suit's worthless
  bottom run made canonical (without ``O_SHAPE``), which is the same game; cleared by a
  generation counter, never zeroed, so the probes of one position share it.
* ``O_SHAPE`` (``table``, with ``O_TT``): the table is keyed on each suit's live cards in
  strength order and who holds them, whatever their ranks, and an entry keeps the live
  cards it was searched with. Two positions of one shape are the same game up to the
  cards' points, so an entry's bounds hold for another position of its shape once
  shifted by the point differences of the paired cards.
* ``O_BOUNDS`` (``quick``): at a trick boundary the value lies in ``[0, points left]``.
* ``O_SURE`` (``quick``): a trump above every trump of the other side wins whatever trick
  it falls in: its points are a sure floor for its side.
* ``O_QUICK`` (``quick``): the leader's cashable top runs (as far as nobody can ruff them)
  and a low lead to partner's master followed by partner's cashing are a sure floor too.
* ``O_EQUIV`` (``moves``): of cards that are truly interchangeable (same hand and suit,
  adjacent among the live cards, worth the same) only one is searched.
* ``O_DOMINANCE`` (``moves``): of a run of one hand's cards adjacent among the live
  cards, once no later opponent can beat the trick, only the strongest (own side's trick)
  or the weakest (theirs) is searched: they take the same tricks, and points rise with
  strength (``R_MONOTONE``).
* ``O_ORDER`` (``moves``): the table's move first, then for a follower sure winners
  (cheapest first, keeping rich winners), points on a trick partner holds, winners for
  now, the cheapest discards.
* ``O_SPAREMASTER``, ``O_SUREHOLD`` (``moves``, with ``O_ORDER``): a master of another
  suit goes last among the points loaded on partner's trick, since it would win a trick
  of its own; and points are loaded only on a partner's trick no later opponent can beat.
* ``O_LEADTOP`` (``moves``): leads: a master nobody can ruff this round (plain suits
  first, richest first), else a low lead to partner's master or ruff, from the longer
  suits.
* ``O_HINTS`` (``hints``): a node's best move is kept under the hand to play, the card
  holding the trick and the suit led, and tried first where that hand faces that card
  again: the same reply usually refutes the other hands' variations too.
* ``O_LAZY`` (``alphabeta``): where the table or a hint names a legal move, it is searched
  before the node's other moves are generated and ordered, which happens only if it does
  not cut (it cuts at most nodes that cut at all).
* ``O_ENDGAME`` (``endgames``): two tricks left are solved in place (at most 16 lines),
  ``O_ENDCACHE`` keeps bounds on their values (most recur within a search), and
  ``O_ENDGAME3`` plays three tricks left in plain nested loops: more nodes, less time
  than the search's frames.
* ``O_PVS`` (``alphabeta``): in open windows, each move after the first is first proved
  no better with a null window and searched again only when it is.
* ``O_ROOTLOOK`` (``rootlook``): the root's first lead is the best after a one-trick
  look-ahead with a guess after it; it only orders, values never depend on it.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

# Option bits (16 and 64 were the killer and history orderings, since removed).
O_TT = 1
O_BOUNDS = 2
O_EQUIV = 4
O_ORDER = 8
O_LEADTOP = 32
O_ENDGAME = 128
O_SURE = 256
O_QUICK = 512
O_DOMINANCE = 1024
O_PVS = 2048
O_ROOTLOOK = 4096
O_ENDCACHE = 8192
O_HINTS = 16384
O_ENDGAME3 = 32768
O_SPAREMASTER = 1 << 16
O_SUREHOLD = 1 << 17
O_SHAPE = 1 << 18
O_LAZY = 1 << 19
O_ALL = (
    O_TT | O_BOUNDS | O_EQUIV | O_ORDER | O_LEADTOP | O_ENDGAME | O_SURE
    | O_QUICK | O_DOMINANCE | O_PVS | O_ROOTLOOK | O_ENDCACHE | O_HINTS | O_ENDGAME3
    | O_SPAREMASTER | O_SUREHOLD | O_SHAPE | O_LAZY
)
OPTION_NAMES = {
    "tt": O_TT,
    "bounds": O_BOUNDS,
    "equiv": O_EQUIV,
    "order": O_ORDER,
    "leadtop": O_LEADTOP,
    "endgame": O_ENDGAME,
    "sure": O_SURE,
    "quick": O_QUICK,
    "dominance": O_DOMINANCE,
    "pvs": O_PVS,
    "rootlook": O_ROOTLOOK,
    "endcache": O_ENDCACHE,
    "hints": O_HINTS,
    "endgame3": O_ENDGAME3,
    "sparemaster": O_SPAREMASTER,
    "surehold": O_SUREHOLD,
    "shape": O_SHAPE,
    "lazy": O_LAZY,
}

# Drivers of the exact value.
M_MTDF = 0
M_BISECT = 1
M_FULL = 2
M_AUTO = 3
METHOD_NAMES = {"mtdf": M_MTDF, "bisect": M_BISECT, "full": M_FULL, "auto": M_AUTO}
# ``auto`` is the full window (with ``O_PVS``), which searches the fewest nodes at every
# size; a name of its own so that the default can change without changing callers.

# Pass ZERO, ZERO - 1... rather than literal ints to the jitted entry points: Numba
# compiles a function again for every distinct literal argument (Literal[int](0) and
# int64 are two signatures), and the search core is the costliest thing to compile.
ZERO = np.int64(0)

# Slots of the ``stats`` vector.
S_GEN = 0
S_NODES = 1
S_OPTS = 2
S_MASK = 3
S_ROOT = 4  # a lead to search first at the root (search layout), -1 for none
# Who holds which card in this generation's positions (search layout): the known cards and
# the two bits of their holders' seats; the generation they belong to (see ``_bind_owners``)
S_KNOWN = 5
S_OWN0 = 6
S_OWN1 = 7
S_OWNGEN = 8
S_MONO = 9  # 1: in every suit of the contract a stronger card is worth at least as much
N_STATS = 10
# Generations wrap before the endgame cache's key runs out of bits (see ``new_search``).
GEN_LIMIT = 1 << 29

# Slots of the table (``O_TT``): 2^14, 37 bytes a slot with the live cards (592 KB); how
# the size was chosen is in reports/solver-notes.md.
DEFAULT_TT_BITS = 14
E2_SIZE = 1 << 15  # slots of the two-trick endgame cache (direct-mapped)
NO_CARD = -1  # no card: no move to try first, no hint
# the best-move hints (``O_HINTS``): ``2^HINT_BITS`` words, see ``hints.hint_hash``
HINT_BITS = 13

# Frame fields of the explicit search stack (one row per ply).
F_LEADER = 0
F_T = 1
F_N = 2
F_ALPHA = 3
F_BETA = 4
F_BEST = 5
F_BESTC = 6
F_NM = 7
F_K = 8
F_NS = 9
F_SLOT = 10
F_A0 = 11
F_B0 = 12
F_REM = 13
F_KA = 14
F_KB = 15
F_TAG = 16
F_SCOUT = 17  # 1: the current move is searched with a null (scout) window, 2: redo
F_RSV = 18  # the scout's fail-soft result, a bound for the re-search
# the summary of the trick's cards before this node's (see ``legal_given``), kept card by
# card as the search descends
F_WKEY = 19
F_WIDX = 20
F_BLED = 21
F_BTR = 22
# the node's move list: 0 complete (a forced card, or generated), 1 only the table's or
# hint's move so far (``O_LAZY``), 2 the others listed after it (all of them later moves,
# for PVS), 4 nothing listed yet (generated at the first move, with the move ``F_TTM``
# first); the list is generated in one place of the loop, which Numba inlines once
F_LAZY = 23
F_LEGAL = 24  # the legal cards of the hand to play
F_TTM = 25  # the table's or hint's move (ordering first), -1 for none
N_FRAME = 26


class SearchContext(NamedTuple):
    """The search's buffers, made by :func:`new_context` and reused between calls (one
    per thread): the table, the hints and the endgame cache keep their entries from one
    search to the next, told apart by the generation in ``stats``."""

    # the table (``O_TT``): the two key words, generation * 4 + leader, the bounds on the
    # N-S points left and the best lead (search layout); two-slot buckets
    tt_a: np.ndarray  # int64[2^tt_bits]
    tt_b: np.ndarray  # int64[2^tt_bits]
    tt_tag: np.ndarray  # int64[2^tt_bits]
    tt_lo: np.ndarray  # int16[2^tt_bits]
    tt_hi: np.ndarray  # int16[2^tt_bits]
    tt_best: np.ndarray  # int8[2^tt_bits]
    tt_live: np.ndarray  # int64[2^tt_bits]: the entry's live cards (``O_SHAPE``)
    stats: np.ndarray  # int64[N_STATS]: generation, nodes, options... (``S_*`` slots)
    hints: np.ndarray  # int64[2^HINT_BITS]: best-move hints (``O_HINTS``)
    # Flat per-trick / per-ply buffers, indexed with offsets: row views would cost an
    # atomic reference-count update each.
    tricks: np.ndarray  # int64[40]: the cards of trick t at 4 t .. 4 t + 3
    moves: np.ndarray  # int64[40 * 8]: the moves of ply sp at 8 sp ..
    scores: np.ndarray  # int64[40 * 8]: their ordering scores
    frames: np.ndarray  # int64[40 * N_FRAME]: the explicit stack (``F_*`` fields)
    same_points: np.ndarray  # int64[32]: per card, the other cards of its suit worth the same
    # per suit s: [10 s + k] the k weakest cards of the run the table's key packs (its
    # worthless bottom run, or the whole suit with ``O_SHAPE``), [10 s + 9] the whole run
    bottom_runs: np.ndarray  # int64[40]
    # the contract's ContractPlay fields in the search layout (see ``to_layout``)
    lay_points: np.ndarray  # int64[32]
    lay_strength: np.ndarray  # int64[32]
    lay_order: np.ndarray  # int64[4, 8]
    lay_above: np.ndarray  # int64[4, 9]
    # [256 s + b]: the points of the cards of suit s in byte b (search layout)
    byte_points: np.ndarray  # int64[1024]
    # the two-trick endgame cache (``O_ENDCACHE``): the key (live cards, leader,
    # generation: see alphabeta) and the lower and upper bounds packed in one int32
    e2_key: np.ndarray  # int64[E2_SIZE]
    e2_bounds: np.ndarray  # int32[E2_SIZE]


@nb.njit(cache=True)
def new_context(tt_bits=DEFAULT_TT_BITS, opts=O_ALL):
    """A :class:`SearchContext` with a table of ``2^tt_bits`` slots, searching with the
    enhancements ``opts``; reuse it between calls."""
    size = 1 << tt_bits
    stats = np.zeros(N_STATS, np.int64)
    stats[S_OPTS] = opts
    stats[S_MASK] = size - 1
    stats[S_ROOT] = -1
    return SearchContext(
        np.zeros(size, np.int64),
        np.zeros(size, np.int64),
        np.zeros(size, np.int64),
        np.zeros(size, np.int16),
        np.zeros(size, np.int16),
        np.zeros(size, np.int8),
        np.zeros(size, np.int64),
        stats,
        np.zeros(1 << HINT_BITS, np.int64),  # their keys hold the generation
        np.zeros(10 * 4, np.int64),
        np.zeros(40 * 8, np.int64),
        np.zeros(40 * 8, np.int64),
        np.zeros(40 * N_FRAME, np.int64),
        np.zeros(32, np.int64),
        np.zeros(40, np.int64),
        np.zeros(32, np.int64),
        np.zeros(32, np.int64),
        np.zeros((4, 8), np.int64),
        np.zeros((4, 9), np.int64),
        np.zeros(1024, np.int64),
        np.zeros(E2_SIZE, np.int64),
        np.zeros(E2_SIZE, np.int32),
    )
