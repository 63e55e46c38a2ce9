"""Where the listening defenders' gain comes from: the defending play-off of
bench_listening again on the first N contracts of its dataset, with one thing changed.

``python -m benchmarks.diag_defenders VARIANT N``: ``base`` (as the benchmark),
``partner-only`` (the declaring side's calls weigh nothing: floor 1), ``hard`` (softness
0, floor 1e-6), ``ess40``. Prints the defenders' gain over four PIMC-20 players (the
declaring side's points at the plain table minus at the listening one) with its SE.
"""

from __future__ import annotations

import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np

from bazarsim.beliefs.auctioned import (
    AuctionColumns,
    column_source,
    listening_playout,
    plain_players,
    row_contract,
)
from bazarsim.beliefs.listener import ListeningPimcPlayer
from bazarsim.beliefs.playoff import hard
from bazarsim.rules.auction import run_auction
from bazarsim.store.parts import read_dataframe, read_manifest

from .bench_listening import FULL

OUT = str(FULL["out"])
COLUMNS = ["index", "dealer", "N", "E", "S", "W", "auction", "declarer", "contract_kind",
           "contract_level", "contract_capot", "contract_contra", "contract_sd_ns"]
VARIANTS = ("base", "partner-only", "hard", "ess40")


def defenders(variant: str, side: int, src: AuctionColumns, seed: int) -> list:
    """The four players: listeners of ``variant`` on the defending side, PIMC-20 declaring."""
    pol, worlds = src.policies, 20
    if variant == "hard":
        pol = {s: hard(p) for s, p in pol.items()}
    elif variant == "partner-only":
        pol = {s: replace(p, likelihood_floor=1.0) if s % 2 == side else p
               for s, p in pol.items()}
    elif variant == "ess40":
        worlds = 40
    listeners = [ListeningPimcPlayer(pol, src.model, worlds, seed=seed) for _ in range(4)]
    plain = plain_players(20, seed)
    return [plain[s] if s % 2 == side else listeners[s] for s in range(4)]


def work(args) -> list[int]:
    variant, rows = args
    params = read_manifest(OUT)
    src = column_source(params)
    rs, seed = src.ruleset, params["seed"]
    gains = []
    for r in rows:
        dealer = int(r["dealer"])
        con = row_contract(r)
        calls = run_auction(r["auction"], dealer, rs).history
        ns = listening_playout([int(r[s]) for s in "NESW"], con, dealer, calls, src.policies,
                               src.model, 20, seed, int(r["index"]), rs,
                               defenders(variant, con.side, src, seed))[0]
        total = rs.total_points(con.kind)
        listening = ns if con.side == 0 else total - ns
        plain = int(r["contract_sd_ns"]) if con.side == 0 else total - int(r["contract_sd_ns"])
        gains.append(plain - listening)
    return gains


def main(variant: str, n: int) -> dict:
    if variant not in VARIANTS:
        raise SystemExit(f"variant: one of {', '.join(VARIANTS)}")
    df = read_dataframe(OUT, COLUMNS).sort_values("index")
    recs = df[df["declarer"] >= 0].head(n).to_dict("records")
    jobs = [(variant, recs[i:i + 25]) for i in range(0, len(recs), 25)]
    with ProcessPoolExecutor(2) as pool:
        d = np.array([g for part in pool.map(work, jobs) for g in part], float)
    return {"variant": variant, "deals": len(d), "defenders_gain": float(d.mean()),
            "se": float(d.std(ddof=1) / math.sqrt(len(d)))}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]))))
