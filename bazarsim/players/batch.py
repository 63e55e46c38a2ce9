"""Many deals played out: single-dummy columns (every contract kind played out by four PIMC
players) and play-out tables of any four players, in parallel (one search context per
thread, work items from a shared counter, as :mod:`bazarsim.dd.batch`).

Each (deal, kind) is a pure function of the seed, the deal's index in the run and its
cards (:func:`~.pimc.decision_key`), so the columns are the same whatever the thread
count, chunk, shard or scheduler.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba as nb
import numpy as np

from bazarsim.core.cards import validate_hands
from bazarsim.core.contracts import KIND_NAMES, parse_kind
from bazarsim.dd.batch import fetch_add, play_by_kind, play_of_kind
from bazarsim.dd.search import DEFAULT_TT_BITS, O_ALL, new_context
from bazarsim.deals.generator import seed_key
from bazarsim.evaluate.hands import shown_cards_kernel
from bazarsim.players.alphamu import DEFAULT_DEPTH
from bazarsim.players.pimc import I_ALL, O_POINTS
from bazarsim.players.players import DEFAULT_WORLDS, check_sd_player
from bazarsim.players.playout_kernel import PLAYER_KINDS, REC_NONE, play_out
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.play import SEAT_ORDER, clockwise_seats
from bazarsim.rules.rulesets import DEFAULT_RULESET, get_ruleset


@nb.njit(nogil=True, cache=True)
def playout_tables_kernel(deals, leaders, indices, plays, bela, shown, kinds, players,
                          n_worlds, depths, infer, run_key, tt_bits, next_item, ns, tricks):
    """Play (deal, kind) items out, taking the next from the shared counter ``next_item``
    until none is left, into ``ns`` and ``tricks`` ``[n, k]``; the players of each seat
    are ``players``, ``n_worlds``, ``depths``, ``infer`` (one entry a kernel seat). Runs without the
    GIL: :func:`playout_tables` starts one call per thread on the same arrays (a
    ``prange`` kernel would compile the whole play-out a second time)."""
    n = deals.shape[0]
    k = plays.points.shape[0]
    n_items = n * k
    ctx = new_context(tt_bits, O_ALL)
    cards = np.zeros(32, np.int64)
    seats = np.zeros(32, np.int64)
    used = np.zeros(32, np.int64)
    values = np.zeros((32, 32), np.float64)
    dd = np.zeros(32, np.int64)
    violations = np.zeros(1, np.int64)
    hands = np.zeros(4, np.int64)
    while True:
        item = fetch_add(next_item, 1)
        if item >= n_items:
            break
        d = item // k
        j = item % k
        for i in range(4):
            hands[i] = deals[d, i]
        # constants as typed ints: a literal argument would compile play_out (and the
        # search under it) a second time, for that literal
        p, t = play_out(hands, leaders[d], play_of_kind(plays, j), bela[j], shown[d, j],
                        players, n_worlds, depths, np.int64(O_POINTS), np.int64(0), np.int64(0),
                        infer, run_key, indices[d], kinds[j], ctx, np.int64(REC_NONE), cards,
                        seats, used, values, dd, violations)
        ns[d, j] = p
        tricks[d, j] = t


def sd_tables(deals, dealer=0, ruleset=DEFAULT_RULESET, kinds=None, worlds: int = DEFAULT_WORLDS,
              seed: int = 7, indices=None, infer: int = I_ALL,
              tt_bits: int = DEFAULT_TT_BITS, player: str = "pimc",
              depth: int = DEFAULT_DEPTH) -> dict[str, np.ndarray]:
    """Single-dummy columns of many full deals (``uint32[n, 4]``, N E S W), first lead
    from the dealer's left as for the DD tables: ``{KIND}_sd_ns`` and
    ``{KIND}_sd_tricks_ns`` per kind, four hidden-card players (``player``: ``pimc`` or
    ``alphamu``, ``depth`` its own moves kept common) of ``worlds`` worlds.
    ``indices``: each deal's number in its run (default 0..n-1), which keys its play's
    random streams."""
    seats = [(check_sd_player(player), int(worlds), int(infer), int(depth))] * 4
    ns, tricks, kinds = playout_tables(deals, seats, dealer, ruleset, kinds, seed, indices,
                                       tt_bits)
    out: dict[str, np.ndarray] = {}
    for j, kind in enumerate(kinds):
        out[f"{KIND_NAMES[kind]}_sd_ns"] = ns[:, j].copy()
        out[f"{KIND_NAMES[kind]}_sd_tricks_ns"] = tricks[:, j].copy()
    return out


def playout_tables(deals, seats, dealer=0, ruleset=DEFAULT_RULESET, kinds=None,
                   seed: int = 7, indices=None,
                   tt_bits: int = DEFAULT_TT_BITS) -> tuple[np.ndarray, np.ndarray, list]:
    """N-S points and tricks ``[n, kinds]`` of many full deals, each kind played out by
    the players ``seats`` (four ``(name, worlds, infer[, depth])``, N E S W; names
    ``pimc``, ``alphamu``, ``dd``, ``random``; ``depth``: alpha-mu's own moves kept
    common), first lead from the dealer's left; and the kinds played."""
    rs = get_ruleset(ruleset)
    arr = np.asarray(deals)
    if arr.ndim == 1:
        arr = arr[None, :]
    for row in arr:
        validate_hands(row, full=True)
    if len(seats) != 4:
        raise ValueError(f"give four seats' players, not {len(seats)}")
    direction = rs.play.direction
    perm = clockwise_seats(SEAT_ORDER, direction)
    seats = [tuple(s) + (DEFAULT_DEPTH,) * (4 - len(s)) for s in seats]
    players = np.array([PLAYER_KINDS[s[0]] for s in seats], np.int64)[perm]
    n_worlds = np.array([int(s[1]) for s in seats], np.int64)[perm]
    infer = np.array([int(s[2]) for s in seats], np.int64)[perm]
    depths = np.array([int(s[3]) for s in seats], np.int64)[perm]
    if (n_worlds <= 0).any():
        raise ValueError(f"worlds must be at least 1, not {n_worlds.min()}")
    hands = np.ascontiguousarray(arr.astype(np.int64)[:, perm])
    dealers = np.broadcast_to(np.asarray(dealer, np.int64), (len(hands),))
    leaders = np.ascontiguousarray(clockwise_seats((dealers + 1) % 4, direction))
    kinds = ([rs.check_kind(parse_kind(k) if isinstance(k, str) else k) for k in kinds]
             if kinds is not None else list(rs.kinds))
    idx = np.arange(len(hands), dtype=np.int64) if indices is None else np.asarray(
        indices, np.int64)
    T = compiled_rules(rs)
    shown = np.zeros((len(hands), len(kinds), 4), np.int64)
    deals32 = np.ascontiguousarray(arr.astype(np.uint32))
    d8 = dealers.astype(np.int8).copy()
    for j, kind in enumerate(kinds):
        part = np.zeros((len(hands), 4), np.int64)
        shown_cards_kernel(deals32, d8, kind, T, part)
        shown[:, j, :] = part[:, perm]
    bela = np.ascontiguousarray(T.bela_suit[kinds].astype(np.int64))
    ns = np.zeros((len(hands), len(kinds)), np.int16)
    tricks = np.zeros((len(hands), len(kinds)), np.int8)
    next_item = np.zeros(1, np.int64)
    args = (hands, leaders, np.ascontiguousarray(idx), play_by_kind(rs, kinds), bela, shown,
            np.asarray(kinds, np.int64), players, n_worlds, depths, infer,
            np.uint64(seed_key(seed)), tt_bits, next_item, ns, tricks)
    threads = min(nb.get_num_threads(), ns.size)
    if threads <= 1:
        playout_tables_kernel(*args)
    else:  # the kernel releases the GIL: each thread plays items until none is left
        with ThreadPoolExecutor(threads) as pool:
            for job in [pool.submit(playout_tables_kernel, *args) for _ in range(threads)]:
                job.result()
    return ns, tricks, kinds
