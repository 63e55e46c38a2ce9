"""Where the search spends its time, per source line: ``perf`` samples of the JIT kernel.

``python -m benchmarks.profile_solver [--seeds S ...] [--kinds K ...] [--reps N] [--top N]``

Needs ``perf`` and ``objdump`` (binutils); no hardware counters (``cpu-clock`` will do).
The solver is compiled afresh with ``NUMBA_DEBUGINFO=1`` in a throw-away cache so that
its object code (with DWARF line tables) can be taken from the process; ``perf record``
samples a run of exact solves; each sampled address inside ``alphabeta`` or
``three_tricks`` (compiled as a function of its own) is mapped to its source line through
``objdump -d -l``. Numba names inlined callees' lines after the caller's file, so a line
number is shown with the function it falls in in each module the search inlines from
(``dd/search.py``, ``rules/play.py``, ``core/bits.py``). Compilation (afresh, with debug
info) takes about seven minutes on a 2-core machine and is not counted.
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
# the modules whose functions are inlined into the kernels, by the name shown
SOURCES = {
    "search.py": ROOT / "bazarsim" / "dd" / "search.py",
    "play.py": ROOT / "bazarsim" / "rules" / "play.py",
    "bits.py": ROOT / "bazarsim" / "core" / "bits.py",
}
# the search kernel and the functions it calls without inlining them
KERNELS = ("alphabeta", "three_tricks")


def _child(out: Path, seeds: list[int], reps: int, kinds: list[int]) -> None:
    """Compile, dump the kernel's object code and addresses, then run the solves."""
    from bazarsim.dd.search import exact_value
    from bazarsim.dd.solver import Solver

    from .bench_solver import deals

    solver = Solver()
    sets = [deals(16, seed=s) for s in seeds]
    solver.solve(sets[0][0], 0, 1)  # compiles exact_value and everything it calls
    lib = exact_value.overloads[exact_value.signatures[0]].library
    obj = out / "kernel.o"
    obj.write_bytes(lib.serialize_using_object_code()[2][0])
    names = subprocess.run(["nm", "-S", str(obj)], check=True, capture_output=True,
                           text=True).stdout
    addrs = {}
    for line in names.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "TtWw" and any(k in parts[3] for k in KERNELS):
            addrs[parts[3]] = [int(parts[0], 16), int(parts[1], 16),
                               lib.get_pointer_to_function(parts[3])]
    (out / "symbols.json").write_text(json.dumps(addrs))
    for _ in range(reps):
        for ds in sets:
            for d in ds:
                for kind in kinds:
                    solver.solve(d, kind, 1)


def _functions(path: Path) -> list[tuple[int, int, str]]:
    tree = ast.parse(path.read_text())
    return [(n.lineno, n.end_lineno, n.name) for n in tree.body if isinstance(n, ast.FunctionDef)]


def _line_table(obj: Path) -> dict[int, int]:
    """Object-file address of each instruction -> source line (0: unknown)."""
    dis = subprocess.run(["objdump", "-d", "-l", "--no-show-raw-insn", str(obj)], check=True,
                         capture_output=True, text=True).stdout
    table, line = {}, 0
    for text in dis.splitlines():
        m = re.match(r"^/\S+\.py:(\d+)", text)
        if m:
            line = int(m.group(1))
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s", text)
        if m:
            table[int(m.group(1), 16)] = line
    return table


def _report(out: Path, top: int) -> None:
    symbols = json.loads((out / "symbols.json").read_text())
    ips = subprocess.run(["perf", "script", "-i", str(out / "perf.data"), "-F", "ip"],
                         check=True, capture_output=True, text=True).stdout.split()
    table = _line_table(out / "kernel.o")
    starts = sorted(table)
    lines: collections.Counter[int] = collections.Counter()
    per_symbol: collections.Counter[str] = collections.Counter()
    inside = 0
    for ip in (int(x, 16) for x in ips):
        for sym, (value, size, address) in symbols.items():
            if address <= ip < address + size:
                per_symbol[sym] += 1
                off = value + ip - address
                i = max(0, bisect.bisect_right(starts, off) - 1)
                lines[table[starts[i]]] += 1
                inside += 1
                break
    if inside == 0:
        sys.exit("no samples fell inside the kernel (is perf allowed to sample this process?)")
    mods = {name: (_functions(path), path.read_text().splitlines())
            for name, path in SOURCES.items()}
    print(f"{len(ips)} samples, {inside} in {', '.join(KERNELS)} ({inside / len(ips):.0%})\n")
    print("share  compiled function (with what is inlined into it)")
    for sym, n in per_symbol.most_common():
        print(f"{n / inside:6.1%}  {next((k for k in KERNELS if k in sym), sym)}")
    print()
    by_fn: collections.Counter[str] = collections.Counter()
    for line, n in lines.items():
        by_fn[_where(line, mods)] += n
    print(f"share  function ({' | '.join(SOURCES)}, where the line number falls)")
    for name, n in by_fn.most_common(25):
        print(f"{n / inside:6.1%}  {name}")
    print("\nshare   line  function: source")
    for line, n in lines.most_common(top):
        where = _where(line, mods)
        name = where.split(":")[0] if ":" in where else "search.py"
        src = mods[name][1]
        text = src[line - 1].strip() if 0 < line <= len(src) else ""
        print(f"{n / inside:6.1%} {line:5d}  {where}: {text[:70]}")


def _where(line: int, mods: dict) -> str:
    found = []
    for name, (fns, _src) in mods.items():
        for a, b, fn in fns:
            if a <= line <= b:
                found.append(f"{name}:{fn}")
    return " | ".join(found) or f"line {line}"


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
        cmd = ["perf", "record", "-q", "-o", str(out / "perf.data"), "--", sys.executable, "-m",
               "benchmarks.profile_solver", "--child", str(out), "--reps", str(args.reps),
               "--seeds", *map(str, args.seeds), "--kinds", *map(str, args.kinds)]
        subprocess.run(cmd, check=True, env=env, cwd=ROOT)
        _report(out, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
