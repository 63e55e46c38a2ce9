"""``bazarsim verify`` reads content, not only footers: damaged pages under a sound footer,
rows reordered, a wrong index column and another run's part renamed into place are each
named (which part, what is wrong), exit 1, and ``--repair`` gives back the rows of an
uninterrupted run; parts written before digests are read and their index checked; the
Dask task writes the local engine's bytes, digest included; and the figures verify prints
(parts, rows, rows recomputed, faults) equal counts the tests make themselves."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from bazarsim import __version__
from bazarsim.cli import app
from bazarsim.engine.dask import TaskSpec, compute_part
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.engine.verify import Verification
from bazarsim.store.parts import (
    DIGEST_KEY,
    MANIFEST,
    check_part,
    read_dataframe,
    read_manifest,
    with_content_digest,
)
from bazarsim.store.schema import METADATA_KEY

runner = CliRunner()
PART = re.compile(r"^part-(\d{16})-(\d{16})\.parquet$")  # the tests' own reading of names


def run(seed: int) -> Simulation:
    """1,200 lean deals (hearts, BK) in six parts of 200."""
    return Simulation(deals=1200, seed=seed, chunk=400, columns="lean", kinds=(1, 4))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """This run (seed 3), its rows, and a run of another seed with the same shape."""
    base = tmp_path_factory.mktemp("runs")
    run_simulation(run(3), base / "this")
    run_simulation(run(4), base / "other")
    return base / "this", base / "other", read_dataframe(base / "this")


@pytest.fixture()
def ds(runs, tmp_path):
    shutil.copytree(runs[0], tmp_path / "ds")
    return tmp_path / "ds"


def parts(out) -> list:
    return sorted(p for p in out.iterdir() if PART.match(p.name))


def span(path) -> tuple[int, int]:
    """The deal indices ``[start, end)`` a part's name gives."""
    a, b = PART.match(path.name).groups()
    return int(a), int(b)


def rewrite(path, table: pa.Table, metadata: dict) -> None:
    """The part rewritten with ``table``'s rows under ``metadata`` (a sound footer)."""
    pq.write_table(table.replace_schema_metadata(metadata), path, compression="zstd",
                   use_dictionary=False)


def without_digest(metadata: dict) -> dict:
    return {k: v for k, v in metadata.items() if k != DIGEST_KEY}


def verify(out, *args) -> tuple[int, list[str], str]:
    r = runner.invoke(app, ["verify", str(out), *args])
    faults = [ln[len("fault: "):] for ln in r.output.splitlines() if ln.startswith("fault: ")]
    return r.exit_code, faults, r.output


def assert_repaired(out, victims: list[str], rows) -> None:
    """``--repair`` names the victims, then the dataset is sound and holds the rows of an
    uninterrupted run."""
    code, _, output = verify(out, "--repair", "-q")
    assert code == 0, output
    assert sorted(re.findall(r"^repaired: (\S+)", output, re.M)) == sorted(victims)
    assert read_dataframe(out).equals(rows)


def flip_middle_of(path, column: str) -> None:
    """Two bytes flipped in the middle of ``column``'s chunk; footer and pages' headers
    untouched."""
    meta = pq.ParquetFile(path).metadata
    names = [meta.row_group(0).column(j).path_in_schema for j in range(meta.num_columns)]
    chunk = meta.row_group(0).column(names.index(column))
    at = chunk.data_page_offset + chunk.total_compressed_size // 2
    data = bytearray(path.read_bytes())
    data[at] ^= 0xFF
    data[at + 1] ^= 0xFF
    path.write_bytes(bytes(data))


def test_damaged_pages_under_a_sound_footer(runs, ds):
    victim = parts(ds)[1]
    sound = pq.read_table(victim)
    flip_middle_of(victim, "N")  # hand masks: zstd keeps them as literals, so it decodes
    damaged = pq.read_table(victim)  # the damage is silent: pages decode, index intact
    assert np.array_equal(damaged.column("index").to_numpy(), np.arange(*span(victim)))
    assert not damaged.column("N").equals(sound.column("N"))
    assert check_part(victim, read_manifest(ds)) is None
    code, faults, output = verify(ds)
    assert code == 1, output
    assert len(faults) == 1 and faults[0].startswith(f"{victim.name}: column N (1 of ")
    assert "differs from the digest" in faults[0]
    assert_repaired(ds, [victim.name], runs[2])


@pytest.mark.parametrize("what", ["whole rows", "rows under a sound index"])
def test_reordered_rows(runs, ds, what):
    victim = parts(ds)[2]
    table = pq.read_table(victim)
    backwards = table.take(np.arange(table.num_rows)[::-1])
    if what != "whole rows":  # every column reordered but the index
        backwards = backwards.set_column(table.schema.get_field_index("index"), "index",
                                         table.column("index"))
    rewrite(victim, backwards, table.schema.metadata)
    assert check_part(victim, read_manifest(ds)) is None  # a sound footer, the right rows
    code, faults, output = verify(ds)
    assert code == 1, output
    assert len(faults) == 1 and faults[0].startswith(f"{victim.name}: ")
    a, b = span(victim)
    assert (f"its index column is not {a}..{b - 1} in order" in faults[0]) == (
        what == "whole rows")
    assert "differ from the digest" in faults[0]
    if what == "whole rows":  # two faults of one part, one line: "; " between them
        index, columns = faults[0][len(victim.name) + 2:].split("; columns ")
        assert index.startswith("its index column is not") and index.endswith(")")
        assert columns.endswith("(damaged pages, or rows rewritten)")
    assert_repaired(ds, [victim.name], runs[2])


@pytest.mark.parametrize("digest", ["its own", "the sound part's"])
def test_wrong_index_column(runs, ds, digest):
    """Indices shifted by one: with a digest taken of them (a writer's bug) only the index
    check can tell; with the sound part's digest, the digest too."""
    victim = parts(ds)[3]
    a, b = span(victim)
    table = pq.read_table(victim)
    shifted = table.set_column(table.schema.get_field_index("index"), "index",
                               pa.array(np.arange(a + 1, b + 1)))
    meta = table.schema.metadata
    if digest == "its own":
        meta = with_content_digest(shifted.replace_schema_metadata(without_digest(meta))
                                   ).schema.metadata
    rewrite(victim, shifted, meta)
    code, faults, output = verify(ds)
    assert code == 1, output
    assert len(faults) == 1 and faults[0].startswith(
        f"{victim.name}: its index column is not {a}..{b - 1} in order ({b - a} of {b - a} "
        f"rows; row 0 holds {a + 1})")
    assert ("column index (1 of " in faults[0]) == (digest != "its own")
    assert_repaired(ds, [victim.name], runs[2])


@pytest.mark.parametrize("footer", ["this run's", "this run's, its digest kept"])
def test_part_of_another_run_renamed_into_place(runs, ds, footer):
    """Seed 4's part of the same range under a footer that claims seed 3: this part's
    metadata, digest included, or only the run rewritten (the other run's digest kept)."""
    victim = parts(ds)[4]
    theirs, sound = pq.read_table(runs[1] / victim.name), pq.read_table(victim)
    ours = sound.schema.metadata
    meta = ours if footer == "this run's" else {**theirs.schema.metadata,
                                                METADATA_KEY: ours[METADATA_KEY]}
    rewrite(victim, theirs, meta)
    assert check_part(victim, read_manifest(ds)) is None  # the footer claims this run
    code, faults, output = verify(ds)
    assert code == 1, output
    assert len(faults) == 1 and faults[0].startswith(f"{victim.name}: ")
    if footer == "this run's":  # index and dealer (rotating) are the same in both runs
        differ = [c for c in sound.column_names if not sound[c].equals(theirs[c])]
        assert f"columns {', '.join(differ[:4])} and {len(differ) - 4} more " \
               f"({len(differ)} of {sound.num_columns}) differ from the digest" in faults[0]
    else:
        assert "its content digest was written for another run" in faults[0]
    assert_repaired(ds, [victim.name], runs[2])


def test_a_column_dropped_or_added(runs, ds):
    """Columns the digest lists and the part lacks, or the other way round: named."""
    lose, gain = parts(ds)[0], parts(ds)[1]
    table = pq.read_table(lose)
    rewrite(lose, table.drop_columns(["N_H_points"]), table.schema.metadata)
    table = pq.read_table(gain)
    rewrite(gain, table.append_column("extra", table.column("dealer")), table.schema.metadata)
    code, faults, output = verify(ds)
    assert code == 1, output
    assert faults == [f"{lose.name}: no column N_H_points, which its digest lists",
                      f"{gain.name}: column extra not in its digest"]
    assert_repaired(ds, [lose.name, gain.name], runs[2])


def test_parts_written_before_digests(runs, ds):
    """No digest: pages read, index checked, said (not a fault); rows reordered in one of
    them are still found by the index."""
    for path in parts(ds):
        table = pq.read_table(path)
        rewrite(path, table, without_digest(table.schema.metadata))
    names = [p.name for p in parts(ds)]
    code, faults, output = verify(ds)
    assert code == 0 and not faults, output
    assert f"note: {len(names)} sound parts carry no content digest" in output
    r = runner.invoke(app, ["verify", str(ds), "--format", "json"])
    assert json.loads(r.output)["without_digest"] == names
    victim = parts(ds)[5]
    a, b = span(victim)
    table = pq.read_table(victim)
    rewrite(victim, table.take(np.arange(b - a)[::-1]), table.schema.metadata)
    code, faults, output = verify(ds)
    assert code == 1 and len(faults) == 1, output
    assert faults[0].startswith(f"{victim.name}: its index column is not {a}..{b - 1} in order")
    assert f"note: {len(names) - 1} sound parts carry no content digest" in output
    assert_repaired(ds, [victim.name], runs[2])


def test_a_column_lost_from_a_part_without_digest_is_named_by_sample(tmp_path):
    """Without a digest only recomputation sees a column missing: --sample names it."""
    out, deals = tmp_path / "old", 6
    run_simulation(Simulation(deals=deals, seed=5, columns="lean", kinds=(1,)), out)
    for path in parts(out):
        table = pq.read_table(path)
        rewrite(path, table, without_digest(table.schema.metadata))
    victim = parts(out)[0]
    table = pq.read_table(victim)
    rewrite(victim, table.drop_columns(["W_H_points"]), table.schema.metadata)
    assert verify(out)[0] == 0
    code, faults, output = verify(out, "--sample", str(deals))
    assert code == 1 and len(faults) == 1, output
    assert faults[0].startswith(
        f"{victim.name}: no column W_H_points, which the run's parameters give")


def test_a_dask_task_writes_the_local_engines_bytes(runs, tmp_path):
    """compute_part (what a Dask worker runs) gives the local engine's part, byte for byte,
    its digest included."""
    this = runs[0]
    out = tmp_path / "dask"
    out.mkdir()
    shutil.copy(this / MANIFEST, out / MANIFEST)
    spec = TaskSpec(read_manifest(this), str(out), "zstd", __version__, 1)
    for path in parts(this)[:2]:
        compute_part(spec, *span(path))
        written = out / path.name
        assert DIGEST_KEY in pq.read_schema(written).metadata
        assert written.read_bytes() == path.read_bytes()


def test_printed_figures_equal_the_tests_own_counts(runs, ds, monkeypatch):
    """parts, rows, rows recomputed and faults, in JSON and in the table, against counts
    made here: the part files listed, the rows of the parts left sound read, the rows
    --sample did recompute (compute_range calls: as many as asked in a sound dataset, all
    of them where fewer, none of a damaged part), and the faults caused."""
    recomputed: set[int] = set()
    compute = Simulation.compute_range

    def counted(self, start, end):
        if end - start == 1:
            recomputed.add(start)
        return compute(self, start, end)

    monkeypatch.setattr(Simulation, "compute_range", counted)
    r = runner.invoke(app, ["verify", str(ds), "--sample", "12", "--format", "json"])
    assert r.exit_code == 0 and json.loads(r.output)["sampled_rows"] == len(recomputed) == 12
    files = parts(ds)
    flip_middle_of(files[1], "N")  # content
    files[3].write_bytes(files[3].read_bytes()[:200])  # footer
    files[5].unlink()  # a gap
    sound = [files[0], files[2], files[4]]
    recomputed.clear()
    r = runner.invoke(app, ["verify", str(ds), "--sample", "12", "--format", "json"])
    assert r.exit_code == 1, r.output
    got = json.loads(r.output)
    listed = len([p for p in ds.iterdir() if PART.match(p.name)])
    rows = sum(pq.read_table(p).num_rows for p in sound)
    assert got["parts"] == listed and got["rows"] == rows
    assert got["sampled_rows"] == len(recomputed) > 0  # distinct rows, of sound parts:
    assert all(any(a <= i < b for a, b in map(span, sound)) for i in recomputed)
    a, b = span(files[5])
    assert got["faults"][2:] == [f"deal indices {a}..{b - 1} have no part"]
    assert [f.split(":")[0] for f in got["faults"][:2]] == [files[1].name, files[3].name]
    assert got["ok"] is False and got["without_digest"] == [] and got["out"] == str(ds)
    recomputed.clear()
    code, faults, output = verify(ds, "--sample", "12")
    assert faults == got["faults"]
    assert (f"{ds}: {listed} parts, {rows:,} rows, {len(recomputed)} rows recomputed: "
            f"{len(faults)} fault(s)" in output)
    tiny, deals = ds.parent / "tiny", 6  # more rows asked than there are: each once
    run_simulation(Simulation(deals=deals, seed=3, columns="lean", kinds=(1,)), tiny)
    recomputed.clear()
    r = runner.invoke(app, ["verify", str(tiny), "--sample", "10", "--format", "json"])
    assert r.exit_code == 0 and json.loads(r.output)["sampled_rows"] == len(recomputed)
    assert recomputed == set(range(deals))


def test_verification_as_json_names_every_field():
    """What ``verify --format json`` prints: each field under its own key (the damaged
    parts and the gaps are internal: the faults name them)."""
    v = Verification("d", parts=6, rows=1000, sampled=12, faults=["f1", "f2"],
                     damaged=["p1"], gaps=[(0, 200)], repaired=["p1", "deal indices 0..199"],
                     without_digest=["p2"])
    assert v.as_dict() == {"out": "d", "ok": False, "parts": 6, "rows": 1000,
                           "sampled_rows": 12, "faults": ["f1", "f2"],
                           "repaired": ["p1", "deal indices 0..199"], "without_digest": ["p2"]}
    assert Verification("e").as_dict()["ok"] is True


@pytest.mark.parametrize("spans,sample", [
    ([(0, 200), (200, 400), (400, 600)], 12),
    ([(100, 103), (103, 110), (110, 111)], 5),
    ([(100, 103), (103, 110), (110, 111)], 11),  # every row
    ([(100, 103), (103, 110), (110, 111)], 50),  # more asked than there are: every row once
    ([(0, 5), (7, 9)], 0),
    ([], 4),
])
def test_sample_picks_by_hand(spans, sample):
    """--sample's rows: the first ``sample`` of a seeded (0) draw without replacement over
    the parts' rows counted one after another, each mapped to its part's deal index."""
    from bazarsim.engine.verify import _sample_picks

    got = _sample_picks(spans, sample)
    total = sum(b - a for a, b in spans)
    k = min(sample, total)
    drawn = sorted(np.random.default_rng(0).choice(total, size=k, replace=False).tolist())
    flat = [i for a, b in spans for i in range(a, b)]
    want = [[flat[d] for d in drawn if a <= flat[d] < b] for a, b in spans]
    assert [g.tolist() for g in got] == want
    assert sum(len(g) for g in got) == k and len(got) == len(spans)


def test_repair_says_each_fault_first_and_names_a_part_it_cannot_remove(tmp_path):
    """--repair tells each fault it found before redoing the parts (its notice), and a
    damaged part it cannot remove (a directory under a part's name) is one error naming
    it and the action."""
    from bazarsim.engine.verify import verify_dataset
    from bazarsim.store.parts import StoreError

    out = tmp_path / "tiny"
    run_simulation(Simulation(deals=6, seed=5, chunk=2, columns="lean", kinds=(1,)), out)
    victim = parts(out)[1]
    victim.write_bytes(victim.read_bytes()[:100])
    found = verify_dataset(out)
    told: list[str] = []
    heard: list[tuple[int, int]] = []
    fixed = verify_dataset(out, repair=True, notice=told.append,
                           progress=lambda done, total: heard.append((done, total)))
    assert fixed.ok and fixed.repaired == [victim.name]
    a, b = span(victim)  # the progress bar: the victim's deals redone
    assert heard[0] == (6 - (b - a), 6) and heard[-1] == (6, 6)
    assert told[:len(found.faults)] == [f"fault: {f}" for f in found.faults]
    assert len(found.faults) == 1 and found.faults[0].startswith(f"{victim.name}: unreadable")
    lost = parts(out)[2]  # a part missing: repaired as its deal indices
    a, b = span(lost)
    lost.unlink()
    fixed = verify_dataset(out, repair=True)
    assert fixed.ok and fixed.repaired == [f"deal indices {a}..{b - 1}"]
    victim.unlink()
    victim.mkdir()
    (victim / "x").write_text("")
    with pytest.raises(StoreError) as err:
        verify_dataset(out, repair=True)
    assert str(err.value).startswith(f"cannot remove {str(victim)!r}: ")


def test_a_directory_it_cannot_list_is_one_error(tmp_path, monkeypatch):
    import errno
    from pathlib import Path

    from bazarsim.engine.verify import verify_dataset
    from bazarsim.store.parts import StoreError

    out = tmp_path / "tiny"
    run_simulation(Simulation(deals=2, seed=5, columns="lean", kinds=(1,)), out)

    def refused(self):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "iterdir", refused)
    with pytest.raises(StoreError) as err:
        verify_dataset(out)
    assert str(err.value) == f"cannot read {str(out)!r}: Permission denied"


def test_a_sound_part_past_the_runs_end_is_named(tmp_path):
    """A part of the same run dealt further (a sound part, its range past the manifest's
    deals) put into the dataset: one fault naming the dataset and the part."""
    from bazarsim.engine.verify import verify_dataset

    longer, out = tmp_path / "longer", tmp_path / "tiny"
    for where, deals in ((longer, 8), (out, 6)):
        run_simulation(Simulation(deals=deals, seed=5, chunk=2, columns="lean", kinds=(1,)),
                       where)
    stray = parts(longer)[-1]
    assert span(stray)[1] == 8
    shutil.copy(stray, out / stray.name)
    found = verify_dataset(out)
    assert found.faults == [f"{out}: part {stray.name} overlaps another part or lies outside "
                            "0..6; the directory was modified by hand"]


def test_recomputed_rows_that_differ_are_counted_in_one_fault(tmp_path):
    """A part written wrong (its digest taken of the wrong values): --sample names its
    first differing row and column, stored and recomputed values, and how many of the rows
    recomputed in it differ."""
    from bazarsim.engine.verify import verify_dataset

    out = tmp_path / "tiny"
    run_simulation(Simulation(deals=6, seed=5, columns="lean", kinds=(1,)), out)
    (i,) = np.random.default_rng(0).choice(6, size=1, replace=False).tolist()  # --sample 1
    victim = next(p for p in parts(out) if span(p)[0] <= i < span(p)[1])
    table = pq.read_table(victim)
    a, b = span(victim)
    assert b - a >= 2
    k = table.schema.get_field_index("W_H_points")
    sound = table.column(k).to_pylist()
    wrong = sorted({i - a, (i - a + 1) % (b - a)})  # two rows written wrong, one sampled
    values = [99 if j in wrong else v for j, v in enumerate(sound)]
    assert all(sound[j] != 99 for j in wrong)
    bad = table.set_column(k, "W_H_points", pa.array(values, table.schema.field(k).type))
    own = without_digest(table.schema.metadata)
    rewrite(victim, with_content_digest(bad.replace_schema_metadata(own)),
            with_content_digest(bad.replace_schema_metadata(own)).schema.metadata)
    assert verify_dataset(out).ok
    found = verify_dataset(out, sample=6)
    assert found.faults == [f"{victim.name}: deal index {a + wrong[0]}, column W_H_points: "
                            f"stored 99 but recomputed {sound[wrong[0]]} (2 of {b - a} rows "
                            "recomputed differ)"]
    one = verify_dataset(out, sample=1)  # one row differs: no count
    assert one.faults == [f"{victim.name}: deal index {i}, column W_H_points: stored 99 "
                          f"but recomputed {sound[i - a]}"]
