"""The repository stands alone: no tracked file points to documents a user of it does not
have (the rules' source files, notes beside the checkout), and docs/rules.md names every
ruleset and every option the code knows.

The forbidden strings are written in pieces below, so that this file does not match them.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from bazarsim.rules.rulesets import RULESETS

ROOT = Path(__file__).resolve().parent.parent
RULES_PAGE = ROOT / "docs" / "rules.md"

# Pointers outside the repository: the directory beside the checkout that held the rules'
# sources and notes, the rule book that lived there, its source files by name.
OUTSIDE = re.compile(
    "|".join((
        re.escape("../" "shared"),
        re.escape("shared/" "seeds"),
        re.escape("shared/" "notes"),
        re.escape("RULES" ".md"),
        r"\b\d{3}_[0-9a-f]{16}\.txt\b",  # a source file's name
        re.escape("/work/" "shared"),
    ))
)
# Sources by number ("seed 003", "source 001", "000's", "(000, 001)") in the pages a user
# reads; the docs name each source by what it is.
BY_NUMBER = re.compile(r"\b(?:seeds?|sources?) 00\d\b|\b00\d's\b|\(00\d(?:, 00\d)*\)")

TEXT_SUFFIXES = {".py", ".md", ".toml", ".yml", ".yaml", ".txt", ".json", ".jsonl", ".html",
                 ".cfg", ".ini", ".sh", ".in"}
TEXT_NAMES = {"Makefile", ".gitignore"}


def tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = []
    for name in filter(None, out.split("\0")):
        path = ROOT / name
        if (path.suffix in TEXT_SUFFIXES or path.name in TEXT_NAMES
                or name.startswith(".ci/")) and path.is_file():
            files.append(path)
    return files


def hits(pattern: re.Pattern, paths) -> list[str]:
    out = []
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append(f"{path.relative_to(ROOT)}:{line}: {m.group(0)}")
    return out


def test_no_tracked_file_points_outside_the_repository():
    files = tracked_text_files()
    assert len(files) > 100
    assert hits(OUTSIDE, files) == []


def test_the_docs_name_sources_by_what_they_are():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "reports").glob("*.md"))]
    assert hits(BY_NUMBER, pages) == []


def test_what_bazarsim_rules_prints_points_nowhere_outside():
    """Descriptions, sources and option docs and notes: all `bazarsim rules` prints."""
    for rs in RULESETS.values():
        texts = [rs.description, *rs.sources]
        for o in rs.option_docs():
            texts += [o["doc"], o["note"]]
        for text in texts:
            assert not OUTSIDE.search(text), (rs.name, text)
        assert all(not re.fullmatch(r"\d{3}", s) for s in rs.sources), rs.sources


def test_the_rules_page_names_every_ruleset_and_option():
    text = RULES_PAGE.read_text(encoding="utf-8")
    missing = [name for name in RULESETS if f"`{name}`" not in text]
    options = {o for rs in RULESETS.values() for o in rs.options()}
    missing += sorted(o for o in options if f"`{o}`" not in text)
    assert missing == []


def test_the_checks_can_fail(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("see ../" "shared/" "RULES" ".md, seed 00" "3 and 00" "1's words\n")
    text = page.read_text()
    assert len(OUTSIDE.findall(text)) == 2 and len(BY_NUMBER.findall(text)) == 2
