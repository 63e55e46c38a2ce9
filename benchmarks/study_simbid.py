"""The worked study of the simulation bidder: where it disagrees with its base policy, and
what each choice scored on the real deals; with the play-offs' results and the speed rows.

Deals: the solved bazar dataset of the match study (``runs/match-bazar-7-40000``), deal
``i`` dealt by seat ``i mod 4``. The shipped ``simulation`` policy bids at N-S, careful
at E-W (each seat with the hand model's estimates for its own hand). Every call the
bidder simulates is logged; where it chose another call than careful's, both calls are
scored on the real deal as the bidder judged them (the auction played on by careful at
the other seats and by the base thresholds at its own, the final contract solved double
dummy, full scoring). The disagreements are grouped by what the auction was when the call
was made, what careful called and what the bidder chose, and the hand's class (its
longest suit and its card points in the kind of the bid).

    python -m benchmarks.study_simbid [--deals 600] [--out reports/simulation-bidding.md]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from bazarsim.beliefs.evidence import bid_deal, load_hand_model
from bazarsim.core.cards import SEATS, SUITS, format_hand
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.evaluate.hands import evaluate_hands
from bazarsim.matches.deals import load_deals
from bazarsim.matches.playoff import playoff_summary
from bazarsim.matches.policy import load_policy
from bazarsim.matches.run import load_spec, read_bidder_stats, read_playoff
from bazarsim.rules.auction import BID, parse_call, run_auction
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.simbid.advice import AuctionQuery, judge_calls
from bazarsim.simbid.bidder import SimulationBidder

ROOT = Path(__file__).resolve().parent.parent
DATASET = ROOT / "runs" / "match-bazar-7-40000"
PLAYOFFS = {"bazar": ROOT / "runs" / "simbid-bazar",
            "bazar-blot": ROOT / "runs" / "simbid-bazar-blot"}


def situation(seat: int, state) -> str:
    """What the auction was when the call was made."""
    if state.last_bid is None:
        return "no bid yet"
    if state.contra:
        return "after a contra"
    ours = state.last_bid[0] % 2 == seat % 2
    return "partner holds the bid" if ours else "opponents hold the bid"


def kind_of(call_text: str, base_text: str | None = None) -> str:
    """A call's kind of change: ``bid VK``, ``pass``...; a bid of the base call's kind by
    how many levels it differs (``VK 2 levels higher``)."""
    c = parse_call(call_text)
    if c.type != BID:
        return {0: "pass", 2: "contra", 3: "recontra"}[c.type]
    if base_text is not None:
        b = parse_call(base_text)
        if b.type == BID and b.kind == c.kind and b.capot == c.capot and b.level != c.level:
            d = c.level - b.level
            return (f"{KIND_NAMES[c.kind]} {abs(d)} level{'s' * (abs(d) > 1)} "
                    f"{'higher' if d > 0 else 'lower'}")
    return "bid " + KIND_NAMES[c.kind] + ("-CAPOT" if c.capot else "")


def hand_class(rs, hand: int, call_text: str) -> str:
    """The hand's longest suit and its card points in the kind of the bid (BK without)."""
    c = parse_call(call_text)
    kind = c.kind if c.type == BID else 4
    pts = int(evaluate_hands(np.array([hand], np.uint32), kind, rs)["points"][0])
    lengths = [bin((hand >> (8 * s)) & 0xFF).count("1") for s in range(4)]
    top = max(range(4), key=lambda s: lengths[s])
    return f"{lengths[top]} {SUITS[top]}, {10 * (pts // 10)}-{10 * (pts // 10) + 9} pts"


def disagreements(deals: int) -> tuple[list[dict], dict]:
    rs = get_ruleset("bazar")
    table = load_deals(DATASET)
    model = load_hand_model(None, rs)
    sim, careful = load_policy("simulation"), load_policy("careful")
    pols = {0: sim, 1: careful, 2: sim, 3: careful}
    logs: list[dict] = []
    stats = defaultdict(int)

    def make(policy, m, seed):
        b = SimulationBidder(policy, m, seed)
        b.log = logs
        made.append(b)
        return b

    made: list = []
    t0 = time.perf_counter()
    for i in range(deals):
        if table.void[i]:
            continue
        hands = [int(h) for h in table.hands[i]]
        dealer = i % 4
        start = len(logs)
        bid_deal(hands, dealer, rs, pols, model, key=i, bidders=make)
        for rec in logs[start:]:
            rec["deal"] = i
            rec["hands"] = hands
    for b in made:
        for k, v in b.stats.items():
            stats[k] += v
    stats["seconds"] = time.perf_counter() - t0
    out = []
    for rec in logs:
        if rec["chosen"] == rec["base"]:
            continue
        seat = rec["seat"]
        state = run_auction(rec["auction"], rec["dealer"], rs)
        calls = list(state.history)
        q = AuctionQuery(rs, seat, rec["dealer"], rec["hand"], tuple(calls),
                         {s: sim if s == seat else careful for s in range(4)}, model)
        base, chosen = parse_call(rec["base"]), parse_call(rec["chosen"])
        res = judge_calls(q, np.array([rec["hands"]], np.uint32), calls=[base, chosen])
        real = {str(r.call): int(r.net[0]) for r in res}
        out.append({**rec, "situation": situation(seat, state),
                    "class": hand_class(rs, rec["hand"], rec["chosen"]),
                    "real_base": real[rec["base"]], "real_chosen": real[rec["chosen"]],
                    "sim_gain": rec["means"][rec["chosen"]] - rec["means"][rec["base"]]})
    return out, dict(stats)


def _mean_se(x) -> tuple[float, float]:
    x = np.asarray(x, float)
    if len(x) < 2:
        return float(x.mean()) if len(x) else math.nan, math.nan
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def playoff_lines() -> list[str]:
    lines = ["| ruleset | pairs | deals | simulation wins | points a deal (sim - careful) | "
             "calls simulated | simulated calls changed | 2 SE (smallest gain detectable) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, out in PLAYOFFS.items():
        if not (out / "_playoff.json").exists():
            lines.append(f"| {name} | not run | | | | | | |")
            continue
        spec = load_spec(out)
        wins, rows = read_playoff(out)
        s = playoff_summary(wins, rows, spec.target)
        st = read_bidder_stats(out).get("a", {})
        calls, simd, changed = st.get("calls", 0), st.get("simulated", 0), st.get("changed", 0)
        lines.append(
            f"| {name} to {spec.target} | {s['pairs']:,} | {s['deals']:,} | "
            f"{100 * s['a_win']:.1f} % ± {100 * s['se_paired']:.1f} | "
            f"{s['a_points_per_deal']:+.1f} ± {s['se_points_per_deal']:.1f} | "
            f"{simd:,} of {calls:,} ({100 * simd / max(calls, 1):.0f} %) | "
            f"{changed:,} ({100 * changed / max(simd, 1):.0f} %) | "
            f"{200 * s['se_paired']:.1f} pp; {2 * s['se_points_per_deal']:.1f} points |")
    return lines


def speed_lines() -> list[str]:
    path = ROOT / "reports" / "benchmarks.json"
    rows = [r for r in json.loads(path.read_text())["results"]
            if r["group"] == "bidding by simulation"] if path.exists() else []
    out = ["| measure | value | how measured |", "|---|---|---|"]
    out += [f"| {r['name']} | {r['value']:.3g} {r['unit']} | {r['note']} |" for r in rows]
    return out


def write(out: Path, deals: int) -> None:
    recs, stats = disagreements(deals)
    keep = ROOT / "runs" / "study-simbid.json"  # the records, to read again without a rerun
    keep.parent.mkdir(exist_ok=True)
    keep.write_text(json.dumps({"stats": stats, "records": recs}, default=int))
    groups: dict = defaultdict(list)
    for r in recs:
        groups[(r["situation"], kind_of(r["base"]), kind_of(r["chosen"], r["base"]))].append(r)
    lines = ["# Bidding by simulation: the worked study", "",
             "Written by `python -m benchmarks.study_simbid` "
             f"(--deals {deals}); the play-offs by `bazarsim match simulation careful` "
             "(commands below), the speed rows by `python -m benchmarks.run --only "
             "bench_simbid`.", "",
             "## Strength: duplicate play-offs against careful", "",
             "The shipped `simulation` policy (careful's thresholds; its close calls, those a "
             "move of the thresholds by 0.05 could change, decided by simulation on 200 "
             "worlds, double dummy) against `careful`, the better of the two shipped "
             "policies, in duplicate matches (same deals, sides swapped), deal results double "
             "dummy from the solved datasets of the match study. Points a deal: the "
             "simulation team's score minus careful's, clustered by pair for the SE. ± one "
             "paired SE.", "",
             "```",
             "bazarsim match simulation careful --dataset runs/match-bazar-7-40000 "
             "--model runs/model-bazar-7-40000.json -m 1000 --chunk 10 --out runs/simbid-bazar",
             "bazarsim match simulation careful --dataset runs/match-bazar-blot-7-40000 "
             "--model runs/model-bazar-blot-7-40000.json --to 301 -m 90 --chunk 2 "
             "--out runs/simbid-bazar-blot",
             "```", "", *playoff_lines(), "",
             "## Speed", "", *speed_lines(), "",
             f"## Where it disagrees with careful ({deals:,} deals of bazar)", "",
             f"The simulation policy at N-S, careful at E-W, on deals 0..{deals - 1} of "
             "runs/match-bazar-7-40000 (deal i dealt by seat i mod 4): "
             f"{stats.get('calls', 0):,} calls by the simulation bidder, "
             f"{stats.get('simulated', 0):,} simulated, {stats.get('changed', 0):,} changed "
             f"from careful's call ({stats.get('seconds', 0.0):,.0f} s). Each change is "
             "scored on the real deal both ways (the auction played on by careful at the "
             "other seats and by the base thresholds at the bidder's own, DD, full scoring): "
             "`real gain` is the chosen call's score minus careful's call's on that deal "
             "(mean ± SE over the group), `expected gain` what the simulation expected over "
             "its worlds.", "",
             "| when | careful | chosen | times | expected gain | real gain | "
             "commonest hand class |", "|---|---|---|---|---|---|---|"]
    for (sit, base, chosen), rs in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:14]:
        real = _mean_se([r["real_chosen"] - r["real_base"] for r in rs])
        classes = defaultdict(int)
        for r in rs:
            classes[r["class"]] += 1
        top = max(classes, key=classes.get)
        lines.append(f"| {sit} | {base} | {chosen} | {len(rs)} | "
                     f"{np.mean([r['sim_gain'] for r in rs]):+.1f} | "
                     f"{real[0]:+.1f} ± {real[1]:.1f} | {top} ({classes[top]}) |")
    allreal = _mean_se([r["real_chosen"] - r["real_base"] for r in recs])
    lines += ["", f"Over all {len(recs):,} changed calls: real gain {allreal[0]:+.1f} ± "
              f"{allreal[1]:.1f} points a call, expected "
              f"{np.mean([r['sim_gain'] for r in recs]):+.1f}.", "",
              "### The most frequent kind of change, deal by deal", "",
              "| deal | seat | hand | auction so far | careful | chosen | real: careful | "
              "real: chosen |", "|---|---|---|---|---|---|---|---|"]
    if groups:
        key = max(groups, key=lambda k: len(groups[k]))
        for r in groups[key][:12]:
            lines.append(f"| {r['deal']} | {SEATS[r['seat']]} | {format_hand(r['hand'])} | "
                         f"{r['auction'] or '(none)'} | {r['base']} | {r['chosen']} | "
                         f"{r['real_base']:+d} | {r['real_chosen']:+d} |")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=600)
    ap.add_argument("--out", default=str(ROOT / "reports" / "simulation-bidding.md"))
    args = ap.parse_args(argv)
    write(Path(args.out), args.deals)


if __name__ == "__main__":
    main()
