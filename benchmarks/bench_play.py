"""Hidden-card (PIMC) play: bazarsim's players beside colver's IS-DD, on the same deals.

colver (a public Contree engine in Rust) plays with hidden cards by IS-DD: for each
decision it samples worlds consistent with what the seat saw and solves each double
dummy, the same idea as ours; ``colver.Agent`` with ``[worlds] source = "uniform"`` and
20 determinizations is its nearest equivalent to our PIMC-20. Rules: ``belote-fr``
without the undertrump duty (what colver plays, ``tests/colver_ref.py``), hearts trump.

* per decision, at tricks 1, 4 and 7: both deciding the same position (the first card of
  the trick with a choice, in a play-out by our PIMC-20 players); ours through
  :class:`~bazarsim.players.players.PimcPlayer` (the Python API, view and all), colver's
  through its agent after it observed the same history;
* per whole deal: four PIMC-20 players, ours in the parallel play-out kernel on one
  thread and on two (deals per second per core), colver's four agents.
"""

from __future__ import annotations

import importlib.util
import time

import numpy as np

from bazarsim.core.contracts import Contract
from bazarsim.deals.generator import DealGenerator
from bazarsim.players.batch import playout_tables
from bazarsim.players.players import PimcPlayer
from bazarsim.players.playout import play_deal
from bazarsim.players.view import PlayerView
from tests.colver_ref import COLVER_RULESET, COLVER_VERSION, colver_hands, to_colver_card

from .common import numba_threads, row, thread_counts

GROUP = "hidden-card play vs colver"
WORLDS = 20
KIND = 1  # hearts
TRICKS = (1, 4, 7)
COLVER_SPEC = f"""[play]
strategy = "isdd"
determinizations = {WORLDS}
[worlds]
source = "uniform"
"""


def positions(deals, seed: int) -> list[tuple[int, list, int, int]]:
    """Per deal and trick of :data:`TRICKS`: (deal number, history, seat, trick) where the
    seat to play has a choice, from a play-out by our PIMC-20 players."""
    out = []
    for d, deal in enumerate(deals):
        rec = play_deal(deal, "H", "N", worlds=WORLDS, seed=seed, dealer=d % 4,
                        ruleset=COLVER_RULESET, deal_index=d)
        history = []
        for t in rec["tricks"]:
            for c in t["cards"]:
                if t["trick"] in TRICKS and len(c["values"]) > 1 and not any(
                        p[3] == t["trick"] and p[0] == d for p in out):
                    out.append((d, list(history), "NESW".index(c["seat"]), t["trick"]))
                history.append(("NESW".index(c["seat"]), c["card"]))
    return out


def colver_agents(deal, dealer: int):
    import colver

    env = colver.Env.deal_with_hands(dealer, colver_hands(deal))
    env.set_contract(KIND, 80, 0, 0)
    env.set_phase_playing()
    agents = [colver.Agent(COLVER_SPEC, s, seed=s) for s in range(4)]
    for a in agents:
        a.init_deal(env)
    return env, agents


def colver_step(env, agents, card: int) -> None:
    action = to_colver_card(card)
    for a in agents:
        a.observe(env, action)
    env.step(action)


def collect(quick: bool) -> list[dict]:
    if importlib.util.find_spec("colver") is None:
        return []
    from bazarsim.core.cards import parse_card

    n_deals = 3 if quick else 12
    deals = DealGenerator(41, ruleset=COLVER_RULESET).deal(0, n_deals).hands
    con = Contract(0, KIND, 0)
    ours: dict[int, list[float]] = {t: [] for t in TRICKS}
    api: dict[int, list[float]] = {t: [] for t in TRICKS}
    theirs: dict[int, list[float]] = {t: [] for t in TRICKS}
    with numba_threads(1):
        pos = positions(deals, 5)
        for i, (d, history, seat, trick) in enumerate(pos):
            deal = deals[d]
            hist = [(s, parse_card(c)) for s, c in history]
            view = PlayerView.from_deal(deal, con, hist, seat, d % 4, COLVER_RULESET,
                                        deal_index=d)
            if i == 0:  # compiled and the TT allocated, by another player (its own TT)
                PimcPlayer(WORLDS, seed=3).decide(view)
            # the search alone, as a play-out runs it (its constraints kept as it goes),
            # then the whole API call (the view's constraints rebuilt from the history),
            # alternating which goes first; each on a fresh player (no TT entry of the other)
            order = ("search", "api") if i % 2 == 0 else ("api", "search")
            for what in order:
                fresh = PimcPlayer(WORLDS, seed=3)
                call = fresh.search_only(view)  # its TT allocated outside the timing
                t0 = time.perf_counter()
                if what == "search":
                    call()
                else:
                    fresh.decide(view)
                (ours if what == "search" else api)[trick].append(
                    (time.perf_counter() - t0) * 1e3)
            env, agents = colver_agents(deal, d % 4)
            for _s, c in hist:
                colver_step(env, agents, c)
            assert env.current_player() == seat
            t0 = time.perf_counter()
            agents[seat].decide(env)
            theirs[trick].append((time.perf_counter() - t0) * 1e3)
    rows = []
    note = (f"{WORLDS} worlds, 1 thread (colver: its own), same positions (first card "
            "with a choice of the trick), median of {n}")
    for t in TRICKS:
        a, b, c = np.array(ours[t]), np.array(theirs[t]), np.array(api[t])
        rows += [
            row(GROUP, f"bazarsim PIMC search, trick {t}", np.median(a), "ms",
                note.format(n=len(a)) + "; the kernel a play-out runs"),
            row(GROUP, f"bazarsim PimcPlayer.decide, trick {t}", np.median(c), "ms",
                note.format(n=len(c)) + "; Python API, the view rebuilt from the history"),
            row(GROUP, f"colver {COLVER_VERSION} IS-DD decision, trick {t}", np.median(b),
                "ms", note.format(n=len(b))),
            row(GROUP, f"colver / bazarsim search, trick {t}",
                np.median(b) / np.median(a), "x", "ratio of medians, from the rows above"),
        ]
    # whole play-outs: four PIMC-20 players
    seats = [("pimc", WORLDS, 15)] * 4
    dealers = np.arange(n_deals) % 4
    per_thread = {}
    for threads in thread_counts((1, 2)):
        with numba_threads(threads):
            playout_tables(deals[:1], seats, 0, COLVER_RULESET, [KIND], 9)  # warm
            t0 = time.perf_counter()
            playout_tables(deals, seats, dealers, COLVER_RULESET, [KIND], 9)
            per_thread[threads] = n_deals / (time.perf_counter() - t0)
        rows.append(row(GROUP, f"bazarsim 4 x PIMC-{WORLDS} play-outs, {threads} thread"
                        + ("s" if threads > 1 else ""), per_thread[threads], "deals/s",
                        f"one run of {n_deals} deals, hearts"))
    t0 = time.perf_counter()
    for d, deal in enumerate(deals):
        env, agents = colver_agents(deal, d % 4)
        while not env.is_terminal():
            action = agents[env.current_player()].action(env)
            for a in agents:
                a.observe(env, action)
            env.step(action)
    colver_rate = n_deals / (time.perf_counter() - t0)
    rows.append(row(GROUP, f"colver {COLVER_VERSION} 4 x IS-DD-{WORLDS} play-outs",
                    colver_rate, "deals/s", f"one run of the same {n_deals} deals, its own "
                    "threads"))
    rows.append(row(GROUP, "bazarsim (1 thread) / colver per play-out",
                    per_thread[1] / colver_rate, "x", "from the rows above"))
    return rows
