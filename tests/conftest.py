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


def require_chromium() -> None:
    """Skip, saying why, where there is no Chromium or no Playwright to drive it; fail
    instead where BAZARSIM_REQUIRE_BROWSER is set (.ci/run sets it)."""
    import importlib.util
    import os

    from bazarsim.report.browser import find_chromium

    if find_chromium() is None:
        why = "no Chromium on this machine (apt-get install chromium; .ci/run does)"
    elif importlib.util.find_spec("playwright") is None:
        why = "no Playwright (pip install -e '.[test]')"
    else:
        return
    if os.environ.get("BAZARSIM_REQUIRE_BROWSER"):
        pytest.fail(f"BAZARSIM_REQUIRE_BROWSER is set but {why}")
    pytest.skip(f"{why}: pages cannot be opened in a browser here")


@pytest.fixture(scope="module")
def playwright():
    """A running Playwright (sync API) for a module's browser tests, shared by ``browser``
    and ``chromium``: its asyncio loop runs in this thread while it lives, so a thread has
    one at a time (and these tests cannot call ``asyncio.run`` themselves)."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright):
    """The pages' checker (:class:`bazarsim.report.browser.Chromium`) on the system's
    headless Chromium."""
    from bazarsim.report.browser import Chromium

    with Chromium(playwright=playwright) as b:
        yield b


@pytest.fixture(scope="module")
def chromium(playwright):
    """A Playwright ``Browser`` on the system's headless Chromium, for tests that drive
    pages themselves (``chromium.new_page()``, click, fill, wait)."""
    from bazarsim.report.browser import launch

    b = launch(playwright)
    try:
        yield b
    finally:
        b.close()


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


def disk_cached(*depends: str):
    """A reference or fixture computed once and kept on disk across test processes, as
    :func:`built_dataset` keeps datasets: under BAZARSIM_TEST_DATA (``make mutants``, whose
    thousands of test processes would each compute it again), keyed by the function, its
    arguments (hashable) and the text of every test and package module.

    A process testing a mutant (mutmut names it in MUTANT_UNDER_TEST) reads the kept value
    unless the mutant is in one of the modules ``depends`` names (prefixes such as
    ``bazarsim.matches.model``: the code the value is computed with), where it computes
    its own; only processes without a mutant write it (mutmut's first, clean run). Without
    BAZARSIM_TEST_DATA it is an in-process cache."""
    import functools
    import hashlib
    import os
    import pickle
    from pathlib import Path

    def wrap(fn):
        memo = functools.cache(fn)
        loaded: dict = {}

        @functools.wraps(fn)
        def cached(*args):
            root = os.environ.get("BAZARSIM_TEST_DATA")
            mutant = os.environ.get("MUTANT_UNDER_TEST", "")
            in_mutant = "__mutmut_" in mutant
            if not root or (in_mutant and mutant.startswith(depends)):
                return memo(*args)
            key = hashlib.sha256(repr((fn.__module__, fn.__qualname__, args,
                                       _source_digest())).encode()).hexdigest()[:20]
            path = Path(root) / "cached" / f"{fn.__qualname__}-{key}.pkl"
            if key in loaded:
                return loaded[key]
            if in_mutant and path.exists():
                loaded[key] = pickle.loads(path.read_bytes())
                return loaded[key]
            value = memo(*args)
            if not in_mutant:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".tmp-{os.getpid()}")
                tmp.write_bytes(pickle.dumps(value))
                tmp.replace(path)  # atomic: a reader sees the whole value or none
            return value

        return cached

    return wrap


def _source_digest() -> str:
    """A digest of every test and package module (computed once a process)."""
    import hashlib
    from pathlib import Path

    global _DIGEST
    if _DIGEST is None:
        root = Path(__file__).resolve().parent.parent
        h = hashlib.sha256()
        for p in sorted([*root.glob("tests/*.py"), *root.glob("bazarsim/**/*.py")]):
            h.update(p.read_bytes())
        _DIGEST = h.hexdigest()
    return _DIGEST


_DIGEST: str | None = None


def pytest_collection_modifyitems(config, items):
    """Testing a mutant (mutmut runs ``pytest -x`` over the tests that reach the mutated
    function, in no particular order): the cheapest tests first, by the durations of
    mutmut's own first run, a module's tests kept together (its module fixtures are set up
    once) and the modules by their cheapest test. A killed mutant then dies at the first
    cheap test that sees it; the verdict is the same in any order."""
    import os

    if "__mutmut_" not in os.environ.get("MUTANT_UNDER_TEST", ""):
        return
    durations = _mutmut_durations()
    if not durations:
        return
    by_module: dict[str, list] = {}
    for item in items:
        by_module.setdefault(item.nodeid.split("::")[0], []).append(item)
    for group in by_module.values():
        group.sort(key=lambda it: durations.get(it.nodeid, 0.0))
    ordered = sorted(by_module.values(), key=lambda g: durations.get(g[0].nodeid, 0.0))
    items[:] = [it for group in ordered for it in group]


def _mutmut_durations() -> dict[str, float]:
    """Per test, its duration in mutmut's stats (``mutmut-stats.json`` in the run's
    directory); read once a process."""
    import json
    from pathlib import Path

    global _DURATIONS
    if _DURATIONS is None:
        stats = Path("mutmut-stats.json")
        try:
            _DURATIONS = json.loads(stats.read_text()).get("duration_by_test", {})
        except (OSError, ValueError):
            _DURATIONS = {}
    return _DURATIONS


_DURATIONS: dict[str, float] | None = None
