"""Shared fixtures: random hands and deals from a fixed seed (independent of bazarsim's dealer)."""

from __future__ import annotations

import numpy as np
import pytest

from bazarsim.rules.rulesets import RULESETS


def random_deals(n: int, seed: int) -> np.ndarray:
    """``uint32[n, 4]`` uniformly random full deals (NumPy permutations)."""
    rng = np.random.default_rng(seed)
    perm = np.argsort(rng.random((n, 32)), axis=1).astype(np.uint32)
    bits = np.left_shift(np.uint32(1), perm).reshape(n, 4, 8)
    return np.bitwise_or.reduce(bits, axis=2).astype(np.uint32)


def random_hands(n: int, seed: int) -> np.ndarray:
    return random_deals((n + 3) // 4, seed).reshape(-1)[:n]


@pytest.fixture(params=list(RULESETS))
def ruleset(request):
    return RULESETS[request.param]


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium for the pages' tests; a skip that says so where none is installed,
    a failure where BAZARSIM_REQUIRE_BROWSER is set (.ci/run sets it)."""
    import os

    from bazarsim.report.browser import Chromium, find_chromium

    if find_chromium() is None:
        if os.environ.get("BAZARSIM_REQUIRE_BROWSER"):
            pytest.fail("BAZARSIM_REQUIRE_BROWSER is set but no Chromium was found")
        pytest.skip("no Chromium on this machine (apt-get install chromium; .ci/run does): "
                    "the pages cannot be checked in a browser here")
    with Chromium() as b:
        yield b


@pytest.fixture(scope="session")
def cli_inputs(tmp_path_factory) -> dict[str, str]:
    """A small DD dataset (hearts and spades), a DD + SD one (hearts), a model, broken
    policy files and a run directory of another play-off: the inputs of the command
    line's tests (tests/test_bad_inputs.py, tests/test_cli_points.py)."""
    from bazarsim.engine.run import run_simulation
    from bazarsim.engine.simulation import Simulation
    from bazarsim.matches.model import fit_model
    from bazarsim.rules.rulesets import get_ruleset

    root = tmp_path_factory.mktemp("inputs")
    rs = get_ruleset("bazar")
    dd, sd = root / "dd", root / "sd"
    run_simulation(Simulation(deals=40, seed=3, ruleset=rs, columns="lean", dd=True,
                              kinds=("H", "S")), dd)
    run_simulation(Simulation(deals=4, seed=3, ruleset=rs, columns="lean", dd=True, sd=2,
                              kinds=("H",)), sd)
    fit_model(dd)[0].save(root / "model.json")
    files = {
        "latin1": "name = 'caf\xe9'\n".encode("latin-1"),
        "unknown_key": b"[open]\nthreshold = 0.5\n",
        "too_likely": b"[open]\nmake = 1.5\n",
        "broken": b"[open\nmake = 0.5\n",
        "bad_when": b"[[score]]\nwhen = 'sometimes'\n",
        "bad_shift": b"[[score]]\nwhen = 'behind'\nshift = 2.0\n",
        "bad_type": b"[open]\nmake = 'high'\n",
    }
    out = {"dd": str(dd), "sd": str(sd), "model": str(root / "model.json")}
    for name, data in files.items():
        (root / f"{name}.toml").write_bytes(data)
        out[name] = str(root / f"{name}.toml")
    other = root / "other-run"
    other.mkdir()
    (other / "_playoff.json").write_text('{"dataset": "elsewhere"}')
    out["other_run"] = str(other)
    out["root"] = str(root)
    return out


def built_dataset(tmp_path_factory, name: str, sim):
    """The dataset of Simulation ``sim``, written for the tests that read it (never write
    it). Under BAZARSIM_TEST_DATA (make mutants sets it) it is written once and kept across
    test processes, keyed by the run's parameters and chunk: a dataset is a pure function of
    them, and a mutation run starts thousands of test processes that read the same data."""
    import hashlib
    import json
    import os
    import shutil
    from pathlib import Path

    from bazarsim.engine.run import run_simulation

    root = os.environ.get("BAZARSIM_TEST_DATA")
    if not root:
        path = tmp_path_factory.mktemp(name) / "data"
        run_simulation(sim, path)
        return path
    ident = json.dumps([sim.params(), sim.chunk], sort_keys=True, default=str)
    path = Path(root) / f"{name}-{hashlib.sha256(ident.encode()).hexdigest()[:16]}"
    if not path.exists():
        tmp = Path(root) / f".tmp-{path.name}-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        run_simulation(sim, tmp)
        try:
            tmp.rename(path)  # atomic: a reader sees the whole dataset or none
        except OSError:  # another process wrote it first
            shutil.rmtree(tmp, ignore_errors=True)
    return path
