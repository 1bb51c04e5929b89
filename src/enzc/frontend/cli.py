"""`enzcc` and `enzc++`: entry points, delegation to clang, errors and cleanup.

Exit codes: clang's own on a clang failure (its diagnostics already printed),
1 for enzc's errors, 70 for an internal error, 128+N when killed by signal N.
Nothing reaches the user as a traceback.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from enzc import __version__
from enzc.errors import EnzcError
from enzc.frontend.args import Invocation, Phase, parse_args
from enzc.frontend.runner import Runner
from enzc.frontend.session import Session
from enzc.frontend.timing import StageTimes
from enzc.frontend.toolchain import CLANG, CLANGXX, cmake_toolchain_file, runtime_include_dir

EXIT_INTERNAL = 70


class _Signalled(BaseException):
    """SIGTERM/SIGHUP arrived: unwind so the temporary directory is removed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def main_cc() -> None:
    """Console script `enzcc`."""
    sys.exit(run(sys.argv[1:], cxx=False))


def main_cxx() -> None:
    """Console script `enzc++`."""
    sys.exit(run(sys.argv[1:], cxx=True))


def run(argv: list[str], cxx: bool) -> int:
    """Run one enzcc command line; return the exit status."""
    tool = "enzc++" if cxx else "enzcc"
    runner: Runner | None = None
    try:
        with _signals_unwind():
            inv = parse_args(argv, cxx)
            if inv.print_cmake_toolchain:
                print(cmake_toolchain_file())
                return 0
            if inv.delegate:
                return _delegate(inv)
            _check_inputs(inv)
            with tempfile.TemporaryDirectory(prefix="enzcc-") as tmp:
                runner = Runner(inv.verbose, tmp)
                session = Session(inv, tmp, runner, StageTimes())
                try:
                    _build(session)
                finally:
                    runner.terminate_all()
                    session.keep_temps()
                    if inv.enzc.time:
                        session.times.report(sys.stderr, tool)
            return 0
    except EnzcError as err:
        if str(err):
            sys.stderr.write(f"{err}\n")
        return err.exit_code
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    except _Signalled as sig:
        return 128 + sig.signum
    except Exception as err:  # a bug in enzc: one line, not a traceback
        sys.stderr.write(f"{tool}: internal error: {type(err).__name__}: {err} "
                         "(please report it; --enzc-keep-temps DIR keeps the intermediate files)\n")
        return EXIT_INTERNAL


def _build(session: Session) -> None:
    from enzc.frontend.compile import compile_only
    from enzc.frontend.link import link_program

    if session.inv.phase == Phase.LINK:
        link_program(session)
    else:
        compile_only(session)


def _check_inputs(inv: Invocation) -> None:
    """Missing input files, reported the way clang does, before any work starts."""
    missing = [i.path for i in inv.inputs if i.path != "-" and not os.path.exists(i.path)]
    if missing:
        raise EnzcError("\n".join(f"{inv.tool_name}: error: no such file or directory: '{p}'"
                                  for p in missing))
    for inp in inv.inputs:
        if inp.path == "-" and inp.lang is None:
            raise EnzcError(f"{inv.tool_name}: error: -x is required when the input is "
                            "standard input")


def _delegate(inv: Invocation) -> int:
    """Nothing enzc-specific to do: clang does the whole job (-E, -M, queries, ...)."""
    clang = CLANGXX if inv.cxx else CLANG
    argv = [clang, *inv.args]
    if any(i.preprocessed for i in inv.inputs):  # after the user's -I/-isystem, before `--`
        at = argv.index("--") if "--" in argv else len(argv)
        argv[at:at] = ["-isystem", runtime_include_dir()]
    if inv.verbose:
        sys.stderr.write(shlex.join(argv) + "\n")
    try:
        code = subprocess.call(argv)
    except OSError as err:
        raise EnzcError(f"{inv.tool_name}: error: cannot run '{clang}': {err.strerror}") from None
    if "--version" in inv.args and code == 0:
        print(f"enzc {__version__} ({inv.tool_name}: clang-22 with automatic differentiation)")
    return 128 - code if code < 0 else code


@contextmanager
def _signals_unwind() -> Iterator[None]:
    """Turn SIGTERM/SIGHUP into an exception so `finally` blocks clean up."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        raise _Signalled(signum)

    previous = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)
