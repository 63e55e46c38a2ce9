"""Running a simulation: its missing parts written by an engine.

A :class:`~bazarsim.engine.simulation.Simulation` is a description (parameters, identity,
the rows of an index range); the engines (:mod:`bazarsim.engine.local`,
:mod:`bazarsim.engine.dask`) run its ranges. This entry point sits beside them and picks
one, so the arrows run one way: engines import the description, never the reverse, and a
new engine or a new kind of run plugs in here without touching the description.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bazarsim.engine.simulation import Simulation
from bazarsim.store.location import resolve


def run_simulation(sim: Simulation, out: str | Path,
                   progress: Callable[[int, int], None] | None = None,
                   notice: Callable[[str], None] | None = None, engine=None) -> dict:
    """Write the missing parts of ``sim``'s dataset in ``out`` (a path or a ``file://``
    URL) and return a summary: on this machine's cores, or with ``engine`` (a
    :class:`bazarsim.engine.dask.DaskEngine`) as Dask tasks; the rows are the same
    whatever the engine. ``progress(done, total)`` hears each chunk written, ``notice``
    each part redone and any other remark."""
    out = resolve(out)
    sim.continue_older_run(out, notice)
    if engine is None:
        from bazarsim.engine.local import run_local

        return run_local(sim, out, progress, notice)
    from bazarsim.engine.dask import run_dask

    return run_dask(sim, out, engine, progress, notice)
