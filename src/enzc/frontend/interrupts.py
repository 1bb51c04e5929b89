"""SIGINT, SIGTERM and SIGHUP end a build, always, and cleanly.

The handler raises `Interrupted` in the main thread, so every `finally` on the way
out runs: child processes are terminated, the temporary directory is removed and
nothing is published; the exit status is 128+N, as a shell reports death by
signal N.

Python drops an exception raised while a finalizer, a weakref callback or a ctypes
callback runs (it only hands it to `sys.unraisablehook`): a signal arriving at that
moment would be lost and the build would finish with exit status 0. The hook
installed here sees the dropped `Interrupted`, and a helper thread then has the
handler raise it again (`_thread.interrupt_main`) until it propagates. A second
signal while the build unwinds is not raised, so the cleanup itself is never cut
short.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
import time
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
        self._raise_again = threading.Event()
        """Set while a dropped `Interrupted` waits to be raised again."""
        self._in_hook = False
        self._active = False
        self._previous_handlers: dict[int, Any] = {}
        self._previous_hook = sys.unraisablehook

    def __enter__(self) -> InterruptGuard:
        if threading.current_thread() is threading.main_thread():
            self._previous_handlers = {s: signal.signal(s, self._handle) for s in SIGNALS}
        self._previous_hook = sys.unraisablehook
        sys.unraisablehook = self._unraisable
        self._active = True
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._active = False
        self._raise_again.clear()
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
        elif not self._raise_again.is_set() or self._in_hook:
            return  # unwinding already (let the cleanup finish), or too early to raise
        self._raise_again.clear()
        raise Interrupted(self.signum)

    def _unraisable(self, info: Any) -> None:
        if not (isinstance(info.exc_value, Interrupted) and self._active):
            self._previous_hook(info)
            return
        self._in_hook = True
        try:
            if not self._raise_again.is_set():
                self._raise_again.set()
                threading.Thread(target=self._interrupt_until_raised, daemon=True).start()
        finally:
            self._in_hook = False

    def _interrupt_until_raised(self) -> None:
        """Make the main thread run the handler until it has raised again."""
        while self._raise_again.is_set() and self._active and self.signum is not None:
            _thread.interrupt_main(self.signum)
            time.sleep(0.01)
