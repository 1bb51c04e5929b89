"""Run one fuzz case against enzc and against LLVM/ld, and judge the pair.

enzc's commands (`python -m enzc.ir`, `enzcc`) run in a forked copy of this process
(the modules are imported once, so a case costs its work, not Python's start-up),
with stdin/stdout/stderr redirected, TMPDIR pointing at a fresh directory and its
own process group, so a hang is killed whole after a timeout. The oracle is LLVM's
own tools on the same input: `llvm-as-22` (text), `opt-22 -passes=verify` (bitcode),
`clang-22` linking with ld (objects, archives).

A verdict is a failure when enzc
- prints a traceback, or an internal error (exit 70), or is killed by a signal;
- runs past the timeout (a hang);
- leaves anything in its TMPDIR, or an output file after failing;
- accepts IR that LLVM rejects, or prints IR that llvm-as rejects, or whose canonical
  form (llvm-dis of llvm-as) differs from the input's;
- fails without a one-line `file:line:col: error:` / `enzcc: error:` message.
Rejecting input that LLVM accepts with such a message is allowed ("unsupported"),
and counted; so is enzcc building a program from objects whose IR is sound when ld
would reject their native parts ("lenient": enzcc links the IR, not that code).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TIMEOUT = 120.0
"""Seconds before a case counts as a hang (generous: the machine may be loaded)."""
_CLEAN_ERROR = re.compile(r"(?:^|: )error: ")
_ENZC_INTERNAL = re.compile(r"^(?:enzcc|enzc\+\+)[^:\n]*: internal error|error: internal error", re.M)
"""An internal error of enzc's own (the CLI's exit-70 report, enzc.ir's, or the AD
engine's located one) — not a tool's such as GNU ld's "BFD ... internal error,
aborting" on a corrupt object, which clang-22 gives alike (obj:6806173)."""


@dataclass
class Run:
    """How one command ended."""

    code: int | None
    """Exit status; None after a timeout; negative: killed by that signal."""
    stderr: str
    seconds: float

    @property
    def hang(self) -> bool:
        return self.code is None


@dataclass
class Verdict:
    """The judgement of one case."""

    kind: str
    """ll, bc, obj or ar."""
    outcome: str
    """accepted, rejected, unsupported, lenient, or a failure class (see FAILURES)."""
    detail: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.outcome in FAILURES


FAILURES = ("traceback", "internal", "crash", "hang", "leftovers", "partial-output",
            "invalid-accepted", "invalid-output", "roundtrip-mismatch", "unclean-error")


def run_forked(entry: Callable[[list[str]], int | None], argv: list[str], cwd: Path,
               tmpdir: Path, timeout: float = TIMEOUT) -> Run:
    """`entry(argv)` in a forked child as if it were a fresh process; never raises."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            _child(entry, argv, cwd, tmpdir, err.fileno())
        code = _wait(pid, timeout)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    return Run(code, text, time.perf_counter() - start)


def _child(entry: Callable[[list[str]], int | None], argv: list[str], cwd: Path,
           tmpdir: Path, err_fd: int) -> None:
    code = 99
    try:
        os.setpgid(0, 0)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.dup2(err_fd, 2)
        sys.stdin = open(0, closefd=False)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", errors="backslashreplace", closefd=False)
        os.chdir(cwd)
        os.environ["TMPDIR"] = str(tmpdir)
        tempfile.tempdir = None
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            result = entry(argv)
            code = 0 if result is None else int(result)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:  # noqa: BLE001 - what a fresh interpreter would print
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _wait(pid: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def run_tool(argv: Sequence[str], cwd: Path, timeout: float = TIMEOUT) -> Run:
    """An LLVM tool or the linker, as the oracle."""
    start = time.perf_counter()
    try:
        done = subprocess.run(list(argv), cwd=cwd, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Run(None, "timeout", time.perf_counter() - start)
    return Run(done.returncode, done.stderr.decode("utf-8", "replace"),
               time.perf_counter() - start)


def enzc_ir_main(argv: list[str]) -> int:
    from enzc.ir.__main__ import main

    return main(argv)


def enzcc_main(argv: list[str]) -> int:
    from enzc.frontend.cli import run

    return run(argv, cxx=False)


def warm_up() -> None:
    """Import what the commands use before forking, so each case does not pay it."""
    import llvmlite.binding as llvm
    from elftools.elf.elffile import ELFFile  # noqa: F401

    import enzc.ad.pipeline  # noqa: F401
    import enzc.frontend.link  # noqa: F401
    from enzc.ir import parse_module
    from enzc.lto.irmodule import initialize_llvm

    initialize_llvm()
    llvm.parse_assembly("")
    parse_module("define void @f() {\n  ret void\n}\n", lazy=False)


def _failure_of(kind: str, run: Run, tmpdir: Path, output: Path | None) -> Verdict | None:
    """The failure classes every enzc command is checked for."""
    if run.hang:
        return Verdict(kind, "hang", f"no exit after {TIMEOUT:.0f} s")
    if "Traceback (most recent call last)" in run.stderr:
        return Verdict(kind, "traceback", run.stderr[-2000:])
    if run.code is not None and run.code < 0:
        return Verdict(kind, "crash", f"killed by signal {-run.code}: {run.stderr[-600:]}")
    if run.code == 70 or _ENZC_INTERNAL.search(run.stderr):
        return Verdict(kind, "internal", run.stderr[-600:])
    left = sorted(os.listdir(tmpdir))
    if left:
        return Verdict(kind, "leftovers", f"left in TMPDIR: {left[:5]}")
    if run.code != 0:
        if output is not None and output.exists():
            return Verdict(kind, "partial-output", f"{output.name} written by a failed run")
        last = run.stderr.strip().splitlines()[-1:] or [""]
        if not any(_CLEAN_ERROR.search(line) for line in run.stderr.splitlines()):
            return Verdict(kind, "unclean-error", f"exit {run.code}: {last[0][:300]}")
    return None


def _first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error" in line:
            return line.strip()[:300]
    return stderr.strip()[:300]


def judge_ir(kind: str, case: Path, work: Path) -> Verdict:
    """`python -m enzc.ir CASE -o out.ll` against llvm-as-22 / opt-22 on CASE."""
    tmpdir = _fresh(work / "tmp")
    output = work / "out.ll"
    enzc = run_forked(enzc_ir_main, [str(case), "-o", str(output)], work, tmpdir)
    failure = _failure_of(kind, enzc, tmpdir, output)
    if failure is not None:
        return failure
    if kind == "bc":
        llvm = run_tool(["opt-22", "-passes=verify", "-disable-output", str(case)], work)
    else:
        llvm = run_tool(["llvm-as-22", str(case), "-o", str(work / "in.bc")], work)
    llvm_ok = llvm.code == 0
    crash = _llvm_crash(kind, llvm, case, work)
    if enzc.code != 0:
        if llvm_ok:
            return Verdict(kind, "unsupported", _first_error(enzc.stderr))
        return Verdict(kind, "rejected", crash or "")
    if not llvm_ok:
        return Verdict(kind, "invalid-accepted", crash or f"LLVM: {_first_error(llvm.stderr)}")
    printed = run_tool(["llvm-as-22", str(output), "-o", str(work / "out.bc")], work)
    if printed.code != 0:
        return Verdict(kind, "invalid-output", f"llvm-as on enzc's output: "
                       f"{_first_error(printed.stderr)}")
    if kind == "ll" and _canonical(work / "in.bc", work) != _canonical(work / "out.bc", work):
        return Verdict(kind, "roundtrip-mismatch", "llvm-dis of input and output differ")
    return Verdict(kind, "accepted")


def _llvm_crash(kind: str, llvm: Run, case: Path, work: Path) -> str | None:
    """What LLVM's crash on `case` says, or None when it did not crash.

    LLVM's tools crash on some malformed IR (a segfault in `verifyModule`) instead of
    rejecting it. The crash is LLVM's "no": it does not accept the input, so enzc's
    clean rejection is right and its acceptance is judged as accepting invalid IR (what
    enzc prints would crash LLVM's tools in turn). To tell a crash of the parser from
    one of the verifier (and the latter's input, which LLVM's parser takes, from a
    syntax error) the input is parsed once more without verification."""
    if llvm.code is None or llvm.code >= 0:
        return None
    tool = "opt-22" if kind == "bc" else "llvm-as-22"
    parsed = run_tool([tool, "-disable-verify", str(case), "-o", str(work / "noverify.bc")], work)
    if parsed.code == 0:
        return f"{tool} crashed (signal {-llvm.code}) verifying it; it parses without -verify"
    if parsed.code is not None and parsed.code > 0:
        return f"{tool} crashed (signal {-llvm.code}); without verification: {_first_error(parsed.stderr)}"
    return f"{tool} crashed (signal {-llvm.code}) parsing it"


def _canonical(bitcode: Path, work: Path) -> str:
    """LLVM's own text of a bitcode file, without the lines naming the file."""
    text = subprocess.run(["llvm-dis-22", str(bitcode), "-o", "-"], capture_output=True,
                          cwd=work, timeout=TIMEOUT).stdout.decode("utf-8", "replace")
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith(("; ModuleID", "source_filename")))


def judge_link(kind: str, inputs: list[Path], work: Path) -> Verdict:
    """`enzcc INPUTS -o prog` against `clang-22 INPUTS -o prog` (ld)."""
    tmpdir = _fresh(work / "tmp")
    prog = work / "prog"
    argv = [str(p) for p in inputs] + ["-lm", "-o", str(prog)]
    enzc = run_forked(enzcc_main, argv, work, tmpdir)
    failure = _failure_of(kind, enzc, tmpdir, prog)
    if failure is not None:
        return failure
    ld = run_tool(["clang-22", *(str(p) for p in inputs), "-lm", "-o", str(work / "prog.ld")],
                  work)
    if enzc.code != 0:
        return Verdict(kind, "unsupported" if ld.code == 0 else "rejected",
                       _first_error(enzc.stderr))
    if ld.code != 0:
        return Verdict(kind, "lenient", _first_error(ld.stderr))
    return Verdict(kind, "accepted")


def _fresh(directory: Path) -> Path:
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return directory
