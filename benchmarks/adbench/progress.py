"""A one-line progress display on stderr: `[12/96] gmm 1k/d10_K25 enzcc`.

On a terminal the line is rewritten in place; elsewhere (logs, CI) each step
is its own line, so the record stays readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Counts steps towards `total` and shows the current one."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.inplace = self.stream.isatty()
        self.start = time.monotonic()
        self._width = 0

    def step(self, label: str) -> None:
        """Announces the next step (call before doing it)."""
        self.done += 1
        elapsed = time.monotonic() - self.start
        line = f"[{self.done}/{self.total}] {label}  ({elapsed:.0f} s)"
        if self.inplace:
            pad = max(0, self._width - len(line))
            self.stream.write("\r" + line + " " * pad)
            self._width = len(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def note(self, message: str) -> None:
        """Prints a message on its own line without losing the progress line."""
        if self.inplace and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self._width = 0
        self.stream.write(message + "\n")
        self.stream.flush()

    def finish(self) -> None:
        """Ends the progress line."""
        if self.inplace and self._width:
            self.stream.write("\n")
            self._width = 0
        self.stream.flush()
