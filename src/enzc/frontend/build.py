"""One enzcc command line, from parsing to published outputs (`cli` maps the outcome
to an exit status).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import tempfile

from enzc import __version__
from enzc.errors import EnzcError
from enzc.frontend.args import Invocation, Phase, parse_args
from enzc.frontend.interrupts import SIGNALS, InterruptGuard
from enzc.frontend.runner import Runner
from enzc.frontend.session import Session
from enzc.frontend.spool import spool_inputs
from enzc.frontend.timing import StageTimes
from enzc.frontend.toolchain import CLANG, CLANGXX, cmake_toolchain_file, runtime_include_dir


def _private_temp_dir() -> tempfile.TemporaryDirectory[str]:
    """The build's temporary directory, made with SIGINT/SIGTERM/SIGHUP blocked: a
    signal can then fall neither between creating it and owning it nor inside
    tempfile's first use, which probes `$TMPDIR` by creating and removing a file (a
    SIGTERM there left that file behind, once in some thousand builds). A signal
    that came meanwhile is raised as the mask is restored, and the directory is
    removed then. No other thread runs yet."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        tmp = tempfile.TemporaryDirectory(prefix="enzcc-")
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        raise
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        return tmp
    except BaseException:  # the signal, raised as the mask is restored
        tmp.cleanup()
        raise


def run_command(argv: list[str], cxx: bool, interrupts: InterruptGuard) -> int:
    """Do what the command line asks; return 0 or clang's exit status, raise on errors."""
    inv = parse_args(argv, cxx)
    if inv.print_cmake_toolchain:
        print(cmake_toolchain_file())
        return 0
    if inv.delegate:
        return _delegate(inv)
    _check_inputs(inv)
    with _private_temp_dir() as tmp:
        runner = Runner(inv.verbose, tmp)
        session = Session(spool_inputs(inv, tmp), tmp, runner, StageTimes(), interrupts)
        try:
            _build(session)
        finally:
            runner.terminate_all()
            session.keep_temps()
            if inv.enzc.time:
                session.times.report(sys.stderr, inv.tool_name)
    return 0


def _build(session: Session) -> None:
    from enzc.frontend.compile import compile_only  # the heavy parts, when needed
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
