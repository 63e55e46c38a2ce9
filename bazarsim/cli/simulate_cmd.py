"""``bazarsim simulate``: deal, evaluate and stream a Parquet dataset (resumable)."""

from __future__ import annotations

from typing import Annotated

import typer

from bazarsim.analysis.hand import parse_kinds
from bazarsim.cli.common import (
    DEFAULT_RULESET,
    DEFAULT_SEED,
    FixOpt,
    KindsOpt,
    OptionOpt,
    RulesetOpt,
    SeedOpt,
    WhereOpt,
    command,
    depth_option,
    depth_value,
    load_ruleset,
    lower,
    sd_player_option,
    sd_player_value,
    worlds_option,
    worlds_value,
)
from bazarsim.cli.progress import deal_progress, prepare_players, prepare_solver
from bazarsim.core.errors import BazarsimError
from bazarsim.deals.constraints import parse_constraints
from bazarsim.engine.dask import DEFAULT_TIMEOUT, DaskEngine, preflight
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation, parse_dealer, sd_chunk


@command("simulate")
def simulate_command(
    deals: Annotated[int, typer.Option("--deals", "-n", help="Number of deals (indices "
                                       "FIRST .. FIRST+N-1).")],
    out: Annotated[str, typer.Option("--out", help="Dataset directory, or a file:// URL "
                                     "(created; resumed if it holds a part of this same "
                                     "run). With --scheduler: a path every worker shares.")],
    seed: SeedOpt = DEFAULT_SEED,
    first: Annotated[int, typer.Option("--first", help="First deal index (shards: run "
                                       "disjoint index ranges of one seed anywhere, then "
                                       "read the part files together).")] = 0,
    dealer: Annotated[str, typer.Option("--dealer", "-d", help="Dealer seat N E S W, or 'rotate' "
                                        "(index mod 4).")] = "rotate",
    ruleset: RulesetOpt = DEFAULT_RULESET,
    option: OptionOpt = None,
    fix: FixOpt = None,
    where: WhereOpt = None,
    kinds: KindsOpt = None,
    columns: Annotated[str, typer.Option("--columns", help="full: every evaluation feature "
                       "per seat and kind; lean: points per seat and kind plus the "
                       "declaration outcome per kind (the rest follows from the hands by bit "
                       "tests), several times faster to write.", callback=lower)] = "full",
    chunk: Annotated[int | None, typer.Option("--chunk", help="Deals per chunk (written as "
                     "two part files in parallel; a killed run loses at most the chunk in "
                     "progress); bounds memory (about 0.9 GB peak at 2^20 with full columns); "
                     "does not change the data. Default 2^20, 2^12 with --dd, 2^6 with --sd.",
                     show_default=False)] = None,
    dd: Annotated[bool, typer.Option("--dd", help="Also solve each deal double dummy for "
                  "every kind: {K}_dd_ns (card points N-S take with perfect play, first lead "
                  "from the dealer's left) and {K}_dd_capot (1 N-S, 2 E-W can take every "
                  "trick): the input of `bazarsim table bids`. Some ms a deal for six kinds (the "
                  "README's speed figures, from `make bench`).")] = False,
    sd: Annotated[bool, typer.Option("--sd", help="Also play each deal out for every kind "
                  "with four hidden-card (PIMC) players: {K}_sd_ns (card points N-S take, first "
                  "lead from the dealer's left) and {K}_sd_capot (1 N-S, 2 E-W took every "
                  "trick): single-dummy results for `--play sd` and `table bias`. About 0.2 s a "
                  "deal and kind on one core at 20 worlds; beside --dd or alone.")] = False,
    worlds: worlds_option("With --sd: ") = None,
    players: sd_player_option("With --sd: ") = "pimc",
    depth: depth_option("With --sd --players alphamu: ") = None,
    auction: Annotated[str | None, typer.Option(
        "--auction", help="Bid every deal with this policy (careful, bold, a policy file; per "
        "seat: careful,E=bold) before playing it: columns auction, declarer, contract_* and "
        "the final contract's DD result (contract_dd_ns); with --sd the contract alone is "
        "played out, by four PIMC players (contract_sd_ns) and by four that listen to the "
        "auction (contract_listen_ns; --worlds is their ESS). bazar and bazar-blot.",
        show_default=False)] = None,
    model: Annotated[str | None, typer.Option(
        "--model", help="With --auction: the hand model the policies bid with (a bazarsim "
        "fit file; default: the one shipped for the ruleset).", show_default=False)] = None,
    compression: Annotated[str, typer.Option("--compression", help="Parquet codec: zstd, lz4, "
                           "snappy or none.", callback=lower)] = "zstd",
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="Run the index ranges as tasks on this dask.distributed "
        "scheduler (e.g. tcp://scheduler.example:8786); each worker writes its own part "
        "files. Same dataset as without it.", show_default=False)] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", help="Run the index ranges on a local Dask cluster of N worker "
        "processes (one big machine). Same dataset as without it.",
        show_default=False)] = None,
    connect_timeout: Annotated[float, typer.Option(
        "--connect-timeout", help="Seconds to reach the --scheduler and for a first worker "
        "to join.")] = DEFAULT_TIMEOUT,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or summary.")]
    = False,
) -> None:
    """Simulate deals into a Parquet dataset: one row per deal with its evaluation.

    Deal i of a seed is the same whatever the chunk size or thread count, so a run that
    was killed finishes, when the same command is run again, with exactly the dataset of
    an uninterrupted run, and the same command with a larger --deals extends the dataset.
    With --workers or --scheduler the ranges run as Dask tasks
    (same dataset; the manifest records the engine).
    """
    rs = load_ruleset(ruleset, option)
    worlds = worlds_value(worlds, sd, "--sd")
    players = sd_player_value(players, sd and auction is None, "--sd (without --auction)")
    depth = depth_value(depth, players == "alphamu")
    if model is not None and auction is None:
        raise BazarsimError(f"--model {model}: it applies only with --auction", model)
    extra = None
    if auction is not None and kinds:
        raise BazarsimError(f"--kinds {' '.join(kinds)}: simulate --auction bids every kind, "
                            "so its rows keep every kind; drop --kinds", kinds[0])
    if auction is not None:  # validated before anything is written
        from bazarsim.beliefs.auctioned import AuctionColumns, parse_table_policies
        from bazarsim.simbid.bidder import check_policies, make_bidder

        policies = parse_table_policies(auction)
        check_policies(policies.values(), rs)
        extra = AuctionColumns(rs, policies, model, worlds if sd else 0, bidders=make_bidder)
        if chunk is None:  # the listening play-outs cost about 3x the plain ones
            chunk = max(1, sd_chunk(worlds) // 4) if sd else None
    cons = parse_constraints(fix, where)
    if compression not in ("zstd", "lz4", "snappy", "none", "gzip"):
        raise BazarsimError(f"bad --compression {compression!r}: zstd, lz4, snappy or none")
    sim = Simulation(deals=deals, seed=seed, ruleset=rs, constraints=cons,
                     dealer=parse_dealer(dealer), kinds=parse_kinds(kinds, rs), chunk=chunk,
                     compression=compression, columns=columns, first=first, dd=dd,
                     sd=worlds if sd and extra is None else 0, sd_player=players,
                     sd_depth=depth, extra=extra)
    engine = None
    if scheduler is not None or workers is not None:
        engine = DaskEngine(scheduler=scheduler, workers=workers, timeout=connect_timeout)
        preflight(engine)  # an unreachable scheduler: one error line, before the bar
    if dd or extra is not None:
        prepare_solver(quiet, rs, sim.kinds)  # compiled once here: workers load the cache
    if sd:
        prepare_players(quiet, rs)
    with deal_progress(quiet, "simulate") as update:
        summary = run_simulation(
            sim, out, progress=update, notice=lambda m: typer.echo(m, err=True),
                          engine=engine)
    rate = sim.acceptance
    if not quiet and rate < 1.0:
        typer.echo(f"constraints accepted {100 * rate:.3g}% of candidate deals in a pilot "
                   f"(about {1 / rate:,.1f} candidates a deal)")
    if not quiet:
        typer.echo(
            f"{summary['deals']:,} deals in {out}/ ({summary['written']:,} written now, "
            f"{summary['resumed_from']:,} already there; "
            f"{summary['deals_per_second']:,.0f} deals/s"
            + (f" on {summary['workers']} Dask workers" if engine is not None else "") + ")")
