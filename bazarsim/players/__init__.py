"""Card players with hidden cards: what a seat knows (:mod:`.view`), the exact world
sampler (:mod:`.worlds`), what a played card shows (:mod:`.inference`), PIMC decisions
and play-outs (:mod:`.pimc`), the players (:mod:`.players`) and whole deals played out
(:mod:`.playout`). A stage above :mod:`bazarsim.dd`, whose search values the cards."""
