"""Frequency tables in their reading form: percent columns and a title saying what was
pooled (raw rates stay in JSON and CSV)."""

from __future__ import annotations

from bazarsim.report.records import Format


def frequency_title(directory: str, confidence: float) -> str:
    return (f"Frequencies in {directory} ({100 * confidence:g}% Wilson intervals; hand "
            "features pool the four seats, trump = hearts)")


def frequency_records(rows: list[dict], fmt: Format, confidence: float = 0.95) -> list[dict]:
    """Percent columns for reading (table, md); raw rates stay in json/csv."""
    if fmt not in (Format.table, Format.md):
        return rows
    out = []
    for r in rows:
        p = r["exact"]
        row = {k: v for k, v in r.items() if k not in (
            "scope", "feature", "count", "n", "rate", "lo", "hi", "exact", "z", "note")}
        row.update({
            "scope": r["scope"],
            "feature": r["feature"],
            "count": f"{r['count']:,}",
            "of": f"{r['n']:,}",
            "rate %": f"{100 * r['rate']:.4f}",
            f"{100 * confidence:g}% interval %": f"{100 * r['lo']:.4f} .. {100 * r['hi']:.4f}",
            "exact %": "" if p is None else f"{100 * p:.4f}",
            "z": "" if r["z"] is None else f"{r['z']:+.2f}",
            "note": r["note"],
        })
        out.append(row)
    return out


SCOPE_UNITS = {"hand": "hands", "side": "sides (NS+EW pooled)", "table": "deals"}


def frequency_sections(rows: list[dict], by: str | None, confidence: float = 0.95
                       ) -> list[tuple[str, list[dict], list[str]]]:
    """The terminal's frequency table in sections ``(title, records, notes)``, one per
    group of ``--by`` and scope (hand, side, table), so that the group, the scope and the
    count of hands it is out of are said once and the table fits 80 columns; each note
    is said once below its section with the features it applies to."""
    out = []
    keys = dict.fromkeys((r[by] if by else None, r["scope"]) for r in rows)
    for group, scope in keys:
        part = [r for r in rows if (r[by] if by else None) == group and r["scope"] == scope]
        title = f"{scope}: {part[0]['n']:,} {SCOPE_UNITS.get(scope, '')}".rstrip()
        if by:
            title = f"{by} {group}, {title}"
        records = [{k: v for k, v in rec.items() if k not in (by, "scope", "of", "note")}
                   for rec in frequency_records(part, Format.table, confidence)]
        notes = {}
        for r in part:
            if r["note"]:
                notes.setdefault(r["note"], []).append(r["feature"])
        out.append((title, records, [f"{note} ({', '.join(feats)})"
                                     for note, feats in notes.items()]))
    return out
