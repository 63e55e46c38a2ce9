"""Whole deals played out by four players: :func:`play_deal` (the ``play`` command and the
Python API) and :func:`card_points_needed` (what a contract asks of the card play).

Built-in players are played inside the kernel (:func:`~.playout_kernel.play_out`), as datasets
play them; any other player (an object with ``decide(view)``) is asked card by card
through :class:`~.view.PlayerView` objects, and built-in ones give the same cards either
way (tests/test_players.py). A :class:`~.players.ScriptedPlayer` seat (a person's picks)
stops the card-by-card play where it has no pick left: the record then holds the cards so
far and ``waiting`` (the seat to play and its legal cards).
"""

from __future__ import annotations

import numpy as np

from bazarsim.core.cards import SEATS, format_card, parse_seat, validate_hands
from bazarsim.core.contracts import Contract, bid_text, parse_kind
from bazarsim.core.errors import BazarsimError
from bazarsim.dd.search import DEFAULT_TT_BITS, O_ALL, new_context
from bazarsim.dd.solver import Solver
from bazarsim.deals.generator import DEFAULT_SEED, seed_key
from bazarsim.evaluate.hands import evaluate_deals, shown_cards
from bazarsim.players.alphamu import DEFAULT_DEPTH
from bazarsim.players.pimc import I_ALL, OBJECTIVES
from bazarsim.players.players import (
    DEFAULT_WORLDS,
    AlphaMuPlayer,
    AwaitingCard,
    DDPlayer,
    PimcPlayer,
    RandomPlayer,
    check_worlds,
    taken_points,
)
from bazarsim.players.playout_kernel import PLAYER_KINDS, REC_DD, play_out
from bazarsim.players.view import PlayerView
from bazarsim.rules.auction import parse_contract, run_auction
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.play import SEAT_ORDER, clockwise_seats, contract_play
from bazarsim.rules.rulesets import DEFAULT_RULESET, get_ruleset
from bazarsim.rules.scoring import score_deals


def side_bonuses(deal, dealer, kind, rs) -> tuple[list[int], list[int]]:
    """Each side's scored declarations and bela (N-S, E-W) in one deal."""
    r = evaluate_deals(np.asarray(deal, np.uint32).reshape(1, 4), dealer, kind, rs)
    decl = [int(r["declarations_ns"][0]), int(r["declarations_ew"][0])]
    bela = [int(r["bela_ns"][0]), int(r["bela_ew"][0])]
    return decl, bela


def card_points_needed(rs, contract: Contract, decl, bela) -> int:
    """The fewest card points (tricks' cards and last trick) with which the declaring side
    makes the contract, by the ruleset's own scoring; one more than every point when no
    card play makes it, 0 for a contract without a level."""
    if not is_scored(rs, contract):
        return 0
    if contract.capot:  # every trick, so every card point (and the last trick)
        return rs.total_points(contract.kind)
    total = rs.total_points(contract.kind)
    p = np.arange(total + 1)
    side = contract.side
    pts = np.zeros((len(p), 2), np.int64)
    pts[:, side] = p
    pts[:, 1 - side] = total - p
    tricks = np.full((len(p), 2), 4, np.int64)
    res = score_deals(rs, contract.level, contract.kind, side, pts, tricks,
                      np.tile(np.asarray(decl, np.int64), (len(p), 1)),
                      np.tile(np.asarray(bela, np.int64), (len(p), 1)), contract.contra,
                      check=False)
    made = np.flatnonzero(res["made"])
    return int(made[0]) if len(made) else total + 1


def is_scored(rs, contract: Contract) -> bool:
    """Whether a contract is made or failed: a bid, or a belote/bela game (level 0); a bare
    kind in a bazar ruleset is played for points only."""
    return bool(contract.level) or rs.auction.style != "bazar"


def play_contract(text: str, by, contra: int, rs) -> Contract:
    """A contract to play: a bid (``9H``, ``8BK``, ``9H-CAPOT``: made or not by the
    ruleset's scoring) or a kind alone (``H``: the points only, as ``solve`` plays it)."""
    seat = by if isinstance(by, int) else parse_seat(by)
    t = str(text).strip()
    if rs.auction.style == "bazar" and t and not t[0].isdigit() and "-" not in t:
        try:
            kind = rs.check_kind(parse_kind(t))
        except BazarsimError:
            pass
        else:
            if contra:
                raise BazarsimError(f"a contra needs a bid with a level, not {text!r}", text)
            return Contract(0, kind, seat)
    return parse_contract(t, seat, contra, rs)


def contract_to_play(rs, dealer: int, contract: str | None, declarer, contra: int,
                     auction: str | None) -> tuple[Contract, list]:
    """The contract of a deal to play and the calls that led to it: the final contract
    (declarer and contra) of ``auction``, or ``contract`` by ``declarer`` with ``contra``;
    one clear error when both or neither are given, or when the auction ends in none."""
    if auction is not None:
        if contract is not None or declarer is not None or contra:
            raise BazarsimError("give --auction or --contract/--declarer/--contra, not both: "
                                "the auction names the contract")
        state = run_auction(auction, dealer, rs)
        if state.contract is None:
            raise BazarsimError(f"--auction {auction!r} ends in no contract"
                                + (" (four passes: a redeal)" if state.redeal else
                                   " (it is not finished)"), auction)
        return state.contract, list(state.history)
    if contract is None or declarer is None:
        raise BazarsimError("give the --contract and its --declarer, or the --auction")
    return play_contract(contract, declarer, contra, rs), []


def make_players(names, deal, worlds, objective, seed, infer=I_ALL,
                 depth: int = DEFAULT_DEPTH) -> list:
    """Player objects from names (``random``, ``dd``, ``pimc``, ``alphamu``) or objects,
    one a seat."""
    if isinstance(names, str):
        names = [x.strip() for x in names.split(",") if x.strip()]
    names = list(names)
    if len(names) == 1:
        names = names * 4
    if len(names) != 4:
        raise BazarsimError(f"give one player or four (N,E,S,W), not {len(names)}", names)
    out = []
    for p in names:
        if not isinstance(p, str):
            out.append(p)
            continue
        key = p.strip().lower()
        if key == "random":
            out.append(RandomPlayer(seed, infer))
        elif key == "dd":
            out.append(DDPlayer(deal, objective, seed))
        elif key == "pimc":
            out.append(PimcPlayer(worlds, objective, seed, infer))
        elif key == "alphamu":
            out.append(AlphaMuPlayer(worlds, objective, seed, infer, depth))
        else:
            raise BazarsimError(f"unknown player {p!r}: use random, dd, pimc or alphamu", p)
    return out


def play_deal(deal, contract, by, players="pimc", worlds: int = DEFAULT_WORLDS,
              objective: str = "points", seed: int = DEFAULT_SEED, dealer=0,
              ruleset=DEFAULT_RULESET, contra: int = 0, infer: int = I_ALL,
              deal_index: int = 0, kernel: bool | None = None, auction=(),
              on_card=None, depth: int = DEFAULT_DEPTH) -> dict:
    """Play one deal out: the 8 tricks, each decision with its per-card values, and the
    double-dummy N-S points of the deal after every card (taken + still to take with
    perfect play from there), with the points each card gave away against it.

    ``contract``: ``9H``, ``BK``...; ``by``: the declaring seat or side; ``players``: one
    name or object for all seats, or four (N E S W); ``depth``: alpha-mu's own moves kept
    common. ``kernel``: play built-in players
    inside the kernel (default when all four are built in) or card by card. ``auction``:
    the calls that led to the contract (``(seat, Call)``), in every view for the players
    that listen (bazarsim.beliefs.listener). ``on_card(n)``: called with the cards played
    so far after each card (once, with 32, after a play inside the kernel).

    A player that raises :class:`~.players.AwaitingCard` (a :class:`~.players.ScriptedPlayer`
    out of picks) ends the play there: the record holds the cards played, each with its DD
    value, and ``waiting`` (``{"seat": "S", "legal": ["AS", ...]}``), but not ``made`` and
    ``dd_made``, which need the whole deal.
    """
    rs = get_ruleset(ruleset)
    hands = [int(h) for h in validate_hands(deal, full=True)]
    con = contract if isinstance(contract, Contract) else play_contract(contract, by, contra, rs)
    check_worlds(worlds)
    if objective not in OBJECTIVES:
        raise BazarsimError(f"bad objective {objective!r}: use points or contract", objective)
    dealer = int(dealer)
    kind = con.kind
    decl, bela = side_bonuses(hands, dealer, kind, rs)
    target = card_points_needed(rs, con, decl, bela)
    if objective == "contract" and (not is_scored(rs, con) or con.capot):
        raise BazarsimError("objective contract needs a contract with a level and no capot "
                            "(e.g. 9H); play capot bids for points")
    objs = make_players(players, hands, worlds, objective, seed, infer, depth)
    for p in objs:
        if hasattr(p, "target"):
            p.target = target
    builtin = all(type(p) in (RandomPlayer, DDPlayer, PimcPlayer, AlphaMuPlayer) for p in objs)
    if kernel is None:
        kernel = builtin
    if kernel and not builtin:
        raise BazarsimError("only the built-in players play inside the kernel")
    leader = (dealer + 1) % 4
    play = contract_play(rs, kind)
    direction = rs.play.direction
    perm = clockwise_seats(SEAT_ORDER, direction)
    ctx = new_context(DEFAULT_TT_BITS, O_ALL)
    steps = []
    waiting = None
    if kernel:
        shown = shown_cards(np.array(hands, np.uint32), dealer, kind, rs)[0]
        codes = np.array([PLAYER_KINDS[p.name] for p in objs], np.int64)[perm]
        n_worlds = np.array([getattr(p, "worlds", 1) for p in objs], np.int64)[perm]
        depths = np.array([getattr(p, "depth", 1) for p in objs], np.int64)[perm]
        infers = np.array([getattr(p, "infer", infer) for p in objs], np.int64)[perm]
        cards = np.zeros(32, np.int64)
        seats = np.zeros(32, np.int64)
        used = np.zeros(32, np.int64)
        values = np.full((32, 32), np.nan)
        dd = np.zeros(32, np.int64)
        play_out(np.array(hands, np.int64)[perm].copy(), int(clockwise_seats(leader, direction)),
                 play, compiled_rules(rs).bela_suit[kind].astype(np.int64),
                 shown[perm].copy(), codes, n_worlds, depths, OBJECTIVES[objective], con.side,
                 target, infers, np.uint64(seed_key(seed)), deal_index, kind, ctx, REC_DD,
                 cards, seats, used, values, dd, np.zeros(1, np.int64))
        history: list[tuple[int, int]] = []
        for i in range(32):
            seat = int(clockwise_seats(int(seats[i]), direction))
            view = PlayerView(rs, con, dealer, leader, seat, 0, list(history))
            base = taken_points(view)[0] if objective == "points" else 0
            vals = {c: float(values[i, c]) + base for c in range(32)
                    if not np.isnan(values[i, c])}
            steps.append((seat, int(cards[i]), int(used[i]), vals, int(dd[i]), {}))
            history.append((seat, int(cards[i])))
        if on_card is not None:
            on_card(32)
    else:
        history = []
        for _i in range(32):
            seat = _to_play(history, leader, rs, kind)
            view = PlayerView.from_deal(hands, con, history, seat, dealer, rs,
                                        deal_index=deal_index, auction=auction)
            seat = view.seat
            try:
                d = objs[seat].decide(view)
            except AwaitingCard as wait:
                waiting = {"seat": SEATS[wait.seat],
                           "legal": [format_card(c) for c in wait.legal]}
                break
            legal = view.legal()
            if not (legal >> d.card) & 1:
                raise BazarsimError(f"player {seat} chose an illegal card "
                                    f"{format_card(d.card)}")
            history.append((seat, int(d.card)))
            extra = {} if d.ess is None else {"ess": round(d.ess, 1), "draws": d.draws,
                                              "capped": d.capped}
            steps.append((seat, int(d.card), d.worlds, d.values,
                          _dd_after(hands, history, leader, rs, kind, ctx), extra))
            if on_card is not None:
                on_card(len(history))
    return _record(rs, con, dealer, leader, hands, steps, objs, worlds, objective, seed,
                   target, decl, bela, ctx, waiting)


def _to_play(history, leader, rs, kind) -> int:
    view = PlayerView(rs, Contract(0, kind, 0), 0, leader, 0, 0, list(history))
    return view.to_play()


def _dd_after(hands, history, leader, rs, kind, ctx) -> int:
    """DD N-S points of the deal after ``history``: taken + the rest with perfect play."""
    from bazarsim.players.playout_kernel import ns_value_partial

    view = PlayerView(rs, Contract(0, kind, 0), 0, leader, 0, 0, list(history))
    taken = taken_points(view)[0]
    cur = list(hands)
    for s, c in history:
        cur[s] &= ~(1 << c)
    if not any(cur):
        return taken
    direction = rs.play.direction
    perm = clockwise_seats(SEAT_ORDER, direction)
    lead, cards = view.trick()
    tr = np.zeros(4, np.int64)
    tr[: len(cards)] = cards
    return taken + int(ns_value_partial(np.array(cur, np.int64)[perm].copy(),
                                        int(clockwise_seats(lead, direction)), tr, len(cards),
                                        contract_play(rs, kind), ctx))


def _record(rs, con, dealer, leader, hands, steps, objs, worlds, objective, seed, target,
            decl, bela, ctx, waiting=None) -> dict:
    from bazarsim.players.playout_kernel import ns_value_partial

    direction = rs.play.direction
    perm = clockwise_seats(SEAT_ORDER, direction)
    play = contract_play(rs, con.kind)
    dd0 = int(ns_value_partial(np.array(hands, np.int64)[perm].copy(),
                               int(clockwise_seats(leader, direction)), np.zeros(4, np.int64), 0,
                               play, ctx))
    total = rs.total_points(con.kind)
    tricks = []
    before = dd0
    history: list[tuple[int, int]] = []
    for i, (seat, card, used, vals, dd, extra) in enumerate(steps):
        if i % 4 == 0:
            tricks.append({"trick": i // 4 + 1, "leader": SEATS[seat], "cards": []})
        given = (before - dd) if seat % 2 == 0 else (dd - before)
        tricks[-1]["cards"].append({
            "seat": SEATS[seat], "card": format_card(card), "worlds": used,
            "values": {format_card(c): round(v, 3) for c, v in sorted(vals.items())},
            "dd_ns": dd, "given_away": max(0, given), **extra,
        })
        before = dd
        history.append((seat, card))
        if i % 4 == 3:
            view = PlayerView(rs, con, dealer, leader, 0, 0, list(history))
            taken_now = taken_points(view)
            lead_next, _cards = view.trick()
            prev = PlayerView(rs, con, dealer, leader, 0, 0, list(history[:-4]))
            taken_prev = taken_points(prev)
            tricks[-1]["winner"] = SEATS[lead_next]
            tricks[-1]["points"] = sum(taken_now) - sum(taken_prev)
    view = PlayerView(rs, con, dealer, leader, 0, 0, list(history))
    ns, ew = taken_points(view)
    side = con.side
    out = {
        "ruleset": rs.name,
        "contract": bid_text(con.level, con.kind, con.capot),
        "declarer": SEATS[con.declarer],
        "declaring_side": "NS" if side == 0 else "EW",
        "dealer": SEATS[dealer],
        "leader": SEATS[leader],
        "players": [getattr(p, "name", type(p).__name__) for p in objs],
        "worlds": int(worlds),
        "objective": objective,
        "seed": int(seed),
        "deal": " ".join(f"{SEATS[s]}:{_hand_text(h)}" for s, h in enumerate(hands)),
        "ns_points": ns,
        "ew_points": ew,
        "total": total,
        "dd_ns_points": dd0,
        "declarations": {"NS": decl[0], "EW": decl[1]},
        "bela": {"NS": bela[0], "EW": bela[1]},
        "tricks": tricks,
    }
    won = sum((SEATS.index(t["winner"]) % 2) == side for t in tricks if "winner" in t)
    out["tricks_declarer"] = won
    if is_scored(rs, con):
        out["card_points_needed"] = target
    if waiting is not None:  # a play stopped for a person's card: nothing is made yet
        out["waiting"] = waiting
        return out
    if is_scored(rs, con):
        mine = (ns, ew)[side]
        out["made"] = bool(won == 8) if con.capot else bool(mine >= target)
        if con.capot:
            out["dd_made"] = bool(Solver().capot_possible(hands, con.kind, leader, side, rs))
        else:
            out["dd_made"] = bool((dd0, total - dd0)[side] >= target)
    return out


def _hand_text(h: int) -> str:
    from bazarsim.core.cards import format_hand

    return format_hand(h)
