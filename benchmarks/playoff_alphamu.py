"""Duplicate play-off: alpha-mu against PIMC-20, as declaring side and as defenders
(issue 67).

Deals of seed 67 (bazar), ``--deals`` a kind, each kind on its own deals (kind j plays
deals j x deals ...), dealer rotating, first lead from the dealer's left, both teams at
20 worlds on the same random streams (so the same worlds at the same decision). Each deal
is played three times: alpha-mu at N-S and PIMC at E-W (``ns_a``), the other way round
(``ns_b``), and PIMC at all four seats (``ns_p``). The play-off's figure is the paired
difference ``ns_a - ns_b`` (alpha-mu's card points over PIMC's across the two seatings,
points a deal); the all-PIMC play splits it into alpha-mu's gain where its side declares
(``ns_a - ns_p`` when N-S are the declaring side, ``ns_p - ns_b`` when E-W are) and where
it defends. The declaring side of a deal and kind is the side taking at least half the
points double dummy (the side that would bid it). Standard errors over the deals (one
kind a deal: independent).

``python -m benchmarks.playoff_alphamu [--deals 500] [--depth 2]`` writes
``reports/alphamu-playoff.md`` and ``.json`` (about 30 minutes at 500 on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SEED = 67
WORLDS = 20
KINDS = ("S", "H", "D", "C", "BK", "VK")


def _se(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / np.sqrt(len(x)))


def play(per: int, depth: int) -> dict:
    """The three play-outs of every deal and its DD declaring side, per kind."""
    from bazarsim.core.contracts import parse_kind
    from bazarsim.dd.batch import dd_tables
    from bazarsim.deals.generator import DealGenerator
    from bazarsim.players.batch import playout_tables
    from bazarsim.rules.rulesets import get_ruleset

    rs = get_ruleset("bazar")
    a = ("alphamu", WORLDS, 15, depth)
    b = ("pimc", WORLDS, 15, depth)
    out = {}
    for j, k in enumerate(KINDS):
        t = time.perf_counter()
        index = np.arange(j * per, (j + 1) * per, dtype=np.int64)
        hands = DealGenerator(SEED, ruleset=rs).deal(int(index[0]), per).hands
        dealer = (index & 3).astype(np.int64)
        ns_a = playout_tables(hands, [a, b, a, b], dealer, rs, [k], SEED, index)[0][:, 0]
        ns_b = playout_tables(hands, [b, a, b, a], dealer, rs, [k], SEED, index)[0][:, 0]
        ns_p = playout_tables(hands, [b, b, b, b], dealer, rs, [k], SEED, index)[0][:, 0]
        dd = dd_tables(hands, dealer=dealer, ruleset=rs, kinds=[parse_kind(k)])
        out[k] = {"ns_a": ns_a.astype(int), "ns_b": ns_b.astype(int),
                  "ns_p": ns_p.astype(int), "ns_declares": 2 * dd[f"{k}_ns_points"].astype(int)
                  >= dd[f"{k}_total"].astype(int)}
        d = (ns_a - ns_b).astype(float)
        print(f"{k}: {d.mean():+.2f} ± {_se(d):.2f} points a deal, "
              f"{time.perf_counter() - t:.0f} s", flush=True)
    return out


def summary(runs: dict) -> dict:
    """Per kind and over all: the paired difference, and its split by the side alpha-mu
    sat on (declaring, defending), each with its standard error."""
    rows = {}
    cols = {"diff": [], "declaring": [], "defending": []}
    for k, r in runs.items():
        a, b, p = (r[x].astype(float) for x in ("ns_a", "ns_b", "ns_p"))
        gain_ns, gain_ew = a - p, p - b
        decl = np.where(r["ns_declares"], gain_ns, gain_ew)
        dfn = np.where(r["ns_declares"], gain_ew, gain_ns)
        parts = {"diff": a - b, "declaring": decl, "defending": dfn}
        rows[k] = {"deals": len(a), **{f"{n}": float(v.mean()) for n, v in parts.items()},
                   **{f"{n}_se": _se(v) for n, v in parts.items()}}
        for n, v in parts.items():
            cols[n].append(v)
    whole = {n: np.concatenate(v) for n, v in cols.items()}
    rows["all"] = {"deals": len(whole["diff"]),
                   **{n: float(v.mean()) for n, v in whole.items()},
                   **{f"{n}_se": _se(v) for n, v in whole.items()}}
    return rows


def write(rows: dict, depth: int, seconds: float | None) -> None:
    lines = [
        "# Duplicate play-off: alpha-mu against PIMC-20",
        "",
        f"Written by `python -m benchmarks.playoff_alphamu --deals {rows['S']['deals']} "
        f"--depth {depth}`" + (f" ({seconds / 60:.0f} minutes on 2 cores)" if seconds else "")
        + "; the method is in the "
        "script's docstring. Points a deal: alpha-mu's card points over PIMC-20's across "
        "the two seatings of one deal, with the standard error over the deals; the split: "
        "alpha-mu's gain over an all-PIMC play of the same deal where its side declares "
        "(takes at least half the points double dummy) and where it defends.",
        "",
        f"| kind | deals | alpha-mu {depth} - PIMC-20 | declaring | defending |",
        "|---|---:|---:|---:|---:|",
    ]
    for k, r in rows.items():
        lines.append(f"| {k} | {r['deals']:,} | {r['diff']:+.2f} ± {r['diff_se']:.2f} | "
                     f"{r['declaring']:+.2f} ± {r['declaring_se']:.2f} | "
                     f"{r['defending']:+.2f} ± {r['defending_se']:.2f} |")
    text = "\n".join(lines) + "\n"
    (ROOT / "reports" / "alphamu-playoff.md").write_text(text)
    (ROOT / "reports" / "alphamu-playoff.json").write_text(json.dumps(
        {"seed": SEED, "worlds": WORLDS, "depth": depth, "rows": rows}, indent=1))
    print(text)


def main(argv: list[str] | None = None) -> None:
    sys.path.insert(0, str(ROOT))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=500, help="deals a kind")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--from-npz", type=Path, help=argparse.SUPPRESS)  # arrays of a run
    args = ap.parse_args(argv)
    t = time.perf_counter()
    seconds = None
    if args.from_npz:
        z = np.load(args.from_npz)
        runs = {k: {x: z[f"{k}_{x}"] for x in ("ns_a", "ns_b", "ns_p", "ns_declares")}
                for k in KINDS if f"{k}_ns_a" in z.files}
    else:
        runs = play(args.deals, args.depth)
        seconds = time.perf_counter() - t
    write(summary(runs), args.depth, seconds)


if __name__ == "__main__":
    main()
