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

from bazarsim.cli.common import DEFAULT_RULESET, Format, command, print_frequency_table
from bazarsim.cli.progress import deal_progress
from bazarsim.core.errors import BazarsimError
from bazarsim.engine.simulation import Simulation
from bazarsim.rules.rulesets import get_ruleset
from bazarsim.store.parts import read_manifest

DEMO_DEALS = 3_000_000
DEMO_SEED = 2026


@command("demo")
def demo_command(
    deals: Annotated[int, typer.Option("--deals", "-n", help="Deals to simulate.")] = DEMO_DEALS,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed.")] = DEMO_SEED,
    out: Annotated[Path | None, typer.Option("--out", help="Dataset directory "
                                             "(default runs/demo-<seed>-<deals>).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run the default job: simulate deals to Parquet, then print the frequency table."""
    out = out or Path("runs") / f"demo-{seed}-{deals}"
    rs = get_ruleset(DEFAULT_RULESET)
    typer.echo(f"Simulating {deals:,} deals (seed {seed}, ruleset {DEFAULT_RULESET}, all "
               f"contract kinds) into {out}/ ...")
    sim = Simulation(deals=deals, seed=seed, ruleset=rs)
    if out.exists() and out.name.startswith("demo-"):
        try:
            old = read_manifest(out)
        except BazarsimError:
            old = None
        if old != sim.params():  # an older demo (other version or options): start afresh
            typer.echo(f"Replacing {out}/: it holds an older demo dataset.")
            shutil.rmtree(out)
    with deal_progress(quiet, "simulate") as update:
        summary = sim.run(out, progress=update)
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
