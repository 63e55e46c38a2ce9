"""The DD bias table: how far double-dummy make rates are from hidden-card play.

A dataset simulated with both ``--dd`` and ``--sd`` holds, for every deal and kind, the
N-S card points with perfect play (``{K}_dd_ns``) and when four PIMC players play it
out (``{K}_sd_ns``), first lead from the dealer's left both times. Every bid of the kind
is scored both ways for each declaring side, by the rule of ``table bids``
(:func:`~bazarsim.analysis.bids.declarer_outcome`, :func:`~bazarsim.analysis.bids.score_bids`):
the same deal, side, declarations and bela, only the card play differs. So the two make
rates are paired, and per (kind, bid) the table gives

* P(make) under DD and under SD, each with its Wilson interval, and their difference
  with its paired standard error;
* P(SD makes | DD makes) and P(SD makes | DD fails) with their intervals: how often a
  bid DD calls made is lost at the table, and how often real play makes one DD calls
  down (defenders err);
* the mean card points the declaring side takes under SD minus DD, on the rows where DD
  makes the bid, with its paired standard error.

Rows are declaring sides, not seats: both seats of a side give the same play, so
counting a side once keeps the rows of one deal from being counted twice.

A dataset bid by policies (``simulate --auction POLICY --sd``) gives the table of the
contracts actually bid instead (:func:`contract_bias_table`): one row per kind, bid and
contra, each deal counted once for its declaring side and scored with its contra, DD
against the plain PIMC players or, with ``listen``, against the players that listen to
the auction (``contract_dd_*``, ``contract_sd_*``, ``contract_listen_*``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from bazarsim.analysis.bids import (
    Bid,
    beyond_cards_note,
    check_bid_options,
    declarer_outcome,
    play_name,
    ruleset_bids,
    score_bids,
    simulated_kinds,
)
from bazarsim.analysis.stats import wilson_interval
from bazarsim.core.contracts import CONTRA_NAMES, KIND_NAMES
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.simulation import ruleset_from_params
from bazarsim.store.location import resolve
from bazarsim.store.parts import (
    checked_part_files,
    part_schema,
    read_manifest,
    reading,
    stream_batches,
)

# per (kind, bid): declaring sides; made under DD, under SD, under both; the rows DD makes
# and the sum and sum of squares of their SD - DD points
_SUMS = ("n", "dd", "sd", "both", "gap_n", "gap", "gap2")


def bias_table(out: str | Path, kinds: list[str] | None = None,
               levels: list[int] | None = None, contra: str = "none",
               confidence: float = 0.95, batch_size: int = 1 << 16,
               listen: bool = False) -> dict:
    """The bias table of a dataset with DD and SD columns: ``{"rows": [...], ...}`` with
    one row per (kind, bid) (see the module docstring) and what the rows rest on. A
    dataset bid by policies gives :func:`contract_bias_table`; ``listen`` asks for its
    listening players."""
    out = resolve(out)
    manifest = read_manifest(out)
    if "auction" in manifest:
        if contra != "none":
            raise BazarsimError(f"--contra {contra}: {out} was bid by policies, and each "
                                "contract is scored with its own contra (rows per contra)")
        return contract_bias_table(out, kinds, levels, confidence, listen)
    if listen:
        raise BazarsimError(f"--listen needs a dataset bid by policies (simulate --auction "
                            f"POLICY --sd); {out} was not", str(out))
    missing = [f for f, key in (("--dd", "dd"), ("--sd", "sd")) if not manifest.get(key)]
    if missing:
        raise BazarsimError(f"{out} needs both double-dummy and single-dummy columns: "
                            f"simulate it with --dd --sd (it lacks {' and '.join(missing)})",
                            str(out))
    if not 0 < confidence < 1:
        raise BazarsimError(f"--confidence {confidence}: must be between 0 and 1")
    rs = ruleset_from_params(manifest)
    want = simulated_kinds(manifest, rs, kinds, out)
    contra_code = check_bid_options(rs, contra, levels)
    bids = ruleset_bids(rs, want, levels, capot=levels is None)
    sums = {k: np.zeros(len(bids)) for k in _SUMS}
    cols = ["index"]
    for k in want:
        kn = KIND_NAMES[k]
        cols += [f"{kn}_{p}_{x}" for p in ("dd", "sd") for x in ("ns", "capot")]
        cols += [f"{kn}_{x}_{s}" for x in ("declarations", "bela") for s in ("ns", "ew")]
    deals = 0
    with reading(out):
        for batch in stream_batches(checked_part_files(out), cols, batch_size):
            c = {name: batch.column(name).to_numpy(zero_copy_only=False) for name in cols}
            deals += len(c["index"])
            for kind in want:
                kn = KIND_NAMES[kind]
                of_kind = [j for j, b in enumerate(bids) if b.kind == kind]
                total = rs.total_points(kind)
                extra = [c[f"{kn}_{x}_{s}"] for x in ("declarations", "bela")
                         for s in ("ns", "ew")]
                for side in (0, 1):
                    rows = {p: declarer_outcome(side, total, c[f"{kn}_{p}_ns"],
                                                c[f"{kn}_{p}_capot"], *extra)
                            for p in ("dd", "sd")}
                    kind_bids = [bids[j] for j in of_kind]
                    made_dd = score_bids(rs, rows["dd"], kind_bids, contra_code)[0]
                    made_sd = score_bids(rs, rows["sd"], kind_bids, contra_code)[0]
                    gap = (rows["sd"]["points"][:, side]
                           - rows["dd"]["points"][:, side]).astype(np.float64)
                    for i, j in enumerate(of_kind):
                        for key, v in _paired_sums(made_dd[i], made_sd[i], gap).items():
                            sums[key][j] += v
    rows = [_row(bid, {k: v[j] for k, v in sums.items()}, confidence)
            for j, bid in enumerate(bids)]
    return {"dataset": str(out), "ruleset": rs.name, "deals": deals,
            "dd": play_name("dd", manifest), "sd": play_name("sd", manifest),
            "confidence": confidence, "rows": [r for r in rows if r["n"]],
            "beyond_cards": beyond_cards_note(rs, bids)}


def contract_bias_table(out: str | Path, kinds: list[str] | None = None,
                        levels: list[int] | None = None, confidence: float = 0.95,
                        listen: bool = False) -> dict:
    """The bias table of the contracts a dataset's policies bid (see the module
    docstring): rows per (kind, bid, contra), each deal's declaring side once."""
    out = resolve(out)
    manifest = read_manifest(out)
    auction = manifest.get("auction")
    if not auction or not auction.get("sd"):
        raise BazarsimError(f"{out} needs its contracts played out: simulate it with "
                            "--auction POLICY --sd", str(out))
    if not 0 < confidence < 1:
        raise BazarsimError(f"--confidence {confidence}: must be between 0 and 1")
    rs = ruleset_from_params(manifest)
    want = simulated_kinds(manifest, rs, kinds, out)
    check_bid_options(rs, "none", levels)
    sd = "listen" if listen else "sd"
    cols = ["index", "declarer", "contract_kind", "contract_level", "contract_capot",
            "contract_contra", "contract_dd_ns", "contract_dd_capot", f"contract_{sd}_ns",
            f"contract_{sd}_capot"]
    for k in want:
        kn = KIND_NAMES[k]
        cols += [f"{kn}_{x}_{s}" for x in ("declarations", "bela") for s in ("ns", "ew")]
    with reading(out):
        files = checked_part_files(out)
        lacking = [c for c in cols if c not in part_schema(files[0]).names]
        if lacking:
            raise BazarsimError(f"{out} lacks columns {', '.join(lacking[:4])}: simulate it "
                                "again with --auction POLICY --sd", str(out))
        frames = [b.to_pandas() for b in stream_batches(files, cols, 1 << 16)]
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)
    deals = len(df)
    df = df[(df["declarer"] >= 0) & df["contract_kind"].isin(want)]
    if levels is not None:
        df = df[df["contract_level"].isin(levels) & (df["contract_capot"] == 0)]
    rows = []
    groups = df.groupby(["contract_kind", "contract_level", "contract_capot",
                         "contract_contra"], sort=True)
    for (kind, level, capot, con), g in groups:
        kn = KIND_NAMES[kind]
        bid = Bid(int(kind), int(level), bool(capot))
        sums = dict.fromkeys(_SUMS, 0.0)
        for side in (0, 1):
            part = g[(g["declarer"] & 1) == side]
            if part.empty:
                continue
            extra = [part[f"{kn}_{x}_{s}"].to_numpy() for x in ("declarations", "bela")
                     for s in ("ns", "ew")]
            outcome = {p: declarer_outcome(side, rs.total_points(int(kind)),
                                           part[f"contract_{p}_ns"].to_numpy(),
                                           part[f"contract_{p}_capot"].to_numpy(), *extra)
                       for p in ("dd", sd)}
            md = score_bids(rs, outcome["dd"], [bid], int(con))[0][0]
            ms = score_bids(rs, outcome[sd], [bid], int(con))[0][0]
            gap = (outcome[sd]["points"][:, side]
                   - outcome["dd"]["points"][:, side]).astype(np.float64)
            for key, v in _paired_sums(md, ms, gap).items():
                sums[key] += v
        row = _row(bid, sums, confidence)
        row["contra"] = CONTRA_NAMES[int(con)]
        if row["contra"]:
            row["bid"] += f" {row['contra']}"
        rows.append(row)
    sd_name = play_name("sd", {"sd": auction["sd"]})
    return {"dataset": str(out), "ruleset": rs.name, "deals": deals, "contracts": len(df),
            "policies": {s: p["name"] for s, p in auction["policies"].items()},
            "dd": play_name("dd", manifest),
            "sd": sd_name + (", listening to the auction" if listen else ""),
            "confidence": confidence, "rows": [r for r in rows if r["n"]],
            "beyond_cards": None}


def _paired_sums(made_dd: np.ndarray, made_sd: np.ndarray, gap: np.ndarray) -> dict:
    """The :data:`_SUMS` of some rows: made under DD and under SD, and the declaring
    side's SD - DD points (``gap``, every row) summed where DD makes."""
    g = gap[made_dd]
    return {"n": len(made_dd), "dd": made_dd.sum(), "sd": made_sd.sum(),
            "both": (made_dd & made_sd).sum(), "gap_n": len(g), "gap": g.sum(),
            "gap2": (g * g).sum()}


def _row(bid, s: dict, confidence: float) -> dict:
    n = int(s["n"])
    dd, sd, both = int(s["dd"]), int(s["sd"]), int(s["both"])
    dd_lo, dd_hi = wilson_interval(dd, n, confidence)
    sd_lo, sd_hi = wilson_interval(sd, n, confidence)
    # paired difference of the two make indicators: each row is -1, 0 or +1
    diff = (sd - dd) / n if n else math.nan
    differ = (sd - both) + (dd - both)  # rows where exactly one play makes it
    var = (differ / n - diff * diff) * n / (n - 1) if n > 1 else math.nan
    kept_lo, kept_hi = wilson_interval(both, dd, confidence)
    saved = sd - both  # SD makes where DD fails
    saved_lo, saved_hi = wilson_interval(saved, n - dd, confidence)
    gn = int(s["gap_n"])
    gap = s["gap"] / gn if gn else math.nan
    gvar = (s["gap2"] / gn - gap * gap) * gn / (gn - 1) if gn > 1 else math.nan
    return {
        "kind": KIND_NAMES[bid.kind], "bid": bid.label, "n": n,
        "p_make_dd": dd / n if n else math.nan, "dd_low": dd_lo, "dd_high": dd_hi,
        "p_make_sd": sd / n if n else math.nan, "sd_low": sd_lo, "sd_high": sd_hi,
        "make_diff": diff, "se_make_diff": math.sqrt(max(var, 0.0) / n) if n > 1 else math.nan,
        "dd_made": dd, "p_sd_given_dd_made": both / dd if dd else math.nan,
        "kept_low": kept_lo, "kept_high": kept_hi,
        "dd_failed": n - dd,
        "p_sd_given_dd_failed": saved / (n - dd) if n - dd else math.nan,
        "saved_low": saved_lo, "saved_high": saved_hi,
        "points_gap": float(gap),
        "se_points_gap": math.sqrt(max(gvar, 0.0) / gn) if gn > 1 else math.nan,
    }
