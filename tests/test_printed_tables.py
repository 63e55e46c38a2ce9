"""Every figure `table freq`, `table bids`, `table compare` and `table bias` print, in
JSON and in their Markdown and terminal tables, against a computation from the raw rows
written here (issue 63, point 1).

The references read the Parquet rows with pandas and compute each figure by its own
code: features from the card lists (``test_freq.naive_features`` and the side features
below), every (deal, side, bid) scored by the literal rules of tests/naive_scoring.py,
Wilson intervals by the quadratic formula below, means, SDs, paired differences and their
standard errors with pandas, break-evens from E = p s_made + (1 - p) s_failed = 0. The
printed cells are the reference figures formatted here (percent to 0.1 or 0.0001, scores
to 0.1), so a wrong rounding, a swapped bound or an error bar that is not the JSON's fails.
Options where the numbers depend on them: ``--confidence 0.99`` and ``0.8``, ``--levels``,
``--contra x`` and ``xx``, ``--by`` classes (buckets, ``@H``, ``position``), ``--seat``,
``--play sd``, ``table freq --by dealer``.

Data: 400 plain deals, 60 DD deals (H and BK), 10 DD + SD deals (H, PIMC with 2 worlds),
all bazar, built once for the module.
"""

from __future__ import annotations

import bisect
import functools
import json
import math
import re
from statistics import NormalDist

import pandas as pd
import pytest
from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.rules.rulesets import get_ruleset

from . import naive
from . import naive_scoring as NS
from .conftest import disk_cached
from .test_freq import naive_features

runner = CliRunner()
RS = get_ruleset("bazar")
SEATS = "NESW"
KIND = {"S": 0, "H": 1, "D": 2, "C": 3, "BK": 4, "VK": 5}
TOTAL = {"S": 162, "H": 162, "D": 162, "C": 162, "BK": 162, "VK": 258}  # docs/rules.md
PLAIN, DD, SD = 240, 60, 10


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("printed")
    runs = {"plain": dict(deals=PLAIN, kinds=("H", "BK")),
            "dd": dict(deals=DD, kinds=("H", "BK"), dd=True),
            "sd": dict(deals=SD, kinds=("H",), dd=True, sd=2)}
    for name, kw in runs.items():
        run_simulation(Simulation(seed=3, ruleset=RS, columns="lean", **kw), root / name)
    return {name: str(root / name) for name in runs}


# --------------------------------------------------------------------------- plain statistics


def z_of(confidence: float) -> float:
    return NormalDist().inv_cdf((1 + confidence) / 2)


def wilson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The two p with (k/n - p)^2 = z^2 p (1 - p) / n: the roots of
    (n + z^2) p^2 - (2k + z^2) p + k^2 / n = 0."""
    if n == 0:
        return math.nan, math.nan
    z2 = z_of(confidence) ** 2
    root = math.sqrt(z2) * math.sqrt(z2 + 4 * k * (n - k) / n)
    return (max(0.0, (2 * k + z2 - root) / (2 * (n + z2))),
            min(1.0, (2 * k + z2 + root) / (2 * (n + z2))))


def mean_se(x: pd.Series) -> tuple[float, float]:
    """Mean and its standard error (the sample SD, n - 1, over sqrt n)."""
    n = len(x)
    if n == 0:
        return math.nan, math.nan
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan


def nan(v) -> float:
    return math.nan if v is None else float(v)


def same(got, want, what="") -> None:
    """Equal numbers (None and NaN alike: JSON writes NaN as null)."""
    g, w = nan(got), nan(want)
    if math.isnan(w):
        assert math.isnan(g), (what, got, want)
    else:
        assert g == pytest.approx(w, rel=1e-9, abs=1e-9), (what, got, want)


def pct(v, spec=".1f", missing="") -> str:
    return missing if math.isnan(nan(v)) else format(100 * v, spec)


def num(v, spec=".1f") -> str:
    return "" if math.isnan(nan(v)) else format(v, spec)


# --------------------------------------------------------------------------- the CLI's output


@pytest.fixture(scope="module", autouse=True)
def one_click_command():
    """The click command built once for the module's ~30 calls (typer builds it anew on
    every ``invoke``, 0.05 s each)."""
    import typer.main
    import typer.testing

    command = typer.main.get_command(app)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(typer.testing, "_get_command", lambda a: command, raising=False)
        yield


def cli(*args) -> str:
    r = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    return r.stdout


def cli_json(*args):
    return json.loads(cli(*args, "--format", "json"))


def md_rows(text: str) -> list[dict]:
    """The Markdown table's rows as ``{header: cell}``."""
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    cells = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines]
    return [dict(zip(cells[0], r, strict=True)) for r in cells[2:]]


def boxed_rows(text: str) -> list[dict]:
    """The boxed terminal table's rows as ``{header: cell}`` (a wide terminal: no wraps)."""
    lines = text.splitlines()
    head = [c.strip() for c in next(ln for ln in lines if ln.startswith("┃")).strip("┃")
            .split("┃")]
    return [dict(zip(head, [c.strip() for c in ln.strip("│").split("│")], strict=True))
            for ln in lines if ln.startswith("│")]


# --------------------------------------------------------------------------- table freq


def cards(mask: int) -> list[tuple[int, str]]:
    return [(c // 8, "789TJQKA"[c % 8]) for c in range(32) if mask >> c & 1]


def side_features(a: int, b: int) -> dict[str, bool]:
    """Features of a side (two partners), hearts trump."""
    hearts = [{r for s, r in cards(h) if s == 1} for h in (a, b)]
    both = hearts[0] | hearts[1]
    return {"side_kq_trump": any({"K", "Q"} <= h for h in hearts),  # a bela: one hand
            "side_jack_nine_trump": {"J", "9"} <= both,
            "side_trumps_5plus": len(both) >= 5,
            "side_four_aces": sum(r == "A" for h in (a, b) for _s, r in cards(h)) == 4}


hand_features = functools.cache(naive_features)


def freq_reference(path: str, by_dealer: bool) -> dict:
    """``{(dealer or None, scope, feature): (count, n)}`` from the rows."""
    df = pd.read_parquet(path)
    groups = (((SEATS[d], g) for d, g in df.groupby("dealer")) if by_dealer
              else [(None, df)])
    out = {}

    def add(key, count, n):
        out[key] = (int(count), int(n))

    for label, g in groups:
        hands = [[int(x) for x in row] for row in g[list(SEATS)].to_numpy()]
        feats = [[hand_features(h) for h in deal] for deal in hands]
        for name in feats[0][0]:
            add((label, "hand", name), sum(f[name] for deal in feats for f in deal),
                4 * len(hands))
        for table, hand in (("kq_trump_at_table", "kq_trump"),
                            ("jack_nine_trump_at_table", "jack_nine_trump"),
                            ("four_sevens_at_table", "four_sevens"),
                            ("four_eights_at_table", "four_eights")):
            add((label, "table", table), sum(any(f[hand] for f in deal) for deal in feats),
                len(hands))
        sides = [side_features(d[0], d[2]) for d in hands] + [side_features(d[1], d[3])
                                                             for d in hands]
        for name in sides[0]:
            add((label, "side", name), sum(s[name] for s in sides), 2 * len(hands))
        for k in ("H", "BK"):
            for code, who in ((0, "NS"), (1, "EW"), (-1, "none")):
                add((label, "table", f"declarations_score_{who}_{k}"),
                    (g[f"{k}_declaration_side"] == code).sum(), len(g))
        for flag in ("redeal", "cancelled"):
            add((label, "table", flag), g[flag].sum(), len(g))
    return out


def exact_closed_forms() -> dict[str, float]:
    """Hypergeometric odds of an 8-card hand of 32 (and of the deal's four hands)."""
    c = math.comb
    hands = c(32, 8)
    four = c(28, 4) / hands  # a given four of a kind
    kq_suit = c(30, 6) / hands
    out = {f"trumps_{k}": c(8, k) * c(24, 8 - k) / hands for k in range(9)}
    out.update({f"aces_{k}": c(4, k) * c(28, 8 - k) / hands for k in range(5)})
    out.update(jack_trump=0.25, nine_trump=0.25, kq_trump=kq_suit, jack_nine_trump=kq_suit,
               kq_any_suit=(4 * kq_suit - 6 * c(28, 4) / hands + 4 * c(26, 2) / hands
                            - 1 / hands),
               four_of_a_kind_scoring=(6 * c(28, 4) - 15) / hands,  # J 9 A T K Q
               four_of_a_kind_scoring_bk=(5 * c(28, 4) - 10) / hands,  # J A T K Q
               kq_trump_at_table=7 / 31, jack_nine_trump_at_table=7 / 31,
               four_sevens_at_table=4 * four, four_eights_at_table=4 * four)
    for rank in ("jacks", "nines", "aces", "sevens", "eights"):
        out[f"four_{rank}"] = four
    return out


def freq_cells(count, n, lo, hi, exact, z) -> list[str]:
    return [f"{count:,}", f"{n:,}", pct(count / n, ".4f"),
            f"{pct(lo, '.4f')} .. {pct(hi, '.4f')}",
            "" if exact is None else pct(exact, ".4f"), "" if z is None else f"{z:+.2f}"]


@pytest.mark.parametrize("by_dealer,confidence", [(False, 0.99), (True, 0.8)])
def test_freq_every_column(data, by_dealer, confidence):
    """count, n, rate, Wilson interval, exact value and z of every feature (per dealer
    too), in JSON, Markdown and the terminal's sections."""
    by = ["--by", "dealer"] if by_dealer else []
    args = ("table", "freq", data["plain"], *by, "--confidence", confidence)
    rows = cli_json(*args)
    ref = freq_reference(data["plain"], by_dealer)
    closed = exact_closed_forms()
    got = {(r.get("dealer"), r["scope"], r["feature"]): r for r in rows}
    assert set(got) == set(ref)
    assert len(rows) == len(ref)
    exact_of = {}
    want_cells = {}
    for key, (count, n) in ref.items():
        r = got[key]
        assert (r["count"], r["n"]) == (count, n), key
        feature = key[2]
        note = ("NS+EW pooled" if key[1] == "side"
                else f"contract {feature.rpartition('_')[2]}"
                if feature.startswith("declarations_score")
                else "four sevens: redeal" if feature == "redeal"
                else "four eights: cancelled" if feature == "cancelled"
                else "trump H" if "trump" in feature else "")
        assert r["note"] == note, key
        same(r["rate"], count / n, key)
        lo, hi = wilson(count, n, confidence)
        same(r["lo"], lo, key)
        same(r["hi"], hi, key)
        p = r["exact"]
        feature = key[2]
        if feature in closed:
            same(p, closed[feature], key)
        if key[1] == "side" or feature.startswith(("declarations_score", "redeal", "cancel")):
            assert p is None and r["z"] is None, key  # no exact odds for these
        else:
            assert p is not None, key
            assert exact_of.setdefault(feature, p) == p  # the same in every group
            same(r["z"], (count - n * p) / math.sqrt(n * p * (1 - p)), key)
        want_cells[key] = freq_cells(count, n, lo, hi, p, r["z"] if p is not None else None)
    assert set(exact_of) == {k[2] for k in ref if k[1] == "hand" or k[2].endswith("_table")}
    assert set(closed) <= set(exact_of)

    head = f"{100 * confidence:g}% interval %"
    md = md_rows(cli(*args, "--format", "md"))
    assert len(md) == len(ref)
    for m in md:
        key = (m.get("dealer"), m["scope"], m["feature"])
        assert [m["count"], m["of"], m["rate %"], m[head], m["exact %"], m["z"]] \
            == want_cells[key], key

    text = cli(*args)
    section, seen = None, 0
    title = re.compile(r"^(?:dealer (\w), )?(hand|side|table): ([\d,]+) ")
    for line in text.splitlines():
        t = title.match(line)
        if t:
            section, of = (t.group(1), t.group(2)), t.group(3)
            continue
        cells = re.split(r"\s{2,}", line.strip())
        key = (*section, cells[0]) if section else None
        if key in want_cells:
            count, n, rate, interval, exact, z = want_cells[key]
            assert of == n, key  # the section's title says what the rows are out of
            assert cells[1:] == [c for c in (count, rate, interval, exact, z) if c], key
            seen += 1
        elif line.startswith("feature"):
            assert head in line
    assert seen == len(ref)


# --------------------------------------------------------------------------- table bids


def frame(path: str) -> pd.DataFrame:
    return pd.read_parquet(path).sort_values("index").reset_index(drop=True)


def hand_points(mask: int, k: str) -> int:
    return sum(naive.card_points(c, KIND[k], RS) for c in naive.hand_cards(mask))


def hand_trumps(mask: int, k: str) -> int:
    return sum(naive.is_trump(KIND[k], s) for s, _r in naive.hand_cards(mask))


def bid_list(kinds, levels) -> list[tuple[str, int, bool]]:
    """(kind, level, capot bid) in the table's order: per kind the levels (default 8 to
    the deal's total / 10), then a capot bid at 8 where no levels were given."""
    out = []
    for k in kinds:
        out += [(k, lv, False) for lv in (levels or range(8, TOTAL[k] // 10 + 1))]
        out += [(k, 8, True)] if levels is None else []
    return out


def label(kind: str, level: int, capot: bool) -> str:
    return f"{level}{kind}" + ("-CAPOT" if capot else "")


def scored(row, k: str, play: str, side: int, bids, contra: int):
    """The declaring ``side``'s total, whether it takes every trick, its card points, and
    per bid (made, its score minus the defenders'), by tests/naive_scoring.py."""
    ns = int(row[f"{k}_{play}_ns"])
    cap = int(row[f"{k}_{play}_capot"])
    points = (ns, TOTAL[k] - ns)
    tricks = (8, 0) if cap == 1 else (0, 8) if cap == 2 else (4, 4)
    decl = (int(row[f"{k}_declarations_ns"]), int(row[f"{k}_declarations_ew"]))
    bela = (int(row[f"{k}_bela_ns"]), int(row[f"{k}_bela_ew"]))
    out = []
    for kind, level, capot in bids:
        if kind != k:
            continue
        made, _m, s_ns, s_ew, _c = NS.score(RS, level, KIND[k], side, contra, capot, points,
                                           tricks, decl, bela)
        out.append((label(kind, level, capot), bool(made), s_ns - s_ew if side == 0
                    else s_ew - s_ns))
    total = points[side] + decl[side] + bela[side]
    return total, cap == side + 1, points[side], out


def declarer_frame(path: str, kinds, levels=None, contra=0, play="dd") -> pd.DataFrame:
    """One row per (deal, declarer seat, bid): made, score, the side's total and capot,
    and the declarer's hand features (points and trumps under H and BK, aces, position)."""
    return _declarer_frame(path, tuple(kinds), tuple(levels or ()), contra, play).copy()


@disk_cached()  # plain Python over the dataset's rows: nothing of bazarsim's
def _declarer_frame(path: str, kinds, levels, contra, play) -> pd.DataFrame:
    bids = bid_list(kinds, levels or None)
    order = {label(*b): i for i, b in enumerate(bids)}
    recs = []
    for _, row in frame(path).iterrows():
        for k in kinds:
            for side in (0, 1):
                total, capot, _p, res = scored(row, k, play, side, bids, contra)
                for seat in (side, side + 2):
                    hand = int(row[SEATS[seat]])
                    feats = {"position": (seat - int(row["dealer"]) - 1) % 4 + 1, "seat": seat,
                             "deal": int(row["index"]),
                             "aces": sum(r == "A" for _s, r in cards(hand))}
                    for kk in ("H", "BK"):
                        feats[f"points@{kk}"] = hand_points(hand, kk)
                        feats[f"trumps@{kk}"] = hand_trumps(hand, kk)
                    feats["points"], feats["trumps"] = feats[f"points@{k}"], feats[f"trumps@{k}"]
                    for bid, made, score in res:
                        recs.append(dict(kind=k, bid=bid, order=order[bid], made=made,
                                         score=score, total=total, capot=capot, **feats))
    return pd.DataFrame(recs)


def bucket(spec: str):
    """A ``--by`` bucket list (``0..29,30..59,60..``; none: every value) as a labeller."""
    if not spec:
        return str
    parts = []
    for text in spec.split(","):
        a, dots, b = text.partition("..")
        parts.append((int(a) if a else -10**9, (int(b) if b else 10**9) if dots else int(a),
                      text))
    return lambda v: next((t for lo, hi, t in parts if lo <= v <= hi), None)


def classed(recs: pd.DataFrame, by: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """The rows with a column per ``--by`` (its label; rows outside every bucket dropped)."""
    recs = recs.copy()
    names = []
    for b in by:
        name, _, spec = b.partition("=")
        recs[name] = recs[name].map(bucket(spec))
        names.append(name)
    return recs.dropna(subset=names), names


def quartile(totals: pd.Series, q: int) -> float:
    """The smallest total with at least q/4 of the rows at or below it."""
    values = sorted(totals)
    return float(next(v for v in values
                      if 4 * bisect.bisect_right(values, v) >= q * len(values)))


def bid_reference(recs: pd.DataFrame, names: list[str], confidence: float) -> dict:
    """``{(class labels..., bid): row}`` with every figure of ``table bids``."""
    out = {}
    for key, g in recs.groupby([*names, "bid"], sort=False):
        n, made = len(g), int(g["made"].sum())
        s_made = g.loc[g["made"], "score"].mean()
        s_failed = g.loc[~g["made"], "score"].mean()
        # p s_made + (1 - p) s_failed = 0
        even = -s_failed / (s_made - s_failed) if 0 < made < n and s_made > s_failed \
            else math.nan
        lo, hi = wilson(made, n, confidence)
        e, se = mean_se(g["score"])
        out[key] = dict(n=n, made=made, p_make=made / n, ci_low=lo, ci_high=hi,
                        p_capot=g["capot"].mean(), mean_total=g["total"].mean(),
                        sd_total=g["total"].std(ddof=0),  # the spread of the class's totals
                        q1_total=quartile(g["total"], 1), median_total=quartile(g["total"], 2),
                        q3_total=quartile(g["total"], 3), expected_score=e, se_score=se,
                        breakeven_p=even, order=int(g["order"].iloc[0]))
    for cls in {k[:-1] for k in out}:  # the best call of each class: a bid, or pass (0)
        group = sorted((k for k in out if k[:-1] == cls),
                       key=lambda k: (-out[k]["expected_score"], out[k]["order"]))
        top = out[group[0]]
        pays = top["expected_score"] > 0
        for k in group:
            out[k].update(best=False, best_call=group[0][-1] if pays else "pass",
                          margin=math.nan)
        top["best"] = pays
        second = out[group[1]]["expected_score"] if len(group) > 1 else -math.inf
        top["margin"] = (top["expected_score"] - max(second, 0.0) if pays
                         else -top["expected_score"])
    return out


def bid_cells(r: dict) -> dict:
    """The reading form's cells of one reference row."""
    best = (f"best (+{r['margin']:.1f})" if r["best"] else
            f"pass (+{r['margin']:.1f})" if not math.isnan(r["margin"]) else "")
    return {"n": f"{r['n']:,}", "make %": pct(r["p_make"]),
            "interval": f"{pct(r['ci_low'])} .. {pct(r['ci_high'])}",
            "capot %": pct(r["p_capot"]),
            "total (mean, sd)": f"{r['mean_total']:.1f} ± {r['sd_total']:.1f}",
            "quartiles": f"{r['q1_total']:.0f} / {r['median_total']:.0f} / "
                         f"{r['q3_total']:.0f}",
            "E[score]": f"{r['expected_score']:+.1f} ± {num(r['se_score'])}".strip(),
            "break-even %": num(100 * r["breakeven_p"], ".0f"), "best": best}


BID_CASES = {  # name: (dataset, kinds, --by, --levels, --contra, --seat, --play, confidence)
    "points-position": ("dd", ("H", "BK"), ["points=0..29,30..59,60..", "position"], None,
                        "none", None, "dd", 0.99),
    "trumps@H-levels-x": ("dd", ("H", "BK"), ["trumps@H=0..2,3.."], [8, 10, 12], "x", None,
                          "dd", 0.8),
    "xx-two-seats": ("dd", ("BK",), ["aces"], None, "xx", "N,E", "dd", 0.95),
    "sd-play": ("sd", ("H",), ["position"], [8, 9, 10, 11], "none", None, "sd", 0.99),
}


@pytest.mark.parametrize("case", list(BID_CASES))
def test_bids_every_column(data, case):
    """n, made, P(make) with its Wilson interval, P(capot), the side's total (mean, SD,
    quartiles), E[score] with its standard error, the break-even P(make), the best call
    and its margin, per class and bid, in JSON, Markdown and the terminal table."""
    path, kinds, by, levels, contra, seats, play, confidence = BID_CASES[case]
    args = ["table", "bids", data[path], "--kinds", ",".join(kinds), "--contra", contra,
            "--play", play, "--confidence", confidence]
    for b in by:
        args += ["--by", b]
    args += ["--levels", ",".join(map(str, levels))] if levels else []
    args += ["--seat", seats] if seats else []
    recs = declarer_frame(data[path], kinds, levels, ("none", "x", "xx").index(contra), play)
    if seats:
        recs = recs[recs["seat"].isin([SEATS.index(s) for s in seats.split(",")])]
    recs, names = classed(recs, by)
    ref = bid_reference(recs, names, confidence)

    rows = cli_json(*args)
    got = {(*(r[n] for n in names), r["bid"]): r for r in rows}
    assert len(rows) == len(got) == len(ref) and set(got) == set(ref)
    assert 0 < sum(r["made"] for r in ref.values()) < sum(r["n"] for r in ref.values())
    for key, want in ref.items():
        r = got[key]
        assert r["play"] == play
        for field, value in want.items():
            if field == "order":
                continue
            if isinstance(value, (bool, str)):
                assert r[field] == value, (key, field, r[field], value)
            else:
                same(r[field], value, (key, field))

    head = f"{100 * confidence:g}% interval"
    formats = [("md", md_rows, ())]
    if case == "points-position":  # the terminal's table (the same code for every case)
        formats.append(("table", boxed_rows, ("capot %", "total (mean, sd)", "quartiles")))
    for fmt, parse, drop in formats:
        shown = parse(cli(*args, "--format", fmt))
        assert len(shown) == len(ref)
        for m in shown:
            key = (*(m[n] for n in names), m["bid"])
            want = {k: v for k, v in bid_cells(ref[key]).items() if k not in drop}
            want[head] = want.pop("interval")
            if fmt == "table":
                want["b/e %"] = want.pop("break-even %")
            assert {k: m[k] for k in want} == want, (fmt, key)


# --------------------------------------------------------------------------- table compare


COMPARE_CASES = {  # name: (bid A, bid B, --by, --contra, --seat[, --play])
    "kinds-differ": ("8BK", "9H", ["trumps@H=0..2,3.."], "none", None),
    "one-kind-x": ("10H", "8H", ["points=..39,40..", "position"], "x", "S,W"),
    "capot": ("8H-CAPOT", "12H", [], "xx", None),
    # a class per hand-points value, some of one row (no SE) and of two (the n - 1
    # formula at its smallest n)
    "adjacent-levels": ("9H", "8H", ["points"], "none", None),
    # the last class holds no row: left out, not given another class's sums
    "empty-last-class": ("8H", "9H", ["trumps=0..7,8"], "none", None),
    "sd-play": ("9H", "8H", [], "none", None, "sd"),
}


@pytest.mark.parametrize("case", list(COMPARE_CASES))
def test_compare_every_column(data, case):
    """Per class: n, both means, the paired difference A - B with its paired standard
    error (SD of the per-row differences / sqrt n), P(A better), P(B better)."""
    a, b, by, contra, seats, *play = COMPARE_CASES[case]
    play = play[0] if play else "dd"
    path, kinds = (data["sd"], ("H",)) if play == "sd" else (data["dd"], ("H", "BK"))
    args = ["table", "compare", path, a, b, "--contra", contra, "--play", play]
    for x in by:
        args += ["--by", x]
    args += ["--seat", seats] if seats else []
    recs = declarer_frame(path, kinds, None, ("none", "x", "xx").index(contra), play)
    if seats:
        recs = recs[recs["seat"].isin([SEATS.index(s) for s in seats.split(",")])]
    kind_a = recs.loc[recs["bid"] == a, "kind"].iloc[0]
    # class features are counted in bid A's kind (or the kind after @)
    ra = recs[recs["bid"] == a].set_index(["deal", "seat"])
    rb = recs[recs["bid"] == b].set_index(["deal", "seat"])
    assert (ra["kind"] == kind_a).all() and len(ra) == len(rb)
    pairs = ra.join(rb[["score"]].rename(columns={"score": "score_b"})).reset_index()
    pairs, names = classed(pairs, by)
    pairs["d"] = pairs["score"] - pairs["score_b"]
    ref = {}
    for key, g in (pairs.groupby(names) if names else [((), pairs)]):
        key = key if isinstance(key, tuple) else (key,)
        d, se = mean_se(g["d"])
        ref[key] = dict(bid_a=a, bid_b=b, n=len(g), mean_a=g["score"].mean(),
                        mean_b=g["score_b"].mean(), mean_diff=d, se_diff=se,
                        p_a_better=(g["d"] > 0).mean(), p_b_better=(g["d"] < 0).mean())
    assert any(r["se_diff"] > 0 for r in ref.values())
    if case == "adjacent-levels":  # what the case is for is in the rows
        assert {1, 2} <= {r["n"] for r in ref.values()}

    rows = cli_json(*args)
    assert [r["play"] for r in rows] == [play] * len(rows)
    got = {tuple(r[n] for n in names): r for r in rows}
    assert len(rows) == len(got) == len(ref) and set(got) == set(ref)
    for key, want in ref.items():
        for field, value in want.items():
            if isinstance(value, str):
                assert got[key][field] == value
            else:
                same(got[key][field], value, (key, field))
    for fmt, parse in (("md", md_rows), ("table", boxed_rows))[:2 if by else 1]:
        shown = parse(cli(*args, "--format", fmt))
        assert len(shown) == len(ref)
        for m in shown:
            r = ref[tuple(m[n] for n in names)]
            assert m == {**{n: m[n] for n in names}, "n": f"{r['n']:,}",
                         f"E[score] {a}": f"{r['mean_a']:+.1f}",
                         f"E[score] {b}": f"{r['mean_b']:+.1f}",
                         f"{a} - {b}": f"{r['mean_diff']:+.1f} ± {num(r['se_diff'])}"
                         .rstrip(" ±"),
                         f"{a} better %": pct(r["p_a_better"]),
                         f"{b} better %": pct(r["p_b_better"])}, (fmt, m)


# --------------------------------------------------------------------------- table bias


def bias_reference(path: str, levels, contra: int, confidence: float) -> dict:
    """Per bid of hearts: every (deal, declaring side) scored under DD and under SD."""
    bids = bid_list(("H",), levels)
    recs = []
    for _, row in frame(path).iterrows():
        for side in (0, 1):
            _t, _c, p_dd, dd = scored(row, "H", "dd", side, bids, contra)
            _t, _c, p_sd, sd = scored(row, "H", "sd", side, bids, contra)
            for (bid, m_dd, _s), (_b, m_sd, _s2) in zip(dd, sd, strict=True):
                recs.append(dict(bid=bid, dd=m_dd, sd=m_sd, gap=p_sd - p_dd))
    out = {}
    for bid, g in pd.DataFrame(recs).groupby("bid", sort=False):
        n, dd, sd = len(g), int(g["dd"].sum()), int(g["sd"].sum())
        kept = int((g["dd"] & g["sd"]).sum())  # SD makes what DD makes
        saved = int((~g["dd"] & g["sd"]).sum())  # SD makes what DD calls down
        diff, se_diff = mean_se(g["sd"].astype(int) - g["dd"].astype(int))
        gap, se_gap = mean_se(g.loc[g["dd"], "gap"])
        out[bid] = dict(
            kind="H", n=n, p_make_dd=dd / n, p_make_sd=sd / n, make_diff=diff,
            se_make_diff=se_diff, dd_made=dd, dd_failed=n - dd,
            p_sd_given_dd_made=kept / dd if dd else math.nan,
            p_sd_given_dd_failed=saved / (n - dd) if n > dd else math.nan,
            points_gap=gap, se_points_gap=se_gap)
        for name, (k, m) in (("dd", (dd, n)), ("sd", (sd, n)), ("kept", (kept, dd)),
                             ("saved", (saved, n - dd))):
            out[bid][f"{name}_low"], out[bid][f"{name}_high"] = wilson(k, m, confidence)
    return out


def bias_cells(r: dict) -> dict:
    def pm(x, se):
        return "-" if math.isnan(nan(x)) else f"{x:+.1f}" + (
            "" if math.isnan(nan(se)) else f" ± {se:.1f}")

    def p(x):
        return pct(x, missing="-")

    return {"sides": f"{r['n']:,}", "DD %": p(r["p_make_dd"]), "SD %": p(r["p_make_sd"]),
            "DD interval": f"{p(r['dd_low'])} .. {p(r['dd_high'])}",
            "SD interval": f"{p(r['sd_low'])} .. {p(r['sd_high'])}",
            "SD - DD": pm(100 * r["make_diff"], 100 * r["se_make_diff"]),
            "SD if DD made %": p(r["p_sd_given_dd_made"]),
            "SD if DD down %": p(r["p_sd_given_dd_failed"]),
            "SD if DD made interval": f"{p(r['kept_low'])} .. {p(r['kept_high'])}",
            "SD if DD down interval": f"{p(r['saved_low'])} .. {p(r['saved_high'])}",
            "points gap": pm(r["points_gap"], r["se_points_gap"])}


@pytest.mark.parametrize("levels,contra,confidence", [(None, "none", 0.99),
                                                      ([8, 9, 10, 12], "x", 0.8)])
def test_bias_every_column(data, levels, contra, confidence):
    """P(make) under DD and SD with their intervals, the paired difference SD - DD and its
    SE, P(SD | DD made) and P(SD | DD down) with intervals, and the mean SD - DD points
    where DD makes with its SE, in JSON, Markdown and the terminal table."""
    args = ["table", "bias", data["sd"], "--kinds", "H", "--contra", contra, "--confidence",
            confidence]
    args += ["--levels", ",".join(map(str, levels))] if levels else []
    ref = bias_reference(data["sd"], levels, ("none", "x", "xx").index(contra), confidence)
    assert any(r["se_make_diff"] > 0 for r in ref.values())  # DD and SD differ somewhere
    res = cli_json(*args)
    assert (res["deals"], res["confidence"]) == (SD, confidence)
    assert [r["bid"] for r in res["rows"]] == list(ref)
    for r in res["rows"]:
        for field, value in ref[r["bid"]].items():
            if isinstance(value, str):
                assert r[field] == value
            else:
                same(r[field], value, (r["bid"], field))
    for fmt, parse in (("md", md_rows), ("table", boxed_rows))[:1 if levels else 2]:
        shown = parse(cli(*args, "--format", fmt))
        assert [m["bid"] for m in shown] == list(ref)
        for m in shown:
            want = bias_cells(ref[m["bid"]])
            assert {k: m.get(k) for k in want if k in m or fmt == "md"} == \
                {k: v for k, v in want.items() if k in m or fmt == "md"}, (fmt, m["bid"])
            assert len(m) == (12 if fmt == "md" else 8)


def test_compare_kinds_differ_needs_a_kind(data):
    """Bids of two kinds, a kind-dependent --by without @: one error line naming both
    ways to say it (a kind-free feature needs none)."""
    from bazarsim.analysis.bids import compare_bids
    from bazarsim.core.errors import BazarsimError

    with pytest.raises(BazarsimError, match=re.escape(
            "--by trumps: 8BK and 9H are of different kinds; say which kind trumps is "
            "counted in: --by trumps@BK or --by trumps@H")):
        compare_bids(data["dd"], "8BK", "9H", by=["trumps"])
    assert sum(r["n"] for r in compare_bids(data["dd"], "8BK", "9H", by=["aces"])) == 4 * DD


def test_bias_refuses_what_it_cannot_count(data):
    """table bias: a dataset without DD or SD columns (naming what it lacks), a confidence
    outside (0, 1), a kind not simulated, an unknown contra: one error line each."""
    from bazarsim.analysis.bias import bias_table
    from bazarsim.core.errors import BazarsimError

    cases = [((data["plain"],), {}, "simulate it with --dd --sd (it lacks --dd and --sd)"),
             ((data["dd"],), {}, "simulate it with --dd --sd (it lacks --sd)"),
             ((data["sd"],), {"kinds": ["BK"]},
              f"kind BK was not simulated in {data['sd']} (it has H)"),
             ((data["sd"],), {"contra": "y"}, "--contra 'y': use none, x or xx")]
    cases += [((data["sd"],), {"confidence": c}, f"--confidence {c}: must be between 0 and 1")
              for c in (0.0, 1.0, 1.5)]
    for args, kw, why in cases:
        with pytest.raises(BazarsimError, match=re.escape(why)):
            bias_table(*args, **kw)
