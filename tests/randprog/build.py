"""Build a unit with enzcc and run it; classify what happened.

A build ends in one of:
- `built`: exit 0 and an executable;
- `rejected`: exit 1 with enzc's located AD error (`error: enzc: ...`): the engine
  declined the program with a message, which is allowed (and counted);
- `internal`: exit 70, or a Python traceback on stderr: a failure;
- `crash`: killed by a signal, or any other exit status: a failure;
- `hang`: no result within the timeout: a failure;
- `invalid`: clang itself rejected the C (a generator bug, never the engine's).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENZCC = REPO / ".venv" / "bin" / "enzcc"

COMPILE_TIMEOUT = 600
"""Seconds; generous because the machine is shared (a unit normally takes 2-20 s)."""
RUN_TIMEOUT = 60

_AD_ERROR = re.compile(r"^(?:.*?: )?error: enzc: (.*)$", re.MULTILINE)
_NOTE_FUNCTION = re.compile(r"in function '([^']+)'")


@dataclass(frozen=True)
class BuildOutcome:
    status: str
    """built, rejected, internal, crash, hang or invalid."""
    exe: Path | None
    returncode: int
    stderr: str
    seconds: float = 0.0

    @property
    def message(self) -> str:
        """The first `error: enzc:` message (without the prefix), or the stderr tail."""
        m = _AD_ERROR.search(self.stderr)
        if m:
            return m.group(1).strip()
        lines = [ln for ln in self.stderr.strip().splitlines() if ln.strip()]
        return lines[-1] if lines else f"exit {self.returncode}"

    def functions(self) -> list[str]:
        """The functions the error's notes name (`in function 'rp12_h3'`)."""
        return _NOTE_FUNCTION.findall(self.stderr)


def _run(cmd: list[str], timeout: float, cwd: Path | None = None) -> tuple[int | None, str, str]:
    """(returncode or None on timeout, stdout, stderr); the whole process group is
    killed on timeout or an interrupt, and the child dies with the process that
    started it (its own session keeps it out of a killed job's group), so no
    compiler or program is left behind."""
    proc = subprocess.Popen([*_DIE_WITH_PARENT, *cmd], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, errors="replace", start_new_session=True,
                            env=dict(os.environ, LC_ALL="C"))
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, out, err
    finally:
        if proc.poll() is None:  # interrupted mid-run
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


_DIE_WITH_PARENT = ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []
"""util-linux's `setpriv` runs the command with `PR_SET_PDEATHSIG`: SIGKILL when the
thread that started it ends (a killed campaign worker once left a hung derivative
spinning for 20 minutes). A `preexec_fn` would do the same in Python, but forks the
test process with its threads (JAX's) running."""


def build(source: Path, opt: str, exe: Path, timeout: float = COMPILE_TIMEOUT,
          compiler: Path | str = ENZCC) -> BuildOutcome:
    """enzcc `opt` source -lm -o exe, classified (opt may hold several flags)."""
    start = time.monotonic()
    rc, _, err = _run([str(compiler), *opt.split(), str(source), "-lm", "-o", str(exe)], timeout)
    took = time.monotonic() - start
    if rc is None:
        return BuildOutcome("hang", None, -1, err + f"\ntimed out after {timeout:.0f}s", took)
    if rc == 0 and exe.exists():
        return BuildOutcome("built", exe, 0, err, took)
    if "Traceback (most recent call last)" in err or rc == 70:
        return BuildOutcome("internal", None, rc, err, took)
    if rc == 1 and _AD_ERROR.search(err):
        return BuildOutcome("rejected", None, rc, err, took)
    if rc == 1 and re.search(r"^[^:\n]+:\d+:\d+: error:", err, re.MULTILINE):
        return BuildOutcome("invalid", None, rc, err, took)
    return BuildOutcome("crash", None, rc, err, took)


@dataclass(frozen=True)
class RunOutcome:
    status: str
    """ok, crash (non-zero exit or signal) or hang."""
    returncode: int
    stdout: str
    stderr: str


def run(exe: Path, which: str = "all", point: int = 0, timeout: float = RUN_TIMEOUT) -> RunOutcome:
    rc, out, err = _run([str(exe), which, str(point)], timeout, cwd=exe.parent)
    if rc is None:
        return RunOutcome("hang", -1, out, err)
    return RunOutcome("ok" if rc == 0 else "crash", rc, out, err)


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"\b\d+(\.\d+)?\b")


def rejection_class(message: str) -> str:
    """The message with names and numbers blanked, so equal causes group together:
    "an active indirect call may reach 'sin', which ..." -> "... reach '*', which ..."."""
    text = _QUOTED.sub("'*'", message.splitlines()[0] if message else "")
    return _NUMBER.sub("N", text).strip()
