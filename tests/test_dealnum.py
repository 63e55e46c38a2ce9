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
def test_completion_kernels_enumerate_small_positions_in_order(counts):
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
    first = deal_from_number(0)  # NS the high half (diamonds, clubs), N the diamonds
    assert list(map(int, first)) == [0xFF0000, 0xFF, 0xFF000000, 0xFF00]
    last = deal_from_number(N_DEALS - 1)
    assert list(map(int, last)) == [0xFF00, 0xFF000000, 0xFF, 0xFF0000]
    assert ref.deal_of_number(0) == list(map(int, first))
    assert deal_number(first) == 0 and deal_number(last) == N_DEALS - 1


def test_subset_tables_against_plain_python():
    from bazarsim.dealnum import PDEP8, PEXT8, RANK16, START16, SUB16

    for k in (0, 1, 5, 8, 16):
        masks = ref.masks_of_size(k)
        got = SUB16[START16[k]: START16[k] + len(masks)].astype(int).tolist()
        assert got == masks
        assert all(RANK16[m] == i for i, m in enumerate(masks))
    rng = np.random.default_rng(0)
    for m, v in rng.integers(0, 256, (2000, 2)):
        assert PDEP8[m, v] == ref.deposit(int(v) & ((1 << int(m).bit_count()) - 1), int(m))
        assert PEXT8[m, v] == ref.extract(int(v), int(m))


def test_full_deal_full_state_completion_is_also_a_bijection():
    """The completion decoder with nothing fixed covers all deals too (other order)."""
    nums = np.random.default_rng(9).integers(0, N_DEALS, 200, dtype=np.int64)
    out = np.empty((200, 4), np.uint32)
    unrank_kernel(nums, np.arange(32, dtype=np.uint8), state_of([8] * 4),
                  np.zeros(4, np.uint32), THRESH, out)
    back = np.empty(200, np.int64)
    rank_kernel(out, np.arange(32, dtype=np.uint8), state_of([8] * 4), THRESH, back)
    assert (back == nums).all()
    seats = [[next(s for s in range(4) if int(d[s]) >> c & 1) for c in range(32)] for d in out]
    assert [ref.rank_seats(x, (8, 8, 8, 8)) for x in seats] == nums.tolist()


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
