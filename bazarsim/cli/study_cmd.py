"""``bazarsim study threshold|convention DIR``: studies of one bid on a DD-solved dataset."""

from __future__ import annotations

from typing import Annotated

import typer

from bazarsim.analysis.bids import FEATURES
from bazarsim.analysis.convention import convention_study
from bazarsim.analysis.threshold import REPLICATES, threshold_study
from bazarsim.cli.common import (
    DEFAULT_SEED,
    Format,
    FormatOpt,
    KindOpt,
    app,
    command,
    seed_option,
    term_width,
)
from bazarsim.cli.report_cmd import HtmlDataOpt, check_html_data
from bazarsim.cli.table_cmd import ContraOpt, PlayOpt, SeatOpt
from bazarsim.report.study import convention_text, threshold_text

study_app = typer.Typer(help="Studies of one bid on a dataset written by simulate --dd: "
                        "thresholds of a hand feature, and how well hand counts predict.",
                        no_args_is_help=True)
app.add_typer(study_app, name="study")

DirArg = Annotated[str, typer.Argument(help="Dataset written by simulate --dd (or --sd, "
                                       "with --play sd).")]
LevelOpt = Annotated[int | None, typer.Option(
    "--level", help="The bid's level, e.g. 9 (default: the lowest legal; none in belote-fr "
    "and bela-hr).")]
SeedOpt = seed_option("of the bootstrap or of the halves of the cross-fit (same seed, "
                      "same numbers)")
HtmlOpt = Annotated[str | None, typer.Option(
    "--html", help="Also write a coach's page (.html) with the figures and tables.")]


def _width() -> int:
    return term_width()


@command("threshold", group=study_app)
def threshold_command(
    directory: DirArg,
    kind: KindOpt = None,
    by: Annotated[str, typer.Option("--by", help="Feature of the declarer's hand (under the "
                                    f"bid's kind): {', '.join(FEATURES)}.")] = "points",
    level: LevelOpt = None,
    within: Annotated[str | None, typer.Option(
        "--within", help="One threshold per class of another feature, e.g. trumps or "
        "'trumps=0..2,3,4,5..' (buckets and @KIND as in table bids --by).")] = None,
    target: Annotated[float | None, typer.Option(
        "--target", help="P(make) to reach (default: the bid's break-even, where its "
        "expected score equals passing).")] = None,
    bootstrap: Annotated[int, typer.Option("--bootstrap", help="Bootstrap replicates.")]
    = REPLICATES,
    seed: SeedOpt = DEFAULT_SEED,
    seat: SeatOpt = None,
    contra: ContraOpt = "none",
    play: PlayOpt = "dd",
    fmt: FormatOpt = Format.table,
    summary: Annotated[bool, typer.Option(
        "--summary", help="Only the thresholds, not the rates per value behind them.")]
    = False,
    html: HtmlOpt = None,
    data: HtmlDataOpt = False,
) -> None:
    """From which value of a hand feature on does a bid pay (bootstrap interval)?

    Monotone fit of P(make) on the feature, the smallest value reaching the break-even (or
    --target), its bootstrap 95% interval, and the raw and fitted rates behind it."""
    check_html_data(html, data)
    res = threshold_study(directory, kind, by, level=level, within=within, target=target,
                          replicates=bootstrap, seed=seed, seats=_seats(seat), contra=contra,
                          play=play)
    typer.echo(threshold_text(res, fmt, _width(), rows=not summary), nl=False)
    if html:
        from bazarsim.cli.report_cmd import write_html
        from bazarsim.report.pages import threshold_page

        write_html(threshold_page(res), html, data)


@command("convention", group=study_app)
def convention_command(
    directory: DirArg,
    kind: KindOpt = None,
    formula: Annotated[list[str] | None, typer.Option(
        "--formula", help="A linear count over the features, e.g. 'points + 10*trumps + "
        "20*jack' (numbers, feature names, + - *). Repeatable.")] = None,
    level: LevelOpt = None,
    compare: Annotated[bool, typer.Option(
        "--compare", help="Also the built-in counts (the default without --formula): hand "
        "points; points + declarations + 20*bela; trumps + aces; 20*jack + 14*nine.")]
    = False,
    bins: Annotated[int, typer.Option("--bins", help="Calibration bins.")] = 10,
    seed: SeedOpt = DEFAULT_SEED,
    seat: SeatOpt = None,
    contra: ContraOpt = "none",
    play: PlayOpt = "dd",
    fmt: FormatOpt = Format.table,
    html: HtmlOpt = None,
    data: HtmlDataOpt = False,
) -> None:
    """How well hand counts predict making a bid: AUC, Brier, log-loss, calibration.

    Per count (--formula, and the built-in counts players use): AUC, Brier score and
    log-loss of a cross-fitted monotone fit against a constant prediction, and a
    calibration table."""
    check_html_data(html, data)
    res = convention_study(directory, kind, formula, level=level, compare=compare, seed=seed,
                           seats=_seats(seat), contra=contra, bins=bins, play=play)
    typer.echo(convention_text(res, fmt, _width()), nl=False)
    if html:
        from bazarsim.cli.report_cmd import write_html
        from bazarsim.report.pages import convention_page

        write_html(convention_page(res), html, data)


def _seats(items: list[str] | None) -> list[str] | None:
    """``--seat N --seat S`` or ``--seat N,S``."""
    if not items:
        return None
    return [t for item in items for t in item.replace(",", " ").split()]
