"""What the auction says about the hidden hands: calls with likelihoods, auction-weighted
worlds, and the summaries of ``bazarsim infer``.

This stage sits above the players (it reuses their exact world sampler and their
double-dummy values) and the matches (whose policies and hand model are the model of
the other players it assumes).
"""
