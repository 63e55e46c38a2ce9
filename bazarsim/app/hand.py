"""The hand-analysis screen: ``analyze HAND`` (and ``analyze HAND --auction``) asked from a
form, answered by a worker with the same table and figures as ``analyze --html`` and the
same records as ``analyze --format json`` for the same seed."""

from __future__ import annotations

import json
from typing import Any

from bazarsim.analysis.hand import analyze, check_run, deal_generator, hand_query, parse_kinds
from bazarsim.app.task import Progress, Task, field, whole_number
from bazarsim.core.cards import SEATS, parse_seat
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.generator import DEFAULT_SEED, seed_number
from bazarsim.players.players import DEFAULT_WORLDS, MAX_WORLDS, check_worlds
from bazarsim.report.records import to_json
from bazarsim.rules.rulesets import RULESETS, get_ruleset, parse_option_assignments

MAX_DEALS = 200_000  # one question's deals at most: a page is not a batch run
DEFAULT_DEALS = 1000
POLICIES = ("careful", "bold")  # the shipped policies a page offers for --auction


def _lines(value: Any) -> list[str]:
    """A list field: a list, or text with one item a line."""
    if value is None:
        return []
    items = value if isinstance(value, list) else str(value).splitlines()
    return [str(x).strip() for x in items if str(x).strip()]


def hand_params(fields: dict[str, Any], root=None) -> dict[str, Any]:
    """The form's fields checked as ``analyze`` checks its options (one clear error for
    each mistake), as the plain parameters a worker takes."""
    name = str(field(fields, "ruleset", "bazar")).lower()
    if name not in RULESETS:
        raise BazarsimError(f"ruleset {name!r}: use {', '.join(RULESETS)}")
    options = _lines(field(fields, "options"))  # -o part.field=value, one a line
    rs = get_ruleset(name, **parse_option_assignments(options))
    hand = field(fields, "hand")
    if hand is None:
        raise BazarsimError("type the hand: its cards as seen at bid time, e.g. AJ9.K7.Q.T8")
    seat, dealer = field(fields, "seat"), field(fields, "dealer")
    if seat is None or dealer is None:
        raise BazarsimError("choose the player's seat and the dealer")
    seat_i, dealer_i = parse_seat(str(seat)), parse_seat(str(dealer))
    play = str(field(fields, "play", "dd")).lower()
    worlds = check_worlds(whole_number(field(fields, "worlds", DEFAULT_WORLDS), "--worlds"))
    seed = seed_number(field(fields, "seed", DEFAULT_SEED))
    kinds = field(fields, "kinds")
    kind_list = parse_kinds(kinds, rs)
    params = {"ruleset": rs.name, "options": options, "hand": str(hand), "seat": SEATS[seat_i],
              "dealer": SEATS[dealer_i], "seed": seed, "play": play, "worlds": worlds,
              "kinds": kinds}
    auction = field(fields, "auction")
    if auction is not None:
        from bazarsim.simbid.advice import auction_query

        n = whole_number(field(fields, "deals", DEFAULT_DEALS), "worlds (-n)", 2, MAX_DEALS)
        partner = str(field(fields, "partner", "careful"))
        opponents = str(field(fields, "opponents", "careful"))
        for who, p in (("partner", partner), ("opponents", opponents)):
            if p not in POLICIES:
                raise BazarsimError(f"{who}' policy {p!r}: use {' or '.join(POLICIES)}")
        auction_query(rs, str(hand), seat_i, dealer_i, str(auction), partner, opponents, None,
                      None, play, worlds, None, 301, kind_list)
        return {**params, "auction": str(auction), "partner": partner,
                "opponents": opponents, "deals": n}
    deals = whole_number(field(fields, "deals", DEFAULT_DEALS), "deals (-n)", 1, MAX_DEALS)
    check_run(deals, None, 0.95)
    contra = str(field(fields, "contra", "none")).lower()
    turned = field(fields, "turned")
    where = _lines(field(fields, "where"))
    hand_query(rs, str(hand), seat_i, dealer_i, turned, None, where or None, kind_list,
               contra, play=play, worlds=worlds)
    return {**params, "deals": deals, "contra": contra, "turned": turned, "where": where}


def run_hand(params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Analyse the hand (in a worker): the page fragment of ``analyze --html`` and the
    records of ``analyze --format json``."""
    rs = get_ruleset(params["ruleset"],
                     **parse_option_assignments(params.get("options")))
    seat, dealer = parse_seat(params["seat"]), parse_seat(params["dealer"])
    kinds = parse_kinds(params["kinds"], rs)
    if params.get("auction") is not None:
        return _run_auction(params, rs, seat, dealer, kinds, progress)
    q = hand_query(rs, params["hand"], seat, dealer, params["turned"], None,
                   params["where"] or None, kinds, params["contra"], play=params["play"],
                   worlds=params["worlds"])
    deal_generator(q, params["seed"])  # impossible constraints: said before any solving
    progress(0.0, "dealing and solving")
    a = analyze(q, deals=params["deals"], seed=params["seed"],
                progress=lambda done, total: progress(done / total,
                                                      f"{done:,} of {total:,} deals"))
    from bazarsim.report.hand import hand_json_records, hand_title
    from bazarsim.report.html import Page
    from bazarsim.report.pages import HAND_COLUMNS, hand_page

    records = json.loads(to_json(hand_json_records(a)))
    # the table first: the figures take matplotlib about half a second more
    ahead = Page(hand_title(a))
    ahead.table("hand-1", "Every bid", HAND_COLUMNS, records, best="best")
    progress(1.0, "drawing the figures", {"title": hand_title(a), "html": ahead.fragment()})
    page = hand_page([a], where=params["where"] or None)
    return {"title": hand_title(a), "html": page.fragment(), "records": records}


def _run_auction(params, rs, seat, dealer, kinds, progress) -> dict[str, Any]:
    from bazarsim.report.advice import advice_json, advice_page, advice_title
    from bazarsim.simbid.advice import analyze_auction, auction_query

    q = auction_query(rs, params["hand"], seat, dealer, params["auction"], params["partner"],
                      params["opponents"], None, None, params["play"], params["worlds"], None,
                      301, kinds)
    stages = {"worlds": (1 / 3, "worlds drawn; solving them"),
              "solved": (2 / 3, "solved; playing each call's auction on")}
    progress(0.0, "drawing the worlds the auction allows")
    adv = analyze_auction(q, params["deals"], params["seed"], None,
                          progress=lambda stage: progress(*stages[stage]))
    return {"title": advice_title(adv), "html": advice_page(adv).fragment(),
            "records": json.loads(to_json(advice_json(adv)))}


def warm(params: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """A new worker's first job: one tiny analysis, so that the compiled kernels are loaded
    before the first question."""
    run_hand({"ruleset": "bazar", "hand": "AJ9.K7.Q.T8", "seat": "S", "dealer": "E",
              "seed": DEFAULT_SEED, "play": "dd", "worlds": 20, "kinds": None, "deals": 20,
              "contra": "none", "turned": None, "where": []}, progress)
    return {}


HAND_TASKS = {"hand": Task("hand", hand_params, run_hand), "warm": Task("warm", lambda f, r: f,
                                                                         warm)}


def _options(values, chosen=None) -> str:
    return "".join(f'<option value="{v}"{" selected" if v == chosen else ""}>{v}</option>'
                   for v in values)


def hand_screen() -> tuple[str, str]:
    """The screen's form and result area, and its script."""
    seats = ("N", "E", "S", "W")
    body = f"""
<form id="hand-form" class="app-form" autocomplete="off">
 <fieldset><legend>The hand</legend>
  <label>Cards seen at bid time <input name="hand" id="hand-cards" size="28"
   placeholder="AJ9.K7.Q.T8 or AS JS 9S ..." value="AJ9.K7.Q.T8"></label>
  <label>Seat <select name="seat" id="hand-seat">{_options(seats, "S")}</select></label>
  <label>Dealer <select name="dealer" id="hand-dealer">{_options(seats, "E")}</select></label>
  <label>Ruleset <select name="ruleset" id="hand-ruleset">{_options(RULESETS, "bazar")}
   </select></label>
  <label>Turned card <input name="turned" size="4" placeholder="belote-fr"></label>
 </fieldset>
 <fieldset><legend>The auction so far (optional: bazar, bazar-blot)</legend>
  <label>Calls from the dealer's left <input name="auction" id="hand-auction" size="28"
   placeholder="8H P 9S X"></label>
  <label>Partner <select name="partner">{_options(POLICIES, "careful")}</select></label>
  <label>Opponents <select name="opponents">{_options(POLICIES, "careful")}</select></label>
 </fieldset>
 <fieldset><legend>How</legend>
  <label>Deals (worlds with an auction) <input name="deals" id="hand-deals" type="number"
   min="1" max="{MAX_DEALS}" value="{DEFAULT_DEALS}"></label>
  <label>Seed <input name="seed" id="hand-seed" value="{DEFAULT_SEED}" size="8"></label>
  <label>Play <select name="play" id="hand-play"><option value="dd">double dummy</option>
   <option value="sd">single dummy (PIMC)</option></select></label>
  <label>PIMC worlds <input name="worlds" type="number" min="1" max="{MAX_WORLDS}"
   value="{DEFAULT_WORLDS}"></label>
  <label>Kinds <input name="kinds" size="12" placeholder="all, or H,S,BK"></label>
  <label>Contra <select name="contra">{_options(("none", "x", "xx"), "none")}</select></label>
  <label class="wide">Ruleset options, as -o takes them (one a line)
   <textarea name="options" id="hand-options" rows="1"
    placeholder="play.undertrump_required=true"></textarea></label>
  <label class="wide">Only deals where (one condition a line)
   <textarea name="where" rows="2" placeholder="len(N,S)>=5"></textarea></label>
 </fieldset>
 <button type="submit" id="hand-run">Analyse</button>
</form>
<div id="hand-status" class="status"></div>
<div id="hand-result" class="result"></div>"""
    script = """
(() => {
  const form = document.getElementById('hand-form');
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const fields = bz.fields(form);
    const out = document.getElementById('hand-result');
    const result = await bz.run('hand', fields, {
      status: document.getElementById('hand-status'),
      button: document.getElementById('hand-run'),
      partial: part => { out.innerHTML = part.html; out.dataset.title = part.title; }});
    if (result) { out.innerHTML = result.html; out.dataset.title = result.title; }
  });
})();
"""
    return body, script
