"""Threshold and convention studies in their reading form: a summary table, the tables
behind it, and a note on how to read them (JSON keeps every raw value)."""

from __future__ import annotations

import math
import textwrap

from bazarsim.analysis.bids import PLAYS
from bazarsim.report.records import Format, percent, render_records, to_json

PLAY_NOTES = {"dd": "double dummy = perfect play, every card seen.",
              "sd": "single dummy = four PIMC players, each seeing only its own cards."}


def played(res: dict) -> str:
    """The play a study's result rests on, in words (results before ``play``: DD)."""
    return PLAYS[res.get("play", "dd")][1]


def _value(v: float | None, lowest: int) -> str:
    """A threshold: ``not reached``, ``<= lowest`` (reached from the lowest value seen), or
    the value."""
    if v is None:
        return "not reached"
    return f"<= {v:g}" if v <= lowest else f"{v:g}"


# --------------------------------------------------------------------------- threshold


def threshold_text(res: dict, fmt: Format, width: int = 100, rows: bool = True) -> str:
    """The threshold study as text in ``fmt`` (``rows``: also the table of each class)."""
    if fmt == Format.json:
        return to_json(res) + "\n"
    feature, within = res["feature"], res["within"]
    if fmt == Format.csv:
        rows = []
        for c in res["classes"]:
            for r in c["rows"]:
                rows.append({**({within: c[within]} if within else {}), **r,
                             "target": c["target"], "threshold": c["threshold"]})
        return render_records(rows, fmt)
    summary = []
    for c in res["classes"]:
        row = {within: c[within]} if within else {}
        low = c["lowest_value"]
        row.update({
            "n": f"{c['n']:,}", "make %": percent(c["p_make"]),
            "score made / failed": f"{c['mean_score_made']:+.1f} / {c['mean_score_failed']:+.1f}"
            if not math.isnan(c["mean_score_failed"]) and not math.isnan(c["mean_score_made"])
            else "",
            ("break-even %" if res["target_rule"] == "break-even" else "target %"):
                percent(c["target"]) if math.isfinite(c["target"]) else "never pays",
            f"{feature} threshold": _value(c["threshold"], low),
            "95% interval": f"{_value(c['ci_low'], low)} .. {_value(c['ci_high'], low)}",
            "not reached %": percent(c["share_not_reached"], ".0f"),
        })
        summary.append(row)
    title = (f"Threshold of {feature} for {res['bid']}"
             + (f" per {within}" if within else "") + f" in {res['dataset']} ({played(res)})")
    parts = [render_records(summary, fmt, title, width)]
    for c in res["classes"] if rows else []:
        table = [{feature: r[feature], "n": f"{r['n']:,}", "made": f"{r['made']:,}",
                 "make %": percent(r["p_make"]),
                 "95% interval": f"{percent(r['ci_low'])} .. {percent(r['ci_high'])}",
                 "fitted %": percent(r["fitted"]), "reaches": "yes" if r["reaches"] else ""}
                for r in c["rows"]]
        sub = f"{res['bid']}: P(make) by {feature}" + (f", {within} {c[within]}" if within
                                                         else "")
        parts.append(("\n" if fmt == Format.md else "") + render_records(table, fmt, sub, width))
    parts.append(_note(fmt, threshold_note(res), width))
    return "".join(parts)


def threshold_note(res: dict) -> str:
    target = ("break-even: the P(make) where the bid's expected score equals passing, "
              "-S_failed / (S_made - S_failed), from the mean scores (declarers - defenders) "
              "of the class's rows where the bid made and failed"
              if res["target_rule"] == "break-even" else "the --target given")
    return (f"threshold: the smallest {res['feature']} whose monotone (isotonic) fit of "
            f"P(make) reaches the target ({target}); '<= v': reached from the lowest value "
            f"seen. 95% interval: cluster bootstrap over deals ({res['replicates']} "
            f"replicates of {res['groups']} deal groups, seed {res['seed']}), 2.5th .. "
            "97.5th percentile. Every seat counts as declarer; "
            + PLAY_NOTES[res.get("play", "dd")])


# --------------------------------------------------------------------------- convention


def convention_text(res: dict, fmt: Format, width: int = 100) -> str:
    """The convention study as text in ``fmt``."""
    if fmt == Format.json:
        return to_json(res) + "\n"
    if fmt == Format.csv:
        return render_records([{k: v for k, v in c.items() if k != "calibration"}
                               for c in res["counts"]], fmt)
    summary = [{
        "count": c["name"], "formula": c["formula"], "AUC": f"{c['auc']:.3f}",
        "Brier (constant)": f"{c['brier']:.4f} ({c['brier_constant']:.4f})",
        "skill %": percent(c["brier_skill"]),
        "Brier vs best": "" if c["best"] or math.isnan(c["brier_vs_best"])
        else f"{c['brier_vs_best']:+.4f} ± {c['se_vs_best']:.4f}",
        "log-loss (constant)": f"{c['log_loss']:.4f} ({c['log_loss_constant']:.4f})",
        "best": "best" if c["best"] else "",
    } for c in res["counts"]]
    title = (f"Counts predicting {res['bid']} in {res['dataset']} ({played(res)}; n = "
             f"{res['n']:,} declarer rows, make {percent(res['p_make'])}%)")
    parts = [render_records(summary, fmt, title, width)]
    for c in res["counts"]:
        rows = [{"predicted": r["bin"], "n": f"{r['n']:,}",
                 "mean predicted %": percent(r["mean_predicted"]),
                 "observed %": percent(r["observed"]),
                 "count": f"{r['count_min']:g}" if r["count_min"] == r["count_max"]
                 else f"{r['count_min']:g} .. {r['count_max']:g}"} for r in c["calibration"]]
        sub = f"Calibration of {c['name']} ({c['formula']})"
        parts.append(("\n" if fmt == Format.md else "") + render_records(rows, fmt, sub, width))
    parts.append(_note(fmt, convention_note(res), width))
    return "".join(parts)


def convention_note(res: dict) -> str:
    return ("AUC: chance that a hand where the bid made has a higher count than one where it "
            "failed (ties 1/2; 0.5 = useless). Brier, log-loss: of P(make) from a "
            f"{res['fit']}, seed {res['seed']}; in brackets the same for a constant "
            "prediction; skill = 1 - Brier / constant Brier; vs best: Brier minus the best "
            "count's on the same rows, ± its standard error over 64 groups of deals. "
            "Calibration: rows binned by predicted P(make).")


def _note(fmt: Format, text: str, width: int = 100) -> str:
    """The study's note below its tables (table: wrapped at spaces to ``width``)."""
    if fmt == Format.md:
        return f"\n{text}\n"
    return "\n".join(textwrap.wrap(text, width, break_long_words=False,
                                   break_on_hyphens=False)) + "\n"
