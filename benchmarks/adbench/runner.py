"""Running a built benchmark program and reading what it prints.

The programs do their own timing (see c/adbench.h); this module only builds
their command lines and parses the three output forms: the `RESULT` line of
time mode, the objective and derivative of check mode, and the
finite-difference matrix of fd mode.
"""

from __future__ import annotations

import subprocess
from array import array
from dataclasses import dataclass
from pathlib import Path

from benchmarks.adbench.suite import Benchmark, Input


class RunError(Exception):
    """A benchmark program failed (crash, timeout, bad output)."""


@dataclass(frozen=True)
class Timing:
    """Seconds per call, each the median over repeated runs."""

    objective_s: float
    gradient_s: float
    objective: float
    """The objective's first output, to compare across builds."""


@dataclass(frozen=True)
class Derivative:
    """What check mode prints: objective outputs and the derivative."""

    outputs: list[float]
    values: list[float]
    nrows: int
    ncols: int
    rowptr: list[int] | None
    cols: list[int] | None

    def dense(self) -> list[list[float]]:
        """The derivative as a dense nrows x ncols matrix."""
        if self.rowptr is None or self.cols is None:
            return [list(self.values)]
        rows = [[0.0] * self.ncols for _ in range(self.nrows)]
        for r in range(self.nrows):
            for k in range(self.rowptr[r], self.rowptr[r + 1]):
                rows[r][self.cols[k]] += self.values[k]
        return rows


def command(exe: Path, mode: str, bench: Benchmark, inp: Input, *extra: str) -> list[str]:
    """The command line that runs `exe` in `mode` on `inp`."""
    return [str(exe), mode, inp.arg, *bench.options, *inp.options, *extra]


def _run(cmd: list[str], timeout: float) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as err:
        raise RunError(f"timed out after {timeout:.0f} s: {' '.join(cmd)}") from err
    except OSError as err:
        raise RunError(f"cannot run {cmd[0]}: {err}") from err
    if done.returncode != 0:
        detail = done.stderr.strip() or f"exit status {done.returncode}"
        if done.returncode < 0:
            detail = f"killed by signal {-done.returncode}. {detail}"
        raise RunError(f"{' '.join(cmd)}: {detail}")
    return done.stdout


def parse_result_line(stdout: str) -> Timing:
    """Reads `RESULT objective_s=... gradient_s=... objective=...`."""
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            fields = dict(item.split("=", 1) for item in line.split()[1:])
            try:
                return Timing(
                    float(fields["objective_s"]), float(fields["gradient_s"]), float(fields["objective"])
                )
            except (KeyError, ValueError) as err:
                raise RunError(f"malformed result line: {line!r}") from err
    raise RunError(f"no RESULT line in output: {stdout[:200]!r}")


def run_time(
    exe: Path,
    bench: Benchmark,
    inp: Input,
    *,
    min_time: float,
    min_runs: int,
    dump: Path | None = None,
    clock: str = "cpu",
    timeout: float = 3600.0,
) -> Timing:
    """Times objective and derivative (`cpu` or `wall` clock); the derivative
    goes to `dump` if given."""
    extra = ["--min-time", repr(min_time), "--min-runs", str(min_runs), "--clock", clock]
    if dump is not None:
        extra += ["--dump", str(dump)]
    return parse_result_line(_run(command(exe, "time", bench, inp, *extra), timeout))


def read_dump(path: Path) -> array:
    """The raw doubles a time run wrote with --dump."""
    values = array("d")
    values.frombytes(path.read_bytes())
    return values


def _floats(line: str, label: str) -> list[float]:
    head, *rest = line.split()
    if head != label:
        raise RunError(f"expected a '{label}' line, got {line[:80]!r}")
    return [float(v) for v in rest]


def parse_check(stdout: str) -> Derivative:
    """Reads check mode's output (see c/adbench.c: run_check)."""
    lines = stdout.splitlines()
    try:
        outputs = _floats(lines[1], "outputs")
        _, nrows, ncols, _ = lines[2].split()
        values = _floats(lines[3], "values")
        rowptr = cols = None
        if len(lines) > 5:
            rowptr = [int(v) for v in _floats(lines[4], "rowptr")]
            cols = [int(v) for v in _floats(lines[5], "cols")]
    except (IndexError, ValueError) as err:
        raise RunError(f"malformed check output: {stdout[:200]!r}") from err
    return Derivative(outputs, values, int(nrows), int(ncols), rowptr, cols)


def run_check(exe: Path, bench: Benchmark, inp: Input, *extra: str, timeout: float = 600.0) -> Derivative:
    """The objective's outputs and the derivative, at full precision."""
    return parse_check(_run(command(exe, "check", bench, inp, *extra), timeout))


def run_objective(exe: Path, bench: Benchmark, inp: Input, *extra: str, timeout: float = 600.0) -> list[float]:
    """The objective's outputs alone, at full precision."""
    lines = _run(command(exe, "objective", bench, inp, *extra), timeout).splitlines()
    try:
        return _floats(lines[1], "outputs")
    except (IndexError, ValueError) as err:
        raise RunError("malformed objective output") from err


def run_fd(exe: Path, bench: Benchmark, inp: Input, *extra: str, timeout: float = 600.0) -> list[list[float]]:
    """The derivative of every output by central differences (dense rows)."""
    lines = _run(command(exe, "fd", bench, inp, *extra), timeout).splitlines()
    try:
        return [_floats(line, "row") for line in lines[1:]]
    except ValueError as err:
        raise RunError("malformed fd output") from err
