"""What one seat knows at one moment of the play: a :class:`PlayerView`.

A view holds the ruleset (with its options), the contract, the dealer and first leader,
the auction that led to the contract (each call with its seat; empty when unknown),
the seat and its current cards, every card played so far in order with its seat, and
what the rules have shown: the cards of the declarations that score (shown at the end of
the first trick), each bela announced (the other card of the pair), and in belote-fr the
turned card the taker picked up. :meth:`PlayerView.constraints` turns it into what the
world sampler reads (:mod:`.worlds`): per seat the cards it is known to hold, those it
cannot hold (:mod:`.inference`) and how many it has left.

A view is checked when built: every card once, the history's cards legal where the view
can tell (its own seat's past cards against its hand then), and at least one world
consistent with it. Breaking any of these is a :class:`~bazarsim.core.errors.BazarsimError`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bazarsim.core.cards import SEATS, format_card, parse_card, parse_seat, validate_hands
from bazarsim.core.contracts import Contract
from bazarsim.core.errors import BazarsimError
from bazarsim.evaluate.hands import shown_cards
from bazarsim.players.inference import bela_other, shown_absent
from bazarsim.players.worlds import (
    BINOM,
    WorldTables,
    count_worlds,
    other_seats,
    view_arrays,
    world_at,
)
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.play import (
    SEAT_ORDER,
    clockwise_seats,
    contract_play,
    legal_cards,
    trick_winner,
)
from bazarsim.rules.rulesets import DEFAULT_RULESET, Ruleset, get_ruleset


@dataclass
class PlayerView:
    """What ``seat`` knows: see the module docstring. Seats are 0..3 = N E S W."""

    ruleset: Ruleset
    contract: Contract
    dealer: int
    leader: int  # the first trick's leader
    seat: int
    hand: int  # the seat's current cards
    history: list[tuple[int, int]]  # (seat, card) in the order played
    shown: tuple[int, int, int, int] = (0, 0, 0, 0)  # declared cards shown, per seat
    bela: tuple[tuple[int, int], ...] = ()  # (seat, other card) of each bela announced
    turned: tuple[int, int] | None = None  # (seat, card): belote-fr's turned card
    deal_index: int = 0  # the deal's number in a run (the decision streams' key)
    auction: tuple = ()  # (seat, Call) of every call, from the dealer's left

    # ----------------------------------------------------------------- building
    @classmethod
    def from_deal(cls, deal, contract: Contract, history, seat, dealer=0,
                  ruleset: Ruleset | str = DEFAULT_RULESET, turned=None,
                  deal_index: int = 0, auction=()) -> PlayerView:
        """The view of ``seat`` after ``history`` (``(seat, card)`` pairs, cards as ints
        or text) in a full deal (4 hands N E S W): the history is checked against the
        true hands (each card held and legal), declarations are shown after the first
        trick, bela as its first card is played."""
        rs = get_ruleset(ruleset)
        hands = [int(h) for h in validate_hands(deal, full=True)]
        seat = _seat(seat)
        hist = [(_seat(s), _card(c)) for s, c in history]
        leader = (int(dealer) + 1) % 4  # the dealer's left, as the DD tables (dd.batch)
        play = contract_play(rs, contract.kind)
        cur = list(hands)
        for turn, who, trick, n in _walk(hist, leader, rs, contract.kind):
            c = hist[turn][1]
            if who != hist[turn][0]:
                raise BazarsimError(
                    f"card {turn + 1} of the history ({format_card(c)}) is played by "
                    f"{SEATS[hist[turn][0]]}, but it is {SEATS[who]}'s turn", c)
            if not (cur[who] >> c) & 1:
                raise BazarsimError(
                    f"{SEATS[who]} does not hold {format_card(c)} (card {turn + 1} of the "
                    "history)", c)
            legal = int(legal_cards(np.int64(cur[who]), trick, n, play.strength, play.above,
                                    play.rules))
            if not (legal >> c) & 1:
                raise BazarsimError(
                    f"illegal card in the history: {SEATS[who]} may not play "
                    f"{format_card(c)} as card {turn + 1}", c)
            cur[who] &= ~(1 << c)
        shown = (0, 0, 0, 0)
        if len(hist) >= 4:
            shown = tuple(int(x) for x in shown_cards(
                np.array(hands, np.uint32), dealer, contract.kind, rs)[0])
        bela_suits = compiled_rules(rs).bela_suit[contract.kind].astype(np.int64)
        bela = []
        played: set[int] = set()
        for s, c in hist:
            o = int(bela_other(c, bela_suits))
            if o >= 0 and o not in played and (hands[s] >> o) & 1:
                bela.append((s, o))  # announced with its first card
            played.add(c)
        return cls(rs, contract, int(dealer), leader, seat, cur[seat], hist, shown,
                   tuple(bela), turned, deal_index, tuple(auction))

    # ----------------------------------------------------------------- derived
    @property
    def kind(self) -> int:
        return self.contract.kind

    def counts(self) -> np.ndarray:
        out = np.full(4, 8, np.int64)
        for s, _c in self.history:
            out[s] -= 1
        return out

    def trick(self) -> tuple[int, list[int]]:
        """The current trick's leader and its cards so far."""
        leader = self.leader
        cards: list[int] = []
        for _s, c in self.history:
            cards.append(c)
            if len(cards) == 4:
                leader = winner_seat(cards, leader, self.ruleset, self.kind)
                cards = []
        return leader, cards

    def to_play(self) -> int:
        leader, cards = self.trick()
        return next_seat(leader, len(cards), self.ruleset)

    def legal(self) -> int:
        play = contract_play(self.ruleset, self.kind)
        _leader, cards = self.trick()
        tr = np.zeros(4, np.int64)
        tr[: len(cards)] = cards
        return int(legal_cards(np.int64(self.hand), tr, len(cards), play.strength, play.above,
                               play.rules))

    def constraints(self, infer: int = 15):
        """``(fixed, forbid, counts, gone)`` per seat in the view's seats (N E S W):
        cards known held, cards ruled out, cards left, and the cards of completed tricks.
        ``infer``: the :data:`~bazarsim.players.pimc.INFERENCES` bits to use."""
        play = contract_play(self.ruleset, self.kind)
        fixed = np.zeros(4, np.int64)
        forbid = np.zeros(4, np.int64)
        gone = 0
        for turn, who, trick, n in _walk(self.history, self.leader, self.ruleset, self.kind):
            c = self.history[turn][1]
            absent = int(shown_absent(c, trick, n, play.strength, play.above, play.rules))
            if n and absent:
                led_mask = 0xFF << (8 * (int(trick[0]) >> 3))
                void = absent & led_mask if not (led_mask >> c) & 1 else 0
                if infer & 1:
                    forbid[who] |= void
                if infer & 2:
                    forbid[who] |= absent & ~void
            if n == 3:
                gone |= (1 << c) | sum(1 << int(x) for x in trick[:3])
        if infer & 4:
            bela_suits = compiled_rules(self.ruleset).bela_suit[self.kind].astype(np.int64)
            played: set[int] = set()
            for s, c in self.history:
                o = int(bela_other(c, bela_suits))
                if o >= 0 and o not in played:
                    if (s, o) in self.bela:
                        fixed[s] |= 1 << o
                    else:
                        forbid[s] |= 1 << o
                played.add(c)
        if infer & 8 and len(self.history) >= 4:
            for s in range(4):
                fixed[s] |= self.shown[s]
        if self.turned is not None:
            fixed[self.turned[0]] |= 1 << self.turned[1]
        played_mask = 0
        for _s, c in self.history:
            played_mask |= 1 << c
        fixed &= ~np.int64(played_mask)
        fixed[self.seat] = self.hand
        forbid[self.seat] = 0
        return fixed, forbid, self.counts(), gone

    def _world_arrays(self, infer: int):
        fixed, forbid, counts, _gone = self.constraints(infer)
        played = 0
        for _s, c in self.history:
            played |= 1 << c
        free, allowed, need = view_arrays(self.seat, np.int64(self.hand), fixed, forbid, counts,
                                          np.int64(played))
        t = WorldTables()
        total = int(count_worlds(free, allowed, need, other_seats(self.seat), BINOM, t.classes,
                                 t.sizes, t.table))
        return fixed, need, t, total

    def world_count(self, infer: int = 15) -> int:
        """How many worlds (hidden hands of the others) are consistent with the view."""
        return self._world_arrays(infer)[3]

    def sample_worlds(self, n: int, rng: np.random.Generator, infer: int = 15) -> list[list[int]]:
        """``n`` worlds drawn uniformly, with replacement, from those consistent with the
        view (the exact sampler PIMC uses): the four seats' current hands, the seat's own
        as it is."""
        fixed, need, t, total = self._world_arrays(infer)
        seats = other_seats(self.seat)
        out = []
        for _ in range(n):
            hands = fixed.copy()
            hands[self.seat] = self.hand
            world_at(np.int64(rng.integers(total)), need, seats, BINOM, t.classes, t.sizes,
                     t.table, hands)
            out.append([int(h) for h in hands])
        return out


def _seat(s) -> int:
    return parse_seat(s) if isinstance(s, str) else int(s)


def _card(c) -> int:
    return parse_card(c) if isinstance(c, str) else int(c)


def _before(hist, card) -> set[int]:
    out = set()
    for _s, c in hist:
        if c == card:
            break
        out.add(c)
    return out


def next_seat(leader: int, n: int, rs: Ruleset) -> int:
    """The seat playing the ``n``-th card of a trick led by ``leader``."""
    step = -1 if rs.play.direction == "counterclockwise" else 1
    return (leader + step * n) % 4


def winner_seat(cards: list[int], leader: int, rs: Ruleset, kind: int) -> int:
    """The seat that wins the full trick ``cards`` led by ``leader``."""
    play = contract_play(rs, kind)
    tr = np.array(cards, np.int64)
    i = int(trick_winner(tr, 4, play.rules[0], play.strength))
    return next_seat(leader, i, rs)


def _walk(hist, leader, rs: Ruleset, kind: int):
    """Yield ``(turn, seat to play, trick array, cards in the trick)`` before each card of
    the history."""
    cards: list[int] = []
    for turn, (_s, c) in enumerate(hist):
        tr = np.zeros(4, np.int64)
        tr[: len(cards)] = cards
        yield turn, next_seat(leader, len(cards), rs), tr, len(cards)
        cards.append(c)
        if len(cards) == 4:
            leader = winner_seat(cards, leader, rs, kind)
            cards = []


__all__ = ["PlayerView", "SEAT_ORDER", "clockwise_seats"]
