"""Trick play as Numba functions: legal cards and the trick winner (docs/rules.md, Legal play).

Everything is driven by the :class:`ContractPlay` of a contract kind, built once per
ruleset from its :class:`~bazarsim.rules.compiled.CompiledRules` by :func:`contract_play`,
so the kernels never look at a ruleset's name.

Seats play in increasing order ``leader, leader+1, ...`` (mod 4); the Python API maps a
counter-clockwise ruleset onto this by renaming East and West (:func:`clockwise_seats`).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from bazarsim.core.contracts import BK, VK
from bazarsim.rules.compiled import (
    F_LAST_TRICK,
    F_OVERTAKE_PLAIN,
    F_OVERTAKE_TRUMP,
    F_OVERTRUMP,
    F_TRUMP_PARTNER,
    F_UNDERTRUMP,
    CompiledRules,
    compiled_rules,
)

# Indices into ``ContractPlay.rules``.
R_TRUMP = 0  # trump suit 0..3, or -1 (BK, VK)
R_LEAD_TRUMP_ALL = 1  # every lead counts as a trump lead (VK)
R_OVERTAKE_TRUMP = 2
R_OVERTAKE_PLAIN = 3
R_TRUMP_PARTNER = 4
R_OVERTRUMP = 5
R_UNDERTRUMP = 6
R_LAST_BONUS = 7  # points for the last trick
R_TRICK_BONUS = 8  # points for every trick (1 when counting tricks, else 0)
R_MONOTONE = 9  # in every suit a stronger card is worth at least as much as a weaker one
N_RULES = 10


class ContractPlay(NamedTuple):
    """How the cards play under one contract kind: what the legal-play, trick and search
    kernels read (int64 arrays; a NamedTuple, which Numba takes as an argument).

    With a first axis added to every field (:func:`bazarsim.dd.batch.play_by_kind`) it
    holds several kinds, one row each.
    """

    points: np.ndarray  # [32] points of each card (0 when counting tricks)
    strength: np.ndarray  # [32] strength of a card inside its suit, 7 = strongest
    order: np.ndarray  # [4, 8] the cards of each suit, strongest first
    above: np.ndarray  # [4, 9] above[s, k + 1]: mask of suit s's cards stronger than k
    rules: np.ndarray  # [N_RULES] the trump suit and the legal-play flags (R_* indices)


_PLAY: dict[int, tuple] = {}


def contract_play(ruleset, kind: int, count_tricks: bool = False) -> ContractPlay:
    """The :class:`ContractPlay` of one contract kind of a ruleset, built once per ruleset
    object (rulesets are immutable; the one cache of them).

    With ``count_tricks`` every trick is worth 1 and cards nothing: the search then
    maximises tricks (used by the capot search).
    """
    entry = _PLAY.get(id(ruleset))
    if entry is None or entry[0] is not ruleset:
        if len(_PLAY) > 64:
            _PLAY.clear()
        entry = (ruleset, {})
        _PLAY[id(ruleset)] = entry
    key = (kind, count_tricks)
    if key not in entry[1]:
        entry[1][key] = _build_contract_play(compiled_rules(ruleset), kind, count_tricks)
    return entry[1][key]


def _build_contract_play(compiled: CompiledRules, kind: int, count_tricks: bool) -> ContractPlay:
    pts = compiled.card_points[kind].astype(np.int64)
    stren = compiled.strength[kind].astype(np.int64)
    order = np.zeros((4, 8), np.int64)
    above = np.zeros((4, 9), np.int64)
    for s in range(4):
        cards = [s * 8 + r for r in range(8)]
        cards.sort(key=lambda c: -stren[c])
        order[s] = cards
        for k in range(-1, 8):
            m = 0
            for c in cards:
                if stren[c] > k:
                    m |= 1 << c
            above[s, k + 1] = m  # above[s, k + 1] = stronger than k (k = -1: all)
    rules = np.zeros(N_RULES, np.int64)
    f = compiled.flags
    rules[R_TRUMP] = kind if kind < 4 else -1
    rules[R_LEAD_TRUMP_ALL] = kind == VK
    rules[R_OVERTAKE_TRUMP] = f[F_OVERTAKE_TRUMP]
    rules[R_OVERTAKE_PLAIN] = f[F_OVERTAKE_PLAIN]
    rules[R_TRUMP_PARTNER] = f[F_TRUMP_PARTNER]
    rules[R_OVERTRUMP] = f[F_OVERTRUMP]
    rules[R_UNDERTRUMP] = f[F_UNDERTRUMP]
    rules[R_LAST_BONUS] = f[F_LAST_TRICK]
    if count_tricks:
        pts = np.zeros(32, np.int64)
        rules[R_LAST_BONUS] = 0
        rules[R_TRICK_BONUS] = 1
    rules[R_MONOTONE] = all(
        pts[order[s, i]] >= pts[order[s, i + 1]] for s in range(4) for i in range(7)
    )
    assert kind in range(6) and (kind != BK or rules[R_TRUMP] == -1)
    return ContractPlay(pts, stren, order, above, rules)


SEAT_ORDER = np.arange(4)  # N E S W: ``hands[..., clockwise_seats(SEAT_ORDER, d)]``


def clockwise_seats(seats, direction: str):
    """Seats (an int or an int array) in the kernels' numbering, where play runs N E S W.

    Counter-clockwise play (N W S E) is the same game with East and West renamed, which
    keeps the partnerships: seat ``s`` becomes ``-s mod 4``. The mapping is its own
    inverse, so the same call names the kernels' seats back; the hands of a deal follow
    as ``hands[..., clockwise_seats(SEAT_ORDER, direction)]``.
    """
    return (-seats) % 4 if direction == "counterclockwise" else seats


@nb.njit(cache=True, _nrt=False, forceinline=True)
def card_key(card, led, trump, stren):
    """Trick-taking key: a trump beats the led suit, which beats any other suit."""
    s = card >> 3
    k = stren[card & 31]  # & 31 lets LLVM drop Numba's negative-index code (search.alphabeta)
    if s == trump:
        return 32 + k
    if s == led:
        return 16 + k
    return k


@nb.njit(cache=True, _nrt=False, forceinline=True)
def trick_winner_at(tr, off, n, trump, stren):
    """Index (0..n-1) of the card holding the trick ``tr[off : off + n]``.

    The offset form lets the search keep every trick in one flat array (no array views,
    whose reference counting cost the search much of its time: reports/solver-notes.md).
    """
    led = tr[off] >> 3
    best = 0
    best_key = card_key(tr[off], led, trump, stren)
    for i in range(1, n):
        k = card_key(tr[off + i], led, trump, stren)
        if k > best_key:
            best_key = k
            best = i
    return best


@nb.njit(cache=True)
def trick_winner(trick, n, trump, stren):
    """Index (0..n-1) of the card holding the trick among its first ``n`` cards."""
    return trick_winner_at(trick, 0, n, trump, stren)


@nb.njit(cache=True)
def legal_cards(hand, trick, n, stren, above, rules):
    """Mask of the cards of ``hand`` that may be played as card ``n`` of the trick."""
    if n == 0:
        return hand
    trump = rules[R_TRUMP]
    _wkey, widx, best_led, best_tr = trick_summary(trick, 0, n, trump, stren)
    return legal_given(hand, n, trick[0] >> 3, widx, best_led, best_tr, trump, above, rules)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def _trump_duty(hand, mine, n, w, best_tr, trump, above, rules):
    """Legal cards of a hand void in the led suit holding the trumps ``mine``.

    ``w``: index of the card holding the trick, ``best_tr``: the strongest trump in it
    (strength, -1: none).
    """
    if (w & 1) == (n & 1) and rules[R_TRUMP_PARTNER] == 0:
        return hand  # partner (same parity in the trick) holds it: any card
    if best_tr < 0:
        return mine
    higher = mine & above[trump, (best_tr + 1) & 15]  # & 15: as in card_key
    if higher != 0:
        return higher if rules[R_OVERTRUMP] != 0 else mine
    return mine if rules[R_UNDERTRUMP] != 0 else hand


@nb.njit(cache=True, _nrt=False, forceinline=True)
def legal_given(hand, n, led, widx, best_led, best_tr, trump, above, rules):
    """Legal cards of ``hand`` as card ``n`` (> 0) of a trick, from a summary of it.

    docs/rules.md (Legal play), with every duty switched by a flag in ``rules``. The summary:
    the ``led`` suit, the index ``widx`` of the card holding the trick (read only when
    a void hand holds trumps), and the strongest strength of the led suit
    (``best_led``) and of trumps (``best_tr``, -1: none) among its cards.
    :func:`trick_summary` makes it from a trick array; a search that plays a trick card by
    card keeps it up to date as it goes (:func:`add_to_summary`).
    """
    follow = hand & (np.int64(0xFF) << (8 * led))
    if follow != 0:
        if rules[R_LEAD_TRUMP_ALL] != 0 or led == trump:
            duty = rules[R_OVERTAKE_TRUMP] != 0
        else:
            # somebody trumped: no duty to go higher in the led suit
            duty = rules[R_OVERTAKE_PLAIN] != 0 and best_tr < 0
        if duty:
            higher = follow & above[led, (best_led + 1) & 15]  # & 15: as in card_key
            if higher != 0:
                return higher
        return follow
    if trump < 0:
        return hand  # BK and VK: a void player plays any card
    mine = hand & (np.int64(0xFF) << (8 * trump))
    if mine == 0:
        return hand
    return _trump_duty(hand, mine, n, widx, best_tr, trump, above, rules)


@nb.njit(cache=True, _nrt=False, forceinline=True)
def add_to_summary(c, i, led, trump, stren, wkey, widx, best_led, best_tr):
    """The trick's summary (:func:`legal_given`) after card ``c`` at index ``i``.

    ``wkey`` is the key of the card holding the trick (-1 before the first card).
    """
    k = card_key(c, led, trump, stren)
    if k > wkey:
        wkey = k
        widx = i
    if (c >> 3) == led and stren[c] > best_led:
        best_led = stren[c]
    if (c >> 3) == trump and stren[c] > best_tr:
        best_tr = stren[c]
    return wkey, widx, best_led, best_tr


@nb.njit(cache=True, _nrt=False, forceinline=True)
def trick_summary(tr, off, n, trump, stren):
    """The summary (:func:`legal_given`) of the trick ``tr[off : off + n]``, ``n`` >= 0."""
    wkey, widx, best_led, best_tr = np.int64(-1), np.int64(0), np.int64(-1), np.int64(-1)
    for i in range(n):
        wkey, widx, best_led, best_tr = add_to_summary(
            tr[off + i], i, tr[off] >> 3, trump, stren, wkey, widx, best_led, best_tr
        )
    return wkey, widx, best_led, best_tr
