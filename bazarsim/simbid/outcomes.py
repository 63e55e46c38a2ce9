"""What every contract scores in every world: the play's results per kind, and the
ruleset's full scoring of each world's final contract.

A world is solved once per contract kind (double dummy, or played out by four PIMC
players with ``play="sd"``), first lead from the dealer's left as every DD and SD result
of bazarsim; who declares does not change the play's points, so one solve of a kind
serves every contract of that kind. Declarations and bela come from the evaluator, and
:func:`~bazarsim.rules.scoring.score_deals` scores each contract with contra, recontra,
capot and the ruleset's options, as a match would.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from bazarsim.analysis.bids import play_key
from bazarsim.core.contracts import KIND_NAMES, N_KINDS
from bazarsim.core.errors import BazarsimError
from bazarsim.evaluate.hands import evaluate_deals
from bazarsim.matches.equity import winner_after
from bazarsim.matches.playoff import F_CAPOT, F_CAPOT_CONTRA, F_MADE, F_REVERSE
from bazarsim.rules.match import eight_of_a_suit_side
from bazarsim.rules.rulesets import Ruleset
from bazarsim.rules.scoring import TRICKS, score_deals
from bazarsim.simbid.continuation import F_CAPOT as C_CAPOT
from bazarsim.simbid.continuation import F_CONTRA, F_DECLARER, F_KIND, F_LEVEL


@dataclass
class WorldResults:
    """Per world and kind: N-S's card points, who took every trick (0 none, 1 N-S, 2
    E-W), the declarations and bela that count per side; per world, the side holding eight
    cards of a suit (-1: none), for the match-end rule."""

    kinds: tuple[int, ...]
    ns: np.ndarray  # int64 [n, N_KINDS]
    capot: np.ndarray  # int64 [n, N_KINDS]
    decl: np.ndarray  # int64 [n, N_KINDS, 2]
    bela: np.ndarray  # int64 [n, N_KINDS, 2]
    eight: np.ndarray  # int64 [n]
    total: np.ndarray  # int64 [N_KINDS]: the card points of a deal of each kind

    @property
    def n(self) -> int:
        return len(self.eight)


def solve_worlds(hands: np.ndarray, dealer: int, rs: Ruleset, kinds, play: str = "dd",
                 sd_worlds: int = 20, seed: int = 7, first: int = 0) -> WorldResults:
    """Solve the worlds (``[n, 4]`` whole hands, N E S W) for every kind of ``kinds``.
    With ``play="sd"`` world ``i`` keys its play's streams as deal ``first + i`` of
    ``seed``."""
    hands = np.ascontiguousarray(hands, np.uint32).reshape(-1, 4)
    kinds = tuple(kinds)
    n = len(hands)
    ns = np.zeros((n, N_KINDS), np.int64)
    capot = np.zeros((n, N_KINDS), np.int64)
    decl = np.zeros((n, N_KINDS, 2), np.int64)
    bela = np.zeros((n, N_KINDS, 2), np.int64)
    total = np.array([rs.total_points(k) if k in rs.kinds else 0 for k in range(N_KINDS)],
                     np.int64)
    play = play_key(play)
    if n and kinds:
        if play == "dd":
            from bazarsim.dd.batch import dd_tables

            dd = dd_tables(hands, dealer=dealer, ruleset=rs, capot=True, kinds=list(kinds))
            for k in kinds:
                name = KIND_NAMES[k]
                ns[:, k] = dd[f"{name}_ns_points"]
                capot[:, k] = (dd[f"{name}_capot_ns"].astype(np.int64)
                               + 2 * dd[f"{name}_capot_ew"].astype(np.int64))
        else:
            from bazarsim.players.batch import sd_tables

            sd = sd_tables(hands, dealer=dealer, ruleset=rs, kinds=list(kinds),
                           worlds=sd_worlds, seed=seed,
                           indices=np.arange(first, first + n, dtype=np.int64))
            for k in kinds:
                name = KIND_NAMES[k]
                tricks = sd[f"{name}_sd_tricks_ns"]
                ns[:, k] = sd[f"{name}_sd_ns"]
                capot[:, k] = (tricks == TRICKS).astype(np.int64) + 2 * (tricks == 0)
        for k in kinds:
            ev = evaluate_deals(hands, dealer, k, rs)
            decl[:, k, 0] = ev["declarations_ns"]
            decl[:, k, 1] = ev["declarations_ew"]
            bela[:, k, 0] = ev["bela_ns"]
            bela[:, k, 1] = ev["bela_ew"]
    eight = np.full(n, -1, np.int64)
    if rs.scoring.eight_of_a_suit_wins_match:
        for i in range(n):
            side = eight_of_a_suit_side([int(h) for h in hands[i]])
            eight[i] = -1 if side is None else side
    return WorldResults(kinds, ns, capot, decl, bela, eight, total)


@dataclass
class Scored:
    """Each (world, contract) row scored: whether the contract makes, both sides' scores
    (N-S, E-W; 0 without a contract) and the flags the match-end rules read."""

    made: np.ndarray  # bool [rows]
    scores: np.ndarray  # int64 [rows, 2]
    flags: np.ndarray  # int64 [rows]: F_MADE, F_CAPOT, F_REVERSE, F_CAPOT_CONTRA

    def side_net(self, side: int) -> np.ndarray:
        """``side``'s score minus the other's."""
        return self.scores[:, side] - self.scores[:, 1 - side]


def score_contracts(res: WorldResults, world: np.ndarray, contracts: np.ndarray,
                    rs: Ruleset) -> Scored:
    """Score ``contracts`` (``[rows, 5]``, the play-on's columns) in worlds ``world``
    (a row of ``res`` per contract row)."""
    rows = len(contracts)
    made = np.zeros(rows, np.bool_)
    scores = np.zeros((rows, 2), np.int64)
    flags = np.zeros(rows, np.int64)
    has = np.flatnonzero(contracts[:, F_DECLARER] >= 0)
    if len(has) == 0:
        return Scored(made, scores, flags)
    w = world[has]
    c = contracts[has]
    kind = c[:, F_KIND]
    if not set(np.unique(kind).tolist()) <= set(res.kinds):
        missing = sorted(set(np.unique(kind).tolist()) - set(res.kinds))
        raise BazarsimError(f"the worlds were not solved for {KIND_NAMES[missing[0]]}")
    ns = res.ns[w, kind]
    cap = res.capot[w, kind]
    points = np.stack([ns, res.total[kind] - ns], 1)
    tricks = np.full((len(has), 2), TRICKS // 2, np.int64)
    for s in (0, 1):
        tricks[cap == s + 1, s] = TRICKS
        tricks[cap == s + 1, 1 - s] = 0
    side = c[:, F_DECLARER] & 1
    out = score_deals(rs, level=c[:, F_LEVEL], kind=kind, declarer_side=side, points=points,
                      tricks=tricks, declarations=res.decl[w, kind], bela=res.bela[w, kind],
                      contra=c[:, F_CONTRA], capot_bid=c[:, C_CAPOT], check=False)
    made[has] = out["made"]
    scores[has] = out["scores"]
    capot_side = out["capot_side"]
    flags[has] = (F_MADE * out["made"] | F_CAPOT * (capot_side == side)
                  | F_REVERSE * (capot_side == 1 - side)
                  | F_CAPOT_CONTRA * ((c[:, C_CAPOT] > 0) & (c[:, F_CONTRA] > 0)))
    return Scored(made, scores, flags)


@nb.njit(cache=True)
def equity_after(eq, own, other, da, db, decl, flags, eight, target, rules, we_deal, out):
    """Our side's match-win chance after each scored deal: 1 won, 0 lost, else the equity
    table's value at the new score with the other side dealing next (``eq[a, b, t]``:
    ``t`` = 1 when our side deals; scores past the table's top held there). ``decl``: 0
    our side declared, 1 the other, -1 nobody (a passed-out deal: only the deal moves
    on); ``eight``: 0 / 1 the side with eight of a suit, -1 none."""
    top = eq.shape[0] - 1
    t_next = 0 if we_deal else 1
    for i in range(da.shape[0]):
        a = own + da[i]
        b = other + db[i]
        if decl[i] >= 0:
            w = winner_after(a, b, decl[i], flags[i], eight[i], target, rules)
            if w == 0:
                out[i] = 1.0
                continue
            if w == 1:
                out[i] = 0.0
                continue
        out[i] = eq[min(a, top), min(b, top), t_next]
