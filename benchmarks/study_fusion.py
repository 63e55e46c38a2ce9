"""How often strategy fusion changes PIMC's card in the last three tricks (issue 67).

Deals of seed 67 (bazar, one random kind and declarer each) are played out by four PIMC-20
players; at every decision of the sixth trick (three tricks left) with a choice, the seat's
view draws W worlds from the exact sampler (every inference on), and the plain-Python
reference of tests/naive_infoset.py values each legal card twice on those same worlds:
PIMC's way (the seat choosing its later cards knowing the world) and the fusion-free way
(alpha-mu at full depth: one card for the worlds it cannot tell apart). Reported: how
often PIMC's best card is worse than the fusion-free best by the fusion-free values, by
how many points, and how much PIMC's value of its card overstates it, by contract kind.
Card points only (the declarations are settled by then).

``python -m benchmarks.study_fusion [--deals 150] [--worlds 8]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> None:
    sys.path.insert(0, str(ROOT))
    from bazarsim.core.cards import SEATS, format_card
    from bazarsim.core.contracts import KIND_NAMES, Contract
    from bazarsim.deals.generator import DealGenerator
    from bazarsim.players.pimc import I_ALL
    from bazarsim.players.playout import play_deal
    from bazarsim.players.view import PlayerView
    from bazarsim.rules.rulesets import get_ruleset
    from tests import naive_infoset as NI
    from tests import naive_play as NP

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=150)
    ap.add_argument("--worlds", type=int, default=8)
    args = ap.parse_args(argv)
    rs = get_ruleset("bazar")
    rng = np.random.default_rng(67)
    gen = DealGenerator(67)
    rows = defaultdict(list)  # kind -> (gap, overstatement) per position
    t0 = time.perf_counter()
    for i in range(args.deals):
        hands = [int(h) for h in gen.deal(i, 1).hands[0]]
        kind, declarer, dealer = int(rng.integers(6)), int(rng.integers(4)), i % 4
        con = Contract(0, kind, declarer)
        rec = play_deal(hands, con, declarer, players="pimc", worlds=20, seed=67,
                        dealer=dealer, ruleset=rs, deal_index=i)
        history = [(SEATS.index(c["seat"]), _card(c["card"])) for t in rec["tricks"]
                   for c in t["cards"]]
        for at in range(20, 24):  # the sixth trick: three tricks left
            seat = history[at][0]
            view = PlayerView.from_deal(hands, con, history[:at], seat, dealer, rs,
                                        deal_index=i)
            if bin(view.legal()).count("1") < 2:
                continue
            worlds = view.sample_worlds(args.worlds, rng, I_ALL)
            lead, cards = view.trick()
            trick = tuple((s, format_card(c)) for s, c in history[at - len(cards): at])
            named = [[[format_card(c) for c in range(32) if w[s] >> c & 1] for s in range(4)]
                     for w in worlds]
            name = KIND_NAMES[kind]
            a = (named, seat, lead, name, NP.RULES["bazar"], trick, 1)
            exact, pimc = NI.alpha_mu_values(*a), NI.pimc_values(*a)
            choice = max(pimc, key=lambda c: (pimc[c], c))
            best = max(exact.values())
            rows[name].append((best - exact[choice], pimc[choice] - exact[choice]))
        if (i + 1) % 25 == 0:
            print(f"{i + 1} deals, {sum(map(len, rows.values()))} positions, "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)
    print()
    print("| kind | positions | PIMC's card worse | mean loss a position | mean loss when worse "
          "| PIMC overstates its card by |")
    print("|---|---:|---:|---:|---:|---:|")
    allrows = [r for k in KIND_NAMES for r in rows.get(k, [])]
    for name, rs_rows in [*((k, rows[k]) for k in KIND_NAMES if rows.get(k)),
                          ("all", allrows)]:
        worse = [g for g, _ in rs_rows if g > 1e-9]
        print(f"| {name} | {len(rs_rows)} | {len(worse)} ({100 * len(worse) / len(rs_rows):.1f} %) "
              f"| {statistics.mean(g for g, _ in rs_rows):.2f} | "
              f"{statistics.mean(worse) if worse else 0:.1f} | "
              f"{statistics.mean(o for _, o in rs_rows):.2f} |")
    print(f"\n{args.deals} deals, W = {args.worlds} worlds a position, "
          f"{time.perf_counter() - t0:.0f} s")


def _card(text: str) -> int:
    from bazarsim.core.cards import parse_card

    return int(parse_card(text))


if __name__ == "__main__":
    main()
