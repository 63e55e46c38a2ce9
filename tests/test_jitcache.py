"""Stale Numba cache files are dropped when any package source changes."""

from __future__ import annotations

from bazarsim.core import jitcache


def test_cache_dropped_when_sources_change(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "b.py").write_text("y = 2\n")
    cached = pkg / "__pycache__" / "a.kernel-1.py311.nbi"
    monkeypatch.setattr(jitcache, "PACKAGE_DIR", pkg)
    monkeypatch.setattr(jitcache, "STAMP", pkg / "__pycache__" / "stamp")
    cached.write_text("index")
    assert jitcache.ensure_fresh_cache() and not cached.exists()  # first run: no stamp
    cached.write_text("index")
    assert not jitcache.ensure_fresh_cache() and cached.exists()  # unchanged sources
    (pkg / "b.py").write_text("y = 3\n")  # a helper changes, not the kernel's file
    assert jitcache.ensure_fresh_cache() and not cached.exists()
