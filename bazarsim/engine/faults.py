"""Fault injection for the kill-and-resume tests: the running process kills itself at a
chosen point instead of a test racing a clock to kill it from outside.

``BAZARSIM_TEST_KILL_AFTER_PARTS=N`` in the environment: a run (the local engine, or the
driver of a Dask run) SIGKILLs its own process once N part files of this run are whole on
disk, the moment a user's kill -9 could fall on; a Dask run's tasks then pace themselves
(:func:`task_pause`) so that the kill falls while some are still to run. Unset (always,
outside the tests), it costs one dictionary look-up a chunk.
"""

from __future__ import annotations

import os
import signal

KILL_AFTER_PARTS = "BAZARSIM_TEST_KILL_AFTER_PARTS"


def task_pause() -> float:
    """Seconds each Dask task waits before its work while a kill is asked for: tasks of a
    small test run would otherwise all finish before the driver sees its N-th part (they
    take milliseconds), and the kill would fall after the run instead of inside it."""
    return 0.25 if os.environ.get(KILL_AFTER_PARTS) is not None else 0.0


def parts_written(count: int) -> None:
    """``count`` parts of the run are written: die here if the test asked for it."""
    limit = os.environ.get(KILL_AFTER_PARTS)
    if limit is not None and count >= int(limit):
        os.kill(os.getpid(), signal.SIGKILL)
