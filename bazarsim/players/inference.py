"""What a played card shows about the hand that played it, as masks of cards it cannot
hold (Numba).

The rules of play (docs/rules.md, Legal play; :func:`bazarsim.rules.play.legal_given`) make the
legal cards the first non-empty set of a short list: the led suit (higher cards first
where a duty to go higher applies), then trumps (higher ones first where overtrumping is
due), then any card. So a card ``c`` played from a hand ``H`` is legal exactly when
``H`` holds none of the sets ranked before the one ``c`` belongs to:

    c legal in H  <=>  H & shown_absent(c, trick) == 0     (for every H holding c)

which tests/test_players.py checks against the legal-play kernel on random hands. Since
the cards a seat plays later were in its hand then, the mask holds for its hand from then
on: the sampler forbids those cards to it (voids, trump limits, a led-suit ceiling).

Bela (K+Q of trump, or of a suit :attr:`bela_suit` marks) is announced as its first card
is played (players always announce it: it is worth points to its side and nothing to
the other): so playing a K or Q of such a suit shows the other card in the hand when
announced, and out of it when not (:func:`bela_shown`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from bazarsim.rules.play import (
    R_LEAD_TRUMP_ALL,
    R_OVERTAKE_PLAIN,
    R_OVERTAKE_TRUMP,
    R_OVERTRUMP,
    R_TRUMP,
    R_TRUMP_PARTNER,
    R_UNDERTRUMP,
    trick_summary,
)

RANK_Q = 5  # natural ranks 7 8 9 10 J Q K A = 0..7 (bazarsim.core.cards)
RANK_K = 6


@nb.njit(cache=True)
def shown_absent(c, trick, n, strength, above, rules):
    """Cards the hand that played ``c`` as card ``n`` of ``trick`` cannot have held."""
    if n == 0:
        return np.int64(0)
    trump = rules[R_TRUMP]
    _wkey, widx, best_led, best_tr = trick_summary(trick, 0, n, trump, strength)
    led = trick[0] >> 3
    led_mask = np.int64(0xFF) << (8 * led)
    if (led_mask >> c) & 1:
        if rules[R_LEAD_TRUMP_ALL] != 0 or led == trump:
            duty = rules[R_OVERTAKE_TRUMP] != 0
        else:
            duty = rules[R_OVERTAKE_PLAIN] != 0 and best_tr < 0
        if duty:
            higher = led_mask & above[led, (best_led + 1) & 15]
            if (higher >> c) & 1 == 0:
                return higher
        return np.int64(0)
    absent = led_mask  # void in the led suit
    if trump < 0:
        return absent  # BK, VK: a void hand plays any card
    trumps = np.int64(0xFF) << (8 * trump)
    if (widx & 1) == (n & 1) and rules[R_TRUMP_PARTNER] == 0:
        return absent  # partner holds the trick: any card
    if best_tr < 0:
        if (trumps >> c) & 1:
            return absent
        return absent | trumps  # had to trump
    over = trumps & above[trump, (best_tr + 1) & 15]
    if (trumps >> c) & 1:
        if (over >> c) & 1 or rules[R_OVERTRUMP] == 0:
            return absent
        return absent | over  # under-trumped: could not overtrump
    if rules[R_UNDERTRUMP] != 0:
        return absent | trumps  # had to trump, even under
    return absent | over  # could not overtrump


@nb.njit(cache=True)
def bela_other(c, bela_suits):
    """The other card of a bela pair when ``c`` is a K or Q of a bela suit, else -1.
    ``bela_suits``: the kind's row of :attr:`~bazarsim.rules.compiled.CompiledRules.bela_suit`."""
    s = c >> 3
    r = c & 7
    if bela_suits[s] == 0:
        return -1
    if r == RANK_K:
        return s * 8 + RANK_Q
    if r == RANK_Q:
        return s * 8 + RANK_K
    return -1
