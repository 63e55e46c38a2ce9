"""``bazarsim fit``, ``policy``, ``match`` and ``equity``: bidding policies played as whole
matches to the target, and the match equity they imply."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import Annotated

import typer

from bazarsim.analysis.bids import check_play, play_key
from bazarsim.cli.common import (
    DEFAULT_RULESET,
    Format,
    FormatOpt,
    OptionOpt,
    RulesetOpt,
    check_writable,
    command,
    echo_wrapped,
    emit_json,
    emit_records,
    lower,
    seed_option,
    term_width,
)
from bazarsim.cli.progress import deal_progress, prepare_solver
from bazarsim.core.contracts import KIND_NAMES
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.generator import DEFAULT_SEED
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation, ruleset_from_params
from bazarsim.matches.equity import derived_rules, equity_maps
from bazarsim.matches.model import HandModel, fit_model
from bazarsim.matches.playoff import playoff_summary
from bazarsim.matches.policy import builtin_policies, keys_help, load_policy, policy_toml
from bazarsim.matches.run import (
    DEFAULT_CHUNK,
    PlayoffSpec,
    check_run,
    read_bidder_stats,
    read_playoff,
    run_playoff,
    scoring_ruleset,
    spec_ruleset,
)
from bazarsim.report.matches import (
    band_records,
    calibration_records,
    contract_records,
    grid_blocks,
    playoff_records,
)
from bazarsim.rules.match import Match
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.simbid.bidder import check_policies, make_bidder
from bazarsim.store.parts import missing_ranges, read_manifest, read_manifest_or_none

DEFAULT_MATCH_DEALS = 20_000
DEFAULT_PAIRS = 1000

PlayOpt = Annotated[str, typer.Option(
    "--play", callback=lower, help="Deal results from double dummy (dd) or the dataset's "
    "single-dummy play-outs (sd, simulate --sd).")]
DatasetOpt = Annotated[Path | None, typer.Option(
    "--dataset", help="A solved dataset (simulate --dd) to draw the deals from; default: "
    f"{DEFAULT_MATCH_DEALS:,} deals of the ruleset, simulated once into runs/.")]
ModelOpt = Annotated[Path | None, typer.Option(
    "--model", help="A hand model (bazarsim fit); default: fitted on --dataset, kept in the "
    "run directory.")]
TargetOpt = Annotated[int | None, typer.Option(
    "--to", help="Match target (default: the ruleset's, e.g. 301 in bazar).")]
PairsOpt = Annotated[int, typer.Option(
    "--matches", "-m", min=2, help="Match pairs: each deal sequence is played twice, "
    "the policies swapping seats.")]
WorkersOpt = Annotated[int | None, typer.Option(
    "--workers", help="Run the chunks on a local Dask cluster of N worker processes.")]
SchedulerOpt = Annotated[str | None, typer.Option(
    "--scheduler", help="Run the chunks on this dask.distributed scheduler (workers must "
    "reach --dataset and the model by the same paths).")]
MatchSeedOpt = seed_option("the same seed draws the same deals for the same matches")
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


@command("fit")
def fit_command(
    directory: Annotated[Path, typer.Argument(help="A solved dataset (simulate --dd).")],
    out: Annotated[Path, typer.Option("--out", help="Model file to write (JSON).")],
    play: PlayOpt = "dd",
    prior: Annotated[float, typer.Option(
        "--prior", help="Pseudo-deals a class borrows from its parent class (> 0).")] = 20.0,
    fmt: FormatOpt = Format.table,
) -> None:
    """Fit the hand model bidding policies use, from a solved dataset.

    P(the side makes each bid) from the bidder's hand (its bid-time cards in belote-fr
    and bela-hr) and position, and P(the opponents make theirs) from a defender's hand.

    A smoothed table over hand classes; its calibration is measured on one deal in five,
    held out (Brier score against the base rate, reliability table), then the model is
    fitted on every deal. Example: bazarsim fit runs/match-deals-bazar-7-20000 --out
    model.json
    """
    check_writable(out, "--out")
    model, cal = fit_model(directory, play=play, prior=prior)
    model.save(out)
    if fmt == Format.json:
        emit_json({"out": str(out), "source": model.source, "calibration": cal})
        return
    brier, rel = calibration_records(cal)
    emit_records(brier, fmt, title=f"Hand model of {directory} ({model.source['deals']:,} "
                 f"deals, {model.source['play_name']}): calibration on held-out deals",
                 notes=["skill: 1 - Brier / Brier of each bid's base rate (higher is "
                        "better; 0 = no better than the base rate)"])
    emit_records(rel, fmt, title="reliability (held-out forecasts)")
    typer.echo(f"wrote {out}")


@command("policy")
def policy_command(
    files: Annotated[list[str] | None, typer.Argument(
        help="Policy files (or shipped names: careful, bold) to check and show.")] = None,
    keys: Annotated[bool, typer.Option("--keys", help="Every key a policy file may set, "
                                       "with its default and meaning.")] = False,
    fmt: FormatOpt = Format.table,
) -> None:
    """Check bidding policy files (TOML) and show their thresholds; --keys documents
    every key. Without files: the shipped policies.

    A malformed file is refused with the key and its line (exit 2). Example policies:
    bazarsim policy careful bold --keys
    """
    if keys:
        typer.echo(keys_help(term_width()))
        if not files:
            return
        typer.echo("")
    names = files or list(builtin_policies())
    policies = [load_policy(f) for f in names]
    if fmt == Format.json:
        emit_json([p.as_dict() for p in policies])
        return
    rows = []
    for p in policies:
        rule = "; ".join(f"{r.when} {r.by}+{f' near {r.near}' if r.near else ''}: "
                         f"{r.shift:+.2f}" for r in p.score)
        rows.append({"policy": p.name, "open": f"{p.open_make:g}" + (" jump" if p.open_jump
                                                                       else ""),
                     "overcall": f"{p.overcall_make:g}", "support": f"{p.support_make:g}",
                     "capot": f"{p.capot_make:g}", "contra": f"{p.contra_fail:g}",
                     "recontra": f"{p.recontra_make:g}", "by score": rule or "-"})
    notes = [f"{p.name}: {p.description}" for p in policies if p.description]
    notes += [f"{p.name} is a simulation policy: the thresholds are its base; a call they "
              f"leave within {p.simulation_margin:g} of a threshold is decided on "
              f"{p.simulation_worlds} worlds ({p.simulation_play.upper()}), the other seats "
              f"assumed {p.simulation_assume}" for p in policies if p.simulates]
    emit_records(rows, fmt, title="bidding policies (thresholds on the hand model's P)",
                 notes=notes)


def default_deals_path(ruleset, seed: int) -> Path:
    return Path("runs") / f"match-deals-{ruleset.name}-{seed}-{DEFAULT_MATCH_DEALS}"


def default_deals(ruleset, seed: int, quiet: bool) -> Path:
    """The default deal source: DEFAULT_MATCH_DEALS DD-solved deals, simulated once."""
    out = default_deals_path(ruleset, seed)
    if read_manifest_or_none(out) is None or missing_ranges(out, 0, DEFAULT_MATCH_DEALS):
        sim = Simulation(deals=DEFAULT_MATCH_DEALS, seed=seed, ruleset=ruleset, dd=True,
                         columns="lean")
        prepare_solver(quiet, ruleset, sim.kinds)
        with deal_progress(quiet, f"Solving {out}") as progress:
            run_simulation(sim, out, progress)
    return out


def setup_playoff(a: str, b: str, dataset: Path | None, model: Path | None, play: str,
                  ruleset: str, option: list[str] | None, seed: int, target: int | None,
                  pairs: int, out: Path | None, quiet: bool) -> tuple[PlayoffSpec, Path]:
    """The play-off's spec and run directory: every input checked before anything is
    written (a typo leaves nothing behind), then the dataset simulated and the model fitted
    where they were not given."""
    pa, pb = load_policy(a), load_policy(b)
    named = get_ruleset(ruleset)  # an unknown name is refused as such
    play = play_key(play)
    scoring = list(option or [])
    bad = [o for o in scoring if not o.strip().lower().startswith("scoring.")]
    if bad:
        raise BazarsimError(f"-o {bad[0]!r}: a match may change scoring options only (the "
                            "deals were solved under the dataset's rules)", bad[0])
    if dataset is None:
        if play != "dd":
            raise BazarsimError("--play sd: the default deals are solved double dummy; give "
                                "--dataset, a dataset simulated with --sd", "sd")
        rs = named
    else:
        manifest = read_manifest(dataset)
        check_play(manifest, play, dataset)
        rs = ruleset_from_params(manifest)
        if ruleset != DEFAULT_RULESET and ruleset != rs.name:
            raise BazarsimError(f"--ruleset {ruleset}: {dataset} holds {rs.name} deals, "
                                f"not {ruleset} (leave -r out: a match takes the dataset's "
                                "rules)", ruleset)
    rs = scoring_ruleset(rs, scoring)
    target = rs.scoring.target if target is None else target
    Match(rs, target)  # a target the ruleset allows
    if model is not None:
        HandModel.load(model, rs)  # readable, and fitted for these rules
    source = dataset or default_deals_path(rs, DEFAULT_SEED)
    stem = run_stem(pa, pb, source, model, play, target, seed, scoring)
    out = out or Path("runs") / f"match-{stem}"
    model_path = model if model is not None else out / "model.json"
    check_policies((pa, pb), rs)
    spec = PlayoffSpec(str(source), str(model_path), pa, pb, seed, target, play, pairs,
                       tuple(scoring), make_bidder)
    check_run(out, spec)  # a directory holding another play-off is refused here
    if dataset is None:
        default_deals(rs, DEFAULT_SEED, quiet)
    out.mkdir(parents=True, exist_ok=True)
    if model is None and not model_path.exists():
        fit_model(source, play=play)[0].save(model_path)
    return spec, out


def run_stem(pa, pb, dataset: Path, model: Path | None, play: str, target: int, seed: int,
             scoring: list[str]) -> str:
    """The default run directory's name: every parameter the play-off's rows depend on
    (policies, dataset, model, play, target, seed, scoring options), so that two different
    play-offs never share one."""
    given = f"-{Path(model).stem}" if model is not None else ""
    stem = f"{pa.name}-{pb.name}-{Path(dataset).name}{given}-{play}-{target}-{seed}"
    if scoring:
        digest = hashlib.sha256("\n".join(sorted(o.strip() for o in scoring)).encode())
        stem += f"-o{digest.hexdigest()[:8]}"
    return stem


def dataset_kinds(spec: PlayoffSpec) -> tuple[list[str], str | None]:
    """The kinds the deals were solved for, and the line that says so when they are only
    some of the ruleset's: the policies then bid only those (never silently)."""
    rs = spec_ruleset(spec)
    have = list(read_manifest(spec.dataset)["kinds"])
    every = [KIND_NAMES[k] for k in rs.kinds]
    if set(have) >= set(every):
        return have, None
    return have, (f"contracts: {' '.join(have)} only: {spec.dataset} solved no other kind, so the "
            f"policies bid only {'it' if len(have) == 1 else 'these'} ({rs.name} has "
            f"{' '.join(every)})")


def _engine(workers, scheduler):
    if workers is None and scheduler is None:
        return None
    from bazarsim.engine.dask import DaskEngine, preflight

    engine = DaskEngine(scheduler=scheduler, workers=workers)
    preflight(engine)
    return engine


def play_matches(spec, out, chunk, engine, quiet) -> tuple:
    with deal_progress(quiet, "Match pairs") as progress:
        run_playoff(spec, out, chunk=chunk, engine=engine, progress=progress)
    return read_playoff(out, spec.pairs)


@command("match")
def match_command(
    a: Annotated[str, typer.Argument(help="Policy A (a TOML file, or careful / bold).")],
    b: Annotated[str, typer.Argument(help="Policy B.")],
    target: TargetOpt = None,
    pairs: PairsOpt = DEFAULT_PAIRS,
    seed: MatchSeedOpt = DEFAULT_SEED,
    dataset: DatasetOpt = None,
    play: PlayOpt = "dd",
    model: ModelOpt = None,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Run directory (resumed if it holds this play-off); default "
        "runs/match-A-B-DATASET-PLAY-TARGET-SEED (DATASET-MODEL with --model; -oHASH "
        "after it with -o options): every parameter in its name.")] = None,
    chunk: Annotated[int, typer.Option("--chunk", min=1, help="Pairs a task plays.")] =
    DEFAULT_CHUNK,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    ruleset: RulesetOpt = DEFAULT_RULESET,
    option: OptionOpt = None,
    quiet: QuietOpt = False,
    fmt: FormatOpt = Format.table,
) -> None:
    """Duplicate match play-off: policy A against policy B in whole matches to the target.

    Each deal sequence is played twice, A at N-S then at E-W, so both teams get the same
    cards; A's match-win chance is given with its paired standard error and 95 %
    interval, beside the unpaired error of the same matches (the pairing's variance
    reduction), points per deal, match length and the results by score band. The same
    seed gives the same matches; a killed run resumes. Example: bazarsim match careful
    bold -m 2000
    """
    spec, out = setup_playoff(a, b, dataset, model, play, ruleset, option, seed, target, pairs,
                              out, quiet or fmt != Format.table)
    wins, rows = play_matches(spec, out, chunk, _engine(workers, scheduler),
                       quiet or fmt != Format.table)
    s = playoff_summary(wins, rows, spec.target)
    an, bn = spec.a.name, spec.b.name
    if an == bn:
        an, bn = f"{an} (A)", f"{bn} (B)"
    kinds, note = dataset_kinds(spec)
    simulated = read_bidder_stats(out)
    if fmt == Format.json:
        emit_json({"a": spec.a.name, "b": spec.b.name, "dataset": spec.dataset,
                   "play": spec.play, "seed": spec.seed, "out": str(out), "kinds": kinds,
                   **s, **({"bidders": simulated} if simulated else {})})
        return
    emit_records(playoff_records(s, an, bn), fmt,
                 title=f"{an} against {bn}: matches to {spec.target}, seed {spec.seed} "
                 f"({spec.play.upper()} results of {spec.dataset})",
                 notes=[note] if note else None)
    emit_records(contract_records(s, an, bn), fmt, title="contracts")
    emit_records(band_records(s, an, bn), fmt, title="by score at the deal (A's lead)")
    for side, name in (("a", an), ("b", bn)):
        st = simulated.get(side)
        if st and st.get("calls"):
            echo_wrapped(f"{name} simulated {st['simulated']:,} of its {st['calls']:,} calls "
                         f"({100 * st['simulated'] / st['calls']:.0f} %) and changed "
                         f"{st['changed']:,} of those from its base policy's call")
    typer.echo(f"run directory: {out}")


@command("equity")
def equity_command(
    from_: Annotated[str, typer.Option(
        "--from", help="The policy whose matches give the deal outcomes (file or "
        "careful / bold).")] = "careful",
    against: Annotated[str | None, typer.Option(
        "--against", help="Its opponent in those matches (default: itself).")] = None,
    target: TargetOpt = None,
    pairs: PairsOpt = DEFAULT_PAIRS,
    seed: MatchSeedOpt = DEFAULT_SEED,
    dataset: DatasetOpt = None,
    play: PlayOpt = "dd",
    model: ModelOpt = None,
    step: Annotated[int, typer.Option("--step", min=1, help="Score bin of the equity "
                                      "table.")] = 10,
    threshold_step: Annotated[int | None, typer.Option(
        "--threshold-step", min=1, help="Score bin of the threshold map (default: "
        "5 x --step).")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Run directory of the matches "
                                             "(as bazarsim match).")] = None,
    policy_out: Annotated[Path | None, typer.Option(
        "--policy-out", help="Write the --from policy with score rules derived from the "
        "break-even map (a TOML file to play with bazarsim match).")] = None,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    ruleset: RulesetOpt = DEFAULT_RULESET,
    option: OptionOpt = None,
    quiet: QuietOpt = False,
    fmt: FormatOpt = Format.table,
) -> None:
    """Match equity: P(win the match) from every score, and the score-dependent
    thresholds that maximise it.

    Dynamic programming over the deal outcomes of the --from policy's matches (who
    deals next included; outcomes per score rule in force, so score-dependent policies
    are modelled), checked against those simulated matches; the break-even P(make) of a
    bid at every score; with --policy-out, the --from policy with score rules read off
    that map.

    Example: bazarsim equity --from careful -m 5000 --to 301
    """
    if policy_out is not None:
        check_writable(policy_out, "--policy-out")
    spec, out = setup_playoff(from_, against or from_, dataset, model, play, ruleset, option,
                              seed, target, pairs, out, quiet or fmt != Format.table)
    wins, rows = play_matches(spec, out, DEFAULT_CHUNK, _engine(workers, scheduler),
                       quiet or fmt != Format.table)
    rs = spec_ruleset(spec)
    kinds, note = dataset_kinds(spec)
    maps = equity_maps(rows, wins, rs, spec.target, (spec.a, spec.b), step,
                       threshold_step or 5 * step)
    result, check, grid, eq = maps["result"], maps["check"], maps["grid"], maps["equity"]
    by_dealer = result["eq"][0:spec.target:step, 0:spec.target:step]
    derived = None
    if policy_out is not None:
        rules, derived = derived_rules(result, step, spec.a)
        policy = dataclasses.replace(
            spec.a, name=f"{spec.a.name}-equity", score=tuple(rules),
            description=f"{spec.a.name} with score rules derived from its match equity "
            f"against {spec.b.name} to {spec.target}")
        policy_out.write_text(policy_toml(policy))
    if fmt == Format.json:
        emit_json({"from": spec.a.name, "against": spec.b.name, "target": spec.target,
                   "out": str(out), "check": check,
                   "kinds": kinds, "deals": result["deals"],
                   "pad": result["pad"], "step": step, "grid": grid,
                   "equity": eq.round(4).tolist(),
                   "equity_by_dealer": {"a_deals_next": by_dealer[..., 1].round(4).tolist(),
                                        "b_deals_next": by_dealer[..., 0].round(4).tolist()},
                   "threshold_grid": maps["threshold_grid"],
                   "thresholds": [[None if v != v else round(float(v), 4) for v in row]
                                  for row in maps["thresholds"]],
                   **({"derived": derived, "policy_out": str(policy_out)} if derived else {})})
        return
    typer.echo(f"Match equity to {spec.target} ({rs.name}), from {check['matches']:,} "
               f"matches of {spec.a.name} against {spec.b.name}")
    if note:
        echo_wrapped(note)
    emit_records([{"P(A wins) from 0:0": "simulated (± paired SE, as match prints it)",
                   "value %": f"{100 * check['simulated']:.2f} ± "
                              f"{100 * check['simulated_se']:.2f}"},
                  {"P(A wins) from 0:0": "dynamic programming",
                   "value %": f"{100 * check['dp']:.2f}"},
                  {"P(A wins) from 0:0": "simulated minus DP (pp)",
                   "value %": f"{100 * check['difference']:+.2f}"}], fmt,
                 title="the DP against the matches it was built from")
    width = term_width() if fmt == Format.table else 10**9  # md, csv: one table each
    for i, block in enumerate(grid_blocks(grid, eq, width, "A \\ B")):
        emit_records(block, fmt, boxed=False, title=(
            f"P(A wins) %, A's score down, B's across (step {step}; mean over who deals "
            "next)" if i == 0 else None))
    for i, block in enumerate(grid_blocks(maps["threshold_grid"], maps["thresholds"], width,
                                          "A \\ B")):
        emit_records(block, fmt, boxed=False, title=(
            "break-even P(make) % for A to bid, by score (bid when the hand's P(make) is "
            "above it)" if i == 0 else None))
    if derived is not None and not derived["bands"]:  # a blank map: nothing to derive
        echo_wrapped(f"score rules written to {policy_out}: none (the break-even map has no "
                     "value " + ("where no band applies" if derived["base_break_even"] is None
                                 else "in any band") + ": too few deals of A's made and "
                     "failed contracts; the policy is written without score rules)")
    elif derived is not None:
        emit_records([{"rule": f"{b['when']} by {b['by']}+" + (f", leader needs <= {b['near']}"
                                                                if b["near"] else ""),
                       "break-even %": f"{100 * b['break_even']:.1f}",
                       "shift": f"{b['shift']:+.2f}", "deals": f"{b['visits']:.0f}"}
                      for b in derived["bands"]], fmt,
                     title=f"score rules written to {policy_out} (base break-even "
                     f"{100 * derived['base_break_even']:.1f} %)")
    typer.echo(f"run directory: {out}")
