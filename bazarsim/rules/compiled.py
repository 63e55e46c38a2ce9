"""Compiled rules: a ruleset turned into the arrays and flags that kernels read.

Kernels take a :class:`CompiledRules` (a NamedTuple of NumPy arrays, which Numba accepts
as an argument; ``T`` in kernel signatures) and never branch on a ruleset's name. Per-suit
arrays are indexed by a
suit's byte (bit r = natural rank r), so a hand is evaluated with 4 + 1 lookups.

Declaration keys are integers whose order is the comparison order of docs/rules.md
(Declarations):
``0`` none; sequences ``1 << 12 | length << 5 | top_rank << 1 | is_trump``; fours
``2 << 12 | priority`` (any four beats any sequence). Equal keys at two seats are
decided by seat order from the dealer's left, which the deal kernel applies.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bazarsim.core.cards import RANKS
from bazarsim.core.contracts import BK, N_KINDS, VK

# Indices into CompiledRules.flags.
F_OVERTAKE_TRUMP = 0
F_OVERTAKE_PLAIN = 1
F_TRUMP_PARTNER = 2
F_OVERTRUMP = 3
F_UNDERTRUMP = 4
F_FOUR8_CANCEL = 5
F_FOUR7_REDEAL = 6
F_BELA_VALUE = 7
F_LAST_TRICK = 8
F_VK_BELA_ONLY_LED = 9
N_FLAGS = 10

SEQ_CLASS = 1 << 12
FOUR_CLASS = 2 << 12
RANK_7 = RANKS.index("7")
RANK_8 = RANKS.index("8")


class CompiledRules(NamedTuple):
    card_points: np.ndarray  # int16[6, 32]   points of each card per contract kind
    suit_points: np.ndarray  # int16[6, 4, 256] points of a suit byte per kind and suit
    strength: np.ndarray  # int8[6, 32]    strength inside its suit, 7 = strongest
    is_trump: np.ndarray  # uint8[6, 4]    suit is trump under the kind
    bela_suit: np.ndarray  # uint8[6, 4]    K+Q of this suit is a bela under the kind
    seq_value: np.ndarray  # int16[256]     points of the sequences in a suit byte
    seq_key: np.ndarray  # int32[256]     best sequence key of a suit byte (no trump bit)
    four_value: np.ndarray  # int16[2, 256]  fours in a rank mask; row 0 suit/VK, row 1 BK
    four_key: np.ndarray  # int32[2, 256]  best four key of a rank mask
    flags: np.ndarray  # int32[N_FLAGS]


def sequence_runs(byte: int) -> list[tuple[int, int]]:
    """Maximal runs of 3+ adjacent ranks in a suit byte as ``(length, top_rank)``."""
    runs = []
    r = 0
    while r < 8:
        if byte >> r & 1:
            start = r
            while r < 8 and byte >> r & 1:
                r += 1
            if r - start >= 3:
                runs.append((r - start, r - 1))
        else:
            r += 1
    return runs


def sequence_score(length: int, top: int, rules) -> list[tuple[str, int, int, int]]:
    """Declarations made from one run: ``(name, value, ranked_length, top)`` items."""
    terz, fifty, quint = rules.sequence_values
    if length == 8 and rules.eight_card_sequence == "quint_plus_terz":
        return [("quint", quint, 5, top), ("terz", terz, 3, top - 5)]
    if length >= 5:
        return [("quint", quint, length, top)]
    if length == 4:
        return [("fifty", fifty, 4, top)]
    return [("terz", terz, 3, top)]


def seq_key_of(ranked_length: int, top: int, trump: bool) -> int:
    return SEQ_CLASS | ranked_length << 5 | top << 1 | int(trump)


def four_key_of(rank: int, order: str) -> int:
    """Key of a four of ``rank`` given an order string (strongest first); 0 if not ranked."""
    ch = RANKS[rank]
    if ch not in order:
        return 0
    return FOUR_CLASS | (len(order) - order.index(ch))


def _points_vector(points: dict) -> np.ndarray:
    return np.array([points.get(RANKS[r], 0) for r in range(8)], dtype=np.int16)


def _strength_vector(order: str) -> np.ndarray:
    return np.array([7 - order.index(RANKS[r]) for r in range(8)], dtype=np.int8)


def compile_rules(ruleset) -> CompiledRules:
    cr, pr, dr = ruleset.cards, ruleset.play, ruleset.declarations
    trump_pts, plain_pts, bk_pts = (
        _points_vector(cr.trump_points),
        _points_vector(cr.plain_points),
        _points_vector(cr.bk_points),
    )
    trump_str, plain_str = _strength_vector(cr.trump_order), _strength_vector(cr.plain_order)

    card_points = np.zeros((N_KINDS, 32), np.int16)
    strength = np.zeros((N_KINDS, 32), np.int8)
    is_trump = np.zeros((N_KINDS, 4), np.uint8)
    bela_suit = np.zeros((N_KINDS, 4), np.uint8)
    for kind in range(N_KINDS):
        for suit in range(4):
            trump = kind == VK or kind == suit
            is_trump[kind, suit] = trump
            bela_suit[kind, suit] = (kind == suit) or (kind == VK and dr.bela_every_suit_in_vk)
            if kind == BK:
                pts, st = bk_pts, plain_str
            elif trump:
                pts, st = trump_pts, trump_str
            else:
                pts, st = plain_pts, plain_str
            card_points[kind, suit * 8 : suit * 8 + 8] = pts
            strength[kind, suit * 8 : suit * 8 + 8] = st

    bytes_ = np.arange(256)
    bits = (bytes_[:, None] >> np.arange(8)) & 1  # [256, 8]
    suit_points = np.zeros((N_KINDS, 4, 256), np.int16)
    for kind in range(N_KINDS):
        for suit in range(4):
            suit_points[kind, suit] = bits @ card_points[kind, suit * 8 : suit * 8 + 8]

    seq_value = np.zeros(256, np.int16)
    seq_key = np.zeros(256, np.int32)
    for b in range(256):
        for length, top in sequence_runs(b):
            for _name, value, ranked, t in sequence_score(length, top, dr):
                seq_value[b] += value
                seq_key[b] = max(seq_key[b], seq_key_of(ranked, t, False))

    four_value = np.zeros((2, 256), np.int16)
    four_key = np.zeros((2, 256), np.int32)
    for row, (values, order) in enumerate(
        ((dr.four_values, dr.four_order), (dr.four_values_bk, dr.four_order_bk))
    ):
        for m in range(256):
            for r in range(8):
                if m >> r & 1 and r not in (RANK_7, RANK_8):
                    four_value[row, m] += values.get(RANKS[r], 0)
                    if values.get(RANKS[r], 0) > 0:
                        four_key[row, m] = max(four_key[row, m], four_key_of(r, order))

    flags = np.zeros(N_FLAGS, np.int32)
    flags[F_OVERTAKE_TRUMP] = pr.overtake_on_trump_lead
    flags[F_OVERTAKE_PLAIN] = pr.overtake_on_plain_lead
    flags[F_TRUMP_PARTNER] = pr.trump_when_partner_winning
    flags[F_OVERTRUMP] = pr.overtrump_required
    flags[F_UNDERTRUMP] = pr.undertrump_required
    flags[F_FOUR8_CANCEL] = dr.four_eights_cancel
    flags[F_FOUR7_REDEAL] = dr.four_sevens_redeal
    flags[F_BELA_VALUE] = dr.bela_value
    flags[F_LAST_TRICK] = cr.last_trick_bonus
    flags[F_VK_BELA_ONLY_LED] = dr.vk_bela_only_when_led

    compiled = CompiledRules(
        card_points, suit_points, strength, is_trump, bela_suit,
        seq_value, seq_key, four_value, four_key, flags,
    )
    for arr in compiled:
        arr.setflags(write=False)
    return compiled


_CACHE: dict[str, CompiledRules] = {}


def compiled_rules(ruleset) -> CompiledRules:
    """The compiled rules of a ruleset, built once per distinct set of options (the one
    cache of them: every stage calls this)."""
    key = repr(ruleset)
    if key not in _CACHE:
        _CACHE[key] = compile_rules(ruleset)
    return _CACHE[key]
