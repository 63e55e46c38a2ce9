"""Keep Numba's on-disk cache in step with the package's source, stage by stage.

Numba decides whether a cached kernel is stale by looking only at the file that defines
it. Our kernels have helpers of other modules (``core.bits``, ``rules.play``...) compiled
into their machine code, so an edit or an upgrade that changes only a helper would
otherwise keep running the old code. The package is layered (:data:`STAGES`, checked by
``tests/test_layout``): a module imports only from its own stage and the stages before it,
so a kernel can only depend on code of those stages. At import we hash each stage's
source files; when a stage's hash differs from the one recorded beside the cache, the
cache files of that stage and of every later stage are removed, and Numba compiles those
afresh (once). An edit to ``analysis`` therefore keeps the compiled solver of ``dd``.
Costs about a millisecond; never fails the import.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the bazarsim package
STAMP = PACKAGE_DIR / "__pycache__" / "bazarsim-source.json"
# the package's stages in the order data flows; a stage imports only from earlier ones
STAGES = ("core", "rules", "evaluate", "deals", "dd", "players", "store", "engine", "analysis",
          "matches", "beliefs", "simbid", "report", "app", "cli")


def stage_hashes() -> dict[str, str]:
    """SHA-1 of each stage's source files (paths and contents)."""
    hashes = {}
    for stage in STAGES:
        h = hashlib.sha1()
        for path in sorted((PACKAGE_DIR / stage).rglob("*.py")):
            h.update(str(path.relative_to(PACKAGE_DIR)).encode())
            h.update(path.read_bytes())
        hashes[stage] = h.hexdigest()
    return hashes


def stale_stages(old: dict, new: dict[str, str]) -> list[str]:
    """The first stage whose sources changed and every stage after it."""
    for i, stage in enumerate(STAGES):
        if old.get(stage) != new[stage]:
            return list(STAGES[i:])
    return []


def ensure_fresh_cache() -> bool:
    """Drop stale Numba cache files of this package; True if any were dropped."""
    try:
        new = stage_hashes()
        try:
            old = json.loads(STAMP.read_text())
        except (OSError, ValueError):
            old = {}
        stale = stale_stages(old if isinstance(old, dict) else {}, new)
        if not stale:
            return False
        dropped = False
        for stage in stale:
            for pattern in ("*.nbi", "*.nbc"):
                for f in (PACKAGE_DIR / stage).rglob(f"__pycache__/{pattern}"):
                    f.unlink(missing_ok=True)
                    dropped = True
        STAMP.parent.mkdir(exist_ok=True)
        STAMP.write_text(json.dumps(new, indent=0) + "\n")
        return dropped
    except OSError:  # read-only install: Numba then caches elsewhere; nothing to do
        return False
