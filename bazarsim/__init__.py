"""bazarsim: simulation and odds analyzer for Bazar belot and its relatives.

The package is laid out by stage, in the order data flows through it:

* ``core``: cards and seats, contract kinds and contracts, errors, bit helpers;
* ``rules``: rulesets as data, compiled rules for the kernels, legal play, auction,
  scoring, match;
* ``evaluate``: hand and deal evaluation, exact odds;
* ``deals``: deal numbers, the deal generator, constraints;
* ``dd``: the double-dummy solver and DD tables;
* ``players``: hidden-card play: what a seat knows, the exact world sampler, PIMC
  players, whole deals played out and single-dummy tables;
* ``store``: the Parquet dataset on disk;
* ``engine``: a simulation's index ranges computed and run (locally);
* ``analysis``: statistics and tables aggregated from datasets;
* ``matches``: bidding policies, the hand model they bid with, duplicate match
  play-offs and match equity;
* ``beliefs``: the auction as evidence: calls with likelihoods, auction-weighted worlds,
  the players that listen;
* ``simbid``: bidding by simulation: every call judged on those worlds;
* ``report``: records rendered for people;
* ``app``: the local web app (``bazarsim serve``) and its worker pool;
* ``cli``: the ``bazarsim`` command.

The names below are the Python API; the heavier ones (Numba kernels, pyarrow) are
imported on first use.
"""

from __future__ import annotations

__version__ = "0.1.0"

from bazarsim.core.jitcache import ensure_fresh_cache  # noqa: E402

ensure_fresh_cache()

from bazarsim.core.cards import (  # noqa: E402
    format_card,
    format_cards,
    format_deal,
    format_hand,
    parse_card,
    parse_cards,
    parse_deal,
    parse_hand,
)
from bazarsim.core.contracts import Contract, parse_kind  # noqa: E402
from bazarsim.core.errors import BazarsimError, CardError, RulesetError  # noqa: E402
from bazarsim.rules.rulesets import (  # noqa: E402
    DEFAULT_RULESET,
    RULESETS,
    Ruleset,
    get_ruleset,
)

# name -> module, imported when the name is first used
_LAZY = {
    "evaluate_hand": "bazarsim.evaluate.hands",
    "evaluate_hands": "bazarsim.evaluate.hands",
    "evaluate_deals": "bazarsim.evaluate.hands",
    "exact_odds": "bazarsim.evaluate.odds",
    "exact_features": "bazarsim.evaluate.odds",
    "DealGenerator": "bazarsim.deals.generator",
    "parse_constraints": "bazarsim.deals.constraints",
    "deal_number": "bazarsim.deals.numbering",
    "deal_from_number": "bazarsim.deals.numbering",
    "Solver": "bazarsim.dd.solver",
    "solve": "bazarsim.dd.solver",
    "dd_table": "bazarsim.dd.solver",
    "dd_tables": "bazarsim.dd.solver",
    "play_deal": "bazarsim.players.playout",
    "PlayerView": "bazarsim.players.view",
    "PimcPlayer": "bazarsim.players.players",
    "AlphaMuPlayer": "bazarsim.players.players",
    "Decision": "bazarsim.players.players",
    "DDPlayer": "bazarsim.players.players",
    "RandomPlayer": "bazarsim.players.players",
    "sd_tables": "bazarsim.players.batch",
    "parse_contract": "bazarsim.rules.auction",
    "run_auction": "bazarsim.rules.auction",
    "score_deal": "bazarsim.rules.scoring",
    "score_deals": "bazarsim.rules.scoring",
    "DealOutcome": "bazarsim.rules.scoring",
    "Simulation": "bazarsim.engine.simulation",
    "run_simulation": "bazarsim.engine.run",
    "read_dataframe": "bazarsim.store.parts",
    "frequency_table": "bazarsim.analysis.freq",
    "bid_table": "bazarsim.analysis.bids",
    "hand_query": "bazarsim.analysis.hand",
    "analyze": "bazarsim.analysis.hand",
    "threshold_study": "bazarsim.analysis.threshold",
    "convention_study": "bazarsim.analysis.convention",
    "fit_model": "bazarsim.matches.model",
    "HandModel": "bazarsim.matches.model",
    "load_policy": "bazarsim.matches.policy",
    "parse_policy": "bazarsim.matches.policy",
    "Policy": "bazarsim.matches.policy",
    "PolicyBidder": "bazarsim.matches.bidding",
    "PlayoffSpec": "bazarsim.matches.run",
    "run_playoff": "bazarsim.matches.run",
    "read_playoff": "bazarsim.matches.run",
    "playoff_summary": "bazarsim.matches.playoff",
    "match_equity": "bazarsim.matches.equity",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bazarsim' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "__version__",
    "BazarsimError",
    "CardError",
    "RulesetError",
    "DEFAULT_RULESET",
    "RULESETS",
    "Ruleset",
    "get_ruleset",
    "Contract",
    "parse_kind",
    "parse_card",
    "parse_cards",
    "parse_hand",
    "parse_deal",
    "format_card",
    "format_cards",
    "format_hand",
    "format_deal",
    *_LAZY,
]
