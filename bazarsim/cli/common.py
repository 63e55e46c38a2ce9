"""Shared CLI pieces: the Typer app, common options and output helpers."""

from __future__ import annotations

import functools
import inspect
import re
import sys
from typing import Annotated, Any

import typer
from typer import _click as click
from typer.core import TyperCommand, TyperGroup

from bazarsim.analysis.freq import frequency_table
from bazarsim.core.errors import BazarsimError
from bazarsim.core.ranges import parse_levels
from bazarsim.deals.generator import DEFAULT_SEED, seed_number
from bazarsim.players.alphamu import DEFAULT_DEPTH
from bazarsim.players.players import (
    DEFAULT_WORLDS,
    MAX_WORLDS,
    check_depth,
    check_sd_player,
    check_worlds,
)
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
           "parse_levels", "print_frequency_table", "split_list", "reflow", "DEFAULT_RULESET",
           "DEFAULT_SEED", "RulesetOpt", "OptionOpt", "FixOpt", "WhereOpt", "FormatOpt", "SeedOpt",
           "DealerOpt", "KindsOpt", "BazarsimCommand", "BazarsimGroup", "ALIASES"]
__all__ += ["seed_option", "parse_seed"]
__all__ += ["echo_wrapped", "term_width", "check_writable", "worlds_option", "worlds_value",
            "depth_option", "depth_value", "sd_player_option", "sd_player_value"]

# Old spellings still accepted (hidden from --help): old -> the one name used everywhere.
# An alias applies in a command that has the new name (see BazarsimCommand.parse_args).
ALIASES = {"--kind": "--kinds", "--count": "--deals", "--workers": "--jobs"}


def reflow(text: str | None) -> str | None:
    """Help text with each paragraph on one line, so that the terminal wraps it, not the
    docstring's line breaks; example lines (``bazarsim ...``, ``$ ...``) keep their own."""
    if not text:
        return text
    paragraphs = []
    for para in re.split(r"\n\s*\n", inspect.cleandoc(text)):
        lines: list[str] = []
        example = False
        for line in para.splitlines():
            line = line.strip()
            starts = line.startswith(("bazarsim ", "$ ", "- "))
            if lines and not starts and not example:
                lines[-1] += " " + line
            else:
                lines.append(line)
            example = line.startswith(("bazarsim ", "$ "))
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


class BazarsimCommand(TyperCommand):
    """A command that accepts the old option spellings of :data:`ALIASES`."""

    def parse_args(self, ctx, args):
        names = {o for p in self.params for o in getattr(p, "opts", ())}
        out = []
        for tok in args:
            name, eq, value = tok.partition("=")
            new = ALIASES.get(name)
            out.append(new + eq + value if new in names and name not in names else tok)
        return super().parse_args(ctx, out)


class BazarsimGroup(TyperGroup):
    """The root command: click's own usage errors (unknown option, missing argument, bad
    value) print as one ``error: ...`` line and exit with code 2, like bazarsim's own."""

    def invoke(self, ctx):
        super().invoke(ctx)  # a command's return value is not an exit code

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError:
            code = 2  # the help has been printed
        except click.exceptions.UsageError as exc:
            typer.echo(f"error: {usage_message(exc)}", err=True)
            code = 2
        except click.exceptions.ClickException as exc:
            typer.echo(f"error: {exc.format_message()}", err=True)
            code = exc.exit_code
        except typer.Abort:
            typer.echo("aborted", err=True)
            code = 1
        code = code or 0
        if standalone_mode:
            sys.exit(code)
        return code


def usage_message(exc: Exception) -> str:
    """Click's message on one line, lower-case first, naming the bad value, with where to
    look for help."""
    msg = exc.format_message()
    errors = getattr(exc.__cause__, "errors", None)  # a value the type did not accept
    first = errors()[0] if callable(errors) and errors() else {}
    if str(first.get("msg", "")).startswith("Input should be"):  # "x" for an int, say
        what = first["msg"].split(",")[0].replace("Input should be", "should be")
        msg = f"{msg.split(': ', 1)[0]}: {first.get('input')!r} {what}"
    msg = " ".join(msg.split()).rstrip(".")
    msg = re.sub(r"\s*\(Possible options: (.*)\)", r"; did you mean \1?", msg)
    msg = re.sub(r"\.\s*Did you mean", "; did you mean", msg.replace("Value error, ", ""))
    msg = msg[:1].lower() + msg[1:]
    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        msg += f" (see '{ctx.command_path} --help')"
    return msg


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"bazarsim {version('bazarsim')}")
        raise typer.Exit()


app = typer.Typer(
    cls=BazarsimGroup,
    name="bazarsim",
    help="Simulation and odds analyzer for Bazar belot (Bazar Blot) and its relatives.\n\n"
    "Cards: JS TH 10H A♦; hands: AJ9.K7.Q.T8 (spades.hearts.diamonds.clubs); "
    "deals: N:<hand> <hand> <hand> <hand>. Contract kinds: S H D C BK VK.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", "-V", help="Print the version and exit.",
                                          callback=_version, is_eager=True)] = False,
) -> None:
    """The root command's own options (--version)."""


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
FormatOpt = Annotated[Format, typer.Option(
    "--format", "-f", help="Output format: table, json, csv or md.", case_sensitive=False)]
def parse_seed(value) -> int:
    """The one seed rule (:func:`~bazarsim.deals.generator.seed_number`), refused as a usage
    error."""
    try:
        return seed_number(value)
    except BazarsimError as exc:
        raise typer.BadParameter(str(exc)) from None


def seed_option(what: str = "the same seed gives the same deals", *names: str):
    """A ``--seed`` option (``-s``) of the one seed rule, its help saying what it fixes."""
    return Annotated[int, typer.Option(*(names or ("--seed", "-s")), parser=parse_seed,
                                       metavar="INTEGER", help=f"Seed (0 .. 2^64-1): {what}.")]


SeedOpt = seed_option()
def worlds_option(when: str = ""):
    """``--worlds`` (``-w``) of the PIMC players: 1 .. MAX_WORLDS; ``None`` when not given,
    so that a command can refuse it where nothing would use it (:func:`worlds_value`)."""
    return Annotated[int | None, typer.Option(
        "--worlds", "-w", show_default=False, help=f"{when}hidden deals each PIMC decision "
        f"samples, 1 .. {MAX_WORLDS:,} (default {DEFAULT_WORLDS}; every one when fewer "
        "exist).")]


def worlds_value(worlds: int | None, used: bool = True, needs: str = "") -> int:
    """The worlds to use: the default when not given; refused when given where nothing
    uses them (``needs``: the option that would)."""
    if worlds is not None and not used:
        raise BazarsimError(f"--worlds {worlds}: it applies only with {needs} (the PIMC "
                            "players' hidden deals)", str(worlds))
    return check_worlds(DEFAULT_WORLDS if worlds is None else worlds)


def depth_option(when: str = ""):
    """``--depth`` of the alpha-mu players: 1 .. 8; ``None`` when not given (refused where
    no alpha-mu player plays, :func:`depth_value`)."""
    return Annotated[int | None, typer.Option(
        "--depth", show_default=False, help=f"{when}alpha-mu players: how many of their own "
        "next cards are one choice for every hidden deal they cannot tell apart (PIMC lets "
        f"each deal choose its own), 1 .. 8 (default {DEFAULT_DEPTH}; 1 plays as PIMC; each "
        "more costs several times the time).")]


def depth_value(depth: int | None, used: bool, needs: str = "alphamu") -> int:
    """The alpha-mu depth to use: the default when not given; refused when given where no
    alpha-mu player plays."""
    if depth is not None and not used:
        raise BazarsimError(f"--depth {depth}: it applies only to {needs} players",
                            str(depth))
    return check_depth(DEFAULT_DEPTH if depth is None else depth)


def sd_player_option(when: str = ""):
    """``--players`` of the single-dummy play-outs: pimc or alphamu for all four seats."""
    return Annotated[str, typer.Option(
        "--players", callback=lower, help=f"{when}who plays the deals out, at all four "
        "seats: pimc (samples the hidden cards, then plays each sample double dummy) or "
        "alphamu (the same samples, its next --depth cards one choice for the samples it "
        "cannot tell apart; several times slower).")]


def sd_player_value(player: str, used: bool, needs: str) -> str:
    """The single-dummy player: checked, and refused when given where nothing plays."""
    check_sd_player(player)
    if player != "pimc" and not used:
        raise BazarsimError(f"--players {player}: it applies only with {needs}", player)
    return player


DealerOpt = Annotated[str, typer.Option("--dealer", "-d", help="Dealer seat N E S W.")]


def lower(value: str | None) -> str | None:
    """Callback of a choice given as text: any case works (none, X, Lean ...)."""
    return value.lower() if isinstance(value, str) else value


def _one_kind(value: str | None) -> str | None:
    kinds = split_list(value)
    if kinds and len(kinds) > 1:
        raise typer.BadParameter(f"{value!r}: this study takes one contract kind")
    return kinds[0] if kinds else None


# --kinds: one or more contract kinds everywhere (H, 'H,BK', repeatable), or the one kind a
# study of one bid needs (KindOpt); the old --kind is an alias (ALIASES).
KindsOpt = Annotated[list[str] | None, typer.Option(
    "--kinds", help="Contract kinds, e.g. H or 'H,BK' (repeatable; default: all).")]
KindOpt = Annotated[str | None, typer.Option(
    "--kinds", help="The bid's contract kind, e.g. H.", callback=_one_kind)]
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
            except BrokenPipeError:  # `bazarsim ... | head`: the reader has what it wants
                _quiet_stdout()
                raise typer.Exit(0) from None
            except OSError as exc:  # a path the stages did not name: name it here
                where = exc.filename if exc.filename is not None else "a file"
                fail(f"cannot use {str(where)!r}: {exc.strerror or exc}")
            except KeyboardInterrupt:
                typer.echo("interrupted", err=True)
                raise typer.Exit(130) from None

        kwargs.setdefault("cls", BazarsimCommand)
        kwargs.setdefault("help", reflow(fn.__doc__))
        return (group or app).command(name, **kwargs)(wrapper)

    return decorate


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit raises no second broken
    pipe (the way Python's own docs advise for SIGPIPE)."""
    import os
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (a test runner's buffer)
        pass


def load_ruleset(name: str, options: list[str] | None) -> Ruleset:
    return get_ruleset(name, **parse_option_assignments(options))


def check_writable(path, option: str) -> None:
    """Refuse, before any work, a file to write that cannot be: a directory, or a file in a
    directory that does not exist."""
    from pathlib import Path

    p = Path(path)
    if p.is_dir():
        raise BazarsimError(f"{option} {path}: a directory, not a file", str(path))
    if not p.parent.is_dir():
        raise BazarsimError(f"{option} {path}: no directory {str(p.parent)!r}", str(path))


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
    """The terminal's width (``COLUMNS`` wins; 80, Python's own default, when the output
    is not a terminal and COLUMNS is unset)."""
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


def split_list(items: list[str] | str | None) -> list[str] | None:
    """A repeatable option's values, each also split on commas and spaces."""
    if not items:
        return None
    if isinstance(items, str):
        items = [items]
    return [t for item in items for t in item.replace(",", " ").split()]
