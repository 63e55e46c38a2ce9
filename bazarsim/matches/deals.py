"""The deal source of a match: a solved dataset's deals, in memory, re-seated at will.

A match needs many deals with their play results (``simulate --dd``, or ``--sd``): one
dataset is solved once and any number of policy pairs play on it. Deal ``j`` of match
``m`` is the dataset's deal ``hash(seed, m, j) mod n`` (:func:`match_deals`), drawn with
replacement: matches are independent draws from the deals, reproducible from the seed.

Re-seating: a match's dealer rotates, but a dataset deal was played with its own dealer
(the first leader sits at its left, so the DD values depend on it). Turning the whole
table by ``r`` seats (seat ``s`` gets the hand of seat ``s - r``, the dealer moves with
it) changes nothing but the names: N-S's results are the dataset's E-W's when ``r`` is
odd. Each seat's model class (its hand and its position from the dealer) moves with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bazarsim.analysis.bids import declarer_rows, open_study
from bazarsim.analysis.threshold import deal_hash
from bazarsim.core.contracts import N_KINDS
from bazarsim.core.errors import BazarsimError
from bazarsim.matches.model import HandModel, row_cells
from bazarsim.rules.rulesets import Ruleset
from bazarsim.store.parts import read_dataframe

MAX_DEALS_BLOCK = 256  # deal indices drawn at a time for one match


@dataclass
class DealTable:
    """Every deal of a dataset, as the matches need it (indexed by row ``i``)."""

    ruleset: Ruleset
    kinds: tuple[int, ...]
    dealer: np.ndarray  # int64 [n]
    hands: np.ndarray  # uint32 [n, 4]
    void: np.ndarray  # bool [n]: the deal is redealt whatever the auction (four 7s)
    ns: np.ndarray  # int64 [n, N_KINDS]: N-S card points under the play
    capot: np.ndarray  # int64 [n, N_KINDS]: 0 none, 1 N-S, 2 E-W take every trick
    decl: np.ndarray  # int64 [n, N_KINDS, 2]: declarations that count, N-S and E-W
    bela: np.ndarray  # int64 [n, N_KINDS, 2]
    cells: np.ndarray  # int64 [n, 4, N_KINDS]: each seat's model class under each kind
    source: dict

    @property
    def n(self) -> int:
        return len(self.dealer)

    def rotation(self, i: int, dealer: int) -> int:
        """Seats to turn deal ``i`` by so that ``dealer`` deals it."""
        return (dealer - int(self.dealer[i])) % 4


def load_deals(out: str | Path, play: str = "dd") -> DealTable:
    """Read a solved dataset (every kind it simulated) with each seat's model class."""
    study = open_study(out, play=play)
    rs = study.ruleset
    base = read_dataframe(study.out, ["index", "dealer", "N", "E", "S", "W", "redeal"])
    order = np.argsort(base["index"].to_numpy())
    index = base["index"].to_numpy()[order]
    n = len(index)
    if n == 0:
        raise BazarsimError(f"{out} holds no deals")
    ns = np.zeros((n, N_KINDS), np.int64)
    capot = np.zeros((n, N_KINDS), np.int64)
    decl = np.zeros((n, N_KINDS, 2), np.int64)
    bela = np.zeros((n, N_KINDS, 2), np.int64)
    cells = np.zeros((n, 4, N_KINDS), np.int64)
    for row in declarer_rows(study):
        at = np.searchsorted(index, row["deal"])
        k = row["kind"]
        cells[at, row["seat"], k] = row_cells(rs, row)
        if row["seat"] == 0:
            ns[at, k] = row["points"][:, 0]
            capot[at, k] = np.where(row["capot_side"] == 0, 1,
                                    np.where(row["capot_side"] == 1, 2, 0))
            decl[at, k] = row["declarations"]
            bela[at, k] = row["bela"]
    hands = np.stack([base[s].to_numpy()[order].astype(np.uint32) for s in "NESW"], 1)
    source = {"dataset": str(out), "deals": n, "seed": study.manifest["seed"], "play": play}
    return DealTable(rs, study.kinds, base["dealer"].to_numpy()[order].astype(np.int64),
                     hands, base["redeal"].to_numpy()[order].astype(bool), ns, capot, decl,
                     bela, cells, source)


def match_deals(seed: int, match: int, n: int, block: int = 0) -> np.ndarray:
    """Dataset rows of deals ``block*B .. block*B + B - 1`` of match ``match``
    (``B`` = :data:`MAX_DEALS_BLOCK`): a seeded hash of ``(match, j)``, mod ``n``."""
    j = np.arange(block * MAX_DEALS_BLOCK, (block + 1) * MAX_DEALS_BLOCK, dtype=np.int64)
    keys = (np.int64(match) << np.int64(24)) + j
    return (deal_hash(keys, seed ^ 0x3A7C) % np.uint64(n)).astype(np.int64)


def seat_rates(model: HandModel, table: DealTable, i: int, r: int,
               seat: int) -> tuple[np.ndarray, np.ndarray]:
    """Bidder and defender rates ``[N_KINDS, bids]`` of ``seat`` on deal ``i`` turned by
    ``r`` seats (the seat holds the dataset seat ``seat - r``'s hand)."""
    cells = table.cells[i, (seat - r) % 4]
    return model.rates[0, cells], model.rates[1, cells]
