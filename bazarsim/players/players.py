"""Card players: anything with ``decide(view) -> Decision``.

Three ship here, all thin wrappers of the kernels of :mod:`.pimc` so that a deal played
through them (card by card, from :class:`~.view.PlayerView` objects) and one played
whole in the kernel (:func:`~.playout_kernel.play_out`, what datasets use) are the same play:

* :class:`RandomPlayer`: a uniformly random legal card (the floor);
* :class:`DDPlayer`: sees every card and plays the double-dummy line (the ceiling);
* :class:`PimcPlayer`: samples worlds consistent with its view and plays the card with
  the best mean (perfect-information Monte Carlo).

A fourth, :class:`ScriptedPlayer`, plays cards chosen outside (a person's picks, at the
app's deal replay) and raises :class:`AwaitingCard` when it has no pick left.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bazarsim.core.cards import SEATS, format_card, format_cards, parse_card
from bazarsim.core.errors import BazarsimError
from bazarsim.dd.search import DEFAULT_TT_BITS, O_ALL, new_context
from bazarsim.deals.generator import seed_key
from bazarsim.players.alphamu import (
    DEFAULT_CAP,
    DEFAULT_DEPTH,
    N_ST,
    NODE_BUDGET,
    alphamu_values,
    decide_alphamu,
)
from bazarsim.players.pimc import (
    I_ALL,
    OBJECTIVES,
    decide,
    decision_key,
    decision_worlds,
    draw_index,
    new_scratch,
    trick_result,
)
from bazarsim.players.view import PlayerView
from bazarsim.rules.play import SEAT_ORDER, clockwise_seats, contract_play

DEFAULT_WORLDS = 20
# The most worlds a PIMC decision may sample. Its cost grows with the worlds (about 10 ms
# a deal and kind per world on one core), its sampling error only with their square root:
# at 1,000 the error of a card's value is a seventh of the default's, well below what
# PIMC's own blind spots (strategy fusion) cost, and one deal already takes seconds.
MAX_WORLDS = 1000


def check_worlds(worlds: int) -> int:
    """``--worlds`` within 1 .. MAX_WORLDS (one clear error otherwise)."""
    if isinstance(worlds, bool) or not isinstance(worlds, int | np.integer) or not (
            1 <= worlds <= MAX_WORLDS):
        raise BazarsimError(f"--worlds {worlds}: use 1 .. {MAX_WORLDS:,} hidden deals a "
                            "decision", str(worlds))
    return int(worlds)


@dataclass
class Decision:
    """A card and, where the player has them, the per-card values it chose from: mean
    N-S points of the deal (objective ``points``) or P(the declaring side makes)."""

    card: int
    values: dict[int, float] = field(default_factory=dict)
    worlds: int = 0
    ess: float | None = None  # auction-weighted worlds: their effective sample size
    draws: int | None = None  # and the draws it took
    capped: bool = False  # the draws stopped at their cap before the ESS asked

    def as_dict(self) -> dict:
        out = {"card": format_card(self.card), "worlds": self.worlds,
               "values": {format_card(c): round(v, 3) for c, v in sorted(self.values.items())}}
        if self.ess is not None:
            out["ess"] = round(self.ess, 1)
            out["draws"] = self.draws
            out["capped"] = self.capped
        return out


class _KernelPlayer:
    """Shared set-up: the decision stream and the view in the kernels' seats."""

    name = "?"
    code = -1

    def __init__(self, seed: int = 7, infer: int = I_ALL):
        self.seed = int(seed)
        self.infer = int(infer)
        self._ctx = None
        self._scratch = None

    def _kernel_view(self, view: PlayerView):
        rs = view.ruleset
        direction = rs.play.direction
        perm = clockwise_seats(SEAT_ORDER, direction)
        fixed, forbid, counts, gone = view.constraints(self.infer)
        leader, cards = view.trick()
        tr = np.zeros(4, np.int64)
        tr[: len(cards)] = cards
        me = int(clockwise_seats(view.seat, direction))
        key = np.uint64(decision_key(np.uint64(seed_key(self.seed)), view.deal_index, view.kind,
                                     len(view.history), me))
        return (me, fixed[perm].copy(), forbid[perm].copy(), counts[perm].copy(), np.int64(gone),
                int(clockwise_seats(leader, direction)), tr, len(cards), key)

    def _context(self):
        if self._ctx is None:
            self._ctx = new_context(DEFAULT_TT_BITS, O_ALL)
            self._scratch = new_scratch()
        return self._ctx, self._scratch


class RandomPlayer(_KernelPlayer):
    """A uniformly random legal card, from the decision's own stream."""

    name = "random"
    code = 0

    def decide(self, view: PlayerView) -> Decision:
        me, *_rest, key = self._kernel_view(view)
        legal = view.legal()
        cards = [c for c in range(32) if legal >> c & 1]
        x, _k = draw_index(key, 0, len(cards))
        return Decision(cards[int(x)])


class _SearchPlayer(_KernelPlayer):
    def __init__(self, worlds: int = DEFAULT_WORLDS, objective: str = "points", seed: int = 7,
                 infer: int = I_ALL):
        super().__init__(seed, infer)
        check_worlds(worlds)
        if objective not in OBJECTIVES:
            raise BazarsimError(f"bad objective {objective!r}: use points or contract",
                                objective)
        self.worlds = int(worlds)
        self.objective = objective
        self.target = None  # card points the declaring side needs (objective contract)

    def _decide(self, view: PlayerView, truth) -> Decision:
        search, taken = self._prepare(view, truth)
        c, worlds, values = search()
        if c < 0:
            raise BazarsimError("no deal is consistent with this view (check the history)")
        return Decision(int(c), self._card_values(values, taken), int(worlds))

    def _card_values(self, values: np.ndarray, taken: list[int]) -> dict[int, float]:
        """Each legal card's value (NaN elsewhere in ``values``), as a deal's N-S points
        (the points taken added) or a chance."""
        add = taken[0] if self.objective == "points" else 0
        return {c: float(values[c]) + add for c in range(32) if not np.isnan(values[c])}

    def _needed(self, view: PlayerView) -> tuple[list[int], int, int]:
        """Points taken per side, the declaring side, and what it still needs (objective
        contract; 0 for points)."""
        taken = taken_points(view)
        side = view.contract.side
        need = 0
        if self.objective == "contract":
            if self.target is None:
                raise BazarsimError("objective contract needs the declaring side's target "
                                    "(play_deal sets it)")
            need = self.target - taken[side]
        return taken, side, need

    def _prepare(self, view: PlayerView, truth):
        """The view turned into the kernel's arrays (Python work), and a call that runs the
        search on them: ``(card, worlds, values)``."""
        me, fixed, forbid, counts, gone, leader, tr, n, key = self._kernel_view(view)
        ctx, scratch = self._context()
        play = contract_play(view.ruleset, view.kind)
        taken, side, need = self._needed(view)
        values = np.empty(32, np.float64)
        hand = np.int64(view.hand)
        objective = OBJECTIVES[self.objective]

        def search():
            c, worlds = self._search(me, hand, fixed, forbid, counts, gone, leader, tr, n,
                                     play, ctx, key, objective, side, np.int64(need), truth,
                                     values, scratch)
            return c, worlds, values

        return search, taken

    def _search(self, me, hand, fixed, forbid, counts, gone, leader, tr, n, play, ctx, key,
                objective, side, need, truth, values, scratch):
        """The kernel's decision on the view's arrays: (card, worlds used)."""
        return decide(me, hand, fixed, forbid, counts, gone, leader, tr, n, play, ctx,
                      self.worlds, key, objective, side, need, truth, values, scratch)

    def search_only(self, view: PlayerView):
        """A call that runs just this view's search (the kernel a play-out runs, with the
        constraints a play-out keeps as it goes): what benchmarks time per decision."""
        return self._prepare(view, self._truth(view))[0]

    def _truth(self, view: PlayerView):
        return np.full(4, -1, np.int64)


class PimcPlayer(_SearchPlayer):
    """Perfect-information Monte Carlo over ``worlds`` sampled worlds."""

    name = "pimc"
    code = 2

    def decide(self, view: PlayerView) -> Decision:
        return self._decide(view, np.full(4, -1, np.int64))


class AlphaMuPlayer(_SearchPlayer):
    """Alpha-mu over ``worlds`` sampled worlds (the same worlds as PIMC's): its next
    ``depth`` own moves one choice for the worlds it cannot tell apart, where PIMC lets
    each world choose its own (:mod:`.alphamu`)."""

    name = "alphamu"
    code = 3

    def __init__(self, worlds: int = DEFAULT_WORLDS, objective: str = "points", seed: int = 7,
                 infer: int = I_ALL, depth: int = DEFAULT_DEPTH):
        super().__init__(worlds, objective, seed, infer)
        self.depth = check_depth(depth)
        self.stats = np.zeros(N_ST, np.int64)

    def decide(self, view: PlayerView) -> Decision:
        return self._decide(view, np.full(4, -1, np.int64))

    def compare(self, view: PlayerView) -> dict:
        """Every legal card valued both ways on the same worlds (those this player's
        decision draws): ``pimc`` (later cards chosen knowing the world) and ``alphamu``
        (the next ``depth`` own cards one choice across the worlds, from the first trick:
        the player's search where it plays, and before), as :class:`Decision` values are
        (a deal's N-S points, or a chance); and the cards each would play. Alpha-mu's
        value is exact for the cards both would play; another card whose PIMC value is
        already below alpha-mu's best keeps that value, an upper bound of its own. What
        the strategy-fusion study measures."""
        me, fixed, forbid, counts, gone, leader, tr, n, key = self._kernel_view(view)
        ctx, scratch = self._context()
        play = contract_play(view.ruleset, view.kind)
        taken, side, need = self._needed(view)
        drawn = decision_worlds(me, np.int64(view.hand), fixed, forbid, counts, gone, tr, n,
                                self.worlds, key, scratch)
        if len(drawn) == 0:
            raise BazarsimError("no deal is consistent with this view (check the history)")
        out = {"worlds": len(drawn)}
        for name, depth in (("pimc", 1), ("alphamu", self.depth)):
            values = np.empty(32, np.float64)
            card = alphamu_values(me, drawn, gone, leader, tr, n, play, ctx,
                                  np.int64(depth), np.int64(OBJECTIVES[self.objective]), side,
                                  np.int64(need), np.int64(DEFAULT_CAP), True,
                                  np.int64(NODE_BUDGET), values,
                                  self.stats)
            out[name] = self._card_values(values, taken)
            out[f"{name}_card"] = int(card)
        return out

    def _search(self, me, hand, fixed, forbid, counts, gone, leader, tr, n, play, ctx, key,
                objective, side, need, truth, values, scratch):
        return decide_alphamu(me, hand, fixed, forbid, counts, gone, leader, tr, n, play, ctx,
                              self.worlds, key, objective, side, need, self.depth,
                              DEFAULT_CAP, values, scratch, self.stats)


SD_PLAYERS = ("pimc", "alphamu")  # who may play single-dummy columns (all four seats)


def check_sd_player(name: str) -> str:
    """A single-dummy player's name (one clear error otherwise)."""
    if name not in SD_PLAYERS:
        raise BazarsimError(f"--players {name}: use {' or '.join(SD_PLAYERS)}", name)
    return name


def check_depth(depth: int) -> int:
    """``--depth`` within 1 .. 8 (own moves kept common; 1 is PIMC)."""
    if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or not (
            1 <= depth <= 8):
        raise BazarsimError(f"--depth {depth}: use 1 .. 8 own moves (1 plays as PIMC)",
                            str(depth))
    return int(depth)


class DDPlayer(_SearchPlayer):
    """Sees every card (``deal``: the four hands at the start, N E S W)."""

    name = "dd"
    code = 1

    def __init__(self, deal, objective: str = "points", seed: int = 7):
        super().__init__(1, objective, seed)
        self.deal = [int(h) for h in deal]

    def decide(self, view: PlayerView) -> Decision:
        return self._decide(view, self._truth(view))

    def _truth(self, view: PlayerView):
        """The true hands left, in the kernel's seats: the one world a DD player sees."""
        hands = list(self.deal)
        for s, c in view.history:
            hands[s] &= ~(1 << c)
        perm = clockwise_seats(SEAT_ORDER, view.ruleset.play.direction)
        return np.array(hands, np.int64)[perm].copy()


def taken_points(view: PlayerView) -> list[int]:
    """Card points each side (N-S, E-W) took in the view's completed tricks."""
    return trick_tally(view)[0]


def trick_tally(view: PlayerView) -> tuple[list[int], list[int]]:
    """Card points and tricks each side (N-S, E-W) took in the view's completed tricks."""
    play = contract_play(view.ruleset, view.kind)
    direction = view.ruleset.play.direction
    taken, tricks = [0, 0], [0, 0]
    leader = int(clockwise_seats(view.leader, direction))
    cards: list[int] = []
    for i, (_s, c) in enumerate(view.history):
        cards.append(c)
        if len(cards) == 4:
            w, pts = trick_result(np.array(cards, np.int64), leader, i == 31, play)
            taken[int(w) % 2] += int(pts)
            tricks[int(w) % 2] += 1
            leader = int(w)
            cards = []
    return taken, tricks


class AwaitingCard(Exception):  # a pause for a person, not an error
    """A :class:`ScriptedPlayer` has no pick left: ``seat`` must choose one of ``legal``
    (card indices, as a hand is read: S H D C, high to low). :func:`~.playout.play_deal`
    stops there and returns the play so far."""

    def __init__(self, seat: int, legal: list[int]):
        super().__init__(f"{SEATS[seat]} to play one of "
                         f"{' '.join(format_card(c) for c in legal)}")
        self.seat = int(seat)
        self.legal = [int(c) for c in legal]


class ScriptedPlayer:
    """Plays the given cards (indices or text such as ``AS``) in order, its k-th card on
    its k-th turn, and raises :class:`AwaitingCard` when out of picks: a person's seat,
    whose deal is replayed from the first card with one more pick each time (the other
    seats' decisions are seeded, so they play the same cards again)."""

    name = "you"

    def __init__(self, cards=()):
        self.cards = [parse_card(c) if isinstance(c, str) else int(c) for c in cards]

    def decide(self, view: PlayerView) -> Decision:
        k = sum(1 for s, _c in view.history if s == view.seat)
        legal = view.legal()
        if k >= len(self.cards):
            raise AwaitingCard(view.seat, [parse_card(c) for c in format_cards(legal).split()])
        card = self.cards[k]
        if not legal >> card & 1:
            raise BazarsimError(f"{SEATS[view.seat]} cannot play {format_card(card)} as its "
                                f"card {k + 1}: play one of {format_cards(legal)}",
                                format_card(card))
        return Decision(card)


PLAYERS = {"random": RandomPlayer, "pimc": PimcPlayer, "alphamu": AlphaMuPlayer,
           "dd": DDPlayer}
