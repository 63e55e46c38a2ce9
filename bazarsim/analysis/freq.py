"""Combination-frequency tables of a dataset, with Wilson intervals and exact values.

Each feature is counted per hand (the four seats pooled: ``n`` = 4 x deals), per side
or per table (deal). Hand features use the same names as :mod:`bazarsim.evaluate.odds`
so the two tables join; trump features take **hearts** as trump (``REFERENCE_TRUMP``;
any suit gives the same exact value). The hands are read from the dataset and the
features computed with NumPy bit operations, independently of the evaluation kernels;
declaration outcomes come from the dataset's per-kind columns. The dataset is scanned
in record batches (bounded memory), optionally grouped by a column (``--by dealer``).

Intervals are Wilson score intervals. For pooled hand features the four hands of a
deal are not independent; for these features the dependence is negative or negligible,
so the binomial interval is, if anything, slightly wide.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bazarsim.analysis.stats import wilson_interval, z_score
from bazarsim.core.bits import popcount_array, suit_bytes
from bazarsim.core.cards import SEATS
from bazarsim.core.contracts import REFERENCE_TRUMP
from bazarsim.core.errors import BazarsimError
from bazarsim.evaluate.odds import exact_odds, scoring_four_ranks
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store.location import resolve
from bazarsim.store.parts import (
    checked_part_files,
    part_schema,
    read_manifest,
    reading,
    stream_batches,
)


def _fours(h: np.ndarray) -> np.ndarray:
    """Rank mask of the ranks held in all four suits."""
    return suit_bytes(h, 0) & suit_bytes(h, 1) & suit_bytes(h, 2) & suit_bytes(h, 3)


def _run(h: np.ndarray, length: int) -> np.ndarray:
    """A run of ``length`` adjacent ranks inside one suit."""
    r = h
    for k in range(1, length):
        r = r & (h >> np.uint32(k))
    start_ok = np.uint32(((1 << (9 - length)) - 1) * 0x01010101)  # run must start in-suit
    return (r & start_ok) != 0


def hand_features(ruleset) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """Per-hand boolean features (hearts as trump), named as in :mod:`bazarsim.evaluate.odds`."""
    t = REFERENCE_TRUMP
    q, j, nine = 5, 4, 2  # natural ranks 7 8 9 T J Q K A = 0..7 (K = Q + 1)
    scoring = sum(1 << r for r in scoring_four_ranks(ruleset))
    feats: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "kq_any_suit": lambda h: (h & (h >> np.uint32(1)) & np.uint32(0x20202020)) != 0,
        "kq_trump": lambda h: (suit_bytes(h, t) >> np.uint32(q) & np.uint32(3)) == 3,
        "jack_trump": lambda h: (suit_bytes(h, t) >> np.uint32(j) & np.uint32(1)) == 1,
        "nine_trump": lambda h: (suit_bytes(h, t) >> np.uint32(nine) & np.uint32(1)) == 1,
        "jack_nine_trump": lambda h: (suit_bytes(h, t) & np.uint32(0x14)) == 0x14,
        "sequence_3plus": lambda h: _run(h, 3),
        "sequence_4plus": lambda h: _run(h, 4),
        "sequence_5plus": lambda h: _run(h, 5),
        "four_of_a_kind_scoring": lambda h: (_fours(h) & np.uint32(scoring)) != 0,
        "four_jacks": lambda h: (_fours(h) >> np.uint32(j) & np.uint32(1)) == 1,
        "four_nines": lambda h: (_fours(h) >> np.uint32(nine) & np.uint32(1)) == 1,
        "four_aces": lambda h: (_fours(h) >> np.uint32(7) & np.uint32(1)) == 1,
        "four_sevens": lambda h: (_fours(h) & np.uint32(1)) == 1,
        "four_eights": lambda h: (_fours(h) >> np.uint32(1) & np.uint32(1)) == 1,
        "declaration_any": lambda h: _run(h, 3) | ((_fours(h) & np.uint32(scoring)) != 0),
    }
    if 4 in ruleset.kinds:
        bk = sum(1 << r for r in scoring_four_ranks(ruleset, bk=True))
        feats["four_of_a_kind_scoring_bk"] = lambda h: (_fours(h) & np.uint32(bk)) != 0
    for n in range(9):
        feats[f"trumps_{n}"] = lambda h, n=n: popcount_array(suit_bytes(h, t)) == n
    for n in range(5):
        feats[f"aces_{n}"] = lambda h, n=n: popcount_array(h & np.uint32(0x80808080)) == n
    return feats


HAND_INDEPENDENT = {"dealer", "seed"}  # grouping by these keeps the exact odds valid
TABLE_FROM_HAND = {  # table feature -> hand feature held by some seat
    "kq_trump_at_table": "kq_trump",
    "jack_nine_trump_at_table": "jack_nine_trump",
    "four_sevens_at_table": "four_sevens",
    "four_eights_at_table": "four_eights",
}
SIDE_FEATURES = {  # held by the side (either partner), hearts as trump
    "side_kq_trump": lambda a, b: (((suit_bytes(a, REFERENCE_TRUMP) & 0x60) == 0x60)
                                   | ((suit_bytes(b, REFERENCE_TRUMP) & 0x60) == 0x60)),
    "side_jack_nine_trump": lambda a, b: ((suit_bytes(a | b, REFERENCE_TRUMP)) & 0x14) == 0x14,
    "side_trumps_5plus": lambda a, b: popcount_array(suit_bytes(a | b, REFERENCE_TRUMP)) >= 5,
    "side_four_aces": lambda a, b: popcount_array((a | b) & np.uint32(0x80808080)) == 4,
}


@dataclass
class Counter:
    """Running counts of one group: ``(scope, feature) -> (count, n, note)``."""

    deals: int = 0
    counts: dict = field(default_factory=dict)

    def add(self, name: str, scope: str, count: int, n: int, note: str = "") -> None:
        key = (scope, name)
        c, m, _ = self.counts.get(key, (0, 0, note))
        self.counts[key] = (c + int(count), m + int(n), note)


def _count_batch(cnt: Counter, hands: np.ndarray, cols: dict, feats, kinds) -> None:
    n = hands.shape[0]
    cnt.deals += n
    flat = hands.reshape(-1)
    per_hand = {}
    for name, fn in feats.items():
        v = fn(flat)
        per_hand[name] = v.reshape(n, 4)
        cnt.add(name, "hand", v.sum(), 4 * n, "trump H" if "trump" in name else "")
    for name, hname in TABLE_FROM_HAND.items():
        cnt.add(name, "table", per_hand[hname].any(axis=1).sum(), n, "trump H"
                if "trump" in name else "")
    for name, fn in SIDE_FEATURES.items():
        ns = fn(hands[:, 0], hands[:, 2])
        ew = fn(hands[:, 1], hands[:, 3])
        cnt.add(name, "side", ns.sum() + ew.sum(), 2 * n, "NS+EW pooled")
    for kind in kinds:
        side = cols.get(f"{kind}_declaration_side")
        if side is None:
            continue
        for code, label in ((0, "NS"), (1, "EW"), (-1, "none")):
            cnt.add(f"declarations_score_{label}_{kind}", "table", (side == code).sum(), n,
                    f"contract {kind}")
    for flag in ("redeal", "cancelled"):
        if flag in cols:
            cnt.add(f"{flag}", "table", cols[flag].sum(), n,
                    "four sevens: redeal" if flag == "redeal" else "four eights: cancelled")


def group_label(by: str, value):
    """A ``--by`` group as people name it: the dealer's seat N E S W, a side NS EW (or
    none) for ``*_side`` columns; other columns as stored."""
    if by == "dealer":
        return SEATS[int(value)]
    if by.endswith("_side"):
        return {0: "NS", 1: "EW"}.get(int(value), "none")
    return value


def frequency_table(out: str | Path, by: str | None = None, confidence: float = 0.95,
                    batch_size: int = 1 << 20) -> list[dict]:
    """Rows ``{group?, scope, feature, count, n, rate, lo, hi, exact, z, note}``."""
    out = resolve(out)  # a path or a file:// URL
    manifest = read_manifest(out)
    ruleset = get_ruleset(manifest["ruleset"], **manifest["options"])
    if manifest["constraints"]["fix"] or manifest["constraints"]["where"]:
        exact = {}  # constrained deals: unconditional exact odds do not apply
    elif by is not None and by not in HAND_INDEPENDENT:
        exact = {}  # grouped by an outcome of the hands: the odds are conditional
    else:
        exact = exact_odds(ruleset)
    kinds = manifest["kinds"]
    files = checked_part_files(out)
    names = set(part_schema(files[0]).names)
    if by is not None and by not in names:
        raise BazarsimError(f"--by {by!r}: no such column (try dealer, or one of "
                            f"{', '.join(sorted(n for n in names if n.endswith('_side')))})",
                            by)
    want = list(SEATS) + [c for c in names if c.endswith("_declaration_side")]
    want += [c for c in ("redeal", "cancelled") if c in names]
    if by is not None and by not in want:
        want.append(by)
    feats = hand_features(ruleset)
    groups: dict = {}
    with reading(out):
        for batch in stream_batches(files, want, batch_size):  # bounded memory
            cols = {c: batch.column(c).to_numpy(zero_copy_only=False) for c in want}
            hands = np.stack([cols[s].astype(np.uint32) for s in SEATS], axis=1)
            if by is None:
                _count_batch(groups.setdefault(None, Counter()), hands, cols, feats, kinds)
                continue
            key = cols[by]
            for g in np.unique(key):
                sel = key == g
                sub = {c: v[sel] for c, v in cols.items()}
                _count_batch(groups.setdefault(g.item(), Counter()), hands[sel], sub, feats, kinds)
    rows = []
    for g in sorted(groups, key=lambda x: (x is None, x)):
        cnt = groups[g]
        for (scope, name), (c, n, note) in cnt.counts.items():
            lo, hi = wilson_interval(c, n, confidence)
            p = exact.get(name)
            row = {} if by is None else {by: group_label(by, g)}
            row.update(scope=scope, feature=name, count=c, n=n, rate=c / n if n else float("nan"),
                       lo=lo, hi=hi, exact=p, z=z_score(c, n, p) if p is not None else None,
                       note=note)
            rows.append(row)
    return rows
