"""Every number ``table bias`` prints for a dataset bid by policies (``simulate --auction
POLICY --sd``), against tests/naive_scoring.py over the raw rows: one row per kind, bid
and contra of the contracts bid, each deal once for its declaring side, in the order of
kind, level, capot and contra."""

from __future__ import annotations

import json
import re
import shutil

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from bazarsim.beliefs.auctioned import AuctionColumns, parse_table_policies
from bazarsim.cli import app
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store.parts import read_dataframe

from . import naive_scoring as NS
from .conftest import built_dataset
from .test_printed_tables import mean_se, same, wilson

runner = CliRunner()
RS = get_ruleset("bazar-blot")  # not the default ruleset: its own scoring must be used


@pytest.fixture(scope="module", params=["bazar-blot", "bazar"])
def played(request, tmp_path_factory):
    """40 deals bid by careful (N-S) and bold (E-W), contracts played at one world: in
    bazar-blot (not the default ruleset) and in bazar (all-trumps contracts, another
    deal total)."""
    global RS
    RS = get_ruleset(request.param)
    src = AuctionColumns(RS, parse_table_policies("careful,E=bold,W=bold"), None, 1)
    return built_dataset(tmp_path_factory, f"contracts-{RS.name}",
                         Simulation(deals=40, seed=5, ruleset=RS, chunk=40, extra=src,
                                    columns="lean"))


@pytest.fixture(scope="module")
def bid(played, tmp_path_factory):
    """A copy of ``played`` where the first contract is marked a capot bid (the policies
    rarely bid one), so that the table's capot rows are checked too."""
    path = played
    capot = tmp_path_factory.mktemp("capot") / "data"
    shutil.copytree(path, capot)
    part = sorted(capot.glob("part-*.parquet"))[0]
    table = pq.read_table(part)
    flags = table.column("contract_capot").to_numpy().copy()
    first = int((table.column("declarer").to_numpy() >= 0).argmax())
    flags[first] = 1
    table = table.set_column(table.schema.get_field_index("contract_capot"),
                             table.schema.field("contract_capot"), pa.array(flags))
    pq.write_table(table, part)
    return capot


def rows(path) -> pd.DataFrame:
    return read_dataframe(path).sort_values("index").reset_index(drop=True)


def reference(path, play: str, kinds=None, levels=None, confidence: float = 0.95) -> dict:
    """Per (kind, level, capot, contra), in that order: every field of a row."""
    df = rows(path)
    df = df[df["declarer"] >= 0]
    recs = []
    for _, r in df.iterrows():
        k, side = int(r["contract_kind"]), int(r["declarer"]) % 2
        capot = bool(r["contract_capot"])
        if kinds and KIND_NAMES[k] not in kinds:
            continue
        if levels is not None and (capot or int(r["contract_level"]) not in levels):
            continue
        kn = KIND_NAMES[k]
        total = RS.total_points(k)
        out = {}
        for p in ("dd", play):
            ns, cap = int(r[f"contract_{p}_ns"]), int(r[f"contract_{p}_capot"])
            tricks = (8, 0) if cap == 1 else (0, 8) if cap == 2 else (4, 4)
            made = NS.score(RS, int(r["contract_level"]), k, side, int(r["contract_contra"]),
                            capot, (ns, total - ns), tricks,
                            (int(r[f"{kn}_declarations_ns"]), int(r[f"{kn}_declarations_ew"])),
                            (int(r[f"{kn}_bela_ns"]), int(r[f"{kn}_bela_ew"])))[0]
            out[p] = (bool(made), ns if side == 0 else total - ns)
        contra = int(r["contract_contra"])
        label = (f"{r['contract_level']}{kn}" + ("-CAPOT" if capot else "")
                 + ("", " X", " XX")[contra])
        recs.append(dict(order=(k, int(r["contract_level"]), capot, contra), bid=label,
                         kind=kn, contra=("", "X", "XX")[contra], dd=out["dd"][0],
                         sd=out[play][0], gap=out[play][1] - out["dd"][1]))
    ref = {}
    for (_o, b), g in pd.DataFrame(recs).groupby(["order", "bid"], sort=True):
        n, dd, sd = len(g), int(g["dd"].sum()), int(g["sd"].sum())
        kept = int((g["dd"] & g["sd"]).sum())
        saved = int((~g["dd"] & g["sd"]).sum())
        diff, se = mean_se(g["sd"].astype(int) - g["dd"].astype(int))
        gap, se_gap = mean_se(g.loc[g["dd"], "gap"])
        ref[b] = dict(kind=g["kind"].iloc[0], contra=g["contra"].iloc[0], n=n,
                      p_make_dd=dd / n, p_make_sd=sd / n, make_diff=diff, se_make_diff=se,
                      dd_made=dd, dd_failed=n - dd,
                      p_sd_given_dd_made=kept / dd if dd else float("nan"),
                      p_sd_given_dd_failed=saved / (n - dd) if n > dd else float("nan"),
                      points_gap=gap, se_points_gap=se_gap)
        for name, (k_, m) in (("dd", (dd, n)), ("sd", (sd, n)), ("kept", (kept, dd)),
                              ("saved", (saved, n - dd))):
            ref[b][f"{name}_low"], ref[b][f"{name}_high"] = wilson(k_, m, confidence)
    return ref


@pytest.mark.parametrize("listen,filtered,confidence", [
    (False, False, None), (True, False, 0.9), (True, True, 0.8),
])
def test_contract_bias_every_column(bid, listen, filtered, confidence):
    """Every field of every row, the rows' order, and what the table says it rests on;
    filtered: the commonest kind's contracts, its lowest level left out."""
    play = "listen" if listen else "sd"
    kinds = levels = None
    if filtered:
        df = rows(bid)
        df = df[(df["declarer"] >= 0) & (df["contract_capot"] == 0)]
        kind = int(df["contract_kind"].mode()[0])
        kinds = KIND_NAMES[kind]
        levels = sorted(set(df.loc[df["contract_kind"] == kind, "contract_level"]))[1:]
    args = ["table", "bias", str(bid), "--format", "json"]
    args += ["--listen"] if listen else []
    args += ["--kinds", kinds] if kinds else []
    args += ["--levels", ",".join(map(str, levels))] if levels else []
    args += ["--confidence", str(confidence)] if confidence else []
    ref = reference(bid, play, kinds, levels, confidence or 0.95)
    assert any(b.endswith(("X", "XX")) for b in ref) and len(ref) > 1
    assert kinds or any("-CAPOT" in b for b in ref)
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert [r["bid"] for r in out["rows"]] == list(ref)
    for r in out["rows"]:
        for field, value in ref[r["bid"]].items():
            if isinstance(value, str):
                assert r[field] == value, (r["bid"], field)
            else:
                same(r[field], value, (r["bid"], field))
    assert out["deals"] == len(rows(bid))
    assert out["contracts"] == sum(r["n"] for r in ref.values())
    assert out["dataset"] == str(bid) and out["ruleset"] == RS.name
    assert out["confidence"] == (confidence or 0.95)
    assert out["policies"] == {"N": "careful", "E": "bold", "S": "careful", "W": "bold"}
    assert out["dd"] == "double dummy"
    assert out["sd"] == "single dummy, PIMC 1 worlds" + (
        ", listening to the auction" if listen else "")
    table = runner.invoke(app, [a for a in args if a not in ("--format", "json")])
    assert table.exit_code == 0 and "DD bias of the contracts bid in" in table.output


def test_contract_bias_table_refuses(bid, tmp_path):
    """A dataset bid without --sd, one not bid at all (--listen), a contra asked for, a
    confidence outside (0, 1), a kind not simulated, missing columns: one error each."""
    from bazarsim.analysis.bias import bias_table, contract_bias_table

    src = AuctionColumns(RS, parse_table_policies("careful"), None, 0)
    unplayed = tmp_path / "unplayed"
    run_simulation(Simulation(deals=4, seed=1, ruleset=RS, columns="lean", extra=src),
                   unplayed)
    plain = tmp_path / "plain"
    run_simulation(Simulation(deals=4, seed=1, ruleset=RS, columns="lean"), plain)
    cases = [((bid,), {"contra": "x"}, "each contract is scored with its own contra"),
             ((plain,), {"listen": True}, "--listen needs a dataset bid by policies"),
             ((unplayed,), {}, "needs its contracts played out: simulate it with "
                               "--auction POLICY --sd")]
    cases += [((bid,), {"confidence": c}, f"--confidence {c}: must be between 0 and 1")
              for c in (0.0, 1.0, 1.5)]
    for args, kw, why in cases:
        with pytest.raises(BazarsimError, match=re.escape(why)):
            bias_table(*args, **kw)
    with pytest.raises(BazarsimError, match="needs its contracts played out"):
        contract_bias_table(plain)
    lacking = tmp_path / "lacking"
    shutil.copytree(bid, lacking)
    for part in lacking.glob("part-*.parquet"):
        t = pq.read_table(part)
        pq.write_table(t.drop_columns(["contract_listen_ns"]), part)
    with pytest.raises(BazarsimError, match="lacks columns contract_listen_ns"):
        bias_table(lacking, listen=True)
    assert bias_table(lacking)["rows"]  # what it does not need may be missing
    one = tmp_path / "one-part"  # a run written as a single part
    run_simulation(Simulation(deals=3, seed=2, ruleset=RS, columns="lean", writers=1,
                              extra=AuctionColumns(RS, parse_table_policies("careful"), None,
                                                   1)), one)
    assert len(list(one.glob("part-*.parquet"))) == 1
    assert sum(r["n"] for r in bias_table(one)["rows"]) == bias_table(one)["contracts"] > 0


def test_contract_bias_table_defaults(bid):
    """Called directly (as the benchmarks do): plain single dummy, 95 % intervals."""
    from bazarsim.analysis.bias import contract_bias_table

    res = contract_bias_table(bid)
    ref = reference(bid, "sd")
    assert res["confidence"] == 0.95 and res["sd"] == "single dummy, PIMC 1 worlds"
    for r in res["rows"]:
        same(r["dd_low"], ref[r["bid"]]["dd_low"], r["bid"])
        same(r["p_make_sd"], ref[r["bid"]]["p_make_sd"], r["bid"])


def test_a_damaged_part_names_the_dataset(bid, tmp_path):
    from bazarsim.analysis.bias import contract_bias_table

    damaged = tmp_path / "damaged"
    shutil.copytree(bid, damaged)
    part = sorted(damaged.glob("part-*.parquet"))[0]
    data = bytearray(part.read_bytes())
    data[200:4000] = bytes(3800)  # the data pages, the footer intact
    part.write_bytes(bytes(data))
    with pytest.raises(BazarsimError, match=re.escape(str(damaged))):
        contract_bias_table(damaged)


def test_verify_knows_an_auction_dataset(played):
    """verify rebuilds an auction dataset's run with its column source (rows recomputed
    equal); without the source it says what it lacks."""
    from bazarsim.beliefs.auctioned import column_source
    from bazarsim.engine.verify import verify_dataset

    res = verify_dataset(played, sample=2, extra=column_source)
    assert res.ok and res.sampled == 2
    with pytest.raises(BazarsimError, match="auction entry needs the columns' source"):
        verify_dataset(played)

