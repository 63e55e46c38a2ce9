"""The README and ``docs/`` cannot drift from the code: every relative link resolves, and
every ``bazarsim`` command and option they name exists, read from the CLI itself."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer.main

from bazarsim.cli import app
from bazarsim.cli.common import ALIASES

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+)`")
OPTION = re.compile(r"(?<![\w./-])(--?[A-Za-z][\w-]*)")

ROOT_COMMAND = typer.main.get_command(app)


def commands(group=ROOT_COMMAND, path=()) -> dict:
    """Every command path -> its click command (groups included)."""
    out = {path: group}
    if hasattr(group, "commands"):  # a group (typer's own click: duck-typed)
        for name, cmd in group.commands.items():
            out.update(commands(cmd, (*path, name)))
    return out


COMMANDS = commands()
ALL_OPTIONS = {o for cmd in COMMANDS.values() for p in cmd.params
               for o in (*getattr(p, "opts", ()), *getattr(p, "secondary_opts", ()))}
ALL_OPTIONS |= {"--help", "-h", "--version", "-V", *ALIASES}
# Options of other programs the docs name in passing (none at present).
FOREIGN: set[str] = set()


def options_of(cmd) -> set[str]:
    names = {o for p in cmd.params for o in (*p.opts, *getattr(p, "secondary_opts", ()))}
    return names | {"--help", "-h"} | {a for a, new in ALIASES.items() if new in names}


def resolve(tokens: list[str]) -> tuple[tuple, list[str]]:
    """The command path a command line names, and the rest of its tokens."""
    path: tuple = ()
    rest = list(tokens)
    while rest and (*path, rest[0]) in COMMANDS:
        path = (*path, rest.pop(0))
    return path, rest


def prose(text: str) -> str:
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """The anchor Markdown (mkdocs' toc, GitHub) gives a heading."""
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"\s+", "-", text)


def anchors(path: Path) -> set[str]:
    text = prose(path.read_text(encoding="utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc):
    text = prose(doc.read_text(encoding="utf-8"))
    bad = []
    for target in LINK.findall(text) + IMAGE.findall(text):
        if re.match(r"^[a-z]+:", target):  # http:, mailto: ...
            continue
        file, _, anchor = target.partition("#")
        dest = (doc.parent / file).resolve() if file else doc
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no heading #{anchor}")
    assert bad == [], f"{doc.name}: {bad}"


def named_command_lines(text: str) -> list[str]:
    """``$ bazarsim ...`` lines of console blocks, and code spans that start with
    ``bazarsim`` or with a command's name followed by an option."""
    lines = []
    for block in FENCE.findall(text):
        pending = ""
        for line in block.splitlines():
            if pending or line.startswith("$ bazarsim"):
                body = pending + (line[2:] if not pending else line)
                if body.rstrip().endswith("\\"):
                    pending = body.rstrip()[:-1] + " "
                    continue
                pending = ""
                lines.append(body)
    for span in SPAN.findall(prose(text)):
        words = span.split()
        if words and words[0] == "bazarsim":
            lines.append(span)
        elif words and (words[0],) in COMMANDS and len(words) > 1 and (
                words[1].startswith("-") or (words[0], words[1]) in COMMANDS):
            lines.append("bazarsim " + span)
    return lines


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_and_option_named_exists(doc):
    text = doc.read_text(encoding="utf-8")
    bad = []
    for line in named_command_lines(text):
        try:
            tokens = shlex.split(line, comments=True)[1:]
        except ValueError:
            tokens = line.split()[1:]
        path, rest = resolve(tokens)
        if not path and rest and not rest[0].startswith("-"):
            bad.append(f"{line!r}: no command {rest[0]!r}")
            continue
        known = options_of(COMMANDS[path])
        if not path:
            known |= {"--version", "-V"}
        for tok in rest:
            name = tok.split("=", 1)[0]
            if OPTION.fullmatch(name) and name not in known:
                bad.append(f"{line!r}: {' '.join(path) or 'bazarsim'} has no {name}")
    # options named alone in the prose (`--by`, `--ruleset/-r NAME`) exist in some command
    for span in SPAN.findall(prose(text)):
        if span.startswith("-"):
            for name in OPTION.findall(span.replace("/", " ")):
                if name not in ALL_OPTIONS | FOREIGN:
                    bad.append(f"`{span}`: no command has {name}")
    assert bad == [], f"{doc.name}: {bad}"


def test_the_checks_can_fail(tmp_path):
    """A misspelt option, an unknown command and a dead link are found."""
    assert resolve(["table", "bids", "x"]) == (("table", "bids"), ["x"])
    assert "--kinds" in options_of(COMMANDS[("table", "bids")])
    assert "--kindz" not in options_of(COMMANDS[("table", "bids")])
    lines = named_command_lines("run `bazarsim tabel bids` or\n```console\n"
                                "$ bazarsim table bids DIR --kindz H\n```\n")
    assert len(lines) == 2
    doc = tmp_path / "page.md"
    doc.write_text("[x](nowhere.md) `--no-such-option`\n")
    with pytest.raises(AssertionError, match="no such file"):
        test_every_relative_link_resolves(doc)
    with pytest.raises(AssertionError, match="no command has --no-such-option"):
        test_every_command_and_option_named_exists(doc)
