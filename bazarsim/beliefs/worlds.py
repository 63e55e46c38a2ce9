"""Auction-weighted worlds: the worlds consistent with the play, weighted by the calls.

The posterior of a world (the hidden hands) given what a seat saw is the uniform
distribution over the worlds consistent with the play (:mod:`bazarsim.players.worlds`)
times the likelihood of the other seats' calls (:mod:`.calls`): the product, over every
call of another seat, of P(call | that seat's hand at bid time). The hand at bid time is
the world's hand plus the cards the seat has played.

Sampling it from the uniform proposal wastes most draws when the auction is strong (an
opening at 10 hearts fits a few hands in a hundred). So the proposal is a **product of
per-card weights**: ``q(world) ~ prod over the other seats s and their cards c of
theta[s, c]``, restricted to the consistent worlds, and sampled *exactly* by a small
dynamic programme over the free cards (state: how many cards two of the seats still
need; the third takes the rest). The weights are fitted to the auction in a few pilot
rounds (each card's posterior share per seat against its share under the proposal, the
cross-entropy method) and every draw carries the importance weight
``likelihood(world) / prod theta``, so the weighted draws are the posterior whatever the
proposal: a poor proposal costs effective sample size, never bias. The last pilot round's
draws (untempered likelihood, an exactly normalised proposal) are kept among the worlds.

The **effective sample size** of weights ``w`` is ``(sum w)^2 / sum w^2``: the number of
equally weighted worlds the weighted draws are worth. Draws go on until it reaches the
size asked for, or until the cap of draws (:data:`MAX_DRAWS_PER_ESS` times the size
asked, at least :data:`MIN_CAP`); callers say when the cap was hit. When the consistent
worlds number no more than :data:`ENUMERATE` they are all taken, each with its exact
posterior weight.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.beliefs.calls import hand_likelihood
from bazarsim.core.bits import lowest_bit
from bazarsim.core.contracts import N_KINDS
from bazarsim.deals.generator import stream_word
from bazarsim.players.pimc import draw_index
from bazarsim.players.worlds import (
    BINOM,
    N_CLASSES,
    count_worlds,
    other_seats,
    view_arrays,
    world_at,
)

ENUMERATE = 2000  # infer: at most this many consistent worlds are all taken, exactly weighted
MAX_DRAWS_PER_ESS = 50  # the cap of draws, per world of ESS asked for
MIN_CAP = 2000
PILOT = 256  # infer: the most draws of a pilot round (half the ESS asked, at least 64)
MIN_PILOT = 64
PILOT_ROUNDS = 4  # infer's; a cold decision of a listening player takes 2
FIT_SWEEPS = 6
# pseudo-draws pulling a pilot's card shares toward the proposal's: infer's (long pilots)
# and a listening decision's (short ones); chosen on careful auctions (benchmarks)
SHRINK = 50.0
SHRINK_DECISION = 20.0
DEFENSIVE = 0.1  # the uniform's share of the mixture: no weight above 1 / DEFENSIVE times
THETA_RANGE = 50.0  # a card's weight for one seat over another's: at most this ratio
BATCH = 32  # draws between checks of the ESS


@nb.njit(cache=True, inline="always")
def _uniform(key, d, t):
    return np.float64(stream_word(key, d + 1, t) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(cache=True)
def _tables(cards, m, allowed, seats, theta, need, z):
    """``z[i, a, b]``: the total proposal weight of giving cards ``cards[i:m]`` to the
    three seats when ``seats[0]`` still needs ``a`` and ``seats[1]`` ``b``."""
    z[:, :, :] = 0.0
    z[m, 0, 0] = 1.0
    for i in range(m - 1, -1, -1):
        c = cards[i]
        rest = m - i
        for a in range(min(need[seats[0]], rest) + 1):
            for b in range(min(need[seats[1]], rest - a) + 1):
                t = 0.0
                if a > 0 and (allowed[seats[0]] >> c) & 1:
                    t += theta[0, c] * z[i + 1, a - 1, b]
                if b > 0 and (allowed[seats[1]] >> c) & 1:
                    t += theta[1, c] * z[i + 1, a, b - 1]
                if rest - a - b > 0 and (allowed[seats[2]] >> c) & 1:
                    t += theta[2, c] * z[i + 1, a, b]
                z[i, a, b] = t


@nb.njit(cache=True)
def _draw(cards, m, allowed, seats, theta, need, z, key, d, hands):
    """Draw one world from the product proposal into ``hands`` (added to what they hold);
    returns the log of its proposal weight (without the normaliser)."""
    a = need[seats[0]]
    b = need[seats[1]]
    logq = 0.0
    for i in range(m):
        c = cards[i]
        rest = m - i
        u = _uniform(key, d, i) * z[i, a, b]
        w0 = theta[0, c] * z[i + 1, a - 1, b] if a > 0 and (allowed[seats[0]] >> c) & 1 else 0.0
        w1 = theta[1, c] * z[i + 1, a, b - 1] if b > 0 and (allowed[seats[1]] >> c) & 1 else 0.0
        w2 = (theta[2, c] * z[i + 1, a, b]
              if rest - a - b > 0 and (allowed[seats[2]] >> c) & 1 else 0.0)
        if u < w0 or (w1 == 0.0 and w2 == 0.0):
            k = 0
            a -= 1
        elif u < w0 + w1 or w2 == 0.0:
            k = 1
            b -= 1
        else:
            k = 2
        hands[seats[k]] |= np.int64(1) << c
        logq += np.log(theta[k, c])
    return logq


CACHE_BITS = 14  # a likelihood cache of 2^14 (seat, dealt hand) entries


def new_cache() -> tuple[np.ndarray, np.ndarray]:
    """An empty likelihood cache: keys (-1: free) and values."""
    return np.full(1 << CACHE_BITS, -1, np.int64), np.zeros(1 << CACHE_BITS)


@nb.njit(cache=True, inline="always")
def _slot(keys, key):
    """The cache slot of ``key``: where it is, or the free slot it would take (-1: the
    probe found neither, the table being full there)."""
    mask = keys.shape[0] - 1
    h = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - CACHE_BITS))
    for step in range(16):
        j = (h + step) & mask
        if keys[j] == key or keys[j] == -1:
            return j
    return -1


@nb.njit(cache=True)
def world_likelihood(hands, played_by, seats, rows, n_rows, ctx_ints, ctx_low, ctx_cap,
                     ctx_need, thr, ctx_f, rates, T, trump_masks, kinds, lvl0, n_levels, cells,
                     make, opp, scratch, cache_keys, cache_vals):
    """Product of P(call) over the other seats' calls: each seat's hand at bid time is its
    world hand plus the cards it played (``played_by``). ``rows[s, :n_rows[s]]``: seat
    ``s``'s context rows. Each seat's factor is kept in the cache by (seat, dealt hand):
    the worlds of one view, and of a seat's next views, repeat hands."""
    out = 1.0
    for k in range(3):
        s = seats[k]
        if n_rows[s] > 0:
            dealt = hands[s] | played_by[s]
            key = (np.int64(s) << 32) | dealt
            j = _slot(cache_keys, key)
            if j >= 0 and cache_keys[j] == key:
                out *= cache_vals[j]
                continue
            f = hand_likelihood(dealt, rows[s, :n_rows[s]], ctx_ints, ctx_low, ctx_cap,
                                ctx_need, thr, ctx_f, rates, T, trump_masks, kinds, lvl0,
                                n_levels, cells, make, opp, scratch)
            if j >= 0:
                cache_keys[j] = key
                cache_vals[j] = f
            out *= f
    return out


@nb.njit(cache=True)
def _ess(w, n):
    s = 0.0
    s2 = 0.0
    for i in range(n):
        s += w[i]
        s2 += w[i] * w[i]
    return s * s / s2 if s2 > 0.0 else 0.0


@nb.njit(cache=True)
def _marginals(cards, m, allowed, seats, theta, need, z, f, marg):
    """The exact share of the proposal's worlds in which each card goes to each seat
    (``marg[k, card]``), by a forward pass over the tables ``z``."""
    f[:, :, :] = 0.0
    f[0, need[seats[0]], need[seats[1]]] = 1.0
    marg[:, :] = 0.0
    for i in range(m):
        c = cards[i]
        rest = m - i
        for a in range(min(need[seats[0]], rest) + 1):
            for b in range(min(need[seats[1]], rest - a) + 1):
                p = f[i, a, b]
                if p == 0.0 or z[i, a, b] == 0.0:
                    continue
                p /= z[i, a, b]
                if a > 0 and (allowed[seats[0]] >> c) & 1:
                    q = p * theta[0, c] * z[i + 1, a - 1, b]
                    marg[0, c] += q
                    f[i + 1, a - 1, b] += q
                if b > 0 and (allowed[seats[1]] >> c) & 1:
                    q = p * theta[1, c] * z[i + 1, a, b - 1]
                    marg[1, c] += q
                    f[i + 1, a, b - 1] += q
                if rest - a - b > 0 and (allowed[seats[2]] >> c) & 1:
                    q = p * theta[2, c] * z[i + 1, a, b]
                    marg[2, c] += q
                    f[i + 1, a, b] += q


@nb.njit(cache=True)
def _fit(cards, m, allowed, seats, theta, need, z, f, marg, target):
    """Move the card weights until the proposal's card shares are the ``target`` shares
    (iterative proportional fitting, a few damped sweeps)."""
    for _sweep in range(FIT_SWEEPS):
        _tables(cards, m, allowed, seats, theta, need, z)
        _marginals(cards, m, allowed, seats, theta, need, z, f, marg)
        for i in range(m):
            c = cards[i]
            hi = 0.0
            for k in range(3):
                if marg[k, c] > 0.0:
                    theta[k, c] *= ((target[k, c] + 1e-3) / (marg[k, c] + 1e-3)) ** 0.7
                hi = max(hi, theta[k, c])
            for k in range(3):
                theta[k, c] = max(theta[k, c] / hi, 1.0 / THETA_RANGE)
    _tables(cards, m, allowed, seats, theta, need, z)
    _marginals(cards, m, allowed, seats, theta, need, z, f, marg)


@nb.njit(cache=True)
def _mixture_draw(beta, total, cards, m, allowed, seats, theta, need, z, classes, sizes,
                  table, fixed, me, own, key, d, hands, played_by, rows, n_rows, ctx_ints,
                  ctx_low, ctx_cap, ctx_need, thr, ctx_f, rates, T, trump_masks, kinds, lvl0,
                  n_levels, cells, make, opp, scratch, cache_keys, cache_vals):
    """Draw ``d`` of the defensive mixture (the uniform with probability ``beta``, else the
    product proposal) into ``hands``; returns its likelihood and the mixture's density
    relative to the uniform's (the importance weight is their ratio)."""
    for s in range(4):
        hands[s] = fixed[s]
    hands[me] = own
    if _uniform(key, d, 63) < beta:
        r, _k = draw_index(stream_word(key, d + 1, 62), 0, total)
        world_at(r, need, seats, BINOM, classes, sizes, table, hands)
        logq = 0.0
        for k in range(3):
            h = hands[seats[k]] & ~fixed[seats[k]]
            while h != 0:
                c = lowest_bit(h)
                h &= h - 1
                logq += np.log(theta[k, c])
    else:
        logq = _draw(cards, m, allowed, seats, theta, need, z, key, d, hands)
    # density relative to the uniform's 1/total: beta + (1 - beta) * total * prod / Z
    dens = beta
    if beta < 1.0:
        norm = z[0, need[seats[0]], need[seats[1]]]
        dens += (1.0 - beta) * np.exp(logq + np.log(np.float64(total)) - np.log(norm))
    lik = world_likelihood(hands, played_by, seats, rows, n_rows, ctx_ints, ctx_low, ctx_cap,
                           ctx_need, thr, ctx_f, rates, T, trump_masks, kinds, lvl0, n_levels,
                           cells, make, opp, scratch, cache_keys, cache_vals)
    return lik, dens


@nb.njit(cache=True)
def weighted_worlds(me, own, fixed, forbid, counts, played, played_by, ess_target, max_draws,
                    enumerate_max, pilot, pilot_rounds, shrink, warm, theta_seats, key, rows,
                    n_rows,
                    ctx_ints, ctx_low, ctx_cap, ctx_need, thr, ctx_f, rates, T, trump_masks,
                    kinds, lvl0, n_levels, cache_keys, cache_vals, out_hands, out_w):
    """Worlds of seat ``me``'s view with their posterior weights (see the module
    docstring), written to ``out_hands[:k]`` (4 hands, the view's seats) and
    ``out_w[:k]``. ``played``: every card gone from the hands; ``played_by[s]``: the cards
    seat ``s`` played. At most ``enumerate_max`` consistent worlds are all taken; else
    ``pilot`` draws in each of ``pilot_rounds`` pilot rounds, their card shares shrunk
    toward the proposal's by ``shrink`` pseudo-draws. ``theta_seats[s, card]``:
    the card weights per seat, read as the start when ``warm`` (one pilot round, not a
    uniform one first) and written back, so that a player's next decision starts where
    this one ended.
    Returns ``(k, draws, ess, exhaustive)``; ``k`` is 0 when no world fits the play."""
    seats = other_seats(me)
    free, allowed, need = view_arrays(me, own, fixed, forbid, counts, played)
    classes = np.zeros(N_CLASSES, np.int64)
    sizes = np.zeros(N_CLASSES, np.int64)
    table = np.zeros((N_CLASSES + 1, 9, 9), np.int64)
    total = count_worlds(free, allowed, need, seats, BINOM, classes, sizes, table)
    cells = np.zeros(N_KINDS, np.int64)
    make = np.zeros((N_KINDS, n_levels + 1))
    opp = np.zeros((N_KINDS, n_levels + 1))
    scratch = np.zeros(8 + N_KINDS * (n_levels + 2) + 4)
    hands = np.zeros(4, np.int64)
    if total == 0:
        return 0, 0, 0.0, True
    if total <= enumerate_max and total <= out_w.shape[0]:
        for r in range(total):
            for s in range(4):
                hands[s] = fixed[s]
            hands[me] = own
            world_at(r, need, seats, BINOM, classes, sizes, table, hands)
            out_hands[r, :] = hands
            out_w[r] = world_likelihood(hands, played_by, seats, rows, n_rows, ctx_ints,
                                        ctx_low, ctx_cap, ctx_need, thr, ctx_f, rates, T,
                                        trump_masks, kinds, lvl0, n_levels, cells, make, opp,
                                        scratch, cache_keys, cache_vals)
        return total, total, _ess(out_w, total), True
    cards = np.zeros(32, np.int64)
    m = 0
    rest = free
    while rest != 0:
        cards[m] = lowest_bit(rest)
        rest &= rest - 1
        m += 1
    theta = np.ones((3, 32))
    if warm:
        for k in range(3):
            for c in range(32):
                theta[k, c] = theta_seats[seats[k], c]
    z = np.zeros((m + 1, 9, 9))
    f = np.zeros((m + 1, 9, 9))
    marg = np.zeros((3, 32))
    target = np.zeros((3, 32))
    _tables(cards, m, allowed, seats, theta, need, z)
    _marginals(cards, m, allowed, seats, theta, need, z, f, marg)
    d = 0  # draws so far (the stream position of each)
    pilot_w = np.zeros(pilot)
    pilot_h = np.zeros((pilot, 4), np.int64)
    beta = DEFENSIVE if warm else 1.0  # a cold start's first round is uniform draws
    rounds = 1 if warm else pilot_rounds
    for rnd in range(rounds):
        # tempered: the early rounds fit the proposal to likelihood^tau, flatter than the
        # posterior, so that their few draws still say which way each card leans
        tau = (rnd + 1) / rounds
        for p in range(pilot):
            lik, dens = _mixture_draw(beta, total, cards, m, allowed, seats, theta, need, z,
                                       classes, sizes, table, fixed, me, own, key, d, hands,
                                       played_by, rows, n_rows, ctx_ints, ctx_low, ctx_cap,
                                       ctx_need, thr, ctx_f, rates, T, trump_masks, kinds,
                                       lvl0, n_levels, cells, make, opp, scratch, cache_keys,
                                       cache_vals)
            pilot_w[p] = lik ** tau / dens
            pilot_h[p, :] = hands
            d += 1
        tot = 0.0
        for p in range(pilot):
            tot += pilot_w[p]
        if tot <= 0.0:
            continue
        ess_p = _ess(pilot_w, pilot)
        # the posterior card shares, shrunk toward the proposal's by the pilot's ESS
        for k in range(3):
            for c in range(32):
                target[k, c] = 0.0
        for p in range(pilot):
            for k in range(3):
                h = pilot_h[p, seats[k]] & free
                while h != 0:
                    c = lowest_bit(h)
                    h &= h - 1
                    target[k, c] += pilot_w[p] / tot
        for k in range(3):
            for c in range(32):
                target[k, c] = (ess_p * target[k, c] + shrink * marg[k, c]) / (ess_p + shrink)
        _fit(cards, m, allowed, seats, theta, need, z, f, marg, target)
        beta = DEFENSIVE
    for k in range(3):
        for i in range(m):
            theta_seats[seats[k], cards[i]] = theta[k, cards[i]]
    k_out = 0
    cap = min(max_draws, out_w.shape[0])
    # the last pilot round drew from an exactly normalised proposal with the untempered
    # likelihood: its draws are importance samples of the posterior as good as any, kept
    if pilot <= cap:
        for p in range(pilot):
            out_w[p] = pilot_w[p]
            out_hands[p, :] = pilot_h[p, :]
        k_out = pilot
    ess = _ess(out_w, k_out) if k_out else 0.0
    while k_out < cap and ess < ess_target:
        lik, dens = _mixture_draw(beta, total, cards, m, allowed, seats, theta, need, z,
                                     classes, sizes, table, fixed, me, own, key, d, hands,
                                     played_by, rows, n_rows, ctx_ints, ctx_low, ctx_cap,
                                     ctx_need, thr, ctx_f, rates, T, trump_masks, kinds, lvl0,
                                     n_levels, cells, make, opp, scratch, cache_keys, cache_vals)
        out_w[k_out] = lik / dens
        out_hands[k_out, :] = hands
        d += 1
        k_out += 1
        if k_out % BATCH == 0:
            ess = _ess(out_w, k_out)
            if ess >= ess_target:
                break
    ess = _ess(out_w, k_out)
    return k_out, d, ess, False
