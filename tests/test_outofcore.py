"""Tables read datasets by streaming record batches: the same figures whatever the batch
size (a dataset far larger than one batch is the out-of-core case), and from a file://
URL as from its path."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bazarsim.analysis.bids import bid_table
from bazarsim.analysis.freq import frequency_table
from bazarsim.cli import app
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.simulation import Simulation
from bazarsim.store.location import local_path


def test_freq_streams_batches_and_reads_file_urls(tmp_path):
    Simulation(deals=2000, seed=9, columns="lean", chunk=700).run(tmp_path / "d")
    whole = frequency_table(tmp_path / "d")
    assert frequency_table(tmp_path / "d", batch_size=450) == whole
    assert frequency_table((tmp_path / "d").as_uri()) == whole


def test_bids_stream_batches_and_read_file_urls(tmp_path):
    Simulation(deals=30, seed=4, columns="lean", dd=True, kinds=(1, 4), chunk=11).run(
        tmp_path / "dd")
    whole = bid_table(tmp_path / "dd", by=["trumps"])
    assert bid_table(tmp_path / "dd", by=["trumps"], batch_size=7) == whole
    assert bid_table((tmp_path / "dd").as_uri(), by=["trumps"]) == whole
    res = CliRunner().invoke(app, ["table", "bids", (tmp_path / "dd").as_uri(), "--kind", "H",
                                   "--format", "csv"])
    assert res.exit_code == 0 and "p_make" in res.output


def test_urls_other_than_file_are_one_error(tmp_path):
    assert local_path("file:///tmp/x") == local_path("/tmp/x")
    assert str(local_path("file://localhost/tmp/a%20b")) == "/tmp/a b"
    with pytest.raises(BazarsimError, match="s3://"):
        local_path("s3://bucket/runs/s7")
    with pytest.raises(BazarsimError, match="this machine"):
        local_path("file://otherhost/tmp/x")
    res = CliRunner().invoke(app, ["table", "freq", "s3://bucket/runs/s7"])
    assert res.exit_code == 2 and res.output.startswith("error: ")
