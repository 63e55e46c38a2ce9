"""The app's deal replay: the record is ``bazarsim play -f json``'s, a person's seat plays its
picks and waits for the next one, bad forms are one clear error, datasets only under
--data."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from typer.testing import CliRunner

from bazarsim.app.replay import INFO, REPLAY_TASKS, replay_screen
from bazarsim.cli import app
from bazarsim.core.cards import SEATS, format_cards, parse_deal
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.numbering import deal_number
from bazarsim.players.players import AwaitingCard, ScriptedPlayer
from bazarsim.players.playout import play_contract, play_deal
from bazarsim.players.view import PlayerView
from bazarsim.rules.rulesets import get_ruleset

runner = CliRunner()
TASK = REPLAY_TASKS["replay"]
DEAL = "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97"
BASE = {"deal": DEAL, "contract": "9H", "declarer": "N", "dealer": "E", "worlds": "2",
        "seed": "5", "player_N": "dd", "player_E": "random", "player_S": "pimc",
        "player_W": "random"}


def replay(fields, root=None, shares=None):
    """check then run, as the server and a worker do."""
    params = TASK.check(fields, root)
    json.dumps(params)  # plain JSON, for the worker
    result = TASK.run(params, lambda share, what: shares is not None and shares.append(share))
    json.dumps(result)
    return result


def play_json(argv):
    r = runner.invoke(app, argv)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def cards(rec):
    return [c for t in rec["tricks"] for c in t["cards"]]


def test_record_is_plays_record():
    shares = []
    res = replay(BASE, shares=shares)
    rec = res["record"]
    assert res["waiting"] is None and len(cards(rec)) == 32
    assert shares[1:] == [n / 32 for n in range(1, 33)]  # one step a card
    expected = play_json(["play", DEAL, "-c", "9H", "--declarer", "N", "--dealer", "E", "-w",
                          "2", "--seed", "5", "--players", "dd,random,pimc,random", "-f",
                          "json"])
    assert rec == expected
    # the card table names the same command, and it gives the same record
    command = re.search(r'data-command="([^"]*)"', res["html"]).group(1)
    argv = shlex.split(command.replace("&#x27;", "'"))
    assert argv[:2] == ["bazarsim", "play"] and play_json(argv[1:]) == rec
    # the table holds a row a card, with play's columns
    assert res["html"].count("<tr>") == 1 + 1 + 1 + 32  # two heads, the summary, the cards
    for key in ("trick", "seat", "card", "worlds", "value", "dd_ns", "lost", "won_by"):
        assert f'data-key="{key}"' in res["html"]


def test_auction_names_the_contract_as_in_play():
    fields = {**BASE, "auction": "P P 9S P P P P", "player_S": "dd"}
    del fields["contract"], fields["declarer"]
    rec = replay(fields)["record"]
    expected = play_json(["play", DEAL, "--auction", "P P 9S P P P P", "--dealer", "E", "-w",
                          "2", "--seed", "5", "--players", "dd,random,dd,random", "-f", "json"])
    assert rec == expected and rec["contract"] == "9S" and rec["listening"] is True


def test_your_seat_plays_your_picks_and_waits():
    """Pick after pick to the end: each wait offers exactly the legal cards, the cards
    before it never change, and the finished record has play's fields."""
    fields = {**BASE, "player_S": "you"}
    rs = get_ruleset("bazar")
    hands = parse_deal(DEAL, full=True)
    con = play_contract("9H", "N", 0, rs)
    picks: list[str] = []
    before: list[dict] = []
    for turn in range(9):
        res = replay({**fields, "picks": list(picks)})
        rec = res["record"]
        played = cards(rec)
        assert played[:len(before)] == before  # the other seats play the same cards again
        assert [c["card"] for c in played if c["seat"] == "S"] == picks
        if turn == 8:
            break
        wait = res["waiting"]
        assert wait == rec["waiting"] and wait["seat"] == "S"
        assert "made" not in rec and "dd_made" not in rec
        history = [(c["seat"], c["card"]) for c in played]
        view = PlayerView.from_deal(hands, con, history, 2, 1, rs)
        assert wait["legal"] == format_cards(view.legal()).split()
        assert "Waiting for S" in res["html"]
        picks.append(wait["legal"][turn % len(wait["legal"])])
        before = played
    assert res["waiting"] is None and len(played) == 32 and "waiting" not in rec
    assert rec["players"] == ["dd", "random", "you", "random"]
    full = play_json(["play", DEAL, "-c", "9H", "--declarer", "N", "--dealer", "E", "-w", "2",
                      "--seed", "5", "--players", "dd,random,pimc,random", "-f", "json"])
    assert rec.keys() == full.keys()
    assert rec["ns_points"] + rec["ew_points"] == 162 and rec["made"] in (True, False)
    assert 'data-command' not in res["html"]  # no command plays your cards


def test_first_card_yours_waits_at_once():
    fields = {**BASE, "player_E": "you"}  # dealer E: S leads... E is third to the trick
    res = replay({**fields, "dealer": "N"})  # dealer N: E leads
    assert cards(res["record"]) == [] and res["waiting"]["seat"] == "E"
    assert len(res["waiting"]["legal"]) == 8  # any card leads


def test_scripted_player_in_play_deal():
    hands = parse_deal(DEAL, full=True)
    with pytest.raises(BazarsimError, match="E cannot play 7S as its card 1: play one of "
                                            "AS KS QS AD QD TD 8D AC"):
        play_deal(hands, "9H", "N", players=["dd", ScriptedPlayer(["7S"]), "dd", "dd"])
    rec = play_deal(hands, "9H", "N", players=["dd", ScriptedPlayer(["AC"]), "dd", "dd"])
    assert [c["card"] for c in cards(rec)][:1] == ["AC"] and rec["waiting"]["seat"] == "E"
    with pytest.raises(AwaitingCard):
        ScriptedPlayer().decide(PlayerView.from_deal(hands, play_contract("9H", "N", 0,
                                                                          get_ruleset()), [], 1))
    with pytest.raises(BazarsimError, match="kernel"):
        play_deal(hands, "9H", "N", players=["dd", ScriptedPlayer(), "dd", "dd"], kernel=True)


def test_an_illegal_pick_is_refused_with_the_legal_cards():
    fields = {**BASE, "dealer": "N", "player_S": "you"}  # E leads, S follows
    legal = replay(fields)["waiting"]["legal"]
    held = format_cards(parse_deal(DEAL)[2]).split()
    wrong = next(c for c in held if c not in legal)  # S must follow suit or trump
    params = TASK.check({**fields, "picks": [wrong]}, None)
    with pytest.raises(BazarsimError, match=f"S cannot play {wrong} as its card 1: play one "
                                            f"of {' '.join(legal)}$"):
        TASK.run(params, lambda s, w: None)


@pytest.mark.parametrize("change, says", [
    ({"deal": "N:AKQ.. ... ... ..."}, "bad hand"),
    ({"deal": "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J9"}, "same number of cards"),
    ({"deal": "N:J97.T8..QT AKQ..AQT8. .AKQ.KJ97. T8.J97..J9"}, "8 cards a hand"),
    ({"deal": "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97 J97"}, "4 hands"),
    ({"deal": "N:J97.T8..QT8 J97..AQT8.A .AKQ.KJ97.K T8.J97..J97"}, "two hands"),
    ({"deal": None}, "type the deal"),
    ({"contract": "9X"}, "not a contract kind"),
    ({"contract": "7H"}, "at least 8"),
    ({"declarer": "Q"}, "seat"),
    ({"dealer": "X"}, "seat"),
    ({"declarer": None}, "declarer"),
    ({"auction": "P 9H P P P"}, "not both"),
    ({"contract": None, "declarer": None, "auction": "P 9H P"}, "not finished"),
    ({"contra": "xxx"}, "contra"),
    ({"ruleset": "chess"}, "ruleset"),
    ({"worlds": "0"}, "worlds"),
    ({"worlds": "many"}, "whole number"),
    ({"seed": "-1"}, "seed"),
    ({"objective": "glory"}, "objective"),
    ({"contract": "9H-CAPOT", "objective": "contract"}, "capot"),
    ({"player_N": "clever"}, "unknown player"),
    ({"player_N": "you", "player_S": "you"}, "one seat at most"),
    ({"picks": ["KC"]}, "no seat is played by you"),
    ({"player_S": "you", "picks": ["AC"]}, "E's card"),
    ({"player_S": "you", "picks": ["KC", "KC"]}, "twice"),
    ({"player_S": "you", "picks": ["ZZ"]}, "bad card"),
    ({"players": "dd,dd"}, "not both"),
    ({"dataset": "runs"}, "not both"),
])
def test_bad_form_is_one_clear_error(change, says):
    fields = {k: v for k, v in {**BASE, **change}.items() if v is not None}
    with pytest.raises(BazarsimError, match=says) as err:
        TASK.check(fields, None)
    assert "\n" not in str(err.value)


def test_players_as_one_list():
    params = TASK.check({**{k: v for k, v in BASE.items() if not k.startswith("player_")},
                         "players": "dd,random,you,random"}, None)
    assert params["players"] == ["dd", "random", "you", "random"]
    with pytest.raises(BazarsimError, match="one player or four"):
        TASK.check({"deal": DEAL, "contract": "9H", "declarer": "N", "players": "dd,dd"}, None)


# ---------------------------------------------------------------- datasets


@pytest.fixture(scope="module")
def data_root(tmp_path_factory):
    from bazarsim.engine.run import run_simulation
    from bazarsim.engine.simulation import Simulation

    root = tmp_path_factory.mktemp("data")
    run_simulation(Simulation(deals=12, seed=3, ruleset=get_ruleset("bazar"), columns="lean"),
                   root / "runs" / "small")
    (root / "notes.txt").write_text("not a dataset")
    return root


def test_dataset_deal_by_number(data_root):
    from bazarsim.store.parts import read_dataframe

    df = read_dataframe(data_root / "runs" / "small", ["dealer", *SEATS])
    row = df[df["index"] == 7].iloc[0]
    info = INFO["deal"](data_root, {"path": "runs/small", "index": "7"})
    assert parse_deal(info["deal"]).tolist() == [int(row[s]) for s in SEATS]
    assert info["dealer"] == SEATS[int(row["dealer"])] and info["ruleset"] == "bazar"
    assert info["number"] == str(deal_number(parse_deal(info["deal"])))  # text for JavaScript
    fields = {k: v for k, v in BASE.items() if k not in ("deal", "dealer")}
    res = replay({**fields, "dataset": "runs/small", "index": "7"}, data_root)
    assert res["source"] == {"dataset": "runs/small", "index": 7}
    rec = res["record"]
    assert rec["dealer"] == info["dealer"]
    assert rec == play_json(["play", info["deal"], "-c", "9H", "--declarer", "N", "--dealer",
                             info["dealer"], "-w", "2", "--seed", "5", "--players",
                             "dd,random,pimc,random", "-f", "json"])


@pytest.mark.parametrize("path, index, says", [
    ("runs/small", "12", r"not in runs/small: it holds deals 0 \.\. 11"),
    ("runs/small", "-1", "not in runs/small"),
    ("runs/small", "seven", "whole number"),
    ("../small", "1", r"'\.\.' is not allowed"),
    ("/etc", "1", "relative to the data directory"),
    ("runs/other", "1", "not found"),
    ("notes.txt", "1", "not a bazarsim dataset"),
    ("runs", "1", "not a bazarsim dataset"),
])
def test_bad_dataset_deal(data_root, path, index, says):
    with pytest.raises(BazarsimError, match=says):
        INFO["deal"](data_root, {"path": path, "index": index})
    fields = {k: v for k, v in BASE.items() if k != "deal"}
    with pytest.raises(BazarsimError, match=says):
        TASK.check({**fields, "dataset": path, "index": index}, data_root)


def test_dataset_needs_a_data_root_and_a_number(data_root):
    fields = {k: v for k, v in BASE.items() if k != "deal"}
    with pytest.raises(BazarsimError, match="no --data"):
        TASK.check({**fields, "dataset": "runs/small", "index": "1"}, None)
    with pytest.raises(BazarsimError, match="number of the deal"):
        TASK.check({**fields, "dataset": "runs/small"}, data_root)


def test_a_link_out_of_the_data_root_is_refused(data_root, tmp_path):
    (data_root / "out").symlink_to(tmp_path)
    try:
        with pytest.raises(BazarsimError, match="leads out"):
            INFO["deal"](data_root, {"path": "out", "index": "0"})
    finally:
        (data_root / "out").unlink()


# ---------------------------------------------------------------- the screen


def test_screen_has_the_ids_and_no_outside_resource():
    body, script = replay_screen()
    for id_ in ("replay-form", "replay-deal", "replay-dataset", "replay-index",
                "replay-contract", "replay-declarer", "replay-dealer", "replay-ruleset",
                "replay-auction", "replay-worlds", "replay-seed", "replay-run", "replay-prev",
                "replay-next", "replay-end", "replay-pos", "replay-dd", "replay-picks",
                "replay-decision", "replay-trick", "replay-result", "replay-status",
                *(f"replay-player-{s}" for s in SEATS), *(f"replay-hand-{s}" for s in SEATS)):
        assert body.count(f'id="{id_}"') == 1, id_
    for s in SEATS:
        select = re.search(rf'<select name="player_{s}"[^>]*>(.*?)</select>', body).group(1)
        assert re.findall(r'value="(\w+)"', select) == ["pimc", "dd", "random", "you"]
    assert "http" not in body + script and "<script" not in body
    assert "'pick'" in script and "dataset.card" in script
    assert "bz.run('replay'" in script and "bz.info('deal'" in script
