"""The one exception type the IR parser raises for malformed input."""

from __future__ import annotations

from enzc.errors import EnzcError


class IRParseError(EnzcError):
    """Malformed IR at `filename:line:column` (both 1-based), printed clang-style."""

    def __init__(self, filename: str, line: int, column: int, message: str) -> None:
        self.filename = filename
        self.line = line
        self.column = column
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}: error: {self.message}"


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of `offset` in `text`."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column
