"""``bazarsim solve``: double-dummy points of a deal (DD table, one contract, a line)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from bazarsim.cli.common import (
    DEFAULT_RULESET,
    Format,
    FormatOpt,
    OptionOpt,
    RulesetOpt,
    command,
    emit_json,
    emit_records,
    load_ruleset,
)
from bazarsim.cli.progress import prepare_solver
from bazarsim.core.cards import SEATS, parse_deal, parse_seat
from bazarsim.core.contracts import KIND_NAMES, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.dd.solver import Solver
from bazarsim.report.records import to_json


@command("solve")
def solve_command(
    deal: Annotated[
        str | None,
        typer.Argument(
            help="Deal or position, PBN style: 'N:AJ9.K7.Q.T8 ... ... ...' (quote it). "
            "Omit with --file."
        ),
    ] = None,
    contract: Annotated[
        str | None,
        typer.Option(
            "--contract", "-c", help="One contract kind S H D C BK VK; omit for the table."
        ),
    ] = None,
    leader: Annotated[
        str | None,
        typer.Option("--leader", "-l", help="Seat on lead (default: left of the dealer)."),
    ] = None,
    dealer: Annotated[str, typer.Option("--dealer", "-d", help="Dealer seat N E S W.")] = "N",
    ruleset: RulesetOpt = DEFAULT_RULESET,
    option: OptionOpt = None,
    line: Annotated[
        bool, typer.Option("--line", help="With --contract: card values and an optimal line.")
    ] = False,
    file: Annotated[
        str | None,
        typer.Option(
            "--file",
            help="Solve many positions, one per line 'DEAL CONTRACT LEADER' ('-' = stdin); "
            "prints one JSON object per line.",
        ),
    ] = None,
    fmt: FormatOpt = Format.table,
) -> None:
    """Double-dummy points: each side's card points (last trick included) with perfect play.

    Without --contract prints the DD table of every contract of the ruleset (points for
    N-S and E-W, and whether each side can take every trick), first lead from the
    dealer's left.
    """
    rs = load_ruleset(ruleset, option)
    solver = Solver()
    if file is not None:
        prepare_solver(False, rs, batch=False)  # the first solve after an install: say so
        _solve_file(solver, file, rs)
        return
    if deal is None:
        raise BazarsimError("give a DEAL or --file")
    hands = parse_deal(deal)
    lead = parse_seat(leader) if leader else (parse_seat(dealer) + 1) % 4
    if contract is not None:
        rs.check_kind(parse_kind(contract))  # a bad contract: an error before the compile
    prepare_solver(False, rs, batch=False)  # the first solve after an install: say so
    if contract is None:
        if line:
            raise BazarsimError("--line needs --contract")
        rows = solver.dd_table(hands, (lead + 3) % 4, rs)
        if fmt == Format.json:
            emit_json({"deal": deal, "ruleset": rs.name, "leader": SEATS[lead], "table": rows})
            return
        shown = [
            {
                "contract": r["contract"],
                "NS": r["ns_points"],
                "EW": r["ew_points"],
                "capot NS": "yes" if r["capot_ns"] else "-",
                "capot EW": "yes" if r["capot_ew"] else "-",
            }
            for r in rows
        ]
        emit_records(shown, fmt, title=f"DD table, {SEATS[lead]} leads ({rs.name})")
        return
    kind = rs.check_kind(parse_kind(contract))
    sol = solver.solve(hands, kind, lead, rs)
    out = {
        "deal": deal,
        "ruleset": rs.name,
        "contract": KIND_NAMES[kind],
        "leader": SEATS[lead],
        "ns_points": sol.ns_points,
        "ew_points": sol.ew_points,
        "capot_ns": solver.capot_possible(hands, kind, lead, 0, rs),
        "capot_ew": solver.capot_possible(hands, kind, lead, 1, rs),
    }
    if line:
        values = solver.card_values(hands, kind, lead, rs)
        out["card_values"] = {c: {"ns": v[0], "ew": v[1]} for c, v in values.items()}
        out["line"] = solver.optimal_line(hands, kind, lead, rs)
    if fmt == Format.json:
        emit_json(out)
        return
    emit_records(
        [{"contract": out["contract"], "leader": out["leader"], "N-S points": out["ns_points"],
          "E-W points": out["ew_points"], "capot N-S": "yes" if out["capot_ns"] else "-",
          "capot E-W": "yes" if out["capot_ew"] else "-"}],
        fmt,
        title=f"{out['contract']} ({rs.name})",
    )
    if line:
        emit_records(
            [{"card": c, "NS": v["ns"], "EW": v["ew"]} for c, v in out["card_values"].items()],
            fmt,
            title=f"value of each card for {SEATS[lead]}",
        )
        shown = [{LINE_HEADERS.get(k, k): ("" if v is None else v) for k, v in step.items()}
                 for step in out["line"]]
        emit_records(shown, fmt, title="optimal line")


# the optimal line's fields (JSON keys) as table headers
LINE_HEADERS = {"trick_points": "trick points", "ns_taken": "N-S points so far"}


def _solve_file(solver: Solver, path: str, rs) -> None:
    """JSON-lines output; a bad line prints an error naming it and the rest go on."""
    stream = sys.stdin if path == "-" else _open(path)
    errors = 0
    with stream:
        for number, text in enumerate(stream, start=1):
            body = text.split("#", 1)[0].strip()
            if not body:
                continue
            try:
                tokens = body.split()
                if len(tokens) < 3:
                    raise BazarsimError(
                        f"expected 'DEAL CONTRACT LEADER', got {body!r}", body
                    )
                deal_text = " ".join(tokens[:-2])
                hands = parse_deal(deal_text)
                kind = rs.check_kind(parse_kind(tokens[-2]))
                lead = parse_seat(tokens[-1])
                sol = solver.solve(hands, kind, lead, rs)
            except BazarsimError as exc:
                errors += 1
                typer.echo(f"error: line {number}: {exc}", err=True)
                continue
            rec = {
                "line": number,
                "deal": deal_text,
                "contract": KIND_NAMES[kind],
                "leader": SEATS[lead],
                "ns_points": sol.ns_points,
                "ew_points": sol.ew_points,
            }
            typer.echo(to_json(rec, indent=None))
    if errors:
        raise typer.Exit(2)


def _open(path: str):
    try:
        return open(path, encoding="utf-8")
    except OSError as exc:
        raise BazarsimError(f"cannot read {path!r}: {exc.strerror}", path) from None
