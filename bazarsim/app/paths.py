"""What the app may read: files under ``--data`` only.

A path from a form is taken relative to the data root; it is refused when it is
absolute, climbs out with ``..``, or leads out of the root through a symbolic link (the
resolved path must still lie under the resolved root)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from bazarsim.core.errors import BazarsimError


def safe_path(root: Path | None, relative: str, what: str = "path") -> Path:
    """``root / relative``, resolved, or :class:`BazarsimError` when it is not inside
    ``root`` (or there is no root, or it does not exist)."""
    if root is None:
        raise BazarsimError("this server has no --data directory: start it with "
                            "bazarsim serve --data DIR")
    text = str(relative).strip()
    if not text:
        raise BazarsimError(f"no {what} given")
    if "\x00" in text:
        raise BazarsimError(f"{what} {text!r}: not a valid path")
    pure = PurePosixPath(text.replace("\\", "/"))
    if pure.is_absolute() or (len(text) > 1 and text[1] == ":"):
        raise BazarsimError(f"{what} {text!r}: give a path relative to the data directory")
    if ".." in pure.parts:
        raise BazarsimError(f"{what} {text!r}: '..' is not allowed (only files under the "
                            "data directory can be read)")
    base = Path(root).resolve()
    target = (base / Path(*pure.parts)).resolve()
    if target != base and base not in target.parents:
        raise BazarsimError(f"{what} {text!r}: leads out of the data directory (a link?); "
                            "only files under it can be read")
    if not target.exists():
        raise BazarsimError(f"{what} {text!r}: not found under the data directory")
    return target


def relative_name(root: Path, path: Path) -> str:
    """``path`` as the forms name it: relative to the root, with ``/``."""
    return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
