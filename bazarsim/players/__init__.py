"""Card players with hidden cards: what a seat knows (:mod:`.view`), the exact world
sampler (:mod:`.worlds`), what a played card shows (:mod:`.inference`), PIMC decisions
and play-outs (:mod:`.pimc`), the players (:mod:`.players`), whole deals played out
(:mod:`.playout`), many deals in parallel and the single-dummy columns (:mod:`.batch`)
and duplicate play-offs (:mod:`.playoff`). A stage above :mod:`bazarsim.dd`, whose
search values the cards."""
