"""Shared CLI pieces: the Typer app, common options and output helpers."""

from __future__ import annotations

import csv
import functools
import io
import json
from enum import StrEnum
from typing import Annotated, Any

import typer

from bazarsim.core.errors import BazarsimError
from bazarsim.rules.rulesets import RULESETS, Ruleset, get_ruleset, parse_option_assignments

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


class Format(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"
    md = "md"


RulesetOpt = Annotated[
    str,
    typer.Option(
        "--ruleset", "-r", help=f"Ruleset: {', '.join(RULESETS)}.", show_default=True
    ),
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


def command(name: str, **kwargs):
    """Register a CLI command whose user errors print one line and exit with code 2."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kw):
            try:
                return fn(*args, **kw)
            except BazarsimError as exc:
                fail(str(exc))
            except KeyboardInterrupt:
                typer.echo("interrupted", err=True)
                raise typer.Exit(130) from None

        return app.command(name, **kwargs)(wrapper)

    return decorate


def load_ruleset(name: str, options: list[str] | None) -> Ruleset:
    return get_ruleset(name, **parse_option_assignments(options))


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error and exit (user mistakes: code 2)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def emit_records(records: list[dict[str, Any]], fmt: Format, title: str | None = None) -> None:
    """Print a list of flat records as a table, JSON, CSV or Markdown."""
    if fmt == Format.json:
        typer.echo(json.dumps(records, indent=2, ensure_ascii=False, default=_jsonable))
        return
    if not records:
        typer.echo("(no rows)")
        return
    cols = list(records[0].keys())
    if fmt == Format.csv:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(records)
        typer.echo(buf.getvalue(), nl=False)
    elif fmt == Format.md:
        if title:
            typer.echo(f"### {title}\n")
        typer.echo("| " + " | ".join(cols) + " |")
        typer.echo("|" + "|".join("---" for _ in cols) + "|")
        for r in records:
            typer.echo("| " + " | ".join(_cell(r[c]) for c in cols) + " |")
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, show_lines=False)
        for c in cols:
            table.add_column(c, overflow="fold")
        for r in records:
            table.add_row(*(_cell(r[c]) for c in cols))
        Console(width=max(100, _term_width())).print(table)


def emit_json(obj: Any) -> None:
    typer.echo(json.dumps(obj, indent=2, ensure_ascii=False, default=_jsonable))


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}" if abs(v) >= 1 else f"{v:.6f}"
    if isinstance(v, (list, tuple)):
        return ", ".join(str(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k}={x}" for k, x in v.items())
    return str(v)


def _jsonable(v: Any):
    if hasattr(v, "item"):
        return v.item()
    if isinstance(v, tuple):
        return list(v)
    raise TypeError(type(v))


def _term_width() -> int:
    import shutil

    return shutil.get_terminal_size((120, 40)).columns
