"""SIGINT, SIGTERM and SIGHUP end a build, always, and cleanly.

The handler raises `Interrupted` in the main thread, so every `finally` on the way
out runs: child processes are terminated, the temporary directory is removed and
nothing is published; the exit status is 128+N, as a shell reports death by
signal N.

Python drops an exception raised while a finalizer, a weakref callback or a ctypes
callback runs (it only hands it to `sys.unraisablehook`): a signal arriving at that
moment would be lost and the build would finish with exit status 0. The hook
installed here sees the dropped `Interrupted` and has the handler raise it again
at the next opportunity. A second signal while the build unwinds is not raised, so
the cleanup itself is never cut short.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
from types import FrameType, TracebackType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(BaseException):
    """A signal ended the build (a BaseException: `except Exception` lets it pass)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class InterruptGuard:
    """While active (a `with` block in the main thread), signals raise `Interrupted`."""

    def __init__(self) -> None:
        self.signum: int | None = None
        """The first signal received, if any."""
        self._raise_again = False
        self._previous_handlers: dict[int, Any] = {}
        self._previous_hook = sys.unraisablehook

    def __enter__(self) -> InterruptGuard:
        if threading.current_thread() is threading.main_thread():
            self._previous_handlers = {s: signal.signal(s, self._handle) for s in SIGNALS}
        self._previous_hook = sys.unraisablehook
        sys.unraisablehook = self._unraisable
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for signum, handler in self._previous_handlers.items():
            signal.signal(signum, handler)
        sys.unraisablehook = self._previous_hook

    def check(self) -> None:
        """Raise `Interrupted` if a signal has arrived (before an irreversible step)."""
        if self.signum is not None:
            raise Interrupted(self.signum)

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum
        elif not self._raise_again:
            return  # already unwinding: let the cleanup finish
        self._raise_again = False
        raise Interrupted(self.signum)

    def _unraisable(self, info: Any) -> None:
        if isinstance(info.exc_value, Interrupted) and self.signum is not None:
            # Raised inside a finalizer or callback and dropped there: raise it again
            # in the main thread, as soon as the interpreter checks for signals.
            self._raise_again = True
            _thread.interrupt_main(self.signum)
            return
        self._previous_hook(info)
