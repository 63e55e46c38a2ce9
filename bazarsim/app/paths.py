"""What the app may read: files under ``--data`` only, and the datasets among them.

A path from a form is taken relative to the data root; it is refused when it is
absolute, climbs out with ``..``, or leads out of the root through a symbolic link (the
resolved path must still lie under the resolved root)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from bazarsim.core.errors import BazarsimError
from bazarsim.store.parts import MANIFEST, PART_RE, read_manifest


def inside(path: Path, base: Path) -> bool:
    """Is ``path`` ``base`` or under it (both resolved already)?"""
    return path == base or base in path.parents


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
    if not inside(target, base):
        raise BazarsimError(f"{what} {text!r}: leads out of the data directory (a link?); "
                            "only files under it can be read")
    if not target.exists():
        raise BazarsimError(f"{what} {text!r}: not found under the data directory")
    return target


def relative_name(root: Path, path: Path) -> str:
    """``path`` as the forms name it: relative to the root, with ``/``."""
    return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()


def dataset_dir(root: Path | None, relative: str) -> tuple[Path, dict]:
    """The dataset a form names (its directory, resolved, and its manifest), or one error
    line: outside the data root, not a directory, no manifest, or a manifest or part that
    leads out of the root through a link."""
    directory = safe_path(root, relative, "dataset")
    name = str(relative).strip()
    if not directory.is_dir():
        raise BazarsimError(f"dataset {name!r} is not a bazarsim dataset: not a directory; "
                            "choose a dataset from the list")
    base = Path(root).resolve()
    if not (directory / MANIFEST).is_file():
        raise BazarsimError(f"{name!r} is not a bazarsim dataset (no {MANIFEST}); choose one "
                            "from the list or write one with bazarsim simulate")
    try:
        parts = [p for p in directory.iterdir() if PART_RE.match(p.name)]
    except OSError as e:
        raise BazarsimError(f"dataset {name!r}: cannot be listed ({e.strerror})") from None
    for p in [directory / MANIFEST, *parts]:
        if not inside(p.resolve(), base):
            raise BazarsimError(f"dataset {name!r}: {p.name} leads out of the data directory "
                                "(a link?); only files under it can be read")
    if not parts:
        raise BazarsimError(f"dataset {name!r} holds no part files (part-*.parquet)")
    return directory, dataset_manifest(directory, name)


def dataset_manifest(directory: Path, name: str) -> dict:
    """A dataset's manifest, or one error line where it is damaged (not JSON, or not the
    object a run writes)."""
    try:
        manifest = read_manifest(directory)
    except (TypeError, AttributeError):  # JSON, but not an object
        manifest = None
    if not isinstance(manifest, dict) or not {"ruleset", "kinds", "deals"} <= manifest.keys():
        raise BazarsimError(f"dataset {name!r}: damaged manifest ({MANIFEST} is not a run's "
                            "parameters); simulate it again")
    return manifest
