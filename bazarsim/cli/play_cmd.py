"""``bazarsim play``: one deal played out card by card by hidden-card (PIMC) players, each
card beside its double-dummy value, so a coach sees where real play departs from DD."""

from __future__ import annotations

from typing import Annotated

import typer

from bazarsim.analysis.bids import CONTRAS
from bazarsim.cli.common import (
    DEFAULT_RULESET,
    DealerOpt,
    Format,
    FormatOpt,
    OptionOpt,
    RulesetOpt,
    command,
    depth_option,
    depth_value,
    emit_json,
    emit_records,
    load_ruleset,
    lower,
    seed_option,
    worlds_option,
    worlds_value,
)
from bazarsim.cli.progress import prepare_players
from bazarsim.core.cards import parse_deal, parse_seat
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.generator import DEFAULT_SEED
from bazarsim.players.pimc import I_ALL, INFERENCES
from bazarsim.players.players import PimcPlayer
from bazarsim.players.playout import contract_to_play, make_players, play_deal

AUCTION = "auction"  # the auction inference's word in --infer

PLAYERS_HELP = ("Who plays: pimc (sees its own cards, samples the hidden ones and plays each "
                "sample double dummy), alphamu (the same samples, its next --depth cards one "
                "choice for the samples it cannot tell apart), dd (sees all cards) or random; "
                "one for all seats or four for N,E,S,W, e.g. pimc,random,pimc,random.")


def parse_infer(text: str) -> int:
    """``all``, ``none`` or a comma list of voids, limits, bela, shown and auction -> the
    ``I_*`` bits of the play inferences (:func:`listens` tells about the auction)."""
    key = text.strip().lower()
    if key == "all":
        return I_ALL
    if key == "none":
        return 0
    bits = 0
    for word in (w.strip() for w in key.split(",") if w.strip()):
        if word == AUCTION:
            continue
        if word not in INFERENCES:
            raise BazarsimError(f"--infer {word!r}: use all, none or a list of "
                                f"{', '.join([*INFERENCES, AUCTION])}", word)
        bits |= INFERENCES[word]
    return bits


def listens(text: str, auction: str | None) -> bool:
    """Do the PIMC players weigh their worlds by the auction? ``all`` does when an auction
    is given; ``auction`` in the list asks for it (and needs one)."""
    words = {w.strip() for w in text.strip().lower().split(",")}
    if AUCTION in words and not auction:
        raise BazarsimError("--infer auction needs the --auction that led to the contract")
    return bool(auction) and (AUCTION in words or "all" in words)


@command("play")
def play_command(
    deal: Annotated[str, typer.Argument(
        help="The deal, PBN style: 'N:AJ9.K7.Q.T8 ... ... ...' (quote it).")],
    contract: Annotated[str | None, typer.Option(
        "--contract", "-c", help="Contract: 9H, 8BK, 10VK, 9H-CAPOT (made or not by the "
        "ruleset's scoring), or a kind alone (H, BK: the points only). Or give --auction.",
        show_default=False)] = None,
    declarer: Annotated[str | None, typer.Option(
        "--declarer", help="Declaring seat N E S W.", show_default=False)] = None,
    auction: Annotated[str | None, typer.Option(
        "--auction", "-a", help="The calls that led to the contract, from the dealer's "
        "left (e.g. 'P 10H X P P P'): the contract, declarer and contra are its final "
        "ones, and the PIMC players weigh their worlds by it (docs/auction-inference.md).",
        show_default=False)] = None,
    policy: Annotated[str | None, typer.Option(
        "--policy", help="With --auction: the bidding policy the listening players assume "
        "for the others: careful (default), bold or a file; per seat E=bold,W=x.toml.")]
    = None,
    model: Annotated[str | None, typer.Option(
        "--model", help="With --auction: the hand model behind the policies (default: the "
        "one shipped for the ruleset).")] = None,
    players: Annotated[str, typer.Option("--players", help=PLAYERS_HELP)] = "pimc",
    worlds: worlds_option("PIMC and alpha-mu players: exactly uniform ") = None,
    depth: depth_option() = None,
    objective: Annotated[str, typer.Option(
        "--objective", callback=lower, help="What PIMC players maximise: points (expected "
        "card points) or contract (the chance the contract is made).")] = "points",
    infer: Annotated[str, typer.Option(
        "--infer", help="What PIMC players infer: all, none, or a list of voids, limits "
        "(could not go higher or trump), bela, shown (declarations) and auction (the calls "
        "of --auction; all includes it when an auction is given).")] = "all",
    contra: Annotated[str, typer.Option(
        "--contra", callback=lower, help="none, x (contra'd) or xx (recontra'd).")] = "none",
    dealer: DealerOpt = "N",
    seed: seed_option("the same seed samples the same worlds, so plays the same cards")
    = DEFAULT_SEED,
    ruleset: RulesetOpt = DEFAULT_RULESET,
    option: OptionOpt = None,
    fmt: FormatOpt = Format.table,
) -> None:
    """Play one deal out with hidden cards: every card, what the player expected of each
    card it could play, and the double-dummy (DD) value of the deal after it.

    The DD NS column is what N-S would score from there with all cards seen; a card that
    moves it against its own side "lost" those points to perfect play. First lead from
    the dealer's left. Example:
    bazarsim play 'N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97' -c 9H --declarer N
    """
    rs = load_ruleset(ruleset, option)
    worlds = worlds_value(worlds)
    hands = parse_deal(deal)
    level = CONTRAS.get(contra)
    if level is None:
        raise BazarsimError(f"--contra {contra!r}: use none, x or xx", contra)
    dealer_seat = parse_seat(dealer)
    con, calls = contract_to_play(rs, dealer_seat, contract, declarer, level, auction)
    if (policy is not None or model is not None) and auction is None:
        raise BazarsimError("--policy and --model are the listeners' model of the auction: "
                            "give the --auction")
    bits = parse_infer(infer)
    listen = listens(infer, auction)
    if objective not in ("points", "contract"):
        raise BazarsimError(f"--objective {objective!r}: use points or contract", objective)
    depth = depth_value(depth, isinstance(players, str) and "alphamu" in players.lower())
    seats = make_players(players, hands, worlds, objective, seed, bits, depth)
    if listen:
        from bazarsim.beliefs.evidence import load_hand_model, parse_seat_policies
        from bazarsim.beliefs.listener import ListeningPimcPlayer

        hand_model = load_hand_model(model, rs)
        seats = [ListeningPimcPlayer(parse_seat_policies(policy, s), hand_model, worlds,
                                     objective, seed, bits)
                 if isinstance(p, PimcPlayer) else p for s, p in enumerate(seats)]
    prepare_players(fmt != Format.table, rs, batch=False)
    rec = play_deal(hands, con, con.declarer, players=seats, worlds=worlds,
                    objective=objective, seed=seed, dealer=dealer_seat, ruleset=rs,
                    infer=bits, auction=calls)
    if auction is not None:
        rec["auction"] = auction
        rec["listening"] = listen
    if fmt == Format.json:
        emit_json(rec)
        return
    emit_records([summary(rec)], fmt, title=f"{rec['contract']} by {rec['declarer']} "
                 f"({rs.name}), {rec['objective']}"
                 + (", listening to the auction" if rec.get("listening") else ""))
    emit_records(card_rows(rec), fmt, title="the play", notes=[
        ("value: the player's expected N-S points of the deal for the card played"
         if objective == "points" else
         "value: the player's chance (%) that the declaring side makes the contract"),
        "DD NS: N-S points with perfect play from there; lost: what the card gave away"])


def summary(rec: dict) -> dict:
    out = {
        "players": ",".join(rec["players"]) if len(set(rec["players"])) > 1
        else rec["players"][0],
        "NS": rec["ns_points"],
        "EW": rec["ew_points"],
        "DD NS": rec["dd_ns_points"],
    }
    if "made" in rec:
        out["made"] = "yes" if rec["made"] else "no"
        out["DD made"] = "yes" if rec["dd_made"] else "no"
    return out


def card_rows(rec: dict) -> list[dict]:
    contract_objective = rec["objective"] == "contract"
    rows = []
    for t in rec["tricks"]:
        for i, c in enumerate(t["cards"]):
            v = c["values"].get(c["card"])
            if v is None:
                value = ""
            elif contract_objective:
                value = f"{100 * v:.0f}%"
            else:
                value = f"{v:.1f}"
            rows.append({
                "trick": t["trick"] if i == 0 else "",
                "seat": c["seat"],
                "card": c["card"],
                "worlds": c["worlds"] or "",
                "value": value,
                "DD NS": c["dd_ns"],
                "lost": c["given_away"] or "",
                "won by": t["winner"] if i == 3 else "",
            })
    return rows
