"""Every figure `analyze` prints (JSON, and the Markdown and terminal tables with the
lines under them) against a computation from the per-deal results of the same run
(issue 63, point 1).

The command runs in-process with a spy on its ``analyze`` call that keeps the
:class:`~bazarsim.analysis.hand.HandAnalysis` it printed: its ``sample`` holds, per sample
deal, each bid's made flag and score and each kind's side total and capot (these are
checked against the solver and the scoring reference in tests/test_analyze.py). From
those arrays alone, with code written here, every printed figure is recomputed: P(make)
and its Wilson interval (quadratic formula), the side's total and E[score] with their
standard errors (sample SD, n - 1), the capot share, the ranking, the best call (passing
scores 0), the bids equal to the best on every deal, the second best, the paired lead
over it with its paired SE and its significance at ``--confidence``, each bid's paired
difference to the best, the highest bid that pays per kind and which rows the reading
form shows. Non-default options: ``--confidence 0.99`` and ``0.8`` (the same hand's lead
is significant at 80 % and not at 99 %), ``--contra x`` and ``xx``, several kinds.
"""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import bazarsim.cli.analyze_cmd as analyze_cmd
from bazarsim.cli import app

runner = CliRunner()
KINDS = ("S", "H", "D", "C", "BK", "VK")
DEALS = 100
CASES = {  # name: (hand, seat, dealer, kinds, contra, confidence)
    "spades-0.99": ("AJ9.K7.Q.T8", "S", "E", "S", "none", 0.99),
    "ties-0.8": ("AJ9T.AK.A.A", "E", "N", "S", "none", 0.8),
    "ties-0.99": ("AJ9T.AK.A.A", "E", "N", "S", "none", 0.99),
    "vk-xx": ("AJ9T.AK.A.A", "E", "N", "S,VK", "xx", 0.95),
    "pass-x": ("87.Q8.8.987", "N", "W", "H", "x", 0.95),
}


@pytest.fixture(scope="module")
def kept():
    """The analyses the command printed, by their inputs; a second command with the same
    inputs (another --format) prints the same analysis, not a second solve of it."""
    real = analyze_cmd.analyze
    memo = {}

    def spy(q, deals, seed, precision, confidence, progress=None, **kw):
        key = (json.dumps(q.describe()), q.kinds, q.contra, deals, seed, precision,
               confidence)
        if key not in memo:
            memo[key] = real(q, deals=deals, seed=seed, precision=precision,
                             confidence=confidence, **kw)
        memo["last"] = memo[key]
        return memo[key]

    import typer.main
    import typer.testing

    command = typer.main.get_command(app)  # built once, not on every invoke
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(analyze_cmd, "analyze", spy)
        mp.setattr(typer.testing, "_get_command", lambda _app: command, raising=False)
        yield memo


def run(case: str, fmt: str, kept: dict):
    """The command's output in ``fmt`` and the analysis it printed."""
    hand, seat, dealer, kinds, contra, confidence = CASES[case]
    args = ["analyze", hand, "--seat", seat, "--dealer", dealer, "--kinds", kinds,
            "--contra", contra, "--confidence", str(confidence), "-n", str(DEALS), "-q",
            "--format", fmt]
    kept.pop("last", None)
    r = runner.invoke(app, args, env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    return r.stdout, kept["last"]


# --------------------------------------------------------------------------- the reference


def wilson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The roots of (n + z^2) p^2 - (2k + z^2) p + k^2 / n = 0."""
    z2 = NormalDist().inv_cdf((1 + confidence) / 2) ** 2
    root = math.sqrt(z2) * math.sqrt(z2 + 4 * k * (n - k) / n)
    return (max(0.0, (2 * k + z2 - root) / (2 * (n + z2))),
            min(1.0, (2 * k + z2 + root) / (2 * (n + z2))))


def mean_se(x) -> tuple[float, float]:
    x = pd.Series(np.asarray(x, dtype=float))
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def reference(sample, confidence: float) -> dict:
    """Every printed figure from the per-deal arrays."""
    n = sample.made.shape[1]
    labels = [f"{b.level}{KINDS[b.kind]}" + ("-CAPOT" if b.capot else "") for b in sample.bids]
    scores = [[int(v) for v in sample.score[j]] for j in range(len(labels))]
    made = [int(sample.made[j].sum()) for j in range(len(labels))]
    mean = [sum(s) / n for s in scores]
    # best first: E[score], then P(make), then the ruleset's order
    order = sorted(range(len(labels)), key=lambda j: (-mean[j], -made[j], j))
    best = order[0]
    ties = [j for j in order[1:] if scores[j] == scores[best]]
    rest = [j for j in order[1:] if j not in ties]
    # the second best: the best bid that beats the best on some deal
    rivals = [j for j in rest if any(a > b for a, b in zip(scores[j], scores[best],
                                                            strict=True))]
    second = (rivals or rest or [-1])[0]
    pays = mean[best] > 0
    rows = []
    for j, bid in enumerate(sample.bids):
        kj = sample.kinds.index(bid.kind)
        lo, hi = wilson(made[j], n, confidence)
        total, se_total = mean_se(sample.total[kj])
        e, se = mean_se(scores[j])
        behind, se_behind = mean_se([a - b for a, b in zip(scores[best], scores[j],
                                                            strict=True)])
        rows.append(dict(kind=KINDS[bid.kind], level=bid.level, capot=bid.capot,
                         bid=labels[j], n=n, made=made[j], p_make=made[j] / n, ci_low=lo,
                         ci_high=hi, mean_total=total, se_total=se_total,
                         p_capot=float(np.mean(sample.capot[kj])), expected_score=e,
                         se_score=se, pass_score=0.0, rank=order.index(j) + 1,
                         best=j == best and pays, best_call=labels[best] if pays else "pass",
                         equal_to_best=j in ties, behind_best=behind,
                         se_behind_best=se_behind, second=None, margin=None, se_margin=None))
    if second >= 0:
        margin, se_margin = mean_se([a - b for a, b in zip(scores[best], scores[second],
                                                            strict=True)])
        rows[best].update(second=labels[second], margin=margin, se_margin=se_margin)
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    return dict(rows=rows, best=best, second=second, ties=ties, pays=pays,
                significant=second >= 0 and rows[best]["margin"]
                - z * rows[best]["se_margin"] > 0)


def shown(rows: list[dict]) -> list[dict]:
    """The rows of the reading form: per kind the levels down to the first that makes
    less than 10 % of the time, capot bids from 10 %, and the best bid always."""
    out, below = [], set()
    for r in rows:
        if r["p_make"] < 0.10 and r["rank"] != 1:
            if r["capot"] or r["kind"] in below:
                continue
            below.add(r["kind"])
        out.append(r)
    return out


def cells(r: dict, confidence: float) -> dict:
    if r["rank"] == 1 and not r["best"]:
        vs = f"pass +{-r['expected_score']:.1f} ± {r['se_score']:.1f} over this"
    elif r["best"]:
        vs = (f"best, +{r['margin']:.1f} ± {r['se_margin']:.1f} over {r['second']}"
              if r["second"] else "best")
    elif r["equal_to_best"]:
        vs = "= best on every deal"
    else:
        vs = f"-{r['behind_best']:.1f} ± {r['se_behind_best']:.1f}"
    return {"bid": r["bid"], "make %": f"{100 * r['p_make']:.1f}",
            f"{100 * confidence:g}% interval": f"{100 * r['ci_low']:.1f} .. "
                                               f"{100 * r['ci_high']:.1f}",
            "side total": f"{r['mean_total']:.1f} ± {r['se_total']:.1f}",
            "capot %": f"{100 * r['p_capot']:.1f}",
            "expected score": f"{r['expected_score']:+.1f} ± {r['se_score']:.1f}",
            "vs best": vs}


def notes(ref: dict, confidence: float) -> list[str]:
    """The lines under the table that carry figures."""
    rows = ref["rows"]
    top = rows[ref["best"]]
    e = f"E[score] {top['expected_score']:+.1f} ± {top['se_score']:.1f}"
    out = [f"best bid: {top['bid']}, {e} (passing: 0)" if ref["pays"] else
           f"best call: pass (0): every bid loses on average; the least bad, {top['bid']}, {e}"]
    if ref["second"] >= 0:
        word = "significant" if ref["significant"] else "not significant"
        out.append(f"{'lead' if ref['pays'] else top['bid'] + chr(39) + 's lead'} over the "
                   f"second best, {top['second']}: {top['margin']:+.1f} ± "
                   f"{top['se_margin']:.1f} a deal (paired; {word} at {100 * confidence:g}%)")
    if ref["ties"]:
        out.append("equal to the best on every sample deal: "
                   + " ".join(rows[j]["bid"] for j in ref["ties"]))
    highest = {}
    for r in rows:  # the highest level of each kind whose E[score] is above 0
        if r["expected_score"] > 0 and not r["capot"] and r["level"] > highest.get(
                r["kind"], (0, ""))[0]:
            highest[r["kind"]] = (r["level"], r["bid"])
    if highest:
        out.append("highest bid that pays (E[score] > 0) per kind: "
                   + ", ".join(b for _lv, b in highest.values()))
    out.append(f"intervals: Wilson {100 * confidence:g}%; totals and scores: mean ± one SE; "
               "score: declarers' minus defenders'; vs best: paired difference")
    hidden = len(rows) - len(shown(rows))
    if hidden:
        out.append(f"{hidden} more {'bid makes' if hidden == 1 else 'bids make'} less than "
                   "10% of the time (--all shows every bid, as --format json does)")
    return out


# --------------------------------------------------------------------------- the checks


def same(got, want, what) -> None:
    if want is None or isinstance(want, (bool, str)):
        assert got == want, (what, got, want)
    else:
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9), (what, got, want)


@pytest.mark.parametrize("case", list(CASES))
def test_analyze_every_figure(case, kept):
    confidence = CASES[case][-1]
    text, a = run(case, "json", kept)
    ref = reference(a.sample, confidence)
    assert len(a.sample) == DEALS
    records = json.loads(text)
    assert len(records) == len(ref["rows"])
    for rec, want in zip(records, ref["rows"], strict=True):
        assert (rec["deals"], rec["stop"], rec["seed"]) == (DEALS, "deals", 7)
        for field, value in want.items():
            same(rec[field], value, (want["bid"], field))

    text, again = run(case, "md", kept)
    assert again is a
    table = [ln for ln in text.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in table[0].strip("|").split("|")]
    got = [dict(zip(head, [c.strip() for c in ln.strip("|").split("|")], strict=True))
           for ln in table[2:]]
    assert got == [cells(r, confidence) for r in shown(ref["rows"])]
    lines = [ln[2:] for ln in text.splitlines() if ln.startswith("- ")]
    for line in notes(ref, confidence):
        assert line in lines, (line, lines)

    if case in ("spades-0.99", "pass-x"):  # the terminal: the same cells and lines
        text, again = run(case, "table", kept)
        assert again is a
        out = text.splitlines()
        head = [c.strip() for c in next(ln for ln in out if ln.startswith("┃")).strip("┃")
                .split("┃")]
        got = [dict(zip(head, [c.strip() for c in ln.strip("│").split("│")], strict=True))
               for ln in out if ln.startswith("│")]
        assert got == [cells(r, confidence) for r in shown(ref["rows"])]
        for line in notes(ref, confidence):
            assert line in out, (line, out)


def test_the_cases_reach_every_branch(kept):
    """The cases above print a paying best bid and passing, ties and none, a lead that is
    significant and one that is not (the same deals at 80 % and at 99 %)."""
    seen = {}
    for case in CASES:
        _t, a = run(case, "json", kept)
        ref = reference(a.sample, CASES[case][-1])
        seen[case] = (ref["pays"], bool(ref["ties"]), ref["significant"])
    assert not seen["pass-x"][0] and seen["spades-0.99"][0]
    assert seen["ties-0.8"][1] and not seen["spades-0.99"][1]
    assert seen["ties-0.8"][2] and not seen["ties-0.99"][2]


# --------------------------------------------------------------------------- score_sample by hand


# A full deal whose only declaration is North's four aces (no run of three in any hand, no
# other four, K and Q of hearts in two hands): 100 in belote-fr, 110 in bazar.
FOUR_ACES_DEAL = ("AS AH AD AC 7S 9H JD KC", "8S TS QS 8H JH 8D TD JC",
                  "7H TH QH 7D 9D QD 7C 9C", "9S JS KS KH KD 8C TC QC")


@pytest.mark.parametrize("contra, score", [(0, 138), (1, 276), (2, 552)])
def test_score_sample_of_a_belote_fr_deal_by_hand(contra, score):
    """belote-fr, hearts, North (N-S) declaring, DD tables given (N-S 100 of the 162
    points, no capot): the side's total is 100 + the four aces (100 in belote-fr) = 200
    against E-W's 62; the bidders score more, so the contract makes and each side writes
    its own, times 2 under contra and 4 under recontra: (200 - 62) x 1, 2, 4."""
    from bazarsim.analysis.bids import Bid
    from bazarsim.analysis.hand import score_sample
    from bazarsim.core.cards import parse_cards
    from bazarsim.rules.rulesets import get_ruleset

    deals = np.array([[parse_cards(h) for h in FOUR_ACES_DEAL]], np.uint32)
    dd = {"H_total": np.array([162]), "H_ns_points": np.array([100]),
          "H_capot_ns": np.array([False]), "H_capot_ew": np.array([False])}
    s = score_sample(deals, 3, 0, get_ruleset("belote-fr"), (1,), (Bid(1, 0),), contra, dd)
    assert s.total.tolist() == [[200]] and s.capot.tolist() == [[False]]
    assert s.made.tolist() == [[True]] and s.score.tolist() == [[score]]


def test_rank_bids_of_an_empty_sample():
    """No deal yet: every bid's mean and P(make) count as 0, so the ruleset's order."""
    from bazarsim.analysis.bids import Bid
    from bazarsim.analysis.hand import Sample, rank_bids

    bids = (Bid(1, 8), Bid(1, 9), Bid(1, 10))
    empty = Sample(bids, (1,), np.zeros((3, 0), bool), np.zeros((3, 0), np.int64),
                   np.zeros((1, 0), np.int64), np.zeros((1, 0), bool))
    assert rank_bids(empty) == [0, 1, 2]
