"""Statistics for proportions counted in simulations: Wilson score intervals and
z-scores against an exact value."""

from __future__ import annotations

import math
from statistics import NormalDist


def wilson_interval(count, n, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``count / n``."""
    if n == 0:
        return float("nan"), float("nan")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = count / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if count == 0 else max(0.0, centre - half)
    hi = 1.0 if count == n else min(1.0, centre + half)
    return lo, hi


def z_score(count, n, p: float) -> float:
    """How many standard errors ``count / n`` lies from the exact probability ``p``."""
    if n == 0 or p <= 0 or p >= 1:
        return float("nan")
    return (count - n * p) / math.sqrt(n * p * (1 - p))
