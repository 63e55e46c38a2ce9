"""One exception family for everything a user can get wrong.

The CLI catches :class:`BazarsimError` and prints its message on one line (exit 2);
the Python API lets it propagate. ``ValueError`` is the base so that callers who do not
know bazarsim still catch bad input the usual way.
"""

from __future__ import annotations


class BazarsimError(ValueError):
    """Bad input: the message names the offending token and says what is expected."""

    def __init__(self, message: str, token: str | None = None):
        super().__init__(message)
        self.token = token


class CardError(BazarsimError):
    """A card, hand, card list or deal string that cannot be parsed or is inconsistent."""


class RulesetError(BazarsimError):
    """Unknown ruleset, unknown option, or a contract kind the ruleset does not have."""
