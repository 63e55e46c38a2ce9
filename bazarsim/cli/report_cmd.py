"""``bazarsim report DIR --out FILE.html``: a coach's page of a simulated dataset."""

from __future__ import annotations

from typing import Annotated

import typer

from bazarsim.cli.common import KindsOpt, app, command, parse_levels, split_list
from bazarsim.cli.table_cmd import ContraOpt
from bazarsim.core.errors import BazarsimError
from bazarsim.report.records import plural


def check_html(out: str | None) -> None:
    """A bad --html / --out name: an error now, not after the analysis."""
    if out is not None:
        from bazarsim.report.html import check_target

        check_target(out)


# ``--csv`` of the commands that write a page with ``--html`` (analyze, infer, study)
HtmlDataOpt = Annotated[bool, typer.Option(
    "--csv", help="With --html: also one CSV per table of the page beside it "
    "(NAME.TABLE.csv), the numbers behind every figure.")]


def check_html_data(out: str | None, data: bool) -> None:
    """--csv without --html is a mistake, told before the work starts."""
    if data and out is None:
        raise BazarsimError("--csv writes the CSVs beside the page: give --html FILE too")
    check_html(out)


def write_html(page, out: str, data: bool = False) -> None:
    """Write a report page (and its CSVs) atomically and say what was written."""
    import bazarsim
    from bazarsim.report.html import write_page

    files = write_page(page, out, f"bazarsim {bazarsim.__version__}", data=data)
    size = files[-1].stat().st_size
    gaps = f"; not shown: {', '.join(page.missing)}" if page.missing else ""
    typer.echo(f"wrote {files[-1]} ({size / 1024:,.0f} KB, {plural(page.figures, 'figure')}, "
               f"{plural(len(page.tables), 'table')}{gaps})"
               + (f" and {plural(len(files) - 1, 'CSV file')} beside it" if data else ""),
               err=True)


@command("report")
def report_command(
    directory: Annotated[str, typer.Argument(help="Dataset directory written by simulate "
                                             "(with --dd for the bid figures).")],
    out: Annotated[str, typer.Option("--out", help="The page to write (.html).")],
    by: Annotated[str | None, typer.Option(
        "--by", help="Feature of the make-rate curves' x axis, in the vocabulary of "
        "`table bids --by` (default: hand points in classes of 10; in belote-fr and bela-hr "
        "the points seen at bid time, as for the heat map and the classes).")] = None,
    kind: KindsOpt = None,
    levels: Annotated[str | None, typer.Option(
        "--levels", help="Bid levels of the curves and the expected scores, e.g. 8..11 "
        "(default: the lowest four).")] = None,
    heat_bid: Annotated[str | None, typer.Option(
        "--heat-bid", help="The bid of the heat map, e.g. 9H (default: the lowest bid of the "
        "first kind).")] = None,
    heat_y: Annotated[str | None, typer.Option(
        "--heat-y", help="Heat map rows, a --by feature (default: trumps).")] = None,
    heat_x: Annotated[str | None, typer.Option(
        "--heat-x", help="Heat map columns (default: hand points in classes of 10).")] = None,
    classes: Annotated[str | None, typer.Option(
        "--classes", help="Hand classes of the expected-score figure (default "
        "'points=0..29,30..49,50..69,70..').")] = None,
    bids: Annotated[list[str] | None, typer.Option(
        "--bids", help="Bids whose declaring side's points are shown, e.g. '8H,9H,10H' "
        "(default: the lowest three levels of a single kind, else the lowest bid of each "
        "kind).")] = None,
    contra: ContraOpt = "none",
    min_n: Annotated[int, typer.Option("--min-n", help="Fewest declarer rows of a class for "
                                       "it to be drawn (tables keep every class).")] = 30,
    freq_from: Annotated[str | None, typer.Option(
        "--freq-from", help="Take the frequency table from this dataset instead (e.g. a "
        "larger run without DD of the same ruleset).")] = None,
    data: Annotated[bool, typer.Option("--csv", help="Also write each table as CSV beside "
                                       "the page: NAME.TABLE.csv.")] = False,
    title: Annotated[str | None, typer.Option("--title", help="The page's title.")] = None,
) -> None:
    """One self-contained HTML page of a dataset for a coach: what was run, the frequency
    table against the exact odds and, with DD columns, make-rate curves, a heat map of
    P(make), expected scores by hand class and the declaring side's points; every figure's
    numbers are in a table on the page (and in CSV with --csv).

    Given the run directory of `bazarsim match` (or `equity`), the play-off's page: A's
    win chance with its interval, contracts, results by score band, the match-equity
    heat map and the break-even threshold map by score."""
    from bazarsim.matches.run import is_playoff_run
    from bazarsim.report.pages import dataset_page

    check_html(out)
    if is_playoff_run(directory):
        from bazarsim.report.matches import playoff_page

        write_html(playoff_page(directory, title), out, data)
        return
    if min_n < 1:
        raise BazarsimError(f"--min-n {min_n}: must be >= 1")
    page = dataset_page(directory, by=by, kinds=split_list(kind), levels=parse_levels(levels),
                        heat_bid=heat_bid, heat=(heat_y, heat_x),
                        classes=classes, bids=split_list(bids), contra=contra, min_n=min_n,
                        freq_from=freq_from, title=title)
    write_html(page, out, data)


__all__ = ["HtmlDataOpt", "app", "check_html", "check_html_data", "write_html"]
