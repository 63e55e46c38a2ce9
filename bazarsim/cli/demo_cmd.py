"""``bazarsim demo``: the default job of ``make run`` (odds and an evaluation demo)."""

from __future__ import annotations

import time

import numpy as np
import typer

from ..cards import format_hand
from ..evaluate import evaluate_hand, evaluate_hands
from ..odds import exact_odds
from .common import command


@command("demo")
def demo_command() -> None:
    """Run a short default job: exact odds headlines and a hand evaluation demo."""
    odds = exact_odds()
    typer.echo("Exact odds (bazar):")
    for name in ("kq_any_suit", "jack_nine_trump", "sequence_3plus", "kq_trump_at_table"):
        typer.echo(f"  {name:<22} {100 * odds[name]:8.4f}%")
    rng = np.random.default_rng(2026)
    perm = np.argsort(rng.random((1_000_000, 32)), axis=1)[:, :8]  # 8 distinct cards each
    hands = np.bitwise_or.reduce(np.left_shift(np.uint32(1), perm.astype(np.uint32)), axis=1)
    t0 = time.perf_counter()
    res = evaluate_hands(hands, "H")
    dt = time.perf_counter() - t0
    typer.echo(
        f"Evaluated {hands.size:,} random hands for hearts in {dt:.3f} s: "
        f"mean card points {res['points'].mean():.2f}, "
        f"a declaration in {100 * (res['declaration_points'] > 0).mean():.2f}%"
    )
    example = format_hand(int(hands[0]))
    e = evaluate_hand(example, "H")
    typer.echo(f"Example hand {example}: {e.points} points, declarations {e.declaration_points}")
