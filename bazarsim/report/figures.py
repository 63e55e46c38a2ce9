"""The figures of the HTML reports, drawn with matplotlib and returned as inline SVG.

Every figure has a title, labelled axes with units, a legend (or a colour bar) and the n
behind it in its title. The functions take plain numbers (the rows the analyses already
computed) and draw nothing they were not given, so every number in a figure is also in a
table of the page. matplotlib is imported lazily (the Agg backend, no display): the CLI
starts without it. Text stays text in the SVG (``svg.fonttype = none``: small, selectable,
printed sharp) and each figure gets its own hash salt, so two figures of one page never
share an element id and a page built twice is the same bytes.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from contextlib import contextmanager

WIDTH = 7.2  # inches: fits an A4 page's text width and scales down on a phone
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")  # Okabe-Ito: tells apart for colour-blind readers and in grey print


@contextmanager
def _style(salt: str):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    rc = {"svg.fonttype": "none", "svg.hashsalt": salt, "font.size": 9,
          "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": 8,
          "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True,
          "grid.alpha": 0.3, "font.family": "sans-serif",
          "axes.prop_cycle": matplotlib.cycler(color=PALETTE)}
    with plt.rc_context(rc):
        yield plt


def to_svg(fig, plt) -> str:
    """The figure as an ``<svg>`` element to inline (no XML prolog, no fixed size: it
    scales to its container, every element id prefixed with the figure's salt so that the
    page's ids stay unique), and the figure closed."""
    import matplotlib

    salt = re.sub(r"[^A-Za-z0-9_-]", "_", matplotlib.rcParams["svg.hashsalt"] or "f")
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r'\bid="([^"]+)"', rf'id="{salt}-\1"', text)
    text = re.sub(r'url\(#([^)]+)\)', rf'url(#{salt}-\1)', text)
    text = re.sub(r'href="#([^"]+)"', rf'href="#{salt}-\1"', text)
    # width/height in pt -> the CSS decides; the viewBox keeps the aspect ratio
    text = re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1', text, count=1)
    return text.replace("<svg", '<svg role="img" preserveAspectRatio="xMidYMid meet"', 1)


def _pct(values: Sequence[float | None]) -> list[float]:
    return [math.nan if v is None else 100 * v for v in values]


def _nan(values: Sequence[float | None]) -> list[float]:
    return [math.nan if v is None else float(v) for v in values]


def rate_curves(salt: str, title: str, xlabel: str, xlabels: list[str],
                series: list[dict]) -> str:
    """P(make) in percent against the classes ``xlabels`` (in order), one line per series
    ``{label, p, lo, hi}`` (NaN: not drawn) with its 95 % band."""
    with _style(salt) as plt:
        fig, ax = plt.subplots(figsize=(WIDTH, 3.8))
        x = list(range(len(xlabels)))
        for s in series:
            p, lo, hi = _pct(s["p"]), _pct(s["lo"]), _pct(s["hi"])
            line, = ax.plot(x, p, marker="o", ms=3, lw=1.5, label=s["label"])
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.15, lw=0)
        ax.set_xticks(x, xlabels, rotation=45 if len(xlabels) > 8 else 0,
                      ha="right" if len(xlabels) > 8 else "center")
        ax.set_ylim(0, 100)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("P(make), % (95 % band)")
        ax.set_title(title)
        ax.legend(title="bid", loc="best", ncols=2 if len(series) > 5 else 1)
        return to_svg(fig, plt)


def heatmap(salt: str, title: str, xlabel: str, ylabel: str, xlabels: list[str],
            ylabels: list[str], values: list[list[float]], label: str = "P(make), %") -> str:
    """A grid of percentages (``values[y][x]``, NaN: no or too few rows, left blank),
    each cell written in it, with a colour bar."""
    import numpy as np

    with _style(salt) as plt:
        data = np.ma.masked_invalid(np.array(values, dtype=float) * 100)
        fig, ax = plt.subplots(figsize=(WIDTH, max(2.6, 0.42 * len(ylabels) + 1.4)))
        ax.grid(False)
        mesh = ax.pcolormesh(data, cmap="RdYlGn", vmin=0, vmax=100, edgecolors="white",
                             linewidth=0.5)
        for (i, j), v in np.ndenumerate(data.filled(np.nan)):
            if not math.isnan(v):
                ax.text(j + 0.5, i + 0.5, f"{v:.0f}", ha="center", va="center", fontsize=7,
                        color="black")
        ax.set_xticks([i + 0.5 for i in range(len(xlabels))], xlabels,
                      rotation=45 if len(xlabels) > 8 else 0,
                      ha="right" if len(xlabels) > 8 else "center")
        ax.set_yticks([i + 0.5 for i in range(len(ylabels))], ylabels)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        fig.colorbar(mesh, ax=ax, label=label, fraction=0.04, pad=0.02)
        return to_svg(fig, plt)


def score_by_class(salt: str, title: str, xlabel: str, bids: list[str],
                   classes: list[dict]) -> str:
    """Expected score per bid (x, in order), one line per hand class
    ``{label, e, se, best}`` (``e``, ``se`` per bid, NaN where absent; ``best`` the index of
    the class's best bid, marked with a star; ``None`` where passing is best), error bars
    of 1.96 SE, and passing (0)."""
    with _style(salt) as plt:
        fig, ax = plt.subplots(figsize=(WIDTH, 4.0))
        x = list(range(len(bids)))
        for c in classes:
            e, se = _nan(c["e"]), _nan(c["se"])
            err = [1.96 * v if not math.isnan(v) else 0 for v in se]
            bars = ax.errorbar(x, e, yerr=err, marker="o", ms=3, lw=1.2, capsize=2,
                               label=c["label"])
            if c["best"] is not None:
                ax.plot([c["best"]], [e[c["best"]]], marker="*", ms=13, ls="none",
                        color=bars[0].get_color(), mec="black", mew=0.6)
        ax.plot([], [], marker="*", ms=11, ls="none", color="white", mec="black",
                label="best bid of the class")
        ax.axhline(0, color="black", lw=0.8, ls="--")
        ax.text(len(bids) - 0.5, 0, " pass = 0", va="bottom", ha="right", fontsize=7)
        ax.set_xticks(x, bids, rotation=45 if len(bids) > 10 else 0,
                      ha="right" if len(bids) > 10 else "center")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("expected score, points a deal\n(declarers − defenders; ± 1.96 SE)")
        ax.set_title(title)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2 if len(bids) > 10 else -0.14),
                  ncols=2, frameon=False)  # below the plot: the lines stay visible
        return to_svg(fig, plt)


def totals_histogram(salt: str, title: str, panels: list[dict], width: int) -> str:
    """Per chosen bid (one panel each, ``{label, bins, made, failed, n}``, ``made`` and
    ``failed`` the shares of the bid's rows in each bin): the declaring side's totals in
    bins of ``width`` points, stacked made / failed, in percent."""
    with _style(salt) as plt:
        rows = len(panels)
        fig, axes = plt.subplots(rows, 1, figsize=(WIDTH, 1.9 * rows + 0.8), sharex=True,
                                 squeeze=False)
        for ax, p in zip(axes[:, 0], panels, strict=True):
            made = [100 * v for v in p["made"]]
            failed = [100 * v for v in p["failed"]]
            ax.bar(p["bins"], made, width=width * 0.9, align="edge", color=PALETTE[2],
                   label="made")
            ax.bar(p["bins"], failed, width=width * 0.9, align="edge", bottom=made,
                   color=PALETTE[1], label="failed")
            ax.set_title(f"{p['label']} (n = {p['n']:,} declarer rows)", fontsize=9)
            ax.set_ylabel("% of rows")
            ax.legend(loc="upper right")
        axes[-1, 0].set_xlabel("declaring side's total, points (cards + last trick + "
                               f"declarations + bela; bins of {width})")
        fig.suptitle(title, fontsize=10)
        return to_svg(fig, plt)


def z_scores(salt: str, title: str, labels: list[str], z: list[float]) -> str:
    """Observed against exact: the z-score of each feature, with the ±1.96 band."""
    with _style(salt) as plt:
        fig, ax = plt.subplots(figsize=(WIDTH, 0.17 * len(labels) + 1.2))
        y = list(range(len(labels)))
        ax.axvspan(-1.96, 1.96, color=PALETTE[2], alpha=0.15, lw=0,
                   label="|z| < 1.96 (95 % of features by chance)")
        ax.plot(z, y, "o", ms=3.5, color=PALETTE[0], label="feature's z-score")
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(y, labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("z-score: (observed − exact) / standard error (no unit)")
        ax.set_title(title)
        ax.legend(loc="lower right", fontsize=7)
        return to_svg(fig, plt)


def bid_bars(salt: str, title: str, bids: list[str], values: list[float],
             lo: list[float] | None, hi: list[float] | None, xlabel: str,
             best: int | None = None, percent: bool = False, zero_label: str = "") -> str:
    """Horizontal bars, one per bid (top to bottom), coloured by contract kind, with an
    interval per bar (``lo`` .. ``hi``), the best bid outlined."""
    with _style(salt) as plt:
        scale = 100 if percent else 1
        v = [scale * x if x is not None else math.nan for x in values]
        fig, ax = plt.subplots(figsize=(WIDTH, 0.2 * len(bids) + 1.3))
        y = list(range(len(bids)))
        kinds = [re.sub(r"^\d+|-CAPOT$", "", b) for b in bids]
        order = list(dict.fromkeys(kinds))
        colors = [PALETTE[order.index(k) % len(PALETTE)] for k in kinds]
        ax.barh(y, v, color=colors, height=0.7,
                edgecolor=["black" if i == best else "none" for i in y],
                linewidth=[1.5 if i == best else 0 for i in y])
        if lo is not None and hi is not None:
            lo_ = [scale * x if x is not None else math.nan for x in lo]
            hi_ = [scale * x if x is not None else math.nan for x in hi]
            err = [[max(0.0, a - b) for a, b in zip(v, lo_, strict=True)],
                   [max(0.0, b - a) for a, b in zip(v, hi_, strict=True)]]
            ax.errorbar(v, y, xerr=err, fmt="none", ecolor="black", elinewidth=0.8,
                        capsize=1.5)
        for k in order:
            ax.bar([0], [0], color=PALETTE[order.index(k) % len(PALETTE)], label=k)
        if best is not None:
            ax.barh([0], [0], color="white", edgecolor="black", linewidth=1.5,
                    label="best bid")
        if zero_label:
            ax.axvline(0, color="black", lw=0.8, ls="--")
        ax.set_yticks(y, bids, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel(xlabel)
        ax.set_ylabel("bid")
        ax.set_title(title)
        ax.legend(title="kind", loc="best", fontsize=7)
        return to_svg(fig, plt)


def threshold_figure(salt: str, title: str, xlabel: str, values: list[int], p: list[float],
                     lo: list[float], hi: list[float], fitted: list[float], target: float,
                     threshold: float | None, ci: tuple[float | None, float | None]) -> str:
    """Raw P(make) per feature value with Wilson intervals, the monotone fit (steps), the
    target and the threshold with its bootstrap interval."""
    with _style(salt) as plt:
        fig, ax = plt.subplots(figsize=(WIDTH, 3.8))
        pp, ll, hh = _pct(p), _pct(lo), _pct(hi)
        ax.errorbar(values, pp, yerr=[[a - b for a, b in zip(pp, ll, strict=True)],
                                      [b - a for a, b in zip(pp, hh, strict=True)]],
                    fmt="o", ms=3, color=PALETTE[0], ecolor=PALETTE[0], elinewidth=0.7,
                    alpha=0.8, label="raw rate (95 % Wilson interval)")
        ax.step(values, _pct(fitted), where="mid", color=PALETTE[1], lw=2,
                label="monotone fit")
        if math.isfinite(target):
            ax.axhline(100 * target, color="black", ls="--", lw=1,
                       label=f"target {100 * target:.1f} %")
        if ci[0] is not None or ci[1] is not None:
            a = ci[0] if ci[0] is not None else min(values)
            b = ci[1] if ci[1] is not None else max(values)
            ax.axvspan(a - 0.5, b + 0.5, color=PALETTE[2], alpha=0.15, lw=0,
                       label="threshold's 95 % interval")
        if threshold is not None:
            ax.axvline(threshold, color=PALETTE[2], lw=2, label=f"threshold {threshold:g}")
        ax.set_ylim(0, 100)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("P(make), %")
        ax.set_title(title)
        ax.legend(loc="best", fontsize=7)
        return to_svg(fig, plt)


def calibration(salt: str, title: str, series: list[dict]) -> str:
    """Observed against predicted P(make) per bin, one line per count
    ``{label, predicted, observed}``, and the diagonal."""
    with _style(salt) as plt:
        fig, ax = plt.subplots(figsize=(WIDTH * 0.75, 4.2))
        ax.plot([0, 100], [0, 100], color="grey", ls="--", lw=1, label="perfect calibration")
        for s in series:
            ax.plot(_pct(s["predicted"]), _pct(s["observed"]), marker="o", ms=3,
                    label=s["label"])
        ax.set_xlim(0, 100)
        ax.set_ylim(0, 100)
        ax.set_xlabel("predicted P(make), % (cross-fitted)")
        ax.set_ylabel("observed make rate, %")
        ax.set_title(title)
        ax.legend(loc="upper left", fontsize=7)
        return to_svg(fig, plt)
