"""Bid-success tables: how often each bid makes, and what it scores, by the declarer's hand.

Every deal of a DD-solved dataset (``simulate --dd``) is read four times, once with each
seat as the possible declarer of each contract kind: play does not depend on who bid, so
one DD table serves all four seats. For a declarer at seat ``s`` (side ``s & 1``) and a
kind ``K``:

* the side's card points are the DD value ``{K}_dd_ns`` (or the deal's total minus it);
* its declarations and bela are those that count for it under the ruleset's precedence
  rules (``{K}_declarations_ns`` / ``_ew``, ``{K}_bela_ns`` / ``_ew``);
* tricks are 8 where the side can take every trick (``{K}_dd_capot``), 0 where the other
  side can, and otherwise some of them (only 0 and 8 change a score);
* "made" and the score are :func:`bazarsim.rules.scoring.score_deals`, the same rule
  ``bazarsim score`` applies, for each bid of the kind (levels from the lowest legal one
  to the deal total / 10, and a capot bid at the lowest level; in belote-fr and bela-hr
  the contract of the kind itself).

Hands are put in classes (``--by``) by features of the declarer's hand under ``K``, in the
vocabulary of ``--where``: ``points``, ``trumps``, ``jack`` and ``nine`` (of trump),
``aces``, ``declarations``, ``bela``, ``len_S`` .. ``len_C``, and ``position`` (1 for the
player who leads to the first trick .. 4 for the dealer). Buckets are ranges of
:mod:`bazarsim.core.ranges` (``0..29`` or ``0-29``, ``50..`` or ``50-``). A feature that
depends on the kind (:data:`KIND_FEATURES`) may name the kind it is counted in,
``trumps@H``: every row is then classed by its hand under that kind, whatever the bid's
(the class column is named ``trumps@H``); ``compare`` requires it when its two bids'
kinds differ. The ``seen_`` features
(``seen_points``, ``seen_trumps``, ``seen_jack``, ``seen_nine``, ``seen_aces``) are the same
counts over what the declarer had seen when it bid (:mod:`bazarsim.deals.bidtime`): in
belote-fr its first 5 cards and the turned card, in bela-hr 6 of its 8 cards (the
``{seat}_seen`` / ``_turned`` columns); in bazar and bazar-blot the whole hand, so there
they equal the plain features. The dataset is streamed in
record batches and every figure accumulated per class with ``np.bincount``, so memory
stays bounded whatever the number of deals.

Passing scores 0, so a class's best call is its best bid only where that bid's expected
score is above 0, and passing where every bid loses (see :func:`_mark_best`).

Double dummy means every card is known to everybody: defenders never err and declarers
never guess, so P(make) is that of perfect play, not of a real table. With ``play="sd"``
the same tables rest on the single-dummy columns of ``simulate --sd`` instead
(``{K}_sd_ns``, ``{K}_sd_capot``: four PIMC players with hidden cards, one play-out per
deal and kind, which serves every seat and bid of the kind as the DD value does); every
row says which play it rests on (``play``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numba as nb
import numpy as np

from bazarsim.analysis.stats import wilson_interval
from bazarsim.core.bits import popcount_array, suit_bytes
from bazarsim.core.cards import SEATS, parse_seat
from bazarsim.core.contracts import KIND_NAMES, bid_text, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.core.ranges import BIG, parse_range
from bazarsim.deals.bidtime import bid_time
from bazarsim.engine.simulation import ruleset_from_params
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.rulesets import Ruleset
from bazarsim.rules.scoring import TRICKS, score_deals, score_row, scoring_params
from bazarsim.store.location import resolve
from bazarsim.store.parts import (
    checked_part_files,
    part_schema,
    read_manifest,
    reading,
    stream_batches,
)
from bazarsim.store.schema import SEEN, TURNED

SEEN_FEATURES = ("seen_points", "seen_trumps", "seen_jack", "seen_nine", "seen_aces")
FEATURES = ("points", "trumps", "jack", "nine", "aces", "declarations", "bela", "len_S",
            "len_H", "len_D", "len_C", "position", *SEEN_FEATURES)
CONTRAS = {"none": 0, "x": 1, "xx": 2}
MAX_TOTAL = 1024  # bound of a side's total (cards + declarations + bela) for histograms


@dataclass(frozen=True)
class Bid:
    """A contract to evaluate: kind, level (0 where the ruleset has no levels), capot."""

    kind: int
    level: int
    capot: bool = False

    @property
    def label(self) -> str:
        return bid_text(self.level, self.kind, self.capot)


def has_levels(rs: Ruleset) -> bool:
    return rs.scoring.scheme in ("bazar", "bazar-blot")


def check_bid_options(rs: Ruleset, contra: str, levels: list[int] | None) -> int:
    """``--contra`` and ``--levels`` checked against the ruleset; the contra factor code."""
    if contra not in CONTRAS:
        raise BazarsimError(f"--contra {contra!r}: use none, x or xx", contra)
    if CONTRAS[contra] and not rs.auction.contra:
        raise BazarsimError(f"ruleset {rs.name} has no contra", contra)
    if levels is not None and not has_levels(rs):
        raise BazarsimError(f"ruleset {rs.name} has no bid levels: drop --levels")
    return CONTRAS[contra]


def beyond_cards_note(rs: Ruleset, bids) -> str | None:
    """The line that says so when bids above the cards' points were asked for: their rows
    are (nearly) all failures, and that is the game, not a fault of the table."""
    over = [b for b in bids if not b.capot and b.level * 10 > rs.total_points(b.kind)]
    if not over:
        return None
    totals = sorted({rs.total_points(b.kind) for b in over})
    return (f"{', '.join(b.label for b in over)}: above the {' or '.join(map(str, totals))} "
            "points the cards hold (last trick included): only declarations and bela can "
            "make them")


def ruleset_bids(rs: Ruleset, kinds: tuple[int, ...], levels: list[int] | None = None,
                 capot: bool = True) -> list[Bid]:
    """Every bid of the kinds: levels from the lowest legal one to the deal total / 10
    (or ``levels``), and a capot bid; the kind alone in games without levels."""
    bids = []
    for kind in kinds:
        rs.check_kind(kind)
        if not has_levels(rs):
            bids.append(Bid(kind, 0))
            continue
        low = rs.auction.min_level
        high = rs.auction.max_level or rs.total_points(kind) // 10
        for level in levels if levels is not None else range(low, high + 1):
            if level < low or (rs.auction.max_level and level > rs.auction.max_level):
                span = (f"levels {low}..{high}" if rs.auction.max_level else
                        f"levels from {low} up; {rs.name} has no highest level")
                raise BazarsimError(f"level {level} is not a bid in ruleset {rs.name} "
                                    f"({span})", str(level))
            bids.append(Bid(kind, level))
        if capot and rs.auction.capot_bids:
            bids.append(Bid(kind, low, capot=True))
    return bids


# --------------------------------------------------------------------------- classes


@dataclass(frozen=True)
class Classer:
    """A hand feature cut into buckets: ``points=0..19,20..39,40..``; without buckets
    every value is its own class. ``kind``: the contract kind a kind-dependent feature is
    counted in (``trumps@H``), ``None`` for the kind of the bid each row scores."""

    feature: str
    buckets: tuple[tuple[int, int], ...] = ()  # inclusive (lo, hi); hi = BIG for "a.."
    kind: int | None = None

    @property
    def name(self) -> str:
        """The class column's name: the feature, with its kind where one was given."""
        return self.feature if self.kind is None else f"{self.feature}@{KIND_NAMES[self.kind]}"

    def labels(self) -> list[str]:
        if self.buckets:
            return [_bucket_label(a, b) for a, b in self.buckets]
        return [str(v) for v in range(self.size)]

    @property
    def size(self) -> int:
        return len(self.buckets) if self.buckets else _RANGE[self.feature]

    def index(self, values: np.ndarray) -> np.ndarray:
        """Bucket of each value, -1 outside every bucket."""
        if not self.buckets:
            return np.where((values >= 0) & (values < self.size), values, -1)
        out = np.full(values.shape, -1, np.int64)
        for i, (a, b) in enumerate(self.buckets):
            out[(values >= a) & (values <= b) & (out < 0)] = i
        return out


_RANGE = {"points": 200, "trumps": 9, "jack": 5, "nine": 5, "aces": 5, "declarations": 400,
          "bela": 5, "len_S": 9, "len_H": 9, "len_D": 9, "len_C": 9, "position": 5}
_RANGE.update({f: _RANGE[f.removeprefix("seen_")] for f in SEEN_FEATURES})
# features whose value depends on the contract kind they are counted in
KIND_FEATURES = ("points", "trumps", "jack", "nine", "declarations", "bela", "seen_points",
                 "seen_trumps", "seen_jack", "seen_nine")


def _bucket_label(a: int, b: int) -> str:
    if a == b:
        return str(a)
    if a <= -BIG:
        return f"..{b}"
    return f"{a}.." if b >= BIG else f"{a}..{b}"


def parse_by(text: str, option: str = "--by") -> Classer:
    """``points``, ``trumps=0..2,3,4,5..`` (or ``0-2,3,4,5-``: see
    :mod:`bazarsim.core.ranges`), ``position``; a kind-dependent feature may name the kind
    it is counted in, ``trumps@H=0..2,3..``. Every mistake is one error naming ``option``."""
    name, _, spec = text.partition("=")
    name, at, kind_text = (x.strip() for x in name.partition("@"))
    if name not in FEATURES:
        raise BazarsimError(f"{option} {text!r}: unknown feature {name!r} (use "
                            f"{', '.join(FEATURES)})", name)
    kind = None
    if at:
        if name not in KIND_FEATURES:
            raise BazarsimError(f"{option} {text!r}: {name} is the same in every contract "
                                f"kind; drop @{kind_text}", kind_text)
        try:
            kind = parse_kind(kind_text)
        except BazarsimError:
            raise BazarsimError(f"{option} {text!r}: unknown kind {kind_text!r} after @ (use "
                                f"{' '.join(KIND_NAMES)}, e.g. {name}@H)", kind_text) from None
    buckets = [parse_range(part, f"{option} {text!r}")
               for part in (spec.split(",") if spec.strip() or "=" in text else [])]
    return Classer(name, tuple(buckets), kind)


def declarer_features(hands: np.ndarray, kind: int, rs: Ruleset, seat: int, dealers: np.ndarray,
                      cols: dict[str, np.ndarray]) -> Callable[..., np.ndarray]:
    """The declarer's features, ``feature(name, kind=None)``: under the row's ``kind``, or
    under the ``kind`` given (computed on demand from hand bits and the dataset's
    evaluation columns; ``seen_`` ones from its bid-time columns)."""
    compiled = compiled_rules(rs)
    hand = hands[:, seat]
    row_kind = kind
    name = SEATS[seat]

    def counts(f: str, mask: np.ndarray, kind: int) -> np.ndarray:
        """Trumps, J or 9 of trump, aces or card points of the cards of ``mask``."""
        trump_bytes = [suit_bytes(mask, s) for s in range(4) if compiled.is_trump[kind, s]]
        zero = np.zeros(len(mask), np.int64)
        if f == "trumps":
            return sum((popcount_array(b) for b in trump_bytes), zero)
        if f in ("jack", "nine"):
            bit = 4 if f == "jack" else 2
            return sum((((b >> bit) & 1).astype(np.int64) for b in trump_bytes), zero)
        if f == "aces":
            return popcount_array(mask & np.uint32(0x80808080))
        return sum((compiled.suit_points[kind, s][suit_bytes(mask, s)].astype(np.int64)
                    for s in range(4)), zero)  # points

    # Two closures, neither calling itself: a self-referencing closure is a reference
    # cycle that keeps the batch's Arrow buffers (cols) alive until the cyclic garbage
    # collector runs, hundreds of MB on a large dataset.
    def feature(f: str, kind: int | None = None) -> np.ndarray:
        kind = row_kind if kind is None else kind
        if f in SEEN_FEATURES:
            plain = f.removeprefix("seen_")
            if bid_time(rs) is None:  # bids on the whole hand
                return hand_feature(plain, kind)
            return counts(plain, seen_cards(cols, seat, rs), kind)
        return hand_feature(f, kind)

    def hand_feature(f: str, kind: int) -> np.ndarray:
        k = KIND_NAMES[kind]
        if f == "points":
            return cols[f"{name}_{k}_points"].astype(np.int64)
        if f == "declarations":
            return cols[f"{name}_{k}_declarations"].astype(np.int64)
        if f in ("trumps", "jack", "nine", "aces"):
            return counts(f, hand, kind)
        if f == "bela":
            out = np.zeros(len(hand), np.int64)
            for s in range(4):
                if compiled.bela_suit[kind, s]:
                    out += (suit_bytes(hand, s) & 0x60) == 0x60
            return out
        if f.startswith("len_"):
            return popcount_array(suit_bytes(hand, "SHDC".index(f[-1])))
        if f == "position":
            return ((seat - dealers.astype(np.int64) - 1) % 4) + 1
        raise BazarsimError(f"unknown feature {f!r}", f)

    return feature


def seen_cards(cols: dict[str, np.ndarray], seat: int, rs: Ruleset) -> np.ndarray:
    """The cards ``seat`` had seen when it bid as the taker (``uint32`` masks): its
    ``{seat}_seen`` column, with the turned card (``{seat}_turned``) where there is one."""
    name = SEATS[seat]
    if f"{name}_{SEEN}" not in cols:
        raise BazarsimError(f"the dataset has no bid-time columns ({name}_{SEEN}): it was "
                            f"simulated before they existed; simulate it again to class "
                            f"{rs.name} hands by seen cards")
    seen = cols[f"{name}_{SEEN}"].astype(np.uint32)
    turned = cols.get(f"{name}_{TURNED}")
    if turned is not None:
        t = turned.astype(np.int64)
        bit = np.left_shift(np.uint32(1), np.clip(t, 0, 31).astype(np.uint32))
        seen = seen | np.where(t >= 0, bit, np.uint32(0))
    return seen


# --------------------------------------------------------------------------- tables


@dataclass
class _Cell:
    """Sums over the deals of one (class, bid)."""

    n: np.ndarray
    made: np.ndarray
    capot: np.ndarray
    score: np.ndarray
    score2: np.ndarray
    score_made: np.ndarray
    score_failed: np.ndarray


# The play a table rests on: the columns ``{K}_{play}_ns`` and ``{K}_{play}_capot``, what
# ``simulate`` writes them with, and the name outputs give it.
PLAYS = {"dd": ("--dd", "double dummy"), "sd": ("--sd", "single dummy")}


def play_key(play: str) -> str:
    """``--play``'s value, ``dd`` or ``sd`` (one clear error otherwise)."""
    key = str(play).lower()
    if key not in PLAYS:
        raise BazarsimError(f"--play {play!r}: use dd (double dummy) or sd (single dummy)",
                            str(play))
    return key


def check_play(manifest: dict, play: str, out) -> str:
    """``play`` (``dd`` or ``sd``) checked against what the dataset holds."""
    key = play_key(play)
    if not manifest.get(key):
        flag = PLAYS[key][0]
        raise BazarsimError(f"{out} has no {key.upper()} columns: simulate it with {flag}",
                            str(out))
    return key


def play_name(play: str, manifest: dict | None = None) -> str:
    """``double dummy``, or ``single dummy, PIMC 20 worlds`` (``alpha-mu 20 worlds, depth
    2``) with the run's manifest."""
    name = PLAYS[play][1]
    sd = (manifest or {}).get("sd") if play == "sd" else None
    if not sd:
        return name
    if sd["players"] == "alphamu":
        return f"{name}, alpha-mu {sd['worlds']} worlds, depth {sd['depth']}"
    return f"{name}, {sd['players'].upper()} {sd['worlds']} worlds"


@dataclass
class BidStudy:
    """The inputs of a bid table: dataset, ruleset, bids, classes and filters."""

    out: Path
    manifest: dict
    ruleset: Ruleset
    bids: list[Bid]
    classers: list[Classer]
    seats: tuple[int, ...]
    contra: int
    kinds: tuple[int, ...] = field(default=())
    play: str = "dd"  # the columns the side's points and capots come from (PLAYS)

    @property
    def n_classes(self) -> int:
        return int(np.prod([c.size for c in self.classers])) if self.classers else 1


def simulated_kinds(manifest: dict, rs: Ruleset, kinds, out) -> tuple[int, ...]:
    """The kinds asked for (default: every kind the run simulated), each the ruleset's and
    simulated in the dataset ``out`` (one error line otherwise)."""
    have = tuple(parse_kind(k) for k in manifest["kinds"])
    want = tuple(parse_kind(k) for k in kinds) if kinds else have
    for k in want:
        rs.check_kind(k)
        if k not in have:
            raise BazarsimError(f"kind {KIND_NAMES[k]} was not simulated in {out} (it has "
                                f"{' '.join(manifest['kinds'])})", KIND_NAMES[k])
    return want


def open_study(out: str | Path, by: list[str | Classer] | None = None,
               kinds: list[str] | None = None,
               levels: list[int] | None = None, seats: list[str] | None = None,
               contra: str = "none", play: str = "dd") -> BidStudy:
    """Check a dataset and the study's options (one clear error for each bad input)."""
    out = resolve(out)  # a path or a file:// URL
    manifest = read_manifest(out)
    play = check_play(manifest, play, out)
    rs = ruleset_from_params(manifest)
    have = tuple(parse_kind(k) for k in manifest["kinds"])
    want = simulated_kinds(manifest, rs, kinds, out)
    check_bid_options(rs, contra, levels)
    bids = ruleset_bids(rs, want, levels, capot=levels is None)
    classers = [b if isinstance(b, Classer) else parse_by(b) for b in by or []]
    for c in classers:
        if c.kind is not None:
            rs.check_kind(c.kind)
            if c.kind not in have:
                raise BazarsimError(f"{c.name}: kind {KIND_NAMES[c.kind]} was not "
                                    f"simulated in {out} (it has "
                                    f"{' '.join(manifest['kinds'])})", c.name)
    seen = [c.feature for c in classers if c.feature in SEEN_FEATURES]
    if seen and bid_time(rs) is not None and not manifest.get("bid_time"):
        raise BazarsimError(f"--by {seen[0]}: {out} has no bid-time columns (simulated before "
                            f"{rs.name} datasets recorded them); simulate it again", seen[0])
    seat_list = tuple(parse_seat(s) for s in seats) if seats else (0, 1, 2, 3)
    return BidStudy(out, manifest, rs, bids, classers, seat_list, CONTRAS[contra], want, play)


def declarer_outcome(side: int, total, dd_ns, capot, decl_ns, decl_ew, bela_ns,
                     bela_ew) -> dict:
    """What one kind's DD results give the declaring ``side`` on each deal: both sides'
    points (``dd_ns``, and ``total`` minus it; ``total`` may vary by deal, as on small
    positions), tricks (8 for the side that can take every trick, ``capot`` 1 N-S or 2
    E-W, 0 for the other, else 4 each: only 0 and 8 change a score), declarations, bela,
    the capot side (-1 none) and the side's total (cards + declarations + bela)."""
    dd_ns = np.asarray(dd_ns, np.int64)
    cap = np.asarray(capot, np.int64)
    pts = np.stack([dd_ns, np.asarray(total, np.int64) - dd_ns], axis=1)
    tricks = np.full((len(dd_ns), 2), TRICKS // 2, np.int64)
    for s in (0, 1):  # who can take every trick takes every trick
        tricks[cap == s + 1, s] = TRICKS
        tricks[cap == s + 1, 1 - s] = 0
    decl = np.stack([decl_ns, decl_ew], 1).astype(np.int64)
    bela = np.stack([bela_ns, bela_ew], 1).astype(np.int64)
    return {
        "side": side, "points": pts, "tricks": tricks, "declarations": decl, "bela": bela,
        "capot_side": np.where(cap == 1, 0, np.where(cap == 2, 1, -1)),
        "side_total": pts[:, side] + decl[:, side] + bela[:, side],
    }


def declarer_rows(study: BidStudy, batch_size: int = 1 << 16) -> Iterator[dict]:
    """For every record batch, seat and kind: the arrays a bid needs (streamed)."""
    rs = study.ruleset
    kinds = study.kinds
    want = ["index", "dealer", *SEATS]
    for k in kinds:
        kn = KIND_NAMES[k]
        want += [f"{kn}_{study.play}_ns", f"{kn}_{study.play}_capot", f"{kn}_declarations_ns",
                 f"{kn}_declarations_ew", f"{kn}_bela_ns", f"{kn}_bela_ew"]
    for k in dict.fromkeys([*kinds, *(c.kind for c in study.classers if c.kind is not None)]):
        kn = KIND_NAMES[k]  # the hand features of the bids' kinds and of those --by names
        want += [f"{s}_{kn}_points" for s in SEATS] + [f"{s}_{kn}_declarations" for s in SEATS]
    files = checked_part_files(study.out)
    names = part_schema(files[0]).names
    missing = [c for c in want if c not in names]
    if missing:
        raise BazarsimError(f"{study.out} lacks columns {', '.join(missing[:4])}: simulate "
                            f"it again with {PLAYS[study.play][0]}")
    want += [c for c in (f"{s}_{x}" for x in (SEEN, TURNED) for s in SEATS)
             if c in names]  # bid-time cards, for the seen_ features
    with reading(study.out):
        for batch in stream_batches(files, want, batch_size):  # bounded memory
            cols = {c: batch.column(c).to_numpy(zero_copy_only=False) for c in want}
            hands = np.stack([cols[s].astype(np.uint32) for s in SEATS], axis=1)
            dealers = cols["dealer"]
            for kind in kinds:
                kn = KIND_NAMES[kind]
                total = rs.total_points(kind)
                dd_ns = cols[f"{kn}_{study.play}_ns"].astype(np.int64)
                cap = cols[f"{kn}_{study.play}_capot"].astype(np.int64)
                for seat in study.seats:
                    row = declarer_outcome(
                        seat & 1, total, dd_ns, cap, cols[f"{kn}_declarations_ns"],
                        cols[f"{kn}_declarations_ew"], cols[f"{kn}_bela_ns"],
                        cols[f"{kn}_bela_ew"])
                    has_seen = bid_time(rs) is not None and f"{SEATS[seat]}_{SEEN}" in cols
                    row.update(deal=cols["index"],  # the deal's index in its run (for folds)
                               kind=kind, seat=seat,
                               seen=seen_cards(cols, seat, rs) if has_seen else hands[:, seat],
                               feature=declarer_features(hands, kind, rs, seat, dealers, cols))
                    yield row


def class_index(study: BidStudy, feature: Callable[[str], np.ndarray], n: int) -> np.ndarray:
    """Mixed-radix class of each row (-1: outside every bucket of some feature)."""
    idx = np.zeros(n, np.int64)
    for c in study.classers:
        b = c.index(feature(c.feature, c.kind))
        idx = np.where((idx < 0) | (b < 0), -1, idx * c.size + b)
    return idx


def bid_scores(study: BidStudy, row: dict, bids: list[Bid]) -> tuple[np.ndarray, np.ndarray]:
    """Made and the declaring side's score minus the defenders', ``[len(bids), n]``: every
    bid of the row's kind scored in one call over the rows repeated once per bid."""
    return score_bids(study.ruleset, row, bids, study.contra)


def score_bids(ruleset: Ruleset, row: dict, bids: list[Bid],
               contra: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`bid_scores` of a :func:`declarer_outcome` row, under a ruleset and contra."""
    side = row["side"]
    n = len(row["side_total"])
    b = len(bids)
    res = score_deals(ruleset,
                      level=np.repeat([x.level for x in bids], n),
                      kind=np.repeat([x.kind for x in bids], n),
                      declarer_side=side,
                      points=np.tile(row["points"], (b, 1)),
                      tricks=np.tile(row["tricks"], (b, 1)),
                      declarations=np.tile(row["declarations"], (b, 1)),
                      bela=np.tile(row["bela"], (b, 1)),
                      contra=contra,
                      capot_bid=np.repeat([x.capot for x in bids], n), check=False)
    scores = res["scores"].reshape(b, n, 2)
    return res["made"].reshape(b, n), scores[:, :, side] - scores[:, :, 1 - side]


@nb.njit(cache=True)
def accumulate_bids(params, totals, cls, side, contra, points, tricks, decl, bela, levels,
                    kinds, capots, n, made, score, score2, score_made, score_failed):
    """Score every row under every bid (``levels``, ``kinds``, ``capots``: one entry a
    bid) with :func:`~bazarsim.rules.scoring.score_row` and add the results into the
    ``[bid, class]`` sums; rows of class -1 are skipped. One pass, no per-bid arrays."""
    for j in range(levels.shape[0]):
        for i in range(cls.shape[0]):
            c = cls[i]
            if c < 0:
                continue
            ok, _mg, s0, s1, _cs, _cy = score_row(
                params, totals, levels[j], kinds[j], side, contra, capots[j], points[i, 0],
                points[i, 1], tricks[i, 0], tricks[i, 1], decl[i, 0], decl[i, 1], bela[i, 0],
                bela[i, 1],
            )
            diff = np.float64(s0 - s1 if side == 0 else s1 - s0)
            n[j, c] += 1
            score[j, c] += diff
            score2[j, c] += diff * diff
            if ok:
                made[j, c] += 1
                score_made[j, c] += diff
            else:
                score_failed[j, c] += diff


def bid_table(out: str | Path, by: list[str] | None = None, kinds: list[str] | None = None,
              levels: list[int] | None = None, seats: list[str] | None = None,
              contra: str = "none", confidence: float = 0.95,
              batch_size: int = 1 << 16, play: str = "dd") -> list[dict]:
    """Rows per (class, bid): n, P(make) with its Wilson interval, P(capot), the declaring
    side's total (mean, SD, quartiles), the expected score (declarers minus defenders)
    with its standard error, the break-even P(make), and the best bid of each class."""
    study = open_study(out, by, kinds, levels, seats, contra, play)
    m = study.n_classes
    nb_ = len(study.bids)
    sums = {k: np.zeros((nb_, m)) for k in ("n", "made", "score", "score2", "score_made",
                                            "score_failed")}
    capots = np.zeros((len(study.kinds), m))
    hist = {k: np.zeros((m, MAX_TOTAL), np.int64) for k in study.kinds}
    params, totals = scoring_params(study.ruleset)
    index = {bid: j for j, bid in enumerate(study.bids)}
    for row in declarer_rows(study, batch_size):
        n = len(row["side_total"])
        cls = class_index(study, row["feature"], n)
        keep = cls >= 0
        c = cls[keep]
        tot = np.clip(row["side_total"][keep], 0, MAX_TOTAL - 1)
        hist[row["kind"]] += np.bincount(c * MAX_TOTAL + tot, minlength=m * MAX_TOTAL).reshape(
            m, MAX_TOTAL)
        capots[study.kinds.index(row["kind"])] += np.bincount(
            c, weights=(row["capot_side"] == row["side"])[keep], minlength=m)
        bids = [bid for bid in study.bids if bid.kind == row["kind"]]
        rows_of = np.array([index[bid] for bid in bids])
        part = {k: np.zeros((len(bids), m)) for k in sums}
        accumulate_bids(
            params, totals, cls, row["side"], study.contra, row["points"], row["tricks"],
            row["declarations"], row["bela"], np.array([b.level for b in bids], np.int64),
            np.array([b.kind for b in bids], np.int64), np.array([b.capot for b in bids]),
            part["n"], part["made"], part["score"], part["score2"], part["score_made"],
            part["score_failed"],
        )
        for k in sums:
            sums[k][rows_of] += part[k]
    cells = {bid: _Cell(sums["n"][j], sums["made"][j], capots[study.kinds.index(bid.kind)],
                        sums["score"][j], sums["score2"][j], sums["score_made"][j],
                        sums["score_failed"][j]) for j, bid in enumerate(study.bids)}
    return _rows(study, cells, hist, confidence)


def _class_labels(study: BidStudy, ci: int) -> dict:
    out = {}
    for c in reversed(study.classers):
        out[c.name] = c.labels()[ci % c.size]
        ci //= c.size
    return dict(reversed(list(out.items())))


def _quantile(h: np.ndarray, q: float) -> float:
    total = h.sum()
    return float(np.searchsorted(np.cumsum(h), q * total, side="left")) if total else math.nan


def _rows(study: BidStudy, cells: dict, hist: dict, confidence: float) -> list[dict]:
    rows = []
    values = np.arange(MAX_TOTAL)
    for ci in range(study.n_classes):
        group = []
        for bid in study.bids:
            cell = cells[bid]
            n = int(cell.n[ci])
            if n == 0:
                continue
            h = hist[bid.kind][ci]
            mean_total = float((h * values).sum() / h.sum())
            sd_total = float(math.sqrt(max(0.0, (h * values * values).sum() / h.sum()
                                           - mean_total ** 2)))
            made = int(round(cell.made[ci]))
            lo, hi = wilson_interval(made, n, confidence)
            mean = cell.score[ci] / n
            # the sample variance (n - 1), as table compare and analyze take it
            var = max(0.0, cell.score2[ci] / n - mean * mean) * n / (n - 1) if n > 1 else 0.0
            failed = n - made
            s_made = cell.score_made[ci] / made if made else math.nan
            s_failed = cell.score_failed[ci] / failed if failed else math.nan
            denom = s_made - s_failed
            breakeven = (-s_failed / denom) if made and failed and denom > 0 else math.nan
            row = _class_labels(study, ci)
            row.update(kind=KIND_NAMES[bid.kind], level=bid.level, capot=bid.capot,
                       bid=bid.label, n=n, made=made, p_make=made / n, ci_low=lo, ci_high=hi,
                       p_capot=float(cell.capot[ci] / n), mean_total=mean_total,
                       sd_total=sd_total, q1_total=_quantile(h, 0.25),
                       median_total=_quantile(h, 0.5), q3_total=_quantile(h, 0.75),
                       expected_score=float(mean),
                       se_score=float(math.sqrt(var / n)) if n > 1 else math.nan,
                       breakeven_p=float(breakeven), best=False, best_call="",
                       margin=math.nan, play=study.play)
            group.append(row)
        if group:
            _mark_best(group)
        rows += group
    return rows


def _mark_best(group: list[dict]) -> None:
    """The best call of one class among its bids and passing (which scores 0).
    ``best_call`` on every row: the label of the bid with the highest expected score
    where that score is above 0, else ``"pass"`` (every bid loses on average, or at best
    breaks even). ``best`` is True on that bid's row only (on no row where passing is
    best). ``margin``, on the row of the class's top bid only: the best call's lead over
    the next best call, i.e. for a best bid its expected score minus the larger of the
    second best bid's and passing's (0); where passing is best, how much passing gains
    over the top bid (minus its expected score)."""
    ranked = sorted(group, key=lambda r: -r["expected_score"])
    top = ranked[0]
    if top["expected_score"] > 0:
        top["best"] = True
        top["margin"] = top["expected_score"] - max(
            [r["expected_score"] for r in ranked[1:2]] + [0.0])
        call = top["bid"]
    else:
        top["margin"] = -top["expected_score"]
        call = "pass"
    for r in group:
        r["best_call"] = call


# --------------------------------------------------------------------------- compare


def parse_bid(text: str, rs: Ruleset) -> Bid:
    """``9H``, ``8BK``, ``9H-CAPOT``; ``H`` in games without levels."""
    from bazarsim.rules.auction import parse_contract

    c = parse_contract(text, 0, ruleset=rs)
    return Bid(c.kind, c.level, c.capot)


def compare_bids(out: str | Path, bid_a: str, bid_b: str, by: list[str] | None = None,
                 seats: list[str] | None = None, contra: str = "none",
                 play: str = "dd") -> list[dict]:
    """Per class: on the same deals and declarer seats, the mean score difference A - B
    (declarers minus defenders) with its paired standard error, and how often A scores
    better, worse or the same. A kind-dependent class feature (:data:`KIND_FEATURES`) is
    counted in the bids' kind; when the two bids' kinds differ it must name one
    (``trumps@H``), else the classes would silently be those of one bid."""
    study = open_study(out, by, None, None, seats, contra, play)
    a, b = parse_bid(bid_a, study.ruleset), parse_bid(bid_b, study.ruleset)
    for bid in (a, b):
        if bid.kind not in study.kinds:
            raise BazarsimError(f"bid {bid.label}: kind not simulated in {study.out}",
                                bid.label)
    for c in study.classers:
        if a.kind != b.kind and c.kind is None and c.feature in KIND_FEATURES:
            ka, kb = KIND_NAMES[a.kind], KIND_NAMES[b.kind]
            raise BazarsimError(f"--by {c.feature}: {a.label} and {b.label} are of different "
                                f"kinds; say which kind {c.feature} is counted in: "
                                f"--by {c.feature}@{ka} or --by {c.feature}@{kb}", c.feature)
    study.kinds = tuple(dict.fromkeys((a.kind, b.kind)))
    m = study.n_classes
    sums = {k: np.zeros(m) for k in ("n", "d", "d2", "better", "worse", "a", "b")}
    pending: dict[int, dict] = {}
    for row in declarer_rows(study):
        key = row["seat"]
        if row["kind"] == a.kind:
            pending.setdefault(key, {})["a"] = row
        if row["kind"] == b.kind:
            pending.setdefault(key, {})["b"] = row
        got = pending[key]
        if "a" not in got or "b" not in got:
            continue
        ra, rb = got["a"], got["b"]
        del pending[key]
        n = len(ra["side_total"])
        cls = class_index(study, ra["feature"], n)  # same hands: any kind via c.kind
        keep = cls >= 0
        c = cls[keep]
        sa = bid_scores(study, ra, [a])[1][0][keep].astype(np.float64)
        sb = bid_scores(study, rb, [b])[1][0][keep].astype(np.float64)
        d = sa - sb
        for name, w in (("n", None), ("d", d), ("d2", d * d), ("better", d > 0),
                        ("worse", d < 0), ("a", sa), ("b", sb)):
            sums[name] += np.bincount(c, weights=w, minlength=m)
    rows = []
    for ci in range(m):
        n = int(sums["n"][ci])
        if not n:
            continue
        mean = sums["d"][ci] / n
        var = max(0.0, sums["d2"][ci] / n - mean * mean) * n / (n - 1) if n > 1 else math.nan
        row = _class_labels(study, ci)
        row.update(bid_a=a.label, bid_b=b.label, n=n,
                   mean_a=float(sums["a"][ci] / n), mean_b=float(sums["b"][ci] / n),
                   mean_diff=float(mean), se_diff=float(math.sqrt(var / n)) if n > 1 else math.nan,
                   p_a_better=float(sums["better"][ci] / n), p_b_better=float(
                       sums["worse"][ci] / n), play=study.play)
        rows.append(row)
    return rows
