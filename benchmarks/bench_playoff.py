"""Strength of the PIMC players by duplicate play-offs (:mod:`bazarsim.players.playoff`).

Each play-off plays the same random bazar deals in every contract kind twice, the two
teams swapping seats, with the same random streams; the figure is team A's card points
minus team B's per game, with its standard error over deals (paired). Rows: PIMC-20
against random (the floor), against PIMC-5 (worlds), and against itself with one kind
of inference switched off (voids; trump and led-suit limits): what each is worth.
"""

from __future__ import annotations

from bazarsim.players.pimc import I_ALL, I_LIMITS, I_VOIDS
from bazarsim.players.playoff import Team, playoff

from .common import row

GROUP = "play-offs (duplicate)"


def collect(quick: bool) -> list[dict]:
    deals = 8 if quick else 150
    best = Team("pimc", 20)
    rivals = [Team("random"), Team("pimc", 5), Team("pimc", 20, I_ALL & ~I_VOIDS),
              Team("pimc", 20, I_ALL & ~I_LIMITS)]
    rows = []
    for rival in rivals:
        res = playoff(best, rival, deals=deals, seed=11)
        note = (f"mean of {res['deals']} bazar deals x {len(res['kinds'])} kinds, each "
                f"played twice with the teams swapped ({res['games']} games), seed 11; "
                f"± {res['se_diff']:.2f} (paired SE); per kind: "
                + ", ".join(f"{k} {v['mean_diff']:+.1f}" for k, v in res["per_kind"].items()))
        rows.append(row(GROUP, f"{best.label} against {rival.label}", res["mean_diff"],
                        "points/game", note))
    return rows
