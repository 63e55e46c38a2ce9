"""Exact odds of hand and table features, by combinatorics (no sampling).

A hand is 8 of the 32 cards, all C(32, 8) = 10,518,300 hands equally likely. Most
features depend on each suit separately, so the number of hands with a property is the
coefficient of x^8 in a product of four per-suit polynomials (one term per suit holding,
weighted by its card count). Features that tie suits together, fours of a kind, go
through inclusion-exclusion over the set of ranks held four times, each term again such
a product with those ranks forced into every suit. Table features (any of the four hands)
are sums over seats of disjoint events. All arithmetic is exact (``Fraction``).

Trump features take hearts as trump (``REFERENCE_TRUMP``, as the frequency tables do);
by symmetry every suit gives the same values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb

from bazarsim.core.cards import RANKS
from bazarsim.core.contracts import REFERENCE_TRUMP
from bazarsim.rules.rulesets import Ruleset, get_ruleset

HAND = 8
DECK = 32
ALL_HANDS = comb(DECK, HAND)
TRUMP = REFERENCE_TRUMP
RANK = {c: i for i, c in enumerate(RANKS)}
K, Q, J, NINE = RANK["K"], RANK["Q"], RANK["J"], RANK["9"]

SuitPredicate = Callable[[int, int], bool]  # (suit, suit byte) -> bool


def count_hands(ok: SuitPredicate | None = None, forced: int = 0, size: int = HAND) -> int:
    """Hands of ``size`` cards whose every suit holding ``b`` satisfies ``ok(suit, b)``
    and contains the ranks of ``forced`` (a rank mask)."""
    poly = [1] + [0] * size  # coefficient k: ways to pick k cards from the suits so far
    for suit in range(4):
        term = [0] * (size + 1)
        for b in range(256):
            if b & forced != forced or (ok is not None and not ok(suit, b)):
                continue
            k = b.bit_count()
            if k <= size:
                term[k] += 1
        poly = [sum(poly[i] * term[k - i] for i in range(k + 1)) for k in range(size + 1)]
    return poly[size]


def has_run(b: int, length: int) -> bool:
    """A suit holding contains ``length`` adjacent ranks (natural order)."""
    run = (1 << length) - 1
    return any((b >> s) & run == run for s in range(9 - length))


def prob_any_four(ranks: list[int], ok: SuitPredicate | None = None) -> Fraction:
    """P(the hand holds all four cards of at least one rank in ``ranks``), optionally
    jointly with every suit satisfying ``ok``; inclusion-exclusion over rank sets."""
    total = 0
    for n in range(1, len(ranks) + 1):
        for subset in combinations(ranks, n):
            forced = sum(1 << r for r in subset)
            total += (-1) ** (n + 1) * count_hands(ok, forced)
    return Fraction(total, ALL_HANDS)


def prob_all_suits(ok: SuitPredicate) -> Fraction:
    return Fraction(count_hands(ok), ALL_HANDS)


@dataclass(frozen=True)
class Feature:
    name: str
    probability: Fraction
    description: str

    def record(self) -> dict:
        p = self.probability
        return {
            "feature": self.name,
            "probability": float(p),
            "percent": round(100 * float(p), 4),
            "one_in": round(1 / float(p), 2) if p else None,
            "exact": f"{p.numerator}/{p.denominator}",
            "description": self.description,
        }


def scoring_four_ranks(ruleset: Ruleset, bk: bool = False) -> list[int]:
    values = ruleset.declarations.four_values_bk if bk else ruleset.declarations.four_values
    return [RANK[c] for c, v in values.items() if v > 0 and c not in "78"]


def exact_features(ruleset: Ruleset | str | None = None) -> list[Feature]:
    """Every feature with its exact probability (hand features, then table features)."""
    rs = get_ruleset(ruleset)
    kq = (1 << K) | (1 << Q)
    jn = (1 << J) | (1 << NINE)
    trump_only = lambda want: (lambda s, b: s != TRUMP or want(b))  # noqa: E731
    p_kq_trump = 1 - prob_all_suits(trump_only(lambda b: b & kq != kq))
    p_j_trump = 1 - prob_all_suits(trump_only(lambda b: not b >> J & 1))
    p_jn_trump = 1 - prob_all_suits(trump_only(lambda b: b & jn != jn))
    p_four = {r: prob_any_four([RANK[r]]) for r in "789TJQKA"}
    scoring = scoring_four_ranks(rs)
    no_seq3 = lambda s, b: not has_run(b, 3)  # noqa: E731
    # P(no sequence and no scoring four) = P(no seq) - P(no seq and some scoring four)
    p_no_decl = prob_all_suits(no_seq3) - prob_any_four(scoring, no_seq3)

    feats = [
        Feature("kq_any_suit", 1 - prob_all_suits(lambda s, b: b & kq != kq),
                "K and Q of at least one suit in the hand (a bela if that suit is trump)"),
        Feature("kq_trump", p_kq_trump, "K and Q of trump: a bela"),
        Feature("jack_trump", p_j_trump, "the trump jack"),
        Feature("nine_trump", 1 - prob_all_suits(trump_only(lambda b: not b >> NINE & 1)),
                "the trump nine"),
        Feature("jack_nine_trump", p_jn_trump, "trump jack and nine (34 points)"),
    ]
    for length, label in ((3, "terz"), (4, "fifty"), (5, "quint")):
        feats.append(
            Feature(f"sequence_{length}plus",
                    1 - prob_all_suits(lambda s, b, n=length: not has_run(b, n)),
                    f"a run of {length} or more in one suit (at least a {label})")
        )
    feats += [
        Feature("four_of_a_kind_scoring", prob_any_four(scoring),
                "four of a kind that scores in a suit contract "
                f"({' '.join(RANKS[r] for r in sorted(scoring, reverse=True))})"),
        Feature("four_jacks", p_four["J"], "four jacks"),
        Feature("four_nines", p_four["9"], "four nines"),
        Feature("four_aces", p_four["A"], "four aces"),
        Feature("four_sevens", p_four["7"], "four sevens (redeal in bazar)"),
        Feature("four_eights", p_four["8"], "four eights (cancel declarations in bazar)"),
        Feature("declaration_any", 1 - p_no_decl,
                "a scoring declaration in a suit contract (sequence or four; bela aside)"),
    ]
    if 4 in rs.kinds:
        bk_ranks = scoring_four_ranks(rs, bk=True)
        feats.append(Feature("four_of_a_kind_scoring_bk", prob_any_four(bk_ranks),
                             "four of a kind that scores in BK "
                             f"({' '.join(RANKS[r] for r in sorted(bk_ranks, reverse=True))})"))
    for n in range(HAND + 1):
        feats.append(Feature(f"trumps_{n}", Fraction(comb(8, n) * comb(24, 8 - n), ALL_HANDS),
                             f"exactly {n} trumps"))
    for n in range(5):
        feats.append(Feature(f"aces_{n}", Fraction(comb(4, n) * comb(28, 8 - n), ALL_HANDS),
                             f"exactly {n} aces"))
    # Table features: at most one hand can hold a given pair / four, so the four seats'
    # events are disjoint and their probabilities add.
    feats += [
        Feature("kq_trump_at_table", 4 * p_kq_trump,
                "K and Q of trump in one hand, any seat: a bela in the deal"),
        Feature("jack_nine_trump_at_table", 4 * p_jn_trump,
                "trump jack and nine in one hand, any seat"),
        Feature("four_sevens_at_table", 4 * p_four["7"],
                "some hand holds four sevens (bazar: the deal is redealt)"),
        Feature("four_eights_at_table", 4 * p_four["8"],
                "some hand holds four eights (bazar: declarations cancelled)"),
    ]
    return feats


def exact_odds(ruleset: Ruleset | str | None = None) -> dict[str, float]:
    """``{feature: probability}`` as floats."""
    return {f.name: float(f.probability) for f in exact_features(ruleset)}
