"""Interleaved A/B of the solver: a git revision against the working tree, in one process.

``python -m benchmarks.ab_solver [--base REV] [--rounds N] [--seeds S ...] [--deals N]``

Both versions of the package are copied under other names (``bz_base``, ``bz_work``) and
imported side by side; each round solves the same random full deals (6 contracts each,
East leads) with one and then the other, alternating which goes first, and keeps the best
time per seed. On a shared, noisy machine the ratio of two versions measured this way is
far steadier than two separate ``make bench`` runs. Values must agree (exit status 1 if
not); nodes per solve are exact and show what a change does to the search itself.
The copies are kept under ``.ab_cache/`` (one folder per package content, with its Numba
cache), so a later run on the same code compiles nothing; the first run on new code
compiles its copy (several minutes on a 2-core machine, not timed). Delete the folder to
free the space. A copy's absolute imports (``from bazarsim.x import``) are renamed to the
copy, and the solver is found in either layout (``dd.solver`` since the stage folders,
``solver`` before them), so ``--base`` may be a revision from before the reorganisation
(e.g. ``0dd8e98``).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import numba

from .bench_solver import deals

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".ab_cache"


# Where the solver's module lives, newest layout first (``solver`` before 88f8630).
SOLVER_MODULES = ("dd.solver", "solver")


def _copy_revision(rev: str, dest: Path) -> None:
    """The ``bazarsim`` package as committed at ``rev``, extracted to ``dest``."""
    data = subprocess.run(
        ["git", "archive", rev, "bazarsim"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(tmp, filter="data")
        shutil.copytree(Path(tmp) / "bazarsim", dest)
    _rename_imports(dest)


def _copy_work(dest: Path) -> None:
    """The working tree's ``bazarsim`` package, copied to ``dest``."""
    shutil.copytree(ROOT / "bazarsim", dest, ignore=shutil.ignore_patterns("__pycache__"))
    _rename_imports(dest)


def _rename_imports(dest: Path) -> None:
    """Point the copy's absolute imports of ``bazarsim`` at the copy (``dest.name``), so
    that it never imports the installed package's modules."""
    pattern = re.compile(r"^(\s*)(from|import) bazarsim\b", re.MULTILINE)
    for f in dest.rglob("*.py"):
        text = f.read_text()
        new = pattern.sub(rf"\1\2 {dest.name}", text)
        if new != text:
            f.write_text(new)


def _solver_class(package: str):
    """The ``Solver`` class of a copy, in whichever layout it has."""
    for module in SOLVER_MODULES:
        try:
            return importlib.import_module(f"{package}.{module}").Solver
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{module}" and exc.name != f"{package}.dd":
                raise
    raise ModuleNotFoundError(f"no solver module in {package}")


def _base_id(rev: str) -> str:
    """Git's id of the ``bazarsim`` tree at ``rev`` (its content, whatever the commit)."""
    return subprocess.run(["git", "rev-parse", f"{rev}:bazarsim"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()[:16]


def _work_id() -> str:
    """A hash of the working tree's ``bazarsim`` sources."""
    h = hashlib.sha1()
    for f in sorted((ROOT / "bazarsim").rglob("*.py")):
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def _kept_copy(name: str, ident: str, fill) -> Path:
    """The folder holding package ``name`` for content ``ident``, made by ``fill(dest)``
    on first use and kept (with its Numba cache) for later runs."""
    home = CACHE / f"{name}-{ident}"
    if not (home / name).is_dir():
        shutil.rmtree(home, ignore_errors=True)
        part = CACHE / f"{name}-{ident}.part"
        shutil.rmtree(part, ignore_errors=True)
        part.mkdir(parents=True)
        fill(part / name)
        part.rename(home)
    return home


def _run_set(solver, ds) -> tuple[float, int, int]:
    """Time, total nodes and a checksum of the values of every contract of ``ds``."""
    nodes = 0
    check = 0
    t0 = time.perf_counter()
    for d in ds:
        for kind in range(6):
            sol = solver.solve(d, kind, 1)
            nodes += sol.nodes
            check = (check * 1_000_003 + sol.ns_points * 7 + kind) % (1 << 61)
    return time.perf_counter() - t0, nodes, check


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="HEAD", help="git revision to compare against")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds (best kept)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[7, 11, 3],
                    help="one deal set per seed")
    ap.add_argument("--deals", type=int, default=16, help="deals per set")
    args = ap.parse_args(argv)
    numba.set_num_threads(1)
    homes = [
        _kept_copy("bz_base", _base_id(args.base), lambda d: _copy_revision(args.base, d)),
        _kept_copy("bz_work", _work_id(), _copy_work),
    ]
    sys.path[:0] = [str(h) for h in homes]
    try:
        solvers = [_solver_class(n)() for n in ("bz_base", "bz_work")]
        sets = {s: deals(args.deals, seed=s) for s in args.seeds}
        for sv in solvers:  # compile, untimed
            sv.solve(sets[args.seeds[0]][0], 0, 1)
        best = {}
        result = {}
        for r in range(args.rounds):
            for s in args.seeds:
                for i in ((0, 1) if r % 2 == 0 else (1, 0)):
                    t, nodes, check = _run_set(solvers[i], sets[s])
                    best[i, s] = min(best.get((i, s), t), t)
                    result[i, s] = (nodes, check)
    finally:
        for h in homes:
            sys.path.remove(str(h))
    n = 6 * args.deals
    same = True
    print(f"base {args.base} vs working tree, {n} solves a seed, best of {args.rounds} rounds")
    print(f"{'seed':>6} {'base nodes':>11} {'work nodes':>11} {'nodes':>8} "
          f"{'base ms':>8} {'work ms':>8} {'time':>8}  values")
    for s in args.seeds:
        (nb_, cb), (nw, cw) = result[0, s], result[1, s]
        tb, tw = best[0, s] / n * 1e3, best[1, s] / n * 1e3
        ok = cb == cw
        same &= ok
        print(f"{s:>6} {nb_ // n:>11} {nw // n:>11} {nw / nb_ - 1:>+8.1%} "
              f"{tb:>8.3f} {tw:>8.3f} {tw / tb - 1:>+8.1%}  {'same' if ok else 'DIFFER'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
