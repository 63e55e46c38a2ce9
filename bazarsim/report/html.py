"""One self-contained HTML page: sections of text, inline SVG figures and tables.

No script and no network at view time: the styles are inline, the figures are SVG
elements inside the page. The page is readable on a phone (figures scale to the screen,
wide tables scroll sideways) and prints on A4 (figures and table rows are not split across
pages, the navigation is dropped). Every table cell keeps the raw number it shows in a
``data-v`` attribute (the same value the command's JSON output gives), and every table
that some other command also prints names that command in ``data-command`` and on the
page, so a reader (or a test) can get the same numbers again. The page, and the CSV files
of ``--csv``, are written to a temporary file in the target's directory and renamed: a
failed build never leaves a half-written file.
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bazarsim.core.errors import BazarsimError
from bazarsim.report.records import plural
from bazarsim.store.parts import atomic_write_bytes

CSS = """
:root { --ink: #1a1a1a; --muted: #5a5a5a; --line: #d0d0d0; --band: #f4f6f8; }
* { box-sizing: border-box; }
body { font-family: -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); margin: 0 auto; max-width: 60rem; padding: 1rem; line-height: 1.45;
  font-size: 16px; }
h1 { font-size: 1.6rem; margin: 0.2rem 0 0.4rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 0.5rem; border-bottom: 2px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.4rem 0 0.4rem; }
p, li { max-width: 48rem; }
.lead { color: var(--muted); }
nav ol { columns: 2; font-size: 0.9rem; }
figure { margin: 1rem 0; break-inside: avoid; page-break-inside: avoid; }
figure svg { width: 100%; height: auto; display: block; }
figcaption { font-size: 0.85rem; color: var(--muted); }
.scroll { overflow-x: auto; margin: 0.5rem 0 1rem; }
table { border-collapse: collapse; font-size: 0.85rem; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border-bottom: 1px solid var(--line); padding: 0.2rem 0.5rem; text-align: right;
  white-space: nowrap; }
th { background: var(--band); position: sticky; top: 0; white-space: normal;
  vertical-align: bottom; }
td.t, th.t { text-align: left; }
tr.best td { font-weight: 700; background: #eaf5ea; }
tr { break-inside: avoid; page-break-inside: avoid; }
.missing { border-left: 4px solid #D55E00; background: #fdf1e9; padding: 0.5rem 0.8rem; }
.note { font-size: 0.85rem; color: var(--muted); }
code { font-size: 0.85rem; background: var(--band); padding: 0 0.2rem; word-break: break-all; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 0.1rem 1rem;
  font-size: 0.9rem; }
dl.meta dt { font-weight: 600; }
dl.meta dd { margin: 0; }
details { font-size: 0.85rem; }
@media (max-width: 40rem) { body { padding: 0.5rem; font-size: 15px; } nav ol { columns: 1; }
  dl.meta { grid-template-columns: 1fr; }
  figure { overflow-x: auto; } figure svg { min-width: 34rem; } }
@page { size: A4; margin: 14mm 12mm; }
@media print { body { max-width: none; padding: 0; font-size: 10pt; } nav { display: none; }
  h2 { break-after: avoid; page-break-after: avoid; } .scroll { overflow: visible; }
  table { font-size: 7.5pt; } th { position: static; } a { color: inherit; }
  figure svg { max-height: 24cm; } }
"""


@dataclass(frozen=True)
class Column:
    """A table column: the record's key, its heading, and how a value is shown."""

    key: str
    label: str
    show: Callable[[Any], str] = str
    text: bool = False  # left-aligned (labels), not a number


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def pct(digits: int = 1) -> Callable[[Any], str]:
    return lambda v: "" if _missing(v) else f"{100 * v:.{digits}f}"


def num(digits: int = 1, sign: bool = False) -> Callable[[Any], str]:
    spec = f"{'+' if sign else ''},.{digits}f"
    return lambda v: "" if _missing(v) else format(v, spec)


def count(v: Any) -> str:
    return "" if _missing(v) else f"{int(v):,}"


def text(v: Any) -> str:
    if _missing(v):
        return ""
    if isinstance(v, bool):
        return "yes" if v else ""
    return str(v)


def raw(v: Any) -> str:
    """The exact value of a cell (``data-v``): repr of a float round-trips."""
    if _missing(v):
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if hasattr(v, "item"):
        v = v.item()
    return repr(v) if isinstance(v, float) else str(v)


@dataclass
class Page:
    """A report page under construction: blocks of HTML in order, with a table of
    contents of its sections."""

    title: str
    lead: str = ""
    blocks: list[str] = field(default_factory=list)
    sections: list[tuple[str, str]] = field(default_factory=list)
    tables: dict[str, tuple[list[Column], list[dict]]] = field(default_factory=dict)
    figures: int = 0
    missing: list[str] = field(default_factory=list)

    def section(self, anchor: str, heading: str, intro: str = "") -> None:
        self.sections.append((anchor, heading))
        self.blocks.append(f'<h2 id="{anchor}">{html.escape(heading)}</h2>')
        if intro:
            self.paragraph(intro)

    def heading(self, heading: str) -> None:
        self.blocks.append(f"<h3>{html.escape(heading)}</h3>")

    def paragraph(self, body: str, cls: str = "", markup: bool = False) -> None:
        inner = body if markup else html.escape(body)
        self.blocks.append(f'<p{f" class={cls!r}" if cls else ""}>{inner}</p>')

    def command(self, label: str, argv: list[str]) -> None:
        self.blocks.append(f'<p class="note">{html.escape(label)} <code>'
                           f'{html.escape(shell_line(argv))}</code></p>')

    def meta(self, items: list[tuple[str, str]]) -> None:
        rows = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in items)
        self.blocks.append(f'<dl class="meta">{rows}</dl>')

    def details(self, summary: str, items: list[tuple[str, str]]) -> None:
        rows = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in items)
        self.blocks.append(f"<details><summary>{html.escape(summary)}</summary>"
                           f'<dl class="meta">{rows}</dl></details>')

    def figure(self, fig_id: str, svg: str, caption: str) -> None:
        self.figures += 1
        self.blocks.append(f'<figure class="fig" id="fig-{fig_id}" data-figure="{fig_id}">'
                           f"{svg}<figcaption>Figure {self.figures}. {html.escape(caption)}"
                           "</figcaption></figure>")

    def gap(self, what: str, why: str) -> None:
        """A section that could not be drawn, and why (the rest of the page stands)."""
        self.missing.append(what)
        self.blocks.append(f'<div class="missing" data-missing="{html.escape(what)}"><strong>'
                           f"{html.escape(what)}: not shown.</strong> {html.escape(why)}</div>")

    def table(self, table_id: str, caption: str, columns: list[Column], rows: list[dict],
              argv: list[str] | None = None, best: str | None = None) -> None:
        """A table of ``rows`` (records); ``argv``: the command whose JSON output holds the
        same records in the same order; ``best``: the boolean key marking a row to bold."""
        if table_id in self.tables:
            raise ValueError(f"table id {table_id} twice")
        self.tables[table_id] = (columns, rows)
        cmd = f' data-command="{html.escape(shell_line(argv))}"' if argv else ""
        head = "".join(f'<th{" class=t" if c.text else ""} data-key="{html.escape(c.key)}">'
                       f"{html.escape(c.label)}</th>" for c in columns)
        body = []
        for r in rows:
            cls = ' class="best"' if best and r.get(best) else ""
            cells = "".join(
                f'<td{" class=t" if c.text else ""} data-v="{html.escape(raw(r.get(c.key)))}">'
                f"{html.escape(c.show(r.get(c.key)))}</td>" for c in columns)
            body.append(f"<tr{cls}>{cells}</tr>")
        self.blocks.append(
            f'<div class="scroll"><table id="t-{table_id}" data-table="{table_id}"{cmd}>'
            f"<caption>{html.escape(caption)} ({plural(len(rows), 'row')})</caption><thead><tr>"
            f"{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")
        if argv:
            self.command("Same numbers (JSON):", argv)

    def fragment(self) -> str:
        """The page's body without its document: the app shows it inside its own page
        (which carries :data:`CSS`)."""
        return "\n".join(self.blocks)

    def render(self, generator: str) -> str:
        nav = "".join(f'<li><a href="#{a}">{html.escape(h)}</a></li>' for a, h in self.sections)
        when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        return (
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="generator" content="{html.escape(generator)}">'
            f'<meta name="bazarsim-figures" content="{self.figures}">'
            f"<title>{html.escape(self.title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{html.escape(self.title)}</h1>"
            + (f'<p class="lead">{html.escape(self.lead)}</p>' if self.lead else "")
            + f'<p class="note">Built {when} by {html.escape(generator)}. One file: no '
            "script, no network; prints on A4.</p></header>"
            + (f"<nav><ol>{nav}</ol></nav>" if len(self.sections) > 2 else "")
            + "<main>" + "\n".join(self.blocks) + "</main></body></html>\n")


def shell_line(argv: list[str]) -> str:
    import shlex

    return " ".join(shlex.quote(a) for a in argv)


def table_csv(columns: list[Column], rows: list[dict]) -> str:
    """A table as CSV: its raw values (the page shows them rounded)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([c.key for c in columns])
    for r in rows:
        w.writerow([raw(r.get(c.key)) for c in columns])
    return buf.getvalue()


def check_target(path: str | Path) -> Path:
    """Refuse, before any work, a page name that could not be written."""
    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        raise BazarsimError(f"{str(path)!r}: give the page a .html name", str(path))
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise BazarsimError(f"cannot write {str(path)!r}: no directory {str(directory)!r}",
                            str(path))
    if path.is_dir():
        raise BazarsimError(f"cannot write {str(path)!r}: it is a directory", str(path))
    return path


def write_page(page: Page, path: str | Path, generator: str, data: bool = False) -> list[Path]:
    """Write the page (and with ``data`` one CSV per table beside it, ``NAME.TABLE.csv``);
    the files written, the page last."""
    path = check_target(path)
    text_ = page.render(generator)
    written = []
    if data:
        for table_id, (columns, rows) in page.tables.items():
            out = path.with_name(f"{path.stem}.{table_id}.csv")
            atomic_write_bytes(out, table_csv(columns, rows).encode("utf-8"))
            written.append(out)
    atomic_write_bytes(path, text_.encode("utf-8"))
    written.append(path)
    return written
