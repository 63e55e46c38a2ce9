"""``bazarsim analyze HAND``: what each bid is worth for one hand, with perfect play."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from bazarsim.analysis.hand import (
    HandQuery,
    analyze,
    check_run,
    deal_generator,
    hand_query,
    parse_kinds,
)
from bazarsim.cli.common import (
    DEFAULT_RULESET,
    DEFAULT_SEED,
    FixOpt,
    Format,
    FormatOpt,
    KindsOpt,
    OptionOpt,
    RulesetOpt,
    SeedOpt,
    WhereOpt,
    command,
    depth_option,
    depth_value,
    echo_wrapped,
    emit_records,
    load_ruleset,
    lower,
    sd_player_option,
    sd_player_value,
    worlds_option,
    worlds_value,
)
from bazarsim.cli.progress import deal_progress, prepare_players, prepare_solver
from bazarsim.cli.report_cmd import HtmlDataOpt, check_html_data
from bazarsim.core.cards import parse_seat
from bazarsim.core.errors import BazarsimError
from bazarsim.report.hand import hand_json_records, hand_notes, hand_records, hand_title
from bazarsim.report.records import to_json


@dataclass(frozen=True)
class _Line:
    """One hand to analyse, with the seat, dealer and turned card it uses."""

    number: int  # line of --file (0: the command line's HAND)
    hand: str
    seat: str
    dealer: str
    turned: str | None


def read_hand_lines(path: str, seat: str, dealer: str, turned: str | None) -> list[_Line]:
    """Hands of ``--file``: one a line (``#`` comments and blank lines skipped); a line may
    set its own ``seat=S``, ``dealer=N`` or ``turned=JH`` after or before the cards."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise BazarsimError(f"cannot read --file {path!r}: {exc.strerror or exc}", path) from None
    out = []
    for i, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        opts = {"seat": seat, "dealer": dealer, "turned": turned}
        cards = []
        for tok in line.split():
            key, eq, value = tok.partition("=")
            if eq and key.lower() in opts:
                opts[key.lower()] = value
            elif eq:
                raise BazarsimError(f"{path} line {i}: unknown setting {key!r} (use seat=, "
                                    "dealer= or turned=)", key)
            else:
                cards.append(tok)
        out.append(_Line(i, " ".join(cards), opts["seat"], opts["dealer"], opts["turned"]))
    if not out:
        raise BazarsimError(f"--file {path}: no hands in it", path)
    return out


@command("analyze")
def analyze_command(
    hand: Annotated[str | None, typer.Argument(
        help="The cards seen at bid time: 8 (bazar, bazar-blot), 5 and --turned "
        "(belote-fr), 6 (bela-hr); AJ9.K7.Q.T8 or 'AS JS 9S KH ...'.", show_default=False)]
    = None,
    seat: Annotated[str, typer.Option("--seat", help="The player's seat N E S W (the "
                                      "possible taker).", show_default=False)] = "",
    dealer: Annotated[str, typer.Option("--dealer", "-d", help="Dealer seat N E S W: the player "
                                        "on the dealer's left leads first.",
                                        show_default=False)] = "",
    ruleset: RulesetOpt = DEFAULT_RULESET,
    option: OptionOpt = None,
    turned: Annotated[str | None, typer.Option(
        "--turned", help="belote-fr: the turned card of the talon (the taker gets it and 2 "
        "more cards).")] = None,
    fix: FixOpt = None,
    where: WhereOpt = None,
    kinds: KindsOpt = None,
    contra: Annotated[str, typer.Option("--contra", help="Score the bids with contra: none, "
                                        "x or xx.", callback=lower)] = "none",
    deals: Annotated[int, typer.Option("--deals", "-n", help="Sample deals (with "
                                       "--precision: the most to deal).")] = 2000,
    seed: SeedOpt = DEFAULT_SEED,
    precision: Annotated[float | None, typer.Option(
        "--precision", help="Deal 200 at a time until the best bid's interval on P(make) "
        "(at --confidence) is at most ± this, or its lead over the second best is significant "
        "(paired), at most -n deals.")] = None,
    fmt: FormatOpt = Format.table,
    file: Annotated[str | None, typer.Option(
        "--file", help="Analyse many hands, one a line (a line may add seat=, dealer=, "
        "turned=), with the same options, in one process; json: one line per (hand, "
        "bid).")] = None,
    confidence: Annotated[float, typer.Option("--confidence", help="Interval level.")] = 0.95,
    every_bid: Annotated[bool, typer.Option(
        "--all", help="table, md: every bid (default: per kind, levels down to the first "
        "that makes less than 10% of the time).")] = False,
    play: Annotated[str, typer.Option(
        "--play", callback=lower, help="How the deals are played: dd (double dummy: every "
        "card seen) or sd (single dummy: four PIMC players with hidden cards; about 0.2 s "
        "a deal and kind on one core).")] = "dd",
    worlds: worlds_option("With --play sd: ") = None,
    players: sd_player_option("With --play sd: ") = "pimc",
    depth: depth_option("With --play sd --players alphamu: ") = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    html: Annotated[str | None, typer.Option(
        "--html", help="Also write a coach's page (.html): P(make) and expected score per "
        "bid as figures, and the table of every bid; one section per hand.")] = None,
    data: HtmlDataOpt = False,
    auction: Annotated[str | None, typer.Option(
        "--auction", "-a", help="The calls so far, from the dealer's left (8H P 9S X ...; "
        "as bazarsim infer takes them): judge every call legal now, on worlds weighted by "
        "the other seats' calls (-n: their effective sample size), each call's auction "
        "played on by the policies below to a final contract, scored in full. bazar and "
        "bazar-blot.")] = None,
    partner: Annotated[str, typer.Option(
        "--partner", help="With --auction: partner's policy (a shipped name: careful, "
        "bold; or a policy file), assumed for its calls so far and its later ones.")]
    = "careful",
    opponents: Annotated[str, typer.Option(
        "--opponents", help="With --auction: the opponents' policy.")] = "careful",
    me: Annotated[str | None, typer.Option(
        "--me", help="With --auction: the policy of this seat's own later calls (default: "
        "partner's).")] = None,
    model: Annotated[str | None, typer.Option(
        "--model", help="With --auction: the hand model behind the policies (a bazarsim fit "
        "file; default: the one shipped for the ruleset).")] = None,
    score: Annotated[str | None, typer.Option(
        "--score", help="With --auction: the match score, our side's first (120-80): rank "
        "the calls by the chance to win the match after this deal (needs --equity).")]
    = None,
    to: Annotated[int, typer.Option("--to", help="The match target, with --score.")] = 301,
    equity: Annotated[str | None, typer.Option(
        "--equity", help="With --score: the match equity table, from a run directory of "
        "bazarsim equity (or match), or computed here as bazarsim equity --from careful "
        "does from a solved dataset's directory.")] = None,
) -> None:
    """For one hand at bid time, deal the unseen cards, solve every deal double dummy (or,
    with --play sd, play it out with hidden cards) for every contract kind, and give per
    bid: P(make) with its interval, the side's total, P(capot), the expected score
    (passing scores 0), and the best bid with its paired lead over the second best. Every
    bid is scored on the same deals.

    With --auction (bazar, bazar-blot): what each call legal now is worth in that
    auction, judged on worlds weighted by the other seats' calls, each call's auction
    played on by the policies to a final contract and scored in full
    (docs/simulation-bidding.md).
    """
    rs = load_ruleset(ruleset, option)
    if auction is not None:
        given = {"--file": file, "--fix": fix, "--where": where, "--turned": turned,
                 "--precision": precision, "--contra": contra != "none" or None,
                 "--all": every_bid or None, "--players": players != "pimc" or None,
                 "--depth": depth}
        bad = [k for k, v in given.items() if v]
        if bad:
            raise BazarsimError(f"{bad[0]} does not apply with --auction (the auction itself "
                                "says what is known of the other hands)", bad[0])
        _analyze_auction(rs, hand, seat, dealer, auction, partner, opponents, me, model,
                         play, worlds_value(worlds, play == "sd", "--play sd"), score, to,
                         equity, kinds, deals, seed, quiet, fmt, html, data)
        return
    given = {"--partner": partner != "careful" or None, "--opponents": opponents != "careful"
             or None, "--me": me, "--model": model, "--score": score, "--equity": equity}
    bad = [k for k, v in given.items() if v]
    if bad:
        raise BazarsimError(f"{bad[0]} needs --auction (the calls so far)", bad[0])
    worlds = worlds_value(worlds, play == "sd", "--play sd")
    players = sd_player_value(players, play == "sd", "--play sd")
    depth = depth_value(depth, players == "alphamu")
    check_run(deals, precision, confidence)
    check_html_data(html, data)
    if (hand is None) == (file is None):
        raise BazarsimError("give one HAND, or --file with one hand a line")
    lines = (read_hand_lines(file, seat, dealer, turned) if file is not None
             else [_Line(0, hand, seat, dealer, turned)])
    kind_list = parse_kinds(kinds, rs)
    queries: list[HandQuery] = []
    for ln in lines:  # check every hand before the first solve
        try:
            if not ln.seat or not ln.dealer:
                raise BazarsimError("give the player's --seat and the --dealer (N E S W): the "
                                    "first lead and the declarations' order depend on them")
            queries.append(hand_query(rs, ln.hand, parse_seat(ln.seat), parse_seat(ln.dealer),
                                      ln.turned, fix, where, kind_list, contra, play=play,
                                      worlds=worlds, sd_player=players, sd_depth=depth))
        except BazarsimError as exc:
            if ln.number:
                raise BazarsimError(f"{file} line {ln.number}: {exc}") from None
            raise
    for q in queries:  # impossible constraints: an error now, not after the compile
        deal_generator(q, seed)
    prepare_solver(quiet, rs, queries[0].kinds)
    if queries[0].play == "sd":
        prepare_players(quiet, rs)
    done = []
    for i, q in enumerate(queries):
        # one bar a hand, finished (and left on stderr) before its table is printed
        label = "analyze" if len(queries) == 1 else f"analyze {i + 1}/{len(queries)}"
        with deal_progress(quiet, label) as update:
            if update:
                update(0, deals)  # the bar's clock starts now: the rate counts every deal
            a = analyze(q, deals=deals, seed=seed, precision=precision, confidence=confidence,
                        progress=update)
            if update:
                update(a.deals, a.deals)  # --precision may stop before -n
        _emit(a, fmt, file is not None, every_bid)
        done.append(a)
    if html:
        from bazarsim.cli.report_cmd import write_html
        from bazarsim.report.pages import hand_page

        write_html(hand_page(done, every_bid, fix=fix, where=where), html, data)


def _emit(a, fmt: Format, many: bool, every_bid: bool) -> None:
    if fmt == Format.json and many:
        for rec in hand_json_records(a):
            typer.echo(to_json(rec, indent=None))
        return
    if fmt == Format.json:
        typer.echo(to_json(hand_json_records(a)))
        return
    emit_records(hand_records(a, fmt, every_bid), fmt, title=hand_title(a))
    if fmt == Format.md:
        typer.echo("\n" + "\n".join("- " + n for n in hand_notes(a, every_bid))
                   + ("\n" if many else ""))
    elif fmt == Format.table:
        for n in hand_notes(a, every_bid):
            echo_wrapped(n)
        if many:
            typer.echo("")



def _equity_table(path: str | None, rs, target: int, quiet: bool) -> dict:
    """The equity table of ``--equity``: a play-off run directory's, or one computed from
    a solved dataset as ``bazarsim equity --from careful --dataset DIR`` does."""
    from bazarsim.matches.equity import match_equity
    from bazarsim.matches.run import is_playoff_run, load_spec, read_playoff, spec_ruleset
    from bazarsim.simbid.advice import equity_table
    from bazarsim.store.parts import read_manifest_or_none

    if path is None:
        raise BazarsimError("--score needs --equity: a run directory of bazarsim equity (or "
                            "match), or a solved dataset to compute the table from")
    if is_playoff_run(path):
        spec = load_spec(path)
        wins, rows = read_playoff(path)
        played = spec_ruleset(spec)
    elif read_manifest_or_none(path) is not None:
        from bazarsim.cli.match_cmd import DEFAULT_PAIRS, DEFAULT_SEED, play_matches, setup_playoff

        spec, out = setup_playoff("careful", "careful", Path(path), None, "dd", rs.name, None,
                                  DEFAULT_SEED, target, DEFAULT_PAIRS, None, quiet)
        wins, rows = play_matches(spec, out, 100, None, quiet)
        played = spec_ruleset(spec)
    else:
        raise BazarsimError(f"--equity {path}: neither a run directory of bazarsim equity "
                            "or match nor a dataset", path)
    if played.name != rs.name:
        raise BazarsimError(f"--equity {path}: its matches are {played.name}, not {rs.name}",
                            path)
    return equity_table(match_equity(rows, played, spec.target, (spec.a, spec.b)), target)


def _analyze_auction(rs, hand, seat, dealer, auction, partner, opponents, me, model, play,
                     worlds, score, to, equity, kinds, n, seed, quiet, fmt, html, data) -> None:
    from bazarsim.cli.infer_cmd import parse_score
    from bazarsim.report.advice import (
        advice_json,
        advice_notes,
        advice_page,
        advice_records,
        advice_title,
    )
    from bazarsim.simbid.advice import analyze_auction, auction_query, check_worlds

    check_html_data(html, data)
    if hand is None:
        raise BazarsimError("give the seat's HAND (its 8 cards as dealt)")
    if not seat or not dealer:
        raise BazarsimError("give the player's --seat and the --dealer (N E S W)")
    check_worlds(n)
    if equity is not None and score is None:
        raise BazarsimError("--equity needs --score (the match score, ours first)")
    sc = parse_score(score)
    q = auction_query(rs, hand, parse_seat(seat), parse_seat(dealer), auction, partner,
                      opponents, me, model, play, worlds or 20, sc, to, parse_kinds(kinds, rs))
    eq = _equity_table(equity, rs, to, quiet or fmt != Format.table) if sc else None
    prepare_solver(quiet, rs, rs.kinds)
    if play == "sd":
        prepare_players(quiet, rs)
    stages = {"worlds": 1, "solved": 2}
    with deal_progress(quiet, "analyze --auction") as update:
        if update:
            update(0, 3)
        adv = analyze_auction(q, n, seed, eq, progress=(lambda stage: update(stages[stage], 3))
                              if update else None)
        if update:
            update(3, 3)
    if fmt == Format.json:
        typer.echo(to_json(advice_json(adv)))
    else:
        emit_records(advice_records(adv), fmt, title=advice_title(adv), boxed=False)
        for line in advice_notes(adv):
            if fmt == Format.md:
                typer.echo(f"\n- {line}")
            else:
                echo_wrapped(line)
    if html:
        from bazarsim.cli.report_cmd import write_html

        write_html(advice_page(adv), html, data)
