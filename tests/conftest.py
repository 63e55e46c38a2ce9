"""Shared fixtures: random hands and deals from a fixed seed (independent of bazarsim's dealer)."""

from __future__ import annotations

import numpy as np
import pytest

from bazarsim.rules.rulesets import RULESETS


def random_deals(n: int, seed: int) -> np.ndarray:
    """``uint32[n, 4]`` uniformly random full deals (NumPy permutations)."""
    rng = np.random.default_rng(seed)
    perm = np.argsort(rng.random((n, 32)), axis=1).astype(np.uint32)
    bits = np.left_shift(np.uint32(1), perm).reshape(n, 4, 8)
    return np.bitwise_or.reduce(bits, axis=2).astype(np.uint32)


def random_hands(n: int, seed: int) -> np.ndarray:
    return random_deals((n + 3) // 4, seed).reshape(-1)[:n]


@pytest.fixture(params=list(RULESETS))
def ruleset(request):
    return RULESETS[request.param]
