"""The deal replay: one deal played out by the ``play`` command's players and shown card by
card, for a coach and a student; one seat may be the person at the screen.

A deal is typed (PBN) or read from a dataset under ``--data`` (its path and the deal's
index in the run). ``check`` takes the form through the checks ``bazarsim play`` makes;
``run`` plays the deal card by card with :func:`~bazarsim.players.playout.play_deal`, so
the record is the one ``bazarsim play -f json`` gives for the same options and seed.
The person's seat is a :class:`~bazarsim.players.players.ScriptedPlayer`: every request
replays the deal from the first card with the picks so far, and the other seats play the
same cards again (their decisions are seeded by the deal, the seat and the card's place),
until the next pick is due (``waiting``: the seat and its legal cards).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from bazarsim.analysis.bids import CONTRAS
from bazarsim.app.paths import dataset_dir, relative_name
from bazarsim.app.task import Progress, Task, field, whole_number
from bazarsim.core.cards import (
    SEATS,
    format_card,
    format_deal,
    parse_card,
    parse_deal,
    parse_seat,
)
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.generator import DEFAULT_SEED, seed_number
from bazarsim.deals.numbering import deal_number
from bazarsim.engine.simulation import ruleset_from_params
from bazarsim.players.pimc import I_ALL
from bazarsim.players.players import (
    DEFAULT_WORLDS,
    MAX_WORLDS,
    PimcPlayer,
    ScriptedPlayer,
    check_worlds,
)
from bazarsim.players.playout import contract_to_play, is_scored, make_players, play_deal
from bazarsim.report.html import Column, Page, count, text
from bazarsim.rules.rulesets import DEFAULT_RULESET, RULESETS, get_ruleset

USER = "you"  # the player choice of the person's seat
PLAYER_CHOICES = ("pimc", "dd", "random", USER)
DEAL_COLUMNS = ["index", "dealer", *SEATS]
EXAMPLE_DEAL = "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97"


# --------------------------------------------------------------------------- datasets


def dataset_deal(root: Path | None, path: str, index: Any) -> dict[str, Any]:
    """Deal ``index`` (its index in the run) of the dataset at ``path`` under ``root``:
    the hands (PBN), its dealer, the deal's number (``bazarsim deal NUMBER``, as text) and
    the dataset's ruleset with its options (the manifest's), read from the one part that
    holds it."""
    import pyarrow.parquet as pq

    from bazarsim.store.parts import (
        StoreError,
        check_part,
        part_files,
        part_range,
        reading,
        repair_hint,
    )

    where, manifest = dataset_dir(root, path)
    name = relative_name(root, where)
    n = whole_number(index, "deal number")
    files = part_files(where)
    part = next((f for f in files if part_range(f)[0] <= n < part_range(f)[1]), None)
    if part is None:
        raise BazarsimError(f"deal number {n:,} is not in {name}: it holds deals "
                            f"{_ranges([part_range(f) for f in files])}")
    why = check_part(part, manifest)
    if why:
        raise StoreError(f"damaged part {part.name} of {name}: {why}; {repair_hint(name)}")
    with reading(where):
        table = pq.ParquetFile(part).read(columns=DEAL_COLUMNS).to_pydict()
    row = n - part_range(part)[0]
    if table["index"][row] != n:
        raise StoreError(f"part {part.name} of {name} holds deal {table['index'][row]} where "
                         f"deal {n} should be; {repair_hint(name)}")
    hands = [int(table[s][row]) for s in SEATS]
    return {"path": name, "index": n, "deal": format_deal(hands),
            "number": str(deal_number(hands)),  # text: beyond a JavaScript number's 2^53
            "dealer": SEATS[int(table["dealer"][row])],
            "ruleset": manifest["ruleset"],
            "ruleset_params": {"ruleset": manifest["ruleset"],
                               "options": manifest.get("options", {})}}


def deal_info(root: Path | None, query: dict[str, str]) -> dict[str, Any]:
    """``/api/info/deal?path=...&index=...``: a dataset's deal as the form shows it before
    playing (PBN, dealer, ruleset)."""
    found = dataset_deal(root, query.get("path", ""), query.get("index", ""))
    found.pop("ruleset_params")
    return found


INFO = {"deal": deal_info}


def _ranges(ranges: list[tuple[int, int]]) -> str:
    """Part ranges ``[start, end)`` as ``0 .. 11, 20 .. 29``."""
    merged: list[list[int]] = []
    for a, b in sorted(ranges):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return ", ".join(f"{a:,} .. {b - 1:,}" for a, b in merged) or "none"


# --------------------------------------------------------------------------- the form


def _players(fields: dict[str, Any]) -> list[str]:
    """The four seats' players: ``player_N`` .. ``player_W``, or ``players`` (one for all
    seats or four, a list or comma text, as ``play --players``)."""
    each = [field(fields, f"player_{s}") for s in SEATS]
    if any(p is not None for p in each):
        if field(fields, "players") is not None:
            raise BazarsimError("give the players per seat or as one list, not both")
        names = [str(p or "pimc") for p in each]
    else:
        given = field(fields, "players", "pimc")
        items = given if isinstance(given, list) else str(given).split(",")
        names = [str(x).strip() for x in items if str(x).strip()]
        if len(names) == 1:
            names = names * 4
        if len(names) != 4:
            raise BazarsimError(f"give one player or four (N,E,S,W), not {len(names)}")
    names = [n.lower() for n in names]
    for n in names:
        if n not in PLAYER_CHOICES:
            raise BazarsimError(f"unknown player {n!r}: use {', '.join(PLAYER_CHOICES)}")
    if names.count(USER) > 1:
        raise BazarsimError("you can play one seat at most: the others need a player "
                            f"({', '.join(PLAYER_CHOICES[:-1])})")
    return names


def _picks(fields: dict[str, Any], names: list[str], hands) -> list[str]:
    """The person's cards so far, in order: cards of their seat's hand, each once."""
    given = field(fields, "picks")
    if given is None:
        return []
    items = given if isinstance(given, list) else re.split(r"[\s,;]+", str(given))
    cards = [parse_card(str(c)) for c in items if str(c).strip()]
    if not cards:
        return []
    if USER not in names:
        raise BazarsimError(f"picks {' '.join(format_card(c) for c in cards)}: no seat is "
                            f"played by you (choose '{USER}' for one seat)")
    seat = names.index(USER)
    for c in cards:
        if not int(hands[seat]) >> c & 1:
            holder = next(s for s in range(4) if int(hands[s]) >> c & 1)
            raise BazarsimError(f"pick {format_card(c)} is {SEATS[holder]}'s card: you play "
                                f"{SEATS[seat]}'s")
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if cards.count(c) > 1)
        raise BazarsimError(f"pick {format_card(twice)} is given twice")
    return [format_card(c) for c in cards]


def _contract(params: dict[str, Any], rs, dealer: int):
    """The contract and the auction's calls, checked as ``bazarsim play`` checks
    ``--contract``/``--declarer``/``--contra`` or ``--auction``."""
    contract, declarer = params["contract"], params["declarer"]
    auction, contra = params["auction"], params["contra"]
    level = CONTRAS.get(contra)
    if level is None:
        raise BazarsimError(f"contra {contra!r}: use none, x or xx")
    return contract_to_play(rs, dealer, contract, declarer, level, auction)


def check_replay(fields: dict[str, Any], root: Path | None) -> dict[str, Any]:
    """The form's fields checked as ``bazarsim play`` checks its arguments (one clear error
    for each mistake), as the plain parameters of :func:`run_replay`."""
    deal_text, dataset = field(fields, "deal"), field(fields, "dataset")
    source = None
    if dataset is not None:
        if deal_text is not None:
            raise BazarsimError("give a deal or a dataset's deal, not both")
        index = field(fields, "index")
        if index is None:
            raise BazarsimError(f"give the number of the deal of {dataset} to replay")
        found = dataset_deal(root, str(dataset), index)
        source = {"dataset": found["path"], "index": found["index"]}
        hands = parse_deal(found["deal"], full=True)
    elif deal_text is None:
        raise BazarsimError("type the deal ('N:AJ9.K7.Q.T8 ... ... ...') or choose a "
                            "dataset's deal")
    else:
        hands = parse_deal(str(deal_text), full=True)
    name = field(fields, "ruleset")
    if source is not None and (name is None or str(name).lower() == found["ruleset"]):
        ruleset = found["ruleset_params"]  # with the dataset's options
    else:
        name = str(name or DEFAULT_RULESET).lower()
        if name not in RULESETS:
            raise BazarsimError(f"ruleset {name!r}: use {', '.join(RULESETS)}")
        ruleset = {"ruleset": name, "options": {}}
    rs = ruleset_from_params(ruleset)
    dealer = field(fields, "dealer", found["dealer"] if source is not None else "N")
    dealer_seat = parse_seat(str(dealer))
    objective = str(field(fields, "objective", "points")).lower()
    if objective not in ("points", "contract"):
        raise BazarsimError(f"objective {objective!r}: use points or contract")
    worlds = check_worlds(whole_number(field(fields, "worlds", DEFAULT_WORLDS), "--worlds"))
    names = _players(fields)
    params = {
        "deal": format_deal(hands), "source": source, "ruleset": ruleset,
        "dealer": SEATS[dealer_seat],
        "contract": _text(field(fields, "contract")),
        "declarer": _text(field(fields, "declarer")),
        "contra": str(field(fields, "contra", "none")).lower(),
        "auction": _text(field(fields, "auction")),
        "players": names, "worlds": worlds, "objective": objective,
        "seed": seed_number(field(fields, "seed", DEFAULT_SEED)),
        "picks": _picks(fields, names, hands),
    }
    con, _calls = _contract(params, rs, dealer_seat)
    if objective == "contract" and (not is_scored(rs, con) or con.capot):
        raise BazarsimError("objective contract needs a contract with a level and no capot "
                            "(e.g. 9H); play capot bids for points")
    if _listens(params):
        from bazarsim.beliefs.evidence import load_hand_model

        load_hand_model(None, rs)  # the shipped model: refused here for other rulesets
    return params


def _text(v: Any) -> str | None:
    return None if v is None else str(v)


def _listens(params: dict[str, Any]) -> bool:
    """Do the PIMC players weigh their worlds by the auction? As ``play`` with its default
    ``--infer all``: whenever an auction is given (the record says so even when no seat
    is a PIMC player)."""
    return params["auction"] is not None


# --------------------------------------------------------------------------- the work


def run_replay(params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Play the deal (in a worker), card by card: the record of ``play -f json``, the page
    fragment (summary and card table), and the person's next card when it is due."""
    rs = ruleset_from_params(params["ruleset"])
    hands = parse_deal(params["deal"], full=True)
    dealer = parse_seat(params["dealer"])
    con, calls = _contract(params, rs, dealer)
    names = params["players"]
    seats = make_players([ScriptedPlayer(params["picks"]) if n == USER else n for n in names],
                         hands, params["worlds"], params["objective"], params["seed"], I_ALL)
    listen = _listens(params)
    if listen:
        from bazarsim.beliefs.evidence import load_hand_model, parse_seat_policies
        from bazarsim.beliefs.listener import ListeningPimcPlayer

        model = load_hand_model(None, rs)
        seats = [ListeningPimcPlayer(parse_seat_policies(None, s), model, params["worlds"],
                                     params["objective"], params["seed"], I_ALL)
                 if isinstance(p, PimcPlayer) else p for s, p in enumerate(seats)]
    progress(0.0, "first card")
    rec = play_deal(hands, con, con.declarer, players=seats, worlds=params["worlds"],
                    objective=params["objective"], seed=params["seed"], dealer=dealer,
                    ruleset=rs, infer=I_ALL, auction=calls, kernel=False,
                    on_card=lambda n: progress(n / 32, f"card {n} of 32"))
    if params["auction"] is not None:
        rec["auction"] = params["auction"]
        rec["listening"] = listen
    return {"record": rec, "html": replay_page(rec, _command(params, rs)).fragment(),
            "waiting": rec.get("waiting"), "picks": params["picks"],
            "source": params["source"]}


def _command(params: dict[str, Any], rs) -> list[str] | None:
    """The ``bazarsim play`` command giving the same record (JSON), when there is one: no
    seat is the person's and the ruleset has its own options."""
    if USER in params["players"] or rs != get_ruleset(rs.name):
        return None
    argv = ["bazarsim", "play", params["deal"]]
    if params["auction"] is not None:
        argv += ["--auction", params["auction"]]
    else:
        argv += ["-c", params["contract"], "--declarer", params["declarer"]]
        if params["contra"] != "none":
            argv += ["--contra", params["contra"]]
    names = params["players"]
    argv += ["--players", names[0] if len(set(names)) == 1 else ",".join(names),
             "-w", str(params["worlds"]), "--objective", params["objective"],
             "--dealer", params["dealer"], "--seed", str(params["seed"]), "-r", rs.name,
             "-f", "json"]
    return argv


def replay_title(rec: dict[str, Any]) -> str:
    """``9H by N (bazar), points``, as ``play`` titles its tables."""
    return (f"{rec['contract']} by {rec['declarer']} ({rec['ruleset']}), {rec['objective']}"
            + (", listening to the auction" if rec.get("listening") else ""))


def summary_row(rec: dict[str, Any]) -> dict[str, Any]:
    """The summary of a play record, as ``play`` prints it (made or not when finished)."""
    out = {"players": ",".join(rec["players"]) if len(set(rec["players"])) > 1
           else rec["players"][0],
           "ns": rec["ns_points"], "ew": rec["ew_points"], "dd_ns": rec["dd_ns_points"]}
    if "made" in rec:
        out["made"] = rec["made"]
        out["dd_made"] = rec["dd_made"]
    return out


def card_rows(rec: dict[str, Any]) -> list[dict[str, Any]]:
    """One row a card, as ``play``'s table: trick, seat, card, worlds, the player's value
    of the card played, the DD N-S points after it, what it gave away, who won the trick."""
    rows = []
    for t in rec["tricks"]:
        for i, c in enumerate(t["cards"]):
            rows.append({
                "trick": t["trick"] if i == 0 else None,
                "seat": c["seat"], "card": c["card"], "worlds": c["worlds"] or None,
                "value": c["values"].get(c["card"]), "dd_ns": c["dd_ns"],
                "lost": c["given_away"] or None,
                "won_by": t.get("winner") if i == 3 else None,
            })
    return rows


def replay_page(rec: dict[str, Any], argv: list[str] | None = None) -> Page:
    """The summary and the card table of a play record (whole or waiting for a card)."""
    if rec["objective"] == "contract":
        def value(v):
            return "" if v is None else f"{100 * v:.0f}%"
        note = "value: the player's chance (%) that the declaring side makes the contract"
    else:
        def value(v):
            return "" if v is None else f"{v:.1f}"
        note = "value: the player's expected N-S points of the deal for the card played"
    page = Page(replay_title(rec))
    page.heading(replay_title(rec))
    summary = [Column("players", "players", text=True), Column("ns", "NS", count),
               Column("ew", "EW", count), Column("dd_ns", "DD NS", count)]
    if "made" in rec:
        summary += [Column("made", "made", _yes_no, text=True),
                    Column("dd_made", "DD made", _yes_no, text=True)]
    page.table("summary", "the deal", summary, [summary_row(rec)])
    waiting = rec.get("waiting")
    if waiting:
        page.paragraph(f"Waiting for {waiting['seat']}'s card: one of "
                       f"{' '.join(waiting['legal'])}.", cls="waiting")
    page.table("cards", "the play", [
        Column("trick", "trick", text), Column("seat", "seat", text=True),
        Column("card", "card", text=True), Column("worlds", "worlds", text),
        Column("value", "value", value), Column("dd_ns", "DD NS", count),
        Column("lost", "lost", text), Column("won_by", "won by", text, text=True),
    ], card_rows(rec), argv=argv)
    page.paragraph(f"{note}; DD NS: N-S points with perfect play from there; lost: what "
                   "the card gave away.", cls="note")
    return page


def _yes_no(v: Any) -> str:
    return "yes" if v else "no"


REPLAY_TASKS = {"replay": Task("replay", check_replay, run_replay)}


# --------------------------------------------------------------------------- the screen


def _options(values, chosen=None, labels=None) -> str:
    labels = labels or {}
    return "".join(f'<option value="{html.escape(v)}"{" selected" if v == chosen else ""}>'
                   f"{html.escape(labels.get(v, v))}</option>" for v in values)


def replay_screen() -> tuple[str, str]:
    """The screen's form, table view and card table, and its script."""
    seats = tuple(SEATS)
    players = "".join(
        f'<label>{s} <select name="player_{s}" id="replay-player-{s}">'
        f'{_options(PLAYER_CHOICES, "pimc")}</select></label>'
        for s in seats)
    body = f"""
<style>
#replay-view {{ display: grid; grid-template-columns: minmax(18rem, 26rem) 1fr; gap: 1rem;
  align-items: start; margin: 1rem 0; }}
#replay-view[hidden] {{ display: none; }}
.rp-table {{ display: grid; grid-template-columns: 1fr 1fr 1fr; grid-template-rows: auto auto auto;
  gap: .4rem; background: #eef5ee; border: 1px solid var(--line); padding: .5rem; }}
.rp-hand {{ font-size: .9rem; min-height: 5.5em; }}
.rp-hand h4 {{ margin: 0 0 .1rem; font-size: .85rem; color: var(--muted); }}
.rp-hand.to-play h4 {{ color: #2b6cb0; }}
.rp-hand .s {{ white-space: nowrap; }}
.rp-N {{ grid-column: 2; grid-row: 1; }} .rp-W {{ grid-column: 1; grid-row: 2; }}
.rp-E {{ grid-column: 3; grid-row: 2; }} .rp-S {{ grid-column: 2; grid-row: 3; }}
#replay-trick {{ grid-column: 2; grid-row: 2; display: grid; gap: .1rem;
  grid-template-areas: ". n ." "w . e" ". s ."; text-align: center; font-weight: 600; }}
#replay-trick .tN {{ grid-area: n; }} #replay-trick .tS {{ grid-area: s; }}
#replay-trick .tE {{ grid-area: e; }} #replay-trick .tW {{ grid-area: w; }}
#replay-trick .win {{ outline: 2px solid #2b6cb0; }}
.red {{ color: #c0262d; }}
.rp-steps {{ margin: .5rem 0; }} .rp-steps button {{ padding: .2em .7em; }}
#replay-pos {{ margin-left: .6rem; font-variant-numeric: tabular-nums; }}
#replay-decision table {{ margin: .3rem 0; }}
#replay-decision tr.played td {{ font-weight: 700; background: #eaf5ea; }}
#replay-picks button.pick {{ margin: .15rem; min-width: 3em; }}
#replay-result tr.here td {{ background: #fff4c2; }}
#replay-loaded .error {{ color: #b00020; font-weight: 600; }}
</style>
<form id="replay-form" class="app-form" autocomplete="off">
 <fieldset><legend>The deal</legend>
  <label><input type="radio" name="source" value="deal" id="replay-source-deal" checked>
   typed</label>
  <label class="wide">Deal (PBN, N E S W) <input name="deal" id="replay-deal" size="60"
   value="{EXAMPLE_DEAL}"></label>
  <label><input type="radio" name="source" value="dataset" id="replay-source-dataset">
   from a dataset under --data</label>
  <label>Dataset <input name="dataset" id="replay-dataset" size="24" placeholder="runs/bazar"
   disabled></label>
  <label>Deal number (index) <input name="index" id="replay-index" type="number" min="0"
   value="0" disabled></label>
  <button type="button" id="replay-load" disabled>Show it</button>
  <div id="replay-loaded" class="note"></div>
 </fieldset>
 <fieldset><legend>The contract</legend>
  <label><input type="radio" name="by" value="contract" id="replay-by-contract" checked>
   contract</label>
  <label>Contract <input name="contract" id="replay-contract" size="10" value="9H"
   placeholder="9H, 8BK, 10VK, 9H-CAPOT"></label>
  <label>Declarer <select name="declarer" id="replay-declarer">{_options(seats, "N")}
   </select></label>
  <label>Contra <select name="contra" id="replay-contra">{_options(CONTRAS, "none")}
   </select></label>
  <label><input type="radio" name="by" value="auction" id="replay-by-auction"> auction
   </label>
  <label>Calls from the dealer's left <input name="auction" id="replay-auction" size="24"
   placeholder="P 10H X P P P" disabled></label>
  <label>Dealer <select name="dealer" id="replay-dealer">{_options(seats, "N")}</select>
   </label>
  <label>Ruleset <select name="ruleset" id="replay-ruleset">
   {_options(RULESETS, DEFAULT_RULESET)}</select></label>
 </fieldset>
 <fieldset><legend>The players (you: you choose that seat's cards)</legend>
  {players}
  <label>PIMC worlds <input name="worlds" id="replay-worlds" type="number" min="1"
   max="{MAX_WORLDS}" value="{DEFAULT_WORLDS}"></label>
  <label>Objective <select name="objective" id="replay-objective">
   {_options(("points", "contract"), "points")}</select></label>
  <label>Seed <input name="seed" id="replay-seed" value="{DEFAULT_SEED}" size="8"></label>
 </fieldset>
 <button type="submit" id="replay-run">Play</button>
</form>
<div id="replay-status" class="status"></div>
<div id="replay-view" hidden>
 <div>
  <div class="rp-table">
   <div class="rp-hand rp-N" id="replay-hand-N"></div>
   <div class="rp-hand rp-W" id="replay-hand-W"></div>
   <div id="replay-trick"></div>
   <div class="rp-hand rp-E" id="replay-hand-E"></div>
   <div class="rp-hand rp-S" id="replay-hand-S"></div>
  </div>
  <div class="rp-steps">
   <button type="button" id="replay-first" title="before the first card">|&lt;</button>
   <button type="button" id="replay-prev" title="one card back (left arrow)">&lt;</button>
   <button type="button" id="replay-next" title="one card on (right arrow)">&gt;</button>
   <button type="button" id="replay-end" title="the last card played">&gt;|</button>
   <span id="replay-pos"></span>
  </div>
  <div id="replay-picks"></div>
 </div>
 <div>
  <div id="replay-title"></div>
  <div id="replay-decision"></div>
  <p id="replay-dd"></p>
 </div>
</div>
<div id="replay-result" class="result"></div>"""
    return body, SCRIPT


SCRIPT = r"""
(() => {
  const $ = id => document.getElementById(id);
  const SEATS = ['N', 'E', 'S', 'W'];
  const SUITS = ['S', 'H', 'D', 'C'];
  const SYMBOL = {S: '\u2660', H: '\u2665', D: '\u2666', C: '\u2663'};
  const RANKS = 'AKQJT987';  // high to low
  const form = $('replay-form');
  const state = {fields: null, picks: [], result: null, steps: [], pos: 0};
  const esc = t => String(t).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;',
                                                       '"': '&quot;'})[c]);
  const suitHtml = s => `<span class="${s === 'H' || s === 'D' ? 'red' : ''}">` +
                        `${SYMBOL[s] || esc(s)}</span>`;
  const cardHtml = c => esc(c.slice(0, -1)) + suitHtml(c.slice(-1));

  // the inputs of the choice not taken are disabled: bz.fields leaves them out
  function sync() {
    const fromData = $('replay-source-dataset').checked;
    $('replay-deal').disabled = fromData;
    for (const id of ['replay-dataset', 'replay-index', 'replay-load']) $(id).disabled = !fromData;
    const byAuction = $('replay-by-auction').checked;
    for (const id of ['replay-contract', 'replay-declarer', 'replay-contra']) {
      $(id).disabled = byAuction;
    }
    $('replay-auction').disabled = !byAuction;
  }
  form.addEventListener('change', sync);
  sync();

  // one "you" at most: choosing it for a seat gives the seat that had it back to dd
  for (const s of SEATS) {
    $('replay-player-' + s).addEventListener('change', ev => {
      if (ev.target.value !== 'you') return;
      for (const t of SEATS) {
        const other = $('replay-player-' + t);
        if (t !== s && other.value === 'you') other.value = 'dd';
      }
    });
  }

  // "N:AKQ.J.T.987 E:... S:... W:..." (or unlabelled, clockwise from the first seat) ->
  // {N: Set of cards like 'AS', ...}
  function parseDeal(text) {
    const m = /^\s*([NESW])\s*:\s*/i.exec(text);
    let first = 0, rest = text;
    if (m) { first = SEATS.indexOf(m[1].toUpperCase()); rest = text.slice(m[0].length); }
    const hands = {};
    rest.trim().split(/\s+/).forEach((tok, k) => {
      let seat = SEATS[(first + k) % 4];
      const lab = /^([NESW]):/i.exec(tok);
      if (lab) { seat = lab[1].toUpperCase(); tok = tok.slice(2); }
      const cards = new Set();
      tok.split('.').forEach((ranks, i) => {
        for (const r of ranks.replace(/10/g, 'T')) if (RANKS.includes(r)) cards.add(r + SUITS[i]);
      });
      hands[seat] = cards;
    });
    return hands;
  }

  function handHtml(seat, cards, who, toPlay) {
    const rows = SUITS.map(s => {
      const held = [...RANKS].filter(r => cards.has(r + s)).map(r => r + s);
      return `<div class="s">${suitHtml(s)} ` +
             (held.length ? held.map(c => esc(c.slice(0, -1))).join(' ') : '\u2014') + '</div>';
    }).join('');
    return `<h4>${seat}${who ? ' (' + esc(who) + ')' : ''}${toPlay ? ' \u2190 to play' : ''}</h4>` +
           rows;
  }

  function showHands(hands, players, toPlay) {
    for (const s of SEATS) {
      const el = $('replay-hand-' + s);
      el.innerHTML = handHtml(s, hands[s] || new Set(), players ? players[SEATS.indexOf(s)] : '',
                              toPlay === s);
      el.classList.toggle('to-play', toPlay === s);
      el.dataset.cards = [...(hands[s] || [])].join(' ');
    }
  }

  function fmtValue(v) {
    if (v === undefined || v === null) return '';
    const rec = state.result.record;
    return rec.objective === 'contract' ? `${Math.round(100 * v)}%` : v.toFixed(1);
  }

  function render() {
    const rec = state.result.record;
    const steps = state.steps, pos = state.pos;
    const hands = parseDeal(rec.deal);
    for (let i = 0; i < pos; i++) hands[steps[i].seat].delete(steps[i].card);
    const waiting = state.result.waiting;
    let toPlay = null;
    if (pos < steps.length) toPlay = steps[pos].seat;
    else if (waiting) toPlay = waiting.seat;
    showHands(hands, rec.players, toPlay);
    // the current trick: that of the last card shown
    const trick = $('replay-trick');
    trick.innerHTML = '';
    if (pos > 0) {
      const last = steps[pos - 1];
      const t = rec.tricks[last.trick - 1];
      t.cards.slice(0, last.inTrick + 1).forEach((c, i) => {
        const d = document.createElement('div');
        d.className = 't' + c.seat + (last.inTrick === 3 && t.winner === c.seat ? ' win' : '');
        d.dataset.card = c.card;
        d.innerHTML = cardHtml(c.card);
        trick.appendChild(d);
      });
      trick.dataset.trick = last.trick;
      if (last.inTrick === 3 && t.winner) {
        trick.title = `trick ${last.trick} won by ${t.winner} (${t.points} points)`;
      }
    } else {
      trick.dataset.trick = '';
    }
    $('replay-pos').textContent = `card ${pos} of 32`;
    $('replay-pos').dataset.pos = pos;
    $('replay-prev').disabled = $('replay-first').disabled = pos === 0;
    $('replay-next').disabled = $('replay-end').disabled = pos >= steps.length;
    // the decision of the card shown last, and the DD value after it
    const dec = $('replay-decision');
    const dd = $('replay-dd');
    if (pos === 0) {
      dec.innerHTML = '<p class="note">Before the first card: ' +
                      `${esc(rec.leader)} leads.</p>`;
      dd.textContent = `DD N-S before the first card: ${rec.dd_ns_points}`;
      dd.dataset.v = rec.dd_ns_points;
    } else {
      const c = steps[pos - 1].rec;
      const who = rec.players[SEATS.indexOf(c.seat)];
      const vals = Object.entries(c.values).sort((a, b) => b[1] - a[1]);
      const seen = who === 'dd' ? ' (it sees every card)' :
                   c.worlds ? ` (${c.worlds} worlds)` : '';
      let h = `<p><strong>Trick ${steps[pos - 1].trick}: ${esc(c.seat)} (${esc(who)}) plays ` +
              `${cardHtml(c.card)}</strong>` + seen +
              (c.given_away ? `, giving away ${c.given_away} points to perfect play` : '') +
              '</p>';
      if (vals.length) {
        h += '<table><thead><tr><th class="t">card</th><th>value</th></tr></thead><tbody>' +
             vals.map(([k, v]) => `<tr${k === c.card ? ' class="played"' : ''} data-card="` +
                      `${esc(k)}"><td class="t">${cardHtml(k)}</td><td data-v="${v}">` +
                      `${fmtValue(v)}</td></tr>`).join('') + '</tbody></table>';
      } else {
        h += '<p class="note">No values: ' + (who === 'you' ? 'your card.' :
             who === 'random' ? 'a random card.' : 'the only card it could play.') + '</p>';
      }
      dec.innerHTML = h;
      dec.dataset.card = c.card;
      dd.textContent = `DD N-S after it: ${c.dd_ns}`;
      dd.dataset.v = c.dd_ns;
    }
    // the row of the card table
    const rows = document.querySelectorAll('#replay-result table[data-table="cards"] tbody tr');
    rows.forEach((tr, i) => tr.classList.toggle('here', i === pos - 1));
  }

  function showPicks() {
    const box = $('replay-picks');
    box.innerHTML = '';
    const w = state.result && state.result.waiting;
    if (!w) return;
    const p = document.createElement('p');
    p.innerHTML = `<strong>Your card (${esc(w.seat)}):</strong> `;
    for (const c of w.legal) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'pick';
      b.dataset.card = c;
      b.innerHTML = cardHtml(c);
      b.addEventListener('click', () => pick(c));
      p.appendChild(b);
    }
    box.appendChild(p);
  }

  function show(result) {
    state.result = result;
    state.picks = result.picks || [];
    const rec = result.record;
    state.steps = [];
    rec.tricks.forEach(t => t.cards.forEach((c, i) => state.steps.push(
      {seat: c.seat, card: c.card, trick: t.trick, inTrick: i, rec: c})));
    state.pos = state.steps.length;
    $('replay-view').hidden = false;
    $('replay-title').innerHTML = `<h3>${esc(rec.contract)} by ${esc(rec.declarer)} ` +
      `(${esc(rec.ruleset)}), dealer ${esc(rec.dealer)}, ${esc(rec.objective)}</h3>`;
    const out = $('replay-result');
    out.innerHTML = result.html;
    out.dataset.waiting = result.waiting ? result.waiting.seat : '';
    showPicks();
    render();
  }

  async function play(fields) {
    const result = await bz.run('replay', fields, {status: $('replay-status'),
                                                   button: $('replay-run')});
    if (result) show(result);
    return result;
  }

  async function pick(card) {
    for (const b of document.querySelectorAll('#replay-picks button.pick')) b.disabled = true;
    const result = await play(Object.assign({}, state.fields,
                                            {picks: [...state.picks, card]}));
    if (!result) {
      for (const b of document.querySelectorAll('#replay-picks button.pick')) b.disabled = false;
    }
  }

  form.addEventListener('submit', async ev => {
    ev.preventDefault();
    const fields = bz.fields(form);
    delete fields.source;
    delete fields.by;
    state.fields = fields;
    await play(fields);
  });

  const step = to => {
    if (!state.result) return;
    state.pos = Math.max(0, Math.min(state.steps.length, to));
    render();
  };
  $('replay-first').addEventListener('click', () => step(0));
  $('replay-prev').addEventListener('click', () => step(state.pos - 1));
  $('replay-next').addEventListener('click', () => step(state.pos + 1));
  $('replay-end').addEventListener('click', () => step(state.steps.length));
  document.addEventListener('keydown', ev => {
    const tag = (ev.target && ev.target.tagName) || '';
    if (['INPUT', 'SELECT', 'TEXTAREA'].includes(tag) || $('replay-view').hidden) return;
    if (ev.key === 'ArrowLeft') step(state.pos - 1);
    if (ev.key === 'ArrowRight') step(state.pos + 1);
  });

  // a dataset's deal, shown before playing; its dealer and ruleset fill the form
  $('replay-load').addEventListener('click', async () => {
    const box = $('replay-loaded');
    box.textContent = 'reading...';
    try {
      const d = await bz.info('deal', {path: $('replay-dataset').value,
                                       index: $('replay-index').value});
      $('replay-dealer').value = d.dealer;
      $('replay-ruleset').value = d.ruleset;
      box.innerHTML = `Deal ${d.index} of ${esc(d.path)} (number ${d.number}), dealer ` +
                      `${esc(d.dealer)}, ${esc(d.ruleset)}: <code>${esc(d.deal)}</code>`;
      box.dataset.deal = d.deal;
      state.result = null;
      $('replay-view').hidden = false;
      $('replay-picks').innerHTML = '';
      $('replay-result').innerHTML = '';
      showHands(parseDeal(d.deal), null, null);
      $('replay-trick').innerHTML = '';
      $('replay-pos').textContent = '';
      $('replay-decision').innerHTML = '';
      $('replay-dd').textContent = '';
    } catch (e) {
      box.innerHTML = `<span class="error">${esc(e.message)}</span>`;
    }
  });
})();
"""
