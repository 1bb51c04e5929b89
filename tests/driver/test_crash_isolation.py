"""Crash isolation: LLVM dying inside enzc (an assertion on corrupted bitcode, a fatal
`LLVM ERROR`) is a located `error:` with exit 1, no output and no temporary files."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ENZCC, run, temp_leftovers

from enzc.errors import EnzcError
from enzc.isolation import IsolatedCrash, run_isolated, step

_PARSE_IN_CHILD = ("import sys, llvmlite.binding as llvm; "
                   "llvm.parse_bitcode(open(sys.argv[1], 'rb').read())")


def test_isolated_work_returns_its_result_and_raises_its_errors() -> None:
    assert run_isolated(lambda: {"x": [1, 2]}) == {"x": [1, 2]}

    def fails() -> None:
        err = EnzcError("enzcc: error: something precise")
        err.exit_code = 3
        raise err

    with pytest.raises(EnzcError, match="something precise") as info:
        run_isolated(fails)
    assert info.value.exit_code == 3


def test_a_dying_child_is_an_error_naming_the_last_step() -> None:
    def aborts() -> None:
        step("reading the IR of 'lib.a(m.o)'")
        os.abort()

    with pytest.raises(IsolatedCrash, match=r"enzcc: error: LLVM crashed while reading the IR "
                       r"of 'lib.a\(m.o\)': killed by SIGABRT \(the file is corrupt"):
        run_isolated(aborts)

    def exits() -> None:
        step("running O2*")
        os.write(2, b"a warning first\nLLVM ERROR: out of cheese\n")  # as LLVM writes
        os._exit(1)

    with pytest.raises(IsolatedCrash, match="LLVM failed while running O2\\*: out of cheese$"):
        run_isolated(exits)


def _crashing_bitcode(tmp_path: Path) -> Path:
    """Bitcode that makes LLVM 22 (llvmlite's, built with assertions) abort: found by
    corrupting a small module's bitcode with seeded random bytes until a child dies."""
    source = tmp_path / "m.c"
    source.write_text("double f(double x) { return x * x + 3.0 * x; }\n"
                      "int g(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i];"
                      " return s; }\n")
    good = tmp_path / "m.bc"
    subprocess.run(["clang-22", "-O2", "-c", "-emit-llvm", str(source), "-o", str(good)],
                   check=True)
    data = good.read_bytes()
    bad = tmp_path / "bad.bc"
    for seed in range(300):
        rnd = random.Random(seed)
        mutated = bytearray(data)
        for _ in range(rnd.randint(1, 4)):
            mutated[rnd.randrange(32, len(data))] = rnd.randrange(256)
        bad.write_bytes(bytes(mutated))
        probe = subprocess.run([sys.executable, "-c", _PARSE_IN_CHILD, str(bad)],
                               capture_output=True)
        if probe.returncode < 0:
            return bad
    pytest.skip("no corruption of the sample bitcode crashes this LLVM")


def test_bitcode_that_crashes_llvm_is_a_located_error(tmp_path: Path,
                                                       tmpdir_env: dict[str, str]) -> None:
    bad = _crashing_bitcode(tmp_path)
    out = run([ENZCC, str(bad), "-o", "prog"], tmp_path, tmpdir_env, check=False)
    assert out.returncode == 1, out.stderr
    assert f"enzcc: error: LLVM crashed while reading the IR of '{bad}'" in out.stderr
    assert "Traceback" not in out.stderr and "Assertion" not in out.stderr
    assert not (tmp_path / "prog").exists() and temp_leftovers(tmpdir_env) == []

    archive = tmp_path / "libbad.a"
    subprocess.run(["llvm-ar-22", "rc", str(archive), str(bad)], check=True)
    main = tmp_path / "main.c"
    main.write_text("double f(double);\nint main(void) { return (int)f(2.0); }\n")
    out = run([ENZCC, str(main), str(archive), "-o", "prog"], tmp_path, tmpdir_env,
              check=False)
    assert out.returncode == 1, out.stderr
    assert f"LLVM crashed while reading the IR of '{archive}(bad.bc)'" in out.stderr
    assert temp_leftovers(tmpdir_env) == []

    ir = run([sys.executable, "-m", "enzc.ir", str(bad)], tmp_path, tmpdir_env, check=False)
    assert ir.returncode == 1 and f"{bad}:1:1: error: LLVM crashed while reading" in ir.stderr
    assert temp_leftovers(tmpdir_env) == []


def test_llvm_fatal_error_in_o2_star_is_an_error(tmp_path: Path,
                                                 tmpdir_env: dict[str, str]) -> None:
    """LLVM ends the process with `exit(1)` on this CPU name (clang says the same)."""
    source = tmp_path / "badcpu.ll"
    source.write_text('target triple = "x86_64-pc-linux-gnu"\n'
                      "define i32 @main() #0 {\n  ret i32 0\n}\n"
                      'attributes #0 = { "target-cpu"="bogus" }\n')
    out = run([ENZCC, str(source), "-o", "prog"], tmp_path, tmpdir_env, check=False)
    assert out.returncode == 1
    assert out.stderr.splitlines()[-1] == ("enzcc: error: LLVM failed while running O2*: 64-bit "
                                           "code requested on a subtarget that doesn't support it!")
    assert not (tmp_path / "prog").exists() and temp_leftovers(tmpdir_env) == []


def test_ir_asking_for_unbounded_memory_is_a_clean_error(tmp_path: Path,
                                                         tmpdir_env: dict[str, str]) -> None:
    """obj:7008211 (a corrupted enzcc object): LLVM reading its `.llvmbc` allocates
    without bound; enzcc's link child took the machine's memory for 40 s until the
    kernel killed it (a hang under load). Reading is capped as in enzc.ir: a clean
    error in about a second, the same for a `.bc` input (bc-3002812)."""
    cases = [Path(__file__).parent / "fuzz_cases" / "obj-7008211.o",
             Path(__file__).parent.parent / "ir" / "fuzz_cases" / "bc-3002812.bc"]
    for case in cases:
        out = run([ENZCC, str(case), "-lm", "-o", "prog"], tmp_path, tmpdir_env, check=False)
        assert out.returncode == 1, out.stderr
        assert out.stderr.strip().splitlines()[-1] == (
            f"enzcc: error: LLVM failed while reading the IR of '{case}': out of memory "
            "(the file is corrupt or was not written by LLVM 22)")
        assert not (tmp_path / "prog").exists() and temp_leftovers(tmpdir_env) == []


def test_the_reading_limit_is_lifted_after_reading() -> None:
    """The link child goes on to link, optimise and differentiate: only reading is capped."""
    from enzc.isolation import growth_limited

    def allocate_after_a_limited_block() -> int:
        with growth_limited(64 << 20):
            with pytest.raises(MemoryError):
                bytearray(256 << 20)
        return len(bytearray(256 << 20))

    assert run_isolated(allocate_after_a_limited_block) == 256 << 20
