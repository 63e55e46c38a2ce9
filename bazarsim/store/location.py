"""Where a dataset lives: a local path, or an fsspec URL.

A plain path stays a :class:`pathlib.Path` and is used exactly as before; so is a
``file://`` URL (a local or network-mounted path). Any other fsspec URL (``s3://``,
``gs://``, ``abfs://``, ``memory://``, or ``local://``: the local file system through
fsspec) becomes an :class:`FsPath`: the few path
operations the store uses (join, list, exists, open, remove, rename), done through the
URL's fsspec file system. Its part files are written to a temporary name and moved into
place (on an object store the move is a server-side copy: the part appears whole or not
at all); the packages of the file system (``s3fs``, ``gcsfs``...) and its credentials
must be installed where the engine runs (on every Dask worker).
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

from bazarsim.core.errors import BazarsimError

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(out: str | Path) -> bool:
    return isinstance(out, str) and bool(_URL.match(out))


class FsPath:
    """A path on an fsspec file system with the part of the ``pathlib`` API the store
    uses; ``str()`` is its URL."""

    def __init__(self, fs, path: str, url: str):
        self.fs = fs
        self.path = path.rstrip("/") or "/"
        self.url = url.rstrip("/")

    def __truediv__(self, name: str) -> FsPath:
        return FsPath(self.fs, f"{self.path}/{name}", f"{self.url}/{name}")

    def __str__(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"FsPath({self.url!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, FsPath) and other.url == self.url

    def __hash__(self) -> int:
        return hash(self.url)

    def __lt__(self, other: FsPath) -> bool:
        return self.url < other.url

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)

    @property
    def parent(self) -> FsPath:
        return FsPath(self.fs, posixpath.dirname(self.path), self.url.rsplit("/", 1)[0])

    def with_name(self, name: str) -> FsPath:
        return self.parent / name

    def exists(self) -> bool:
        return self.fs.exists(self.path)

    def is_dir(self) -> bool:
        # object stores have no directories: a prefix holding files is one
        return self.fs.isdir(self.path)

    def iterdir(self) -> list[FsPath]:
        if not self.is_dir():
            raise FileNotFoundError(2, "No such directory", self.url)
        return [self / posixpath.basename(p.rstrip("/"))
                for p in self.fs.ls(self.path, detail=False)]

    def glob(self, pattern: str) -> list[FsPath]:
        if not self.is_dir():
            return []
        return [p for p in self.iterdir() if fnmatch.fnmatchcase(p.name, pattern)]

    def mkdir(self, parents: bool = False, exist_ok: bool = False) -> None:
        self.fs.makedirs(self.path, exist_ok=True)

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            self.fs.rm_file(self.path)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def read_text(self) -> str:
        return self.fs.cat_file(self.path).decode()

    def open(self, mode: str = "rb"):
        return self.fs.open(self.path, mode)

    def replace(self, target: FsPath) -> None:
        """Move onto ``target`` (replacing it)."""
        self.fs.mv(self.path, target.path)

    def arrow_filesystem(self):
        """This file system for pyarrow (datasets, Parquet files)."""
        import pyarrow.fs as pafs

        return pafs.PyFileSystem(pafs.FSSpecHandler(self.fs))


def resolve(out: str | Path | FsPath) -> Path | FsPath:
    """A path (a plain path or a ``file://`` URL) or an :class:`FsPath` (another fsspec
    URL; its file system's package must be installed)."""
    if isinstance(out, FsPath):
        return out
    if isinstance(out, Path) or not is_url(out):
        return Path(out)
    url = urlparse(out)
    scheme = url.scheme.lower()
    if scheme == "file":
        if url.netloc not in ("", "localhost"):
            raise BazarsimError(f"{out!r}: a file:// URL names a path on this machine "
                                "(file:///dir or file://localhost/dir)", out)
        return Path(unquote(url.path))
    import fsspec

    try:
        fs, path = fsspec.core.url_to_fs(out)
    except (ImportError, ValueError) as exc:
        raise BazarsimError(f"{out!r}: cannot open {scheme}:// URLs here ({exc}); install "
                            "the fsspec package of that file system (s3fs, gcsfs, adlfs...)",
                            out) from None
    return FsPath(fs, path, out)
