"""Every number ``table bias`` prints for a dataset bid by policies (``simulate --auction
POLICY --sd``), against tests/naive_scoring.py over the raw rows: one row per kind, bid
and contra of the contracts bid, each deal once for its declaring side."""

from __future__ import annotations

import json
import re

import pandas as pd
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
RS = get_ruleset("bazar")


@pytest.fixture(scope="module")
def bid(tmp_path_factory):
    """16 deals bid by careful (N-S) and bold (E-W), contracts played at 2 worlds."""
    src = AuctionColumns(RS, parse_table_policies("careful,E=bold,W=bold"), None, 2)
    return built_dataset(tmp_path_factory, "contracts-bid",
                         Simulation(deals=16, seed=5, ruleset=RS, chunk=16, extra=src))


def rows(path) -> pd.DataFrame:
    return read_dataframe(path).sort_values("index").reset_index(drop=True)


def test_contract_bias_table_against_the_scoring_reference(bid):
    """table bias on a dataset bid by policies: one row per (kind, bid, contra) of the
    contracts bid, each deal once for its declaring side, made by the naive scoring
    under DD and under the plain or the listening play-out; intervals and SEs by hand."""
    df = rows(bid)
    df = df[df["declarer"] >= 0]
    for listen in (False, True):
        play = "listen" if listen else "sd"
        recs = []
        for _, r in df.iterrows():
            k, side = int(r["contract_kind"]), int(r["declarer"]) % 2
            kn = KIND_NAMES[k]
            total = RS.total_points(k)
            out = {}
            for p in ("dd", play):
                ns, cap = int(r[f"contract_{p}_ns"]), int(r[f"contract_{p}_capot"])
                tricks = (8, 0) if cap == 1 else (0, 8) if cap == 2 else (4, 4)
                made = NS.score(RS, int(r["contract_level"]), k, side, int(r["contract_contra"]),
                                bool(r["contract_capot"]), (ns, total - ns), tricks,
                                (int(r[f"{kn}_declarations_ns"]), int(r[f"{kn}_declarations_ew"])),
                                (int(r[f"{kn}_bela_ns"]), int(r[f"{kn}_bela_ew"])))[0]
                out[p] = (bool(made), ns if side == 0 else total - ns)
            label = (f"{r['contract_level']}{kn}" + ("-CAPOT" if r["contract_capot"] else "")
                     + ("", " X", " XX")[int(r["contract_contra"])])
            recs.append(dict(bid=label, dd=out["dd"][0], sd=out[play][0],
                             gap=out[play][1] - out["dd"][1]))
        ref = pd.DataFrame(recs)
        args = ["table", "bias", str(bid), "--format", "json", "--confidence", "0.9"]
        res = runner.invoke(app, args + (["--listen"] if listen else []))
        assert res.exit_code == 0, res.output
        got = {r["bid"]: r for r in json.loads(res.output)["rows"]}
        assert sorted(got) == sorted(ref["bid"].unique())
        for b, g in ref.groupby("bid"):
            n, dd, sd = len(g), int(g["dd"].sum()), int(g["sd"].sum())
            diff, se = mean_se(g["sd"].astype(int) - g["dd"].astype(int))
            gap, se_gap = mean_se(g.loc[g["dd"], "gap"])
            want = dict(n=n, p_make_dd=dd / n, p_make_sd=sd / n, make_diff=diff,
                        se_make_diff=se, points_gap=gap, se_points_gap=se_gap,
                        dd_low=wilson(dd, n, 0.9)[0], sd_high=wilson(sd, n, 0.9)[1])
            for field, value in want.items():
                same(got[b][field], value, (b, field))
    table = runner.invoke(app, ["table", "bias", str(bid), "--listen"]).output
    assert "DD bias of the contracts bid in" in table and "listening to the auction" in table
    assert re.search(r"\bcontracts\b", table)


def test_contract_bias_table_refuses(bid, tmp_path):
    from bazarsim.analysis.bias import bias_table

    with pytest.raises(BazarsimError, match="each contract is scored with its own contra"):
        bias_table(bid, contra="x")
    plain = tmp_path / "plain"
    run_simulation(Simulation(deals=4, seed=1, ruleset=RS, columns="lean"), plain)
    with pytest.raises(BazarsimError, match="--listen needs a dataset bid by policies"):
        bias_table(plain, listen=True)
