"""Mutation testing of the functions that compute printed numbers: ``make mutants``.

mutmut (a maintained mutation tester: it rewrites each function into many small variants,
a ``<`` for a ``<=``, a ``1`` for a ``0``, a dropped argument..., and runs only the tests
that call that function against each) is run over the Python functions below; a variant
no test notices ("survived") is either equivalent to the original (it computes the same
numbers: listed with its reason in benchmarks/mutants_equivalent.toml) or a hole in the
tests. The kill rate counts the non-equivalent variants; the goal is 95 %. Numba kernels
are decorated, which mutmut leaves alone: each keeps its plain reference in the tests.

Writes reports/mutants.md and reports/mutants.json (every survivor with its reason, or
marked not killed); exits 1 below the goal. ``--only GLOB`` runs a subset (no report).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTMUT = [sys.executable, "-m", "mutmut"]
EQUIVALENT = Path(__file__).resolve().parent / "mutants_equivalent.toml"
GOAL = 0.95

# The functions whose results a command prints (module: function names; methods as
# Class.method). Orchestration, parsing and I/O are left out: their faults show as errors,
# not as wrong numbers, and the bad-input tables check them.
FUNCTIONS = {
    "bazarsim.analysis.stats": ["wilson_interval", "z_score"],
    "bazarsim.analysis.freq": ["_count_batch", "_fours", "frequency_table", "Counter.add"],
    "bazarsim.analysis.bids": ["bid_table", "_rows", "_mark_best", "_quantile", "compare_bids",
                               "declarer_outcome", "score_bids", "bid_scores"],
    "bazarsim.analysis.bias": ["bias_table", "contract_bias_table", "_paired_sums", "_row"],
    "bazarsim.analysis.threshold": ["_class_result", "breakeven", "bootstrap_thresholds",
                                    "bootstrap_draws", "percentile_interval",
                                    "count_threshold_table", "threshold_study"],
    "bazarsim.analysis.convention": ["auc", "calibration", "constant_fitted", "count_metrics",
                                     "cross_fitted", "group_brier", "paired_difference",
                                     "scores", "ValueCounts.add", "convention_study"],
    "bazarsim.analysis.hand": ["_mean_se", "summarize", "rank_bids", "bid_rows",
                               "score_sample", "_z", "Sample.extend"],
    "bazarsim.matches.playoff": ["playoff_summary", "_contract_shares", "score_bands",
                                 "band_edges"],
    "bazarsim.matches.equity": ["derived_rules", "distribution", "equity_grid", "equity_maps",
                                "match_equity", "simulated_vs_dp", "start_equity",
                                "thresholds", "regime_map"],
    "bazarsim.matches.model": ["calibrate", "smooth", "_accumulate"],
    "bazarsim.store.parts": ["check_part", "check_content", "column_digests",
                             "with_content_digest", "run_digest", "damaged_parts",
                             "uncovered", "missing_ranges", "existing_parts"],
    "bazarsim.engine.verify": ["*"],
    "bazarsim.report.records": ["percent", "cell"],
    "bazarsim.simbid.advice": ["advice_rows", "rank_results", "ends", "candidate_calls",
                               "judge_calls", "deal_equity", "draw_worlds"],
    "bazarsim.simbid.outcomes": ["score_contracts", "solve_worlds"],
}


def mutant_globs() -> list[str]:
    """mutmut's names: ``module.x_function__mutmut_N``, ``module.xǁClassǁmethod__mutmut_N``."""
    out = []
    for module, names in FUNCTIONS.items():
        for name in names:
            if name == "*":
                out.append(f"{module}.*")
            elif "." in name:
                cls, meth = name.split(".")
                out.append(f"{module}.xǁ{cls}ǁ{meth}__mutmut_*")
            else:
                out.append(f"{module}.x_{name}__mutmut_*")
    return out


def results() -> dict[str, str]:
    """Every generated mutant's status, from ``mutmut results --all true``."""
    text = subprocess.run([*MUTMUT, "results", "--all", "true"], cwd=ROOT, text=True,
                          capture_output=True, check=True).stdout
    out = {}
    for line in text.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name:
            out[name] = status
    return out


def selected(name: str, globs: list[str]) -> bool:
    import fnmatch

    return any(fnmatch.fnmatchcase(name, g) for g in globs)


def diff_of(name: str) -> str:
    """The changed lines of a mutant (``-old`` then ``+new``), its key in the reasons file."""
    text = subprocess.run([*MUTMUT, "show", name], cwd=ROOT, text=True,
                          capture_output=True).stdout
    lines = [ln for ln in text.splitlines() if ln[:1] in "+-" and not ln.startswith(("---",
                                                                                     "+++"))]
    return "\n".join(" ".join(ln.split()) for ln in lines)


def function_of(name: str) -> str:
    module, _, rest = name.rpartition(".")
    rest = re.sub(r"__mutmut_\d+$", "", rest)
    rest = rest.removeprefix("x_").replace("xǁ", "").replace("ǁ", ".")
    return f"{module}.{rest}"


def load_reasons() -> list[dict]:
    """``[[equivalent]]`` entries: function, the mutant's changed lines, why it is equal."""
    if not EQUIVALENT.exists():
        return []
    return tomllib.loads(EQUIVALENT.read_text(encoding="utf-8")).get("equivalent", [])


def reason_for(function: str, diff: str, reasons: list[dict]) -> str | None:
    squash = " ".join(diff.split())
    for r in reasons:
        if r["function"] == function and " ".join(r["diff"].split()) == squash:
            return r["why"]
    return None


def run(globs: list[str], children: int) -> float:
    # one Numba thread a test process (the children run side by side); the fixtures'
    # datasets written once for the whole run (tests/conftest.py, built_dataset)
    data = ROOT / "mutants" / "test-data"
    data.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, NUMBA_NUM_THREADS="1", BAZARSIM_TEST_DATA=str(data))
    log = ROOT / "mutants" / "mutmut-run.log"
    log.parent.mkdir(exist_ok=True)
    t0 = time.perf_counter()
    with open(log, "w") as f:
        p = subprocess.run([*MUTMUT, "run", "--max-children", str(children), *globs],
                           cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        tail = log.read_text(errors="replace").replace("\r", "\n").splitlines()[-15:]
        raise SystemExit("mutmut run failed:\n" + "\n".join(tail))
    return time.perf_counter() - t0


def report(status: dict[str, str], globs: list[str], seconds: float) -> dict:
    reasons = load_reasons()
    mine = {n: s for n, s in status.items() if selected(n, globs)}
    counts = Counter(mine.values())
    per_function: dict[str, Counter] = defaultdict(Counter)
    survivors = []
    for name, st in sorted(mine.items()):
        fn = function_of(name)
        per_function[fn][st] += 1
        if st in ("survived", "no tests", "suspicious"):
            diff = diff_of(name)
            survivors.append({"mutant": name, "function": fn, "status": st, "diff": diff,
                              "equivalent": reason_for(fn, diff, reasons)})
    equivalent = sum(1 for s in survivors if s["equivalent"])
    live = [s for s in survivors if not s["equivalent"]]
    unchecked = counts.get("not checked", 0)  # a run stopped before them
    considered = len(mine) - unchecked - equivalent
    # a mutant whose tests run past the time limit is detected too: they do not pass
    killed = sum(counts.get(k, 0) for k in ("killed", "timeout", "caught by type check"))
    return {"mutants": len(mine), "not_checked": unchecked, "killed": killed,
            "equivalent": equivalent,
            "not_killed": len(live), "kill_rate": killed / considered if considered else 1.0,
            "goal": GOAL, "seconds": round(seconds), "statuses": dict(counts),
            "per_function": {k: dict(v) for k, v in sorted(per_function.items())},
            "survivors": survivors}


def markdown(r: dict) -> str:
    lines = [
        "# Mutation testing: the functions that compute printed numbers", "",
        "Made by `make mutants` (benchmarks/mutants.py: mutmut over the functions it lists, "
        "each variant run against the tests that call it). A survivor is either equivalent "
        "to the original (same numbers; its reason is in benchmarks/mutants_equivalent.toml) "
        "or a hole in the tests.", "",
        f"* mutants: {r['mutants']:,}"
        + (f", of which **{r['not_checked']:,} not run yet** (the run was stopped)"
           if r.get("not_checked") else "")
        + f"; killed (or timed out) {r['killed']:,}; equivalent {r['equivalent']:,}; "
        f"not killed {r['not_killed']:,}",
        f"* kill rate of the non-equivalent mutants: **{100 * r['kill_rate']:.1f} %** "
        f"(goal {100 * r['goal']:.0f} %)",
        (f"* time: {r['seconds'] / 60:.0f} min on {os.cpu_count()} cores for the whole run"
         + (f", then {r['retest_seconds'] / 60:.0f} min re-running the survivors against the "
            "tests added since" if r.get("retest_seconds") else "")
         if r["seconds"] else "* time: not measured in one run (a stopped run: see "
         "reports/mutants-notes.md)"), "",
        "## Per function", "",
        "| function | mutants | killed | timed out | survived | not run yet |",
        "|---|---:|---:|---:|---:|---:|"]
    for fn, c in r["per_function"].items():
        lines.append(f"| `{fn}` | {sum(c.values())} | {c.get('killed', 0)} | "
                     f"{c.get('timeout', 0)} | {c.get('survived', 0)} | "
                     f"{c.get('not checked', 0)} |")
    lines += ["", "## Survivors", ""]
    if not r["survivors"]:
        lines.append("None.")
    for s in r["survivors"]:
        why = s["equivalent"] or "**not killed yet**"
        diff = s["diff"].replace("\n", " ⟶ ").replace("|", "\\|")
        lines.append(f"* `{s['mutant']}` ({s['status']}): `{diff}`: {why}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="mutant name globs (default: every function "
                    "listed in FUNCTIONS)")
    ap.add_argument("--children", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--report-only", action="store_true",
                    help="write the report from the last run's results")
    ap.add_argument("--survivors", action="store_true",
                    help="run again only the last run's survivors (after new tests), then "
                    "write the report")
    ap.add_argument("--resume", action="store_true",
                    help="with --survivors: also the mutants a stopped run did not reach")
    args = ap.parse_args(argv)
    globs = args.only or mutant_globs()
    last = ROOT / "reports" / "mutants.json"
    before = json.loads(last.read_text()) if last.exists() else {}
    retest = 0.0
    if args.survivors or args.report_only:
        seconds = before.get("seconds", 0.0)
        if args.survivors:
            again = ("survived", "no tests", "suspicious") + (
                ("not checked",) if args.resume else ())
            names = [n for n, st in results().items() if selected(n, globs) and st in again]
            retest = run(names, args.children) if names else 0.0
    else:
        seconds = run(globs, args.children)
    r = report(results(), globs, seconds)
    r["retest_seconds"] = round(retest + (before.get("retest_seconds", 0.0)
                                          if args.survivors or args.report_only else 0.0))
    print(f"{r['mutants']:,} mutants: {r['killed']:,} killed, {r['equivalent']:,} equivalent, "
          f"{r['not_killed']:,} not killed; kill rate {100 * r['kill_rate']:.1f} % "
          f"({r['seconds'] / 60:.0f} min)")
    if not args.only:
        (ROOT / "reports" / "mutants.json").write_text(json.dumps(r, indent=1) + "\n")
        (ROOT / "reports" / "mutants.md").write_text(markdown(r))
        print("wrote reports/mutants.md and reports/mutants.json")
    return 0 if r["kill_rate"] >= GOAL else 1


if __name__ == "__main__":
    raise SystemExit(main())
