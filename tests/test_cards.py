"""Card, hand and deal parsing/formatting, checked against plain Python."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bazarsim.core.cards import (
    RANKS,
    SUITS,
    cards_of,
    format_card,
    format_cards,
    format_deal,
    format_hand,
    parse_card,
    parse_cards,
    parse_deal,
    parse_hand,
    parse_seat,
)
from bazarsim.core.contracts import BK, VK, parse_kind
from bazarsim.core.errors import CardError

from .conftest import random_deals


def test_card_bits_layout():
    assert parse_card("7S") == 0 and parse_card("AS") == 7
    assert parse_card("JH") == 8 + 4 and parse_card("AC") == 31
    assert parse_card("10D") == parse_card("TD") == 16 + 3
    assert parse_card("A♦") == parse_card("ad") == 16 + 7
    for c in range(32):
        assert parse_card(format_card(c)) == c
        assert parse_card(format_card(c, symbols=True)) == c


def test_card_list_and_hand_forms_agree():
    assert parse_cards("JS 9S AH 10D") == parse_hand("J9.A.T.")
    assert parse_cards("JS,9S, AH") == parse_hand("J9.A..")
    assert parse_hand("-.AKQ.-.7") == parse_hand(".AKQ..7")
    assert format_hand(parse_hand("9JA.7K.Q.T8")) == "AJ9.K7.Q.T8"
    assert format_hand(parse_hand("AJ9.K7.Q.T8"), symbols=True) == "♠AJ9 ♥K7 ♦Q ♣T8"
    assert format_cards(parse_hand("A.K.Q.J")) == "AS KH QD JC"


@given(st.integers(0, 2**32 - 1))
def test_hand_roundtrip_any_mask(mask):
    if mask:
        assert parse_cards(format_cards(mask)) == mask
    else:  # no cards prints as nothing, and nothing is no card list
        assert format_cards(mask) == ""
        with pytest.raises(CardError, match="empty card list"):
            parse_cards("")
    text = format_hand(mask)
    if bin(mask).count("1") <= 8:
        assert parse_hand(text) == mask
    assert sorted(cards_of(mask)) == [c for c in range(32) if mask >> c & 1]


@given(st.integers(0, 2**31), st.integers(0, 3))
def test_deal_roundtrip(seed, first):
    deal = random_deals(1, seed)[0]
    text = format_deal(deal, first)
    assert text[0] == "NESW"[first]
    assert np.array_equal(parse_deal(text, full=True), deal)


@pytest.mark.parametrize(
    "text,token",
    [("XS", "XS"), ("J", "J"), ("JX", "JX"), ("1H", "1H"), ("11S", "11S")],
)
def test_bad_cards_name_the_token(text, token):
    with pytest.raises(CardError) as err:
        parse_card(text)
    assert err.value.token == token and repr(token) in str(err.value)


@pytest.mark.parametrize(
    "text,needle",
    [
        ("AKX.Q.J.T", "unknown rank 'X' in spades"),
        ("AKA.Q.J.T", "duplicate card AS"),
        ("AK.Q.J", "needs 4 suits"),
        ("AKQJT.987.AK.Q", "11 cards"),
        ("JS JS", "duplicate card 'JS'"),
        ("JS QZ", "unknown suit 'Z'"),
    ],
)
def test_bad_hands(text, needle):
    with pytest.raises(CardError, match=needle):
        parse_hand(text)


@pytest.mark.parametrize(
    "text,needle",
    [
        ("N:AKQJ... T987... ..AKQJ. ..T987.", None),  # fine: a 4-card position
        ("N:AKQJ... AKQJ... ..AKQJ. ..T987.", "card AS is in two hands"),
        ("N:AKQJ... T98... ..AKQJ. ..T987.", "same number of cards"),
        ("N:AKQJ... T987... ..AKQJ.", "expected 4 hands"),
        ("X:AKQJ... T987... ..AKQJ. ..T987.", "seat before ':'"),
        ("N:AKQJT9876... ... ... ...", "unknown rank"),
    ],
)
def test_bad_deals(text, needle):
    if needle is None:
        d = parse_deal(text)
        assert d.dtype == np.uint32 and [bin(int(h)).count("1") for h in d] == [4] * 4
        with pytest.raises(CardError, match="full deal"):
            parse_deal(text, full=True)
    else:
        with pytest.raises(CardError, match=needle):
            parse_deal(text)


def test_deal_seat_prefix_rotates():
    d = parse_deal("E:AKQJT987... .AKQJT987.. ..AKQJT987. ...AKQJT987")
    assert format_hand(d[1]) == "AKQJT987..." and format_hand(d[0]) == "...AKQJT987"
    assert format_deal(d) == "N:...AKQJT987 AKQJT987... .AKQJT987.. ..AKQJT987."


def test_seats_and_kinds():
    assert [parse_seat(s) for s in "NESW"] == [0, 1, 2, 3]
    assert parse_seat("west") == 3
    with pytest.raises(CardError):
        parse_seat("Q")
    assert [parse_kind(k) for k in SUITS] == [0, 1, 2, 3]
    assert parse_kind("NT") == parse_kind("bk") == BK
    assert parse_kind("AT") == parse_kind("VK") == VK
    assert parse_kind("♥") == 1
    assert RANKS == "789TJQKA"
