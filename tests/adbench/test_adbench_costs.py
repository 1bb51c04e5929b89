"""The cost reports: heap and tape bytes per derivative call, compile times."""

from __future__ import annotations

from pathlib import Path

import pytest
from adbench_support import case

from benchmarks.adbench import costs
from benchmarks.adbench.compile_time import CompileTime, parse_stages, time_build
from benchmarks.adbench.memory import (
    MemoryUse,
    build_counter,
    build_for_memory,
    measure,
    parse_memory,
    tape_bytes,
)
from benchmarks.adbench.runner import RunError
from benchmarks.adbench.suite import BENCHMARKS


def test_tape_bytes_sum_every_derivative_per_gradient_call():
    stderr = ("noise\nenzc: diffe_f: 2 calls, tape bytes per call: mean 100, max 120\n"
              "enzc: split_g: 8 calls, tape bytes per call: mean 10, max 10\n")
    assert tape_bytes(stderr) == (2 * 100 + 8 * 10) // 2
    assert tape_bytes("no report") is None


def test_parse_memory_and_stages():
    assert parse_memory("x\nMEMORY heap_allocated=300 heap_blocks=3 heap_peak=200\n") == (200, 300)
    with pytest.raises(RunError):
        parse_memory("RESULT ...")
    report = "enzcc: time per stage (s)\nenzcc:   frontend      0.500\nenzcc:   O2*    0.25\nenzcc:   total 1.0\n"
    assert parse_stages(report) == {"frontend": 0.5, "O2*": 0.25}


def test_every_benchmark_has_a_representative_input():
    assert set(costs.REPRESENTATIVE) == {b.name for b in BENCHMARKS}


def test_tables():
    uses = [MemoryUse("fft", "n8", "manual", 2_000_000, 3_000_000, None),
            MemoryUse("fft", "n8", "enzcc", 5_000_000, 6_000_000, 4_000_000)]
    text = costs.memory_table(uses, ["manual", "enzcc"])
    assert "| fft       | n8    | 2.00" in text and "| 4.00 " in text and "| 2.0 " in text
    times = [CompileTime("fft", "manual", 1.0, 0.5, {}),
             CompileTime("fft", "enzcc", 3.0, 2.0, {"frontend": 1.0, "AD": 0.25})]
    text = costs.compile_table(times, ["manual", "enzcc"])
    assert "1.00 (0.50)" in text and "3.00 (2.00)" in text and "0.25" in text


def test_memory_runs_measure_what_the_derivative_allocates(tmp_path: Path, tool_by_name):
    """manual's FFT gradient allocates one 2n-double buffer; enzcc's tape is counted
    (from `--enzc-tape-stats`), and comes from the tape stack the warm-up call left,
    so the measured call's heap does not hold it again."""
    counter = build_counter(tmp_path)
    bench, inp = case("fft", "n=64")
    manual = build_for_memory(tool_by_name("manual"), "fft", tmp_path, counter)
    assert manual.exe, manual.error
    use = measure(manual.exe, bench, inp, tool_by_name("manual"))
    assert 2 * 64 * 8 <= use.heap_peak <= use.heap_allocated < 2 * 64 * 8 + 64
    assert use.tape_bytes is None
    enzcc = build_for_memory(tool_by_name("enzcc"), "fft", tmp_path, counter)
    assert enzcc.exe, enzcc.error
    use = measure(enzcc.exe, bench, inp, tool_by_name("enzcc"))
    assert use.tape_bytes is not None and use.tape_bytes > 0
    assert use.heap_allocated < use.tape_bytes


def test_compile_time_of_a_build(tmp_path: Path, tool_by_name):
    timed = time_build(tool_by_name("enzcc"), "fft", tmp_path, repeat=1)
    assert timed is not None and timed.wall_s > 0 and timed.cpu_s > 0
    assert {"frontend", "O2*", "AD", "codegen"} <= set(timed.stages)


def test_build_failures_are_reported_in_one_line():
    message = "build failed (exit 254):\n#1 0x0 somewhere\nclang-19: error: unable to execute command: Aborted\n#2"
    assert costs._headline(message) == ("build failed (exit 254):; "
                                        "clang-19: error: unable to execute command: Aborted")
