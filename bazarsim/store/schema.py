"""Columns of a simulated dataset (one row per deal) and the metadata of each part.

* ``number`` (deal number, :mod:`bazarsim.deals.numbering`), ``seed``, ``index``,
  ``dealer`` (0..3 = N E S W), hands ``N E S W`` (``uint32`` card masks,
  :mod:`bazarsim.core.cards`);
* per seat: ``{seat}_aces``; per seat and kind (``S H D C BK VK`` as the ruleset has
  them): ``{seat}_{kind}_points``, ``_trumps``, ``_trump_jacks``, ``_trump_nines``,
  ``_belas``, ``_declarations`` (declaration points before the comparison);
* per kind: ``{kind}_declaration_side`` (0 NS, 1 EW, -1 none), ``{kind}_declarations_ns``,
  ``_ew`` (points that score), ``{kind}_bela_ns``, ``_ew``; per deal: ``redeal`` (four
  sevens) and ``cancelled`` (four eights).

Bid-time cards, where a ruleset's players bid before they hold all 8 cards (manifest key
``bid_time``; :mod:`bazarsim.deals.bidtime`), per seat: ``{seat}_seen`` (``uint32`` mask
of the cards of its hand it would have seen when bidding as the taker: 5 in belote-fr, 6
in bela-hr) and, in belote-fr, ``{seat}_turned`` (``int8`` card index, bit = suit * 8 +
rank: the talon's turned card, one of its other 3 cards, also seen by the taker). Each
seat's are drawn for the hypothesis that it takes, from the run's seed and the deal's
index. Both column sets keep them; ``bazar`` and ``bazar-blot`` datasets, and datasets
written before these columns existed, have none (there the bid-time hand is the hand).

With DD tables (``simulate --dd``), per kind: ``{K}_dd_ns`` (card points N-S take with
perfect play, first lead from the dealer's left; E-W take the rest of the deal's total)
and ``{K}_dd_capot`` (1 where N-S can take every trick, 2 where E-W can, else 0); the
lean set then also keeps ``{seat}_{K}_declarations`` and ``{K}_bela_ns`` / ``_ew``, what
the bid tables need besides the hands.

The ``lean`` column set keeps, besides the deal columns and hands, only
``{seat}_{kind}_points``, ``{kind}_declaration_side``, ``{kind}_declarations_ns`` /
``_ew``, ``redeal`` and ``cancelled``: what the hands alone do not give by a bit test
(trumps, J/9 of trump, bela and aces do). Parquet writing costs about the same per column
whatever the type, so the lean set (52 columns for six kinds instead of 188) is several
times faster to write.

Schema metadata key ``bazarsim`` (JSON): schema version, package version, ruleset and
its options, seed, index range of the part, constraints, dealer mode and kinds.
"""

from __future__ import annotations

import numpy as np

SCHEMA_VERSION = 1
METADATA_KEY = b"bazarsim"
COLUMN_SETS = ("full", "lean")

HAND_COLUMNS = (  # (column suffix, evaluate_hands field, dtype)
    ("points", "points", np.int16),
    ("trumps", "trumps", np.int8),
    ("trump_jacks", "trump_jacks", np.int8),
    ("trump_nines", "trump_nines", np.int8),
    ("belas", "belas", np.int8),
    ("declarations", "declaration_points", np.int16),
)
DEAL_COLUMNS = ("declaration_side", "declarations_ns", "declarations_ew", "bela_ns", "bela_ew")
LEAN_DEAL_COLUMNS = DEAL_COLUMNS[:3]
SEEN = "seen"  # {seat}_seen: uint32 mask of the bid-time cards of the hand
TURNED = "turned"  # {seat}_turned: int8 card index of the turned card (belote-fr)
