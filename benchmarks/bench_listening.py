"""Players that listen to the auction, on deals bid by the shipped policies: duplicate
play-offs and the DD bias of the contracts bid (:mod:`bazarsim.beliefs.playoff`,
:func:`bazarsim.analysis.bias.contract_bias_table`).

The deals: ``simulate --auction careful,E=bold,W=bold --sd -w 20`` of seed 2027 (not the
seed the shipped hand model was fitted on), bazar, 3,000 deals (full size; 24 deals at 4
worlds quick). Each deal's final contract is played by four plain PIMC-20 players and by
four listening players (ESS 20), each assuming the policies the table used. The
play-offs replay every contract with listeners on the declaring side only, on the
defending side only (each against the four plain players, same streams), and soft
listeners against hard ones (seats swapped). The bias tables, DD against plain and
against listening single dummy, are written to reports/listening-bias.md.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from bazarsim.analysis.bias import contract_bias_table
from bazarsim.beliefs.playoff import PLAYOFFS, listening_playoff

from .common import row

GROUP = "listening players (duplicate)"
ROOT = Path(__file__).resolve().parent.parent
FULL = {"deals": 3000, "worlds": 20, "out": ROOT / "runs" / "listen-bazar"}
QUICK = {"deals": 24, "worlds": 4}
POLICIES = "careful,E=bold,W=bold"
SEED = 2027
NAMES = {"declaring": "listeners declaring against PIMC-20 (ESS 20)",
         "defending": "listeners defending against PIMC-20 (ESS 20)",
         "soft-hard": "soft listeners against hard (both roles)"}
# the listeners' gain from a play-off's mean (the declaring side's points, first table
# minus second): the defending listeners sit on the other side
GAIN_SIGN = {"declaring": 1, "defending": -1, "soft-hard": 1}


def make_dataset(out: Path, deals: int, worlds: int, workers: int) -> None:
    """Write (or finish: simulate resumes) the policy-bid dataset."""
    cmd = [sys.executable, "-m", "bazarsim", "simulate", "-n", str(deals), "--out", str(out),
           "--seed", str(SEED), "--auction", POLICIES, "--sd", "-w", str(worlds), "-q"]
    if workers > 1:
        cmd += ["--workers", str(workers)]
    subprocess.run(cmd, check=True)


def overall(table: dict) -> tuple[float, float, int]:
    """P(make) under DD and under SD over every contract of a bias table."""
    n = sum(r["n"] for r in table["rows"])
    dd = sum(r["p_make_dd"] * r["n"] for r in table["rows"])
    sd = sum(r["p_make_sd"] * r["n"] for r in table["rows"])
    return dd / n, sd / n, n


def bias_markdown(tables: dict[str, dict], deals: int) -> str:
    """The two bias tables, per kind (every level together) and per contract."""
    from bazarsim.report.bias import bias_records, bias_title
    from bazarsim.report.records import Format, render_records

    lines = ["# DD bias of the contracts bid, without and with auction inference", "",
             f"`python -m benchmarks.run --only bench_listening` ({deals:,} deals of seed "
             f"{SEED}, bazar, bid by {POLICIES}). Written by benchmarks/bench_listening.py.",
             ""]
    lines += ["## Per kind, every level together", "",
              "| kind | contracts | DD % | SD plain % | SD listening % |",
              "|---|---:|---:|---:|---:|"]
    kinds: dict[str, dict] = {}
    for which, t in tables.items():
        for r in t["rows"]:
            k = kinds.setdefault(r["kind"], {"n": 0, "dd": 0.0, "plain": 0.0, "listen": 0.0})
            if which == "plain":
                k["n"] += r["n"]
                k["dd"] += r["p_make_dd"] * r["n"]
            k[which] += r["p_make_sd"] * r["n"]
    for name, k in kinds.items():
        lines.append(f"| {name} | {k['n']:,} | {100 * k['dd'] / k['n']:.1f} | "
                     f"{100 * k['plain'] / k['n']:.1f} | {100 * k['listen'] / k['n']:.1f} |")
    for t in tables.values():
        lines += ["", render_records(bias_records(t, Format.md), Format.md,
                                     title=bias_title(t))]
    return "\n".join(lines).replace(f"{ROOT}/", "") + "\n"


def collect(quick: bool) -> list[dict]:
    size = QUICK if quick else FULL
    tmp = None
    if quick:
        tmp = tempfile.TemporaryDirectory()
        out = Path(tmp.name) / "listen"
    else:
        out = size["out"]
    try:
        make_dataset(out, size["deals"], size["worlds"], 1 if quick else 2)
        rows = []
        for playoff in PLAYOFFS:
            res = listening_playoff(str(out), playoff, processes=1 if quick else 2)
            note = (f"mean of {res['deals']:,} contracts (each played at two tables, same "
                    f"streams): the listeners' (soft's) card points a deal minus those of "
                    f"the players in their seats at the other table, ± "
                    f"{res['se']:.2f} (paired SE); {res['differ']:,} deals played "
                    f"differently; {res['weighted_decisions']:,} weighted decisions: median "
                    f"ESS {res['median_ess']:.1f} from {res['median_draws']:.0f} draws, "
                    f"{100 * res['capped']:.1f} % at the draw cap")
            rows.append(row(GROUP, NAMES[playoff], GAIN_SIGN[playoff] * res["mean"],
                            "points/deal", note))
        tables = {"plain": contract_bias_table(out), "listen": contract_bias_table(out,
                                                                                   listen=True)}
        dd, plain, n = overall(tables["plain"])
        _dd, listen, _n = overall(tables["listen"])
        for name, value in (("P(make) of the contracts bid, double dummy", dd),
                            ("P(make) of the contracts bid, single dummy PIMC", plain),
                            ("P(make) of the contracts bid, single dummy listening", listen)):
            rows.append(row(GROUP, name, 100 * value, "%",
                            f"counted over {n:,} contracts of {size['deals']:,} deals (bid by "
                            f"{POLICIES}); tables in reports/listening-bias.md"))
        if not quick:
            (ROOT / "reports" / "listening-bias.md").write_text(
                bias_markdown(tables, size["deals"]))
        return rows
    finally:
        if tmp is not None:
            tmp.cleanup()
