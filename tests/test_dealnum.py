"""Deal numbers: the kernels against the factorial-based reference and enumeration."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bazarsim.core.errors import BazarsimError
from bazarsim.deals.numbering import (
    N_DEALS,
    PDEP8,
    START16,
    SUB16,
    completion_count,
    completion_params,
    deal_from_number,
    deal_number,
    deal_numbers,
    deals_from_numbers,
    decode_completion_kernel,
)

from . import naive_dealing as ref


def test_count_of_deals():
    assert N_DEALS == comb(32, 8) * comb(24, 8) * comb(16, 8)
    assert N_DEALS == 99_561_092_450_391_000
    assert N_DEALS < 2**63


@pytest.mark.parametrize("fix", [
    ["N:AS KS QS JS TS 9S 8S", "E:AH KH QH JH TH 9H 8H", "S:AD KD QD JD TD 9D",
     "W:AC KC QC JC TC 9C 8C"],  # 5 unseen cards
    ["N:AS KS QS JS TS 9S 8S 7S", "E:AH KH QH JH TH 9H", "S:AD KD QD JD TD 9D",
     "W:AC KC QC JC TC 9C"],  # 6 unseen, North full
    ["S:AS KS QS JS TS 9S 8S", "W:AH KH QH JH TH 9H 8H 7H", "E:AD KD QD JD TD 9D",
     "N:AC KC QC"],  # 8 unseen
])
def test_completions_enumerate_every_way_once(fix):
    """Small positions: every completion number gives a different valid deal, all of them."""
    from bazarsim.deals.constraints import parse_fix

    fixed = parse_fix(fix)
    cp = completion_params(fixed)
    total = completion_count(cp)
    room = [8 - int(h).bit_count() for h in fixed]
    assert total == ref.multinomial(room)
    nums = np.arange(total, dtype=np.int64)
    out = np.empty((total, 4), np.uint32)
    decode_completion_kernel(nums, cp, SUB16, START16, PDEP8, out)
    out |= np.array(fixed, np.uint32)
    assert len({tuple(r) for r in out.tolist()}) == total
    assert ((out[:, 0] | out[:, 1] | out[:, 2] | out[:, 3]) == 0xFFFFFFFF).all()
    assert (np.bitwise_count(out) == 8).all()
    for x in range(total):
        assert list(map(int, out[x])) == ref.completion(x, fixed)


def test_completion_with_nothing_fixed_is_the_deal_number():
    nums = np.random.default_rng(9).integers(0, N_DEALS, 5000, dtype=np.int64)
    out = np.empty((5000, 4), np.uint32)
    decode_completion_kernel(nums, completion_params((0, 0, 0, 0)), SUB16, START16, PDEP8, out)
    assert (out == deals_from_numbers(nums)).all()
    assert ref.completion(int(nums[0]), (0, 0, 0, 0)) == list(map(int, out[0]))


def test_first_and_last_deal():
    first = deal_from_number(0)  # NS the high half (diamonds, clubs), N the diamonds
    assert list(map(int, first)) == [0xFF0000, 0xFF, 0xFF000000, 0xFF00]
    last = deal_from_number(N_DEALS - 1)
    assert list(map(int, last)) == [0xFF00, 0xFF000000, 0xFF, 0xFF0000]
    assert ref.deal_of_number(0) == list(map(int, first))
    assert deal_number(first) == 0 and deal_number(last) == N_DEALS - 1


def test_subset_tables_against_plain_python():
    from bazarsim.deals.numbering import PDEP8, PEXT8, RANK16, START16, SUB16

    for k in (0, 1, 5, 8, 16):
        masks = ref.masks_of_size(k)
        got = SUB16[START16[k]: START16[k] + len(masks)].astype(int).tolist()
        assert got == masks
        assert all(RANK16[m] == i for i, m in enumerate(masks))
    rng = np.random.default_rng(0)
    for m, v in rng.integers(0, 256, (2000, 2)):
        assert PDEP8[m, v] == ref.deposit(int(v) & ((1 << int(m).bit_count()) - 1), int(m))
        assert PEXT8[m, v] == ref.extract(int(v), int(m))


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
