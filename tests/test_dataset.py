"""Parquet datasets: content against the API, invariance, metadata, kill-and-resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bazarsim.core.cards import SEATS
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.constraints import parse_constraints
from bazarsim.deals.generator import DealGenerator
from bazarsim.engine.faults import KILL_AFTER_PARTS
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.evaluate.hands import evaluate_deals, evaluate_hands
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store.parts import (
    MANIFEST,
    existing_parts,
    part_files,
    part_metadata,
    read_dataframe,
    read_manifest,
)

ROOT = Path(__file__).resolve().parent.parent


def _cli(args, env=None, **kw):
    full_env = dict(os.environ, **(env or {}))
    return subprocess.Popen([sys.executable, "-m", "bazarsim", *args], cwd=ROOT, env=full_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_rows_match_dealer_and_evaluation(tmp_path):
    sim = Simulation(deals=20_000, seed=3, chunk=6_000, ruleset=get_ruleset("bazar"))
    summary = run_simulation(sim, tmp_path)
    assert summary["written"] == 20_000
    assert sorted(existing_parts(tmp_path)) == [  # each chunk written as two parts
        (0, 3000), (3000, 6000), (6000, 9000), (9000, 12000), (12000, 15000),
        (15000, 18000), (18000, 19000), (19000, 20000)]
    df = read_dataframe(tmp_path)
    assert (df["index"].to_numpy() == np.arange(20_000)).all()
    batch = DealGenerator(3).deal(0, 20_000)
    hands = df[list(SEATS)].to_numpy().astype(np.uint32)
    assert (hands == batch.hands).all()
    assert (df["number"].to_numpy() == batch.numbers).all()
    assert (df["seed"] == 3).all()
    assert (df["dealer"].to_numpy() == np.arange(20_000) % 4).all()
    for kind in ("S", "H", "BK", "VK"):
        for s, seat in enumerate(SEATS):
            ev = evaluate_hands(hands[:, s], kind)
            assert (df[f"{seat}_{kind}_points"].to_numpy() == ev["points"]).all()
            assert (df[f"{seat}_{kind}_declarations"].to_numpy()
                    == ev["declaration_points"]).all()
            assert (df[f"{seat}_{kind}_belas"].to_numpy() == ev["belas"]).all()
            assert (df[f"{seat}_{kind}_trump_jacks"].to_numpy() == ev["trump_jacks"]).all()
        dv = evaluate_deals(hands, df["dealer"].to_numpy(), kind)
        assert (df[f"{kind}_declaration_side"].to_numpy() == dv["declaration_side"]).all()
        assert (df[f"{kind}_declarations_ew"].to_numpy() == dv["declarations_ew"]).all()
        total = sum(df[f"{seat}_{kind}_points"] for seat in SEATS)
        assert (total == (248 if kind == "VK" else 152)).all()


def test_metadata_and_manifest(tmp_path):
    rs = get_ruleset("bazar", **{"declarations.four_eights_cancel": False})
    sim = Simulation(deals=1000, seed=9, ruleset=rs, chunk=400, kinds=(1, 4), dealer=2)
    run_simulation(sim, tmp_path)
    meta = part_metadata(part_files(tmp_path)[1])
    assert meta["seed"] == 9 and meta["start"] == 200 and meta["end"] == 400
    assert meta["ruleset"] == "bazar" and meta["schema_version"] == 1
    assert meta["options"]["declarations.four_eights_cancel"] is False
    assert meta["kinds"] == ["H", "BK"] and meta["dealer"] == "S"
    assert "package_version" in meta
    assert (tmp_path / MANIFEST).exists()
    df = read_dataframe(tmp_path)
    assert (df["dealer"] == 2).all()
    assert "N_H_points" in df and "N_S_points" not in df


def test_other_run_in_same_directory_is_refused(tmp_path):
    run_simulation(Simulation(deals=500, seed=1, chunk=200), tmp_path)
    with pytest.raises(BazarsimError, match="differs in: seed"):
        run_simulation(Simulation(deals=500, seed=2, chunk=200), tmp_path)
    # the same run again: nothing to do, same data
    again = run_simulation(Simulation(deals=500, seed=1, chunk=300), tmp_path)
    assert again["written"] == 0 and again["resumed_from"] == 500


def test_a_run_grows_with_a_larger_deal_count(tmp_path):
    """The same command with a larger -n adds the missing deals (deal i of a seed is the
    same anyway): the dataset then equals one run of the larger size; fewer is refused."""
    grown, whole = tmp_path / "grown", tmp_path / "whole"
    run_simulation(Simulation(deals=700, seed=5, chunk=256, columns="lean"), grown)
    heard = []
    summary = run_simulation(
        Simulation(deals=1_500, seed=5, chunk=256, columns="lean"), grown, notice=heard.append)
    assert summary["resumed_from"] == 700 and summary["written"] == 800
    assert any("extending it to 1500" in m for m in heard)
    run_simulation(Simulation(deals=1_500, seed=5, chunk=600, columns="lean"), whole)
    assert read_dataframe(grown).equals(read_dataframe(whole))
    assert read_manifest(grown) == read_manifest(whole)
    again = run_simulation(Simulation(deals=1_500, seed=5, columns="lean"), grown)
    assert again["written"] == 0
    with pytest.raises(BazarsimError, match="holds a run of 1500 deals"):
        run_simulation(Simulation(deals=1_000, seed=5, columns="lean"), grown)
    with pytest.raises(BazarsimError, match="differs in: seed"):
        run_simulation(Simulation(deals=2_000, seed=6, columns="lean"), grown)
    # through the command line, as a user extends a run
    p = _cli(["simulate", "-n", "1600", "-s", "5", "--columns", "lean", "-q",
              "--out", str(grown)])
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert "extending it to 1600" in err
    assert len(read_dataframe(grown)) == 1_600


def test_constrained_dataset(tmp_path):
    cons = parse_constraints(["S:AH KH QH"], ["len(N,S)>=4"])
    run_simulation(
        Simulation(deals=3000, seed=4, constraints=cons, chunk=1000, kinds=(1,)), tmp_path)
    df = read_dataframe(tmp_path)
    s = df["S"].to_numpy().astype(np.uint32)
    mask = np.uint32(cons.fixed[2])
    assert ((s & mask) == mask).all()
    n_spades = np.bitwise_count(df["N"].to_numpy().astype(np.uint32) & np.uint32(0xFF))
    assert (n_spades >= 4).all()
    assert (df["S_H_belas"] == 1).all()
    assert part_metadata(part_files(tmp_path)[0])["constraints"] == {
        "fix": {"S": "AH KH QH"}, "where": ["len(N,S)>=4"]}


def test_threads_and_chunk_sizes_give_identical_datasets(tmp_path):
    args = ["simulate", "--deals", "30000", "--seed", "77", "--kinds", "H,BK", "--quiet"]
    one = _cli([*args, "--out", str(tmp_path / "t1"), "--chunk", "4096"],
               env={"NUMBA_NUM_THREADS": "1"})
    two = _cli([*args, "--out", str(tmp_path / "t2"), "--chunk", "10000"],
               env={"NUMBA_NUM_THREADS": "2"})
    for p in (one, two):
        _out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    a = read_dataframe(tmp_path / "t1")
    b = read_dataframe(tmp_path / "t2")
    assert len(a) == 30_000 and len(part_files(tmp_path / "t1")) == 16
    pd.testing.assert_frame_equal(a, b)


def test_sigkill_mid_run_then_resume_equals_uninterrupted_run(tmp_path):
    out = tmp_path / "killed"
    # 16 chunks of 1,250 deals, two parts each; the run SIGKILLs itself once 3 parts are
    # whole (engine/faults.py): at the next chunk's boundary, 4 parts on disk
    args = ["simulate", "--deals", "20000", "--seed", "5", "--kinds", "H", "--chunk", "1250",
            "--quiet", "--out", str(out)]
    proc = _cli(args, env={KILL_AFTER_PARTS: "3"})
    proc.communicate(timeout=600)
    assert proc.returncode == -signal.SIGKILL
    assert len(existing_parts(out)) == 4
    resumed = _cli(args)
    _o, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err
    assert not list(out.glob(".tmp-*"))
    clean = tmp_path / "clean"
    run_simulation(Simulation(deals=20_000, seed=5, kinds=(1,), chunk=7_000, writers=3), clean)
    pd.testing.assert_frame_equal(read_dataframe(out), read_dataframe(clean))


def test_lean_columns_are_a_subset_of_full(tmp_path):
    run_simulation(Simulation(deals=3000, seed=6, chunk=2000, columns="lean"), tmp_path / "lean")
    run_simulation(Simulation(deals=3000, seed=6, chunk=2000), tmp_path / "full")
    lean = read_dataframe(tmp_path / "lean")
    full = read_dataframe(tmp_path / "full")
    assert len(lean.columns) == 52 and len(full.columns) == 188
    assert set(lean.columns) < set(full.columns)
    pd.testing.assert_frame_equal(lean, full[list(lean.columns)])
    with pytest.raises(BazarsimError, match="differs in: columns"):
        run_simulation(Simulation(deals=3000, seed=6, columns="full"), tmp_path / "lean")


def test_shards_of_one_seed_add_up_to_the_whole_run(tmp_path):
    run_simulation(Simulation(deals=5000, seed=8, kinds=(4,), chunk=2000), tmp_path / "whole")
    run_simulation(Simulation(deals=3100, seed=8, kinds=(4,), chunk=1000), tmp_path / "a")
    run_simulation(
        Simulation(deals=1900, seed=8, kinds=(4,), chunk=700, first=3100), tmp_path / "b")
    both = pd.concat([read_dataframe(tmp_path / "a"), read_dataframe(tmp_path / "b")],
                     ignore_index=True)
    pd.testing.assert_frame_equal(both, read_dataframe(tmp_path / "whole"))
    assert part_metadata(part_files(tmp_path / "b")[0])["first"] == 3100
