"""Cold compilation of each kernel family: seconds and peak memory of a first call.

Each family of ``bazarsim compile`` (:data:`bazarsim.cli.compile_cmd.FAMILIES`: DD tables,
solver, evaluation, dealing, scoring) runs in a fresh process with an empty Numba cache of its own
(``NUMBA_CACHE_DIR`` in a temporary directory), so this is what a new install pays the
first time: the process's wall time to the first answer and its peak resident memory
(``ru_maxrss``), imports included. A second process on the same cache shows what every
later run pays (loading the cached machine code). The last row is ``bazarsim compile``
itself on an empty cache: every family at once, one process per core.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from bazarsim.cli.compile_cmd import FAMILIES

from .common import row

PROBE = """
import json, resource, sys, time
t0 = time.perf_counter()
from bazarsim.cli.compile_cmd import FAMILIES
FAMILIES[sys.argv[1]]()
print(json.dumps({"seconds": time.perf_counter() - t0,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def first_call(family: str, cache_dir: str) -> dict:
    """Seconds and peak MB of a fresh process compiling ``family`` on ``cache_dir``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", PROBE, family], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def compile_everything(cache_dir: str) -> float:
    """Wall seconds of ``bazarsim compile`` on ``cache_dir``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "bazarsim", "compile", "--quiet"], env=env,
                   check=True)
    return time.perf_counter() - t0


def collect(quick: bool) -> list[dict]:
    rows = []
    for family in FAMILIES:
        with tempfile.TemporaryDirectory() as cache:
            cold = first_call(family, cache)
            warm = first_call(family, cache)
        note = (f"fresh process, empty Numba cache, one run; cached (one run): "
                f"{warm['seconds']:.1f} s")
        rows.append(row("compile", f"{family}: first call", cold["seconds"], "s", note))
        rows.append(row("compile", f"{family}: peak memory", cold["peak_mb"], "MB",
                        f"one run; cached run: {warm['peak_mb']:.0f} MB"))
    if not quick:
        with tempfile.TemporaryDirectory() as cache:
            wall = compile_everything(cache)
        rows.append(row("compile", "bazarsim compile: every family", wall, "s",
                        f"empty cache, {os.cpu_count()} processes at once; one run"))
    return rows
