"""Double-dummy point solver: the exact card points each side takes with perfect play.

Python API over the Numba search (:mod:`.search`), legal play (:mod:`.play`) and the
parallel batch driver (:mod:`.batch`):

* :func:`solve` exact points of a position (four hands of 1..8 cards, a leader);
* :func:`can_reach` threshold probe "can side X take at least T points?";
* :func:`capot_possible` "can side X take every remaining trick?";
* :func:`card_values` value of every legal card of the leader; :func:`optimal_line`;
* :func:`dd_table` / :func:`dd_tables` the six contracts of one or many deals.

A :class:`Solver` keeps its transposition table between calls (cleared by generation,
not by zeroing); the module functions share one default solver. Counter-clockwise
rulesets (bela-hr) are solved by renaming East and West, which keeps the partnerships.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from bazarsim.core.cards import SEATS, format_card, parse_deal, parse_seat, validate_hands
from bazarsim.core.contracts import KIND_NAMES, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.dd.batch import dd_tables  # the column form of dd_table, for many deals
from bazarsim.dd.search import (
    DEFAULT_TT_BITS,
    METHOD_NAMES,
    O_ALL,
    OPTION_NAMES,
    S_NODES,
    exact_value,
    new_context,
    new_search,
    points_left,
    reach_deal,
    reaches,
    solve_deal,
)
from bazarsim.rules.play import (
    R_LAST_BONUS,
    R_TRICK_BONUS,
    R_TRUMP,
    SEAT_ORDER,
    clockwise_seats,
    contract_play,
    legal_cards,
    trick_winner,
)
from bazarsim.rules.rulesets import DEFAULT_RULESET, get_ruleset

__all__ = [
    "Solution",
    "Solver",
    "solve",
    "can_reach",
    "capot_possible",
    "card_values",
    "optimal_line",
    "dd_table",
    "dd_tables",
    "O_ALL",
    "OPTION_NAMES",
]


@dataclass(frozen=True)
class Solution:
    contract: str
    leader: str
    ns_points: int
    ew_points: int
    total: int
    nodes: int

    def as_dict(self) -> dict:
        return asdict(self)


def _as_hands(deal) -> np.ndarray:
    if isinstance(deal, str):
        return parse_deal(deal).astype(np.int64)
    return validate_hands(deal).astype(np.int64)


def _kind(contract) -> int:
    return parse_kind(contract) if isinstance(contract, str) else int(contract)


def _seat(seat) -> int:
    return parse_seat(seat) if isinstance(seat, str) else int(seat)


def _side(side) -> int:
    if isinstance(side, str):
        key = side.strip().upper().replace("-", "")
        if key in ("NS", "N", "S"):
            return 0
        if key in ("EW", "WE", "E", "W"):
            return 1
        raise BazarsimError(f"bad side {side!r}: use NS or EW", side)
    return int(side)


class Solver:
    """Reusable solver: one transposition table, generation-cleared between searches.

    ``opts`` selects search enhancements (bit flags of :data:`OPTION_NAMES`), ``method``
    the exact-value driver: ``auto`` (default: one full-window principal variation search,
    measured fewest nodes at every size), ``bisect``, ``mtdf`` (from the
    half-way guess) or ``full`` window.
    """

    def __init__(self, tt_bits: int = DEFAULT_TT_BITS, opts: int = O_ALL, method: str = "auto"):
        self.ctx = new_context(tt_bits, opts)
        self.method = METHOD_NAMES[method]
        self.opts = opts

    # ------------------------------------------------------------------ set-up
    def _prepare(self, deal, contract, leader, ruleset, count_tricks=False, fresh=True):
        """Ruleset, kind, hands and leader (East and West renamed when play runs
        counter-clockwise) and the contract's :class:`~bazarsim.rules.play.ContractPlay`;
        ``fresh``: start a new table generation here (the one-call kernels of ``solve``,
        ``can_reach`` and ``capot_possible`` do it themselves)."""
        rs = get_ruleset(ruleset)
        kind = rs.check_kind(_kind(contract))
        direction = rs.play.direction
        hands = _as_hands(deal)[clockwise_seats(SEAT_ORDER, direction)]
        lead = clockwise_seats(_seat(leader), direction)
        play = contract_play(rs, kind, count_tricks)
        if fresh:
            new_search(self.ctx)
        return rs, kind, hands, lead, direction, play

    def _nodes(self) -> int:
        return int(self.ctx.stats[S_NODES])

    def _value(self, hands, leader, trick, play, guess=-1) -> int:
        cards = np.zeros(4, np.int64)
        cards[: len(trick)] = trick
        return int(
            exact_value(hands, leader, cards, len(trick), play, self.ctx, self.method, guess)
        )

    def _reaches(self, hands, leader, trick, target, play) -> bool:
        cards = np.zeros(4, np.int64)
        cards[: len(trick)] = trick
        return bool(reaches(hands, leader, cards, len(trick), target, play, self.ctx))

    # ------------------------------------------------------------------ queries
    def solve(self, deal, contract, leader, ruleset=DEFAULT_RULESET) -> Solution:
        """Exact points of both sides, last trick's bonus included."""
        _rs, kind, hands, lead, _dir, play = self._prepare(
            deal, contract, leader, ruleset, fresh=False
        )
        start = self._nodes()
        ns, total = solve_deal(hands, lead, play, self.ctx, self.method)
        return Solution(KIND_NAMES[kind], SEATS[_seat(leader)], int(ns), int(total - ns),
                        int(total), self._nodes() - start)

    def can_reach(self, deal, contract, leader, side, target, ruleset=DEFAULT_RULESET) -> bool:
        """Can ``side`` (NS / EW) take at least ``target`` points? One null-window probe."""
        _rs, _kind_, hands, lead, _dir, play = self._prepare(
            deal, contract, leader, ruleset, fresh=False
        )
        return bool(reach_deal(hands, lead, _side(side), int(target), play, self.ctx))

    def capot_possible(self, deal, contract, leader, side, ruleset=DEFAULT_RULESET) -> bool:
        """Can ``side`` take every remaining trick (searching on tricks, not points)?"""
        _rs, _k, hands, lead, _dir, play = self._prepare(
            deal, contract, leader, ruleset, True, fresh=False
        )
        if _side(side) == 0:
            n_tricks = int(hands[0]).bit_count()
            return bool(reach_deal(hands, lead, 0, n_tricks, play, self.ctx))
        return not reach_deal(hands, lead, 0, 1, play, self.ctx)

    def card_values(
        self, deal, contract, leader, ruleset=DEFAULT_RULESET
    ) -> dict[str, tuple[int, int]]:
        """``{card: (ns_points, ew_points)}`` after the leader plays each legal card."""
        _rs, _k, hands, lead, _dir, play = self._prepare(deal, contract, leader, ruleset)
        total = int(points_left(hands, lead, 0, play.points, play.rules, self.ctx))
        out = {}
        guess = -1
        for card in _cards(int(hands[lead])):
            rest = hands.copy()
            rest[lead] ^= 1 << card
            v = self._value(rest, lead, [card], play, guess)
            guess = v
            out[format_card(card)] = (v, total - v)
        return out

    def optimal_line(self, deal, contract, leader, ruleset=DEFAULT_RULESET) -> list[dict]:
        """One line of optimal play, one step a card: the trick, seat and card, and at a
        trick's last card its winner and points (last trick bonus included); ``ns_taken``
        is the running total of the points N-S have taken so far along the line, so the
        last step's is the DD value (the line is optimal: that value is kept at every
        card)."""
        _rs, _k, hands, lead, direction, play = self._prepare(deal, contract, leader, ruleset)
        hands = hands.copy()
        value = self._value(hands, lead, [], play)  # N-S points from the current trick on
        line = []
        trick: list[int] = []
        taken = 0
        while hands.any():
            seat = (lead + len(trick)) % 4
            arr = np.zeros(4, np.int64)
            arr[: len(trick)] = trick
            legal = int(
                legal_cards(hands[seat], arr, len(trick), play.strength, play.above, play.rules)
            )
            chosen = None
            for card in _cards(legal):
                rest = hands.copy()
                rest[seat] ^= 1 << card
                if self._child_value(rest, lead, trick + [card], play, value, seat):
                    chosen = card
                    break
            assert chosen is not None, "no card keeps the optimal value"
            hands[seat] ^= 1 << chosen
            trick.append(chosen)
            shown = clockwise_seats(seat, direction)
            step = {
                "trick": len(line) // 4 + 1,
                "seat": SEATS[shown],
                "card": format_card(chosen),
                "winner": None,
                "trick_points": None,
            }
            if len(trick) == 4:
                w, pts_trick = _trick_result(trick, lead, not hands.any(), play)
                ns = pts_trick if w % 2 == 0 else 0
                value -= ns
                taken += ns
                step["winner"] = SEATS[clockwise_seats(w, direction)]
                step["trick_points"] = pts_trick
                lead, trick = w, []
            step["ns_taken"] = taken
            line.append(step)
        return line

    def _child_value(self, rest, lead, trick, play, value, seat) -> bool:
        """Does playing the last card of ``trick`` keep N-S on ``value``?"""
        if len(trick) == 4:
            w, won = _trick_result(trick, lead, not rest.any(), play)
            ns = won if w % 2 == 0 else 0
            if not rest.any():
                return ns == value
            return self._value(rest, w, [], play) == value - ns
        if seat % 2 == 0:  # N-S: the child can only be <= value; is it >= value?
            return self._reaches(rest, lead, trick, value, play)
        return not self._reaches(rest, lead, trick, value + 1, play)

    def dd_table(self, deal, dealer=0, ruleset=DEFAULT_RULESET, capot=True) -> list[dict]:
        """Every contract of the ruleset, first lead from the dealer's left: one row a
        contract, ``contract`` and ``leader`` and the fields of
        :data:`~bazarsim.dd.batch.DD_FIELDS` (the capot flags with ``capot`` only), the
        names of :func:`dd_tables`' columns ``{KIND}_{field}``."""
        rs = get_ruleset(ruleset)
        leader = (_seat(dealer) + 1) % 4
        rows = []
        for kind in rs.kinds:
            sol = self.solve(deal, kind, leader, rs)
            row = sol.as_dict()
            if capot:
                row["capot_ns"] = self.capot_possible(deal, kind, leader, 0, rs)
                row["capot_ew"] = self.capot_possible(deal, kind, leader, 1, rs)
            rows.append(row)
        return rows


def _cards(mask: int) -> list[int]:
    return [b for b in range(32) if mask >> b & 1]


def _trick_result(trick: list[int], lead: int, last: bool, play) -> tuple[int, int]:
    """The seat winning a full ``trick`` led by ``lead`` and the points it takes (the
    trick's bonus, and the last trick's with ``last``)."""
    rules = play.rules
    arr = np.array(trick, np.int64)
    winner = (lead + int(trick_winner(arr, 4, rules[R_TRUMP], play.strength))) % 4
    points = int(sum(play.points[c] for c in trick)) + int(rules[R_TRICK_BONUS])
    return winner, points + (int(rules[R_LAST_BONUS]) if last else 0)


_DEFAULT: Solver | None = None


def default_solver() -> Solver:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Solver()
    return _DEFAULT


def solve(deal, contract, leader, ruleset=DEFAULT_RULESET) -> Solution:
    return default_solver().solve(deal, contract, leader, ruleset)


def can_reach(deal, contract, leader, side, target, ruleset=DEFAULT_RULESET) -> bool:
    return default_solver().can_reach(deal, contract, leader, side, target, ruleset)


def capot_possible(deal, contract, leader, side, ruleset=DEFAULT_RULESET) -> bool:
    return default_solver().capot_possible(deal, contract, leader, side, ruleset)


def card_values(deal, contract, leader, ruleset=DEFAULT_RULESET) -> dict[str, tuple[int, int]]:
    return default_solver().card_values(deal, contract, leader, ruleset)


def optimal_line(deal, contract, leader, ruleset=DEFAULT_RULESET) -> list[dict]:
    return default_solver().optimal_line(deal, contract, leader, ruleset)


def dd_table(deal, dealer=0, ruleset=DEFAULT_RULESET, capot=True) -> list[dict]:
    return default_solver().dd_table(deal, dealer, ruleset, capot)


