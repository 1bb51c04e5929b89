"""The one exception family enzc raises for user-facing problems.

Command-line entry points catch `EnzcError`, print `str(err)` to stderr and exit
non-zero; anything else escaping is a bug in enzc.
"""


class EnzcError(Exception):
    """A problem with the user's input or environment, with a message fit to print."""

    exit_code: int = 1
