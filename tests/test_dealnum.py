"""Deal numbers: the kernels against the factorial-based reference and enumeration."""

from __future__ import annotations

from itertools import permutations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bazarsim.dealnum import (
    N_DEALS,
    THRESH,
    deal_from_number,
    deal_number,
    deal_numbers,
    deals_from_numbers,
    rank_kernel,
    state_of,
    unrank_kernel,
)
from bazarsim.errors import BazarsimError

from . import naive_dealing as ref


def test_count_of_deals():
    assert N_DEALS == comb(32, 8) * comb(24, 8) * comb(16, 8)
    assert N_DEALS == 99_561_092_450_391_000
    assert N_DEALS < 2**63


@pytest.mark.parametrize("counts", [(2, 2, 2, 2), (3, 0, 2, 1), (1, 1, 1, 1), (0, 0, 0, 3)])
def test_reference_rank_is_lexicographic_order(counts):
    seq = [s for s in range(4) for _ in range(counts[s])]
    ordered = sorted(set(permutations(seq)))
    for x, p in enumerate(ordered):
        assert ref.rank_seats(list(p), counts) == x
        assert ref.unrank_seats(x, counts) == list(p)


@pytest.mark.parametrize("counts", [(2, 2, 2, 2), (3, 1, 0, 2), (1, 2, 3, 2)])
def test_kernels_enumerate_small_positions_in_order(counts):
    """Completions of a few unseen cards: every number decodes to the next string."""
    cards = np.array([1, 5, 9, 12, 17, 22, 28, 31][: sum(counts)], np.uint8)
    seq = [s for s in range(4) for _ in range(counts[s])]
    ordered = sorted(set(permutations(seq)))
    nums = np.arange(len(ordered), dtype=np.int64)
    out = np.empty((len(ordered), 4), np.uint32)
    unrank_kernel(nums, cards, state_of(counts), np.zeros(4, np.uint32), THRESH, out)
    for row, p in zip(out, ordered, strict=True):
        want = [0, 0, 0, 0]
        for c, s in zip(cards, p, strict=True):
            want[s] |= 1 << int(c)
        assert list(map(int, row)) == want
    back = np.empty(len(ordered), np.int64)
    rank_kernel(out, cards, state_of(counts), THRESH, back)
    assert (back == nums).all()


def test_first_and_last_deal():
    first = deal_from_number(0)
    assert list(map(int, first)) == [0xFF, 0xFF00, 0xFF0000, 0xFF000000]
    last = deal_from_number(N_DEALS - 1)
    assert list(map(int, last)) == [0xFF000000, 0xFF0000, 0xFF00, 0xFF]
    assert deal_number(first) == 0 and deal_number(last) == N_DEALS - 1


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=N_DEALS - 1))
def test_full_deal_bijection_matches_reference(number):
    d = deal_from_number(number)
    assert list(map(int, d)) == ref.deal_of_number(number)
    assert sorted(int(h).bit_count() for h in d) == [8, 8, 8, 8]
    assert int(d[0] | d[1] | d[2] | d[3]) == 0xFFFFFFFF
    assert deal_number(d) == number == ref.number_of_deal(d)


def test_vectorised_round_trip():
    rng = np.random.default_rng(5)
    nums = rng.integers(0, N_DEALS, 20_000, dtype=np.int64)
    deals = deals_from_numbers(nums)
    assert (deal_numbers(deals) == nums).all()
    for i in range(0, 20_000, 997):
        assert ref.number_of_deal(deals[i]) == nums[i]


def test_out_of_range_and_partial_deals_are_errors():
    with pytest.raises(BazarsimError, match="out of range"):
        deal_from_number(N_DEALS)
    with pytest.raises(BazarsimError, match="out of range"):
        deals_from_numbers([-1])
    with pytest.raises(BazarsimError, match="full deal"):
        deal_number([1, 2, 4, 8])
