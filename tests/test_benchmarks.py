"""The benchmark's NumPy comparator computes the same evaluation as the kernel."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from bazarsim.evaluate.hands import evaluate_hands
from bazarsim.rules.compiled import compiled_rules
from bazarsim.rules.rulesets import RULESETS
from benchmarks.bench_eval import numpy_points_and_declarations
from benchmarks.bench_outofcore import scrambled_order
from benchmarks.common import check_how, numba_threads, row, thread_counts
from benchmarks.run import to_markdown

from .conftest import random_hands
from .test_evaluate import rich_hands


@pytest.mark.parametrize("name", list(RULESETS))
def test_numpy_comparator_matches_kernel(name):
    rs = RULESETS[name]
    hands = np.concatenate([random_hands(20_000, 3), rich_hands(2_000, 4)])
    for kind in rs.kinds:
        pts, decl = numpy_points_and_declarations(hands, kind, compiled_rules(rs))
        ref = evaluate_hands(hands, kind, rs)
        assert np.array_equal(pts, ref["points"])
        assert np.array_equal(decl, ref["declaration_points"])


def test_markdown_report_lists_rows():
    meta = {"date": "d", "python": "3", "numba": "n", "cpus": 2, "bazarsim": "0"}
    rows = [{"group": "g", "name": "x", "value": 2.5e8, "unit": "hands/s", "note": ""}]
    md = to_markdown(meta, rows)
    assert "## g" in md and "| x | 250.00 M | hands/s |" in md


def test_markdown_report_dates_sections_kept_from_earlier_runs():
    meta = {"date": "today", "python": "3", "numba": "n", "cpus": 2, "bazarsim": "0"}
    fresh = {"group": "new", "name": "x", "value": 1.0, "unit": "u", "note": "",
             "measured": "today"}
    kept = {"group": "old", "name": "y", "value": 2.0, "unit": "u", "note": "",
            "measured": "yesterday"}
    assert "Measured" not in to_markdown(meta, [fresh])
    md = to_markdown(meta, [kept, fresh])
    assert "## old\n\nMeasured yesterday." in md and "## new\n\nMeasured today." in md
    undated = dict(kept)
    del undated["measured"]
    assert "Measured before rows were dated." in to_markdown(meta, [undated, fresh])


def test_report_header_claims_no_blanket_median():
    """Rows are measured in different ways (best of rounds, one run, medians): the header
    sends the reader to each row's note instead of claiming medians for all."""
    meta = {"date": "d", "python": "3", "numba": "n", "cpus": 2, "bazarsim": "0"}
    md = to_markdown(meta, [{"group": "g", "name": "x", "value": 1.0, "unit": "u",
                             "note": "one run"}])
    assert "Median of repeats" not in md and "each row's note says how" in md


@pytest.mark.parametrize("note", ["n=20, median of 3 runs", "best of 3 rounds x 2 passes",
                                  "4,000 deals; one run", "200 deals, each solve timed once",
                                  "from the rows above", "counted, of 1920",
                                  "mean of 200 deals"])
def test_check_how_accepts_notes_that_say_how(note):
    check_how(row("g", "x", 1.0, "u", note))


@pytest.mark.parametrize("note", ["", "n=2000000", "192 deals, x2.01 vs 1",
                                  "median 0.5 ms", "3 rounds"])
def test_check_how_refuses_notes_that_do_not(note):
    with pytest.raises(ValueError, match="how it was measured"):
        check_how(row("g", "x", 1.0, "u", note))


def test_numba_threads_sets_the_count_and_restores_it():
    before = numba.get_num_threads()
    for n in thread_counts(range(1, numba.config.NUMBA_NUM_THREADS + 1)):
        with numba_threads(n) as got:
            assert got == n == numba.get_num_threads()
        assert numba.get_num_threads() == before
    with pytest.raises(RuntimeError), numba_threads(1):
        raise RuntimeError  # restored on the way out of an error too
    assert numba.get_num_threads() == before


def test_numba_threads_refuses_a_count_it_cannot_set():
    """A row labelled "N threads" must not silently run on fewer."""
    too_many = numba.config.NUMBA_NUM_THREADS + 1
    with pytest.raises(ValueError, match="cannot run"), numba_threads(too_many):
        pass
    assert thread_counts((1, too_many, 1)) == [1]


@pytest.mark.parametrize("rows,tile", [(1000, 64), (4096, 512), (777, 100)])
def test_scrambled_order_is_a_permutation_of_the_tiled_rows(rows, tile):
    """The bids dataset's rows: every real row as often as plain tiling gives it, but in
    a random order (no run of the tile repeated).

    A random order puts a row right after its tiled predecessor about once a tile
    (expected 16, 8 and 8 pairs here); the test fails from 100, 410 and 78: probability
    < 1e-45 (Poisson), and the order is seeded, so 0. Plain tiling (nearly every pair in
    order) fails."""
    order = scrambled_order(rows, tile)
    tiled = np.arange(rows) % tile
    assert np.array_equal(np.sort(order), np.sort(tiled))
    assert order.min() >= 0 and order.max() < tile
    # not tiling: far fewer consecutive pairs follow the tiled order (i, i + 1)
    in_order = np.mean((order[1:] - order[:-1]) % tile == 1)
    assert in_order < 0.1
    assert np.array_equal(order, scrambled_order(rows, tile))  # reproducible


def test_copied_rows_are_real_rows_permuted(tmp_path, monkeypatch):
    """copied_dd_dataset on a stand-in source: the copy's rows (index aside) are the
    source's rows, each as often as tiling would give, and its index runs 0..rows-1."""
    import pyarrow.parquet as pq

    from bazarsim.engine.run import run_simulation
    from bazarsim.engine.simulation import Simulation
    from bazarsim.store.parts import part_files
    from benchmarks import bench_outofcore as ooc

    src = tmp_path / "src"
    run_simulation(Simulation(deals=40, seed=3, columns="lean", kinds=(1,), chunk=40,
                              writers=1), src)
    monkeypatch.setattr(ooc, "CACHE", tmp_path)
    monkeypatch.setattr(ooc, "PART", 64)
    monkeypatch.setattr(ooc, "dd_source", lambda tile: src)
    out = ooc.copied_dd_dataset(150, 40)
    copy = pq.read_table(part_files(out)).sort_by("index")
    base = pq.read_table(part_files(src)).sort_by("index")
    assert copy.column("index").to_pylist() == list(range(150))
    keep = [c for c in base.column_names if c != "index"]
    got = sorted(map(tuple, zip(*(copy.column(c).to_pylist() for c in keep), strict=True)))
    rows = list(zip(*(base.column(c).to_pylist() for c in keep), strict=True))
    want = sorted(rows[i] for i in np.arange(150) % 40)
    assert got == want
    tiled = pq.read_table(part_files(ooc.copied_dd_dataset(150, 40, scrambled=False)))
    assert tiled.sort_by("index").column("N").to_pylist() != copy.column("N").to_pylist()
