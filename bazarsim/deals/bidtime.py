"""Bid-time cards: what each seat has seen of its hand when it bids, drawn reproducibly.

``simulate`` deals whole 8-card hands (uniformly, :mod:`bazarsim.deals.generator`). Where
a ruleset's players bid before they hold all 8 cards, what a seat saw at bid time is a
uniformly random part of its final hand, by exchangeability of the dealt cards:

* ``belote-fr`` (deal ``5+3``): the taker bid on its first 5 cards and the turned card of
  the talon, which it then received with 2 more; so for each seat, 5 of its 8 cards
  (``seen``) and the turned card, one of its other 3 (``turned``);
* ``bela-hr`` (``6+2``): 6 of the 8 cards (the other 2 stay hidden until trump is named);
* ``bazar`` and ``bazar-blot`` (``8``): the whole hand, nothing is recorded.

Each seat's part is drawn for the hypothesis that this seat takes (one draw per seat,
independent of the other seats'), which is what a bid table reading every seat as a
possible declarer needs.

Stream. Deal ``i``'s bid-time cards come from one uniform integer ``x`` below ``R^4``
(``R``, one seat's choices: C(8,5) * 3 = 168, or C(8,6) = 28), drawn with the generator's
:func:`~bazarsim.deals.generator.draw_below` from word 0 of deal ``i`` under the key
``key ^ 2^63`` (``key``, the run's dealing key; a second word only on Lemire's rare
rejection). Flipping the key's top bit adds ``2^63`` to SplitMix64's counter, so word ``k``
of deal ``i`` here is word ``k`` of deal ``i ^ 2^43`` of the dealing stream: a run reads a
word of both streams only if its indices reach both ``i`` and ``i + 2^43`` (8.8e12 deals
apart). The cards are thus a pure function of ``(seed, i)`` and the deal's hands, whatever
the thread count, chunk, shard or resume.

Base-``R`` digits of ``x`` (seat N first) give each seat's choice: ``digit // T`` indexes
the ``C(8, m)`` masks of ``m`` positions in increasing order, ``digit % T`` which unseen
position (lowest first) is the turned card (``T`` = 8 - m with a turned card, else 1);
position ``j`` is the hand's ``j``-th lowest card bit. Uniform ``x`` makes the digits
independent and uniform, so each seat's seen cards are a uniform ``m``-subset of its hand
and its turned card uniform among the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from bazarsim.core.bits import lowest_bit
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.generator import draw_below, seed_key
from bazarsim.rules.rulesets import Ruleset

HAND_CARDS = 8
KEY_FLIP = np.uint64(1 << 63)  # the bid-time stream: the dealing key with its top bit flipped
NO_CARD = -1


@dataclass(frozen=True)
class BidTime:
    """What a seat has seen of its own hand when it bids as the taker."""

    seen: int  # cards of the hand seen (the first ones dealt)
    turned: bool  # plus the talon's turned card, one of the hand's other cards

    @property
    def choices(self) -> int:
        """Ways to pick one seat's bid-time cards out of its 8 (``R``)."""
        return len(position_masks(self.seen)) * self.turned_choices

    @property
    def turned_choices(self) -> int:
        return HAND_CARDS - self.seen if self.turned else 1


# Deal patterns (``Ruleset.deal_pattern``) whose bid time is not the whole hand.
BID_TIMES = {"5+3": BidTime(5, True), "6+2": BidTime(6, False)}


def bid_time(ruleset: Ruleset) -> BidTime | None:
    """The ruleset's bid-time cards, or None where a player bids on its whole hand."""
    pattern = ruleset.deal_pattern
    if pattern == str(HAND_CARDS):
        return None
    if pattern not in BID_TIMES:
        raise BazarsimError(f"ruleset {ruleset.name}: no bid-time rule for deal pattern "
                            f"{pattern!r}", pattern)
    return BID_TIMES[pattern]


def position_masks(m: int) -> np.ndarray:
    """Every set of ``m`` of a hand's 8 positions as an 8-bit mask, in increasing order."""
    return np.array([p for p in range(1 << HAND_CARDS) if p.bit_count() == m], np.int64)


def bid_time_key(seed: int) -> np.uint64:
    """The key of the bid-time stream of ``seed`` (disjoint from its dealing stream)."""
    return np.uint64(seed_key(np.uint64(seed))) ^ KEY_FLIP


@nb.njit(parallel=True, cache=True)
def bid_time_kernel(key, start, hands, masks, turned_choices, has_turned, total, reject_below,
                    out_seen, out_turned):
    """Bid-time cards of deals ``start ..`` (``hands[i, seat]``): ``out_seen`` the seen
    cards of the hand, ``out_turned`` the turned card's index (``NO_CARD`` without one)."""
    radix = np.int64(masks.shape[0]) * turned_choices
    for i in nb.prange(hands.shape[0]):
        x, _k = draw_below(key, start + i, 0, total, reject_below)
        for s in range(4):
            d = x % radix
            x //= radix
            pos = masks[d // turned_choices]
            t = d % turned_choices
            h = np.int64(hands[i, s])
            seen = np.int64(0)
            turned = np.int64(NO_CARD)
            j = 0
            u = 0
            while h:
                b = lowest_bit(h)
                h &= h - 1
                if (pos >> j) & 1:
                    seen |= np.int64(1) << b
                else:
                    if has_turned and u == t:
                        turned = b
                    u += 1
                j += 1
            out_seen[i, s] = np.uint32(seen)
            out_turned[i, s] = np.int8(turned)


def bid_time_cards(seed: int, start: int, hands: np.ndarray,
                   layout: BidTime) -> tuple[np.ndarray, np.ndarray]:
    """Seen cards ``uint32[n, 4]`` and turned card ``int8[n, 4]`` (``NO_CARD`` where the
    layout has none) of deals ``start .. start + n - 1`` of ``seed``, ``hands`` their
    8-card hands (``uint32[n, 4]``)."""
    n = hands.shape[0]
    if n and not (np.bitwise_count(hands) == HAND_CARDS).all():
        raise BazarsimError("bid-time cards need 8-card hands")
    total = layout.choices ** 4
    seen = np.empty((n, 4), np.uint32)
    turned = np.empty((n, 4), np.int8)
    bid_time_kernel(bid_time_key(seed), np.int64(start), np.ascontiguousarray(hands, np.uint32),
                    position_masks(layout.seen), np.int64(layout.turned_choices),
                    np.bool_(layout.turned), np.uint64(total), np.uint64((1 << 64) % total),
                    seen, turned)
    return seen, turned
