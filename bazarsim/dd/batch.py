"""Parallel DD tables: many deals, every contract kind, one search context per thread.

The (deal, contract) pairs are split into chunks (one pair each by default). One worker
per thread takes chunk after chunk from a shared atomic counter (dynamic scheduling,
since solve times are heavy-tailed) and reuses its one search context, transposition
table included, for every pair it solves (generation counter, no clearing), since a
fresh context (2 MB of new pages) costs a fair share of an average solve. Results are
flat arrays, ready for a DataFrame / Parquet.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.core import cgutils
from numba.core import types as nbtypes
from numba.extending import intrinsic

from bazarsim.core.bits import popcount32
from bazarsim.core.cards import validate_hands
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.dd.search import (
    DEFAULT_TT_BITS,
    M_AUTO,
    O_ALL,
    S_NODES,
    ZERO,
    new_context,
    reach_deal,
    solve_deal,
)
from bazarsim.rules.play import (
    SEAT_ORDER,
    ContractPlay,
    clockwise_seats,
    contract_play,
)
from bazarsim.rules.rulesets import DEFAULT_RULESET, Ruleset, get_ruleset

# The fields of a DD result: :func:`dd_tables` names its columns ``{KIND}_{field}``, and
# the rows of :func:`bazarsim.dd.solver.dd_table` carry them beside ``contract`` and
# ``leader``. ``nodes``: the exact solve's (the capot probes not counted).
DD_FIELDS = ("ns_points", "ew_points", "total", "nodes", "capot_ns", "capot_ew")


@intrinsic
def fetch_add(typingctx, arr, inc):
    """Atomically add ``inc`` to ``arr[0]`` (an int64 array); return the old value.

    The work queue of :func:`dd_tables_kernel`: each thread takes the next chunk of work
    from one shared counter (an LLVM ``atomicrmw``, which, unlike a thread id, can be
    cached).
    """
    if not (isinstance(arr, nbtypes.Array) and arr.dtype == nbtypes.int64):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = cgutils.gep_inbounds(builder, ary.data, 0)
        val = context.cast(builder, args[1], signature.args[1], nbtypes.int64)
        return builder.atomic_rmw("add", ptr, val, "seq_cst")

    return nbtypes.int64(arr, inc), codegen


def play_by_kind(ruleset: Ruleset, kinds, count_tricks=False) -> ContractPlay:
    """The :class:`~bazarsim.rules.play.ContractPlay` of several contract kinds in one:
    each field gains a first axis, row ``j`` for ``kinds[j]`` (:func:`play_of_kind` takes
    one out in a kernel)."""
    parts = [contract_play(ruleset, k, count_tricks) for k in kinds]
    return ContractPlay(*(np.stack(field) for field in zip(*parts, strict=True)))


@nb.njit(cache=True, forceinline=True)
def play_of_kind(plays, j):
    """Row ``j`` of a :func:`play_by_kind`: the ContractPlay of one kind."""
    return ContractPlay(
        plays.points[j], plays.strength[j], plays.order[j], plays.above[j], plays.rules[j]
    )


@nb.njit(parallel=True, cache=True)
def dd_tables_kernel(
    deals, leaders, plays, capot_plays, with_capot, opts, method, tt_bits, chunk, threads,
):
    """NS points ``[n, k]``, all the points ``[n, k]``, capot flags ``[n, k, 2]`` (NS, EW)
    and node counts ``[n, k]``.

    ``plays``, ``capot_plays``: the :func:`play_by_kind` of the ``k`` contract kinds, on
    points and on tricks (the capot probes).

    Work items are (deal, contract) pairs, ``chunk`` of them per task, so that even a
    handful of deals keeps every thread busy (one heavy deal no longer holds a chunk of
    four). One worker per thread (``threads`` of them, the ``prange``) makes one search
    context and takes chunk after chunk from a shared counter until none is left. Values
    never depend on what a table held before (entries of older generations are invisible
    and count as free slots), so they are the same whatever thread solves what. Node
    counts can differ a little on large positions: the hints' slots hash the generation,
    which counts the searches a context ran before.
    """
    n = deals.shape[0]
    k = plays.points.shape[0]
    ns = np.zeros((n, k), np.int16)
    totals = np.zeros((n, k), np.int16)
    capot = np.zeros((n, k, 2), np.bool_)
    nodes = np.zeros((n, k), np.int64)
    n_items = n * k
    n_chunks = (n_items + chunk - 1) // chunk
    n_workers = min(threads, n_chunks)
    next_chunk = np.zeros(1, np.int64)
    for _w in nb.prange(n_workers):
        ctx = new_context(tt_bits, opts)
        hands = np.zeros(4, np.int64)
        while True:
            ci = fetch_add(next_chunk, 1)
            if ci >= n_chunks:
                break
            for item in range(ci * chunk, min(n_items, (ci + 1) * chunk)):
                _solve_item(
                    item, k, deals, leaders, plays, capot_plays, with_capot, method, ctx, hands,
                    ns, totals, capot, nodes,
                )
    return ns, totals, capot, nodes


@nb.njit(cache=True)
def _solve_item(
    item, k, deals, leaders, plays, capot_plays, with_capot, method, ctx, hands, ns, totals,
    capot, nodes,
):
    """Solve work item ``item`` (deal ``item // k``, contract ``item % k``) into the outputs."""
    stats = ctx.stats
    d = item // k
    j = item % k
    for i in range(4):
        hands[i] = deals[d, i]
    lead = leaders[d]
    before = stats[S_NODES]
    v, total = solve_deal(hands, lead, play_of_kind(plays, j), ctx, method)
    ns[d, j] = v
    totals[d, j] = total
    nodes[d, j] = stats[S_NODES] - before
    if with_capot:
        # Taking every trick takes every point: a side can only have a capot
        # when the exact value gives it everything, so most probes are skipped.
        if v == total:
            capot[d, j, 0] = reach_deal(
                hands, lead, ZERO, popcount32(hands[0]), play_of_kind(capot_plays, j), ctx
            )
        if v == 0:
            capot[d, j, 1] = not reach_deal(
                hands, lead, ZERO, ZERO + 1, play_of_kind(capot_plays, j), ctx
            )


def dd_tables(
    deals,
    dealer=0,
    ruleset=DEFAULT_RULESET,
    capot: bool = True,
    opts: int = O_ALL,
    method: int = M_AUTO,
    tt_bits: int = DEFAULT_TT_BITS,
    chunk: int = 1,
    kinds=None,
) -> dict[str, np.ndarray]:
    """DD tables of many full deals (``uint32[n, 4]``, N E S W), first lead left of dealer.

    ``kinds``: the contract kinds to solve (default every kind of the ruleset).

    ``dealer`` is one seat for all deals or an array of seats. Returns the column form of
    :func:`~bazarsim.dd.solver.dd_table`'s rows: for every contract kind of the ruleset,
    ``{KIND}_{field}`` for the :data:`DD_FIELDS` (the capot flags with ``capot`` only),
    e.g. ``H_ns_points``, ``H_ew_points``, ``H_total``, ``H_nodes``, ``H_capot_ns``.
    """
    rs = get_ruleset(ruleset)
    arr = np.asarray(deals)
    if arr.ndim == 1:
        arr = arr[None, :]
    for row in arr:
        validate_hands(row, full=False)
    direction = rs.play.direction
    # C order always: a column pick of several rows comes out in Fortran order, and each
    # layout is a compile of its own (the second one took a minute the first call).
    hands = np.ascontiguousarray(arr.astype(np.int64)[:, clockwise_seats(SEAT_ORDER, direction)])
    dealers = np.broadcast_to(np.asarray(dealer, np.int64), (len(hands),))
    leaders = clockwise_seats((dealers + 1) % 4, direction)
    kinds = [rs.check_kind(k) for k in kinds] if kinds is not None else list(rs.kinds)
    plays = play_by_kind(rs, kinds)
    old = nb.set_parallel_chunksize(1)
    try:
        ns, totals, cap, nodes = dd_tables_kernel(
            hands, np.ascontiguousarray(leaders), plays, play_by_kind(rs, kinds, True), capot,
            opts, method, tt_bits, chunk, nb.get_num_threads(),
        )
    finally:
        nb.set_parallel_chunksize(old)
    out: dict[str, np.ndarray] = {}
    for j, kind in enumerate(kinds):
        fields = {
            "ns_points": ns[:, j].copy(),
            "ew_points": totals[:, j] - ns[:, j],
            "total": totals[:, j].copy(),
            "nodes": nodes[:, j].copy(),
        }
        if capot:
            fields["capot_ns"] = cap[:, j, 0].copy()
            fields["capot_ew"] = cap[:, j, 1].copy()
        out.update((f"{KIND_NAMES[kind]}_{f}", col) for f, col in fields.items())
    return out

