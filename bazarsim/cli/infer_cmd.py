"""``bazarsim infer HAND``: what the auction (and the cards played) say about the hidden
hands, from one seat's point of view."""

from __future__ import annotations

import re
from typing import Annotated

import typer

from bazarsim.cli.common import (
    DEFAULT_RULESET,
    DEFAULT_SEED,
    Format,
    FormatOpt,
    KindOpt,
    OptionOpt,
    RulesetOpt,
    SeedOpt,
    command,
    echo_wrapped,
    emit_records,
    load_ruleset,
)
from bazarsim.cli.report_cmd import HtmlDataOpt, check_html_data
from bazarsim.core.cards import SEATS, parse_hand, parse_seat
from bazarsim.core.contracts import KIND_NAMES, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.report.records import to_json

AUCTION_HELP = ("The calls so far, from the dealer's left: bids 8H 9S 8BK 10VK, P pass, X "
                "contra, XX recontra, capot bids 9H-CAPOT (as bazarsim auction takes them).")


def parse_score(text: str | None) -> tuple[int, int] | None:
    """``--score 120-80``: our side's match score first."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*[-:/]\s*(\d+)\s*", text)
    if not m:
        raise BazarsimError(f"--score {text!r}: write our side's score first, e.g. 120-80",
                            text)
    return int(m.group(1)), int(m.group(2))


@command("infer")
def infer_command(
    hand: Annotated[str | None, typer.Argument(
        help="The seat's 8 cards as dealt: AJ9.K7.Q.T8 or 'AS JS 9S KH ...'.",
        show_default=False)] = None,
    seat: Annotated[str, typer.Option("--seat", help="Whose point of view: N E S W.",
                                      show_default=False)] = "",
    dealer: Annotated[str, typer.Option("--dealer", "-d", help="Dealer seat N E S W (the "
                                        "seat on its left calls first).",
                                        show_default=False)] = "",
    auction: Annotated[str, typer.Option("--auction", "-a", help=AUCTION_HELP)] = "",
    played: Annotated[str | None, typer.Option(
        "--played", help="Cards played so far, in play order from the first leader (the "
        "dealer's left), e.g. '8H 9H JH 7H KS': the tricks' winners give the seats. Needs a "
        "finished auction. Read for voids and trump limits.")] = None,
    policy: Annotated[str | None, typer.Option(
        "--policy", help="The bidding policy assumed for the other seats: a shipped name "
        "(careful, bold) or a policy file, for all (bold) or per seat (E=bold,W=my.toml); "
        "seats not named: careful.")] = None,
    model: Annotated[str | None, typer.Option(
        "--model", help="The hand model behind the policies (a bazarsim fit file; default: "
        "the one shipped for the ruleset).")] = None,
    kind: KindOpt = None,
    ess: Annotated[int, typer.Option(
        "--ess", help="Effective sample size of the weighted worlds to reach (more "
        "draws are made until it is, within 50 draws per world asked).")] = 1000,
    score: Annotated[str | None, typer.Option(
        "--score", help="Match score, this seat's side first (120-80), for policies with "
        "score rules.")] = None,
    to: Annotated[int, typer.Option("--to", help="The match target, with --score.")] = 301,
    ruleset: RulesetOpt = DEFAULT_RULESET,
    option: OptionOpt = None,
    seed: SeedOpt = DEFAULT_SEED,
    fmt: FormatOpt = Format.table,
    html: Annotated[str | None, typer.Option(
        "--html", help="Also write a page (.html) with the table and a heat map of each "
        "seat's cards.")] = None,
    data: HtmlDataOpt = False,
) -> None:
    """From one seat's view, weigh every deal of the hidden cards by how likely the other
    seats' calls were with those cards (under the policy assumed for each: docs/
    auction-inference.md), and give per other seat: expected card points and strength,
    suit lengths, the chance it holds each jack and nine (every card with -f json|csv),
    and bela, with the effective sample size (ESS) behind them. Points and strength are
    counted in the contract kind of --kinds (default: the last bid's, BK without one)."""
    from bazarsim.beliefs.evidence import MAX_ESS, Evidence
    from bazarsim.beliefs.infer import infer

    rs = load_ruleset(ruleset, option)
    check_html_data(html, data)
    if hand is None:
        raise BazarsimError("give the seat's HAND (its 8 cards as dealt)")
    if not seat or not dealer:
        raise BazarsimError("give the --seat whose view it is and the --dealer (N E S W)")
    me, dl = parse_seat(seat), parse_seat(dealer)
    cards = parse_hand(hand)
    if cards.bit_count() != 8:
        raise BazarsimError(f"HAND {hand!r}: {cards.bit_count()} cards; give the 8 cards "
                            "the seat was dealt", hand)
    if not 1 <= ess <= MAX_ESS:
        raise BazarsimError(f"--ess {ess}: use 1 .. {MAX_ESS:,}", str(ess))
    own_score = parse_score(score)
    ns_ew = (0, 0)
    if own_score is not None:
        ns_ew = own_score if me % 2 == 0 else own_score[::-1]
    k = None
    if kind is not None:
        k = parse_kind(kind)
        rs.check_kind(k)
    evidence = Evidence.from_text(rs, dl, auction, me, policy, model, score=ns_ew, target=to)
    res = infer(rs, cards, me, dl, auction, evidence, played, k, float(ess), seed)
    _emit(res, fmt)
    if html:
        from bazarsim.cli.report_cmd import write_html
        from bazarsim.report.beliefs import infer_page

        write_html(infer_page(res), html, data)


def _emit(res, fmt: Format) -> None:
    from bazarsim.beliefs.infer import card_records, key_card_rows, summary_rows

    if fmt == Format.json:
        typer.echo(to_json(res.as_dict()))
        return
    if fmt == Format.csv:
        emit_records(card_records(res), fmt)
        return
    w = res.worlds
    title = (f"infer: {SEATS[res.seat]}'s view, dealer {SEATS[res.dealer]}, auction "
             f"{res.auction or '(none)'} ({res.ruleset.name}); points in "
             f"{KIND_NAMES[res.kind]}")
    emit_records(summary_rows(res), fmt, title=title)
    typer.echo("")
    emit_records(key_card_rows(res), fmt, title="P(holds the card now)")
    how = ("every consistent deal, exactly weighted" if w.exhaustive else
           f"ESS {w.ess:,.0f} from {w.draws:,} weighted draws")
    notes = [f"{how}; ± one standard error."]
    if res.silent:
        names = ", ".join(res.silent)
        notes.append(f"not heard: {names} (the policy assumed makes no such call with the "
                     "hands of these worlds; only the floor weighs it, so it says nothing of "
                     "the hands)")
    if w.capped:
        notes.append(f"the draws stopped at the cap ({w.draws:,}) before the ESS asked "
                     f"({res.ess_asked:,.0f}): the auction is very unlikely under the "
                     "policies assumed; the figures rest on fewer worlds.")
    for n in notes:
        if fmt == Format.md:
            typer.echo(f"\n- {n}")
        else:
            echo_wrapped(n)
