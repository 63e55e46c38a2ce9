"""Fault injection for the kill-and-resume tests: the running process kills itself at a
chosen point instead of a test racing a clock to kill it from outside.

``BAZARSIM_TEST_KILL_AFTER_PARTS=N`` in the environment: a run (the local engine, or the
driver of a Dask run) SIGKILLs its own process once N part files of this run are whole on
disk, the moment a user's kill -9 could fall on. Unset (always, outside the tests), it
costs one dictionary look-up a chunk.
"""

from __future__ import annotations

import os
import signal

KILL_AFTER_PARTS = "BAZARSIM_TEST_KILL_AFTER_PARTS"


def parts_written(count: int) -> None:
    """``count`` parts of the run are written: die here if the test asked for it."""
    limit = os.environ.get(KILL_AFTER_PARTS)
    if limit is not None and count >= int(limit):
        os.kill(os.getpid(), signal.SIGKILL)
