"""A PIMC player that listens to the auction.

:class:`ListeningPimcPlayer` decides like :class:`~bazarsim.players.players.PimcPlayer`
(every legal card solved double dummy in each world, the best weighted mean played, ties
to the cheapest card), but its worlds are the auction-weighted worlds of
:mod:`bazarsim.beliefs.worlds`: consistent with the play exactly as PIMC's, and weighted
by how likely the other seats' calls were with them. ``worlds`` is the effective sample
size asked: worlds are drawn (cheaply: no solving) until their ESS reaches it, then that
many are taken from them in proportion to their weights (systematic resampling) and
solved, so a decision solves as many worlds as the unweighted player's (the draws stop
at :data:`~bazarsim.beliefs.worlds.MAX_DRAWS_PER_ESS` per world asked); when no more
worlds than that are consistent, each is solved with its exact weight. A view without
an auction, or one where no other seat called, is decided by the plain PIMC player, bit
for bit.
"""

from __future__ import annotations

import numpy as np

from bazarsim.beliefs.evidence import Evidence, weighted_sample
from bazarsim.beliefs.worlds import MAX_DRAWS_PER_ESS, SHRINK_DECISION, new_cache
from bazarsim.core.errors import BazarsimError
from bazarsim.matches.model import HandModel
from bazarsim.matches.policy import Policy
from bazarsim.players.pimc import OBJECTIVES, decide_worlds
from bazarsim.players.players import Decision, PimcPlayer
from bazarsim.players.view import PlayerView
from bazarsim.rules.play import contract_play

# a decision takes every consistent world when there are at most this many per world
# asked, and its pilot rounds (COLD_ROUNDS for a seat's first decision in a deal, then one:
# the card weights carry over) draw this many per world asked (at least MIN_PILOT)
ENUMERATE_PER_WORLD = 4
PILOT_PER_WORLD = 4
MIN_PILOT = 64
COLD_ROUNDS = 2


def resample(weights: np.ndarray, n: int, u: float) -> np.ndarray:
    """Systematic resampling: how many times each of the weighted worlds is taken when
    ``n`` are taken in proportion to ``weights`` (sum 1), from one uniform ``u``."""
    edges = np.cumsum(weights)
    edges[-1] = 1.0
    points = (u + np.arange(n)) / n
    return np.bincount(np.searchsorted(edges, points, side="right"), minlength=len(weights))


class ListeningPimcPlayer(PimcPlayer):
    """PIMC over auction-weighted worlds (see the module docstring). ``policies``: the
    policy assumed for each other seat (by seat number), ``model``: the hand model behind
    them; ``score``: N-S's and E-W's match scores, ``target`` the match's."""

    name = "pimc"

    def __init__(self, policies: dict[int, Policy], model: HandModel, worlds: int = 20,
                 objective: str = "points", seed: int = 7, infer: int = 15,
                 score: tuple[int, int] = (0, 0), target: int = 301):
        super().__init__(worlds, objective, seed, infer)
        self.policies, self.model = policies, model
        self.score, self.match_target = score, target
        # per (seat, dealer, auction) of the deal in play: the evidence, the fitted card
        # weights and the likelihood cache, kept across the seat's decisions
        self._deal_index: int | None = None
        self._state: dict[tuple, tuple[Evidence, np.ndarray, tuple]] = {}

    def _seat_state(self, view: PlayerView) -> tuple[Evidence, np.ndarray, tuple]:
        if view.deal_index != self._deal_index:  # a new deal: start cold
            self._deal_index = view.deal_index
            self._state = {}
        key = (view.seat, view.dealer, tuple(view.auction))
        if key not in self._state:
            policies = {s: p for s, p in self.policies.items() if s != view.seat}
            ev = Evidence(view.ruleset, view.dealer, list(view.auction), view.seat, policies,
                          self.model, self.score, self.match_target)
            self._state[key] = (ev, np.full((4, 32), np.nan), new_cache())
        return self._state[key]

    def decide(self, view: PlayerView) -> Decision:
        if not view.auction:
            return super().decide(view)
        ev, theta, cache = self._seat_state(view)
        if not ev.listened:
            return super().decide(view)
        if view.ruleset.play.direction != "clockwise":
            raise BazarsimError("listening players need a clockwise ruleset")
        legal = view.legal()
        if legal & (legal - 1) == 0:  # a forced card: nothing to sample
            return Decision(int(legal).bit_length() - 1, {}, 0)
        me, fixed, forbid, counts, gone, leader, tr, n, key = self._kernel_view(view)
        played_by = np.zeros(4, np.int64)
        for s, c in view.history:
            played_by[s] |= 1 << c
        in_trick = 0
        for i in range(n):
            in_trick |= 1 << int(tr[i])
        ctx, _scratch = self._context()
        play = contract_play(view.ruleset, view.kind)
        taken, side, need = self._needed(view)
        values = np.full(32, np.nan)
        ww = weighted_sample(ev, view.hand, fixed, forbid, counts, int(gone) | in_trick,
                             played_by, float(self.worlds), int(key),
                             enumerate_max=ENUMERATE_PER_WORLD * self.worlds,
                             pilot=max(MIN_PILOT, PILOT_PER_WORLD * self.worlds),
                             pilot_rounds=COLD_ROUNDS, shrink=SHRINK_DECISION, theta=theta,
                             cache=cache, max_draws=MAX_DRAWS_PER_ESS * self.worlds)
        if ww.exhaustive and ww.n <= self.worlds:  # every world, exactly weighted
            worlds, weights = ww.hands, ww.weights
        else:
            u = (int(key) >> 11) / float(1 << 53)
            times = resample(ww.weights, self.worlds, u)
            chosen = np.flatnonzero(times)
            worlds, weights = ww.hands[chosen].copy(), times[chosen].astype(np.float64)
        c = decide_worlds(np.int64(me), np.int64(view.hand), np.ascontiguousarray(worlds),
                          np.ascontiguousarray(weights), np.int64(gone), np.int64(leader),
                          tr, np.int64(n), play, ctx, OBJECTIVES[self.objective], side,
                          np.int64(need), values)
        if c < 0:
            raise BazarsimError("no deal is consistent with this view (check the history)")
        return Decision(int(c), self._card_values(values, taken), int(self.worlds), ww.ess,
                        ww.draws, ww.capped)

