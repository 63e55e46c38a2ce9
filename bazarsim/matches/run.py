"""Running a play-off: pairs of matches in chunks, on this machine's cores or on Dask,
written as they finish so a killed run resumes where it stopped.

A chunk (pairs ``[start, end)``) is a pure function of the spec (deal dataset, play,
model, both policies, seed, target) and its range: the same rows whatever the chunk
size, the number of processes or the engine. Each chunk is one Parquet part in the run
directory (``part-<start>-<end>.parquet``: the outcome rows, A's wins in its metadata),
written atomically; ``_playoff.json`` holds the spec, and a run with another spec in the
same directory is refused. The local engine uses worker processes (the auctions are
Python code, which threads would serialise); the Dask engine sends the same chunk
function to the cluster's workers, which read the deal dataset by the same path.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bazarsim import __version__
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.faults import parts_written
from bazarsim.engine.local import chunk_ranges
from bazarsim.engine.simulation import ruleset_from_params
from bazarsim.matches.bidding import bidder_stats, policy_bidder
from bazarsim.matches.deals import load_deals
from bazarsim.matches.model import HandModel
from bazarsim.matches.playoff import OUTCOME_FIELDS, play_pairs
from bazarsim.matches.policy import Policy, ScoreRule, policy_doc
from bazarsim.rules.rulesets import Ruleset
from bazarsim.store.parts import (
    atomic_write_bytes,
    existing_parts,
    part_metadata,
    part_name,
    read_manifest,
    remove_temp_files,
    uncovered,
    with_part_metadata,
    write_part,
)

SPEC_FILE = "_playoff.json"
DEFAULT_CHUNK = 100


@dataclass(frozen=True)
class PlayoffSpec:
    """Everything a play-off's rows depend on (the pairs' count only sets its extent)."""

    dataset: str  # the solved dataset the deals come from
    model: str  # the hand model file
    a: Policy
    b: Policy
    seed: int = 7
    target: int = 301
    play: str = "dd"
    pairs: int = 1000
    scoring: tuple[str, ...] = ()  # scoring options changed for the match: "part.key=value"
    # makes the bidder of a policy that is not a threshold one (a simulation policy):
    # ``bidders(policy, model, seed)``, supplied by the stage that has it (not recorded)
    bidders: Callable | None = field(default=None, compare=False)

    def identity(self) -> dict:
        d = asdict(self)
        d.pop("pairs")
        d.pop("bidders")
        d["a"], d["b"] = policy_doc(self.a), policy_doc(self.b)
        d["dataset"] = str(Path(self.dataset).resolve())
        d["model"] = str(Path(self.model).resolve())
        return d


def policy_from_dict(d: dict) -> Policy:
    d = dict(d)
    d["score"] = tuple(ScoreRule(**r) for r in d.get("score", ()))
    return Policy(**d)


def scoring_ruleset(rs: Ruleset, scoring) -> Ruleset:
    """The dataset's ruleset with a match's scoring options (``scoring.target=...``)."""
    if not scoring:
        return rs
    return rs.with_options(**{k.strip(): v.strip()
                              for k, _, v in (o.partition("=") for o in scoring)})


def spec_ruleset(spec: PlayoffSpec) -> Ruleset:
    """The rules a play-off was played under: its dataset's, with its scoring options."""
    return scoring_ruleset(ruleset_from_params(read_manifest(spec.dataset)), spec.scoring)


@lru_cache(maxsize=4)
def _context(dataset: str, play: str, model: str, scoring: tuple[str, ...]):
    table = load_deals(dataset, play)
    table = replace(table, ruleset=scoring_ruleset(table.ruleset, scoring))
    return table, HandModel.load(model, table.ruleset)


def compute_chunk(spec: PlayoffSpec, start: int, end: int) -> tuple[np.ndarray, np.ndarray,
                                                                    dict]:
    """Pairs ``[start, end)`` of the play-off: A's wins ``[pairs, 2]``, outcome rows, and
    what each side's bidder counted (a simulation bidder: calls made and simulated)."""
    table, model = _context(spec.dataset, spec.play, spec.model, spec.scoring)
    a = policy_bidder(spec.a, model, spec.seed, spec.bidders)
    b = policy_bidder(spec.b, model, spec.seed, spec.bidders)
    wins, rows = play_pairs(model, table, a, b, spec.seed, start, end - start, spec.target)
    return wins, rows, {"a": bidder_stats(a), "b": bidder_stats(b)}


def _follow_parent(parent: int) -> None:
    """In a pool worker: exit when the driver is gone (killed), not linger as an orphan
    that holds the driver's terminal and pipes open."""
    import threading

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _part_table(wins: np.ndarray, rows: np.ndarray, start: int, end: int,
                stats: dict | None = None) -> pa.Table:
    table = pa.table({f: pa.array(rows[:, i], pa.int64()) for i, f in enumerate(OUTCOME_FIELDS)})
    meta = {"pairs": [start, end], "wins": wins.tolist(), "bazarsim": __version__}
    if stats and any(stats.values()):
        meta["bidders"] = stats
    return with_part_metadata(table, meta)


def check_run(out: Path, spec: PlayoffSpec) -> bool:
    """Whether ``out`` already holds this play-off (False: nothing there yet); a directory
    holding another one, or something else, is refused."""
    out = Path(out)
    path = out / SPEC_FILE
    if out.exists() and not out.is_dir():
        raise BazarsimError(f"--out {out}: a file, not a run directory", str(out))
    if not path.exists():
        return False
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise BazarsimError(f"{out} holds an unreadable {SPEC_FILE} ({exc}): choose another "
                            "--out", str(out)) from None
    new = json.loads(json.dumps(spec.identity()))  # as it reads back from the file
    if old != new:
        diff = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        raise BazarsimError(f"{out} holds another play-off (it differs in "
                            f"{', '.join(diff)}): choose another --out", str(out))
    return True


def prepare_run(out: Path, spec: PlayoffSpec) -> None:
    """Create the run directory or check that it holds this same play-off."""
    if not check_run(out, spec):
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(out / SPEC_FILE, json.dumps(spec.identity(), indent=1).encode())
    remove_temp_files(out)


def run_playoff(spec: PlayoffSpec, out: str | Path, chunk: int = DEFAULT_CHUNK,
                processes: int | None = None, engine=None,
                progress: Callable[[int, int], None] | None = None) -> dict:
    """Play the missing chunks of pairs ``[0, spec.pairs)`` into ``out``; a summary."""
    out = Path(out)
    if spec.pairs < 2:
        raise BazarsimError(f"{spec.pairs} match pairs: a play-off needs at least 2")
    if chunk < 1:
        raise BazarsimError(f"--chunk {chunk}: must be >= 1")
    prepare_run(out, spec)
    # parts of an earlier, larger run count for what they cover below spec.pairs
    have = [(s, min(e, spec.pairs)) for s, e in existing_parts(out) if s < spec.pairs]
    gaps = uncovered(have, 0, spec.pairs, out)
    todo = chunk_ranges(gaps, chunk)
    done = spec.pairs - sum(e - s for s, e in todo)
    if progress:
        progress(done, spec.pairs)
    t0 = time.perf_counter()
    written = 0

    def save(s, e, result):
        nonlocal done, written
        wins, rows, stats = result
        write_part(_part_table(wins, rows, s, e, stats), out / part_name(s, e), "zstd")
        written += 1
        parts_written(written)
        done += e - s
        if progress:
            progress(done, spec.pairs)

    workers = processes or os.cpu_count() or 1
    if engine is not None and todo:
        _run_dask(spec, todo, engine, save)
    elif workers == 1 or len(todo) <= 1:
        for s, e in todo:
            save(s, e, compute_chunk(spec, s, e))
    else:
        # spawned, not forked: a simulation bidder runs Numba's parallel (OpenMP) kernels
        # in the workers, which a fork of a driver that ran them already cannot
        with ProcessPoolExecutor(min(workers, len(todo)), mp_context=get_context("spawn"),
                                 initializer=_follow_parent,
                                 initargs=(os.getpid(),)) as pool:
            futures = {pool.submit(compute_chunk, spec, s, e): (s, e) for s, e in todo}
            for f in as_completed(futures):
                s, e = futures[f]
                save(s, e, f.result())
    return {"out": str(out), "pairs": spec.pairs, "played": sum(e - s for s, e in todo),
            "seconds": time.perf_counter() - t0}


def _run_dask(spec, todo, engine, save) -> None:
    from distributed import as_completed as dask_completed

    from bazarsim.engine.dask import check_workers, connect, quiet_dask_logs

    with quiet_dask_logs(), connect(engine) as client:
        check_workers(client, engine)
        futures = {client.submit(compute_chunk, spec, s, e, pure=False, retries=2): (s, e)
                   for s, e in todo}
        for f in dask_completed(list(futures)):
            s, e = futures[f]
            save(s, e, f.result())


def read_playoff(out: str | Path, pairs: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A run's wins ``[pairs, 2]`` and outcome rows of pairs ``[0, pairs)`` (default: every
    pair its parts hold, which must be ``[0, n)`` without a gap)."""
    out = Path(out)
    parts = sorted((s, e) for s, e in existing_parts(out))
    if pairs is None:
        pairs = max((e for _s, e in parts), default=0)
    parts = [(s, e) for s, e in parts if s < pairs]
    if pairs == 0 or uncovered([(s, min(e, pairs)) for s, e in parts], 0, pairs, out):
        raise BazarsimError(f"{out} does not hold pairs 0..{pairs - 1} of a play-off: run "
                            "bazarsim match with this --out to finish it")
    wins = []
    for s, e in parts:
        meta = part_metadata(out / part_name(s, e))
        wins.append(np.asarray(meta["wins"], np.int64).reshape(-1, 2)[: min(e, pairs) - s])
    table = pq.read_table([str(out / part_name(s, e)) for s, e in parts],
                          columns=list(OUTCOME_FIELDS))
    rows = np.stack([table.column(f).to_numpy() for f in OUTCOME_FIELDS], 1).astype(np.int64)
    return np.concatenate(wins), rows[rows[:, 0] < pairs]


def read_bidder_stats(out: str | Path) -> dict:
    """What each side's bidder counted over the run's parts (summed), e.g. a simulation
    bidder's calls and simulated calls; empty for threshold policies."""
    total: dict = {}
    for s, e in existing_parts(Path(out)):
        meta = part_metadata(Path(out) / part_name(s, e))
        for side, counts in (meta.get("bidders") or {}).items():
            for k, v in (counts or {}).items():
                total.setdefault(side, {}).setdefault(k, 0)
                total[side][k] += v
    return total


def is_playoff_run(out: str | Path) -> bool:
    return (Path(out) / SPEC_FILE).exists()


def load_spec(out: str | Path, bidders: Callable | None = None) -> PlayoffSpec:
    """The spec a run directory was played with (its pairs: those on disk); ``bidders``:
    see :class:`PlayoffSpec`."""
    out = Path(out)
    try:
        d = json.loads((out / SPEC_FILE).read_text())
    except (OSError, ValueError) as exc:
        raise BazarsimError(f"{out} is not a play-off run directory ({SPEC_FILE}: {exc})",
                            str(out)) from None
    pairs = max((e for _s, e in existing_parts(out)), default=0)
    return PlayoffSpec(d["dataset"], d["model"], policy_from_dict(d["a"]),
                       policy_from_dict(d["b"]), d["seed"], d["target"], d["play"], pairs,
                       tuple(d.get("scoring", ())), bidders)
