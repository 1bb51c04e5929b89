"""`enzcc` and `enzc++`: entry points, exit statuses, no tracebacks.

Exit codes: clang's own on a clang failure (its diagnostics already printed),
1 for enzc's errors, 70 for an internal error, 128+N when a signal N (SIGINT,
SIGTERM, SIGHUP) ended the build. Nothing reaches the user as a traceback.

The signal handlers are installed before anything else is imported, so that even an
interrupt while enzcc starts up ends it cleanly (see `interrupts`).
"""

from __future__ import annotations

import signal
import sys

from enzc.errors import EnzcError
from enzc.frontend.interrupts import InterruptGuard, Interrupted

EXIT_INTERNAL = 70


def main_cc() -> None:
    """Console script `enzcc`."""
    _exit(run(sys.argv[1:], cxx=False))


def main_cxx() -> None:
    """Console script `enzc++`."""
    _exit(run(sys.argv[1:], cxx=True))


def _exit(code: int) -> None:
    """Exit with `code`; SIGINT from now on (the build is over) ends the process
    quietly, as SIGTERM does, instead of with a KeyboardInterrupt traceback."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(code)


def run(argv: list[str], cxx: bool) -> int:
    """Run one enzcc command line; return the exit status."""
    tool = "enzc++" if cxx else "enzcc"
    try:
        with InterruptGuard() as interrupts:
            from enzc.frontend.build import run_command  # only now: see the docstring

            return run_command(argv, cxx, interrupts)
    except EnzcError as err:
        if str(err):
            sys.stderr.write(f"{err}\n")
        return err.exit_code
    except Interrupted as stop:
        return stop.exit_code
    except Exception as err:  # a bug in enzc: one line, not a traceback
        sys.stderr.write(f"{tool}: internal error: {type(err).__name__}: {err} "
                         "(please report it; --enzc-keep-temps DIR keeps the intermediate files)\n")
        return EXIT_INTERNAL
