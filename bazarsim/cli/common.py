"""Shared CLI pieces: the Typer app, common options and output helpers."""

from __future__ import annotations

import functools
from typing import Annotated, Any

import typer

from bazarsim.analysis.freq import frequency_table
from bazarsim.core.errors import BazarsimError
from bazarsim.core.ranges import BIG, parse_range
from bazarsim.report.freq import frequency_records, frequency_sections, frequency_title
from bazarsim.report.records import Format, render_records, to_json
from bazarsim.rules.rulesets import (
    DEFAULT_RULESET,
    RULESETS,
    Ruleset,
    get_ruleset,
    parse_option_assignments,
)

__all__ = ["Format", "app", "command", "emit_json", "emit_records", "fail", "load_ruleset",
           "parse_levels", "print_frequency_table", "split_list", "DEFAULT_RULESET",
           "RulesetOpt", "OptionOpt", "FixOpt", "WhereOpt"]
__all__ += ["echo_wrapped", "term_width"]

app = typer.Typer(
    name="bazarsim",
    help="Simulation and odds analyzer for Bazar belot (Bazar Blot) and its relatives.\n\n"
    "Cards: JS TH 10H A♦; hands: AJ9.K7.Q.T8 (spades.hearts.diamonds.clubs); "
    "deals: N:<hand> <hand> <hand> <hand>. Contract kinds: S H D C BK VK.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


RulesetOpt = Annotated[
    str,
    typer.Option(
        "--ruleset", "-r", help=f"Ruleset: {', '.join(RULESETS)}.", show_default=True
    ),
]
FixOpt = Annotated[
    list[str] | None,
    typer.Option("--fix", help="Fix cards to a seat, e.g. 'N:AS KS QS' or 'S=AJ9.K7.Q.T8'. "
                 "Repeatable. Fixed cards are placed, not dealt."),
]
WhereOpt = Annotated[
    list[str] | None,
    typer.Option("--where", help="Keep only deals where this holds, e.g. 'len(N,S)>=5', "
                 "'points(S,H)=30..60', 'decl(E,H)', 'has(N,JH 9H)', 'lacks(W,AS)'; seats N E S W "
                 "or sides NS EW. Repeatable (all must hold)."),
]
OptionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        "-o",
        help="Change a ruleset option, e.g. -o play.undertrump_required=true "
        "(see `bazarsim rules NAME`). Repeatable.",
    ),
]


def command(name: str, group: typer.Typer | None = None, **kwargs):
    """Register a CLI command (on ``app``, or on a sub-command ``group``) whose user errors
    print one line and exit with code 2."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kw):
            try:
                return fn(*args, **kw)
            except BazarsimError as exc:
                fail(str(exc))
            except OSError as exc:  # a path the stages did not name: name it here
                where = exc.filename if exc.filename is not None else "a file"
                fail(f"cannot use {str(where)!r}: {exc.strerror or exc}")
            except KeyboardInterrupt:
                typer.echo("interrupted", err=True)
                raise typer.Exit(130) from None

        return (group or app).command(name, **kwargs)(wrapper)

    return decorate


def load_ruleset(name: str, options: list[str] | None) -> Ruleset:
    return get_ruleset(name, **parse_option_assignments(options))


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error and exit (user mistakes: code 2)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def emit_records(records: list[dict[str, Any]], fmt: Format, title: str | None = None,
                 notes: list[str] | None = None, boxed: bool = True) -> None:
    """Print a list of flat records as a table (fitting the terminal), JSON, CSV or Markdown;
    ``notes``: lines below the table (table, md); ``boxed=False``: always the compact table."""
    typer.echo(render_records(records, fmt, title, width=term_width(), notes=notes,
                              boxed=boxed), nl=False)


def echo_wrapped(text: str) -> None:
    """Print prose wrapped at spaces to the terminal's width."""
    import textwrap

    typer.echo("\n".join(textwrap.wrap(text, term_width(), break_long_words=False,
                                        break_on_hyphens=False)))


def emit_json(obj: Any) -> None:
    typer.echo(to_json(obj))


def print_frequency_table(directory: str, by: str | None = None, fmt: Format = Format.table,
                          confidence: float = 0.95) -> list[dict]:
    """Compute and print the frequency table of a dataset (``table freq``, ``demo``)."""
    rows = frequency_table(directory, by=by, confidence=confidence)
    if fmt != Format.table:
        emit_records(frequency_records(rows, fmt, confidence), fmt,
                     title=frequency_title(directory, confidence))
        return rows
    echo_wrapped(frequency_title(directory, confidence))
    for title, records, notes in frequency_sections(rows, by, confidence):
        typer.echo("")
        emit_records(records, fmt, title=title, notes=notes, boxed=False)
    return rows


def term_width() -> int:
    """The terminal's width (``COLUMNS`` wins; 100 when the output is not a terminal)."""
    import shutil

    return shutil.get_terminal_size((100, 40)).columns


def parse_levels(text: str | None) -> list[int] | None:
    """``--levels``: ``8..12`` (or ``8-12``), ``8,9,10``; ranges as in
    :mod:`bazarsim.core.ranges`, with both ends given."""
    if not text:
        return None
    out: list[int] = []
    for part in text.replace(" ", "").split(","):
        lo, hi = parse_range(part, f"bad --levels {text!r}")
        if lo < 0 or hi >= BIG:
            raise BazarsimError(f"bad --levels {text!r}: give both ends of {part!r}, e.g. 8..12 "
                                "or 8,9,10", part)
        out += list(range(lo, hi + 1))
    return out


def split_list(items: list[str] | None) -> list[str] | None:
    """A repeatable option's values, each also split on commas and spaces."""
    if not items:
        return None
    return [t for item in items for t in item.replace(",", " ").split()]
