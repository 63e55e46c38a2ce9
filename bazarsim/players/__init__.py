"""Card players with hidden cards: what a seat knows (:mod:`.view`), the exact world
sampler (:mod:`.worlds`), what a played card shows (:mod:`.inference`), PIMC decisions
(:mod:`.pimc`), alpha-mu decisions (:mod:`.alphamu`), the players (:mod:`.players`), whole
deals played out in the kernel (:mod:`.playout_kernel`) and card by card
(:mod:`.playout`), many deals in parallel and the single-dummy columns (:mod:`.batch`)
and duplicate play-offs (:mod:`.playoff`). A stage above :mod:`bazarsim.dd`, whose
search values the cards."""
