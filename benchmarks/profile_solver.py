"""Where the search spends its time, per source line: ``perf`` samples of the JIT kernel.

``python -m benchmarks.profile_solver [--seeds S ...] [--kinds K ...] [--reps N] [--top N]``

Needs ``perf`` and ``objdump`` (binutils); no hardware counters (``cpu-clock`` will do).
The solver is compiled with ``NUMBA_DEBUGINFO=1`` into a throw-away cache by a first
process; a second one, under ``perf record``, loads it from that cache, keeps the object
code the JIT links (with its DWARF line tables) and runs the solves. Each sampled address
inside ``alphabeta`` or ``three_tricks`` (compiled as functions of their own) is mapped to
its source line through ``objdump -d -l`` of that very object, and the line to its
function in whichever room of the search (``bazarsim/dd/*.py``) it falls.

Why two processes: a process that compiles holds several copies of the kernels (every
dispatcher links its callees' code again), and the copy a library hands out is not
always the one that runs; mapped through such a copy, four samples in five fell between
instructions and the lines were noise (a loop key that never runs got 7.5 % of BK's
samples). A process that loads from the cache holds one copy. The report checks that the
samples fall on instruction starts of the object and stops otherwise.

Numba files the functions it inlines at its own level (``inline="always"``: the bit scans
of ``core/bits.py``) under the caller's file, so a line is shown with the function of
``core/bits.py`` it falls in too, where there is one. Compilation takes about a minute and
is not counted.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the modules whose functions are inlined into the kernels, by the name shown: every room
# of the search (``dd/*.py``: alphabeta.py, moves.py, table.py...), play.py and bits.py
SOURCES = {
    **{p.name: p for p in sorted((ROOT / "bazarsim" / "dd").glob("*.py"))},
    "play.py": ROOT / "bazarsim" / "rules" / "play.py",
    "bits.py": ROOT / "bazarsim" / "core" / "bits.py",
}
# the search kernel and the functions it calls without inlining them
KERNELS = ("alphabeta", "three_tricks")


def _child(out: Path, seeds: list[int], reps: int, kinds: list[int]) -> None:
    """Load the compiled solver from the cache, dump the object code the JIT links for
    the kernels and their addresses, then run the solves (``reps`` 0: only compile)."""
    from numba.core.codegen import CPUCodeLibrary

    loaded: list[bytes] = []
    load = CPUCodeLibrary._object_getbuffer_hook.__func__

    def keep(cls, ll_module):  # the object code of each library loaded from the cache
        buf = load(cls, ll_module)
        if buf:
            loaded.append(buf)
        return buf

    CPUCodeLibrary._object_getbuffer_hook = classmethod(keep)
    from bazarsim.dd.search import solve_deal
    from bazarsim.dd.solver import Solver

    from .bench_solver import deals

    solver = Solver()
    sets = [deals(16, seed=s) for s in seeds]
    solver.solve(sets[0][0], 0, 1)  # compiles (or loads) solve_deal and what it calls
    if reps == 0:
        return
    lib = solve_deal.overloads[solve_deal.signatures[0]].library
    addrs = {}
    for i, buf in enumerate(loaded):
        obj = out / f"kernel{i}.o"
        obj.write_bytes(buf)
        names = subprocess.run(["nm", "-S", str(obj)], check=True, capture_output=True,
                               text=True).stdout
        for line in names.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2] in "TtWw" and any(k in parts[3] for k in KERNELS):
                addrs[parts[3]] = [obj.name, int(parts[0], 16), int(parts[1], 16),
                                   lib.get_pointer_to_function(parts[3])]
    if not addrs:
        sys.exit("the kernels were not loaded from the cache: nothing to map samples to")
    (out / "symbols.json").write_text(json.dumps(addrs))
    for _ in range(reps):
        for ds in sets:
            for d in ds:
                for kind in kinds:
                    solver.solve(d, kind, 1)


def _functions(path: Path) -> list[tuple[int, int, str]]:
    """``(first line, last line, name)`` of the module's functions; of bits.py only those
    Numba inlines at its own level (``inline="always"``), the only ones whose lines can
    show under another file's name."""
    tree = ast.parse(path.read_text())
    return [(n.lineno, n.end_lineno, n.name) for n in tree.body if isinstance(n, ast.FunctionDef)
            and (path.name != "bits.py" or "inline='always'" in ast.unparse(n))]


def _line_table(obj: Path) -> dict[int, tuple[str, int]]:
    """Object-file address of each instruction -> (source file's name, line); ("", 0)
    where the object names none."""
    dis = subprocess.run(["objdump", "-d", "-l", "--no-show-raw-insn", str(obj)], check=True,
                         capture_output=True, text=True).stdout
    table, where = {}, ("", 0)
    for text in dis.splitlines():
        m = re.match(r"^/\S+/(\w+\.py):(\d+)", text)
        if m:
            where = (m.group(1), int(m.group(2)))
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s", text)
        if m:
            table[int(m.group(1), 16)] = where
    return table


def _report(out: Path, top: int) -> None:
    symbols = json.loads((out / "symbols.json").read_text())
    ips = subprocess.run(["perf", "script", "-i", str(out / "perf.data"), "-F", "ip"],
                         check=True, capture_output=True, text=True).stdout.split()
    tables = {name: _line_table(out / name) for name in {v[0] for v in symbols.values()}}
    starts = {name: sorted(table) for name, table in tables.items()}
    lines: collections.Counter[tuple[str, int]] = collections.Counter()
    per_symbol: collections.Counter[str] = collections.Counter()
    inside = on_start = 0
    for ip in (int(x, 16) for x in ips):
        for sym, (obj, value, size, address) in symbols.items():
            if address <= ip < address + size:
                per_symbol[sym] += 1
                off = value + ip - address
                table, at = tables[obj], starts[obj]
                on_start += off in table
                lines[table[at[max(0, bisect.bisect_right(at, off) - 1)]]] += 1
                inside += 1
                break
    if inside == 0:
        sys.exit("no samples fell inside the kernel (is perf allowed to sample this process?)")
    if on_start < 0.99 * inside:
        sys.exit(f"only {on_start} of {inside} samples fall on an instruction of the object "
                 "code: it is not the code that ran, and its lines would mislead")
    mods = {name: (_functions(path), path.read_text().splitlines())
            for name, path in SOURCES.items()}
    print(f"{len(ips)} samples, {inside} in {', '.join(KERNELS)} ({inside / len(ips):.0%}), "
          "every one on an instruction of the object code\n")
    print("share  compiled function (with what is inlined into it)")
    for sym, n in per_symbol.most_common():
        print(f"{n / inside:6.1%}  {next((k for k in KERNELS if k in sym), sym)}")
    print()
    by_fn: collections.Counter[str] = collections.Counter()
    for where, n in lines.items():
        by_fn[_where(where, mods)] += n
    print("share  function (file:function; core/bits.py's inlined under its caller's file)")
    for name, n in by_fn.most_common(25):
        print(f"{n / inside:6.1%}  {name}")
    print("\nshare   line  function: source")
    for where, n in lines.most_common(top):
        name = _where(where, mods)
        mod = name.split(":")[0]
        src = mods[mod][1] if mod in mods else []
        line = where[1]
        text = src[line - 1].strip() if 0 < line <= len(src) else ""
        print(f"{n / inside:6.1%} {line:5d}  {name}: {text[:70]}")


def _where(where: tuple[str, int], mods: dict) -> str:
    """``file:function`` of a source line. Lines of core/bits.py's inlined helpers carry
    their caller's file, so a line that also falls in a bits.py function names both
    (``a | b``: the search's rooms are short, so a line of theirs can share its number
    with one of bits.py's helpers; the shown source text is the caller's file's)."""
    name, line = where
    found = [f"{mod}:{fn}" for mod in dict.fromkeys((name, "bits.py")) if mod in mods
             for a, b, fn in mods[mod][0] if a <= line <= b]
    return " | ".join(found) or f"{name or '?'}:{line}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[7], help="16 deals per seed")
    ap.add_argument("--reps", type=int, default=20, help="times each deal set is solved")
    ap.add_argument("--top", type=int, default=40, help="source lines to list")
    ap.add_argument("--kinds", type=int, nargs="+", default=list(range(6)),
                    help="contract kinds solved (0-3 suits, 4 BK, 5 VK; default all six)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(Path(args.child), args.seeds, args.reps, args.kinds)
        return 0
    for tool in ("perf", "objdump", "nm"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} not found: install perf and binutils")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        env = dict(os.environ, NUMBA_DEBUGINFO="1", NUMBA_CACHE_DIR=str(out / "cache"),
                   NUMBA_NUM_THREADS="1")
        child = [sys.executable, "-m", "benchmarks.profile_solver", "--child", str(out),
                 "--seeds", *map(str, args.seeds), "--kinds", *map(str, args.kinds)]
        subprocess.run([*child, "--reps", "0"], check=True, env=env, cwd=ROOT)  # compile
        subprocess.run(["perf", "record", "-q", "-o", str(out / "perf.data"), "--", *child,
                        "--reps", str(args.reps)], check=True, env=env, cwd=ROOT)
        _report(out, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
