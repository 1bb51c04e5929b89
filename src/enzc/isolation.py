"""Run risky in-process LLVM work in a forked child, so a crash cannot take enzc down.

llvmlite runs LLVM inside our process, and LLVM is not written to survive hostile
input: corrupted bitcode can fail an assertion (SIGABRT), and some invalid settings
end in `LLVM ERROR: ...` and `exit(1)` (a nonsense `target-cpu`). Either would kill
enzcc without cleaning up its temporary directory or saying which input was at fault.

`run_isolated(work)` forks; the child runs `work()` and sends its result back
through a pipe (pickled); the parent waits. The child's standard error goes to an
anonymous file that the parent replays, so diagnostics keep their order, and a crash
becomes an `IsolatedCrash` (an EnzcError) that names the last `step()` the child
announced ("reading the IR of 'lib.a(m.o)'") and LLVM's reason. A fork costs about
a millisecond; the child shares the parent's memory copy-on-write, so nothing is
parsed twice.

Rules for `work`: it must not start threads or subprocesses (the parent kills the
child with SIGKILL when interrupted), and its result must pickle.
"""

from __future__ import annotations

import os
import pickle
import re
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from enzc.errors import EnzcError

T = TypeVar("T")

_STEP_PREFIX = b"step:"
_RESULT_PREFIX = b"done:"
_channel: int | None = None
"""Write end of the pipe to the parent, set only inside an isolated child."""

_ASSERTION = re.compile(r"Assertion `(.*)' failed")
_FATAL = re.compile(r"LLVM ERROR: (.*)")


class IsolatedCrash(EnzcError):
    """The isolated child died (signal) or exited without a result (LLVM fatal error)."""


class _Raised:
    """An exception of the child, carried to the parent as text."""

    def __init__(self, err: BaseException) -> None:
        self.enzc = isinstance(err, EnzcError)
        self.message = str(err) if self.enzc else f"{type(err).__name__}: {err}"
        self.exit_code = getattr(err, "exit_code", 1)
        self.interrupted = isinstance(err, KeyboardInterrupt)
        self.signum: int | None = None if isinstance(err, Exception) else getattr(err, "signum", None)
        """The signal behind a BaseException that carries one (enzcc's `Interrupted`)."""


class ChildInternalError(Exception):
    """A bug in enzc surfaced in the isolated child; the message names the original type."""


def step(description: str) -> None:
    """Announce what the isolated child does now (named if it crashes); no-op elsewhere."""
    if _channel is not None:
        _write_frame(_channel, _STEP_PREFIX + description.encode("utf-8", "replace"))


def run_isolated(work: Callable[[], T], *, tool: str = "enzcc", memory_limit: int | None = None) -> T:
    """`work()` run in a forked child; its return value or its EnzcError, re-raised here.

    `tool` prefixes the crash message (`enzcc: error: ...`). With `memory_limit`, the
    child may grow by that many bytes of address space: LLVM asked to read a
    corrupted count allocates without bound, and then stops with "out of memory"
    instead of taking the machine's memory.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    with tempfile.TemporaryFile() as captured:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child's coverage is not collected
            os.close(read_end)
            _child(work, write_end, captured.fileno(), memory_limit)
        os.close(write_end)
        try:
            frames = _read_frames(read_end)
            _, status = os.waitpid(pid, 0)
        finally:
            os.close(read_end)
            _reap(pid)
        captured.seek(0)
        stderr = captured.read()
    return _outcome(frames, status, stderr, tool)


def _child(work: Callable[[], object], channel: int, stderr_fd: int, memory_limit: int | None) -> None:
    """Run in the forked child; never returns (os._exit skips the parent's cleanups)."""
    global _channel
    code = 0
    try:
        os.dup2(stderr_fd, 2)
        _channel = channel
        if memory_limit is not None:
            _limit_growth(memory_limit)
        try:
            outcome: object = work()
        except BaseException as err:  # noqa: BLE001 - everything goes to the parent
            outcome = _Raised(err)
        sys.stdout.flush()
        sys.stderr.flush()
        _write_frame(channel, _RESULT_PREFIX + pickle.dumps(outcome))
    except BaseException:  # noqa: BLE001 - a result that does not pickle, a closed pipe
        code = 3
    finally:
        os._exit(code)


READ_MEMORY_BASE = 4 << 30
READ_MEMORY_PER_BYTE = 256
"""What reading IR may take beyond the process's size: a module and its text are some
tens of times the bitcode's size; a corrupted count asks for far more."""


def reading_memory(size: int) -> int:
    """The growth allowed to LLVM reading `size` bytes of untrusted IR."""
    return READ_MEMORY_BASE + READ_MEMORY_PER_BYTE * size


@contextmanager
def growth_limited(extra: int) -> Iterator[None]:
    """Within the block, this process may grow by `extra` bytes of address space (LLVM
    reading a corrupted count then fails with "out of memory" in a second instead of
    taking the machine's memory); the limit is lifted after it. For an isolated child
    that goes on with other work after reading (enzcc's link child)."""
    import resource

    before = resource.getrlimit(resource.RLIMIT_AS)
    _limit_growth(extra)
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)


def _limit_growth(extra: int) -> None:
    """Cap this process's address space at its present size plus `extra` bytes."""
    import resource

    with open("/proc/self/statm") as statm:
        present = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = present + extra
    if (hard == resource.RLIM_INFINITY or limit < hard) and (soft == resource.RLIM_INFINITY or limit < soft):
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _outcome(frames: list[bytes], status: int, stderr: bytes, tool: str):  # type: ignore[no-untyped-def]
    """Replay the child's stderr, then return its result or raise what it raised."""
    steps = [f[len(_STEP_PREFIX):].decode() for f in frames if f.startswith(_STEP_PREFIX)]
    results = [f[len(_RESULT_PREFIX):] for f in frames if f.startswith(_RESULT_PREFIX)]
    if results and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        sys.stderr.buffer.write(stderr)
        sys.stderr.flush()
        outcome = pickle.loads(results[0])
        if not isinstance(outcome, _Raised):
            return outcome
        if outcome.signum is not None:
            # A signal reached the child alone: this process takes it too, so its own
            # handler ends the build as that signal does (`raise_signal` runs it now).
            signal.raise_signal(outcome.signum)
        if outcome.interrupted or outcome.signum is not None:
            raise KeyboardInterrupt
        if outcome.enzc:
            err = EnzcError(outcome.message)
            err.exit_code = outcome.exit_code
            raise err
        raise ChildInternalError(outcome.message)
    verb, reason, rest = _crash_reason(stderr.decode("utf-8", "replace"), status)
    if rest:
        sys.stderr.write(rest)
    doing = steps[-1] if steps else "working in LLVM"
    hint = (" (the file is corrupt or was not written by LLVM 22)"
            if doing.startswith(("reading the IR of", "reading the bitcode")) else "")
    raise IsolatedCrash(f"{tool}: error: LLVM {verb} while {doing}: {reason}{hint}")


def _crash_reason(stderr: str, status: int) -> tuple[str, str, str]:
    """(crashed/failed, LLVM's reason, the rest of the child's stderr to show)."""
    lines = stderr.splitlines(keepends=True)
    for k in range(len(lines) - 1, -1, -1):
        if m := _ASSERTION.search(lines[k]):
            return "crashed", f"assertion `{m.group(1).strip()}' failed", "".join(lines[:k])
        if m := _FATAL.search(lines[k]):
            return "failed", m.group(1).strip(), "".join(lines[:k])
    if os.WIFSIGNALED(status):
        return "crashed", f"killed by {signal.Signals(os.WTERMSIG(status)).name}", stderr
    return "failed", f"exited with status {os.WEXITSTATUS(status)}", stderr


def _reap(pid: int) -> None:
    """Kill and wait for the child if it is still there (the parent was interrupted)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return
    if done == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def _write_frame(fd: int, payload: bytes) -> None:
    data = len(payload).to_bytes(8, "little") + payload
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_frames(fd: int) -> list[bytes]:
    """Every length-prefixed frame the child wrote, until it closed the pipe."""
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    data = b"".join(chunks)
    frames, pos = [], 0
    while pos + 8 <= len(data):
        size = int.from_bytes(data[pos:pos + 8], "little")
        if pos + 8 + size > len(data):
            break  # the child died mid-frame
        frames.append(data[pos + 8:pos + 8 + size])
        pos += 8 + size
    return frames
