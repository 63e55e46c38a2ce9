"""Single-dummy results in datasets and answers: ``simulate --sd``, ``--play sd`` and the
bias table, against plain recomputation (the play-outs one by one, the scoring reference
row by row)."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from bazarsim.analysis.bias import bias_table
from bazarsim.analysis.bids import bid_table, ruleset_bids
from bazarsim.cli import app
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.players.playout import play_deal
from bazarsim.rules.rulesets import get_ruleset

from . import naive_scoring as NS
from .conftest import built_dataset

runner = CliRunner()
KINDS = ("H", "BK")
DEALS = 36


def simulate(out, **kw):
    args = dict(deals=DEALS, seed=5, kinds=KINDS, dd=True, sd=3)
    args.update(kw)
    run_simulation(Simulation(**args), out)
    return out


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return built_dataset(tmp_path_factory, "sd", Simulation(
        deals=DEALS, seed=5, kinds=KINDS, dd=True, sd=3))


def frame(out) -> pd.DataFrame:
    return pd.read_parquet(out).sort_values("index").reset_index(drop=True)


def test_sd_columns_are_the_play_outs(dataset):
    """Each deal's {K}_sd_ns is play_deal's result for that deal, seed and index."""
    df = frame(dataset)
    rs = get_ruleset("bazar")
    for i in (0, 7, 22):
        row = df.iloc[i]
        deal = [int(row[s]) for s in "NESW"]
        for k in KINDS:
            rec = play_deal(deal, k, "N", worlds=3, seed=5, dealer=int(row["dealer"]),
                            ruleset=rs, deal_index=int(row["index"]))
            assert rec["ns_points"] == row[f"{k}_sd_ns"]
            ns_tricks = sum(t["winner"] in "NS" for t in rec["tricks"])
            assert row[f"{k}_sd_capot"] == (1 if ns_tricks == 8 else 2 if ns_tricks == 0 else 0)
            assert rec["dd_ns_points"] == row[f"{k}_dd_ns"]


def test_sd_runs_are_the_same_whatever_the_chunk_and_resume(dataset, tmp_path):
    """Another chunk size, and a run killed after some chunks then resumed: same rows."""
    want = frame(dataset)
    other = simulate(tmp_path / "chunked", chunk=5)
    assert frame(other).equals(want)
    part = tmp_path / "resumed"
    simulate(part, deals=12, chunk=4)  # a shorter run of the same seed, extended after
    simulate(part, chunk=7)
    assert frame(part).equals(want)
    r = runner.invoke(app, ["verify", str(part), "--sample", "6"])
    assert r.exit_code == 0, r.output


def test_shards_of_an_sd_run_add_up_to_the_whole(dataset, tmp_path):
    a = simulate(tmp_path / "a", deals=14, chunk=5)
    b = simulate(tmp_path / "b", deals=DEALS - 14, first=14, chunk=9)
    both = pd.concat([frame(a), frame(b)], ignore_index=True)
    assert both.equals(frame(dataset))


def test_manifest_names_the_players(dataset):
    manifest = json.loads((dataset / "_run.json").read_text())
    params = manifest.get("params", manifest)
    assert params["sd"] == {"players": "pimc", "worlds": 3}


def test_play_sd_tables_use_the_sd_columns(dataset):
    """table bids --play sd counts the deals the scoring reference makes under SD (each
    side's two seats are two declarer rows), --play dd those it makes under DD."""
    ref = reference_bias(dataset, "H", [8, 9])
    for play, at in (("sd", 2), ("dd", 1)):
        rows = bid_table(dataset, kinds=["H"], levels=[8, 9], play=play)
        assert all(r["play"] == play for r in rows)
        for r in rows:
            if not r["capot"]:
                assert r["made"] == 2 * ref[r["bid"]][at], (play, r["bid"])
                assert r["n"] == 4 * DEALS
    r = runner.invoke(app, ["table", "bids", str(dataset), "--kinds", "H", "--levels", "8",
                            "--play", "sd"])
    assert r.exit_code == 0 and "single dummy" in r.output, r.output
    r = runner.invoke(app, ["table", "bids", str(dataset), "--kinds", "H", "--levels", "8"])
    assert "double dummy" in r.output


def reference_bias(out, kind: str, levels):
    """Every (deal, side, bid) scored by the scoring reference, counted by hand."""
    rs = get_ruleset("bazar")
    df = frame(out)
    k = KIND_NAMES.index(kind)
    total = rs.total_points(k)
    bids = [b for b in ruleset_bids(rs, (k,), levels, capot=False)]
    out_rows = {}
    for bid in bids:
        n = dd = sd = both = 0
        gaps = []
        for _, row in df.iterrows():
            decl = (int(row[f"{kind}_declarations_ns"]), int(row[f"{kind}_declarations_ew"]))
            bela = (int(row[f"{kind}_bela_ns"]), int(row[f"{kind}_bela_ew"]))
            for side in (0, 1):
                made = {}
                pts = {}
                for p in ("dd", "sd"):
                    ns = int(row[f"{kind}_{p}_ns"])
                    cap = int(row[f"{kind}_{p}_capot"])
                    tricks = (8, 0) if cap == 1 else (0, 8) if cap == 2 else (4, 4)
                    points = (ns, total - ns)
                    made[p] = NS.score(rs, bid.level, k, side, 0, False, points, tricks, decl,
                                       bela)[0]
                    pts[p] = points[side]
                n += 1
                dd += made["dd"]
                sd += made["sd"]
                both += made["dd"] and made["sd"]
                if made["dd"]:
                    gaps.append(pts["sd"] - pts["dd"])
        out_rows[bid.label] = (n, dd, sd, both, np.mean(gaps) if gaps else np.nan)
    return out_rows


def test_bias_table_matches_the_scoring_reference(dataset):
    res = bias_table(dataset, kinds=["H"], levels=[8, 10, 12])
    ref = reference_bias(dataset, "H", [8, 10, 12])
    assert res["deals"] == DEALS and len(res["rows"]) == 3
    for r in res["rows"]:
        n, dd, sd, both, gap = ref[r["bid"]]
        assert r["n"] == n == 2 * DEALS
        assert r["dd_made"] == dd and r["p_make_sd"] == pytest.approx(sd / n)
        assert r["p_sd_given_dd_made"] == pytest.approx(both / dd if dd else np.nan,
                                                        nan_ok=True)
        assert r["p_sd_given_dd_failed"] == pytest.approx((sd - both) / (n - dd))
        assert r["make_diff"] == pytest.approx((sd - dd) / n)
        assert r["points_gap"] == pytest.approx(gap, nan_ok=True)
        assert r["dd_low"] <= r["p_make_dd"] <= r["dd_high"]


def test_bias_command_and_its_errors(dataset, tmp_path):
    r = runner.invoke(app, ["table", "bias", str(dataset), "--kinds", "H", "--levels", "8,9"])
    assert r.exit_code == 0, r.output
    assert "SD if DD made %" in r.output.replace("\n", " ") or "SD if DD" in r.output
    r = runner.invoke(app, ["table", "bias", str(dataset), "-f", "json"])
    assert r.exit_code == 0 and json.loads(r.output)["rows"]
    plain = simulate(tmp_path / "dd-only", deals=4, sd=0)
    r = runner.invoke(app, ["table", "bias", str(plain)])
    assert r.exit_code == 2 and r.output.startswith("error:") and "--sd" in r.output
    r = runner.invoke(app, ["table", "bids", str(plain), "--play", "sd"])
    assert r.exit_code == 2 and "no SD columns" in r.output
    with pytest.raises(BazarsimError, match="--play"):
        bid_table(dataset, play="guess")


def test_analyze_play_sd_says_so():
    r = runner.invoke(app, ["analyze", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "E",
                            "-n", "12", "--kinds", "H", "--play", "sd",
                            "-w", "2", "-q", "-f", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert rows and all(x["play"] == "sd" and x["worlds"] == 2 for x in rows)
    r = runner.invoke(app, ["analyze", "AJ9.K7.Q.T8", "--seat", "S", "--dealer", "E",
                            "-n", "12", "--kinds", "H", "--play", "sd",
                            "-w", "2", "-q"])
    assert "single dummy" in r.output


def test_sd_run_killed_then_resumed_at_1_and_2_threads(tmp_path):
    """SIGKILL an --sd run once 3 parts are whole (engine/faults.py), resume it with
    another thread count: the dataset of an uninterrupted in-process run."""
    import signal
    import subprocess
    import sys

    from bazarsim.engine.faults import KILL_AFTER_PARTS
    from bazarsim.store.parts import existing_parts

    out = tmp_path / "killed"
    args = [sys.executable, "-m", "bazarsim", "simulate", "-n", "24", "--seed", "9",
            "--kinds", "H,BK", "--dd", "--sd", "-w", "2", "--chunk", "4", "-q", "--out",
            str(out)]
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    p = subprocess.run(args, capture_output=True, env={**env, KILL_AFTER_PARTS: "3"})
    assert p.returncode == -signal.SIGKILL
    assert 3 <= len(existing_parts(out)) < 12
    done = subprocess.run(args, capture_output=True, text=True,
                          env=dict(env, NUMBA_NUM_THREADS="1"))
    assert done.returncode == 0, done.stderr
    clean = simulate(tmp_path / "clean", deals=24, seed=9, sd=2, chunk=24)
    assert frame(out).equals(frame(clean))


def test_demo_plays_a_live_sample_beside_the_checked_in_table(tmp_path):
    """`make run`'s hidden-card part: a few deals played out, their rows beside the rows
    of reports/bias-bazar.json."""
    r = runner.invoke(app, ["demo", "-n", "2000", "--out", str(tmp_path / "demo-7-2000"),
                            "--dd-deals", "0", "--sd-deals", "8", "-q"])
    assert r.exit_code == 0, r.output
    assert "hidden-card play" in r.output and "8H" in r.output
    assert "*: the checked-in table" in r.output
    assert (tmp_path / "demo-sd-7-8" / "_run.json").exists()


def test_report_has_a_bias_section(dataset, tmp_path):
    out = tmp_path / "r.html"
    r = runner.invoke(app, ["report", str(dataset), "--out", str(out), "--kinds", "H"])
    assert r.exit_code == 0, r.output
    html = out.read_text()
    assert "Double dummy against hidden-card play" in html and "SD if DD made %" in html
    assert "bazarsim table bias" in html  # the table names the command that makes it
