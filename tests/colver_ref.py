"""colver, a public Belote Contree engine (Rust, PyPI ``colver``), as an outside reference
for the double-dummy solver: the same deals solved by both, values compared.

colver plays French contree rules, which are ``belote-fr`` without the duty to
undertrump (a hand that is void in the led suit and cannot beat an opponent's trump may
discard): :data:`COLVER_RULESET`. Its search counts card points with the last trick's 10
(0-162) and a capot as 252; ours counts the points (0-162) and tells a capot apart with a
probe on tricks. Its cards are numbered ``suit * 8 + rank`` with the suits in our order
(S H D C) and the ranks ``7 8 9 J Q K T A``; its seats 0-3 play in our order N E S W,
seat ``(dealer + 1) % 4`` leading.
"""

from __future__ import annotations

from bazarsim.core.cards import cards_of
from bazarsim.rules.rulesets import get_ruleset

COLVER_VERSION = "0.11.1"
COLVER_RULESET = get_ruleset("belote-fr", **{"play.undertrump_required": False})
CAPOT = 252  # colver's value of a capot for the side that takes every trick

# natural rank (7 8 9 T J Q K A) -> colver's rank (7 8 9 J Q K T A), and back
_TO_COLVER_RANK = (0, 1, 2, 6, 3, 4, 5, 7)
_FROM_COLVER_RANK = tuple(_TO_COLVER_RANK.index(r) for r in range(8))


def to_colver_card(card: int) -> int:
    return (card & ~7) | _TO_COLVER_RANK[card & 7]


def from_colver_card(card: int) -> int:
    return (card & ~7) | _FROM_COLVER_RANK[card & 7]


def colver_hands(deal) -> list[list[int]]:
    """A deal (``uint32[4]``, N E S W) as colver's four card lists."""
    return [
        sorted(to_colver_card(c) for c in cards_of(int(deal[seat]))) for seat in range(4)
    ]


def same_points(colver_points: int, ns_points: int, total: int) -> bool:
    """Whether colver's N-S points and ours (``total``: every point of the deal) say the
    same: equal, or colver's capot where N-S take every point."""
    return colver_points == ns_points or (colver_points == CAPOT and ns_points == total)


def colver_lead_values(deal, trump: int, leader: int) -> dict[int, int]:
    """N-S points after each legal lead of seat ``leader`` (our card numbers), the suit
    contract ``trump`` (0-3, S H D C), solved by colver: ``{card: points}``, a capot of
    N-S as :data:`CAPOT`."""
    import colver

    env = colver.Env.deal_with_hands((leader + 3) % 4, colver_hands(deal))
    env.set_contract(trump, 80, 0, 0)  # the level and the declarer do not change play
    env.set_phase_playing()
    assert env.current_player() == leader
    return {from_colver_card(c): v for c, v in env.solve_scores()["scores"]}
