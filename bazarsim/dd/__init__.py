"""Double-dummy play: the search core (``search``), the one-position API (``solver``)
and DD tables of many deals in parallel (``batch``)."""

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
