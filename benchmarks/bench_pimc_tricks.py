"""Time per card-play decision, trick by trick: PIMC-20, the yardstick of issue 67, and
alpha-mu beside it (also as a ratio to PIMC-20 by trick and over a whole deal).

A player beyond PIMC may cost at most 10x PIMC-20's time per decision, and its cost, like
PIMC's, falls as the cards do: so the time is given per trick, on the same positions for
every player of :data:`PLAYERS` (a new ``decide(view)`` player is one more line there).
Positions: every decision of deals of a fixed seed (ruleset bazar, each kind in turn,
declarer and dealer in turn) played out by four PIMC-20 players (points objective, every
inference). Each player then decides every one of them in order, one player object a
seat for the deal (as ``play_deal`` keeps its players, its TT allocated before the deal),
timed around ``decide(view)`` (the view's constraints rebuilt from the history), one
Numba thread, kernels warm.

Rows per trick: the median of the decisions with a choice (a forced card is answered
before any world is drawn; trick 8 has only forced cards), and the mean over every
decision of the trick, forced ones included (what a play-out pays a card).
"""

from __future__ import annotations

import statistics
import time

from bazarsim.core.cards import SEATS, parse_card
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.deals.generator import DealGenerator
from bazarsim.players.players import AlphaMuPlayer, PimcPlayer
from bazarsim.players.playout import play_contract, play_deal
from bazarsim.players.view import PlayerView
from bazarsim.rules.rulesets import get_ruleset

from .common import numba_threads, row

GROUP = "card play by trick"
WORLDS = 20
RULESET = "bazar"
SEED = 67
PLAYERS = {f"PIMC-{WORLDS}": lambda: PimcPlayer(WORLDS, "points", SEED),
           f"alpha-mu-{WORLDS} depth 2": lambda: AlphaMuPlayer(WORLDS, "points", SEED, depth=2)}
BASE = f"PIMC-{WORLDS}"  # the yardstick: each other player's time is also given against it


def positions(n_deals: int) -> list[tuple]:
    """Per deal: (deal, contract, dealer, deal index, the 32 (seat, card) of its play by
    four PIMC-20 players)."""
    rs = get_ruleset(RULESET)
    deals = DealGenerator(SEED, ruleset=rs).deal(0, n_deals).hands
    out = []
    for d, deal in enumerate(deals):
        kind, by, dealer = KIND_NAMES[d % 6], d % 4, (d // 6) % 4
        rec = play_deal(deal, kind, by, "pimc", WORLDS, seed=SEED, dealer=dealer, ruleset=rs,
                        deal_index=d)
        play = [(SEATS.index(c["seat"]), parse_card(c["card"]))
                for t in rec["tricks"] for c in t["cards"]]
        out.append(([int(h) for h in deal], play_contract(kind, by, 0, rs), dealer, d, play))
    return out


def timings(make, games: list[tuple]) -> list[tuple[int, float, bool]]:
    """(trick, ms, had a choice) of ``make()``'s decision at every position of ``games``."""
    rs = get_ruleset(RULESET)
    log = []
    for deal, contract, dealer, index, play in games:
        players = [make() for _ in range(4)]
        for p in players:
            if hasattr(p, "_context"):
                p._context()  # the TT allocated outside the timing
        for i, (seat, _card) in enumerate(play):
            view = PlayerView.from_deal(deal, contract, play[:i], seat, dealer, rs,
                                        deal_index=index)
            legal = view.legal()
            t0 = time.perf_counter()
            players[seat].decide(view)
            log.append((i // 4 + 1, (time.perf_counter() - t0) * 1e3, legal & (legal - 1) != 0))
    return log


def collect(quick: bool) -> list[dict]:
    n_deals = 6 if quick else 120
    with numba_threads(1):
        games = positions(n_deals)
        logs = {}
        for name, make in PLAYERS.items():
            timings(make, games[:1])  # compiled, caches warm
            logs[name] = timings(make, games)
    how = (f"{n_deals} deals (seed {SEED}, {RULESET}, every kind) played out by four "
           f"PIMC-{WORLDS}, decide(view) timed once a position, 1 thread")
    rows = []
    for name, log in logs.items():
        for t in range(1, 9):
            chosen = [ms for tr, ms, choice in log if tr == t and choice]
            every = [ms for tr, ms, _choice in log if tr == t]
            if chosen:
                rows.append(row(GROUP, f"{name} decision with a choice, trick {t}",
                                statistics.median(chosen), "ms",
                                f"median of {len(chosen)} decisions ({len(every) - len(chosen)}"
                                f" forced left out); {how}"))
            rows.append(row(GROUP, f"{name} decision, trick {t}, every card",
                            statistics.fmean(every), "ms",
                            f"mean of {len(every)} decisions, forced ones included; {how}"))
        rows.append(row(GROUP, f"{name} decisions of a whole deal",
                        sum(ms for _t, ms, _c in log) / n_deals, "ms",
                        f"mean of {n_deals} deals, the 32 decisions' times summed; {how}"))
    base = logs[BASE]
    for name, log in logs.items():
        if name == BASE:
            continue
        for t in range(1, 8):
            mine = [ms for tr, ms, c in log if tr == t and c]
            theirs = [ms for tr, ms, c in base if tr == t and c]
            if mine and theirs:
                rows.append(row(GROUP, f"{name} / {BASE} time a decision, trick {t}",
                                statistics.median(mine) / statistics.median(theirs), "x",
                                f"ratio of the medians of the decisions with a choice; {how}"))
        rows.append(row(GROUP, f"{name} / {BASE} time of a whole deal",
                        sum(ms for _t, ms, _c in log) / sum(ms for _t, ms, _c in base), "x",
                        f"the 32 decisions' times summed over {n_deals} deals, ratio; {how}"))
    return rows
