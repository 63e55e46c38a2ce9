"""Interleaved A/B of the solver: a git revision against the working tree.

``python -m benchmarks.ab_solver [--base REV] [--rounds N] [--passes P] [--seeds S ...]
[--kinds K ...]``

Both versions of the package are copied under other names (``bz_base``, ``bz_work``). Each
round runs each side in a fresh process (alternating which goes first) that solves the
same random full deals (the six contracts each, or those of ``--kinds``; East leads) ``P``
times and reports its best CPU time per seed; the table shows the best over the rounds and
the ratio of the medians.
Fresh processes matter: on this shared VM the same code's speed varies from one process
to the next by up to 40 %, and two versions imported into one process read +20 to +50 %
for identical code (``reports/compile-notes.md``). Values must agree (exit status 1 if
not); nodes per solve are exact and show what a change does to the search itself.
The copies are kept under ``.ab_cache/`` (one folder per package content, with its Numba
cache), so a later run on the same code compiles nothing; the first run on new code
compiles its copy (about a minute, not timed). Delete the folder to free the space. A
copy's absolute imports (``from bazarsim.x import``) are renamed to the copy, and the
solver is found in either layout (``dd.solver`` since the stage folders, ``solver``
before them), so ``--base`` may be a revision from before the reorganisation.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import re
import shutil
import statistics
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


def _run_set(solver, ds, kinds) -> tuple[float, int, int]:
    """Time, total nodes and a checksum of the values of the contracts ``kinds`` of ``ds``."""
    nodes = 0
    check = 0
    t0 = time.perf_counter()
    for d in ds:
        for kind in kinds:
            sol = solver.solve(d, kind, 1)
            nodes += sol.nodes
            check = (check * 1_000_003 + sol.ns_points * 7 + kind) % (1 << 61)
    return time.perf_counter() - t0, nodes, check


def _child(home: str, package: str, seeds: list[int], n_deals: int, passes: int,
           kinds: list[int]) -> None:
    """One side of one round, in its own process: the best CPU time of ``passes`` passes
    over each seed's deals, with nodes and checksum, as one JSON line."""
    numba.set_num_threads(1)
    sys.path.insert(0, home)
    solver = _solver_class(package)()
    sets = {s: deals(n_deals, seed=s) for s in seeds}
    solver.solve(sets[seeds[0]][0], 0, 1)  # load or compile, untimed
    out = {}
    for s in seeds:
        best = None
        for _ in range(passes):
            t0 = time.process_time()
            _, nodes, check = _run_set(solver, sets[s], kinds)
            t = time.process_time() - t0
            best = t if best is None else min(best, t)
        out[s] = (best, nodes, check)
    print(json.dumps(out))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="HEAD", help="git revision to compare against")
    ap.add_argument("--rounds", type=int, default=6,
                    help="rounds: a fresh process for each side in each round")
    ap.add_argument("--passes", type=int, default=3, help="timed passes in each process")
    ap.add_argument("--seeds", type=int, nargs="+", default=[7, 11, 3],
                    help="one deal set per seed")
    ap.add_argument("--deals", type=int, default=16, help="deals per set")
    ap.add_argument("--kinds", type=int, nargs="+", default=list(range(6)), choices=range(6),
                    help="contract kinds to solve (0-3 suits, 4 BK, 5 VK)")
    ap.add_argument("--child", nargs=2, metavar=("HOME", "PACKAGE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child[0], args.child[1], args.seeds, args.deals, args.passes, args.kinds)
        return 0
    homes = [
        _kept_copy("bz_base", _base_id(args.base), lambda d: _copy_revision(args.base, d)),
        _kept_copy("bz_work", _work_id(), _copy_work),
    ]
    names = ("bz_base", "bz_work")

    def run_side(i: int) -> dict:
        cmd = [sys.executable, "-m", "benchmarks.ab_solver", "--child", str(homes[i]),
               names[i], "--passes", str(args.passes), "--deals", str(args.deals),
               "--seeds", *map(str, args.seeds), "--kinds", *map(str, args.kinds)]
        out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)
        return {int(k): v for k, v in json.loads(out.stdout.strip().splitlines()[-1]).items()}

    for i in (0, 1):  # compile each copy once, untimed
        run_side(i)
    bests: dict = {}
    result = {}
    for r in range(args.rounds):
        for i in ((0, 1) if r % 2 == 0 else (1, 0)):
            for s, (t, nodes, check) in run_side(i).items():
                bests.setdefault((i, s), []).append(t)
                result[i, s] = (nodes, check)
    n = len(args.kinds) * args.deals
    same = True
    print(f"base {args.base} vs working tree, {n} solves a seed, {args.rounds} processes a "
          f"side, best CPU time of {args.passes} passes in each")
    print(f"{'seed':>6} {'base nodes':>11} {'work nodes':>11} {'nodes':>8} "
          f"{'base ms':>8} {'work ms':>8} {'best':>8} {'median':>8}  values")
    ratios = []
    for s in args.seeds:
        (nb_, cb), (nw, cw) = result[0, s], result[1, s]
        tb, tw = min(bests[0, s]) / n * 1e3, min(bests[1, s]) / n * 1e3
        med = statistics.median(bests[1, s]) / statistics.median(bests[0, s])
        ratios.append(tw / tb)
        ok = cb == cw
        same &= ok
        print(f"{s:>6} {nb_ // n:>11} {nw // n:>11} {nw / nb_ - 1:>+8.1%} "
              f"{tb:>8.3f} {tw:>8.3f} {tw / tb - 1:>+8.1%} {med - 1:>+8.1%}  "
              f"{'same' if ok else 'DIFFER'}")
    print(f"median over seeds of the best-time ratio: {statistics.median(ratios) - 1:+.1%}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
