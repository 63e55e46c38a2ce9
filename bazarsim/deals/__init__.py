"""Deals: numbering every deal with an integer, the counter-based deal generator (deal
``i`` of seed ``s`` is a pure function of both), and constraints on what is dealt."""
