"""Every console example of the README and ``docs/`` runs, and prints what it shows.

Each ``$ bazarsim ...`` line of a ``console`` block is run in document order, in one
scratch directory (so ``runs/dd7`` made by one example is read by the next), in this
process through the Typer app. Sizes are scaled down by one setting, :data:`MAX_DEALS`
(:data:`MAX_SD_DEALS` where the deals are played out with hidden cards, 10 times the
work a deal): every ``-n``/``--deals`` above it is cut to it, and given where an example
leaves it at its default (``--workers`` is cut to :data:`MAX_WORKERS`), so
the examples check what they print, not the figures a full-size run gives.

What an example shows is checked against what it prints now:

* a Markdown table: the shown header's cells (``...`` marks columns left out) appear in
  the printed header in the same order; a shown row has as many cells as a printed row;
* a terminal table: every word of the shown header is in the printed one (or, where
  the width makes it unboxed, in the printed text);
* JSON: every key shown is a key of the printed records;
* a line ``label: value``: the label is printed.

Examples that cannot run here are listed in :data:`NOT_RUN` with the reason (a cluster
on other hosts, a placeholder ``...`` for options shown elsewhere).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bazarsim.cli import app

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
MAX_DEALS = 300  # the one setting that scales every example down
MAX_SD_DEALS = 60  # and the examples that play deals out with hidden cards (--sd, --play sd)
MAX_WORKERS = 2
MAX_PAIRS = 10  # match pairs of `match` and `equity` examples
# Input files the examples name, as a reader would have them.
INPUT_FILES = {
    "positions.txt": "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97 H E\n"
                     "N:J97.T8..QT8 AKQ..AQT8.A .AKQ.KJ97.K T8.J97..J97 BK S\n",
}


def _not_run(args: list[str]) -> str | None:
    """Why an example cannot run here (None: it runs)."""
    if args[:1] == ["serve"]:
        return "starts a server that runs until stopped (tests/test_app.py starts one)"
    if "..." in args:
        return "a placeholder: '...' stands for options shown in another example"
    if "--scheduler" in args:
        return "needs a Dask scheduler on other hosts (tests/test_dask.py runs one here)"
    if any(a.startswith(("s3://", "/mnt/nfs/")) for a in args):
        return "writes to storage of other hosts"
    return None


@dataclass
class Example:
    """One ``$ bazarsim`` line of a console block and the output shown under it."""

    where: str  # file:line
    args: list[str]
    shown: list[str] = field(default_factory=list)


def examples(path: Path) -> list[Example]:
    out: list[Example] = []
    in_console, pending = False, ""
    current: Example | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            in_console = line.strip() == "```console" and not in_console
            current = None
            continue
        if not in_console:
            continue
        if pending or line.startswith("$ "):
            text = pending + (line[2:] if line.startswith("$ ") and not pending else line)
            if text.rstrip().endswith("\\"):
                pending = text.rstrip()[:-1] + " "
                continue
            pending = ""
            args = shlex.split(text, comments=True)
            current = None
            if args and args[0] == "bazarsim":
                current = Example(f"{path.relative_to(ROOT)}:{number}", args[1:])
                out.append(current)
        elif current is not None:
            current.shown.append(line)
    return out


# Commands whose size has a default (so an example may not give it): the option setting it.
SIZE_OPTIONS = {"analyze": "-n"}


def scaled(args: list[str]) -> list[str]:
    out = list(args)
    most = MAX_SD_DEALS if "--sd" in out or "--play sd" in " ".join(out) else MAX_DEALS
    size = SIZE_OPTIONS.get(out[0])
    if size and size not in out and "--deals" not in out:
        out += [size, str(most)]
    for i, a in enumerate(out[:-1]):
        if a in ("-n", "--deals") and int(out[i + 1]) > most:
            out[i + 1] = str(most)
        if a in ("-m", "--matches") and int(out[i + 1]) > MAX_PAIRS:
            out[i + 1] = str(MAX_PAIRS)
        if a == "--workers" and int(out[i + 1]) > MAX_WORKERS:
            out[i + 1] = str(MAX_WORKERS)
    return out


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def check_shown(ex: Example, printed: str) -> None:
    """The columns, keys and labels the example shows are in what it printed."""
    shown = [s for s in ex.shown if s.strip()]
    if not shown:
        return
    where = f"{ex.where} (bazarsim {' '.join(ex.args)})"
    if shown[0].lstrip().startswith(("[", "{")):  # JSON
        keys = set(re.findall(r'"(\w+)":', "\n".join(shown)))
        printed_keys = set(re.findall(r'"(\w+)":', printed))
        assert keys <= printed_keys, f"{where}: JSON keys {keys - printed_keys} not printed"
        return
    md_rows = [_cells(p) for p in printed.splitlines() if p.startswith("|")]
    printed_lines = printed.splitlines()
    headers = [_cells(p) for i, p in enumerate(printed_lines[:-1])
               if p.startswith("|") and printed_lines[i + 1].startswith("|-")]
    # a boxed header where the table is boxed; at a narrower width the table is printed
    # unboxed (or one block a row), and its header words are then anywhere in the text
    rich_header = " ".join(p for p in printed_lines if "┃" in p) or printed
    for line in shown:
        if line.startswith("|"):
            cells = _cells(line)
            if set(cells) <= {"---", ""} or all(set(c) <= set("-:") for c in cells):
                continue
            head = next((h for h in headers if h[0] == cells[0]), None)
            if head is not None:  # a header: its columns, in order
                want = [c for c in cells if c != "..."]
                it = iter(head)
                assert all(c in it for c in want), (
                    f"{where}: shown columns {want} not in the printed header {head}")
            elif "..." not in cells:  # a row: as many cells as the printed rows
                assert any(len(r) == len(cells) for r in md_rows), (
                    f"{where}: a shown row has {len(cells)} cells, no printed row has")
        elif "┃" in line:
            for word in line.replace("┃", " ").split():
                assert word in rich_header, (
                    f"{where}: header word {word!r} not in the printed table's header")
        else:
            m = re.match(r"^([A-Za-z][\w ,'()-]*?): ", line)
            if m and not line.startswith(("error", "Usage")):
                assert m.group(1) in printed, f"{where}: label {m.group(1)!r} not printed"


ALL = [ex for doc in DOCS for ex in examples(doc)]


def test_the_docs_have_console_examples():
    assert len(ALL) >= 30
    assert any(ex.args[:1] == ["simulate"] for ex in ALL)


def run_examples(tmp_path, monkeypatch, with_cluster: bool) -> list:
    """Run the examples in document order; those starting a Dask cluster (``--workers``)
    only ``with_cluster``. Returns the examples not run, with the reason."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    for name, text in INPUT_FILES.items():
        (tmp_path / name).write_text(text)
    runner = CliRunner()
    skipped = []
    for ex in ALL:
        why = _not_run(ex.args)
        if why is None and "--workers" in ex.args and not with_cluster:
            why = "starts a Dask cluster (40 s on 2 cores): make gate runs it"
        if why:
            skipped.append((ex.where, why))
            continue
        args = scaled(ex.args)
        r = runner.invoke(app, args, catch_exceptions=False)
        assert r.exit_code == 0, f"{ex.where}: bazarsim {shlex.join(args)}\n{r.output}"
        check_shown(ex, r.stdout)
    return skipped


def test_every_console_example_runs_and_prints_what_it_shows(tmp_path, monkeypatch):
    skipped = run_examples(tmp_path, monkeypatch, with_cluster=False)
    assert len(skipped) <= 5, skipped


@pytest.mark.gate
def test_every_console_example_runs_cluster_ones_too(tmp_path, monkeypatch):
    """With the examples that start a Dask cluster.

    Sample in make test: test_every_console_example_runs_and_prints_what_it_shows"""
    skipped = run_examples(tmp_path, monkeypatch, with_cluster=True)
    assert len(skipped) <= 4, skipped


def python_examples(path: Path) -> list[tuple[str, str]]:
    """The ``python`` blocks of a document: (file:line, code)."""
    text = path.read_text(encoding="utf-8")
    return [(f"{path.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}", m.group(1))
            for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)]


def test_python_examples_run_and_keep_out_of_the_command_line_examples_way(tmp_path,
                                                                           monkeypatch):
    """Each Python block runs as it stands (sizes cut to MAX_DEALS), and writes no dataset
    directory a console example writes: a reader running both gets both."""
    monkeypatch.chdir(tmp_path)
    cli_outs = {ex.args[ex.args.index("--out") + 1] for ex in ALL if "--out" in ex.args}
    blocks = [b for doc in DOCS for b in python_examples(doc)]
    assert blocks
    for where, code in blocks:
        written = set(re.findall(r'run_simulation\(.*?, "([^"]+)"\)', code))
        assert not written & cli_outs, f"{where}: the Python example writes {written & cli_outs}"
        small = re.sub(r"deals=([\d_]+)",
                       lambda m: f"deals={min(int(m.group(1).replace('_', '')), MAX_DEALS)}",
                       code)
        exec(compile(small, where, "exec"), {})
