"""Compile time of each benchmark program, per tool; enzcc's per stage.

Builds run one at a time (the harness builds in parallel, which would blur
the times), each `repeat` times; the fastest wall time is kept with the CPU
time of the same build (the compilers' processes, children included).  enzcc
gets `--enzc-time` and its stage times are parsed from stderr: the frontend's
time adds up its parallel jobs, so stages may sum to more than the wall time.
"""

from __future__ import annotations

import re
import resource
import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path

from benchmarks.adbench.suite import PROGRAMS
from benchmarks.adbench.tools import Tool, build_command

_STAGE = re.compile(r"^enzcc:\s+(\S+)\s+([0-9.]+)$", re.MULTILINE)


@dataclass(frozen=True)
class CompileTime:
    """One tool building one program."""

    program: str
    tool: str
    wall_s: float
    cpu_s: float
    """User + system time of the compiler processes."""
    stages: dict[str, float]
    """enzcc's `--enzc-time` stages (total excluded); empty for other tools."""


def parse_stages(stderr: str) -> dict[str, float]:
    """Stage -> seconds from `--enzc-time`'s report, without the total."""
    return {name: float(s) for name, s in _STAGE.findall(stderr) if name != "total"}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_build(tool: Tool, program: str, out_dir: Path, repeat: int = 3,
               timeout: float = 1800.0) -> CompileTime | None:
    """The fastest of `repeat` builds, or None when the tool cannot build it."""
    timed = replace(tool, compiler=(*tool.compiler, "--enzc-time")) if tool.name.startswith("enzcc") else tool
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd, _ = build_command(timed, PROGRAMS[program], out_dir)
    best: CompileTime | None = None
    for _ in range(repeat):
        cpu0, wall0 = _children_cpu(), time.perf_counter()
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired):
            return None
        wall, cpu = time.perf_counter() - wall0, _children_cpu() - cpu0
        if done.returncode != 0:
            return None
        if best is None or wall < best.wall_s:
            best = CompileTime(program, tool.name, wall, cpu, parse_stages(done.stderr))
    return best
