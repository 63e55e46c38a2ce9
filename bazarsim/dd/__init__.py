"""Double-dummy play: the search (its drivers and public names in ``search``, each of
its techniques in a room of its own: ``context``, ``layout``, ``alphabeta``, ``moves``,
``quick``, ``endgames``, ``table``, ``hints``, ``rootlook``), the one-position API
(``solver``) and DD tables of many deals in parallel (``batch``)."""

from bazarsim.dd.solver import (
    Solution,
    Solver,
    can_reach,
    capot_possible,
    card_values,
    dd_table,
    dd_tables,
    optimal_line,
    solve,
)

__all__ = [
    "Solution",
    "Solver",
    "can_reach",
    "capot_possible",
    "card_values",
    "dd_table",
    "dd_tables",
    "optimal_line",
    "solve",
]
