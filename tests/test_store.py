"""The dataset on disk: OS errors as one line, damaged parts found, named and redone,
``bazarsim verify`` and its repair, and a run rebuilt from its manifest."""

from __future__ import annotations

import errno
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from bazarsim.cli import app
from bazarsim.deals.constraints import parse_constraints
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.engine.verify import verify_dataset
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store import parts as store
from bazarsim.store.parts import MANIFEST, StoreError, part_files, read_dataframe

runner = CliRunner()
SIM = ["simulate", "-n", "3000", "--chunk", "1000", "-s", "3", "--columns", "lean", "-q"]


def cli(*args):
    return runner.invoke(app, list(args))


def one_error_line(result) -> str:
    lines = result.output.strip().splitlines()
    errors = [ln for ln in lines if ln.startswith("error: ")]
    assert len(errors) == 1 and "Traceback" not in result.output, result.output
    return errors[0]


@pytest.fixture()
def dataset(tmp_path):
    out = tmp_path / "ds"
    assert cli(*SIM, "--out", str(out)).exit_code == 0
    return out


def test_unusable_output_paths_are_one_error_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    for out in ("/dev/null/x", str(blocker), str(blocker / "sub")):
        result = cli("simulate", "-n", "10", "--out", out, "-q")
        assert result.exit_code == 2
        line = one_error_line(result)
        assert out.split("/sub")[0] in line or str(blocker) in line, line
    assert list(tmp_path.iterdir()) == [blocker]  # nothing else left behind


def test_missing_input_is_one_error_line(tmp_path):
    for args in (("table", "freq", str(tmp_path / "none")), ("verify", str(tmp_path / "none"))):
        result = cli(*args)
        assert result.exit_code == 2 and str(tmp_path / "none") in one_error_line(result)


def test_disk_full_leaves_no_partial_file(tmp_path, monkeypatch):
    def full(*_args, **_kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store.pq, "write_table", full)
    out = tmp_path / "ds"
    with pytest.raises(StoreError, match="No space left on device") as err:
        run_simulation(Simulation(deals=100, seed=1, kinds=(1,), columns="lean"), out)
    assert "part-0000000000000000" in str(err.value)
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST]  # no part, no temp file


def test_truncated_part_is_named_by_readers_and_redone_by_simulate(dataset):
    whole = read_dataframe(dataset)
    victim = part_files(dataset)[1]
    victim.write_bytes(victim.read_bytes()[:3000])
    result = cli("table", "freq", str(dataset))
    assert result.exit_code == 2
    line = one_error_line(result)
    assert victim.name in line and f"bazarsim verify {dataset} --repair" in line
    with pytest.raises(StoreError, match=victim.name):
        read_dataframe(dataset)
    again = cli(*SIM, "--out", str(dataset))
    assert again.exit_code == 0
    assert f"{victim.name} is damaged" in again.output
    assert read_dataframe(dataset).equals(whole)


def test_part_of_another_run_is_redone(dataset, tmp_path):
    other = tmp_path / "other"
    assert cli(*SIM[:-3], "-s", "4", "--columns", "lean", "-q", "--out", str(other)).exit_code == 0
    whole = read_dataframe(dataset)
    name = part_files(dataset)[0].name
    (dataset / name).write_bytes((other / name).read_bytes())
    reason = store.check_part(dataset / name, store.read_manifest(dataset))
    assert reason and "seed" in reason
    run_simulation(Simulation.from_params(store.read_manifest(dataset)), dataset)
    assert read_dataframe(dataset).equals(whole)


def test_verify_finds_faults_and_repairs_them(dataset):
    whole = read_dataframe(dataset)
    files = part_files(dataset)
    files[2].write_bytes(files[2].read_bytes()[:100])
    files[4].unlink()
    result = cli("verify", str(dataset))
    assert result.exit_code == 1
    assert files[2].name in result.output and "have no part" in result.output
    fixed = cli("verify", str(dataset), "--repair", "-q")
    assert fixed.exit_code == 0, fixed.output
    assert cli("verify", str(dataset), "--sample", "10").exit_code == 0
    assert read_dataframe(dataset).equals(whole)


def test_verify_sample_catches_wrong_values(dataset):
    """Wrong values under the sound part's digest: the digest names the column; under a
    digest taken of the wrong values (a part written wrong), only recomputation sees it."""
    path = part_files(dataset)[0]
    rows = pq.read_table(path)
    points = rows.column("N_H_points").to_numpy().copy()
    points[:] = 99
    bad = rows.set_column(rows.schema.get_field_index("N_H_points"), "N_H_points",
                          pa.array(points))
    pq.write_table(bad.replace_schema_metadata(rows.schema.metadata), path)
    (fault,) = verify_dataset(dataset).faults
    assert fault.startswith(f"{path.name}: column N_H_points (1 of ")
    own = {k: v for k, v in rows.schema.metadata.items() if k != store.DIGEST_KEY}
    pq.write_table(store.with_content_digest(bad.replace_schema_metadata(own)), path)
    assert verify_dataset(dataset).ok
    found = verify_dataset(dataset, sample=50)
    assert not found.ok and any("N_H_points" in f for f in found.faults)
    result = cli("verify", str(dataset), "--sample", "50", "--format", "json")
    assert result.exit_code == 1 and json.loads(result.output)["ok"] is False


@pytest.mark.parametrize("kw", [
    {},
    {"ruleset": get_ruleset("belote-fr", **{"play.undertrump_required": "false"}),
     "kinds": (1, 4), "dealer": 2, "columns": "lean", "first": 500},
    {"constraints": parse_constraints(["S=AJ9.K7.Q.T8"], ["len(N,H)>=3"]), "seed": 9},
])
def test_run_rebuilt_from_its_manifest(kw):
    sim = Simulation(deals=1000, **kw)
    assert Simulation.from_params(sim.params()).params() == sim.params()
