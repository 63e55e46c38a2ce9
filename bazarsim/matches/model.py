"""The hand model: how likely a side is to make each bid, judged from one hand.

Two estimates feed a bidding policy, both from what a single player saw when it bid
(the whole hand in bazar and bazar-blot; the bid-time cards of belote-fr and bela-hr,
:mod:`bazarsim.deals.bidtime`):

* **bidder**: P(my side makes bid B of kind K) - for every level and the capot bid;
* **defender**: P(the opponents make B of K) given my hand as a defender, whose
  complement is the chance a contra wins.

Family: a **smoothed table over hand classes** (the bid tables' way, made to estimate
well in every cell). A hand's class under kind ``K`` is its kind group (the four suits
pooled: suits are equal in every ruleset; BK; VK), its position (1 speaks first .. 4
the dealer), two honour counts (suit: trumps and J/9 of trump; BK: aces and tens; VK:
jacks and nines) and its strength in 10-point buckets (card points under K, plus the
declarations and bela the player can count at bid time). Each cell's rate is shrunk
toward its parent class (drop the second count, then the first, then the position)
with ``prior`` pseudo-deals, so a thin cell borrows from the cells like it and a rich
cell speaks for itself. Every estimate is a lookup: :func:`hand_cells` (Numba) classes
a column of hands at once, and the table holds the smoothed rates.

Calibration (``fit``): deals are split by a seeded hash of their index, 80 % to fit and
20 % held out; the held-out rows give the Brier score against the base rate of each bid
and a reliability table. The model written is then fitted on every deal.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numba as nb
import numpy as np

from bazarsim.analysis.bids import (
    Bid,
    declarer_rows,
    has_levels,
    open_study,
    play_name,
    score_bids,
)
from bazarsim.analysis.threshold import deal_hash
from bazarsim.core.contracts import BK, KIND_NAMES, VK
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.bidtime import bid_time
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.rulesets import Ruleset

MODEL_VERSION = 1
GROUPS = ("suit", "BK", "VK")
N_POS, N_A, N_B, N_BUCKETS = 4, 9, 4, 16
N_CELLS = len(GROUPS) * N_POS * N_A * N_B * N_BUCKETS
BIDDER, DEFENDER = 0, 1
ROLES = ("bidder", "defender")
DEFAULT_PRIOR = 20.0
HOLD_OUT = 5  # one deal in HOLD_OUT is held out for calibration
RELIABILITY_BINS = 10
ACES, TENS = np.uint32(0x80808080), np.uint32(0x08080808)
JACK_BIT, NINE_BIT = 4, 2


@nb.njit(cache=True)
def kind_group(kind):
    """The model's kind group: 0 a suit (the four pooled), 1 BK, 2 VK."""
    return 1 if kind == BK else 2 if kind == VK else 0


def trump_mask(compiled, kind: int) -> np.uint32:
    """The 32-bit mask of the kind's trump suits (compiled rules)."""
    return np.uint32(sum(0xFF << (8 * s) for s in range(4) if compiled.is_trump[kind, s]))


def kind_trump_masks(compiled) -> np.ndarray:
    """:func:`trump_mask` of every kind (``uint32[N_KINDS]``), as the kernels take them."""
    return np.array([trump_mask(compiled, k) for k in range(compiled.is_trump.shape[0])],
                    np.uint32)


@nb.njit(cache=True, inline="always")
def hand_cell(h, trump_mask, group, position, strength):
    """The class of one hand: ``h`` (uint32 mask of the cards seen), ``trump_mask`` (the
    kind's trump suits' 32-bit mask), ``group``, ``position`` (1..4), ``strength`` (points
    the player counts)."""
    if group == 0:  # a suit: trumps, J and 9 of trump
        t = h & trump_mask
        a = 0
        jn = 0
        for s in range(4):
            byte = (t >> (8 * s)) & 0xFF
            while byte:
                a += 1
                byte &= byte - 1
            jn |= ((t >> (8 * s + JACK_BIT)) & 1) | (((t >> (8 * s + NINE_BIT)) & 1) << 1)
        b = jn
    else:
        a = 0
        b = 0
        for s in range(4):
            byte = (h >> (8 * s)) & 0xFF
            if group == 1:  # BK: aces and tens
                a += (byte >> 7) & 1
                b += (byte >> 3) & 1
            else:  # VK: jacks and nines
                a += (byte >> JACK_BIT) & 1
                b += (byte >> NINE_BIT) & 1
    if b > N_B - 1:
        b = N_B - 1
    q = strength // 10
    if q > N_BUCKETS - 1:
        q = N_BUCKETS - 1
    if q < 0:
        q = 0
    return (((group * N_POS + position - 1) * N_A + a) * N_B + b) * N_BUCKETS + q


@nb.njit(cache=True)
def hand_cells(seen, trump_mask, group, position, strength, out):
    """The class of every hand (:func:`hand_cell`): ``seen``, ``position`` and
    ``strength`` are columns; written to ``out`` (int64)."""
    for i in range(seen.shape[0]):
        out[i] = hand_cell(seen[i], trump_mask, group, position[i], strength[i])


def bid_levels(rs: Ruleset) -> tuple[int, ...]:
    """The levels the model estimates (level 0 alone where the ruleset has none)."""
    if not has_levels(rs):
        return (0,)
    top = rs.auction.max_level or max(rs.total_points(k) for k in rs.kinds) // 10
    return tuple(range(rs.auction.min_level, top + 1))


def model_bids(rs: Ruleset, kind: int) -> list[Bid]:
    """The model's bids of one kind: every level, then the capot bid where there is one."""
    bids = [Bid(kind, level) for level in bid_levels(rs)]
    if has_levels(rs) and rs.auction.capot_bids:
        bids.append(Bid(kind, rs.auction.min_level, capot=True))
    return bids


def bid_index(rs: Ruleset, level: int, capot: bool) -> int:
    """Column of a bid in the model's tables."""
    levels = bid_levels(rs)
    if capot:
        return len(levels)
    return min(max(level - levels[0], 0), len(levels) - 1)


def strength_of(feature, rs: Ruleset) -> np.ndarray:
    """The points a player counts at bid time: card points of the cards seen, plus its
    declarations and bela where it bids on the whole hand."""
    if bid_time(rs) is not None:
        return feature("seen_points")
    return feature("points") + feature("declarations") + 20 * feature("bela")


def row_cells(rs: Ruleset, row: dict) -> np.ndarray:
    """The classes of one :func:`~bazarsim.analysis.bids.declarer_rows` row's hands."""
    feature = row["feature"]
    kind = row["kind"]
    seen = row["seen"]
    n = len(seen)
    out = np.empty(n, np.int64)
    compiled = compiled_rules(rs)
    hand_cells(seen, trump_mask(compiled, kind), kind_group(kind),
               feature("position").astype(np.int64),
               strength_of(feature, rs).astype(np.int64), out)
    return out


@dataclass
class HandModel:
    """Smoothed rates ``rates[role, cell, bid]`` and what they were fitted on."""

    ruleset: Ruleset
    rates: np.ndarray  # float64 [2, N_CELLS, bids]
    counts: np.ndarray  # int64 [2, N_CELLS]: deals behind each cell
    prior: float
    source: dict
    made: np.ndarray | None = None  # int64 [2, N_CELLS, bids]: raw counts (fit only)

    @property
    def levels(self) -> tuple[int, ...]:
        return bid_levels(self.ruleset)

    def save(self, path: str | Path) -> None:
        doc = {"version": MODEL_VERSION, "ruleset": self.ruleset.name,
               "levels": list(self.levels), "prior": self.prior,
               "source": self.source,
               "rates": np.round(self.rates, 6).tolist(), "counts": self.counts.tolist()}
        Path(path).write_text(json.dumps(doc, allow_nan=False))

    @classmethod
    def load(cls, path: str | Path, ruleset: Ruleset) -> HandModel:
        try:
            doc = json.loads(Path(path).read_text())
        except (OSError, ValueError) as exc:
            raise BazarsimError(f"cannot read model {path}: {exc}", str(path)) from None
        return cls.from_doc(doc, ruleset, str(path))

    @classmethod
    def from_doc(cls, doc: dict, ruleset: Ruleset, path: str = "<model>") -> HandModel:
        """A model from its saved document (:meth:`save`), checked against the ruleset."""
        if not isinstance(doc, dict) or doc.get("version") != MODEL_VERSION:
            version = doc.get("version") if isinstance(doc, dict) else None
            raise BazarsimError(f"{path} is not a bazarsim hand model (version "
                                f"{version!r}); fit it again with bazarsim fit")
        if doc["ruleset"] != ruleset.name or tuple(doc["levels"]) != bid_levels(ruleset):
            raise BazarsimError(f"model {path} was fitted for {doc['ruleset']}, not "
                                f"{ruleset.name}: fit one on a {ruleset.name} dataset")
        return cls(ruleset, np.asarray(doc["rates"], np.float64),
                   np.asarray(doc["counts"], np.int64), float(doc["prior"]), doc["source"])


# --------------------------------------------------------------------------- fitting


def _parents(cells: np.ndarray) -> list[np.ndarray]:
    """Each cell's parent classes, finest first: no second count, no first, no position."""
    q = cells % N_BUCKETS
    rest = cells // N_BUCKETS
    rest //= N_B
    a = rest % N_A
    rest //= N_A
    pos = rest % N_POS
    g = rest // N_POS
    return [(g * N_POS + pos) * N_A * N_BUCKETS + a * N_BUCKETS + q,
            (g * N_POS + pos) * N_BUCKETS + q,
            g * N_BUCKETS + q]


def smooth(n: np.ndarray, made: np.ndarray, prior: float) -> np.ndarray:
    """Rates per cell shrunk toward the parent classes (``n`` [cells], ``made``
    [cells, bids] counts): from the group's overall rate down to the cells."""
    cells = np.arange(N_CELLS)
    chain = _parents(cells)[::-1]  # coarsest first
    sizes = [len(GROUPS) * N_BUCKETS, len(GROUPS) * N_POS * N_BUCKETS,
             len(GROUPS) * N_POS * N_A * N_BUCKETS]
    g = cells // (N_CELLS // len(GROUPS))
    gn = np.bincount(g, n, len(GROUPS))
    gm = np.stack([np.bincount(g, made[:, j], len(GROUPS)) for j in range(made.shape[1])], 1)
    rate = ((gm + 0.5) / (gn[:, None] + 1.0))[g]  # each cell starts at its group's rate
    for parent, size in zip(chain, sizes, strict=True):
        pn = np.bincount(parent, n, size)
        pm = np.stack([np.bincount(parent, made[:, j], size) for j in range(made.shape[1])], 1)
        prior_rate = np.zeros((size, made.shape[1]))
        np.add.at(prior_rate, parent, rate)  # the finer level's rate of its members...
        members = np.bincount(parent, minlength=size)[:, None]
        prior_rate /= np.maximum(members, 1)  # ...all equal: the rate passed down
        level = (pm + prior * prior_rate) / (pn[:, None] + prior)
        rate = level[parent]
    return (made + prior * rate) / (n[:, None] + prior)


def _accumulate(n, made, cells, hits):
    np.add.at(n, cells, 1)
    np.add.at(made, cells, hits.T.astype(np.int64))


def _rows_by_deal_kind(study):
    """The four seats' rows of each (batch, kind) together: a defender's target is the
    other side's result."""
    group = []
    for row in declarer_rows(study):
        group.append(row)
        if len(group) == 4:
            yield group
            group = []


def fit_model(out: str | Path, play: str = "dd", prior: float = DEFAULT_PRIOR,
              seed: int = 0, progress=None) -> tuple[HandModel, dict]:
    """Fit the model on a solved dataset and measure its calibration on held-out deals."""
    if not (isinstance(prior, int | float) and 0 < prior < float("inf")):
        raise BazarsimError(f"--prior {prior}: pseudo-deals must be a number > 0 (a class "
                            "without deals takes its parent's rate through them)", str(prior))
    study = open_study(out, play=play)
    rs = study.ruleset
    n_bids = len(model_bids(rs, rs.kinds[0]))
    n = np.zeros((2, 2, N_CELLS), np.int64)  # [fold, role, cell]
    made = np.zeros((2, 2, N_CELLS, n_bids), np.int64)
    held: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []  # role, kind, cells, hits
    deals = 0
    for rows in _rows_by_deal_kind(study):
        hits = {}
        for row in rows[:2]:  # made depends on the side only
            hits[row["side"]] = score_bids(rs, row, model_bids(rs, row["kind"]))[0]
        fold = (deal_hash(rows[0]["deal"], seed) % np.uint64(HOLD_OUT) == 0).astype(np.int64)
        for row in rows:
            cells = row_cells(rs, row)
            for role, side in ((BIDDER, row["side"]), (DEFENDER, 1 - row["side"])):
                for f in (0, 1):
                    m = fold == f
                    _accumulate(n[f, role], made[f, role], cells[m], hits[side][:, m])
                if fold.any():
                    held.append((role, row["kind"], cells[fold == 1], hits[side][:, fold == 1]))
        if rows[0]["kind"] == study.kinds[0]:
            deals += len(rows[0]["deal"])
            if progress:
                progress(deals)
    if deals == 0:
        raise BazarsimError(f"{out} holds no deals")
    check = HandModel(rs, np.stack([smooth(n[0, r], made[0, r], prior) for r in (0, 1)]),
                      n[0].copy(), prior, {}, made[0].copy())
    calibration = calibrate(check, held)
    total_n = n.sum(0)
    total_made = made.sum(0)
    manifest = study.manifest
    source = {"dataset": str(out), "deals": deals, "seed": manifest["seed"],
              "play": play, "play_name": play_name(play, manifest),
              "kinds": [KIND_NAMES[k] for k in study.kinds]}
    model = HandModel(rs, np.stack([smooth(total_n[r], total_made[r], prior) for r in (0, 1)]),
                      total_n, prior, source, total_made)
    model.source["calibration"] = calibration
    return model, calibration


def calibrate(model: HandModel, held) -> dict:
    """Brier score of the model on held-out rows against each bid's base rate (the rate
    over the fitted deals, one per kind group, role and bid: made over deals, from the
    model's raw counts, not its smoothed rates), and a reliability table. Only bids a
    kind can make count (a level above its deal total is no forecast)."""
    rs = model.ruleset
    bins = np.zeros((RELIABILITY_BINS, 3))  # forecasts, sum p, made
    brier = np.zeros(2)
    count = 0
    per_role = {r: np.zeros(3) for r in ROLES}
    for role, kind, cells, hits in held:
        p = model.rates[role, cells]  # [rows, bids]
        g = kind_group(kind)
        lo, hi = g * (N_CELLS // len(GROUPS)), (g + 1) * (N_CELLS // len(GROUPS))
        w = model.counts[role, lo:hi].sum()
        rate = model.made[role, lo:hi].sum(0) / max(w, 1)
        useful = [j for j, b in enumerate(model_bids(rs, kind))
                  if b.capot or b.level * 10 <= rs.total_points(kind) + 100]
        y = hits[useful].T.astype(np.float64)
        pp = p[:, useful]
        rr = np.broadcast_to(rate[useful], pp.shape)
        e = ((pp - y) ** 2).sum()
        e0 = ((rr - y) ** 2).sum()
        brier += (e, e0)
        count += y.size
        per_role[ROLES[role]] += (e, e0, y.size)
        b = np.minimum((pp * RELIABILITY_BINS).astype(np.int64), RELIABILITY_BINS - 1)
        bins[:, 0] += np.bincount(b.ravel(), minlength=RELIABILITY_BINS)
        bins[:, 1] += np.bincount(b.ravel(), pp.ravel(), RELIABILITY_BINS)
        bins[:, 2] += np.bincount(b.ravel(), y.ravel(), RELIABILITY_BINS)
    if count == 0:
        raise BazarsimError("too few deals to hold any out for calibration: simulate more")
    table = []
    for i in range(RELIABILITY_BINS):
        k = bins[i, 0]
        table.append({"bin": f"{i / RELIABILITY_BINS:.1f}-{(i + 1) / RELIABILITY_BINS:.1f}",
                      "forecasts": int(k),
                      "mean_forecast": float(bins[i, 1] / k) if k else None,
                      "observed": float(bins[i, 2] / k) if k else None})
    roles = {r: {"brier": v[0] / v[2], "brier_base_rate": v[1] / v[2],
                 "skill": 1 - v[0] / v[1] if v[1] else math.nan, "forecasts": int(v[2])}
             for r, v in per_role.items() if v[2]}
    return {"held_out": f"1 deal in {HOLD_OUT} (seeded hash of its index)",
            "brier": brier[0] / count, "brier_base_rate": brier[1] / count,
            "skill": 1 - brier[0] / brier[1], "forecasts": count, "roles": roles,
            "reliability": table}
