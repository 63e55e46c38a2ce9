"""A task: one kind of question the app answers, split where the app's processes are.

``check`` runs in the server, on the request: it turns the form's fields into the
parameters of the work (plain JSON values) or raises :class:`BazarsimError` with the
message the page shows (a 400). It must be quick and call no parallel kernel. ``run``
runs in a worker process of the pool, never in the server: it does the work, reports
progress, and returns the result (plain JSON values; ``html`` is the fragment the page
shows, built with the report pages' blocks so that it reads as the static pages do).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bazarsim.core.errors import BazarsimError

# progress(share, what[, partial]): share of the work done (0..1, or None when unknown), a
# few words on what is being done, and optionally a part of the result the page can show
# already (e.g. the table while the figures are drawn); the worker sends it to the page
Progress = Callable[..., None]


@dataclass(frozen=True)
class Task:
    """One kind of question: ``check(fields, data_root) -> params`` in the server and
    ``run(params, progress) -> result`` in a worker."""

    name: str
    check: Callable[[dict[str, Any], Path | None], dict[str, Any]]
    run: Callable[[dict[str, Any], Progress], dict[str, Any]]


def field(fields: dict[str, Any], key: str, default: Any = None) -> Any:
    """A form field, stripped when text; ``default`` when absent or blank."""
    v = fields.get(key, default)
    if isinstance(v, str):
        v = v.strip()
        return default if v == "" else v
    return default if v is None else v



def whole_number(value: Any, name: str, low: int | None = None, high: int | None = None) -> int:
    """A form's whole number (``1_000`` and ``1,000`` read as 1000), within ``low`` ..
    ``high`` where given; one clear error otherwise."""
    try:
        n = int(str(value).strip().replace("_", "").replace(",", ""))
    except ValueError:
        raise BazarsimError(f"{name} {str(value)!r}: give a whole number") from None
    if (low is not None and n < low) or (high is not None and n > high):
        span = " .. ".join("" if b is None else f"{b:,}" for b in (low, high)).strip()
        raise BazarsimError(f"{name} {n:,}: give {span}")
    return n
