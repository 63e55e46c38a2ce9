"""The coach's pages: a simulated dataset, one hand, a threshold or convention study.

Each page is assembled from the numbers the analyses already give (``bid_table``,
``frequency_table``, ``analyze``, ``threshold_study``, ``convention_study``): a figure
draws rows that also sit in a table of the page, and that table names the command whose
JSON output holds the same records. A section the dataset cannot feed (no DD columns, a
bid of a kind not simulated) says so in place and the rest of the page is built.
"""

from __future__ import annotations

import datetime as dt
import math

from bazarsim.analysis.bids import Bid, bid_table, parse_bid, parse_by
from bazarsim.analysis.freq import frequency_table
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.simulation import ruleset_from_params
from bazarsim.report import figures
from bazarsim.report.hand import hand_json_records, hand_notes, hand_records, hand_title
from bazarsim.report.html import Column, Page, count, num, pct, text
from bazarsim.report.records import Format, strict
from bazarsim.report.study import convention_note, played, threshold_note
from bazarsim.report.totals import side_totals
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store.parts import (
    checked_part_files,
    missing_ranges,
    part_metadata,
    read_manifest,
)

FEATURE_LABELS = {
    "points": "declarer's hand points in the bid's kind (card points)",
    "trumps": "declarer's trumps (cards)",
    "jack": "J of trump held (0/1)", "nine": "9 of trump held (0/1)",
    "aces": "declarer's aces (cards)",
    "declarations": "declarer's declarations (points)", "bela": "bela held (count)",
    "len_S": "spades held (cards)", "len_H": "hearts held (cards)",
    "len_D": "diamonds held (cards)", "len_C": "clubs held (cards)",
    "position": "position (1 leads to the first trick .. 4 deals)",
    "seen_points": "hand points seen at bid time (card points)",
    "seen_trumps": "trumps seen at bid time (cards)", "seen_jack": "J of trump seen (0/1)",
    "seen_nine": "9 of trump seen (0/1)", "seen_aces": "aces seen at bid time (cards)",
}
POINT_BUCKETS = "points=" + ",".join(f"{a}..{a + 9}" for a in range(0, 120, 10)) + ",120.."
DEFAULT_CLASSES = "points=0..29,30..49,50..69,70.."
DEFAULT_HEAT = ("trumps", POINT_BUCKETS)


def default_features(manifest: dict, rs) -> tuple[str, tuple[str, str], str]:
    """``--by``, the heat map's axes and ``--classes`` by default: hand points and trumps,
    counted on what the bidder saw where it bids on part of its hand (belote-fr: 5 cards
    and the turned one; bela-hr: 6) and the dataset recorded those cards."""
    from bazarsim.deals.bidtime import bid_time

    if bid_time(rs) is None or not manifest.get("bid_time"):
        return POINT_BUCKETS, DEFAULT_HEAT, DEFAULT_CLASSES
    return ("seen_" + POINT_BUCKETS, ("seen_trumps", "seen_" + POINT_BUCKETS),
            "seen_" + DEFAULT_CLASSES)
LEVELS_SHOWN = 4  # default levels per kind in the curves: the lowest four


def feature_label(by: str) -> str:
    c = parse_by(by)
    label = FEATURE_LABELS.get(c.feature, c.feature)
    if c.kind is not None:
        label = label.replace(" in the bid's kind", "") + f", counted in {KIND_NAMES[c.kind]}"
    return label + ("; classes" if c.buckets else "")


def _ruleset_of(manifest: dict):
    return ruleset_from_params(manifest)


def _levels_text(levels: list[int] | None) -> str | None:
    if not levels:
        return None
    if len(levels) == 1:
        return str(levels[0])
    if levels == list(range(levels[0], levels[-1] + 1)):
        return f"{levels[0]}..{levels[-1]}"
    return ",".join(str(x) for x in levels)


# --------------------------------------------------------------------------- the run


def _mtime(part) -> float | None:
    """When a part was written (``None`` where its store does not say)."""
    try:
        return part.stat().st_mtime
    except (AttributeError, OSError):
        return None


def run_items(directory: str, manifest: dict) -> tuple[list[tuple[str, str]],
                                                         list[tuple[str, str]]]:
    """What was run (the manifest in words), and every ruleset option."""
    import bazarsim

    rs = _ruleset_of(manifest)
    defaults = get_ruleset(manifest["ruleset"]).options()
    opts = rs.options()
    changed = [f"{k}={v}" for k, v in opts.items() if defaults.get(k) != v]
    parts = checked_part_files(directory)  # a damaged part: one error line, repair hint
    written_by = sorted({part_metadata(p).get("package_version", "?") for p in parts[:50]})
    first = manifest.get("first", 0)
    gaps = missing_ranges(directory, first, first + manifest["deals"])
    absent = sum(b - a for a, b in gaps)
    when = max((t for t in map(_mtime, parts) if t is not None), default=None)
    cons = manifest.get("constraints", {})
    fix = ", ".join(f"{k}={v}" for k, v in cons.get("fix", {}).items())
    where = "; ".join(cons.get("where", []))
    items = [
        ("dataset", str(directory)),
        ("ruleset", f"{manifest['ruleset']}" + (f" with {', '.join(changed)}" if changed
                                                else " (default options)")),
        ("seed", str(manifest["seed"])),
        # indices are pasted back into --first and deal: no thousands separators
        ("deals", f"{manifest['deals']:,} (indices {first} .. "
                  f"{first + manifest['deals'] - 1})" + (
                      f"; INCOMPLETE: {absent:,} not written yet, every figure counts the "
                      f"{manifest['deals'] - absent:,} present (run the same simulate "
                      "command again to finish it)" if absent else "")),
        ("dealer", str(manifest.get("dealer", ""))),
        ("contract kinds", " ".join(manifest.get("kinds", []))),
        ("double dummy", "yes: every deal solved for each kind (first lead from the dealer's "
                         "left)" if manifest.get("dd") else "no"),
        ("columns", str(manifest.get("columns", ""))),
        ("constraints", "; ".join(x for x in (f"fixed {fix}" if fix else "",
                                              f"where {where}" if where else "") if x)
         or "none: every deal uniformly random"),
        ("written by", f"bazarsim {', '.join(written_by)}" + (
            f", last part {dt.datetime.fromtimestamp(when, dt.UTC):%Y-%m-%d %H:%M} UTC"
            if when else "")),
        ("report by", f"bazarsim {bazarsim.__version__}"),
    ]
    return items, [(k, str(v)) for k, v in opts.items()]


# --------------------------------------------------------------------------- dataset


FREQ_COLUMNS = [
    Column("scope", "scope", text, True), Column("feature", "feature", text, True),
    Column("count", "count", count), Column("n", "of", count),
    Column("rate", "rate %", pct(3)), Column("lo", "95% low %", pct(3)),
    Column("hi", "95% high %", pct(3)), Column("exact", "exact %", pct(3)),
    Column("z", "z", num(2, sign=True)), Column("note", "note", text, True),
]


def bid_columns(by_keys: list[str]) -> list[Column]:
    """The columns of a bid table (``table bids`` records) classed by ``by_keys``: the
    pages' and the app's tables of bids show the same numbers alike."""
    return [Column(k, k, text, True) for k in by_keys] + [
        Column("bid", "bid", text, True), Column("n", "n", count), Column("made", "made", count),
        Column("p_make", "make %", pct(1)), Column("ci_low", "95% low %", pct(1)),
        Column("ci_high", "95% high %", pct(1)), Column("p_capot", "capot %", pct(1)),
        Column("mean_total", "side total (mean)", num(1)),
        Column("expected_score", "E[score]", num(1, sign=True)),
        Column("se_score", "SE", num(1)), Column("breakeven_p", "break-even %", pct(0)),
        Column("best_call", "best call of class", text, True),
    ]


def _table_argv(directory: str, by: list[str], kinds: list[str], levels: list[int] | None,
                contra: str) -> list[str]:
    argv = ["bazarsim", "table", "bids", directory]
    for b in by:
        argv += ["--by", b]
    argv += ["--kinds", ",".join(kinds)]
    if levels:
        argv += ["--levels", _levels_text(levels)]
    if contra != "none":
        argv += ["--contra", contra]
    return argv + ["--format", "json"]


def _class_order(by: str) -> list[str]:
    c = parse_by(by)
    return c.labels()


def dataset_page(directory: str, by: str | None = None, kinds: list[str] | None = None,
                 levels: list[int] | None = None, heat_bid: str | None = None,
                 heat: tuple[str, str] | None = None, classes: str | None = None,
                 bids: list[str] | None = None, contra: str = "none", min_n: int = 30,
                 freq_from: str | None = None, title: str | None = None) -> Page:
    """The page of a simulated dataset (see the module's doc)."""
    manifest = read_manifest(directory)
    items, options = run_items(directory, manifest)  # checks every part first
    rs = _ruleset_of(manifest)
    if freq_from:  # a bad --freq-from: an error before any work
        other = read_manifest(freq_from)
        if (other["ruleset"], other.get("options")) != (manifest["ruleset"],
                                                          manifest.get("options")):
            raise BazarsimError(f"--freq-from {freq_from}: a run of other rules ("
                                f"{other['ruleset']}) than {directory} ({manifest['ruleset']}"
                                "); give a run of the same ruleset and options", freq_from)
    if manifest.get("dd"):  # every option checked before the first scan
        opts = _resolve(directory, manifest, rs, by, kinds, levels, heat_bid,
                        heat or (None, None), classes, bids, contra)
    page = Page(title or f"Coach report: {manifest['ruleset']}, {manifest['deals']:,} deals",
                lead="What the simulated deals say about bidding: how often each bid makes "
                "and what it scores, by the declarer's hand, with perfect (double-dummy) "
                "play; and how often hand features occur against the exact odds.")
    page.section("run", "What was run")
    page.meta(items)
    page.details(f"every option of ruleset {manifest['ruleset']}", options)

    # frequencies -------------------------------------------------------------------------
    src = freq_from or directory
    page.section("freq", "Combination frequencies against the exact odds",
                 "Each hand feature is counted over the four hands of every deal (trump = "
                 "hearts), side features over both sides, table features once a deal. The "
                 "exact probability comes from combinatorics (bazarsim odds); z is how many "
                 "standard errors the observed rate is from it.")
    freq = frequency_table(src)
    if freq_from:
        other = read_manifest(freq_from)
        cons = other.get("constraints", {})
        page.paragraph(f"Counted in {freq_from}: another run of the same rules, "
                       f"{other['deals']:,} deals, seed {other['seed']}"
                       + (", constrained" if cons.get("fix") or cons.get("where") else "")
                       + ".")
    exact = [r for r in freq if r["exact"] is not None]
    n_deals = max((r["n"] for r in freq if r["scope"] == "table"), default=0)
    if exact:
        page.figure("freq-z", figures.z_scores(
            "freq-z", f"Observed against exact odds ({len(exact)} features, "
            f"n = {n_deals:,} deals)", [r["feature"] for r in exact], [r["z"] for r in exact]),
            "Each dot is a feature's z-score; about 1 feature in 20 falls outside the band "
            "by chance alone. The numbers are in the table below.")
    else:
        page.gap("Figure of observed against exact odds",
                 "the deals were constrained (--fix, --where), so the unconditional exact "
                 "odds do not apply; the counts are in the table.")
    page.table("freq", "Combination frequencies", FREQ_COLUMNS, freq,
               ["bazarsim", "table", "freq", src, "--format", "json"])

    if not manifest.get("dd"):
        for what in ("Make-rate curves", "Heat map of P(make)", "Expected score by hand class",
                     "Distribution of the declaring side's points"):
            page.gap(what, f"{directory} has no double-dummy columns. Simulate with --dd "
                     f"(e.g. bazarsim simulate -n 100000 --dd --columns lean --out "
                     f"runs/dd) and build the report of that dataset.")
        return page

    kinds, levels = opts["kinds"], opts["levels"]
    _curves(page, directory, opts["by"], kinds, levels, contra, min_n)
    _heat(page, directory, opts["heat_bid"], opts["heat"], contra, min_n)
    _classes(page, directory, opts["classes"], kinds, levels, contra, min_n)
    _totals(page, directory, opts["bids"], contra)
    if manifest.get("sd"):
        _bias(page, directory, kinds, levels, contra)
    else:
        page.gap("Double dummy against hidden-card play",
                 f"{directory} has no single-dummy columns. Simulate with --dd --sd (e.g. "
                 "bazarsim simulate -n 3000 --dd --sd --out runs/bias) and build the report "
                 "of that dataset.")
    return page


BIAS_COLUMNS = [
    Column("bid", "bid", text, True), Column("n", "sides", count),
    Column("p_make_dd", "DD make %", pct(1)), Column("dd_low", "95% low %", pct(1)),
    Column("dd_high", "95% high %", pct(1)), Column("p_make_sd", "SD make %", pct(1)),
    Column("sd_low", "95% low %", pct(1)), Column("sd_high", "95% high %", pct(1)),
    Column("p_sd_given_dd_made", "SD if DD made %", pct(1)),
    Column("p_sd_given_dd_failed", "SD if DD down %", pct(1)),
    Column("points_gap", "points SD - DD", num(1, sign=True)),
    Column("se_points_gap", "SE (paired)", num(1)),
]


def _bias(page: Page, directory: str, kinds: list[str], levels, contra: str):
    from bazarsim.analysis.bias import bias_table

    res = bias_table(directory, kinds=kinds, levels=levels, contra=contra)
    page.section("bias", "Double dummy against hidden-card play",
                 f"The same deals and bids judged twice: with every card seen ({res['dd']}) "
                 f"and played out by four players who see only their own cards ({res['sd']}). "
                 "SD if DD made: how often a bid double dummy makes is also made at the "
                 "table; SD if DD down: how often real play makes one double dummy calls "
                 "down. Points SD - DD: the declaring side's card points, where DD makes.")
    rows = [r for r in res["rows"] if "CAPOT" not in r["bid"]]
    shown = list(dict.fromkeys(r["kind"] for r in rows))[:3]
    xs = list(dict.fromkeys(int(r["bid"][:-len(r["kind"])] or 0) for r in rows
                            if r["kind"] in shown))
    series = []
    for k in shown:
        for play, name in (("dd", "DD"), ("sd", "SD")):
            cells = {int(r["bid"][:-len(k)] or 0): r for r in rows if r["kind"] == k}
            series.append({"label": f"{k} {name}",
                           "p": [cells[x][f"p_make_{play}"] if x in cells else None
                                 for x in xs],
                           "lo": [cells[x][f"{play}_low"] if x in cells else None for x in xs],
                           "hi": [cells[x][f"{play}_high"] if x in cells else None
                                  for x in xs]})
    page.figure("bias", figures.rate_curves(
        "bias", f"P(make) double dummy and hidden-card play (n = {res['deals']:,} deals, "
        "two declaring sides each)", "bid level", [str(x) for x in xs], series),
        "Each kind twice: double dummy (DD) and single dummy (SD), with 95 % bands.")
    page.table("bias", "DD bias per bid", BIAS_COLUMNS, res["rows"],
               ["bazarsim", "table", "bias", directory, "--format", "json"])


def _resolve(directory, manifest, rs, by, kinds, levels, heat_bid, heat, classes, bids,
             contra) -> dict:
    """The DD sections' options with their defaults, each checked (one error line)."""
    from bazarsim.analysis.bids import check_bid_options, ruleset_bids
    from bazarsim.core.contracts import parse_kind

    kinds_all = manifest["kinds"]
    kinds = [KIND_NAMES[parse_kind(k)] for k in kinds] if kinds else list(kinds_all)
    for k in kinds:
        if k not in kinds_all:
            raise BazarsimError(f"--kinds {k}: not simulated in {directory} (it has "
                                f"{' '.join(kinds_all)})", k)
    if rs.scoring.scheme in ("bazar", "bazar-blot") and levels is None:
        low = rs.auction.min_level
        levels = list(range(low, low + LEVELS_SHOWN))
    d_by, d_heat, d_classes = default_features(manifest, rs)
    by = by or d_by
    heat = (heat[0] or d_heat[0], heat[1] or d_heat[1])
    classes = classes or d_classes
    check_bid_options(rs, contra, levels)
    ruleset_bids(rs, tuple(parse_kind(k) for k in kinds), levels, capot=False)
    for option, spec in (("--by", by), ("--heat-y", heat[0]), ("--heat-x", heat[1]),
                         ("--classes", classes)):
        parse_by(spec, option)
    if heat_bid:
        bid = parse_bid(heat_bid, rs)
    else:
        bid = Bid(parse_kind(kinds[0]), levels[0] if levels else 0)
    if bid.capot:
        raise BazarsimError(f"--heat-bid {heat_bid}: a capot bid; give a plain one, e.g. "
                            f"{bid.level}{KIND_NAMES[bid.kind]}", heat_bid)
    if KIND_NAMES[bid.kind] not in kinds_all:
        raise BazarsimError(f"--heat-bid {bid.label}: kind {KIND_NAMES[bid.kind]} not "
                            f"simulated in {directory} (it has {' '.join(kinds_all)})",
                            heat_bid)
    if not bids:
        if levels and len(kinds) == 1:
            bids = [f"{lv}{kinds[0]}" for lv in levels[:3]]
        else:
            low = levels[0] if levels else ""
            bids = [f"{low}{k}" for k in kinds[:6]]
    for b in bids:
        kn = KIND_NAMES[parse_bid(b, rs).kind]
        if kn not in kinds_all:
            raise BazarsimError(f"--bids {b}: kind {kn} not simulated in {directory}", b)
    return {"kinds": kinds, "levels": levels, "by": by, "heat_bid": bid,
            "heat": heat, "classes": classes, "bids": bids}


DD_NOTE = (
    "Every seat of every deal counts once as the possible declarer of every kind (play does "
    "not depend on who bid, so one DD table serves all four). Double dummy means every card "
    "is seen: defenders never err and declarers never guess, so real tables make fewer close "
    "contracts. The tables rank bids and hands well; they do not predict one table.")


def _curves(page: Page, directory: str, by: str, kinds: list[str], levels, contra, min_n):
    label = feature_label(by)
    feature = parse_by(by).name
    page.section("curves", f"Make rate by {feature}",
                 f"P(make) of each bid against the {label}, with its 95 % Wilson band. A "
                 f"point is drawn where at least {min_n} declarer rows fall in the class; "
                 "the table has every class.")
    page.paragraph(DD_NOTE, "note")
    rows = bid_table(directory, by=[by], kinds=kinds, levels=levels, contra=contra)
    order = _class_order(by)
    for k in kinds:
        krows = [r for r in rows if r["kind"] == k and not r["capot"]]
        present = [c for c in order if any(r[feature] == c for r in krows)]
        series = []
        for bid in dict.fromkeys(r["bid"] for r in krows):
            cells = {r[feature]: r for r in krows if r["bid"] == bid}
            pick = [cells.get(c) if cells.get(c) and cells[c]["n"] >= min_n else None
                    for c in present]
            series.append({"label": bid,
                           "p": [r["p_make"] if r else None for r in pick],
                           "lo": [r["ci_low"] if r else None for r in pick],
                           "hi": [r["ci_high"] if r else None for r in pick]})
        n = sum(r["n"] for r in krows if r["bid"] == krows[0]["bid"]) if krows else 0
        page.figure(f"curve-{k}", figures.rate_curves(
            f"curve-{k}", f"{KIND_NAMES_LONG.get(k, k)}: P(make) by {feature} "
            f"(n = {n:,} declarer rows)", label, present, series),
            f"Kind {k}: one line per bid; shaded: 95 % interval.")
    page.table("curves", f"P(make) by {feature}", bid_columns([feature]), rows,
               _table_argv(directory, [by], kinds, levels, contra), best=None)


KIND_NAMES_LONG = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs",
                   "BK": "no trump (BK)", "VK": "all trumps (VK)"}


def _heat(page: Page, directory: str, bid: Bid, heat: tuple[str, str], contra: str,
          min_n: int):
    y_by, x_by = heat
    kname = KIND_NAMES[bid.kind]
    yf, xf = parse_by(y_by).name, parse_by(x_by).name
    page.section("heat", f"P(make) of {bid.label} by {yf} and {xf}",
                 f"How often {bid.label} makes for each combination of the declarer's {yf} "
                 f"and {xf}. Cells with fewer than {min_n} declarer rows are left blank (the "
                 "table has them).")
    levels = [bid.level] if bid.level else None
    rows = bid_table(directory, by=[y_by, x_by], kinds=[kname], levels=levels, contra=contra)
    ys = [c for c in _class_order(y_by) if any(r[yf] == c for r in rows)]
    xs = [c for c in _class_order(x_by) if any(r[xf] == c for r in rows)]
    cell = {(r[yf], r[xf]): r for r in rows}
    def drawn(y, x):
        return (y, x) in cell and cell[(y, x)]["n"] >= min_n

    # rows and columns without one drawn cell stay in the table only
    ys = [y for y in ys if any(drawn(y, x) for x in xs)] or ys
    xs = [x for x in xs if any(drawn(y, x) for y in ys)] or xs
    values = [[cell[(y, x)]["p_make"] if drawn(y, x) else math.nan for x in xs] for y in ys]
    n = sum(r["n"] for r in rows)
    page.figure("heat", figures.heatmap(
        "heat", f"{bid.label}: P(make), % (n = {n:,} declarer rows)", feature_label(x_by),
        feature_label(y_by), xs, ys, values), f"Each cell: P(make) of {bid.label} in percent.")
    page.table("heat", f"P(make) of {bid.label} by {yf} and {xf}", bid_columns([yf, xf]),
               rows, _table_argv(directory, [y_by, x_by], [kname], levels, contra))


def _classes(page: Page, directory: str, classes: str, kinds, levels, contra, min_n):
    feature = parse_by(classes).name
    page.section("classes", f"Expected score per bid by {feature}",
                 "What each bid scores on average (declarers' points minus defenders'; "
                 "passing scores 0) for each class of the declarer's hand, with ± 1.96 SE "
                 "bars; the star marks each class's best bid"
                 + (f" among the levels shown ({_levels_text(levels)})" if levels else "")
                 + "; a class without a star loses on every bid, so passing is its best call. "
                 "Bold rows in the table are the best bids.")
    rows = bid_table(directory, by=[classes], kinds=kinds, levels=levels, contra=contra)
    bids = list(dict.fromkeys(r["bid"] for r in rows))
    lines = []
    for c in _class_order(classes):
        crow = {r["bid"]: r for r in rows if r[feature] == c}
        if not crow or max(r["n"] for r in crow.values()) < min_n:
            continue
        best = next((bids.index(b) for b, r in crow.items() if r["best"]), None)
        n = max(r["n"] for r in crow.values())
        lines.append({"label": f"{feature} {c} (n = {n:,})",
                      "e": [crow[b]["expected_score"] if b in crow else None for b in bids],
                      "se": [crow[b]["se_score"] if b in crow else None for b in bids],
                      "best": best})
    total = sum(r["n"] for r in rows if r["bid"] == bids[0]) if bids else 0
    page.figure("classes", figures.score_by_class(
        "classes", f"Expected score per bid by {feature} (n = {total:,} declarer rows)",
        "bid", bids, lines), "Expected score per bid; lines: classes of the declarer's hand.")
    page.table("classes", f"Bids by {feature}", bid_columns([feature]), rows,
               _table_argv(directory, [classes], kinds, levels, contra), best="best")


TOTAL_COLUMNS = [
    Column("bid", "bid", text, True), Column("total_low", "total from", count),
    Column("total_high", "to", count), Column("made", "made", count),
    Column("failed", "failed", count), Column("made_share", "made, % of rows", pct(2)),
    Column("failed_share", "failed, % of rows", pct(2)),
    Column("n", "bid's rows", count),
]


def _totals(page: Page, directory: str, bids: list[str], contra: str):
    page.section("totals", "The declaring side's points",
                 "Distribution of the points the declaring side takes (cards and last trick "
                 "with perfect play, plus the declarations and bela that count for it), split "
                 "by whether the bid made. Bars: share of the bid's declarer rows.")
    rows = side_totals(directory, bids, 10, contra)
    panels = []
    for b in dict.fromkeys(r["bid"] for r in rows):
        br = [r for r in rows if r["bid"] == b]
        panels.append({"label": b, "bins": [r["total_low"] for r in br],
                       "made": [r["made_share"] for r in br],
                       "failed": [r["failed_share"] for r in br],
                       "n": br[0]["n"]})
    page.figure("totals", figures.totals_histogram(
        "totals", "Declaring side's total, made and failed", panels, 10),
        "One panel per bid: the side's total in bins of 10 points.")
    page.table("totals", "Declaring side's totals", TOTAL_COLUMNS, rows)
    page.paragraph("A bid's made and failed rows add up to its n and made in "
                   f"bazarsim table bids {directory} --kinds ... --levels ... .", "note")


# --------------------------------------------------------------------------- one hand


HAND_COLUMNS = [
    Column("bid", "bid", text, True), Column("n", "deals", count),
    Column("made", "made", count), Column("p_make", "make %", pct(1)),
    Column("ci_low", "95% low %", pct(1)), Column("ci_high", "95% high %", pct(1)),
    Column("mean_total", "side total", num(1)), Column("se_total", "SE", num(1)),
    Column("p_capot", "capot %", pct(1)),
    Column("expected_score", "E[score]", num(1, sign=True)), Column("se_score", "SE", num(1)),
    Column("rank", "rank", count), Column("behind_best", "behind best", num(1)),
    Column("se_behind_best", "SE (paired)", num(1)),
]


def _changed_options(rs) -> str:
    defaults = get_ruleset(rs.name).options()
    changed = [f"{k}={v}" for k, v in rs.options().items() if defaults.get(k) != v]
    return ", ".join(changed) or "none (the ruleset's defaults)"


def hand_page(analyses: list, every_bid: bool = False, title: str | None = None,
              fix: list[str] | None = None, where: list[str] | None = None) -> Page:
    """One section per analysed hand: what was asked (hand, seat, dealer, ruleset and its
    changed options, kinds, contra, the auction's constraints ``fix`` and ``where``, seed,
    deals and why dealing stopped), P(make) per bid with intervals, expected score per
    bid, the notes of the text output, and the table of every bid."""
    first = analyses[0]
    page = Page(title or (f"Hand analysis: {hand_title(first)}" if len(analyses) == 1
                          else f"Hand analysis: {len(analyses)} hands"),
                lead="For a hand as seen at bid time: the unseen cards dealt at random, every "
                "deal solved double dummy for every kind, and every bid scored on the same "
                "deals.")
    for i, a in enumerate(analyses):
        q = a.query.describe()
        page.section(f"hand-{i + 1}", hand_title(a))
        cons = "; ".join([*(f"fixed {x}" for x in fix or []),
                          *(f"where {x}" for x in where or [])])
        page.meta([(k, str(v)) for k, v in q.items() if v not in (None, "", [], {})]
                  + [("ruleset options changed", _changed_options(a.query.ruleset)),
                     ("contract kinds", " ".join(KIND_NAMES[k] for k in a.query.kinds)),
                     ("contra", {0: "none", 1: "x", 2: "xx"}.get(a.query.contra, "?")),
                     ("what the auction told", cons or "nothing: every deal of the unseen "
                      "cards"),
                     ("seed", str(a.seed)), ("deals", f"{a.deals:,}")])
        for line in hand_notes(a, every_bid):
            page.paragraph(line, "note")
        records = hand_json_records(a)
        shown = {r["bid"] for r in hand_records(a, Format.table, every_bid)}
        fig_rows = [r for r in records if r["bid"] in shown]
        best = next((j for j, r in enumerate(fig_rows) if r["best"]), None)
        left_out = len(records) - len(fig_rows)
        why = (f" {left_out} bids that make less than 10 % of the time are left out of the "
               "figures (the table has every bid)." if left_out else "")
        page.figure(f"pmake-{i + 1}", figures.bid_bars(
            f"pmake-{i + 1}", f"P(make) per bid (n = {a.deals:,} deals)",
            [r["bid"] for r in fig_rows], [r["p_make"] for r in fig_rows],
            [r["ci_low"] for r in fig_rows], [r["ci_high"] for r in fig_rows],
            "P(make), % (95 % Wilson interval)", best, percent=True),
            "Bars: P(make) with perfect play; whiskers: 95 % interval; outlined: the best "
            "bid." + why)
        page.figure(f"score-{i + 1}", figures.bid_bars(
            f"score-{i + 1}", f"Expected score per bid (n = {a.deals:,} deals)",
            [r["bid"] for r in fig_rows], [r["expected_score"] for r in fig_rows],
            [_minus(r["expected_score"], r["se_score"]) for r in fig_rows],
            [_plus(r["expected_score"], r["se_score"]) for r in fig_rows],
            "expected score, points a deal (declarers − defenders; ± 1.96 SE)", best,
            zero_label="pass"),
            "Bars: mean score of the bid over the sample deals; dashed: passing (0); "
            "whiskers: ± 1.96 SE; outlined: the best bid." + why)
        page.table(f"hand-{i + 1}", "Every bid", HAND_COLUMNS, records, best="best")
    return page


def _minus(e, se):
    return None if e is None or se is None else e - 1.96 * se


def _plus(e, se):
    return None if e is None or se is None else e + 1.96 * se


# --------------------------------------------------------------------------- studies


def _dataset_facts(page: Page, directory: str) -> None:
    """The studied dataset's run, folded (as a dataset page's What was run)."""
    items, _ = run_items(directory, read_manifest(directory))
    page.details(f"the dataset's run: {directory}", [(k, v) for k, v in items
                                                     if k not in ("dataset", "report by")])


def threshold_rows(res: dict) -> list[dict]:
    """The rows behind every class, flattened (the within-class label on each)."""
    within = res["within"]
    return [{**({within: c[within]} if within else {}), **r} for c in res["classes"]
            for r in c["rows"]]


def threshold_figures(page: Page, res: dict) -> None:
    """One figure per class of a threshold study: raw rates, the monotone fit, the target
    and the threshold with its interval."""
    feature, within = res["feature"], res["within"]
    for i, c in enumerate(res["classes"]):
        name = f" ({within} {c[within]})" if within else ""
        rows = c["rows"]
        page.figure(f"threshold-{i + 1}", figures.threshold_figure(
            f"threshold-{i + 1}", f"{res['bid']}: P(make) by {feature}{name} "
            f"(n = {c['n']:,} declarer rows)", FEATURE_LABELS.get(feature, feature),
            [r[feature] for r in rows], [r["p_make"] for r in rows],
            [r["ci_low"] for r in rows], [r["ci_high"] for r in rows],
            [r["fitted"] for r in rows], c["target"] if c["target"] is not None else math.nan,
            c["threshold"], (c["ci_low"], c["ci_high"])),
            "Dots: raw rate per value with its 95 % interval; steps: the monotone fit; "
            "dashed: the target; line and band: the threshold and its bootstrap interval.")


def threshold_tables(res: dict) -> dict[str, tuple[list[Column], list[dict]]]:
    """The threshold study's two tables, ``thresholds`` (one row a class) and ``rates`` (one
    row a value of the feature), as columns and records."""
    res = strict(res)
    feature, within = res["feature"], res["within"]
    key = [Column(within, within, text, True)] if within else []
    summary = [{k: v for k, v in c.items() if k != "rows"} for c in res["classes"]]
    return {
        "thresholds": (key + [
            Column("n", "n", count), Column("made", "made", count),
            Column("p_make", "make %", pct(1)),
            Column("mean_score_made", "score made", num(1, sign=True)),
            Column("mean_score_failed", "score failed", num(1, sign=True)),
            Column("target", "target %", pct(1)), Column("threshold", "threshold", num(0)),
            Column("ci_low", "95% low", num(0)), Column("ci_high", "95% high", num(0)),
            Column("share_not_reached", "not reached %", pct(0))], summary),
        "rates": (key + [
            Column(feature, feature, count), Column("n", "n", count),
            Column("made", "made", count), Column("p_make", "make %", pct(1)),
            Column("ci_low", "95% low %", pct(1)), Column("ci_high", "95% high %", pct(1)),
            Column("fitted", "fitted %", pct(1)),
            Column("reaches", "reaches target", text, True)], threshold_rows(res)),
    }


def threshold_page(res: dict, title: str | None = None) -> Page:
    res = strict(res)
    feature, within = res["feature"], res["within"]
    page = Page(title or f"Threshold of {feature} for {res['bid']}",
                lead=f"From which {feature} on does {res['bid']} pay? Raw make rates, their "
                "monotone fit, the target and the threshold with its bootstrap interval "
                f"({played(res)}).")
    page.section("study", "What was studied")
    page.meta([("dataset", res["dataset"]), ("bid", res["bid"]), ("feature", feature),
               ("within", within or "-"), ("target", res["target_rule"]),
               ("contra", str(res["contra"])), ("bootstrap", f"{res['replicates']} "
               f"replicates of {res['groups']} deal groups, seed {res['seed']}")])
    page.paragraph(threshold_note(res), "note")
    _dataset_facts(page, res["dataset"])
    tables = threshold_tables(res)
    page.section("thresholds", "Thresholds")
    page.table("thresholds", "Threshold per class", *tables["thresholds"])
    page.section("rates", "Rates and fit per class")
    threshold_figures(page, res)
    page.table("rates", "Rates per value", *tables["rates"])
    return page


def convention_page(res: dict, title: str | None = None) -> Page:
    res = strict(res)
    page = Page(title or f"Hand counts predicting {res['bid']}",
                lead="Which hand count predicts making the bid best: AUC, Brier score and "
                f"log-loss of a cross-fitted monotone fit, and calibration ({played(res)}).")
    page.section("study", "What was studied")
    page.meta([("dataset", res["dataset"]), ("bid", res["bid"]),
               ("declarer rows", f"{res['n']:,}"), ("make %", f"{100 * res['p_make']:.1f}")])
    page.paragraph(convention_note(res), "note")
    _dataset_facts(page, res["dataset"])
    page.section("counts", "Counts")
    counts = [{k: v for k, v in c.items() if k != "calibration"} for c in res["counts"]]
    page.table("counts", "Counts", [
        Column("name", "count", text, True), Column("formula", "formula", text, True),
        Column("auc", "AUC", num(3)), Column("brier", "Brier", num(4)),
        Column("brier_constant", "Brier (constant)", num(4)),
        Column("brier_skill", "skill %", pct(1)),
        Column("brier_vs_best", "Brier vs best", num(4, sign=True)),
        Column("se_vs_best", "SE", num(4)), Column("log_loss", "log-loss", num(4)),
        Column("best", "best", text, True)], counts, best="best")
    page.section("calibration", "Calibration")
    page.figure("calibration", figures.calibration(
        "calibration", f"Calibration (n = {res['n']:,} declarer rows)",
        [{"label": c["name"], "predicted": [r["mean_predicted"] for r in c["calibration"]],
          "observed": [r["observed"] for r in c["calibration"]]} for c in res["counts"]]),
        "Observed make rate against the predicted P(make), per bin of predictions.")
    rows = [{"count": c["name"], **r} for c in res["counts"] for r in c["calibration"]]
    page.table("calibration", "Calibration bins", [
        Column("count", "count", text, True), Column("bin", "predicted", text, True),
        Column("n", "n", count), Column("mean_predicted", "mean predicted %", pct(1)),
        Column("observed", "observed %", pct(1))], rows)
    return page


__all__ = ["dataset_page", "hand_page", "threshold_page", "convention_page"]
