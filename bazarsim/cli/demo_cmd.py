"""``bazarsim demo``: the default job of ``make run``.

Simulates a few million deals into ``runs/`` (a Parquet dataset, resumable), prints
the combination-frequency table against the exact odds, where the dataset is, and how
to open it in pandas.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from bazarsim.analysis.bids import bid_table
from bazarsim.cli.common import (
    DEFAULT_RULESET,
    DEFAULT_SEED,
    Format,
    SeedOpt,
    command,
    emit_records,
    print_frequency_table,
)
from bazarsim.cli.progress import deal_progress, prepare_players, prepare_solver
from bazarsim.engine.run import run_simulation
from bazarsim.engine.simulation import Simulation
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store.parts import read_manifest_or_none

DEMO_DEALS = 3_000_000
# The DD part: hearts only (one DD solve a deal), about a minute on 2 cores once compiled.
DEMO_DD_DEALS = 20_000
DEMO_DD_KIND = 1
# The hidden-card part: hearts played out by four PIMC-20 players beside DD, a live sample
# of the checked-in bias table (reports/bias-bazar.json, `make bias`); well under a minute.
DEMO_SD_DEALS = 120
BIAS_REPORT = Path(__file__).resolve().parents[2] / "reports" / "bias-bazar.json"


@command("demo")
def demo_command(
    deals: Annotated[int, typer.Option("--deals", "-n", help="Deals to simulate.")] = DEMO_DEALS,
    seed: SeedOpt = DEFAULT_SEED,
    out: Annotated[Path | None, typer.Option("--out", help="Dataset directory "
                                             "(default runs/demo-<seed>-<deals>).")] = None,
    dd_deals: Annotated[int, typer.Option("--dd-deals", help="Deals of the double-dummy part "
                        "(0: none).")] = DEMO_DD_DEALS,
    sd_deals: Annotated[int, typer.Option("--sd-deals", help="Deals of the hidden-card part "
                        "(0: none).")] = DEMO_SD_DEALS,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run the default job (make run): a simulation, its frequency table and a bid table.

    Simulates deals to Parquet and prints the frequency table against the exact odds,
    then solves a smaller run double dummy and prints how often 8, 9 and 10 hearts make,
    and plays a sample out with hidden-card players beside the checked-in DD bias table."""
    out = out or Path("runs") / f"demo-{seed}-{deals}"
    rs = get_ruleset(DEFAULT_RULESET)
    typer.echo(f"Simulating {deals:,} deals (seed {seed}, ruleset {DEFAULT_RULESET}, all "
               f"contract kinds) into {out}/ ...")
    sim = Simulation(deals=deals, seed=seed, ruleset=rs)
    if out.exists() and out.name.startswith("demo-"):
        old = read_manifest_or_none(out)
        if old != sim.params():  # an older demo (other version or options): start afresh
            typer.echo(f"Replacing {out}/: it holds an older demo dataset.")
            shutil.rmtree(out)
    with deal_progress(quiet, "simulate") as update:
        summary = run_simulation(sim, out, progress=update)
    if summary["written"]:
        typer.echo(f"Wrote {summary['written']:,} deals in {summary['seconds']:.1f} s "
                   f"({summary['deals_per_second']:,.0f} deals/s end to end).")
    else:
        typer.echo("Dataset already complete (same seed and size): reusing it.")
    typer.echo("")
    rows = print_frequency_table(str(out), fmt=Format.table)
    table_path = out / "_freq.csv"  # leading underscore: Parquet readers skip it
    pd.DataFrame(rows).to_csv(table_path, index=False)
    typer.echo(f"""
Dataset: {out.resolve()}/ ({deals:,} rows, one per deal; part-*.parquet + _run.json)
Frequency table: {table_path.resolve()}
Open it in pandas:
    import pandas as pd
    df = pd.read_parquet("{out}")           # all columns (about 190)
    df = pd.read_parquet("{out}", columns=["number", "dealer", "N", "N_H_points"])
Show any row's deal again: bazarsim deal <number>
Same table as above: bazarsim table freq {out} [--by dealer] [--format md|csv|json]""")
    if dd_deals:
        _dd_part(dd_deals, seed, out.parent / f"demo-dd-{seed}-{dd_deals}", quiet)
    if sd_deals:
        _sd_part(sd_deals, seed, out.parent / f"demo-sd-{seed}-{sd_deals}", quiet)
    typer.echo(f"\nThe same datasets in the web app (hand analysis, study browser, deal "
               f"replay): bazarsim serve --data {out.parent} (then open http://127.0.0.1:8000/; "
               "docs/web-app.md)")


def _sd_part(deals: int, seed: int, out: Path, quiet: bool) -> None:
    """Play ``deals`` out in hearts with four PIMC players beside DD, and print their bias
    rows next to those of the checked-in table (same bids, 3,000 deals)."""
    import json

    from bazarsim.analysis.bias import bias_table
    from bazarsim.report.records import percent

    rs = get_ruleset(DEFAULT_RULESET)
    sim = Simulation(deals=deals, seed=seed, ruleset=rs, kinds=(DEMO_DD_KIND,), columns="lean",
                     dd=True, sd=20)
    typer.echo(f"\nPlaying {deals:,} deals out in hearts with hidden cards (four PIMC "
               f"players, 20 worlds a decision) and double dummy into {out}/ ...")
    if out.exists() and read_manifest_or_none(out) != sim.params():
        shutil.rmtree(out)
    prepare_solver(quiet, rs, sim.kinds)
    prepare_players(quiet, rs)
    with deal_progress(quiet, "simulate --dd --sd") as update:
        summary = run_simulation(sim, out, progress=update)
    if summary["written"]:
        typer.echo(f"Played {summary['written']:,} deals in {summary['seconds']:.1f} s.")
    levels = [8, 9, 10, 11, 12]
    live = {r["bid"]: r for r in bias_table(out, kinds=["H"], levels=levels)["rows"]}
    ref = {}
    if BIAS_REPORT.exists():
        ref = {r["bid"]: r for r in json.loads(BIAS_REPORT.read_text())["rows"]}

    def pct(r, key):
        return percent(r and r[key], ".0f", missing="-")

    rows = []
    for bid, r in live.items():
        c = ref.get(bid)
        rows.append({"bid": bid, "DD %": pct(r, "p_make_dd"), "SD %": pct(r, "p_make_sd"),
                     "SD if DD made %": pct(r, "p_sd_given_dd_made"),
                     "3,000 deals: DD %": pct(c, "p_make_dd"), "SD %*": pct(c, "p_make_sd"),
                     "SD if DD made %*": pct(c, "p_sd_given_dd_made")})
    emit_records(rows, Format.table, title=f"Hearts bids under double dummy (DD) and hidden-"
                 f"card play (SD): this sample of {deals:,} deals beside the checked-in table",
                 notes=["*: the checked-in table (reports/bias-bazar.md, `make bias`)"
                        if ref else "the checked-in table (reports/bias-bazar.md) is not here"])
    typer.echo(f"Whole table: bazarsim table bias {out}; one deal card by card: bazarsim play "
               "DEAL -c 9H --declarer N")


def _dd_part(deals: int, seed: int, out: Path, quiet: bool) -> None:
    """Simulate ``deals`` with DD tables for hearts and print P(make) of 8/9/10 hearts by
    the declarer's trump count and J/9 of trump."""
    rs = get_ruleset(DEFAULT_RULESET)
    sim = Simulation(deals=deals, seed=seed, ruleset=rs, kinds=(DEMO_DD_KIND,), columns="lean",
                     dd=True)
    typer.echo(f"\nSolving {deals:,} deals double dummy in hearts (seed {seed}) into {out}/ ...")
    if out.exists() and read_manifest_or_none(out) != sim.params():
        shutil.rmtree(out)
    prepare_solver(quiet, rs, sim.kinds)
    with deal_progress(quiet, "simulate --dd") as update:
        summary = run_simulation(sim, out, progress=update)
    if summary["written"]:
        typer.echo(f"Solved {summary['written']:,} deals in {summary['seconds']:.1f} s "
                   f"({summary['deals_per_second']:,.0f} deals/s).")
    rows = bid_table(out, by=["trumps=0..2,3,4,5..", "jack", "nine"], kinds=["H"],
                     levels=[8, 9, 10])
    pivot: dict = {}
    for r in rows:
        key = (r["trumps"], r["jack"], r["nine"])
        cell = pivot.setdefault(key, {"trumps": r["trumps"], "J of trump": "JH" if r["jack"]
                                      == "1" else "-", "9 of trump": "9H" if r["nine"] == "1"
                                      else "-", "hands": f"{r['n']:,}"})
        cell[f"{r['bid']} makes %"] = f"{100 * r['p_make']:.0f}"
    emit_records(list(pivot.values()), Format.table,
                 title="Declarer's hand: how often 8, 9, 10 hearts make (double dummy, all four "
                 "seats as declarer)")
    typer.echo(f"Full bid table: bazarsim table bids {out} --by 'points=0..29,30..49,50..' "
               f"--kinds H\nWhich pays more: bazarsim table compare {out} 8H 9H --by trumps")
