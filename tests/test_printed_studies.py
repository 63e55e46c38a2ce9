"""Every figure `study threshold`, `study convention`, `match`, `equity` and `fit` print,
against a plain computation from the raw rows (issue 63, point 1).

One small DD-solved bazar-blot dataset (120 deals, hearts and no trump) feeds every
command, each run through the command line with non-default options (`--target`,
`--within`, `--level`, `--bins`, `--seed`, `--prior`, `--to`, `--step`,
`--threshold-step`). The references below read the dataset's Parquet rows, the
play-off's Parquet parts and the policy files with pandas and plain Python, score with
tests/naive_scoring.py, hash deals with a SplitMix64 written here, fit with a plain
pool-adjacent-violators loop and solve the match equity by a memoised recursion; none
calls the helper it checks. JSON is compared with them to 1e-9 (the equity's 4-decimal
JSON to its rounding) and every number of the Markdown output with the reference
rounded as printed.
"""

from __future__ import annotations

import functools
import json
import math
import re
import sys
import tomllib
import warnings
from collections import Counter
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.engine.simulation import Simulation
from bazarsim.matches.playoff import F_CAPOT, F_CAPOT_CONTRA, F_MADE, F_REVERSE
from bazarsim.rules.rulesets import get_ruleset
from tests.naive_match import verdict
from tests.naive_scoring import score as naive_score

from .conftest import built_dataset, disk_cached

RULESET = "bazar-blot"
DEALS = 120
SEATS = "NESW"
H, BK = 1, 4
M64 = (1 << 64) - 1
Z95 = NormalDist().inv_cdf(0.975)


# --------------------------------------------------------------------------- plain helpers


@functools.cache
def _command():
    return typer.main.get_command(app)


def run(*args) -> str:
    """The command's standard output; it must exit 0. (The command line is built once:
    ``CliRunner.invoke`` rebuilds it from the app every time, a tenth of a second each.)"""
    with CliRunner().isolation(env={"COLUMNS": "200"}) as (out, err, _mixed):
        try:
            _command().main([str(a) for a in args], prog_name="bazarsim")
        except SystemExit as exit_:
            assert exit_.code in (0, None), err.getvalue().decode()
        return out.getvalue().decode()


def deal_hash(deal: int, seed: int) -> int:
    """The documented seeded hash of a deal index: SplitMix64's finaliser of
    ``deal + seed * GAMMA + 1`` (mod 2^64)."""
    z = (deal + seed * 0x9E3779B97F4A7C15 + 1) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def pav(y, w) -> list[float]:
    """Non-decreasing weighted least-squares fit: pool adjacent blocks out of order."""
    blocks = []  # [sum of w*y, sum of w, size]
    for a, b in zip(y, w, strict=True):
        blocks.append([a * b, b, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, ww, k = blocks.pop()
            blocks[-1] = [blocks[-1][0] + s, blocks[-1][1] + ww, blocks[-1][2] + k]
    return [s / ww for s, ww, k in blocks for _ in range(k)]


def wilson(k: int, n: int) -> tuple[float, float]:
    p = k / n
    den = 1 + Z95 ** 2 / n
    mid = (p + Z95 ** 2 / (2 * n)) / den
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / den
    return (0.0 if k == 0 else max(0.0, mid - half)), (1.0 if k == n else min(1.0, mid + half))


def close(got, want, tol=1e-9) -> bool:
    if want is None or (isinstance(want, float) and math.isnan(want)):
        return got is None
    return got is not None and math.isclose(got, want, rel_tol=tol, abs_tol=tol)


def shown(cell: str, value: float | None, spec: str, scale: float = 1.0) -> bool:
    """``cell`` is ``value * scale`` formatted with ``spec`` (either neighbour at an exact
    rounding boundary, as the reference may differ from the command in the last bit)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return cell == ""
    x = value * scale
    eps = 1e-9 * max(1.0, abs(x))
    return cell in {format(x - eps, spec), format(x, spec), format(x + eps, spec)}


def md_tables(text: str) -> list[tuple[str, list[dict]]]:
    """The Markdown tables of an output: (title, rows as dicts of cells)."""
    out, title, lines = [], "", text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("### "):
            title = line[4:]
        elif line.startswith("| ") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            head = [c.strip() for c in line.strip("|").split("|")]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                rows.append(dict(zip(head, cells, strict=True)))
                i += 1
            out.append((title, rows))
            continue
        i += 1
    return out


def table_titled(text: str, start: str) -> list[dict]:
    (rows,) = [r for t, r in md_tables(text) if t.startswith(start)]
    return rows


# --------------------------------------------------------------------------- the rows


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The DD-solved dataset every command reads (kept across processes by make mutants)."""
    return built_dataset(tmp_path_factory, "printed-studies", Simulation(
        deals=DEALS, seed=5, ruleset=get_ruleset(RULESET), kinds=(H, BK), columns="lean",
        dd=True, chunk=DEALS))


@functools.cache
def dataset_rows(path) -> pd.DataFrame:
    frames = [pd.read_parquet(p) for p in sorted(Path(path).glob("part-*.parquet"))]
    return pd.concat(frames).sort_values("index").reset_index(drop=True)


def bit(hand: int, suit: int, rank: int) -> int:
    """Card ``rank`` (7 8 9 T J Q K A = 0..7) of ``suit`` (S H D C = 0..3) held."""
    return hand >> (8 * suit + rank) & 1


def hand_features(hand: int, kind: int, row, seat: str, kn: str) -> dict:
    trump_suits = [kind] if kind < 4 else []
    return {
        "points": int(row[f"{seat}_{kn}_points"]),
        "declarations": int(row[f"{seat}_{kn}_declarations"]),
        "trumps": sum(bit(hand, s, r) for s in trump_suits for r in range(8)),
        "jack": sum(bit(hand, s, 4) for s in trump_suits),
        "nine": sum(bit(hand, s, 2) for s in trump_suits),
        "aces": sum(bit(hand, s, 7) for s in range(4)),
        "bela": sum(bit(hand, s, 5) & bit(hand, s, 6) for s in trump_suits),
    }


def deal_outcome(row, kind: int, kn: str, rs):
    ns = int(row[f"{kn}_dd_ns"])
    cap = int(row[f"{kn}_dd_capot"])
    points = (ns, rs.total_points(kind) - ns)
    tricks = (8, 0) if cap == 1 else (0, 8) if cap == 2 else (4, 4)
    decl = (int(row[f"{kn}_declarations_ns"]), int(row[f"{kn}_declarations_ew"]))
    bela = (int(row[f"{kn}_bela_ns"]), int(row[f"{kn}_bela_ew"]))
    return points, tricks, decl, bela


@disk_cached()  # plain Python over the dataset's rows: nothing of bazarsim's
def declarer_rows(path, kind: int, level: int) -> pd.DataFrame:
    """Every (deal, seat) as the declarer of ``level`` in ``kind``: the hand's features,
    made, and the declarers' score minus the defenders' (tests/naive_scoring.py)."""
    rs = get_ruleset(RULESET)
    kn = "H" if kind == H else "BK"
    out = []
    for _, row in dataset_rows(path).iterrows():
        points, tricks, decl, bela = deal_outcome(row, kind, kn, rs)
        for seat in range(4):
            side = seat & 1
            made, _m, ns, ew, _c = naive_score(rs, level, kind, side, 0, False, points, tricks,
                                               decl, bela)
            out.append({"deal": int(row["index"]), "seat": seat, "made": int(made),
                        "score": (ns - ew) if side == 0 else (ew - ns),
                        **hand_features(int(row[SEATS[seat]]), kind, row, SEATS[seat], kn)})
    return pd.DataFrame(out)


# --------------------------------------------------------------------------- threshold


def threshold_reference(rows: pd.DataFrame, target: float | None, replicates: int, seed: int,
                        groups: int = 256) -> dict:
    """One class: counts per value, break-even or target, monotone fit, threshold, and the
    cluster bootstrap's replicate thresholds (groups of deals by the seeded hash, drawn with
    replacement from ``default_rng(seed)``, as documented)."""
    values = sorted(rows["points"].unique())
    n = rows.groupby("points")["made"].size().reindex(values).to_numpy(float)
    made = rows.groupby("points")["made"].sum().reindex(values).to_numpy(float)
    s_made = rows.loc[rows.made == 1, "score"].sum()
    s_failed = rows.loc[rows.made == 0, "score"].sum()

    def goal(nm, nf, sm, sf):
        if target is not None:
            return target
        if nf == 0:
            return 0.0
        if nm == 0 or sm / nm - sf / nf <= 0:
            return math.inf
        return -(sf / nf) / (sm / nm - sf / nf)

    def first(nv, mv, t):
        seen = [i for i in range(len(values)) if nv[i] > 0]
        fit = pav([mv[i] / nv[i] for i in seen], [nv[i] for i in seen])
        return next((float(values[i]) for i, f in zip(seen, fit, strict=True)
                     if f >= t - 1e-12), math.inf)

    t = goal(made.sum(), n.sum() - made.sum(), s_made, s_failed)
    group = np.array([deal_hash(int(d), seed) % groups for d in rows["deal"]])
    vi = np.searchsorted(values, rows["points"].to_numpy())
    per = np.zeros((groups, len(values), 4))  # n, made, score made, score failed
    m = rows["made"].to_numpy()
    sc = rows["score"].to_numpy(float)
    np.add.at(per, (group, vi, 0), 1)
    np.add.at(per, (group, vi, 1), m)
    np.add.at(per, (group, vi, 2), sc * m)
    np.add.at(per, (group, vi, 3), sc * (1 - m))
    draws = np.random.default_rng(seed).integers(0, groups, size=(replicates, groups))
    boot = []
    for b in range(replicates):
        pooled = np.tensordot(np.bincount(draws[b], minlength=groups), per, 1)  # drawn groups
        nb, mb = pooled[:, 0], pooled[:, 1]
        boot.append(first(nb, mb, goal(mb.sum(), nb.sum() - mb.sum(), pooled[:, 2].sum(),
                                       pooled[:, 3].sum())))
    return {"values": values, "n": n, "made": made, "target": t,
            "fitted": pav(list(made / n), list(n)), "threshold": first(n, made, t),
            "boot": np.array(boot), "mean_made": s_made / made.sum(),
            "mean_failed": s_failed / (n.sum() - made.sum())}


def check_interval(lo, hi, boot):
    """``lo .. hi`` is a 2.5th .. 97.5th percentile of the replicates: at most 2.5 % of them
    lie below lo and at least 2.5 % at or below it; the same above hi (None: never reached,
    above every value)."""
    b = len(boot)
    lo = math.inf if lo is None else lo
    hi = math.inf if hi is None else hi
    assert lo in boot and hi in boot
    assert (boot < lo).sum() <= 0.025 * b <= (boot <= lo).sum()
    assert (boot > hi).sum() <= 0.025 * b <= (boot >= hi).sum()
    assert lo <= hi


def check_threshold_class(got: dict, ref: dict, replicates: int):
    assert got["n"] == int(ref["n"].sum()) and got["made"] == int(ref["made"].sum())
    assert close(got["p_make"], ref["made"].sum() / ref["n"].sum())
    assert close(got["mean_score_made"], ref["mean_made"])
    assert close(got["mean_score_failed"], ref["mean_failed"])
    assert close(got["target"], ref["target"])
    thr = ref["threshold"]
    assert got["threshold"] == (None if math.isinf(thr) else thr)
    assert (got["lowest_value"], got["highest_value"]) == (ref["values"][0], ref["values"][-1])
    assert close(got["share_not_reached"], float(np.isinf(ref["boot"]).mean()))
    assert len(ref["boot"]) == replicates
    check_interval(got["ci_low"], got["ci_high"], ref["boot"])
    assert [r["points"] for r in got["rows"]] == ref["values"]
    for r, n, m, f in zip(got["rows"], ref["n"], ref["made"], ref["fitted"], strict=True):
        lo, hi = wilson(int(m), int(n))
        assert (r["n"], r["made"]) == (n, m)
        assert close(r["p_make"], m / n) and close(r["fitted"], f)
        assert close(r["ci_low"], lo) and close(r["ci_high"], hi)
        assert r["reaches"] == (f >= ref["target"] - 1e-12)


def threshold_value(v, lowest) -> str:
    if v is None:
        return "not reached"
    return f"<= {v:g}" if v <= lowest else f"{v:g}"


def test_threshold_study_against_the_rows(data):
    """9H by hand points, per trumps class, --target 0.6 (200 replicates, seed 11), and
    the break-even of 8H (100 replicates): every JSON figure and every Markdown cell."""
    args = ["study", "threshold", data, "--kinds", "H", "--level", "9", "--by", "points",
            "--within", "trumps=0..2,3..", "--target", "0.6", "--bootstrap", "200",
            "--seed", "11"]
    res = json.loads(run(*args, "-f", "json"))
    md = run(*args, "-f", "md")
    rows = declarer_rows(data, H, 9)
    classes = {"0..2": rows[rows.trumps <= 2], "3..": rows[rows.trumps >= 3]}
    assert [c["trumps"] for c in res["classes"]] == list(classes)
    summary = table_titled(md, "Threshold of points for 9H per trumps")
    refs = {}
    for c, cell in zip(res["classes"], summary, strict=True):
        ref = refs[c["trumps"]] = threshold_reference(classes[c["trumps"]], 0.6, 200, 11)
        check_threshold_class(c, ref, 200)
        low = ref["values"][0]
        want = {"trumps": c["trumps"], "n": f"{int(ref['n'].sum()):,}",
                "points threshold": threshold_value(c["threshold"], low),
                "95% interval": f"{threshold_value(c['ci_low'], low)} .. "
                                f"{threshold_value(c['ci_high'], low)}"}
        assert {k: cell[k] for k in want} == want
        assert shown(cell["make %"], ref["made"].sum() / ref["n"].sum(), ".1f", 100)
        assert shown(cell["target %"], 0.6, ".1f", 100)
        made_s, failed_s = cell["score made / failed"].split(" / ")
        assert shown(made_s, ref["mean_made"], "+.1f")
        assert shown(failed_s, ref["mean_failed"], "+.1f")
        assert shown(cell["not reached %"], float(np.isinf(ref["boot"]).mean()), ".0f", 100)
        table = table_titled(md, f"9H: P(make) by points, trumps {c['trumps']}")
        assert [int(r["points"]) for r in table] == ref["values"]
        for r, n, m, f in zip(table, ref["n"], ref["made"], ref["fitted"], strict=True):
            lo, hi = wilson(int(m), int(n))
            assert (r["n"], r["made"]) == (f"{int(n):,}", f"{int(m):,}")
            assert shown(r["make %"], m / n, ".1f", 100) and shown(r["fitted %"], f, ".1f", 100)
            a, b = r["95% interval"].split(" .. ")
            assert shown(a, lo, ".1f", 100) and shown(b, hi, ".1f", 100)
            assert r["reaches"] == ("yes" if f >= 0.6 - 1e-12 else "")
    # the --target changes the threshold here: a study that ignored it would fail above
    broken = [threshold_reference(classes[k], None, 10, 11)["threshold"] for k in classes]
    assert broken != [refs[k]["threshold"] for k in classes]
    assert any(c["ci_low"] != c["ci_high"] for c in res["classes"])  # the ends are distinct

    res = json.loads(run("study", "threshold", data, "--kinds", "H", "--level", "8", "--by",
                         "points", "--bootstrap", "100", "--seed", "4", "-f", "json"))
    (c,) = res["classes"]
    ref = threshold_reference(declarer_rows(data, H, 8), None, 100, 4)
    assert res["target_rule"] == "break-even" and 0 < ref["target"] < 1
    check_threshold_class(c, ref, 100)
    p = c["target"]  # where the expected score equals passing (0)
    assert math.isclose(p * ref["mean_made"] + (1 - p) * ref["mean_failed"], 0, abs_tol=1e-9)


def test_threshold_within_another_kind_and_uncovered_values(data):
    """9H by points within hand points counted in BK (``@BK``), one bucket that leaves
    most rows out: the class holds exactly the rows whose BK points are in it, and a
    feature x class table over the cell limit is one error line."""
    from bazarsim.analysis.threshold import threshold_study
    from bazarsim.core.errors import BazarsimError

    res = json.loads(run("study", "threshold", data, "--kinds", "H", "--level", "9", "--by",
                         "points", "--within", "points@BK=30..45", "--target", "0.5",
                         "--bootstrap", "20", "--seed", "2", "-f", "json"))
    rows = declarer_rows(data, H, 9)
    bk = declarer_rows(data, BK, 8)
    assert (rows[["deal", "seat"]].to_numpy() == bk[["deal", "seat"]].to_numpy()).all()
    inside = rows[(bk["points"] >= 30) & (bk["points"] <= 45)]
    assert 0 < len(inside) < len(rows) and not inside["points"].equals(bk.loc[inside.index,
                                                                              "points"])
    (c,) = res["classes"]
    assert c["points@BK"] == "30..45"
    check_threshold_class(c, threshold_reference(inside, 0.5, 20, 2), 20)
    within = "declarations=" + ",".join(str(i) for i in range(41))  # 41 x 200 values
    with pytest.raises(BazarsimError, match=r"^points within declarations: 8,200 cells, "
                       r"more than 8,192"):
        threshold_study(data, "H", "points", level=9, within=within)


# --------------------------------------------------------------------------- convention


BUILTIN = {"hand points": {"points": 1},
           "points + declarations": {"points": 1, "declarations": 1, "bela": 20},
           "trumps + aces": {"trumps": 1, "aces": 1},
           "J+9 of trump": {"jack": 20, "nine": 14}}


def convention_reference(rows: pd.DataFrame, counts: dict, seed: int, bins: int) -> dict:
    """Per count: AUC by counting pairs, the cross-fitted monotone fit's Brier and log-loss
    (halves and 64 groups of deals by the seeded hash), the constant prediction's, the
    calibration bins; then each count's Brier minus the best's with its group SE."""
    h = [deal_hash(int(d), seed ^ 0x5EED) for d in rows["deal"]]
    fold = np.array([x & 1 for x in h])
    group = np.array([(x >> 1) % 64 for x in h])
    y = rows["made"].to_numpy(float)
    out = {}
    for name, terms in counts.items():
        x = sum(rows[f].to_numpy(float) * c for f, c in terms.items())
        pos, neg = x[y == 1], x[y == 0]
        auc = ((pos[:, None] > neg[None, :]).sum()
               + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
        p = np.empty(len(x))
        const = np.empty(len(x))
        for half in (0, 1):
            other = fold != half
            vals = np.unique(x[other])
            fit = pav([y[other & (x == v)].mean() for v in vals],
                      [float((other & (x == v)).sum()) for v in vals])
            p[fold == half] = np.interp(x[fold == half], vals, fit)
            const[fold == half] = y[other].mean()
        q = np.clip(p, 1e-3, 1 - 1e-3)
        q0 = np.clip(const, 1e-3, 1 - 1e-3)
        err = (q - y) ** 2
        cal = []
        b = np.minimum((p * bins).astype(int), bins - 1)
        for k in range(bins):
            s = b == k
            if s.any():
                cal.append({"bin": f"{100 * k // bins}-{100 * (k + 1) // bins}%",
                            "n": int(s.sum()), "mean_predicted": p[s].mean(),
                            "observed": y[s].mean(), "count_min": x[s].min(),
                            "count_max": x[s].max()})
        out[name] = {
            "n": len(x), "p_make": y.mean(), "auc": auc, "brier": err.mean(),
            "brier_constant": ((q0 - y) ** 2).mean(),
            "log_loss": -(y * np.log(q) + (1 - y) * np.log(1 - q)).mean(),
            "log_loss_constant": -(y * np.log(q0) + (1 - y) * np.log(1 - q0)).mean(),
            "calibration": cal, "err": err,
        }
    best = min(out, key=lambda k: out[k]["brier"])
    for r in out.values():
        r["brier_skill"] = 1 - r["brier"] / r["brier_constant"]
        d = r["err"] - out[best]["err"]
        dg = np.bincount(group, weights=d, minlength=64)
        ng = np.bincount(group, minlength=64)
        g = (ng > 0).sum()
        r["brier_vs_best"] = d.mean()
        r["se_vs_best"] = math.sqrt(g / (g - 1) * ((dg - d.mean() * ng) ** 2).sum()) / len(d)
        r["best"] = r is out[best]
    return out


def test_convention_study_against_the_rows(data):
    """9H: a formula and the built-in counts, --bins 7, --seed 3: AUC, Brier, log-loss,
    constant prediction, skill, difference to the best with its SE, calibration bins."""
    args = ["study", "convention", data, "--kinds", "H", "--level", "9", "--formula",
            "points + 10*trumps", "--compare", "--bins", "7", "--seed", "3"]
    res = json.loads(run(*args, "-f", "json"))
    md = run(*args, "-f", "md")
    rows = declarer_rows(data, H, 9)
    counts = {"formula": {"points": 1, "trumps": 10}, **BUILTIN}
    ref = convention_reference(rows, counts, 3, 7)
    assert res["n"] == len(rows) and close(res["p_make"], rows["made"].mean())
    assert [c["name"] for c in res["counts"]] == list(counts)
    summary = table_titled(md, "Counts predicting 9H")
    assert shown(re.search(r"make ([\d.]+)%", md).group(1), rows["made"].mean(), ".1f", 100)
    assert f"n = {len(rows):,} declarer rows" in md
    for c, cell in zip(res["counts"], summary, strict=True):
        r = ref[c["name"]]
        assert c["n"] == r["n"] and c["best"] == r["best"]
        for key in ("p_make", "auc", "brier", "brier_constant", "brier_skill", "log_loss",
                    "log_loss_constant", "brier_vs_best"):
            assert close(c[key], r[key]), (c["name"], key)
        assert close(c["se_vs_best"], 0.0 if r["best"] else r["se_vs_best"]), c["name"]
        assert [b["bin"] for b in c["calibration"]] == [b["bin"] for b in r["calibration"]]
        for got, want in zip(c["calibration"], r["calibration"], strict=True):
            assert got["n"] == want["n"]
            for key in ("mean_predicted", "observed", "count_min", "count_max"):
                assert close(got[key], want[key]), (c["name"], got["bin"], key)
        assert shown(cell["AUC"], r["auc"], ".3f")
        brier, const = re.fullmatch(r"(\S+) \((\S+)\)", cell["Brier (constant)"]).groups()
        assert shown(brier, r["brier"], ".4f") and shown(const, r["brier_constant"], ".4f")
        loss, const = re.fullmatch(r"(\S+) \((\S+)\)", cell["log-loss (constant)"]).groups()
        assert shown(loss, r["log_loss"], ".4f") and shown(const, r["log_loss_constant"], ".4f")
        assert shown(cell["skill %"], r["brier_skill"], ".1f", 100)
        assert cell["best"] == ("best" if r["best"] else "")
        if r["best"]:
            assert cell["Brier vs best"] == ""
        else:
            diff, se = cell["Brier vs best"].split(" ± ")
            assert shown(diff, r["brier_vs_best"], "+.4f") and shown(se, r["se_vs_best"], ".4f")
        table = table_titled(md, f"Calibration of {c['name']} (")
        assert [t["predicted"] for t in table] == [b["bin"] for b in r["calibration"]]
        for t, b in zip(table, r["calibration"], strict=True):
            assert t["n"] == f"{b['n']:,}"
            assert shown(t["mean predicted %"], b["mean_predicted"], ".1f", 100)
            assert shown(t["observed %"], b["observed"], ".1f", 100)
            lo, hi = b["count_min"], b["count_max"]
            assert t["count"] == (f"{lo:g}" if lo == hi else f"{lo:g} .. {hi:g}")
    assert sum(r["best"] for r in ref.values()) == 1 and 0.5 < ref["formula"]["auc"] < 1


FIT_TEXT = ("monotone (isotonic) fit of make on the count, cross-fitted: fitted on one half "
            "of the deals, scored on the other (2 folds by a seeded hash of the deal index)")


def test_convention_one_count_two_seats(data):
    """One formula (no comparison: no best, difference 0 with SE 0), two declarer seats,
    --bins 2 (the smallest allowed): every figure against the rows of seats N and E, and
    the study's description (dataset, play, bid, level, contra, seed, folds, fit)."""
    res = json.loads(run("study", "convention", data, "--kinds", "H", "--level", "9",
                         "--formula", "points", "--bins", "2", "--seat", "N,E", "--seed", "8",
                         "-f", "json"))
    rows = declarer_rows(data, H, 9)
    rows = rows[rows.seat.isin([0, 1])]
    ref = convention_reference(rows, {"formula": {"points": 1}}, 8, 2)["formula"]
    assert {k: res[k] for k in ("dataset", "play", "bid", "kind", "level", "contra", "seed",
                                "folds", "fit")} == {
        "dataset": str(data), "play": "dd", "bid": "9H", "kind": "H", "level": 9,
        "contra": 0, "seed": 8, "folds": 2, "fit": FIT_TEXT}
    assert res["n"] == len(rows) and close(res["p_make"], rows["made"].mean())
    (c,) = res["counts"]
    assert (c["name"], c["n"], c["values"]) == ("formula", len(rows), rows.points.nunique())
    assert c["best"] is False and c["brier_vs_best"] == 0.0 and c["se_vs_best"] == 0.0
    for key in ("p_make", "auc", "brier", "brier_constant", "brier_skill", "log_loss",
                "log_loss_constant"):
        assert close(c[key], ref[key]), key
    assert [(b["bin"], b["n"]) for b in c["calibration"]] == [
        (b["bin"], b["n"]) for b in ref["calibration"]]
    assert {b["bin"] for b in c["calibration"]} <= {"0-50%", "50-100%"}
    for got, want in zip(c["calibration"], ref["calibration"], strict=True):
        for key in ("mean_predicted", "observed", "count_min", "count_max"):
            assert close(got[key], want[key]), (got["bin"], key)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Two DD deals: few enough that a seed puts both in one half, or the two halves in
    one group of deals."""
    return built_dataset(tmp_path_factory, "printed-studies-tiny", Simulation(
        deals=2, seed=8, ruleset=get_ruleset(RULESET), kinds=(H,), columns="lean", dd=True,
        sd=2, chunk=2))


def test_convention_degenerate_halves(tiny):
    """Both deals in one half: no row has a prediction, so every Brier, log-loss and
    difference is missing, no count is best, and nothing divides by zero on the way. The
    halves in one group of deals: one group, no SE but the best count's own 0. Then
    --bins at its bounds and a bid no row makes (one error line)."""
    from bazarsim.analysis.convention import convention_study
    from bazarsim.core.errors import BazarsimError

    rows = declarer_rows(tiny, H, 8)

    def split(seed):
        h = [deal_hash(d, seed ^ 0x5EED) for d in (0, 1)]
        return h[0] & 1 == h[1] & 1, (h[0] >> 1) % 64 == (h[1] >> 1) % 64

    one_half = next(s for s in range(1000) if split(s)[0])
    one_group = next(s for s in range(10 ** 5) if split(s) == (False, True))
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*divide")
        res = convention_study(tiny, "H", level=8, seed=one_half)
    assert res["n"] == len(rows) == 8 and close(res["p_make"], rows["made"].mean())
    for c in res["counts"]:
        assert c["best"] is False
        for key in ("brier", "log_loss", "brier_constant", "brier_skill", "brier_vs_best",
                    "se_vs_best"):
            assert math.isnan(c[key]), (c["name"], key)
    res = convention_study(tiny, "H", level=8, seed=one_group, bins=100)
    with np.errstate(divide="ignore", invalid="ignore"):  # its SE over one group
        ref = convention_reference(rows, BUILTIN, one_group, 100)
    best = [c for c in res["counts"] if c["best"]]
    assert len(best) == 1 and best[0]["se_vs_best"] == 0.0
    for c in res["counts"]:
        assert close(c["brier"], ref[c["name"]]["brier"])
        assert close(c["brier_vs_best"], c["brier"] - best[0]["brier"])
        assert c is best[0] or math.isnan(c["se_vs_best"])
        assert [b["bin"] for b in c["calibration"]] == [
            b["bin"] for b in ref[c["name"]]["calibration"]]
    with pytest.raises(BazarsimError, match=r"--bins 101: use 2 \.\. 100"):
        convention_study(tiny, "H", level=8, bins=101)
    with pytest.raises(BazarsimError, match=r"^17H: made by none of the 8 declarer rows of "
                       r".*: no prediction to find$"):
        convention_study(tiny, "H", level=17)


def test_convention_single_dummy_and_ruleset_bids(tiny):
    """--play sd: the rows made or failed as the PIMC play-out says (H_sd_ns, H_sd_capot),
    not as the DD solver does; and a bid's kind is read in the dataset's ruleset (no VK in
    bazar-blot), by compare as well."""
    from bazarsim.analysis.bids import compare_bids
    from bazarsim.analysis.convention import convention_study
    from bazarsim.core.errors import RulesetError

    rs = get_ruleset(RULESET)
    made = []
    for _, row in dataset_rows(tiny).iterrows():
        ns, cap = int(row["H_sd_ns"]), int(row["H_sd_capot"])
        tricks = (8, 0) if cap == 1 else (0, 8) if cap == 2 else (4, 4)
        decl = (int(row["H_declarations_ns"]), int(row["H_declarations_ew"]))
        bela = (int(row["H_bela_ns"]), int(row["H_bela_ew"]))
        for seat in range(4):
            made.append(naive_score(rs, 9, H, seat & 1, 0, False, (ns, 162 - ns), tricks,
                                    decl, bela)[0])
    dd = declarer_rows(tiny, H, 9)["made"].tolist()
    assert made != dd and any(made)  # the play changes the outcomes here
    res = convention_study(tiny, "H", level=9, formulas=["points"], play="sd")
    assert res["play"] == "sd" and res["n"] == 8 and close(res["p_make"], sum(made) / 8)
    for a, b in (("8VK", "8H"), ("8H", "8VK")):
        with pytest.raises(RulesetError, match="kind VK does not exist in ruleset bazar-blot"):
            compare_bids(tiny, a, b)


def test_threshold_study_options_at_their_bounds(tiny):
    """study threshold on two deals: --bootstrap 10 (the fewest), one seat, --play sd, an
    axis named in the bid's kind (points@H), a --within whose first class is empty (the
    next one is still there), the study's description; then each refused option and a bid
    no row makes, one error line each."""
    from bazarsim.analysis.threshold import threshold_study
    from bazarsim.core.errors import BazarsimError

    res = threshold_study(tiny, "H", "points@H", level=9, within="trumps=8,0..7", target=0.4,
                          replicates=10, seats=["N"], play="sd", seed=3)
    assert {k: res[k] for k in ("dataset", "play", "bid", "kind", "level", "feature",
                                "within", "target_rule", "contra", "replicates", "seed")} == {
        "dataset": str(tiny), "play": "sd", "bid": "9H", "kind": "H", "level": 9,
        "feature": "points", "within": "trumps", "target_rule": "fixed", "contra": 0,
        "replicates": 10, "seed": 3}
    (c,) = res["classes"]
    sd = dataset_rows(tiny)
    assert c["trumps"] == "0..7" and c["n"] == 2 and c["target"] == 0.4
    assert [r["points"] for r in c["rows"]] == sorted(set(sd["N_H_points"].astype(int)))
    for bad, why in ((dict(within="nosuch"), r"^--within 'nosuch': unknown feature"),
                     (dict(target=0.0), r"^--target 0.0: must be between 0 and 1"),
                     (dict(target=1.0), r"^--target 1.0: must be between 0 and 1"),
                     (dict(replicates=9), r"^--bootstrap 9: use at least 10"),
                     (dict(level=17), r"^17H: made by none of the 8 declarer rows of .*: no "
                                      r"threshold to find$")):
        with pytest.raises(BazarsimError, match=why):
            threshold_study(tiny, "H", "points", **{"level": 9, **bad})


def test_compare_adjacent_levels_in_bazar_blot(data):
    """bazar-blot scores a made suit bid level x 1 + 16 less the defenders' sai: 9H scores
    exactly 1 more than 8H where both make. table compare 9H 8H counts those rows as 9H
    better; every figure against the rows."""
    from bazarsim.analysis.bids import compare_bids

    a, b = declarer_rows(data, H, 9), declarer_rows(data, H, 8)
    d = (a["score"] - b["score"]).to_numpy(float)
    assert (d == 1).any() and (d < 0).any()
    (row,) = compare_bids(data, "9H", "8H")
    n = len(d)
    se = math.sqrt(((d - d.mean()) ** 2).sum() / (n - 1) / n)
    want = {"n": n, "mean_a": a["score"].mean(), "mean_b": b["score"].mean(),
            "mean_diff": d.mean(), "se_diff": se, "p_a_better": (d > 0).mean(),
            "p_b_better": (d < 0).mean()}
    for key, value in want.items():
        assert close(row[key], value), key


# --------------------------------------------------------------------------- fit


def hand_class(hand: int, kind: int, position: int, strength: int) -> tuple:
    """The model's class of a hand (docs/matches.md): kind group, position, two honour
    counts (suit: trumps and J/9 of trump; BK: aces and tens; VK: jacks and nines; the
    second kept below 4) and 10-point strength bucket (0 .. 15)."""
    if kind < 4:
        g = 0
        a = sum(bit(hand, kind, r) for r in range(8))
        b = bit(hand, kind, 4) | bit(hand, kind, 2) << 1
    else:
        g = 1 if kind == BK else 2
        ra, rb = (7, 3) if kind == BK else (4, 2)
        a = sum(bit(hand, s, ra) for s in range(4))
        b = sum(bit(hand, s, rb) for s in range(4))
    return g, position, a, min(b, 3), min(max(strength // 10, 0), 15)


def fit_reference(path, prior: float, hold_out: int = 5) -> dict:
    """The calibration `fit` reports: the model fitted on the deals whose seeded hash (seed
    0) is not 0 mod 5, each class's rate shrunk toward its parents (drop the second count,
    the first, the position; the group's rate at the root), scored on the held-out deals
    against each bid's base rate over the fitted deals."""
    rs = get_ruleset(RULESET)
    top = rs.auction.max_level or max(rs.total_points(k) for k in rs.kinds) // 10
    bids = [(lv, False) for lv in range(rs.auction.min_level, top + 1)]
    bids += [(rs.auction.min_level, True)] if rs.auction.capot_bids else []
    zero = functools.partial(np.zeros, len(bids))
    n, m = Counter(), {}
    held = []
    for _, row in dataset_rows(path).iterrows():
        fitted = deal_hash(int(row["index"]), 0) % hold_out != 0
        for kind, kn in ((H, "H"), (BK, "BK")):
            points, tricks, decl, bela = deal_outcome(row, kind, kn, rs)
            made = {side: np.array([naive_score(rs, lv, kind, side, 0, cap, points, tricks,
                                                decl, bela)[0] for lv, cap in bids], float)
                    for side in (0, 1)}
            for seat in range(4):
                f = hand_features(int(row[SEATS[seat]]), kind, row, SEATS[seat], kn)
                strength = f["points"] + f["declarations"] + rs.declarations.bela_value * f["bela"]
                cell = hand_class(int(row[SEATS[seat]]), kind,
                                  (seat - int(row["dealer"]) - 1) % 4 + 1, strength)
                for role, side in ((0, seat & 1), (1, 1 - (seat & 1))):
                    if not fitted:
                        held.append((role, kind, cell, made[side]))
                        continue
                    g, pos, a, _b, q = cell
                    for key in ((role, *cell), (role, g, pos, a, q), (role, g, pos, q),
                                (role, g, q), (role, g)):
                        n[key] += 1
                        m[key] = m.get(key, zero()) + made[side]

    @functools.cache
    def rate(key):
        if len(key) == 2:  # the group: its rate, pulled half a deal toward 1/2
            return (m.get(key, zero()) + 0.5) / (n[key] + 1)
        if len(key) == 6:  # (role, g, pos, a, b, q): drop the second count
            parent = key[:4] + key[5:]
        else:  # (role, g, pos, a, q) -> (role, g, pos, q) -> (role, g, q) -> (role, g)
            parent = key[:-2] + key[-1:] if len(key) > 3 else key[:2]
        return (m.get(key, zero()) + prior * rate(parent)) / (n[key] + prior)

    bins = np.zeros((10, 3))
    sums = {0: np.zeros(3), 1: np.zeros(3)}
    useful = {k: [j for j, (lv, cap) in enumerate(bids)
                  if cap or lv * 10 <= rs.total_points(k) + 100] for k in (H, BK)}
    for role, kind, cell, y in held:
        p = rate((role, *cell))[useful[kind]]
        base = (m[(role, cell[0])] / n[(role, cell[0])])[useful[kind]]
        yy = y[useful[kind]]
        sums[role] += (((p - yy) ** 2).sum(), ((base - yy) ** 2).sum(), len(yy))
        b = np.minimum((p * 10).astype(int), 9)
        for k, pk, yk in zip(b, p, yy, strict=True):
            bins[k] += (1, pk, yk)
    e, e0, count = sums[0] + sums[1]
    return {"brier": e / count, "brier_base_rate": e0 / count, "skill": 1 - e / e0,
            "forecasts": int(count),
            "roles": {name: {"brier": s[0] / s[2], "brier_base_rate": s[1] / s[2],
                             "skill": 1 - s[0] / s[1], "forecasts": int(s[2])}
                      for name, s in (("bidder", sums[0]), ("defender", sums[1]))},
            "reliability": [{"bin": f"{i / 10:.1f}-{(i + 1) / 10:.1f}",
                             "forecasts": int(k), "mean_forecast": s / k if k else None,
                             "observed": o / k if k else None}
                            for i, (k, s, o) in enumerate(bins)]}


@pytest.fixture(scope="module")
def model(data, tmp_path_factory):
    """`fit --prior 5` (JSON and Markdown) and the model file it wrote."""
    out = tmp_path_factory.mktemp("model") / "model.json"
    doc = json.loads(run("fit", data, "--out", out, "--prior", 5, "-f", "json"))
    md = run("fit", data, "--out", out, "--prior", 5, "-f", "md")
    return out, doc, md


def test_fit_calibration_against_the_rows(data, model):
    """Brier per role and overall, the base rate's, skill, and the reliability bins
    (forecasts, mean forecast, observed) with --prior 5, JSON and Markdown."""
    _out, doc, md = model
    cal = doc["calibration"]
    ref = fit_reference(data, 5.0)
    for got, want in [(cal, ref)] + [(cal["roles"][r], ref["roles"][r]) for r in ref["roles"]]:
        assert got["forecasts"] == want["forecasts"]
        for key in ("brier", "brier_base_rate", "skill"):
            assert close(got[key], want[key]), key
    assert [r["bin"] for r in cal["reliability"]] == [r["bin"] for r in ref["reliability"]]
    for got, want in zip(cal["reliability"], ref["reliability"], strict=True):
        assert got["forecasts"] == want["forecasts"]
        assert close(got["mean_forecast"], want["mean_forecast"]), got["bin"]
        assert close(got["observed"], want["observed"]), got["bin"]
    assert all(r["forecasts"] for r in ref["reliability"])  # every bin holds forecasts
    # the Markdown tables show the same figures
    brier = table_titled(md, "Hand model of")
    assert [r["role"] for r in brier] == ["bidder", "defender", "all"]
    for cell, want in zip(brier, [ref["roles"]["bidder"], ref["roles"]["defender"], ref],
                          strict=True):
        assert cell["forecasts"] == f"{want['forecasts']:,}"
        assert shown(cell["Brier"], want["brier"], ".4f")
        assert shown(cell["base rate Brier"], want["brier_base_rate"], ".4f")
        assert shown(cell["skill %"], want["skill"], ".1f", 100)
    for cell, want in zip(table_titled(md, "reliability"), ref["reliability"], strict=True):
        assert (cell["forecast"], cell["forecasts"]) == (want["bin"], f"{want['forecasts']:,}")
        assert shown(cell["mean forecast %"], want["mean_forecast"], ".1f", 100)
        assert shown(cell["observed %"], want["observed"], ".1f", 100)


# --------------------------------------------------------------------------- play-offs

EAGER = """name = "eager"
description = "opens on an even chance; bolder when behind by 8"
[open]
make = 0.5
[[score]]
when = "behind"
by = 8
shift = -0.15
"""


def playoff_rows(out) -> tuple[pd.DataFrame, np.ndarray]:
    """A run directory's outcome rows (Parquet parts read by pandas) and A's wins, the
    ``wins`` list each part keeps in its metadata, in pair order."""
    frames, wins = [], []
    for part in Path(out).glob("part-*.parquet"):
        meta = json.loads(pq.read_schema(part).metadata[b"bazarsim"])
        frames.append(pd.read_parquet(part))
        wins.append((meta["pairs"][0], np.asarray(meta["wins"]).reshape(-1, 2)))
    rows = pd.concat(frames).sort_values(["pair", "a_side", "deal"]).reset_index(drop=True)
    return rows, np.concatenate([w for _s, w in sorted(wins, key=lambda x: x[0])])


def end_rules(rs, target):
    """Who wins after a scored deal, by the ruleset's end rules (docs/rules.md, as
    tests/naive_match.py reads them), vectorised over outcomes: ``end_rules(rs,
    target)(declarer, flags, eight)(a, b)`` is 0 (A wins), 1 (B) or -1 (the match goes on)
    once the deals brought the scores to ``a``, ``b``."""
    sr = rs.scoring

    def outcome(decl, flags, eight):
        made = (flags & F_MADE) > 0
        scored = decl >= 0
        w = np.full(len(decl), -1)  # the rules that end a match whatever the score
        if sr.eight_of_a_suit_wins_match:
            w = np.where(scored & (eight >= 0), eight, w)
        if sr.reverse_capot_loses_match:
            w = np.where(scored & (w < 0) & ((flags & F_REVERSE) > 0), 1 - decl, w)
        open_ = scored & (w < 0)
        if sr.capot_ends_match_only_if_bid_contra_made:
            open_ &= ~(((flags & F_CAPOT) > 0) & ~(((flags & F_CAPOT_CONTRA) > 0) & made))
        barred = np.where(~made, decl, -1) if sr.failed_bidders_cannot_win else -1

        def winner(a, b):
            leader = np.where(a > b, 0, np.where(b > a, 1, -1))
            wins = open_ & (leader >= 0) & (np.maximum(a, b) >= target) & (leader != barred)
            return np.where(wins, leader, w)

        return winner

    return outcome


def check_rows_replay(rows: pd.DataFrame, wins: np.ndarray, rs, target: int):
    """Each match's rows add up (a deal starts from the scores the last one left), no deal
    but the last ends it, and the last ends it with the winner the run recorded; the end
    rule of :func:`end_rules` is tests/naive_match.py's referee on every scored deal."""
    sr = rs.scoring
    rules = {"target": target, "failed_cannot_win": sr.failed_bidders_cannot_win,
             "capot_needs_bid_contra_made": sr.capot_ends_match_only_if_bid_contra_made,
             "reverse_capot_loses": sr.reverse_capot_loses_match,
             "eight_wins": sr.eight_of_a_suit_wins_match}
    for (pair, side), m in rows.groupby(["pair", "a_side"]):
        a = (m.a_score + m.a_points).to_numpy()
        b = (m.b_score + m.b_points).to_numpy()
        assert (m.a_score.to_numpy()[1:] == a[:-1]).all() and m.a_score.iloc[0] == 0
        assert (m.b_score.to_numpy()[1:] == b[:-1]).all() and m.b_score.iloc[0] == 0
        decl, flags, eight = m.declarer.to_numpy(), m["flags"].to_numpy(), m.eight.to_numpy()
        w = end_rules(rs, target)(decl, flags, eight)(a, b)
        assert (w[:-1] < 0).all() and w[-1] >= 0
        assert wins[pair, side] == int(w[-1] == 0)
        for i in np.flatnonzero(decl >= 0):  # the sheet after the deal, as one deal
            f, d = int(flags[i]), int(decl[i])
            deal = {"ns": int(a[i]), "ew": int(b[i]), "bidders": d, "made": bool(f & F_MADE),
                    "all_tricks": d if f & F_CAPOT else 1 - d if f & F_REVERSE else None,
                    "capot_bid": bool(f & F_CAPOT_CONTRA), "contra": int(bool(f & F_CAPOT_CONTRA)),
                    "tie": False, "carried": 0, "eight": None if eight[i] < 0 else int(eight[i])}
            v = verdict([deal], rules)
            assert w[i] == (-1 if v is None else v[0])


def match_reference(rows: pd.DataFrame, wins: np.ndarray, target: int) -> dict:
    pairs = len(wins)
    x = wins.mean(axis=1)
    p = x.mean()
    paired = x.std(ddof=1) / math.sqrt(pairs)
    unpaired = math.sqrt(p * (1 - p) / (2 * pairs))
    diff = rows.a_points - rows.b_points
    lengths = rows.groupby(["pair", "a_side"]).size().to_numpy()
    made = (rows["flags"] & F_MADE) > 0
    small, big = max(1, round(target / 10)), max(2, round(target / 3))
    gap = rows.a_score - rows.b_score
    bands = [(f"A behind by {big}+", gap <= -big),
             (f"A behind by {small}-{big - 1}", (gap > -big) & (gap <= -small)),
             (f"level (within {small - 1})", gap.abs() < small),
             (f"A ahead by {small}-{big - 1}", (gap >= small) & (gap < big)),
             (f"A ahead by {big}+", gap >= big)]

    def share(mask, within):
        return mask[within].mean() if within.any() else None

    a_decl, b_decl = rows.declarer == 0, rows.declarer == 1
    return {
        "pairs": pairs, "matches": 2 * pairs, "a_win": p, "se_paired": paired,
        "se_unpaired": unpaired, "ci95": [p - Z95 * paired, p + Z95 * paired],
        "half_width_paired": Z95 * paired, "half_width_unpaired": Z95 * unpaired,
        "variance_reduction": unpaired ** 2 / paired ** 2,
        "a_points_per_deal": diff.mean(),
        "se_points_per_deal": diff.groupby(rows.pair).mean().std(ddof=1) / math.sqrt(pairs),
        "deals_per_match": lengths.mean(),
        "match_length_quartiles": list(np.percentile(lengths, [25, 50, 75])),
        "deals": len(rows),
        "contracts": {"redeal": (rows.declarer < 0).mean(), "a_declares": a_decl.mean(),
                      "b_declares": b_decl.mean(), "a_made": share(made, a_decl),
                      "b_made": share(made, b_decl),
                      # how often each side's contracts were contra'd (docs/matches.md)
                      "a_contra": share(rows.contra > 0, a_decl),
                      "b_contra": share(rows.contra > 0, b_decl)},
        "bands": [{"band": name, "deals": int(m.sum()),
                   "a_points_per_deal": diff[m].mean() if m.any() else None,
                   "a_declares": share(a_decl, m), "b_declares": share(b_decl, m),
                   "a_made": share(made, m & a_decl)} for name, m in bands],
    }


@pytest.fixture(scope="module")
def policies(tmp_path_factory):
    path = tmp_path_factory.mktemp("policies") / "eager.toml"
    path.write_text(EAGER)
    return path


def test_match_against_the_rows(data, model, policies, tmp_path):
    """careful against eager (a score rule) to 151 in 16 pairs: win share, paired and
    unpaired SE, interval, variance reduction, points per deal and its clustered SE, match
    length, contract shares and score bands, JSON and Markdown, from the run's rows."""
    args = ["match", "careful", policies, "-m", 16, "--to", 151, "--dataset", data, "--model",
            model[0], "-q", "--out", tmp_path / "po"]
    doc = json.loads(run(*args, "-f", "json"))
    md = run(*args, "-f", "md")
    rows, wins = playoff_rows(tmp_path / "po")
    rs = get_ruleset(RULESET)
    check_rows_replay(rows, wins, rs, 151)
    ref = match_reference(rows, wins, 151)
    assert 0 < ref["se_paired"] < ref["se_unpaired"]  # the two errors differ here
    for key, want in ref.items():
        got = doc[key]
        if key == "contracts":
            assert got.keys() == want.keys()
            for k in want:
                assert close(got[k], want[k]), k
        elif key == "bands":
            assert [b["band"] for b in got] == [b["band"] for b in want]
            assert all(b["deals"] for b in want)  # every band is reached
            for g, w in zip(got, want, strict=True):
                assert g["deals"] == w["deals"]
                for k in ("a_points_per_deal", "a_declares", "b_declares", "a_made"):
                    assert close(g[k], w[k]), (w["band"], k)
        else:  # the command's z is 1.959964, six decimals
            tol = 1e-7 if key in ("ci95", "half_width_paired", "half_width_unpaired") else 1e-9
            want = want if isinstance(want, list) else [want]
            got = got if isinstance(got, list) else [got]
            assert len(got) == len(want), key
            assert all(close(g, w, tol) for g, w in zip(got, want, strict=True)), key
    head = {r["figure"]: r for r in table_titled(md, "careful against eager")}
    win = head["careful wins (vs eager)"]
    assert win["value"].endswith(" %") and shown(win["value"][:-2], ref["a_win"], ".1f", 100)
    lo, hi = re.fullmatch(r"95 % interval (\S+)-(\S+) %", win["note"]).groups()
    assert shown(lo, ref["ci95"][0], ".1f", 100) and shown(hi, ref["ci95"][1], ".1f", 100)
    assert shown(head["paired SE"]["value"].removesuffix(" pp"), ref["se_paired"], ".2f", 100)
    assert head["paired SE"]["note"] == "over 16 pairs (32 matches)"
    assert shown(head["unpaired SE"]["value"].removesuffix(" pp"), ref["se_unpaired"], ".2f",
                 100)
    vr = head["variance reduction"]["value"]
    assert shown(vr.removesuffix("x"), ref["variance_reduction"], ".2f")
    pts = head["careful points per deal"]
    assert shown(pts["value"], ref["a_points_per_deal"], "+.1f")
    assert shown(pts["note"].removeprefix("minus eager's; SE "), ref["se_points_per_deal"],
                 ".1f")
    length = head["deals per match"]
    assert shown(length["value"], ref["deals_per_match"], ".2f")
    assert length["note"] == "quartiles " + " / ".join(
        f"{q:g}" for q in ref["match_length_quartiles"])
    teams = table_titled(md, "contracts")
    c = ref["contracts"]
    for cell, k in zip(teams, "ab", strict=False):
        assert shown(cell["declares %"], c[f"{k}_declares"], ".1f", 100)
        assert shown(cell["made %"], c[f"{k}_made"], ".1f", 100)
        assert shown(cell["contra'd %"], c[f"{k}_contra"], ".1f", 100)
    assert shown(teams[2]["declares %"], c["redeal"], ".1f", 100)
    for cell, b in zip(table_titled(md, "by score at the deal"), ref["bands"], strict=True):
        assert (cell["score at the deal"], cell["deals"]) == (b["band"], str(b["deals"]))
        assert shown(cell["careful pts/deal"], b["a_points_per_deal"], "+.1f")
        assert shown(cell["careful declares %"], b["a_declares"], ".1f", 100)
        assert shown(cell["eager declares %"], b["b_declares"], ".1f", 100)
        assert shown(cell["careful made %"], b["a_made"], ".1f", 100)


# --------------------------------------------------------------------------- equity


def applies(rule: dict, own: int, other: int, target: int) -> bool:
    """A policy's [[score]] rule at a score (the keys' meaning in `bazarsim policy --keys`)."""
    gap = own - other
    when, by = rule.get("when", "any"), rule.get("by", 0)
    if (when == "behind" and gap > -by) or (when == "ahead" and gap < by) or (
            when == "level" and abs(gap) > by):
        return False
    return not rule.get("near", 0) or target - max(own, other) <= rule["near"]


def equity_reference(rows: pd.DataFrame, rs, target: int, a_rules, b_rules):
    """``E(a, b, t)``, A's chance to win from scores ``a:b`` with ``t`` = 1 when A deals
    next, by a memoised recursion over the outcomes the rows measured (those played under
    the same score rules in force; all of them where a regime lacks deals of either
    dealer). A passed-out deal keeps the score and hands the deal on, so the two ``t`` of
    a score are solved together; scores past ``target + pad`` (the largest single-deal
    gain, at most the target) are held there."""
    rule = end_rules(rs, target)
    pad = min(int(max(rows.a_points.max(), rows.b_points.max())), target)
    top = target + pad

    def regime(a, b):
        first = [next((i for i, r in enumerate(rules) if applies(r, own, other, target)), -1)
                 for rules, own, other in ((a_rules, a, b), (b_rules, b, a))]
        return tuple(first)

    def outcomes(mask):
        """Per t: the distinct outcomes (da, db, who wins after them from a score) and
        their probabilities."""
        out = []
        for t in (0, 1):
            m = rows[mask & (rows.a_deals == t)]
            c = Counter(zip(m.a_points, m.b_points, m.declarer, m["flags"], m.eight,
                            strict=True))
            da, db, decl, flags, eight = np.array(list(c), np.int64).reshape(-1, 5).T
            out.append((da, db, rule(decl, flags, eight),
                        np.array(list(c.values())) / max(1, len(m))))
        return out

    keys = [regime(a, b) for a, b in zip(rows.a_score, rows.b_score, strict=True)]
    every = outcomes(np.ones(len(rows), bool))
    per_regime = {}
    for key in set(keys):
        mask = np.array([k == key for k in keys])
        ok = all(((rows.a_deals == t) & mask).any() for t in (0, 1))
        per_regime[key] = outcomes(mask) if ok else every
    eq = np.full((top + 1, top + 1, 2), np.nan)

    def after(a, b, t, da, db, winner):
        """A's equity after each outcome from (a, b, t), and whether the score stayed."""
        na, nb = a + da, b + db
        w = winner(na, nb)
        ca, cb = np.minimum(na, top), np.minimum(nb, top)
        goes_on = w < 0
        stays = goes_on & (ca == a) & (cb == b)
        for i in np.flatnonzero(goes_on & ~stays & np.isnan(eq[ca, cb, 0])):
            if np.isnan(eq[ca[i], cb[i], 0]):  # solved meanwhile by an earlier one?
                solve(int(ca[i]), int(cb[i]))
        return np.where(goes_on, eq[ca, cb, 1 - t], (w == 0) * 1.0), stays

    def solve(a, b):
        cq = []
        for t, (*outcome, p) in enumerate(per_regime.get(regime(a, b), every)):
            value, stays = after(a, b, t, *outcome)
            cq.append(((p * value)[~stays].sum(), p[stays].sum()))
        (c0, q0), (c1, q1) = cq
        e0 = (c0 + q0 * c1) / (1 - q0 * q1)
        eq[a, b] = e0, c1 + q1 * e0

    def value(a, b, t=None):
        if np.isnan(eq[a, b, 0]):
            solve(a, b)
        return eq[a, b] if t is None else eq[a, b, t]

    def break_even(a, b, t, parts):
        """p with p E(made) + (1 - p) E(failed) = E(pass) at (a, b, t), within [0, 1]."""
        value(a, b)  # a passed-out deal leaves (a, b) to the other dealer
        e = {}
        for name, (*outcome, p) in parts.items():
            if not len(p):
                return math.nan
            e[name] = float((p * after(a, b, t, *outcome)[0]).sum())
        spread = e["made"] - e["failed"]
        return min(1.0, max(0.0, (e["pass"] - e["failed"]) / spread)) if spread > 1e-9 \
            else math.nan

    made = ((rows["flags"] & F_MADE) > 0).to_numpy()
    decl = rows.declarer.to_numpy()
    by_t = [dict(zip(("made", "failed", "pass"), (o[t] for o in (
        outcomes((decl == 0) & made), outcomes((decl == 0) & ~made), outcomes(decl != 0))),
        strict=True)) for t in (0, 1)]

    def thresholds(step):
        grid = list(range(0, target, step))
        return grid, np.array([[[break_even(a, b, t, by_t[t]) for b in grid] for a in grid]
                               for t in (0, 1)])

    return {"value": value, "thresholds": thresholds, "pad": pad}


def derived_reference(rows: pd.DataFrame, grid, p, target: int, step: int) -> dict:
    """The --policy-out rules: per band of A's lead (behind / ahead by a third of the target
    with the leader within a third of it, then by a tenth; the first that applies takes a
    score), the visit-weighted mean break-even minus the rest's, within +-0.5, to 0.01."""
    small, big, near = max(1, round(target / 10)), max(2, round(target / 3)), target // 3
    bands = [{"when": w, "by": big, "near": near} for w in ("behind", "ahead")] + [
        {"when": w, "by": small, "near": 0} for w in ("behind", "ahead")]
    k = len(grid)
    visits = np.zeros((2, k, k))
    for t, a, b in zip(rows.a_deals, rows.a_score, rows.b_score, strict=True):
        visits[t, min(a // step, k - 1), min(b // step, k - 1)] += 1
    band_of = np.full((k, k), -1)
    for i, a in enumerate(grid):
        for j, b in enumerate(grid):
            band_of[i, j] = next((n for n, r in enumerate(bands) if applies(r, a, b, target)),
                                 -1)

    def mean(cells):
        w = visits * (cells[None] & ~np.isnan(p))
        return float((np.nan_to_num(p) * w).sum() / w.sum()) if w.sum() else None

    base = mean(band_of == -1)
    out = []
    for n, r in enumerate(bands):
        v = mean(band_of == n)
        if v is not None and base is not None:
            out.append({**r, "break_even": v, "shift": round(min(0.5, max(-0.5, v - base)), 2),
                        "visits": float((visits * (band_of == n)[None]).sum())})
    return {"base_break_even": base, "bands": out}


def test_equity_against_a_memoised_recursion(data, model, policies, tmp_path):
    """eager (a score rule) against careful to 41 (-o scoring.targets=41), 12 pairs, --step 5,
    --threshold-step 15, --policy-out: the simulated share and its paired SE, the DP from
    0:0, every cell of the equity table (and by dealer), the break-even map from the
    recursion's own E(made), E(failed), E(pass), and the derived score rules; JSON,
    Markdown and the policy file. (The recursion visits nearly every score below target +
    pad in Python: 41 keeps that to about 4,500 scores, 0.3 s; 151 would take seconds.)"""
    policy_out = tmp_path / "derived.toml"
    args = ["equity", "--from", policies, "--against", "careful", "-m", 12, "-o",
            "scoring.targets=41", "--to", 41, "--dataset", data, "--model", model[0], "-q",
            "--out", tmp_path / "po", "--step", 5, "--threshold-step", 15, "--policy-out",
            policy_out]
    doc = json.loads(run(*args, "-f", "json"))
    written = tomllib.loads(policy_out.read_text())
    md = run(*args, "-f", "md")
    rows, wins = playoff_rows(tmp_path / "po")
    rs = get_ruleset(RULESET)
    check_rows_replay(rows, wins, rs, 41)
    eager = tomllib.loads(EAGER)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    ref = equity_reference(rows, rs, 41, eager["score"], [])
    # the DP against the simulated matches
    x = wins.mean(axis=1)
    first = rows[rows.deal == 0].sort_values(["pair", "a_side"]).a_deals.to_numpy()
    dp = np.mean([ref["value"](0, 0, t) for t in first])
    check = doc["check"]
    assert check["matches"] == wins.size == 24
    assert close(check["simulated"], wins.mean()) and close(check["dp"], dp)
    assert close(check["simulated_se"], x.std(ddof=1) / math.sqrt(len(x)))
    assert close(check["simulated_se_unpaired"], math.sqrt(x.mean() * (1 - x.mean()) / 24))
    assert close(check["difference"], wins.mean() - dp)
    assert doc["deals"] == [int((rows.a_deals == t).sum()) for t in (0, 1)]
    assert doc["pad"] == ref["pad"]
    # every cell, mean over who deals next and by dealer (JSON: 4 decimals)
    grid = list(range(0, 41, 5))
    assert doc["grid"] == grid
    for i, a in enumerate(grid):
        for j, b in enumerate(grid):
            e0, e1 = ref["value"](a, b)
            assert abs(doc["equity"][i][j] - (e0 + e1) / 2) <= 5e-5 + 1e-12, (a, b)
            assert abs(doc["equity_by_dealer"]["a_deals_next"][i][j] - e1) <= 5e-5 + 1e-12
            assert abs(doc["equity_by_dealer"]["b_deals_next"][i][j] - e0) <= 5e-5 + 1e-12
    tgrid, th = ref["thresholds"](15)
    assert doc["threshold_grid"] == tgrid == [0, 15, 30]
    mean_th = th.mean(axis=0)
    assert not np.isnan(mean_th).all() and (np.nanmax(mean_th) - np.nanmin(mean_th)) > 0.05
    for i in range(len(tgrid)):
        for j in range(len(tgrid)):
            got, want = doc["thresholds"][i][j], mean_th[i, j]
            assert got is None if np.isnan(want) else abs(got - want) <= 5e-5 + 1e-12, (i, j)
    # the derived rules: from the break-even map at --step, weighted by the visits
    dgrid, dth = ref["thresholds"](5)
    want = derived_reference(rows, dgrid, dth, 41, 5)
    got = doc["derived"]
    assert close(got["base_break_even"], want["base_break_even"])
    assert [(b["when"], b["by"], b["near"], b["shift"]) for b in got["bands"]] == [
        (b["when"], b["by"], b["near"], b["shift"]) for b in want["bands"]]
    for g, w in zip(got["bands"], want["bands"], strict=True):
        assert close(g["break_even"], w["break_even"]) and g["visits"] == w["visits"]
    assert any(b["shift"] for b in want["bands"])
    assert written["name"] == "eager-equity"
    for section, keys in eager.items():
        if isinstance(keys, dict):
            assert {k: written[section][k] for k in keys} == keys, section
    assert [(r["when"], r["by"], r["near"], r["shift"]) for r in written.get("score", [])] == [
        (b["when"], b["by"], b["near"], b["shift"]) for b in want["bands"] if b["shift"]]
    # the Markdown output shows the same numbers, rounded as printed
    head = {r["P(A wins) from 0:0"]: r["value %"]
            for r in table_titled(md, "the DP against the matches")}
    sim, se = head["simulated (± paired SE, as match prints it)"].split(" ± ")
    assert shown(sim, wins.mean(), ".2f", 100)
    assert shown(se, x.std(ddof=1) / math.sqrt(len(x)), ".2f", 100)
    assert shown(head["dynamic programming"], dp, ".2f", 100)
    assert shown(head["simulated minus DP (pp)"], wins.mean() - dp, "+.2f", 100)
    table = table_titled(md, "P(A wins) %, A's score down")
    assert [int(r["A \\ B"]) for r in table] == grid
    for r, a in zip(table, grid, strict=True):
        for b in grid:
            assert shown(r[str(b)], ref["value"](a, b).mean(), ".0f", 100), (a, b)
    table = table_titled(md, "break-even P(make) % for A")
    for r, i in zip(table, range(len(tgrid)), strict=True):
        for j, b in enumerate(tgrid):
            assert shown(r[str(b)], mean_th[i, j], ".0f", 100), (i, j)
    title = f"score rules written to {policy_out} (base break-even"
    assert shown(re.search(re.escape(title) + r" ([\d.]+) %\)", md).group(1),
                 want["base_break_even"], ".1f", 100)
    for r, b in zip(table_titled(md, "score rules written"), want["bands"], strict=True):
        assert shown(r["break-even %"], b["break_even"], ".1f", 100)
        assert r["shift"] == f"{b['shift']:+.2f}" and r["deals"] == f"{b['visits']:.0f}"


def test_equity_policy_out_with_a_blank_break_even_map(data, model, policies, tmp_path):
    """careful in 6 pairs to 41 (12 contracts, one failed, one declared when dealing
    next) leaves the break-even map blank: --policy-out writes the policy without score
    rules and the table says so (it raised a TypeError on the missing base before)."""
    policy_out = tmp_path / "derived.toml"
    args = ["equity", "--from", "careful", "--against", policies, "-m", 6, "-o",
            "scoring.targets=41", "--to", 41, "--dataset", data, "--model", model[0], "-q",
            "--out", tmp_path / "po", "--policy-out", policy_out]
    doc = json.loads(run(*args, "-f", "json"))
    assert doc["derived"] == {"base_break_even": None, "bands": []}
    assert all(v is None for row in doc["thresholds"] for v in row)
    assert "score" not in tomllib.loads(policy_out.read_text())
    for fmt in ("table", "md"):
        text = " ".join(run(*args, "-f", fmt).split())
        assert (f"score rules written to {policy_out}: none (the break-even map has no value "
                "where no band applies") in text
