"""Stale Numba cache files are dropped, stage by stage, when package sources change."""

from __future__ import annotations

from bazarsim.core import jitcache


def _package(tmp_path):
    pkg = tmp_path / "pkg"
    for stage in jitcache.STAGES:
        (pkg / stage / "__pycache__").mkdir(parents=True)
        (pkg / stage / "mod.py").write_text(f"name = {stage!r}\n")
    return pkg


def _cached(pkg):
    files = {}
    for stage in jitcache.STAGES:
        files[stage] = pkg / stage / "__pycache__" / "mod.kernel-1.py311.nbi"
        files[stage].write_text("index")
    return files


def test_cache_dropped_from_the_changed_stage_on(tmp_path, monkeypatch):
    pkg = _package(tmp_path)
    monkeypatch.setattr(jitcache, "PACKAGE_DIR", pkg)
    monkeypatch.setattr(jitcache, "STAMP", pkg / "__pycache__" / "stamp.json")
    files = _cached(pkg)
    assert jitcache.ensure_fresh_cache()  # first run: no stamp, everything dropped
    assert not any(f.exists() for f in files.values())
    files = _cached(pkg)
    assert not jitcache.ensure_fresh_cache()  # unchanged sources keep every cache
    assert all(f.exists() for f in files.values())
    (pkg / "analysis" / "mod.py").write_text("name = 'changed'\n")
    assert jitcache.ensure_fresh_cache()
    later = jitcache.STAGES[jitcache.STAGES.index("analysis"):]
    assert {s for s, f in files.items() if not f.exists()} == set(later)
    files = _cached(pkg)
    (pkg / "core" / "extra.py").write_text("x = 1\n")  # a new helper in the first stage
    assert jitcache.ensure_fresh_cache()
    assert not any(f.exists() for f in files.values())

