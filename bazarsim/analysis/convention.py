"""Hand-strength conventions: how well does a count of the hand predict making a bid?

A *count* is a linear formula over the features of the declarer's hand (the ``--by``
vocabulary of the bid tables: ``points + 10*trumps + 20*jack``), parsed here (numbers,
feature names, ``+ - *``; no ``eval``). For one bid of a DD-solved dataset, every seat a
possible declarer, the rows are counted per value of each count, and per count:

* **AUC**: the probability that a random row where the bid made has a higher count than
  a random row where it failed (ties 1/2), exact from the per-value counts. It needs no
  fit: it says how well the count *ranks* hands (0.5 = no better than chance);
* **Brier score** and **log-loss** of P(make) predicted from the count by a monotone
  (isotonic) fit, **cross-fitted**: deals are split in two halves by a seeded hash of
  their index (all four seats of a deal in the same half); the fit on one half predicts
  the other, so no row is scored by a fit that saw it. Between the values a half has,
  the prediction is interpolated linearly; it is kept within [0.001, 0.999] so that
  log-loss stays finite. Each is shown with the same score of the constant prediction
  (the other half's make rate) and the Brier skill (1 - Brier / constant Brier: the share
  of the uncertainty the count removes). Counts are compared on the same rows: each
  one's Brier minus the best one's, with a standard error from 64 groups of deals (a
  seeded hash of the index: the groups are independent, rows within a deal are not);
* **calibration**: rows binned by their cross-fitted prediction (tenths): predicted
  against observed P(make), and the range of the count in each bin.

Built-in counts (``--compare``, or when no formula is given) are those players use:
hand points (the card points of the hand under the bid's kind), points + declarations
(+ 20 a bela: what the level promises), trumps + aces (a trump ace counts in both), and J
and 9 of trump at their card values (``20*jack + 14*nine``).

The dataset is streamed by record batch; each count's rows are accumulated per distinct
value (a few hundred at most), so memory stays bounded.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bazarsim.analysis.bids import FEATURES
from bazarsim.analysis.threshold import (
    bid_outcomes,
    check_some_made,
    deal_hash,
    isotonic_fit,
    open_bid_study,
)
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.generator import DEFAULT_SEED

BUILTIN = (
    ("hand points", "points"),
    ("points + declarations", "points + declarations + 20*bela"),
    ("trumps + aces", "trumps + aces"),
    ("J+9 of trump", "20*jack + 14*nine"),
)
ALIASES = {"trump_jacks": "jack", "trump_nines": "nine", "belas": "bela"}  # dataset names
CLIP = 1e-3  # predictions kept within [CLIP, 1 - CLIP] for the log-loss
BINS = 10
GROUPS = 64  # deal groups of the paired standard errors between counts


# --------------------------------------------------------------------------- formulas


@dataclass(frozen=True)
class Formula:
    """A linear count: ``sum(coef * feature) + constant``."""

    text: str
    terms: tuple[tuple[str, float], ...]
    constant: float = 0.0

    def evaluate(self, feature) -> np.ndarray:
        """The count of each row (``feature(name)`` gives a feature's column)."""
        out = None
        for name, coef in self.terms:
            x = feature(name).astype(np.float64) * coef
            out = x if out is None else out + x
        return np.round(out + self.constant, 9)  # one value for equal sums


_TOKEN = re.compile(r"\s*(?:(\d+\.?\d*|\.\d+)|([A-Za-z_]\w*)|(\S))")


def parse_formula(text: str) -> Formula:
    """``points + 10*trumps - 2.5*len_S + 3``: a sum of terms, each a product of numbers
    and at most one feature (signs allowed before any factor)."""
    tokens = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:  # only trailing blanks left
            break
        pos = m.end()
        num, name, op = m.groups()
        if op and op not in "+-*":
            raise BazarsimError(f"--formula {text!r}: unexpected {op!r} (use numbers, "
                                "features, + - *)", op)
        tokens.append(("num", float(num)) if num else ("name", name) if name else ("op", op))
    if not tokens:
        raise BazarsimError("--formula is empty: give e.g. 'points + 10*trumps'", text)
    terms: dict[str, float] = {}
    constant = 0.0
    i = 0

    def bad(why: str, token: str | None = None):
        return BazarsimError(f"--formula {text!r}: {why}", token)

    while i < len(tokens):  # one term per turn: [sign] factor (* [sign] factor)*
        sign = 1.0
        if i and tokens[i] not in (("op", "+"), ("op", "-")):
            raise bad(f"expected + or - before {_show(tokens[i])}", _show(tokens[i]))
        if i:
            sign = -1.0 if tokens[i][1] == "-" else 1.0
            i += 1
        coef, feature = sign, None
        while True:
            while i < len(tokens) and tokens[i] in (("op", "+"), ("op", "-")):
                coef *= -1.0 if tokens[i][1] == "-" else 1.0
                i += 1
            if i == len(tokens):
                raise bad("ends with an operator")
            kind, value = tokens[i]
            if kind == "op":
                raise bad(f"unexpected {value!r}", value)
            if kind == "num":
                coef *= value
            else:
                name = ALIASES.get(value, value)
                if name not in FEATURES:
                    raise bad(f"unknown feature {value!r} (use {', '.join(FEATURES)})", value)
                if feature is not None:
                    raise bad(f"{feature} * {value} is not linear (one feature a term)", value)
                feature = name
            i += 1
            if i < len(tokens) and tokens[i] == ("op", "*"):
                i += 1
                continue
            break
        if feature is None:
            constant += coef
        else:
            terms[feature] = terms.get(feature, 0.0) + coef
    terms = {f: c for f, c in terms.items() if c != 0}
    if not terms:
        raise bad("has no feature: a constant predicts nothing")
    return Formula(" ".join(text.split()), tuple(terms.items()), constant)


def _show(token) -> str:
    kind, value = token
    return f"{value:g}" if kind == "num" else str(value)


# --------------------------------------------------------------------------- counting


class ValueCounts:
    """Rows per distinct count value, deal group, half (fold) and outcome:
    ``counts[v, group, fold, made]`` (groups: for the standard errors)."""

    def __init__(self, groups: int = GROUPS) -> None:
        self.groups = groups
        self.values = np.zeros(0)
        self.counts = np.zeros((0, groups, 2, 2))

    @property
    def by_fold(self) -> np.ndarray:
        """``[v, fold, made]``."""
        return self.counts.sum(1)

    def add(self, x: np.ndarray, group: np.ndarray, fold: np.ndarray, made: np.ndarray) -> None:
        u, inv = np.unique(x, return_inverse=True)
        g = self.groups
        c = np.bincount(((inv.ravel() * g + group) * 2 + fold) * 2 + made,
                        minlength=4 * g * len(u))
        values = np.union1d(self.values, u)
        counts = np.zeros((len(values), g, 2, 2))
        counts[np.searchsorted(values, self.values)] += self.counts
        counts[np.searchsorted(values, u)] += c.reshape(-1, g, 2, 2)
        self.values, self.counts = values, counts


def deal_split(deal: np.ndarray, seed: int, groups: int = GROUPS) -> tuple[np.ndarray,
                                                                           np.ndarray]:
    """Half (0 or 1) and group (0 .. groups - 1) of each deal, from a seeded hash of its
    index: all four seats of a deal fall in the same half and group."""
    h = deal_hash(deal, seed ^ 0x5EED)
    return (h & np.uint64(1)).astype(np.int64), ((h >> np.uint64(1)) % np.uint64(groups)).astype(
        np.int64)


def deal_folds(deal: np.ndarray, seed: int) -> np.ndarray:
    """Half 0 or 1 of each deal (see :func:`deal_split`)."""
    return deal_split(deal, seed)[0]


# --------------------------------------------------------------------------- metrics


def auc(values: np.ndarray, made: np.ndarray, failed: np.ndarray) -> float:
    """P(count of a made row > count of a failed row) + 1/2 P(equal), from the counts per
    distinct value (``values`` ascending)."""
    m, f = made.sum(), failed.sum()
    if not m or not f:
        return math.nan
    below = np.cumsum(failed) - failed
    return float((made * (below + 0.5 * failed)).sum() / (m * f))


def cross_fitted(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``p[v, fold]``: P(make) predicted for the rows of ``fold`` at value ``values[v]`` by
    the monotone fit of the other fold (interpolated between its values; its single rate
    where it has one value; nan where it has none)."""
    pred = np.full((len(values), 2), np.nan)
    for fold in (0, 1):
        other = counts[:, 1 - fold]
        n = other.sum(1)
        seen = n > 0
        if not seen.any():
            continue
        fit = isotonic_fit(other[seen, 1] / n[seen], n[seen].astype(np.float64))
        pred[:, fold] = np.interp(values, values[seen], fit)
    return pred


def constant_fitted(counts: np.ndarray) -> np.ndarray:
    """``p[fold]``: the other fold's make rate (the prediction that ignores the hand)."""
    n = counts.sum(2).sum(0)
    made = counts[:, :, 1].sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (made / n)[::-1]


def scores(p: np.ndarray, made: np.ndarray, failed: np.ndarray) -> tuple[float, float]:
    """Brier score and log-loss of predictions ``p`` for cells of ``made`` / ``failed``
    rows (cells without a prediction are left out)."""
    ok = ~np.isnan(p) & ((made + failed) > 0)
    p, m, f = np.clip(p[ok], CLIP, 1 - CLIP), made[ok], failed[ok]
    n = (m + f).sum()
    if not n:
        return math.nan, math.nan
    brier = (m * (1 - p) ** 2 + f * p ** 2).sum() / n
    loss = -(m * np.log(p) + f * np.log(1 - p)).sum() / n
    return float(brier), float(loss)


def calibration(values: np.ndarray, counts: np.ndarray, pred: np.ndarray,
                bins: int = BINS) -> list[dict]:
    """Rows binned by their cross-fitted prediction: n, mean predicted, observed rate,
    and the count's range in the bin."""
    p = pred.ravel()  # [v, fold] flattened, as counts[v, fold]
    made = counts[:, :, 1].ravel()
    n = counts.sum(2).ravel()
    x = np.repeat(values, 2)
    ok = ~np.isnan(p) & (n > 0)
    # a value with no rows in a half has no prediction (NaN): binned as 0, never counted
    b = np.minimum((np.clip(np.nan_to_num(p), 0, 1) * bins).astype(np.int64), bins - 1)
    rows = []
    for k in range(bins):
        sel = ok & (b == k)
        nk = n[sel].sum()
        if not nk:
            continue
        rows.append({
            "bin": f"{100 * k // bins}-{100 * (k + 1) // bins}%", "n": int(nk),
            "mean_predicted": float((p[sel] * n[sel]).sum() / nk),
            "observed": float(made[sel].sum() / nk),
            "count_min": float(x[sel].min()), "count_max": float(x[sel].max()),
        })
    return rows


def group_brier(p: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``[group, 2]``: per deal group, the sum of squared errors of predictions
    ``p[v, fold]`` (clipped as in :func:`scores`) and the rows they cover."""
    ok = ~np.isnan(p)
    q = np.clip(np.where(ok, p, 0.5), CLIP, 1 - CLIP)[:, None, :]
    m, f = counts[..., 1] * ok[:, None, :], counts[..., 0] * ok[:, None, :]
    return np.stack([(m * (1 - q) ** 2 + f * q ** 2).sum((0, 2)), (m + f).sum((0, 2))], 1)


def paired_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean difference of two per-group ``[sum, rows]`` tables over the same rows, and its
    standard error across groups (groups of deals are independent; a ratio estimate)."""
    d, n = a[:, 0] - b[:, 0], a[:, 1]
    total = n.sum()
    mean = d.sum() / total
    g = int((n > 0).sum())
    if g < 2:
        return float(mean), math.nan
    var = g / (g - 1) * ((d - mean * n) ** 2).sum() / total ** 2
    return float(mean), float(math.sqrt(var))


def count_metrics(name: str, formula: Formula, vc: ValueCounts, bins: int = BINS) -> dict:
    """Every figure of one count from its value table (``_groups``: per-group Brier sums,
    for the paired comparison of counts)."""
    table = vc.by_fold
    made = table[:, :, 1]
    failed = table[:, :, 0]
    pred = cross_fitted(vc.values, table)
    brier, loss = scores(pred.ravel(), made.ravel(), failed.ravel())
    const = np.broadcast_to(constant_fitted(table), pred.shape)
    brier0, loss0 = scores(const.ravel(), made.ravel(), failed.ravel())
    n = int(table.sum())
    return {
        "name": name, "formula": formula.text, "n": n,
        "p_make": float(made.sum() / n) if n else math.nan,
        "values": len(vc.values),
        "auc": auc(vc.values, made.sum(1), failed.sum(1)),
        "brier": brier, "brier_constant": brier0,
        "brier_skill": 1 - brier / brier0 if brier0 > 0 else math.nan,
        "log_loss": loss, "log_loss_constant": loss0,
        "calibration": calibration(vc.values, table, pred, bins),
        "_groups": group_brier(pred, vc.counts),
    }


# --------------------------------------------------------------------------- study


def convention_study(out: str | Path, kind: str | None, formulas: list[str] | None = None,
                     level: int | None = None, compare: bool = False, seed: int = DEFAULT_SEED,
                     seats: list[str] | None = None, contra: str = "none", bins: int = BINS,
                     batch_size: int = 1 << 16, play: str = "dd") -> dict:
    """How well each count predicts making one bid (the formulas given, and the built-in
    counts with ``compare`` or when none is given)."""
    given = formulas or []
    counts = [("formula" + (f" {i + 1}" if len(given) > 1 else ""), parse_formula(f))
              for i, f in enumerate(given)]
    if compare or not counts:
        counts += [(name, parse_formula(f)) for name, f in BUILTIN]
    if not 2 <= bins <= 100:
        raise BazarsimError(f"--bins {bins}: use 2 .. 100", str(bins))
    study = open_bid_study(out, kind, level, seats, contra, play=play)
    tables = [ValueCounts() for _ in counts]
    for row, made, _score in bid_outcomes(study, batch_size):
        fold, group = deal_split(row["deal"], seed)
        cache: dict[str, np.ndarray] = {}

        def feature(name: str, row=row, cache=cache) -> np.ndarray:
            if name not in cache:
                cache[name] = row["feature"](name)
            return cache[name]

        for (_name, formula), vc in zip(counts, tables, strict=True):
            vc.add(formula.evaluate(feature), group, fold, made.astype(np.int64))
    (bid,) = study.bids
    check_some_made(study, int(tables[0].counts[..., 1].sum()), int(tables[0].counts.sum()),
                    "prediction")
    results = [count_metrics(name, f, vc, bins) for (name, f), vc in zip(counts, tables,
                                                                          strict=True)]
    ranked = [r for r in results if not math.isnan(r["brier"])]
    best = min(ranked, key=lambda r: r["brier"]) if ranked else None
    for r in results:
        r["best"] = r is best and len(results) > 1
        diff, se = paired_difference(r["_groups"], best["_groups"]) if best else (math.nan,
                                                                                   math.nan)
        r.update(brier_vs_best=diff, se_vs_best=se if r is not best else 0.0)
    for r in results:
        del r["_groups"]
    return {
        "dataset": str(out), "play": study.play, "bid": bid.label, "kind": KIND_NAMES[bid.kind],
        "level": bid.level, "contra": study.contra, "seed": seed, "folds": 2,
        "n": results[0]["n"], "p_make": results[0]["p_make"],
        "fit": "monotone (isotonic) fit of make on the count, cross-fitted: fitted on one "
               "half of the deals, scored on the other (2 folds by a seeded hash of the "
               "deal index)",
        "counts": results,
    }
