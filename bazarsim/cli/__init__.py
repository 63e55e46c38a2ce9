"""The ``bazarsim`` command line: a thin skin over the Python API.

Each command group lives in its own module and registers itself on :data:`app`.
User mistakes (:class:`~bazarsim.core.errors.BazarsimError`) are printed on one line to
stderr with exit code 2, never as a traceback.
"""

from __future__ import annotations

from bazarsim.cli.common import app

# Command modules register themselves on import, in the order --help lists them.
from bazarsim.cli import rules_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import eval_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import odds_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import deal_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import simulate_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import table_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import analyze_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import study_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import report_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import solve_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import play_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import match_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import auction_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import infer_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import score_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import verify_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import demo_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import serve_cmd  # noqa: E402,F401  isort: skip
from bazarsim.cli import compile_cmd  # noqa: E402,F401  isort: skip


def main(argv: list[str] | None = None) -> None:
    """Entry point of the console script and of ``python -m bazarsim``."""
    app(args=argv, prog_name="bazarsim")


__all__ = ["app", "main"]
