"""Where a dataset lives: a local path, or a URL.

``file://`` URLs name local (or network-mounted) paths and are used as such; a plain
path stays exactly as before. Other fsspec URLs (``s3://``, ``gs://``...) are refused
with one clear error line, so that nothing is written to a place the engines do not
manage atomically.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse

from bazarsim.core.errors import BazarsimError

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(out: str | Path) -> bool:
    return isinstance(out, str) and bool(_URL.match(out))


def local_path(out: str | Path) -> Path:
    """The local path of ``out``: a path, or a ``file://`` URL (``file:///abs/dir``,
    ``file://localhost/abs/dir``)."""
    if isinstance(out, Path) or not is_url(out):
        return Path(out)
    url = urlparse(out)
    if url.scheme.lower() in ("file", "local"):
        if url.netloc not in ("", "localhost"):
            raise BazarsimError(f"{out!r}: a file:// URL names a path on this machine "
                                "(file:///dir or file://localhost/dir)", out)
        return Path(unquote(url.path))
    raise BazarsimError(f"{out!r}: {url.scheme}:// datasets are not supported; use a path "
                        "or a file:// URL (on a cluster: a path every worker shares)", out)
