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
