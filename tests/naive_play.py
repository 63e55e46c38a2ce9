"""Brute-force double-dummy reference, written straight from docs/rules.md (card order and
points, legal play).

Plain Python, independent of bazarsim's tables and kernels: cards are strings such as
``"JS"``, orders and points are copied from the rules' table, the legal-play duties are
spelled out per ruleset. Full minimax over every legal card: no pruning, no card
merging, so nothing can hide a bug in the fast solver (the card functions are memoised
per card). :func:`minimax` keeps no memo of positions either (slow: up to 4 tricks);
:func:`memo_minimax` gives the same value with a dict of the trick-boundary states
already solved, which reaches 6 tricks (5 tricks: 0.05-1 s, 6 tricks: 0.5-7 s in CPython
on this host; 7 tricks: minutes and gigabytes, so full deals are out of reach).
"""

from __future__ import annotations

from functools import cache

TRUMP_ORDER = "J9AT" + "KQ87"  # high to low (docs/rules.md)
PLAIN_ORDER = "ATKQJ987"
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
BK_POINTS = {"A": 19, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
LAST_TRICK = 10

# Legal-play duties per ruleset (docs/rules.md, Legal play).
RULES = {
    "bazar": {
        "overtake_trump": True,  # trump lead (any lead in VK): go higher if able
        "overtake_plain": False,  # plain lead, no trump in the trick: go higher if able
        "trump_partner": False,  # void: must trump even when partner holds the trick
        "overtrump": True,  # when trumping, beat the trumps in the trick if able
        "undertrump": False,  # cannot beat an opponent's trump: must still trump
    },
}
RULES["bazar-blot"] = dict(RULES["bazar"], undertrump=True)
RULES["belote-fr"] = dict(RULES["bazar"], undertrump=True)
RULES["bela-hr"] = dict(
    RULES["bazar"], overtake_plain=True, trump_partner=True, undertrump=True
)
# Bela (bela-hr) is played counter-clockwise: after N comes W.
COUNTERCLOCKWISE = {"bela-hr"}
KINDS = ("S", "H", "D", "C", "BK", "VK")


@cache
def is_trump(card: str, kind: str) -> bool:
    return kind == "VK" or card[1] == kind


@cache
def power(card: str, kind: str) -> int:
    """Rank inside its suit, larger is stronger."""
    order = TRUMP_ORDER if kind != "BK" and is_trump(card, kind) else PLAIN_ORDER
    return 7 - order.index(card[0])


@cache
def points(card: str, kind: str) -> int:
    if kind == "BK":
        return BK_POINTS[card[0]]
    return TRUMP_POINTS[card[0]] if is_trump(card, kind) else PLAIN_POINTS[card[0]]


def trick_winner(trick: list[tuple[int, str]], kind: str) -> int:
    """Seat winning a (partial) trick: highest trump of a suit contract, else led suit."""
    led = trick[0][1][1]
    trumps = [(s, c) for s, c in trick if kind in "SHDC" and c[1] == kind]
    pool = trumps if trumps else [(s, c) for s, c in trick if c[1] == led]
    return max(pool, key=lambda sc: power(sc[1], kind))[0]


def legal(hand: list[str], seat: int, trick: list[tuple[int, str]], kind: str, rules) -> list[str]:
    if not trick:
        return list(hand)
    led = trick[0][1][1]
    follow = [c for c in hand if c[1] == led]
    if follow:
        trump_lead = kind == "VK" or led == kind
        someone_trumped = kind in "SHDC" and any(c[1] == kind for _, c in trick)
        if trump_lead:
            duty = rules["overtake_trump"]
        else:
            duty = rules["overtake_plain"] and not someone_trumped
        if duty:
            best = max(power(c, kind) for _, c in trick if c[1] == led)
            higher = [c for c in follow if power(c, kind) > best]
            if higher:
                return higher
        return follow
    if kind in ("BK", "VK"):
        return list(hand)
    my_trumps = [c for c in hand if c[1] == kind]
    if not my_trumps:
        return list(hand)
    holder = trick_winner(trick, kind)
    if holder % 2 == seat % 2 and not rules["trump_partner"]:
        return list(hand)
    in_trick = [power(c, kind) for _, c in trick if c[1] == kind]
    if not in_trick:
        return my_trumps
    higher = [c for c in my_trumps if power(c, kind) > max(in_trick)]
    if higher:
        return higher if rules["overtrump"] else my_trumps
    return my_trumps if rules["undertrump"] else list(hand)


def minimax(hands, leader, kind, rules, trick=(), score="points", step=1):
    """N-S total from the start of the current trick: points, or tricks with ``score``.

    ``step`` is +1 for clockwise play (N E S W), -1 for counter-clockwise (N W S E).
    """
    trick = list(trick)
    seat = (leader + step * len(trick)) % 4
    if len(trick) == 4:
        winner = trick_winner(trick, kind)
        last = not any(hands)
        if score == "points":
            value = sum(points(c, kind) for _, c in trick) + (LAST_TRICK if last else 0)
        else:
            value = 1
        ns = value if winner % 2 == 0 else 0
        if last:
            return ns
        return ns + minimax(hands, winner, kind, rules, (), score, step)
    results = []
    for card in legal(hands[seat], seat, trick, kind, rules):
        rest = list(hands)
        rest[seat] = [c for c in hands[seat] if c != card]
        results.append(minimax(rest, leader, kind, rules, trick + [(seat, card)], score, step))
    return max(results) if seat % 2 == 0 else min(results)


def total_points(hands, kind) -> int:
    return sum(points(c, kind) for h in hands for c in h) + LAST_TRICK


def card_values(hands, leader, kind, rules, step=1) -> dict[str, int]:
    """N-S points after the leader plays each legal card."""
    out = {}
    for card in legal(hands[leader], leader, [], kind, rules):
        rest = list(hands)
        rest[leader] = [c for c in hands[leader] if c != card]
        out[card] = minimax(rest, leader, kind, rules, [(leader, card)], step=step)
    return out


def hands_from_masks(masks) -> list[list[str]]:
    """uint32 masks (bit = suit * 8 + natural rank 7..A) to card strings."""
    ranks = "789TJQKA"
    suits = "SHDC"
    return [[ranks[b & 7] + suits[b >> 3] for b in range(32) if int(m) >> b & 1] for m in masks]


def minimax_job(job) -> int:
    """:func:`minimax` of one position given as plain data (for a process pool):
    ``(uint32 masks as ints, leader, kind, rules, score, step)``."""
    masks, leader, kind, rules, score, step = job
    return minimax(hands_from_masks(masks), leader, kind, rules, score=score, step=step)


def memo_minimax(hands, leader, kind, rules, trick=(), score="points", step=1, stats=None):
    """:func:`minimax`'s value, each state solved once: a dict keyed on the full state.

    A state is everything the rest of the play depends on: the four remaining hands, the
    leader of the current trick and its cards in order with their seats. Its value is that
    of the remainder only (N-S total from the start of the current trick, as
    :func:`minimax` returns it), which does not depend on the points taken before, so two
    lines reaching one state share its entry. Only trick boundaries (no card of the trick
    played) are kept: a state inside a trick is reached again only through its trick's
    start being reached again, so its entry would never be read. Nothing else: plain
    minimax over every legal card, no pruning, no card merging. ``stats``: a dict that
    receives the number of trick-boundary states solved (``"states"``), of states found
    solved (``"hits"``) and of cards played (``"nodes"``).
    """
    memo: dict = {}
    nodes = hits = 0

    def value(hands, leader, trick):
        nonlocal nodes, hits
        if not trick and (hands, leader) in memo:
            hits += 1
            return memo[hands, leader]
        seat = (leader + step * len(trick)) % 4
        if len(trick) == 4:
            winner = trick_winner(list(trick), kind)
            last = not any(hands)
            if score == "points":
                won = sum(points(c, kind) for _, c in trick) + (LAST_TRICK if last else 0)
            else:
                won = 1
            ns = won if winner % 2 == 0 else 0
            return ns if last else ns + value(hands, winner, ())
        results = []
        for card in legal(sorted(hands[seat]), seat, list(trick), kind, rules):
            nodes += 1
            rest = list(hands)
            rest[seat] = hands[seat] - {card}
            results.append(value(tuple(rest), leader, trick + ((seat, card),)))
        result = max(results) if seat % 2 == 0 else min(results)
        if not trick:
            memo[hands, leader] = result
        return result

    start = tuple(frozenset(h) for h in hands)
    result = value(start, leader, tuple(tuple(sc) for sc in trick))
    if stats is not None:
        stats.update(states=len(memo), hits=hits, nodes=nodes)
    return result


def memo_minimax_job(job) -> int:
    """:func:`memo_minimax` of one position given as plain data (see :func:`minimax_job`)."""
    masks, leader, kind, rules, score, step = job
    return memo_minimax(hands_from_masks(masks), leader, kind, rules, score=score, step=step)
