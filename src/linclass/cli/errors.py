"""The command's own kind of error: a mistake on the command line."""

from __future__ import annotations

__all__ = ["UsageError"]


class UsageError(Exception):
    """A mistake on the command line (an unknown parameter, options that do not go together):
    :func:`linclass.cli.main` prints it as one line and exits with status 2."""
