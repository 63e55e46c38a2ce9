"""Threshold studies: from which value of a hand feature on does a bid pay?

For one bid (kind and level) of a DD-solved dataset, every seat counted as the possible
declarer (as in :mod:`bazarsim.analysis.bids`), the rows are counted per value of one
feature of the declarer's hand (``--by``, the bid tables' vocabulary), optionally per class
of another (``--within``). From those counts:

* **monotone fit**: P(make) as a non-decreasing function of the feature, the weighted
  least-squares isotonic fit of the raw rates (pool-adjacent-violators, weights = counts);
* **target**: a fixed P(make) (``--target 0.5``) or, by default, the bid's **break-even**:
  the P(make) at which its expected score equals passing (0). With ``S_made`` and
  ``S_failed`` the mean scores (declarers minus defenders) of the rows where the bid made
  and failed, ``p S_made + (1 - p) S_failed = 0`` gives
  ``p* = -S_failed / (S_made - S_failed)``; both means come from the data of the class
  (the ruleset's scoring of every row, contra as asked), pooled over the feature's values;
* **threshold**: the smallest feature value whose fitted P(make) reaches the target (the
  fit is monotone, so every higher value reaches it too); none when the fit never does;
* **bootstrap 95 % interval** of the threshold. Deals, not rows, are the unit: the four
  seats of a deal share its cards (N and S make or fail together), so rows are not
  independent. Each deal is put in one of ``GROUPS`` groups by a seeded hash of its index
  and the counts are kept per group (bounded memory); a replicate draws ``GROUPS`` groups
  with replacement (a cluster bootstrap over deals), pools their counts and recomputes
  break-even, fit and threshold. The interval is the 2.5th .. 97.5th percentile of the
  replicates' thresholds (a replicate that never reaches the target counts as above every
  value). Same seed, same numbers.

The dataset is streamed by record batch and counted with ``np.bincount``; the fits run on
the aggregated tables.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numba as nb
import numpy as np

from bazarsim.analysis.bids import (
    BidStudy,
    Classer,
    bid_scores,
    declarer_rows,
    has_levels,
    open_study,
    parse_by,
    ruleset_bids,
)
from bazarsim.analysis.stats import wilson_interval
from bazarsim.core.contracts import KIND_NAMES, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.generator import DEFAULT_SEED, GAMMA, mix64
from bazarsim.store.parts import read_manifest

GROUPS = 256  # deal groups of the bootstrap (clusters resampled with replacement)
REPLICATES = 1000
LEVEL = 0.95
MAX_CELLS = 8192  # classes x values of one study (the per-group table stays under 70 MB)


# --------------------------------------------------------------------------- one bid


def open_bid_study(out: str | Path, kind: str | None, level: int | None = None,
                   seats: list[str] | None = None, contra: str = "none",
                   by: list[Classer] | None = None, play: str = "dd") -> BidStudy:
    """A study of one bid (no capot) of a DD dataset: the kind must be the ruleset's and
    simulated, the level a legal bid (default: the lowest); one error line otherwise.
    ``by``: classes whose features the rows must be able to give (a kind they name is
    checked and its columns read)."""
    if not kind:
        kinds = " ".join(read_manifest(out).get("kinds", []))
        raise BazarsimError(f"give the bid's --kinds (simulated in {out}: {kinds})")
    study = open_study(out, by=by, kinds=[kind], seats=seats, contra=contra, play=play)
    rs = study.ruleset
    if has_levels(rs):
        level = rs.auction.min_level if level is None else level
        study.bids = ruleset_bids(rs, study.kinds, [level], capot=False)
    elif level is not None:
        raise BazarsimError(f"ruleset {rs.name} has no bid levels: drop --level", str(level))
    else:
        study.bids = [b for b in study.bids if not b.capot]
    return study


def check_some_made(study: BidStudy, made: int, rows: int, what: str) -> None:
    """Refuse a study of a bid no declarer row made (``--level 99``): there is nothing to
    find, and a table of zeros would say nothing."""
    if made:
        return
    (bid,) = study.bids
    total = study.ruleset.total_points(bid.kind)
    need = f"; it needs {10 * bid.level} points, the cards hold {total}" if (
        bid.level * 10 > total) else ""
    raise BazarsimError(f"{bid.label}: made by none of the {rows:,} declarer rows of "
                        f"{study.out}{need}: no {what} to find", bid.label)


def bid_outcomes(study: BidStudy, batch_size: int = 1 << 16) -> Iterator[tuple[dict, np.ndarray,
                                                                               np.ndarray]]:
    """For every record batch and declarer seat: the row arrays, made (bool) and the
    score (declarers minus defenders) of the study's one bid."""
    (bid,) = study.bids
    for row in declarer_rows(study, batch_size):
        made, score = bid_scores(study, row, [bid])
        yield row, made[0].astype(bool), score[0].astype(np.float64)


def plain_feature(text: str, option: str = "--by", kind: str | None = None) -> str:
    """A feature of the ``--by`` vocabulary without buckets, counted in the bid's kind
    (``kind``: a ``@KIND`` qualifier may only name that one)."""
    c = parse_by(text, option)
    if c.buckets:
        raise BazarsimError(f"{option} {text!r}: give the feature alone (its values are the "
                            "axis of the fit)", text)
    if c.kind is not None and (kind is None or c.kind != parse_kind(kind)):
        raise BazarsimError(f"{option} {text!r}: the axis is counted in the bid's kind"
                            + (f" ({kind})" if kind else "") + f"; drop @{KIND_NAMES[c.kind]}",
                            text)
    return c.feature


def deal_hash(deal: np.ndarray, seed: int) -> np.ndarray:
    """A seeded 64-bit mix (the generator's SplitMix64 finaliser) of deal indices: groups
    and folds of deals."""
    offset = np.uint64((seed * int(GAMMA) + 1) % (1 << 64))
    return _mix_indices(np.ascontiguousarray(deal, np.int64), offset)


@nb.njit(cache=True)
def _mix_indices(deal, offset):
    out = np.empty(deal.shape[0], np.uint64)
    for i in range(deal.shape[0]):
        out[i] = mix64(np.uint64(deal[i]) + offset)
    return out


# --------------------------------------------------------------------------- monotone fit


@nb.njit(cache=True)
def isotonic_fit(y, w):
    """Non-decreasing weighted least-squares fit of ``y`` (weights ``w`` > 0), by
    pool-adjacent-violators: each value joins a block; while a block's mean is below the
    previous one's, the two pool into their weighted mean."""
    n = y.shape[0]
    mean = np.empty(n)
    weight = np.empty(n)
    size = np.empty(n, np.int64)
    k = 0
    for i in range(n):
        mean[k] = y[i]
        weight[k] = w[i]
        size[k] = 1
        while k > 0 and mean[k - 1] > mean[k]:
            tw = weight[k - 1] + weight[k]
            mean[k - 1] = (mean[k - 1] * weight[k - 1] + mean[k] * weight[k]) / tw
            weight[k - 1] = tw
            size[k - 1] += size[k]
            k -= 1
        k += 1
    out = np.empty(n)
    i = 0
    for b in range(k):
        for _ in range(size[b]):
            out[i] = mean[b]
            i += 1
    return out


@nb.njit(cache=True)
def first_reaching(values, n, made, target):
    """The smallest value with a count whose fitted P(make) reaches ``target`` (``inf``
    where none does); values with no row are left out of the fit."""
    m = 0
    for i in range(n.shape[0]):
        if n[i] > 0:
            m += 1
    xs = np.empty(m)
    ys = np.empty(m)
    ws = np.empty(m)
    j = 0
    for i in range(n.shape[0]):
        if n[i] > 0:
            xs[j] = values[i]
            ys[j] = made[i] / n[i]
            ws[j] = n[i]
            j += 1
    fit = isotonic_fit(ys, ws)
    for j in range(m):
        if fit[j] >= target - 1e-12:
            return xs[j]
    return np.inf


@nb.njit(cache=True)
def replicate_thresholds(values, n, made, targets):
    """:func:`first_reaching` of each replicate: ``n``, ``made`` are ``[B, V]``."""
    out = np.empty(n.shape[0])
    for b in range(n.shape[0]):
        out[b] = first_reaching(values, n[b], made[b], targets[b])
    return out


def breakeven(n_made, n_failed, s_made, s_failed):
    """The P(make) at which the expected score is 0: ``-S_failed / (S_made - S_failed)``
    with the mean scores when made and failed (arrays or scalars). No failed row: 0 (the
    bid always pays); no made row, or making scores no more than failing: ``inf``."""
    n_made, n_failed = np.asarray(n_made, float), np.asarray(n_failed, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        sm = np.asarray(s_made, float) / n_made
        sf = np.asarray(s_failed, float) / n_failed
        p = -sf / (sm - sf)
    p = np.where((n_made > 0) & (n_failed > 0) & (sm - sf > 0), p, np.inf)
    return np.where(n_failed == 0, 0.0, p)


def percentile_interval(samples: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The ``(1 - level) / 2`` and ``(1 + level) / 2`` order statistics of the samples
    (``inf`` allowed: a threshold never reached)."""
    s = np.sort(samples)
    b = len(s)
    lo = s[min(b - 1, int(math.floor((1 - level) / 2 * b)))]
    hi = s[max(0, int(math.ceil((1 + level) / 2 * b)) - 1)]
    return float(lo), float(hi)


def bootstrap_draws(groups: int, replicates: int, seed: int) -> np.ndarray:
    """``[replicates, groups]``: how many times each group is drawn in each replicate
    (``groups`` draws with replacement, from ``default_rng(seed)``)."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, groups, size=(replicates, groups))
    flat = (idx + groups * np.arange(replicates)[:, None]).ravel()
    return np.bincount(flat, minlength=replicates * groups).reshape(replicates, groups)


def bootstrap_thresholds(table: np.ndarray, values: np.ndarray, replicates: int, seed: int,
                         target: float | None = None) -> np.ndarray:
    """Thresholds of the bootstrap replicates of one class. ``table[g, v]`` holds, for
    group ``g`` and value ``values[v]``: rows failed, rows made, score sum failed, score sum
    made. ``target`` None: each replicate's own break-even."""
    draws = bootstrap_draws(table.shape[0], replicates, seed).astype(np.float64)
    pooled = (draws @ table.reshape(table.shape[0], -1)).reshape(replicates, *table.shape[1:])
    n_failed, n_made = pooled[..., 0], pooled[..., 1]
    if target is None:
        targets = breakeven(n_made.sum(1), n_failed.sum(1), pooled[..., 3].sum(1),
                            pooled[..., 2].sum(1))
    else:
        targets = np.full(replicates, float(target))
    return replicate_thresholds(values.astype(np.float64), n_made + n_failed, n_made,
                                targets.astype(np.float64))


# --------------------------------------------------------------------------- study


@dataclass
class ThresholdTable:
    """Counts of one bid per [deal group, within-class, feature value]: failed, made,
    score sum failed, score sum made."""

    study: BidStudy
    feature: str
    within: Classer | None
    table: np.ndarray  # float64 [groups, classes, values, 4]


def count_threshold_table(study: BidStudy, feature: str, within: Classer | None = None,
                          seed: int = DEFAULT_SEED, groups: int = GROUPS,
                          batch_size: int = 1 << 16) -> ThresholdTable:
    """Stream the dataset into the per-group table of :class:`ThresholdTable`."""
    v_size = Classer(feature).size
    w_size = within.size if within else 1
    if w_size * v_size > MAX_CELLS:
        raise BazarsimError(f"{feature} within {within.feature}: {w_size * v_size:,} cells, "
                            f"more than {MAX_CELLS:,}; bucket --within, e.g. "
                            f"'{within.feature}=LO..HI,LO..'", within.feature)
    cells = groups * w_size * v_size * 2
    table = np.zeros((groups, w_size, v_size, 4))
    for row, made, score in bid_outcomes(study, batch_size):
        x = row["feature"](feature)
        w = (within.index(row["feature"](within.feature, within.kind)) if within
             else np.zeros_like(x))
        g = (deal_hash(row["deal"], seed) % np.uint64(groups)).astype(np.int64)
        keep = (x >= 0) & (x < v_size) & (w >= 0)
        cell = (((g * w_size + w) * v_size + x) * 2 + made)[keep]
        table[..., 0:2] += np.bincount(cell, minlength=cells).reshape(groups, w_size, v_size, 2)
        table[..., 2:4] += np.bincount(cell, weights=score[keep], minlength=cells).reshape(
            groups, w_size, v_size, 2)
    return ThresholdTable(study, feature, within, table)


def threshold_study(out: str | Path, kind: str | None, by: str, level: int | None = None,
                    within: str | None = None, target: float | None = None,
                    replicates: int = REPLICATES, seed: int = DEFAULT_SEED,
                    seats: list[str] | None = None,
                    contra: str = "none", batch_size: int = 1 << 16,
                    play: str = "dd") -> dict:
    """The threshold of ``by`` for one bid (per class of ``within``): monotone fit, target
    (break-even or fixed), threshold and its bootstrap interval, and the rows behind it."""
    feature = plain_feature(by, kind=kind)
    within_c = parse_by(within, "--within") if within else None
    if target is not None and not 0 < target < 1:
        raise BazarsimError(f"--target {target}: must be between 0 and 1", str(target))
    if replicates < 10:
        raise BazarsimError(f"--bootstrap {replicates}: use at least 10 replicates",
                            str(replicates))
    study = open_bid_study(out, kind, level, seats, contra, [within_c] if within_c else None,
                           play)
    counted = count_threshold_table(study, feature, within_c, seed, GROUPS, batch_size)
    (bid,) = study.bids
    check_some_made(study, int(counted.table[..., 1].sum()),
                    int(counted.table[..., :2].sum()), "threshold")
    result = {
        "dataset": str(out), "play": study.play, "bid": bid.label,
        "kind": KIND_NAMES[bid.kind], "level": bid.level, "feature": feature,
        "within": within_c.name if within_c else None,
        "target_rule": "break-even" if target is None else "fixed",
        "contra": study.contra, "replicates": replicates, "seed": seed, "groups": GROUPS,
        "classes": [],
    }
    labels = within_c.labels() if within_c else [None]
    values = np.arange(counted.table.shape[2])
    for w, label in enumerate(labels):
        tab = counted.table[:, w]
        tot = tab.sum(0)
        n = tot[:, 0] + tot[:, 1]
        if not n.sum():
            continue
        result["classes"].append(_class_result(
            feature, within_c, label, tab, tot, n, values, target, replicates, seed))
    if not result["classes"]:
        raise BazarsimError(f"no rows of bid {bid.label} in {out} (check --within's buckets)")
    return result


def _class_result(feature, within_c, label, tab, tot, n, values, target, replicates, seed):
    made = tot[:, 1]
    n_made, n_failed = made.sum(), tot[:, 0].sum()
    s_made, s_failed = tot[:, 3].sum(), tot[:, 2].sum()
    goal = float(breakeven(n_made, n_failed, s_made, s_failed)) if target is None else target
    seen = n > 0
    fitted = np.full(len(n), np.nan)
    fitted[seen] = isotonic_fit(made[seen] / n[seen], n[seen].astype(np.float64))
    thr = float(first_reaching(values.astype(np.float64), n, made, goal))
    boot = bootstrap_thresholds(tab, values, replicates, seed, target)
    lo, hi = percentile_interval(boot)
    rows = []
    for v in values[seen]:
        c_lo, c_hi = wilson_interval(int(made[v]), int(n[v]))
        rows.append({feature: int(v), "n": int(n[v]), "made": int(made[v]),
                     "p_make": float(made[v] / n[v]), "ci_low": c_lo, "ci_high": c_hi,
                     "fitted": float(fitted[v]), "reaches": bool(fitted[v] >= goal - 1e-12)})
    out = {within_c.name: label} if within_c else {}
    out.update({
        "n": int(n.sum()), "made": int(n_made), "p_make": float(n_made / n.sum()),
        "mean_score_made": float(s_made / n_made) if n_made else math.nan,
        "mean_score_failed": float(s_failed / n_failed) if n_failed else math.nan,
        "target": goal, "threshold": _finite(thr), "ci_low": _finite(lo), "ci_high": _finite(hi),
        "lowest_value": int(values[seen][0]), "highest_value": int(values[seen][-1]),
        "share_not_reached": float(np.isinf(boot).mean()), "rows": rows,
    })
    return out


def _finite(v: float) -> float | None:
    """A threshold, None for "never reached"."""
    return None if math.isinf(v) else v
