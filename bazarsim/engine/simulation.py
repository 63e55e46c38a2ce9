"""A simulation's parameters, its identity, and the rows of one deal index range.

A run deals indices ``first .. first + deals - 1`` of one seed
(:mod:`bazarsim.deals.generator`), evaluates every deal for each contract kind
(:mod:`bazarsim.evaluate.hands` kernels) and makes one row per deal (columns:
:mod:`bazarsim.store.schema`); where the ruleset's players bid before they hold all 8
cards, each seat's bid-time cards too (:mod:`bazarsim.deals.bidtime`).
:meth:`Simulation.compute_range` is a pure function of the parameters and the range: deal
``i`` depends only on ``(seed, i)``, so any engine, chunk size or thread count gives the
same rows, and shards of one seed (disjoint index ranges, run anywhere) read together give
the same rows as one run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import pyarrow as pa

from bazarsim import __version__
from bazarsim.core.cards import SEATS, parse_seat
from bazarsim.core.contracts import KIND_NAMES, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.bidtime import bid_time, bid_time_cards
from bazarsim.deals.constraints import Constraints, no_constraints, parse_constraints
from bazarsim.deals.generator import DEFAULT_SEED, DealGenerator
from bazarsim.evaluate.hands import (
    DEAL_FIELDS,
    HAND_FIELDS,
    evaluate_deals_kernel,
    evaluate_hands_kernel,
    points_and_declarations_kernel,
)
from bazarsim.players.alphamu import DEFAULT_DEPTH
from bazarsim.players.players import (
    DEFAULT_WORLDS,
    check_depth,
    check_sd_player,
    check_worlds,
)
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.rulesets import Ruleset, get_ruleset
from bazarsim.store.parts import read_manifest_or_none, with_part_metadata
from bazarsim.store.schema import (
    COLUMN_SETS,
    DEAL_COLUMNS,
    HAND_COLUMNS,
    LEAN_DEAL_COLUMNS,
    SCHEMA_VERSION,
    SEEN,
    TURNED,
)

DEFAULT_CHUNK = 1 << 20
# With DD tables (a few ms a deal) a chunk of 2^12 deals is 10 to 20 s of work: what a kill
# can lose, and how often the progress bar moves.
DEFAULT_DD_CHUNK = 1 << 12
# Single-dummy play-outs (four PIMC players, ~0.2 s a deal and kind on one core at 20
# worlds) make a chunk of 2^6 deals about a minute of work for every kind on two cores;
# with more worlds a chunk is smaller in proportion (down to one deal), so that the bar
# still moves about once a minute.
DEFAULT_SD_CHUNK = 1 << 6


def sd_chunk(worlds: int) -> int:
    """The default chunk of a single-dummy run: 2^6 deals at 20 worlds, a power of two
    about as much work at other worlds (1 deal from 1,280 worlds on)."""
    chunk = DEFAULT_SD_CHUNK
    while chunk > 1 and chunk * worlds > DEFAULT_SD_CHUNK * DEFAULT_WORLDS * 1.5:
        chunk //= 2
    return chunk
ROTATE = -1  # dealer mode: the dealer is the deal index mod 4


class ColumnSource(Protocol):
    """More columns for every deal, computed by a later stage (e.g. the policy auction of
    ``simulate --auction``, :mod:`bazarsim.beliefs.auctioned`): the engine only calls it.
    ``key`` names its entry in the manifest, ``params()`` is that entry (what its columns
    depend on), and ``columns`` computes them for a range from the rows made so far."""

    key: str

    def params(self) -> dict: ...

    def columns(self, sim: Simulation, hands: np.ndarray, dealers: np.ndarray,
                index: np.ndarray, cols: dict[str, np.ndarray]) -> dict[str, np.ndarray]: ...


def parse_dealer(text: str | int) -> int:
    """``rotate`` (dealer = index mod 4, code -1) or a seat N E S W (0..3)."""
    if isinstance(text, int):
        return text
    if text.strip().lower() == "rotate":
        return ROTATE
    return parse_seat(text)


@dataclass
class Simulation:
    """Parameters of one run and the rows of an index range: a description, which
    :func:`bazarsim.engine.run.run_simulation` hands to an engine to write (or complete)
    its dataset."""

    deals: int
    seed: int = DEFAULT_SEED
    ruleset: Ruleset = field(default_factory=get_ruleset)
    constraints: Constraints = field(default_factory=no_constraints)
    dealer: int = ROTATE
    kinds: tuple[int | str, ...] | None = None  # codes or names ("H"); None: every kind
    chunk: int | None = None  # deals per chunk; None: DEFAULT_CHUNK, _DD_CHUNK or _SD_CHUNK
    compression: str = "zstd"
    columns: str = "full"
    first: int = 0  # first deal index: shards of one seed are runs over disjoint ranges
    writers: int = 2  # part files written in parallel per chunk (threads)
    dd: bool = False  # solve every deal's DD table (points and capot) for each kind
    sd: int = 0  # worlds of the players that play every deal out for each kind; 0: none
    sd_player: str = "pimc"  # who plays them: pimc or alphamu (sd_depth: its own moves)
    sd_depth: int = DEFAULT_DEPTH
    # record each seat's bid-time cards; None: where the ruleset's bid time is not the
    # whole hand (belote-fr, bela-hr); False: as datasets written before these columns
    bid_time: bool | None = None
    extra: ColumnSource | None = None  # more columns from a later stage (simulate --auction)

    def __post_init__(self):
        if self.chunk is None:
            self.chunk = (sd_chunk(self.sd) if self.sd else DEFAULT_DD_CHUNK if self.dd
                          else DEFAULT_CHUNK)
        if self.sd:
            check_worlds(self.sd)
        check_sd_player(self.sd_player)
        check_depth(self.sd_depth)
        if self.deals < 0:
            raise BazarsimError(f"--deals {self.deals}: must be >= 0")
        if self.first < 0:
            raise BazarsimError(f"--first {self.first}: must be >= 0")
        if self.chunk < 1:
            raise BazarsimError(f"--chunk {self.chunk}: must be >= 1")
        if self.writers < 1:
            raise BazarsimError(f"writers {self.writers}: must be >= 1")
        if self.columns not in COLUMN_SETS:
            raise BazarsimError(f"--columns {self.columns!r}: choose full or lean",
                                self.columns)
        self.kinds = (tuple(parse_kind(k) if isinstance(k, str) else k for k in self.kinds)
                      if self.kinds else tuple(self.ruleset.kinds))
        for k in self.kinds:
            self.ruleset.check_kind(k)
        self.generator = DealGenerator(self.seed, self.constraints, self.ruleset)
        self.bid_layout = bid_time(self.ruleset)
        if self.bid_time is None or self.bid_layout is None:
            self.bid_time = self.bid_layout is not None
        self.acceptance = 1.0
        self.compiled = compiled_rules(self.ruleset)

    @property
    def results(self) -> bool:
        """Play results in the rows (DD, SD or a column source's): the lean set then keeps
        what scoring them needs (declarations and bela)."""
        return bool(self.dd or self.sd or self.extra is not None)

    @property
    def end(self) -> int:
        """One past the last deal index of the run."""
        return self.first + self.deals

    def params(self) -> dict:
        """What defines the dataset (the chunk size, compression and engine do not)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "seed": self.seed,
            "deals": self.deals,
            "first": self.first,
            "ruleset": self.ruleset.name,
            "options": {k: _plain(v) for k, v in self.ruleset.options().items()},
            "constraints": self.constraints.as_dict(),
            "dealer": "rotate" if self.dealer < 0 else SEATS[self.dealer],
            "kinds": [KIND_NAMES[k] for k in self.kinds],
            "columns": self.columns,
            **({"dd": True} if self.dd else {}),  # absent before DD columns existed
            **({"sd": self.sd_params()} if self.sd else {}),
            **({"bid_time": True} if self.bid_time else {}),  # absent: no bid-time columns
            **({self.extra.key: self.extra.params()} if self.extra is not None else {}),
        }

    def sd_params(self) -> dict:
        """The manifest's ``sd`` entry (alpha-mu's depth only where it plays)."""
        out = {"players": self.sd_player, "worlds": self.sd}
        if self.sd_player == "alphamu":
            out["depth"] = self.sd_depth
        return out

    def check_feasible(self) -> None:
        """Refuse constraints that almost no deal meets (instead of dealing forever)."""
        if self.constraints.predicates.shape[0]:
            self.acceptance = self.generator.check_feasible()

    def compute_range(self, start: int, end: int) -> pa.Table:
        """Deal, evaluate and tabulate indices ``start .. end - 1`` (with part metadata)."""
        n = end - start
        batch = self.generator.deal(start, n)
        index = np.arange(start, end, dtype=np.int64)
        dealers = (index & 3).astype(np.int8) if self.dealer < 0 else np.full(
            n, self.dealer, np.int8)
        cols: dict[str, np.ndarray] = {
            "number": batch.numbers,
            "seed": np.full(n, self.seed, np.uint64),
            "index": index,
            "dealer": dealers,
        }
        hands = batch.hands
        by_seat = np.ascontiguousarray(hands.T)  # seat-major: outputs slice per seat, no copy
        for s, name in enumerate(SEATS):
            cols[name] = by_seat[s]
        if self.bid_time:
            cols.update(self.bid_time_columns(start, hands))
        flat = by_seat.reshape(-1)
        full = self.columns == "full"
        T = self.compiled
        for j, kind in enumerate(self.kinds):
            kname = KIND_NAMES[kind]
            if full:
                out = {f: np.empty(4 * n, d) for f, d in HAND_FIELDS}
                evaluate_hands_kernel(flat, kind, T, *out.values())
                if j == 0:
                    for s, name in enumerate(SEATS):
                        cols[f"{name}_aces"] = out["aces"][s * n:(s + 1) * n]
                for s, name in enumerate(SEATS):
                    for suffix, fld, _dtype in HAND_COLUMNS:
                        cols[f"{name}_{kname}_{suffix}"] = out[fld][s * n:(s + 1) * n]
            else:
                points = np.empty(4 * n, np.int16)
                decl = np.empty(4 * n, np.int16)
                points_and_declarations_kernel(flat, kind, T, points, decl)
                for s, name in enumerate(SEATS):
                    cols[f"{name}_{kname}_points"] = points[s * n:(s + 1) * n]
                    if self.results:  # what the bid tables class a hand by
                        cols[f"{name}_{kname}_declarations"] = decl[s * n:(s + 1) * n]
            deal_out = {f: np.empty(n, d) for f, d in DEAL_FIELDS}
            evaluate_deals_kernel(hands, dealers, kind, T, *deal_out.values())
            for fld in (DEAL_COLUMNS if full or self.results else LEAN_DEAL_COLUMNS):
                cols[f"{kname}_{fld}"] = deal_out[fld]
            if j == 0:
                cols["redeal"] = deal_out["redeal"]
                cols["cancelled"] = deal_out["cancelled"]
        if self.dd:
            cols.update(self.dd_columns(hands, dealers))
        if self.sd:
            cols.update(self.sd_columns(hands, dealers, index))
        if self.extra is not None:
            cols.update(self.extra.columns(self, hands, dealers, index, cols))
        return self.slice_range(pa.table(cols), 0, start, end)

    def bid_time_columns(self, start: int, hands: np.ndarray) -> dict[str, np.ndarray]:
        """Per seat, the cards it would have seen when bidding as the taker:
        ``{seat}_seen`` (a mask), and in belote-fr ``{seat}_turned`` (the talon's turned
        card, one of the hand's other cards)."""
        seen, turned = bid_time_cards(self.seed, start, hands, self.bid_layout)
        cols = {}
        for s, name in enumerate(SEATS):
            cols[f"{name}_{SEEN}"] = np.ascontiguousarray(seen[:, s])
        if self.bid_layout.turned:
            for s, name in enumerate(SEATS):
                cols[f"{name}_{TURNED}"] = np.ascontiguousarray(turned[:, s])
        return cols

    def dd_columns(self, hands: np.ndarray, dealers: np.ndarray) -> dict[str, np.ndarray]:
        """Per kind: ``{K}_dd_ns``, the card points N-S take with perfect play (first lead
        from the dealer's left), and ``{K}_dd_capot``: 1 where N-S can take every trick,
        2 where E-W can, else 0."""
        from bazarsim.dd.batch import dd_tables

        dd = dd_tables(hands, dealer=dealers, ruleset=self.ruleset, kinds=self.kinds)
        cols = {}
        for kind in self.kinds:
            k = KIND_NAMES[kind]
            cols[f"{k}_dd_ns"] = dd[f"{k}_ns_points"].astype(np.int16)
            cols[f"{k}_dd_capot"] = (dd[f"{k}_capot_ns"].astype(np.int8)
                                     + 2 * dd[f"{k}_capot_ew"].astype(np.int8))
        return cols

    def sd_columns(self, hands: np.ndarray, dealers: np.ndarray,
                   index: np.ndarray) -> dict[str, np.ndarray]:
        """Per kind, the single-dummy result of four PIMC players (``sd`` worlds a
        decision, playing for points, first lead from the dealer's left): ``{K}_sd_ns``, the
        card points N-S take, and ``{K}_sd_capot``: 1 where N-S took every trick, 2 where
        E-W did, else 0 (the DD columns' layout). A deal's play depends on the seed and its
        index only, so any chunk or shard gives the same columns."""
        from bazarsim.players.batch import sd_tables

        sd = sd_tables(hands, dealer=dealers, ruleset=self.ruleset, kinds=self.kinds,
                       worlds=self.sd, seed=self.seed, indices=index,
                       player=self.sd_player, depth=self.sd_depth)
        cols = {}
        for kind in self.kinds:
            k = KIND_NAMES[kind]
            tricks = sd[f"{k}_sd_tricks_ns"]
            cols[f"{k}_sd_ns"] = sd[f"{k}_sd_ns"].astype(np.int16)
            cols[f"{k}_sd_capot"] = ((tricks == 8).astype(np.int8)
                                     + 2 * (tricks == 0).astype(np.int8))
        return cols

    def slice_range(self, rows: pa.Table, offset: int, start: int, end: int) -> pa.Table:
        """Rows ``offset ..`` of ``rows`` for indices ``start .. end - 1``, with metadata."""
        meta = dict(self.params(), start=start, end=end, package_version=__version__)
        return with_part_metadata(rows.slice(offset, end - start), meta)

    @classmethod
    def from_params(cls, params: dict, extra: ColumnSource | None = None,
                    **engine: object) -> Simulation:
        """The simulation a manifest describes (:meth:`params`), e.g. to repair a dataset;
        ``extra``: its column source, when it has one (built by the stage that owns it from
        the manifest's entry); ``engine``: chunk, compression, writers."""
        if params.get("schema_version") != SCHEMA_VERSION:
            raise BazarsimError(f"dataset schema version {params.get('schema_version')}: "
                                f"this bazarsim reads version {SCHEMA_VERSION}")
        ruleset = ruleset_from_params(params)
        cons = params["constraints"]
        constraints = parse_constraints([f"{s}:{c}" for s, c in cons["fix"].items()],
                                        cons["where"])
        sim = cls(deals=params["deals"], seed=params["seed"], first=params["first"],
                  ruleset=ruleset, constraints=constraints, dealer=parse_dealer(params["dealer"]),
                  kinds=tuple(parse_kind(k) for k in params["kinds"]),
                  columns=params["columns"], dd=params.get("dd", False),
                  sd=params.get("sd", {}).get("worlds", 0),
                  sd_player=params.get("sd", {}).get("players", "pimc"),
                  sd_depth=params.get("sd", {}).get("depth", DEFAULT_DEPTH),
                  bid_time=params.get("bid_time", False), extra=extra, **engine)
        unknown = sorted(set(params) - set(sim.params()))
        if unknown:
            raise BazarsimError(f"the manifest's {', '.join(unknown)} entry needs the columns' "
                                "source (e.g. bazarsim.beliefs.auctioned for 'auction'): "
                                "this call gave none")
        if sim.params() != params:
            raise BazarsimError("the manifest describes a run this bazarsim cannot rebuild")
        return sim

    def continue_older_run(self, out: Path,
                           notice: Callable[[str], None] | None = None) -> None:
        """Resuming, into ``out``, the same run written before bid-time columns existed:
        finish it without them, so that its parts stay one dataset."""
        old = read_manifest_or_none(out)
        if not (self.bid_time and old is not None and "bid_time" not in old):
            return
        if old == {k: v for k, v in self.params().items() if k != "bid_time"}:
            self.bid_time = False
            if notice:
                notice(f"{out} was started without bid-time columns: finishing it so")


def ruleset_from_params(params: dict) -> Ruleset:
    """The ruleset, with its options, of a run's parameters (a dataset's manifest)."""
    base = get_ruleset(params["ruleset"])
    current = base.options()
    changed = {}
    for key, value in params.get("options", {}).items():
        if key in current and _plain(current[key]) != value:
            changed[key] = _typed_like(value, current[key])
    return base.with_options(**changed) if changed else base


def _typed_like(value, current):
    """A manifest's plain JSON value in the type of the option it sets."""
    if isinstance(current, tuple):
        return tuple(value)
    if isinstance(current, dict):
        keys = {str(k): k for k in current}
        return {keys.get(k, k): _typed_like(v, current.get(keys.get(k, k))) for k, v in
                value.items()}
    return value


def _plain(v):
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    return v
