"""Integer ranges as users write them: ``3``, ``0..29``, ``0-29``, ``50..``, ``50-``, ``..9``.

One parser serves every option that takes classes or ranges (``--by`` and ``--within``
buckets, the report's ``--heat-x``/``--heat-y``/``--classes``, ``--levels``, the ranges of
``--where``), so a range means the same everywhere. A dash between two numbers is read
as ``..`` (``0-29`` is ``0..29``) and a trailing dash as an open end (``4-`` is ``4..``):
the values ranged over (card points, card counts, levels) are never negative, so a dash
can only mean a range. A leading dash (``-5``) is refused rather than guessed at: it
would read as a negative number to some and as ``..5`` to others.
"""

from __future__ import annotations

import re

from bazarsim.core.errors import BazarsimError

BIG = 1 << 30  # the open end of ``A..`` (and ``-BIG`` that of ``..B``)
SYNTAX = "A, A..B, A-B, A.., A- or ..B"
_RANGE = re.compile(r"^\s*(\d*)\s*(\.\.|-)?\s*(\d*)\s*$")


def parse_range(text: str, where: str = "range") -> tuple[int, int]:
    """``(lo, hi)`` inclusive, ``BIG`` / ``-BIG`` for an open end; otherwise one error line
    starting with ``where`` (e.g. ``"--by 'points=0-29'"``) naming ``text`` and the syntax."""
    token = text.strip()
    m = _RANGE.match(text)
    if (not m or not (m.group(1) or m.group(3)) or (m.group(2) == "-" and not m.group(1))
            or (not m.group(2) and m.group(3))):
        raise BazarsimError(f"{where}: {token!r} is not a range (use {SYNTAX}; whole numbers, "
                            "never negative)", token)
    a, sep, b = m.groups()
    lo = int(a) if a else -BIG
    hi = (int(b) if b else BIG) if sep else lo
    if hi < lo:
        raise BazarsimError(f"{where}: {token!r} is an empty range ({lo} > {hi})", token)
    return lo, hi


def parse_levels(value, option: str = "--levels") -> list[int] | None:
    """Bid levels as users write them: ``8..12`` (or ``8-12``), ``8,9,10``, both ends of a
    range given; or a list of whole numbers. ``None`` (the default levels) when empty."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, list):
        out = []
        for v in value:
            if isinstance(v, bool) or not str(v).strip().isdigit():
                raise BazarsimError(f"bad {option} {value!r}: {v!r} is not a level")
            out.append(int(str(v).strip()))
        return out
    text = str(value)
    out = []
    for part in text.replace(" ", "").split(","):
        lo, hi = parse_range(part, f"bad {option} {text!r}")
        if lo < 0 or hi >= BIG:
            raise BazarsimError(f"bad {option} {text!r}: give both ends of {part!r}, e.g. 8..12 "
                                "or 8,9,10", part)
        out += list(range(lo, hi + 1))
    return out
