"""Cold compilation of each kernel family: seconds and peak memory of a first call.

Each family runs in a fresh process with an empty Numba cache of its own
(``NUMBA_CACHE_DIR`` in a temporary directory), so this is what a new install pays the
first time: the process's wall time to the first answer and its peak resident memory
(``ru_maxrss``), imports included. A second process on the same cache shows what every
later run pays (loading the cached machine code).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from .common import row

# family -> Python code making the first call that needs the family's kernels
FAMILIES = {
    "evaluation": "import numpy as np; from bazarsim.evaluate.hands import evaluate_hands, "
                  "evaluate_deals; evaluate_hands(np.arange(64, dtype=np.uint32), 'H'); "
                  "evaluate_deals(np.array([[255, 255 << 8, 255 << 16, 255 << 24]], "
                  "np.uint32), 0, 'H')",
    "deal generator": "from bazarsim.deals.generator import DealGenerator; "
                      "DealGenerator(1).deal(0, 100)",
    "solver": "from bazarsim.dd.solver import Solver; from bazarsim.deals.generator import "
              "DealGenerator; Solver().solve(DealGenerator(7).deal(0, 1).hands[0], 'H', 'E')",
    "DD tables": "from bazarsim.dd.batch import dd_tables; from bazarsim.deals.generator "
                 "import DealGenerator; dd_tables(DealGenerator(7).deal(0, 2).hands)",
    "scoring": "import numpy as np; from bazarsim.rules.scoring import score_deals; "
               "score_deals(None, level=np.array([8]), kind=np.array([1]), "
               "declarer_side=np.array([0]), points=np.array([[100, 62]]), "
               "tricks=np.array([[5, 3]]), declarations=np.zeros((1, 2), int), "
               "bela=np.zeros((1, 2), int))",
}

PROBE = """
import json, resource, sys, time
t0 = time.perf_counter()
exec(sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - t0,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def first_call(code: str, cache_dir: str) -> dict:
    """Seconds and peak MB of a fresh process running ``code`` on ``cache_dir``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", PROBE, code], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def collect(quick: bool) -> list[dict]:
    rows = []
    families = {k: v for k, v in FAMILIES.items() if not quick or k != "DD tables"}
    for family, code in families.items():
        with tempfile.TemporaryDirectory() as cache:
            cold = first_call(code, cache)
            warm = first_call(code, cache)
        note = f"fresh process, empty Numba cache; cached: {warm['seconds']:.1f} s"
        rows.append(row("compile", f"{family}: first call", cold["seconds"], "s", note))
        rows.append(row("compile", f"{family}: peak memory", cold["peak_mb"], "MB",
                        f"cached run: {warm['peak_mb']:.0f} MB"))
    return rows
