"""Duplicate play-offs of listening players on deals bid by policies.

A dataset of ``simulate --auction POLICY --sd`` holds, for every deal, its auction, the
final contract and N-S's points when four plain PIMC players play it (``contract_sd_ns``).
A play-off plays each contract again with other players at some seats and compares the
declaring side's card points with another table's, deal by deal: the same deal, auction
and random streams (a plain player's decision stream depends on the seed, the deal's
index, the card's number and the seat, never on who sits beside it), so what differs is
the listening. Per deal the difference is one number and the deals are independent: the
mean difference and its standard error over the deals.

The play-offs (:data:`PLAYOFFS`): ``declaring`` (the declaring side listens, the
defenders do not; against four plain players), ``defending`` (the other way round), and
``soft-hard`` (soft listeners, the policies' own likelihood, declare against hard
listeners, then hard declare against soft; soft's gain in both roles together). A hard
listener takes the policies' calls as constraints: softness 0 and a floor of
:data:`HARD_FLOOR` (a world whose calls the policy would not make weighs a millionth, so a
decision never runs out of worlds).
"""

from __future__ import annotations

import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from functools import lru_cache

import numpy as np

from bazarsim.beliefs.auctioned import (
    AuctionColumns,
    column_source,
    listening_playout,
    plain_players,
    row_contract,
)
from bazarsim.beliefs.listener import ListeningPimcPlayer
from bazarsim.core.errors import BazarsimError
from bazarsim.rules.auction import run_auction
from bazarsim.store.parts import read_dataframe, read_manifest

PLAYOFFS = ("declaring", "defending", "soft-hard")
HARD_FLOOR = 1e-6
_COLUMNS = ["index", "dealer", "N", "E", "S", "W", "auction", "declarer", "contract_kind",
            "contract_level", "contract_capot", "contract_contra", "contract_sd_ns"]


def hard(policy):
    """The policy's calls as hard constraints (see the module docstring)."""
    return replace(policy, likelihood_softness=0.0, likelihood_floor=HARD_FLOOR)


def seat_players(playoff: str, table: int, declarer_side: int, src: AuctionColumns,
                 worlds: int, seed: int) -> list:
    """The four players (N E S W) of one table of a play-off (0: the table compared with
    the other, 1: the other table)."""
    plain = plain_players(worlds, seed)
    if playoff in ("declaring", "defending") and table == 1:
        return plain
    soft = [ListeningPimcPlayer(src.policies, src.model, worlds, seed=seed) for _ in range(4)]
    if playoff in ("declaring", "defending"):
        listens = declarer_side if playoff == "declaring" else 1 - declarer_side
        return [soft[s] if s % 2 == listens else plain[s] for s in range(4)]
    if playoff != "soft-hard":
        raise BazarsimError(f"unknown play-off {playoff!r}: {', '.join(PLAYOFFS)}", playoff)
    strict = {s: hard(p) for s, p in src.policies.items()}
    stiff = [ListeningPimcPlayer(strict, src.model, worlds, seed=seed) for _ in range(4)]
    first, second = (soft, stiff) if table == 0 else (stiff, soft)
    return [first[s] if s % 2 == declarer_side else second[s] for s in range(4)]


@lru_cache(maxsize=2)
def _run_source(out_dir: str) -> tuple[AuctionColumns, int, int]:
    """A dataset's column source (policies, the loaded model), worlds and seed: read once
    a process, not once a batch of deals."""
    params = read_manifest(out_dir)
    return column_source(params), params["auction"]["sd"]["worlds"], params["seed"]


def _play_rows(args) -> tuple[list[tuple[int, int, int]], list]:
    """Worker: (index, table 0's, table 1's declaring-side points) of some deals, and the
    (ess, draws, capped) of their weighted decisions."""
    out_dir, playoff, rows = args
    src, worlds, seed = _run_source(out_dir)
    rs = src.ruleset
    res, decisions = [], []
    for r in rows:
        hands = [int(r[s]) for s in "NESW"]
        dealer = int(r["dealer"])
        con = row_contract(r)
        calls = run_auction(r["auction"], dealer, rs).history
        side = con.side
        pts = []
        for table in (0, 1):
            if table == 1 and playoff != "soft-hard":  # four plain players: the dataset's
                ns = int(r["contract_sd_ns"])
            else:
                players = seat_players(playoff, table, side, src, worlds, seed)
                ns = listening_playout(hands, con, dealer, calls, src.policies, src.model,
                                       worlds, seed, int(r["index"]), rs, players,
                                       decisions)[0]
            total = rs.total_points(con.kind)
            pts.append(ns if side == 0 else total - ns)
        res.append((int(r["index"]), pts[0], pts[1]))
    return res, decisions


def listening_playoff(out_dir: str, playoff: str, deals: int | None = None,
                      processes: int = 1, progress=None) -> dict:
    """Play ``playoff`` (see :data:`PLAYOFFS`) on the first ``deals`` contracts of a
    ``simulate --auction --sd`` dataset: the mean difference in the declaring side's card
    points (table 0 minus table 1) with its standard error, the per-deal rows, and the
    weighted decisions' median ESS and draws and the share that hit the draw cap."""
    if playoff not in PLAYOFFS:
        raise BazarsimError(f"unknown play-off {playoff!r}: {', '.join(PLAYOFFS)}", playoff)
    params = read_manifest(out_dir)
    if "sd" not in params.get("auction", {}):
        raise BazarsimError(f"{out_dir} was not written by simulate --auction ... --sd")
    df = read_dataframe(out_dir, _COLUMNS).sort_values("index")
    df = df[df["declarer"] >= 0]
    if deals is not None:
        df = df.head(deals)
    records = df.to_dict("records")
    size = max(1, min(25, len(records) // max(1, 4 * processes)))
    jobs = [(str(out_dir), playoff, records[i:i + size]) for i in range(0, len(records), size)]
    rows: list[tuple[int, int, int]] = []
    decisions: list = []
    if processes <= 1:
        done = map(_play_rows, jobs)
    else:
        pool = ProcessPoolExecutor(processes)
        done = pool.map(_play_rows, jobs)
    try:
        for part, seen in done:
            rows += part
            decisions += seen
            if progress:
                progress(len(rows), len(records))
    finally:
        if processes > 1:
            pool.shutdown()
    diff = np.array([a - b for _i, a, b in rows], np.float64)
    n = len(diff)
    return {"playoff": playoff, "deals": n,
            "mean": float(diff.mean()) if n else math.nan,
            "se": float(diff.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan,
            "differ": int((diff != 0).sum()),
            "weighted_decisions": len(decisions),
            "median_ess": float(np.median([e for e, _d, _c in decisions])) if decisions
            else math.nan,
            "median_draws": float(np.median([d for _e, d, _c in decisions])) if decisions
            else math.nan,
            "capped": float(np.mean([c for _e, _d, c in decisions])) if decisions else math.nan,
            "rows": rows}
