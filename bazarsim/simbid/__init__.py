"""Bidding by simulation: what each call now is worth, over the worlds the auction allows,
when the auction is played on by policies and the final contract is played out."""
