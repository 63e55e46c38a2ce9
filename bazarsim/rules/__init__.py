"""The rules of the game as data: rulesets and their options, the compiled rules the
kernels read, legal play and the trick winner, the auction, scoring and the match."""
