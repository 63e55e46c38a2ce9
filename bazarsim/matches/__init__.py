"""Bidding policies and whole matches (the stage above ``analysis``).

* :mod:`~bazarsim.matches.model` - the hand model: P(the side makes each bid) from what a
  bidder saw, P(the opponents' contract fails) from a defender's hand; fitted on a
  DD (or SD) dataset, calibrated on held-out deals, evaluated in bulk.
* :mod:`~bazarsim.matches.policy` - a bidding policy as a small TOML file, checked key by
  key (a bad key is named with its line).
* :mod:`~bazarsim.matches.bidding` - the four seats' policies run through the ruleset's
  auction (:class:`bazarsim.rules.auction.Auction`) to a contract or a redeal.
* :mod:`~bazarsim.matches.deals` - the deal source: a solved dataset's deals, re-seated
  so any seat can deal, and the model's cells of every seat and kind.
* :mod:`~bazarsim.matches.playoff` - duplicate match play-offs to the target with a
  paired standard error.
* :mod:`~bazarsim.matches.equity` - match equity by dynamic programming over the deal
  outcomes the play-offs measured, and the break-even thresholds it implies.
"""
