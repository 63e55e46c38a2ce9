"""Benchmark runner: ``python -m benchmarks.run [--quick] [--only GROUP ...]``.

Every module ``benchmarks/bench_*.py`` exposes ``collect(quick: bool) -> list[dict]``
(rows made with :func:`benchmarks.common.row`). The runner prints one table and writes
``reports/benchmarks.json`` and ``reports/benchmarks.md``, then rewrites the figures the
README and docs quote from them (:mod:`benchmarks.figures`). With ``--only`` the other
modules' rows are kept from the last report, so every row carries the date of the run
that measured it and each section of the Markdown says when it was measured: a page that
mixes runs must not read as one.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import pkgutil
import platform
from pathlib import Path

import numba

import bazarsim
from benchmarks.common import check_how

REPORTS = Path(__file__).resolve().parent.parent / "reports"
# The date shown for rows kept from reports written before rows carried their own.
UNDATED = "before rows were dated"


def discover() -> list[str]:
    here = Path(__file__).resolve().parent
    return sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))


def machine() -> dict:
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "bazarsim": bazarsim.__version__,
        "cpus": os.cpu_count(),
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "processor": platform.processor() or platform.machine(),
    }


def fmt_value(v: float) -> str:
    if v >= 1e6:
        return f"{v / 1e6:,.2f} M"
    if v >= 1e3:
        return f"{v / 1e3:,.2f} k"
    if v >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def to_markdown(meta: dict, rows: list[dict]) -> str:
    dates = {r.get("measured", UNDATED) for r in rows}
    one_run = dates <= {meta["date"]}
    lines = [
        "# Benchmarks",
        "",
        f"Written by `make bench` on {meta['date']} (Python {meta['python']}, "
        f"Numba {meta['numba']}, {meta['cpus']} CPUs, bazarsim {meta['bazarsim']}); "
        + ("every section in this run." if one_run else
           "sections from earlier runs (`--only`) say when they were measured."),
        "JIT warm-up excluded; each row's note says how it was measured (median or best "
        "of how many runs, one run, or derived from other rows). Compare rows of one run "
        "(ratios): the machine is shared and noisy.",
        "",
    ]
    group = None
    for r in rows:
        if r["group"] != group:
            group = r["group"]
            lines += ["", f"## {group}", ""]
            if not one_run:
                when = {q.get("measured", UNDATED) for q in rows if q["group"] == group}
                lines += [f"Measured {', '.join(sorted(when))}.", ""]
            lines += ["| benchmark | value | unit | note |", "|---|---:|---|---|"]
        lines.append(f"| {r['name']} | {fmt_value(r['value'])} | {r['unit']} | {r['note']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="smaller inputs, fewer repeats")
    ap.add_argument("--only", nargs="*", help="benchmark modules to run (e.g. bench_eval)")
    ap.add_argument("--out", default=str(REPORTS), help="where to write the reports")
    args = ap.parse_args(argv)
    names = [n for n in discover() if not args.only or n in args.only]
    rows: list[dict] = []
    meta = machine()
    for name in names:
        print(f"running {name} ...", flush=True)
        mod = importlib.import_module(f"benchmarks.{name}")
        new = mod.collect(quick=args.quick)
        for r in new:
            check_how(r)
            r["measured"] = meta["date"]
            print(f"  {r['group']:<28} {r['name']:<52} {fmt_value(r['value']):>12} "
                  f"{r['unit']:<10} {r['note']}")
        rows += new
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"machine": meta, "results": rows}
    # Merge with results of modules not run this time, so --only keeps the others.
    jpath = out / "benchmarks.json"
    if args.only and jpath.exists():
        old = json.loads(jpath.read_text())
        ran = {r["group"] for r in rows}
        payload["results"] = [r for r in old.get("results", []) if r["group"] not in ran] + rows
    jpath.write_text(json.dumps(payload, indent=2) + "\n")
    (out / "benchmarks.md").write_text(to_markdown(meta, payload["results"]))
    print(f"wrote {jpath} and {out / 'benchmarks.md'}")
    if out.resolve() == REPORTS.resolve():  # the docs quote this report's figures
        from benchmarks.figures import fill_documents

        for path in fill_documents(jpath):
            print(f"filled the figures of {path.name}")


if __name__ == "__main__":
    main()
