"""Run the external tools (clang-22, llvm-objcopy-22): echo for -v, failures, cleanup.

Every child gets TMPDIR pointing into enzcc's private temporary directory, so files
clang makes on its own are removed with it. Each child starts its own process group,
so that when enzcc is interrupted `terminate_all` stops it together with the tools
it started in turn (clang's linker, ...): none is left running. A child never reads
enzcc's standard input: an input read from it was read once by enzcc (see
`spool`) and is handed to the child through a pipe.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import threading
from concurrent.futures import Future
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


class Stopped(EnzcError):
    """A tool was to start after `terminate_all` (enzcc is being interrupted)."""

    def __init__(self) -> None:
        super().__init__("")


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

    def run(self, argv: list[str], *, capture: bool = False, stdin: bytes | None = None) -> Result:
        """Run `argv`; with `capture`, return its stderr instead of letting it through.

        `stdin` is what the tool reads as its standard input (else nothing). With -v
        the command line is echoed first (into the captured text when capturing, so
        parallel jobs' output stays in order).
        """
        echo = (shlex.join(argv) + "\n").encode() if self.verbose else b""
        if echo and not capture:
            sys.stderr.buffer.write(echo)
            sys.stderr.flush()
        returncode, _, stderr = self._communicate(argv, stdin, capture_stdout=False,
                                                  capture_stderr=capture)
        return Result(_exit_code(returncode), echo + stderr)

    def output(self, argv: list[str]) -> str:
        """Run a query (`clang -print-...`) and return its standard output."""
        if self.verbose:
            sys.stderr.write(shlex.join(argv) + "\n")
        _, stdout, _ = self._communicate(argv, None, capture_stdout=True, capture_stderr=True)
        return stdout.decode(errors="replace")

    def check(self, argv: list[str]) -> None:
        """Run `argv` with output passed through; raise ToolFailed if it fails."""
        result = self.run(argv)
        if result.returncode != 0:
            raise ToolFailed(result.returncode)

    def terminate_all(self) -> None:
        """Stop children still running, and the processes they started; refuse new ones."""
        with self._lock:
            self._stopped = True
            running = list(self._running)
        for process in running:
            _signal_group(process, signal.SIGTERM)
        for process in running:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait()

    def _communicate(self, argv: list[str], stdin: bytes | None, *, capture_stdout: bool,
                     capture_stderr: bool) -> tuple[int, bytes, bytes]:
        """Run `argv` to completion; (status, stdout, stderr).

        The child is started and waited for by a helper thread: the signal handler
        raises in the main thread between any two statements, and must never fall
        between starting a child and recording it for `terminate_all`.
        """
        done: Future[tuple[int, bytes, bytes]] = Future()

        def work() -> None:
            try:
                done.set_result(self._start_and_wait(argv, stdin, capture_stdout, capture_stderr))
            except BaseException as err:  # noqa: BLE001 - handed to the waiting thread
                done.set_exception(err)

        threading.Thread(target=work, name="enzcc-tool", daemon=True).start()
        return done.result()

    def _start_and_wait(self, argv: list[str], stdin: bytes | None, capture_stdout: bool,
                        capture_stderr: bool) -> tuple[int, bytes, bytes]:
        pipe = subprocess.PIPE
        with self._lock:
            if self._stopped:
                raise Stopped()
            try:
                process = subprocess.Popen(
                    argv, env=self.env, process_group=0,
                    stdin=subprocess.DEVNULL if stdin is None else pipe,
                    stdout=pipe if capture_stdout else None,
                    stderr=pipe if capture_stderr else None)
            except OSError as err:
                raise EnzcError(f"enzcc: error: cannot run '{argv[0]}': {err.strerror} "
                                "(is LLVM 22 installed? run scripts/setup.sh)") from None
            self._running.add(process)
        try:
            stdout, stderr = process.communicate(stdin)
        finally:
            with self._lock:
                self._running.discard(process)
        return process.returncode, stdout or b"", stderr or b""


def _signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    """Send `signum` to the process group `process` leads (it and its own children)."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signum)
    except OSError:  # already gone
        pass


def _exit_code(returncode: int) -> int:
    """Exit status as a shell reports it (128+N for death by signal N)."""
    return 128 - returncode if returncode < 0 else returncode
