"""Memory per derivative call: heap use of every tool, and enzcc's tape.

Each tool's program is built once more for this, linked with c/heapcount.c
and `-Wl,--wrap=malloc,...`, so that every allocation of the program goes
through a counter (the timing builds stay unwrapped); enzcc's builds also get
`--enzc-tape-stats`.  `PROG memory INPUT` calls the derivative twice and
reports the heap use of the second call: the most bytes live at once
(`heap_peak`, what the derivative keeps) and all bytes allocated.  enzcc's
derivatives print their cache bytes per call at exit; summed over the
derivative functions (BA's Jacobian calls one per observation row) and
divided by the two gradient calls, that is the tape of one gradient call.
enzcc's cache blocks come from a per-thread tape stack that outlives the call
(docs/ad.md), so the measured (second) call reuses what the warm-up allocated:
its heap figures leave the tape out, the tape column holds it.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from benchmarks.adbench.runner import RunError, command
from benchmarks.adbench.suite import C_DIR, PROGRAMS, Benchmark, Input
from benchmarks.adbench.tools import Build, Tool, build

WRAP = "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free"
GRADIENT_CALLS = 2
"""Derivative calls a `memory` run makes (a warm-up, then the measured one)."""
_TAPE_LINE = re.compile(r"^enzc: (\S+): (\d+) calls, tape bytes per call: mean (\d+), max (\d+)$",
                        re.MULTILINE)


@dataclass(frozen=True)
class MemoryUse:
    """One tool's memory for one derivative call on one input."""

    benchmark: str
    input: str
    tool: str
    heap_peak: int
    """Most heap bytes live at once during the call, above the level before it."""
    heap_allocated: int
    """All heap bytes the call allocated."""
    tape_bytes: int | None
    """enzcc: the cache bytes its derivatives allocated (`--enzc-tape-stats`)."""


def counts_tape(tool: Tool) -> bool:
    """enzcc and enzcc-ref can count their tape."""
    return tool.name.startswith("enzcc")


def memory_tool(tool: Tool, counter: Path) -> Tool:
    """`tool` building with the heap counter (and enzcc's tape statistics)."""
    stats = ("--enzc-tape-stats",) if counts_tape(tool) else ()
    return replace(tool, compiler=(*tool.compiler, *stats, WRAP, str(counter)))


def build_counter(build_dir: Path, clang: str = "clang-22") -> Path:
    """c/heapcount.c compiled once to an object every memory build links."""
    build_dir.mkdir(parents=True, exist_ok=True)
    obj = build_dir / "heapcount.o"
    subprocess.run([clang, "-O2", "-c", f"-I{C_DIR}", str(C_DIR / "heapcount.c"), "-o", str(obj)],
                   check=True, capture_output=True)
    return obj


def build_for_memory(tool: Tool, program: str, build_dir: Path, counter: Path) -> Build:
    """Builds `program` for memory runs into build_dir/<tool>/."""
    return build(memory_tool(tool, counter), PROGRAMS[program], build_dir)


def parse_memory(stdout: str) -> tuple[int, int]:
    """(heap_peak, heap_allocated) from the `MEMORY ...` line."""
    found = re.search(r"^MEMORY heap_allocated=(\d+) heap_blocks=\d+ heap_peak=(-?\d+)$", stdout,
                      re.MULTILINE)
    if not found:
        raise RunError(f"no MEMORY line in output: {stdout[:200]!r}")
    return int(found.group(2)), int(found.group(1))


def tape_bytes(stderr: str, gradient_calls: int = GRADIENT_CALLS) -> int | None:
    """Tape bytes per gradient call from enzcc's `--enzc-tape-stats` report, or
    None without one."""
    lines = _TAPE_LINE.findall(stderr)
    if not lines:
        return None
    return sum(int(calls) * int(mean) for _, calls, mean, _ in lines) // gradient_calls


def measure(exe: Path, bench: Benchmark, inp: Input, tool: Tool, timeout: float = 3600.0) -> MemoryUse:
    """Runs `exe memory` on one input; raises RunError when it fails."""
    cmd = command(exe, "memory", bench, inp)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as err:
        raise RunError(f"timed out after {timeout:.0f} s: {' '.join(cmd)}") from err
    if done.returncode != 0:
        raise RunError(f"{' '.join(cmd)}: {done.stderr.strip() or done.returncode}")
    peak, allocated = parse_memory(done.stdout)
    tape = tape_bytes(done.stderr) if counts_tape(tool) else None
    return MemoryUse(bench.name, inp.name, tool.name, peak, allocated, tape)
