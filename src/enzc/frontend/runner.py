"""Run the external tools (clang-22, llvm-objcopy-22): echo for -v, failures, cleanup.

Every child gets TMPDIR pointing into enzcc's private temporary directory, so files
clang makes on its own are removed with it. Children still running when enzcc is
interrupted are terminated (`terminate_all`).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
from dataclasses import dataclass

from enzc.errors import EnzcError


class ToolFailed(EnzcError):
    """A tool exited non-zero; it printed its own diagnostics, enzcc adds nothing."""

    def __init__(self, exit_code: int) -> None:
        super().__init__("")
        self.exit_code = exit_code


@dataclass(frozen=True)
class Result:
    """What a finished tool left behind when its stderr was captured."""

    returncode: int
    stderr: bytes


class Runner:
    """Starts tools with a fixed environment and remembers the running ones."""

    def __init__(self, verbose: bool, tmpdir: str | None) -> None:
        self.verbose = verbose
        self.env = dict(os.environ)
        if tmpdir is not None:
            self.env["TMPDIR"] = tmpdir
        self._running: set[subprocess.Popen[bytes]] = set()
        self._stopped = False
        self._lock = threading.Lock()

    def run(self, argv: list[str], *, capture: bool = False) -> Result:
        """Run `argv`; with `capture`, return its stderr instead of letting it through.

        With -v the command line is echoed first (into the captured text when capturing,
        so parallel jobs' output stays in order).
        """
        echo = (shlex.join(argv) + "\n").encode() if self.verbose else b""
        if echo and not capture:
            sys.stderr.buffer.write(echo)
            sys.stderr.flush()
        try:
            process = subprocess.Popen(argv, env=self.env, stdin=subprocess.DEVNULL
                                       if "-" not in argv else None,
                                       stderr=subprocess.PIPE if capture else None)
        except OSError as err:
            raise EnzcError(f"enzcc: error: cannot run '{argv[0]}': {err.strerror} "
                            "(is LLVM 22 installed? run scripts/setup.sh)") from None
        with self._lock:
            self._running.add(process)
            if self._stopped:  # started by a thread racing with terminate_all
                process.terminate()
        try:
            _, stderr = process.communicate()
        finally:
            with self._lock:
                self._running.discard(process)
        return Result(_exit_code(process.returncode), echo + (stderr or b""))

    def output(self, argv: list[str]) -> str:
        """Run a query (`clang -print-...`) and return its standard output."""
        if self.verbose:
            sys.stderr.write(shlex.join(argv) + "\n")
        try:
            done = subprocess.run(argv, env=self.env, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, check=False)
        except OSError as err:
            raise EnzcError(f"enzcc: error: cannot run '{argv[0]}': {err.strerror}") from None
        return done.stdout

    def check(self, argv: list[str]) -> None:
        """Run `argv` with output passed through; raise ToolFailed if it fails."""
        result = self.run(argv)
        if result.returncode != 0:
            raise ToolFailed(result.returncode)

    def terminate_all(self) -> None:
        """Stop children still running and any started later (enzcc is exiting early)."""
        with self._lock:
            self._stopped = True
            running = list(self._running)
        for process in running:
            if process.poll() is None:
                process.terminate()
        for process in running:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _exit_code(returncode: int) -> int:
    """Exit status as a shell reports it (128+N for death by signal N)."""
    return 128 - returncode if returncode < 0 else returncode
