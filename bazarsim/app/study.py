"""The study browser: a dataset's bid table, its DD bias and a threshold study, asked from a
form and answered by a worker.

The form's options are checked by the functions the CLI checks them with (``open_study``,
``parse_by``, ``open_bid_study``), and the answer holds the records ``table bids``, ``table
bias`` and ``study threshold`` print with ``--format json`` for the same options, in the
static pages' columns and figure, each table with its command line and its CSV. The page's
``--by`` preview and :func:`by_expression` build the same values, so what a coach sees is
what the CLI takes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bazarsim.analysis.bids import (
    CONTRAS,
    FEATURES,
    KIND_FEATURES,
    SEEN_FEATURES,
    bid_table,
    has_levels,
    open_study,
    parse_bid,
    parse_by,
    play_key,
    play_name,
    ruleset_bids,
)
from bazarsim.analysis.threshold import open_bid_study, plain_feature, threshold_study
from bazarsim.app.paths import dataset_dir, dataset_manifest, inside, safe_path
from bazarsim.app.task import Progress, Task, field
from bazarsim.core.contracts import KIND_NAMES, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.core.ranges import parse_levels
from bazarsim.deals.bidtime import bid_time
from bazarsim.engine.simulation import ruleset_from_params
from bazarsim.report.html import Page, shell_line, table_csv
from bazarsim.report.pages import (
    BIAS_COLUMNS,
    DEFAULT_CLASSES,
    FEATURE_LABELS,
    LEVELS_SHOWN,
    bid_columns,
    threshold_figures,
    threshold_tables,
)
from bazarsim.report.records import strict
from bazarsim.report.study import threshold_note
from bazarsim.store.parts import MANIFEST, read_manifest

MAX_DEPTH = 3  # how deep under the data root datasets are looked for
MAX_CLASSES = 2048  # classes of one bid table (its histogram is 8 kB a class and kind)

# the classes a feature row starts with (a feature without edges: one class a value)
EDGES = {"points": DEFAULT_CLASSES.partition("=")[2], "trumps": "0..2,3,4,5..",
         "declarations": "0,20..40,50..",
         **{f"len_{s}": "0..2,3,4.." for s in "SHDC"}}
EDGES.update({f: EDGES[f.removeprefix("seen_")] for f in SEEN_FEATURES
              if f.removeprefix("seen_") in EDGES})


# --------------------------------------------------------------------------- datasets


def find_datasets(root: Path | None) -> list[tuple[str, dict]]:
    """``(relative path, manifest)`` of every dataset under the data root, at most
    :data:`MAX_DEPTH` levels down, in path order. Hidden directories are skipped; a link
    is listed only where it leads to a dataset inside the root, and never descended into
    (no loops, nothing outside)."""
    base = safe_path(root, ".", "data directory")
    found: list[tuple[str, dict]] = []

    def add(path: Path, name: str) -> bool:
        manifest_path = path / MANIFEST
        if not manifest_path.is_file() or not inside(manifest_path.resolve(), base):
            return False
        try:
            found.append((name, dataset_manifest(path, name)))
        except BazarsimError:  # damaged: the form cannot use it
            pass
        return True

    def visit(path: Path, depth: int) -> None:
        if depth >= MAX_DEPTH:
            return
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError:
            return
        for e in entries:
            if e.name.startswith(".") or not e.is_dir():
                continue
            sub = Path(e.path)
            name = sub.relative_to(base).as_posix()
            if e.is_symlink():
                if inside(sub.resolve(), base):
                    add(sub, name)
                continue
            if not add(sub, name):  # a dataset holds parts, not datasets
                visit(sub, depth + 1)

    if not add(base, "."):
        visit(base, 0)
    return sorted(found, key=lambda item: item[0])


def _seen_ok(manifest: dict, rs) -> bool:
    """Whether the seen_ features differ from the plain ones and the dataset has them."""
    return bid_time(rs) is not None and bool(manifest.get("bid_time"))


def datasets_info(root: Path | None, query: dict[str, str]) -> dict:
    """Every dataset under the data root, with what the form's list shows."""
    out = []
    for name, m in find_datasets(root):
        out.append({"path": name, "ruleset": m["ruleset"], "deals": m.get("deals", 0),
                    "dd": bool(m.get("dd")), "sd": bool(m.get("sd")),
                    "kinds": list(m.get("kinds", [])), "auction": "auction" in m})
    return {"datasets": out}


def dataset_info(root: Path | None, query: dict[str, str]) -> dict:
    """One dataset's facts for the form: kinds, bid levels, features with their default
    edges and labels, contra and play choices, whether the bias table can be drawn."""
    path = str(query.get("path") or "").strip()
    if not path:
        raise BazarsimError("no dataset given: choose one from the list")
    _, m = dataset_dir(root, path)
    rs = ruleset_from_params(m)
    kinds = list(m["kinds"])
    levels = {}
    if has_levels(rs):
        for b in ruleset_bids(rs, tuple(parse_kind(k) for k in kinds), capot=False):
            levels.setdefault(KIND_NAMES[b.kind], []).append(b.level)
    low = rs.auction.min_level
    seen = _seen_ok(m, rs)
    features = [f for f in FEATURES if f not in SEEN_FEATURES or seen]
    plays = [p for p in ("dd", "sd") if m.get(p)]
    return {
        "path": path, "ruleset": m["ruleset"], "deals": m.get("deals", 0), "kinds": kinds,
        "has_levels": has_levels(rs), "levels": levels,
        "default_levels": f"{low}..{low + LEVELS_SHOWN - 1}" if has_levels(rs) else "",
        "features": features, "kind_features": [f for f in KIND_FEATURES if f in features],
        "labels": {f: FEATURE_LABELS.get(f, f) for f in features},
        "edges": {f: EDGES.get(f, "") for f in features},
        "default_by": [{"feature": "seen_points" if seen else "points",
                        "edges": EDGES["points"], "kind": ""}],
        "contras": [c for c, code in CONTRAS.items() if not code or rs.auction.contra],
        "plays": plays, "play_names": {p: play_name(p, m) for p in plays},
        "dd": bool(m.get("dd")), "sd": bool(m.get("sd")),
        "bias": bool(m.get("dd") and m.get("sd")),
        "threshold_features": features,
        "default_threshold_feature": "seen_points" if seen else "points",
    }


INFO = {"datasets": datasets_info, "dataset": dataset_info}


# --------------------------------------------------------------------------- the form


def by_expression(features: list[tuple[str, str | None, str | None]]) -> list[str]:
    """The ``--by`` values of the form's feature rows ``(name, edges, kind)``, as the CLI
    takes them: ``name[@KIND][=edges]``, each edge stripped (the page's preview builds
    them alike, in :data:`BY_JS`)."""
    out = []
    for name, edges, kind in features:
        name = "" if name is None else str(name).strip()
        kind = "" if kind is None else str(kind).strip().upper()
        parts = [p.strip() for p in ("" if edges is None else str(edges)).split(",")]
        spec = ",".join(parts) if any(parts) else ""
        out.append(name + (f"@{kind}" if kind else "") + (f"={spec}" if spec else ""))
    return out


def levels_text(levels: list[int]) -> str:
    """Levels as ``--levels`` takes them: ``8..11`` when consecutive, else ``8,10``."""
    if len(levels) > 1 and levels == list(range(levels[0], levels[-1] + 1)):
        return f"{levels[0]}..{levels[-1]}"
    return ",".join(str(v) for v in levels)


def kinds_list(value: Any) -> list[str] | None:
    """Kinds from a list or comma (or space) text, in their short names; None: all."""
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    names = [t for item in items for t in str(item).replace(",", " ").split()]
    return [KIND_NAMES[parse_kind(t)] for t in names] or None


def _by_rows(value: Any) -> list[tuple[str, str | None, str | None]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise BazarsimError("by: give a list of feature rows")
    rows = []
    for r in value:
        if isinstance(r, str):  # a --by value as the CLI takes it
            name, eq, edges = r.partition("=")
            name, _, kind = name.partition("@")
            rows.append((name, edges if eq else None, kind or None))
        elif isinstance(r, dict):
            if not str(r.get("feature") or "").strip():
                raise BazarsimError("a feature row without its feature: choose one or "
                                    "remove the row")
            rows.append((r.get("feature"), r.get("edges"), r.get("kind")))
        else:
            raise BazarsimError(f"by: {r!r} is not a feature row")
    return rows


def study_params(fields: dict[str, Any], root: Path | None) -> dict[str, Any]:
    """The form checked as ``table bids``, ``table bias`` and ``study threshold`` check
    their options (one error line for each mistake); the worker's parameters."""
    path = field(fields, "path")
    if path is None:
        raise BazarsimError("choose a dataset")
    directory, manifest = dataset_dir(root, str(path))
    rs = ruleset_from_params(manifest)
    asked = field(fields, "kinds")
    if asked == []:
        raise BazarsimError("choose at least one contract kind")
    kinds = kinds_list(asked) or list(manifest["kinds"])
    levels = parse_levels(field(fields, "levels"))
    by = by_expression(_by_rows(field(fields, "by")))
    classers = [parse_by(b) for b in by]
    names = [c.name for c in classers]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise BazarsimError(f"--by {twice[0]} twice: class by each feature once")
    contra = str(field(fields, "contra", "none")).lower()
    play = play_key(field(fields, "play", "dd"))
    study = open_study(directory, by, kinds, levels, None, contra, play)
    if study.n_classes > MAX_CLASSES:
        raise BazarsimError(f"{study.n_classes:,} classes of the declarer's hand, more than "
                            f"{MAX_CLASSES:,}: give the features edges, e.g. "
                            f"points={EDGES['points']}")
    feature_text = str(field(fields, "threshold_feature", "points"))
    bid_text = field(fields, "threshold_bid")
    if bid_text is None:
        low = levels[0] if levels else rs.auction.min_level
        bid_text = f"{low}{kinds[0]}" if has_levels(rs) else kinds[0]
    try:
        bid = parse_bid(str(bid_text), rs)
    except BazarsimError as e:
        raise BazarsimError(f"threshold bid {bid_text!r}: {e}") from None
    if bid.capot:
        raise BazarsimError(f"threshold bid {bid_text}: a capot bid; give a plain one, e.g. "
                            f"{bid.level}{KIND_NAMES[bid.kind]}")
    kind = KIND_NAMES[bid.kind]
    feature = parse_by(feature_text, "threshold feature")
    plain_feature(feature_text, "threshold feature", kind)
    level = bid.level if has_levels(rs) else None
    open_bid_study(directory, kind, level, None, contra, [feature], play)
    return {"dataset": str(directory), "name": str(path).strip(), "kinds": kinds,
            "levels": levels, "by": by, "contra": contra, "play": play,
            "threshold": {"feature": feature.feature, "kind": kind, "level": level},
            "bias": bool(manifest.get("dd") and manifest.get("sd"))}


# --------------------------------------------------------------------------- the work


def _argv(params: dict, what: str) -> list[str]:
    """The command line whose JSON output holds a table's records."""
    d, levels, contra, play = (params["dataset"], params["levels"], params["contra"],
                               params["play"])
    if what == "threshold":
        t = params["threshold"]
        argv = ["bazarsim", "study", "threshold", d, "--kinds", t["kind"]]
        if t["level"] is not None:
            argv += ["--level", str(t["level"])]
        argv += ["--by", t["feature"]]
    else:
        argv = ["bazarsim", "table", what, d]
        if what == "bids":
            for b in params["by"]:
                argv += ["--by", b]
        argv += ["--kinds", ",".join(params["kinds"])]
        if levels:
            argv += ["--levels", levels_text(levels)]
    if contra != "none":
        argv += ["--contra", contra]
    if play != "dd" and what != "bias":
        argv += ["--play", play]
    return argv + ["--format", "json"]


def study_run(params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """The bid table, the bias table (or why not) and the threshold study, as one page
    fragment, with each table's records, CSV and command line."""
    d, name = params["dataset"], params["name"]
    manifest = read_manifest(d)
    page = Page(f"Study of {name}")
    levels = params["levels"]
    page.meta([("dataset", name), ("ruleset", manifest["ruleset"]),
               ("deals", f"{manifest['deals']:,}"), ("play", play_name(params["play"],
                                                                        manifest)),
               ("kinds", " ".join(params["kinds"])),
               ("levels", levels_text(levels) if levels else "every level, and capot bids"),
               ("contra", params["contra"])])

    progress(0.0, "bid table")
    rows = strict(bid_table(d, by=params["by"], kinds=params["kinds"], levels=levels,
                            contra=params["contra"], play=params["play"]))
    keys = [parse_by(b).name for b in params["by"]]
    page.section("bids", "Bids" + (f" by {', '.join(keys)}" if keys else ""),
                 "For each class of the declarer's hand and each bid: how often it makes "
                 "(95 % Wilson interval), the declaring side's total and the expected score "
                 "(declarers minus defenders; passing scores 0). Bold: each class's best "
                 "bid. Every seat counts as the possible declarer.")
    page.table("bids", "Bids", bid_columns(keys), rows, _argv(params, "bids"), best="best")

    progress(0.4, "double dummy against hidden-card play")
    page.section("bias", "Double dummy against hidden-card play")
    if params["bias"]:
        from bazarsim.analysis.bias import bias_table

        try:
            res = strict(bias_table(d, kinds=params["kinds"], levels=levels,
                                    contra=params["contra"]))
        except BazarsimError as e:
            page.gap("DD bias table", str(e))
        else:
            page.paragraph(f"The same deals and bids judged twice: {res['dd']} and "
                           f"{res['sd']}.", "note")
            page.table("bias", "DD bias per bid", BIAS_COLUMNS, res["rows"],
                       _argv(params, "bias"))
    else:
        page.gap("DD bias table", f"{name} has no " + (
            "single-dummy" if manifest.get("dd") else "double-dummy") + " columns: the "
            "table needs both (simulate with --dd --sd, e.g. bazarsim simulate -n 3000 --dd "
            "--sd --out runs/bias).")

    progress(0.6, "threshold study")
    _threshold(page, params)
    progress(1.0, "page")
    tables = {tid: rows for tid, (_, rows) in page.tables.items()}
    return strict({
        "html": page.fragment(), "tables": tables,
        "csv": {tid: table_csv(cols, rows) for tid, (cols, rows) in page.tables.items()},
        "command": {tid: shell_line(_argv(params, "threshold" if tid in ("thresholds", "rates")
                                          else tid)) for tid in page.tables},
    })


def _threshold(page: Page, params: dict) -> None:
    """The threshold study's section: figure as the threshold page draws it, and its two
    tables in that page's columns."""
    t = params["threshold"]
    try:
        res = strict(threshold_study(params["dataset"], t["kind"], t["feature"],
                                     level=t["level"], contra=params["contra"],
                                     play=params["play"]))
    except BazarsimError as e:
        page.section("threshold", f"Threshold of {t['feature']}")
        page.gap("Threshold study", str(e))
        return
    feature = res["feature"]
    page.section("threshold", f"Threshold of {feature} for {res['bid']}",
                 f"From which {feature} on does {res['bid']} pay? Raw make rates, their "
                 "monotone fit, the target and the threshold with its bootstrap interval.")
    page.paragraph(threshold_note(res), "note")
    threshold_figures(page, res)
    static = threshold_tables(res)  # the static page's columns and records
    argv = _argv(params, "threshold")
    for tid, caption in (("thresholds", "Threshold per class"), ("rates", "Rates per value")):
        columns, rows = static[tid]
        page.table(tid, caption, columns, rows, argv)


STUDY_TASKS = {"study": Task("study", study_params, study_run)}


# --------------------------------------------------------------------------- the screen


# The --by preview: the same values as by_expression (a test runs both).
BY_JS = r"""
function studyByExpression(rows) {
  return rows.map(function (r) {
    var name = r.feature == null ? "" : String(r.feature).trim();
    var kind = r.kind == null ? "" : String(r.kind).trim().toUpperCase();
    var parts = (r.edges == null ? "" : String(r.edges)).split(",").map(function (p) {
      return p.trim();
    });
    var spec = parts.some(function (p) { return p !== ""; }) ? parts.join(",") : "";
    return name + (kind ? "@" + kind : "") + (spec ? "=" + spec : "");
  });
}

function studyShellQuote(s) {
  if (s === "") return "''";
  if (/^[A-Za-z0-9_@%+=:,.\/-]+$/.test(s)) return s;
  return "'" + s.replace(/'/g, "'\"'\"'") + "'";
}
"""

SCREEN_JS = r"""
function studyScreen() {
  var form = document.getElementById("study-form");
  if (!form || form.dataset.ready) return;
  form.dataset.ready = "1";
  var $ = function (id) { return document.getElementById(id); };
  var select = $("study-dataset"), kindsBox = $("study-kinds"), rowsBox = $("study-by-rows");
  var preview = $("by-expression"), status = $("study-status"), result = $("study-result");
  var downloads = $("study-downloads"), runButton = $("study-run");
  var facts = null, asked = 0;

  function option(sel, value, text) {
    var o = document.createElement("option");
    o.value = value;
    o.textContent = text;
    sel.appendChild(o);
    return o;
  }
  function say(message) {
    status.textContent = message || "";
  }
  function featureRows() {
    return Array.prototype.map.call(rowsBox.querySelectorAll(".by-row"), function (row) {
      var kind = row.querySelector(".by-kind");
      return {feature: row.querySelector(".by-feature").value,
              edges: row.querySelector(".by-edges").value,
              kind: kind.disabled ? "" : kind.value};
    });
  }
  function showPreview() {
    var values = studyByExpression(featureRows());
    preview.dataset.by = JSON.stringify(values);
    preview.textContent = values.length ? values.map(function (v) {
      return "--by " + studyShellQuote(v);
    }).join(" ") : "(no classes: one row per bid)";
  }
  function addRow(feature, edges, kind) {
    var row = document.createElement("div");
    row.className = "by-row";
    var fsel = document.createElement("select");
    fsel.className = "by-feature";
    fsel.setAttribute("aria-label", "feature");
    facts.features.forEach(function (f) { option(fsel, f, f + ": " + facts.labels[f]); });
    fsel.value = feature;
    var edgesIn = document.createElement("input");
    edgesIn.className = "by-edges";
    edgesIn.setAttribute("aria-label", "classes (edges)");
    edgesIn.placeholder = "every value, or e.g. 0..2,3,4..";
    edgesIn.value = edges || "";
    var ksel = document.createElement("select");
    ksel.className = "by-kind";
    ksel.setAttribute("aria-label", "counted in kind");
    option(ksel, "", "in the bid's kind");
    facts.kinds.forEach(function (k) { option(ksel, k, "in " + k); });
    ksel.value = kind || "";
    var remove = document.createElement("button");
    remove.type = "button";
    remove.className = "by-remove";
    remove.textContent = "Remove";
    function kindOk() {
      ksel.disabled = facts.kind_features.indexOf(fsel.value) < 0;
    }
    fsel.addEventListener("change", function () {
      edgesIn.value = facts.edges[fsel.value] || "";
      kindOk();
      showPreview();
    });
    edgesIn.addEventListener("input", showPreview);
    ksel.addEventListener("change", showPreview);
    remove.addEventListener("click", function () { row.remove(); showPreview(); });
    kindOk();
    [fsel, edgesIn, ksel, remove].forEach(function (el) { row.appendChild(el); });
    rowsBox.appendChild(row);
    showPreview();
  }
  function fill(info) {
    facts = info;
    kindsBox.querySelectorAll("label").forEach(function (el) { el.remove(); });
    info.kinds.forEach(function (k) {
      var label = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox";
      box.name = "kinds";
      box.value = k;
      box.checked = true;
      label.appendChild(box);
      label.appendChild(document.createTextNode(" " + k));
      kindsBox.appendChild(label);
    });
    var levels = $("study-levels");
    levels.disabled = !info.has_levels;
    levels.value = info.default_levels;
    var all = [].concat.apply([], Object.keys(info.levels).map(function (k) {
      return info.levels[k];
    }));
    levels.placeholder = info.has_levels ? "e.g. " + info.default_levels + " (blank: " +
      Math.min.apply(null, all) + ".." + Math.max.apply(null, all) + " and capot)" :
      "no levels in " + info.ruleset;
    rowsBox.textContent = "";
    info.default_by.forEach(function (r) { addRow(r.feature, r.edges, r.kind); });
    var contra = $("study-contra");
    contra.textContent = "";
    info.contras.forEach(function (c) { option(contra, c, c); });
    var play = $("study-play");
    play.textContent = "";
    info.plays.forEach(function (p) { option(play, p, p + ": " + info.play_names[p]); });
    var tf = $("study-threshold-feature");
    tf.textContent = "";
    info.threshold_features.forEach(function (f) { option(tf, f, f); });
    tf.value = info.default_threshold_feature;
    $("study-threshold-bid").value = "";
    $("study-threshold-bid").placeholder = "default: the first kind at its lowest level";
    $("study-bias-note").textContent = info.bias ? "" :
      "No DD bias table: this dataset lacks " + (info.dd ? "single" : "double") +
      "-dummy columns.";
    runButton.disabled = false;
  }
  function choose() {
    var path = select.value;
    var mine = ++asked;
    runButton.disabled = true;
    facts = null;
    result.textContent = "";
    downloads.textContent = "";
    if (!path) return;
    say("");
    bz.info("dataset", {path: path}).then(function (info) {
      if (mine === asked) fill(info);
    }, function (err) {
      if (mine === asked) say(err.message);
    });
  }
  function fields() {
    var kinds = Array.prototype.filter.call(kindsBox.querySelectorAll("input"), function (b) {
      return b.checked;
    }).map(function (b) { return b.value; });
    return {path: select.value, kinds: kinds, levels: $("study-levels").value,
            by: featureRows(), contra: $("study-contra").value, play: $("study-play").value,
            threshold_feature: $("study-threshold-feature").value,
            threshold_bid: $("study-threshold-bid").value};
  }
  function offer(res, name) {
    downloads.textContent = "";
    Object.keys(res.csv || {}).forEach(function (id) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "csv";
      b.dataset.table = id;
      b.textContent = "CSV: " + id;
      b.title = res.command[id] || "";
      b.addEventListener("click", function () {
        bz.download(name.replace(/[^A-Za-z0-9_.-]+/g, "_") + "." + id + ".csv", res.csv[id]);
      });
      downloads.appendChild(b);
    });
  }

  $("study-by-add").addEventListener("click", function () {
    if (facts) addRow(facts.features[0], facts.edges[facts.features[0]], "");
  });
  select.addEventListener("change", choose);
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    if (!facts) return;
    var name = select.value;
    runButton.disabled = true;
    downloads.textContent = "";
    result.textContent = "";
    bz.run("study", fields(), {status: status}).then(function (res) {
      runButton.disabled = false;
      if (!res) return;
      result.innerHTML = res.html;
      offer(res, name);
    }, function (err) {
      runButton.disabled = false;
      say(err && err.message ? err.message : String(err));
    });
  });
  bz.info("datasets", {}).then(function (info) {
    select.textContent = "";
    if (!info.datasets.length) {
      option(select, "", "(no dataset under the data directory)");
      return;
    }
    option(select, "", "choose a dataset");
    info.datasets.forEach(function (d) {
      var o = option(select, d.path, d.path + ": " + d.ruleset + ", " +
        d.deals.toLocaleString("en") + " deals, kinds " + d.kinds.join(" ") +
        (d.dd ? ", DD" : ", no DD") + (d.sd ? ", SD" : ""));
      o.disabled = !d.dd && !d.sd;
    });
  }, function (err) { say(err.message); });
}

window.bzStudy = {byExpression: studyByExpression, shellQuote: studyShellQuote};
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", studyScreen);
} else {
  studyScreen();
}
"""

SCREEN_HTML = """<section id="study" class="screen">
<p class="lead">A simulated dataset's bids by class of the declarer's hand, double dummy
against hidden-card play, and the threshold of a hand feature for one bid: the numbers of
<code>bazarsim table bids</code>, <code>table bias</code> and <code>study threshold</code>.</p>
<form id="study-form" autocomplete="off">
<p><label for="study-dataset">Dataset</label>
<select id="study-dataset" name="path" required><option value="">(loading)</option></select></p>
<fieldset id="study-kinds"><legend>Contract kinds</legend></fieldset>
<p><label for="study-levels">Levels</label>
<input id="study-levels" name="levels" placeholder="e.g. 8..11"></p>
<fieldset id="study-by"><legend>Class the declarer's hand by</legend>
<div id="study-by-rows"></div>
<p><button type="button" id="study-by-add">Add a feature</button></p>
<p class="note">As the command line takes it: <code id="by-expression" data-by="[]"></code></p>
</fieldset>
<p><label for="study-contra">Contra</label> <select id="study-contra" name="contra"></select>
<label for="study-play">Play</label> <select id="study-play" name="play"></select></p>
<fieldset id="study-threshold"><legend>Threshold curve</legend>
<label for="study-threshold-feature">Feature</label>
<select id="study-threshold-feature" name="threshold_feature"></select>
<label for="study-threshold-bid">Bid</label>
<input id="study-threshold-bid" name="threshold_bid" placeholder="e.g. 8H">
</fieldset>
<p class="note" id="study-bias-note"></p>
<p><button type="submit" id="study-run" disabled>Run the study</button></p>
</form>
<div id="study-status" role="status" aria-live="polite"></div>
<div id="study-downloads"></div>
<div id="study-result"></div>
</section>"""


def study_screen() -> tuple[str, str]:
    """The study browser's body HTML and its script (the shell page gives ``bz``)."""
    return SCREEN_HTML, BY_JS + SCREEN_JS


__all__ = ["INFO", "STUDY_TASKS", "by_expression", "study_screen", "dataset_dir",
           "find_datasets", "study_params", "study_run"]

