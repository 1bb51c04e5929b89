"""Wall time per pipeline stage, for `--enzc-time`."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


class StageTimes:
    """Accumulates seconds per named stage; thread-safe (parallel jobs add up)."""

    def __init__(self) -> None:
        self._start = time.perf_counter()
        self._seconds: dict[str, float] = {}
        self._lock = threading.Lock()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the body of a `with` block as stage `name`."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)

    def add(self, name: str, seconds: float) -> None:
        with self._lock:
            self._seconds[name] = self._seconds.get(name, 0.0) + seconds

    def seconds(self) -> dict[str, float]:
        """Stage -> seconds, in the order stages first ran."""
        with self._lock:
            return dict(self._seconds)

    def report(self, out: TextIO, tool: str) -> None:
        """Print one line per stage and the total wall time."""
        total = time.perf_counter() - self._start
        out.write(f"{tool}: time per stage (s)\n")
        for name, seconds in self.seconds().items():
            out.write(f"{tool}:   {name:<10} {seconds:8.3f}\n")
        out.write(f"{tool}:   {'total':<10} {total:8.3f}\n")
