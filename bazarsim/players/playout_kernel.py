"""Whole play-outs inside one Numba kernel: one built-in player a seat (random, DD, PIMC
or alpha-mu), what the play shows drawn as it goes, each decision from its own stream
(:func:`~.pimc.decision_key`). Datasets, play-offs and ``play`` play built-in players
here; :mod:`.players` wraps the same decisions as ``decide(view)`` objects.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.core.bits import lowest_bit, popcount32
from bazarsim.dd.search import M_AUTO, exact_value
from bazarsim.players.alphamu import DEFAULT_CAP, N_ST, decide_alphamu
from bazarsim.players.inference import bela_other, shown_absent
from bazarsim.players.pimc import (
    B_BELA,
    B_LIMITS,
    B_SHOWN,
    B_VOIDS,
    N_INFERENCES,
    decide,
    decision_key,
    draw_index,
    new_scratch,
    trick_result,
)
from bazarsim.rules.play import legal_cards

P_RANDOM = 0
P_DD = 1
P_PIMC = 2
P_ALPHAMU = 3
PLAYER_KINDS = {"random": P_RANDOM, "dd": P_DD, "pimc": P_PIMC, "alphamu": P_ALPHAMU}

# What :func:`play_out` records: nothing (the result only), each card, or also the DD
# value after each card.
REC_NONE = 0
REC_CARDS = 1
REC_DD = 2


@nb.njit(cache=True)
def play_out(deal, leader, play, bela_suits, shown, players, n_worlds, depths, objective,
             decl_side, target, infer, run_key, index, kind, ctx, record, cards_out,
             seats_out, worlds_out, values_out, dd_out, violations):
    """Play one deal out, card by card, with one player per seat.

    ``deal``: the four hands (kernel seats); ``players[s]``: ``P_RANDOM``, ``P_DD``,
    ``P_PIMC`` or ``P_ALPHAMU``, ``n_worlds[s]`` its worlds, ``depths[s]`` its own moves kept
    common (alpha-mu); ``shown[s]``: the cards of seat ``s``'s
    declarations shown after the first trick; ``target``: the card points the declaring
    side needs over the deal (``O_CONTRACT``); ``infer[s]``: the ``I_*`` bits seat ``s``'s
    player uses. ``record``
    ``REC_CARDS`` fills, per card ``i``, ``cards_out[i]``, ``seats_out[i]``,
    ``worlds_out[i]`` and ``values_out[i]`` (the per-card means); ``REC_DD`` also
    ``dd_out[i]`` (the double-dummy N-S points over the deal after the card: taken + still
    to take, one exact solve per card).
    ``violations[0]`` counts the decisions where the true deal broke what the players
    shown (a seat not holding a card it is known to hold, or holding one ruled out): a
    sampler that can exclude the truth is wrong, so tests require 0.
    Returns (N-S points, N-S tricks).
    """
    own = deal.copy()
    # what the play has shown, per inference (B_* rows) and seat: cards held, cards not
    # held; every inference is drawn (the truth must satisfy them all), and each seat's
    # player uses those of its ``infer`` bits
    holds = np.zeros((N_INFERENCES, 4), np.int64)
    lacks = np.zeros((N_INFERENCES, 4), np.int64)
    fixed = np.zeros(4, np.int64)
    forbid = np.zeros(4, np.int64)
    counts = np.zeros(4, np.int64)
    for s in range(4):
        counts[s] = popcount32(deal[s])
    gone = np.int64(0)
    trick = np.zeros(4, np.int64)
    n = np.int64(0)  # typed, not a literal: one specialisation of what it is passed to
    taken = np.zeros(2, np.int64)
    tricks = np.zeros(2, np.int64)
    values = np.empty(32, np.float64)
    scratch = new_scratch()
    am_stats = np.zeros(N_ST, np.int64)
    no_truth = np.full(4, -1, np.int64)
    n_cards = counts[0] + counts[1] + counts[2] + counts[3]
    for number in range(n_cards):
        seat = (leader + n) % 4
        if number == 4:
            for s in range(4):
                holds[B_SHOWN, s] |= shown[s] & own[s]
        for s in range(4):
            for b in range(N_INFERENCES):
                if holds[b, s] & ~own[s] != 0 or own[s] & lacks[b, s] != 0:
                    violations[0] += 1
        key = decision_key(run_key, index, kind, number, seat)
        p = players[seat]
        worlds = 0
        if p == P_RANDOM:
            legal = legal_cards(own[seat], trick, n, play.strength, play.above, play.rules)
            x, _k = draw_index(key, 0, popcount32(legal))
            c = lowest_bit(legal)
            for _i in range(x):
                legal &= legal - 1
                c = lowest_bit(legal)
            values[:] = np.nan
        else:
            need = target - taken[decl_side]
            truth = own if p == P_DD else no_truth
            fixed[:] = 0
            forbid[:] = 0
            for b in range(N_INFERENCES):  # what this seat's player infers
                if infer[seat] >> b & 1:
                    for s in range(4):
                        fixed[s] |= holds[b, s]
                        forbid[s] |= lacks[b, s]
            if p == P_ALPHAMU:
                c, worlds = decide_alphamu(seat, own[seat], fixed, forbid, counts, gone, leader,
                                           trick, n, play, ctx, n_worlds[seat], key, objective,
                                           decl_side, need, depths[seat], np.int64(DEFAULT_CAP),
                                           values, scratch, am_stats)
            else:
                c, worlds = decide(seat, own[seat], fixed, forbid, counts, gone, leader, trick,
                                   n, play, ctx, n_worlds[seat], key, objective, decl_side,
                                   need, truth, values, scratch)
            if c < 0:  # no world fits (an inference switched on wrongly): play as DD
                c, worlds = decide(seat, own[seat], fixed, forbid, counts, gone, leader, trick,
                                   n, play, ctx, np.int64(1), key, objective, decl_side, need, own,
                                   values, scratch)
        absent = shown_absent(c, trick, n, play.strength, play.above, play.rules)
        if n > 0 and absent != 0:
            led_mask = np.int64(0xFF) << (8 * (trick[0] >> 3))
            void = absent & led_mask if (led_mask >> c) & 1 == 0 else np.int64(0)
            lacks[B_VOIDS, seat] |= void
            lacks[B_LIMITS, seat] |= absent & ~void
        o = bela_other(c, bela_suits)
        if o >= 0 and (gone >> o) & 1 == 0 and not _in_trick(trick, n, o):
            if (own[seat] >> o) & 1:
                holds[B_BELA, seat] |= np.int64(1) << o
            else:
                lacks[B_BELA, seat] |= np.int64(1) << o
        own[seat] ^= np.int64(1) << c
        for b in range(N_INFERENCES):
            holds[b, seat] &= ~(np.int64(1) << c)
        counts[seat] -= 1
        trick[n] = c
        n += 1
        if record >= REC_CARDS:
            cards_out[number] = c
            seats_out[number] = seat
            worlds_out[number] = worlds
            values_out[number, :] = values
        if n == 4:
            last = number == n_cards - 1
            w, pts = trick_result(trick, leader, last, play)
            taken[w % 2] += pts
            tricks[w % 2] += 1
            for i in range(4):
                gone |= np.int64(1) << trick[i]
            leader = w
            n = np.int64(0)
        if record >= REC_DD:
            if own[0] | own[1] | own[2] | own[3] == 0:
                dd_out[number] = taken[0]
            else:
                dd_out[number] = taken[0] + ns_value_partial(own, leader, trick, n, play, ctx)
    return taken[0], tricks[0]


@nb.njit(cache=True)
def ns_value_partial(hands, leader, trick, n, play, ctx):
    """DD N-S points from the start of the current trick (``n`` 0..3 cards in it)."""
    return exact_value(hands, leader, trick, n, play, ctx, M_AUTO, np.int64(-1))


@nb.njit(cache=True)
def _in_trick(trick, n, c):
    for i in range(n):
        if trick[i] == c:
            return True
    return False
