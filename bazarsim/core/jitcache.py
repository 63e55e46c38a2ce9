"""Keep Numba's on-disk cache in step with the package's source.

Numba decides whether a cached kernel is stale by looking only at the file that defines
it. Our kernels inline helpers from other modules (``core.bits``, ``rules.play``...), so an
edit or an upgrade that changes only a helper would otherwise keep running the old
machine code. At import we hash every source file of the package; when the hash differs
from the one recorded beside the cache, the package's cache files are removed and Numba
compiles afresh (once). Costs about a millisecond; never fails the import.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the bazarsim package
STAMP = PACKAGE_DIR / "__pycache__" / "bazarsim-source.sha1"


def source_hash() -> str:
    h = hashlib.sha1()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        h.update(str(path.relative_to(PACKAGE_DIR)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def ensure_fresh_cache() -> bool:
    """Drop stale Numba cache files of this package; True if any were dropped."""
    try:
        digest = source_hash()
        if STAMP.exists() and STAMP.read_text().strip() == digest:
            return False
        dropped = False
        for pattern in ("*.nbi", "*.nbc"):
            for f in PACKAGE_DIR.rglob(f"__pycache__/{pattern}"):
                f.unlink(missing_ok=True)
                dropped = True
        STAMP.parent.mkdir(exist_ok=True)
        STAMP.write_text(digest + "\n")
        return dropped
    except OSError:  # read-only install: Numba then caches elsewhere; nothing to do
        return False
