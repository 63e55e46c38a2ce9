"""Datasets bid by policies (``simulate --auction``) and the listeners' play-offs.

References: every auction judged call by call by the slow stateless judge
(tests/naive_auction.py), its final contract read by that judge; each contract's DD
result against a solve of that kind alone, its plain play-out against the single-dummy
table of that kind, its listening play-out against ``play_deal`` (the card-by-card path,
which replays the view from the whole deal at every card); the play-offs' tables against
``play_deal`` with the same seats. The bias table of the contracts bid:
tests/test_printed_contracts.py.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from bazarsim.beliefs.auctioned import (
    AuctionColumns,
    column_source,
    parse_table_policies,
    row_contract,
)
from bazarsim.beliefs.listener import ListeningPimcPlayer
from bazarsim.beliefs.playoff import HARD_FLOOR, listening_playoff, seat_players
from bazarsim.cli import app
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.core.errors import BazarsimError
from bazarsim.dd.batch import dd_tables
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.players.batch import sd_tables
from bazarsim.players.playout import play_deal
from bazarsim.rules.auction import parse_calls, run_auction
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store.parts import read_dataframe, read_manifest

from . import naive_auction as naive
from .conftest import built_dataset
from .test_auction import _naive_rules, _to_naive

runner = CliRunner()
RS = get_ruleset("bazar")
SEED, N, WORLDS = 5, 12, 2
POLICIES = "careful,E=bold,W=bold"


def auction_sim(chunk: int, dd: bool = False, **kw) -> Simulation:
    src = AuctionColumns(RS, parse_table_policies(POLICIES), None, WORLDS)
    return Simulation(deals=N, seed=SEED, ruleset=RS, chunk=chunk, dd=dd, extra=src, **kw)


def auction_run(out: Path, chunk: int, dd: bool = False, **kw) -> Path:
    run_simulation(auction_sim(chunk, dd, **kw), out)
    return out


@pytest.fixture(scope="module")
def bid(tmp_path_factory) -> Path:
    return built_dataset(tmp_path_factory, "auction-bid", auction_sim(chunk=5))


def rows(path) -> pd.DataFrame:
    return read_dataframe(path).sort_values("index").reset_index(drop=True)


def test_auctions_are_legal_and_end_in_their_contract(bid):
    """Each auction is legal call by call for the naive judge, and its final contract (as
    the judge reads it) is the row's; a four-sevens deal has no auction."""
    rules = _naive_rules(RS)
    df = rows(bid)
    assert len(df) == N and (df["declarer"] >= 0).sum() >= N - 1
    for _, r in df.iterrows():
        if r["redeal"]:
            assert r["auction"] == "" and r["declarer"] == -1
            continue
        seq = [_to_naive(c) for c in parse_calls(r["auction"])]
        assert naive.first_illegal(seq, int(r["dealer"]), rules) is None
        end = naive.final(seq, int(r["dealer"]), rules)
        assert end == (r["contract_level"], r["contract_kind"], r["declarer"],
                       r["contract_contra"], bool(r["contract_capot"])), r["auction"]
    assert df["auction"].str.contains("X").any() or df["contract_contra"].eq(0).all()


def test_contract_results_against_their_references(bid):
    """contract_dd_*: a DD solve of that kind alone; contract_sd_*: the single-dummy table
    of that kind (what simulate --sd writes as {K}_sd_ns); contract_listen_*: play_deal
    with four listening players, card by card."""
    df = rows(bid)
    src = column_source(read_manifest(bid))
    listened = same = 0
    for _, r in df[df["declarer"] >= 0].iterrows():
        hands = np.array([[r[s] for s in "NESW"]], np.uint32)
        con, k = row_contract(r), KIND_NAMES[int(r["contract_kind"])]
        dd = dd_tables(hands, dealer=int(r["dealer"]), ruleset=RS, kinds=[con.kind])
        assert r["contract_dd_ns"] == dd[f"{k}_ns_points"][0]
        assert r["contract_dd_capot"] == int(dd[f"{k}_capot_ns"][0]) + 2 * int(
            dd[f"{k}_capot_ew"][0])
        sd = sd_tables(hands, dealer=int(r["dealer"]), ruleset=RS, kinds=[k], worlds=WORLDS,
                       seed=SEED, indices=[int(r["index"])])
        assert r["contract_sd_ns"] == sd[f"{k}_sd_ns"][0]
        t = sd[f"{k}_sd_tricks_ns"][0]
        assert r["contract_sd_capot"] == (1 if t == 8 else 2 if t == 0 else 0)
        if listened + same >= 5:  # the card-by-card replay is slow: five contracts
            continue
        calls = run_auction(r["auction"], int(r["dealer"]), RS).history
        players = [ListeningPimcPlayer(src.policies, src.model, WORLDS, seed=SEED)
                   for _ in range(4)]
        rec = play_deal(hands[0], con, con.declarer, players=players, worlds=WORLDS,
                        seed=SEED, dealer=int(r["dealer"]), ruleset=RS, contra=con.contra,
                        deal_index=int(r["index"]), auction=calls)
        assert r["contract_listen_ns"] == rec["ns_points"]
        ns_tricks = sum(t["winner"] in "NS" for t in rec["tricks"])
        assert r["contract_listen_capot"] == (1 if ns_tricks == 8 else 2 if ns_tricks == 0
                                              else 0)
        listened += r["contract_listen_ns"] != r["contract_sd_ns"]
        same += r["contract_listen_ns"] == r["contract_sd_ns"]
    assert listened  # the listeners played some contract otherwise


def test_same_dataset_whatever_the_chunk_and_with_dd(bid, tmp_path):
    """Another chunk size: the same rows; with --dd the contract's DD columns are the
    {K}_dd columns of its kind."""
    other = rows(auction_run(tmp_path / "one", chunk=N, dd=True, columns="lean"))
    df = rows(bid)
    for c in ("auction", "declarer", "contract_kind", "contract_level", "contract_contra",
              "contract_dd_ns", "contract_sd_ns", "contract_listen_ns", "contract_listen_capot"):
        assert other[c].tolist() == df[c].tolist(), c
    for _, r in other[other["declarer"] >= 0].iterrows():
        k = KIND_NAMES[int(r["contract_kind"])]
        assert (r["contract_dd_ns"], r["contract_dd_capot"]) == (r[f"{k}_dd_ns"],
                                                                 r[f"{k}_dd_capot"])


def test_verify_repairs_an_auction_dataset(bid, tmp_path):
    """A part removed: verify --repair rebuilds the run from the manifest's auction entry
    (policies, model, worlds), to the same rows."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(bid, copy)
    part = sorted(copy.glob("part-*.parquet"))[1]
    part.unlink()
    res = runner.invoke(app, ["verify", str(copy), "--repair", "-q"])
    assert res.exit_code == 0, res.output
    assert rows(copy).equals(rows(bid))
    assert read_manifest(copy)["auction"]["policies"]["E"]["name"] == "bold"


@pytest.mark.parametrize("args,message", [
    (["--auction", "nonesuch"], "nonesuch"),
    (["--auction", "careful,E="], "--auction 'E=': no policy after '='"),
    (["--auction", "E=bold"], "no policy for seat N S W"),
    (["--auction", "careful,Q=bold"], "'Q' is not a seat"),
    (["--model", "m.json"], "--model m.json: it applies only with --auction"),
    (["--auction", "careful", "-r", "belote-fr"], "belote-fr"),
    (["--auction", "careful", "--kinds", "H"], "simulate --auction bids every kind"),
])
def test_bad_auction_options_are_one_error_line(tmp_path, args, message):
    out = tmp_path / "d"
    res = runner.invoke(app, ["simulate", "-n", "2", "--out", str(out), *args])
    assert res.exit_code != 0
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert lines[-1].startswith("error:") and message in lines[-1], res.output
    assert not out.exists()  # validated before anything is written


def test_playoffs_tables_against_play_deal(bid):
    """Each play-off's tables: the compared table with the seats the play-off names
    (listeners declaring, listeners defending, soft declaring against hard), the other
    one four plain players (the dataset's contract_sd) or hard declaring against soft;
    every table replayed card by card by play_deal. The mean and SE are those of the
    per-deal differences."""
    df = rows(bid)
    src = column_source(read_manifest(bid))
    first = df[df["declarer"] >= 0].head(2)
    for playoff in ("declaring", "defending", "soft-hard"):
        res = listening_playoff(str(bid), playoff, deals=2)
        assert res["deals"] == 2 and [i for i, _a, _b in res["rows"]] == first["index"].tolist()
        # the first deal replayed card by card (slow), both tables
        for (_i, a, b), (_, r) in zip(res["rows"][:1], first.head(1).iterrows(), strict=True):
            con = row_contract(r)
            calls = run_auction(r["auction"], int(r["dealer"]), RS).history
            got = []
            for table in (0, 1):
                players = seat_players(playoff, table, con.side, src, WORLDS, SEED)
                rec = play_deal([int(r[s]) for s in "NESW"], con, con.declarer,
                                players=players, worlds=WORLDS, seed=SEED,
                                dealer=int(r["dealer"]), ruleset=RS, contra=con.contra,
                                deal_index=int(r["index"]), auction=calls)
                got.append(rec["ns_points"] if con.side == 0 else rec["ew_points"])
            assert (a, b) == tuple(got), playoff
            if playoff != "soft-hard":
                ns = int(r["contract_sd_ns"])
                assert b == (ns if con.side == 0 else RS.total_points(con.kind) - ns)
        d = np.array([a - b for _i, a, b in res["rows"]], float)
        assert res["mean"] == pytest.approx(d.mean())
        assert res["se"] == pytest.approx(d.std(ddof=1) / math.sqrt(2)) or (
            math.isnan(res["se"]) and d.std() == 0)


def test_seat_players_and_hard_policies(bid):
    src = column_source(read_manifest(bid))
    plain = seat_players("declaring", 1, 0, src, 3, 1)
    assert [type(p).__name__ for p in plain] == ["PimcPlayer"] * 4
    decl = seat_players("declaring", 0, 1, src, 3, 1)
    assert [type(p).__name__ for p in decl] == ["PimcPlayer", "ListeningPimcPlayer"] * 2
    defend = seat_players("defending", 0, 1, src, 3, 1)
    assert [type(p).__name__ for p in defend] == ["ListeningPimcPlayer", "PimcPlayer"] * 2
    soft_first = seat_players("soft-hard", 0, 0, src, 3, 1)
    assert [p.policies[1].likelihood_softness for p in soft_first] == [
        src.policies[1].likelihood_softness, 0.0] * 2
    assert soft_first[1].policies[3].likelihood_floor == HARD_FLOOR
    hard_first = seat_players("soft-hard", 1, 0, src, 3, 1)
    assert [p.policies[1].likelihood_softness for p in hard_first] == [
        0.0, src.policies[1].likelihood_softness] * 2
    with pytest.raises(BazarsimError, match="unknown play-off"):
        listening_playoff(str(bid), "both")
