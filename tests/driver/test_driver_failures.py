"""Bad input: a clear message, a non-zero exit, no traceback, no output file and no
temporary file left behind, whatever the failure and whenever it happens."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from conftest import ENZCC, run, temp_leftovers

from enzc.frontend import cli

GOOD = "int helper(void);\nint main(void) { return helper(); }\n"
HELPER = "int helper(void) { return 0; }\n"


def _write_files(work: Path, files: dict[str, bytes | str]) -> None:
    for name, content in files.items():
        data = content.encode() if isinstance(content, str) else content
        (work / name).write_bytes(data)


def _elf_with_bad_bitcode(work: Path, env: dict[str, str]) -> None:
    (work / "helper.c").write_text(HELPER)
    (work / "junk.bin").write_bytes(b"BC\xc0\xde" + b"\x00" * 64)
    run(["clang-22", "-c", "helper.c", "-o", "badbc.o"], work, env)
    run(["llvm-objcopy-22", "--add-section", ".llvmbc=junk.bin", "badbc.o"], work, env)


def _truncated_object(work: Path, env: dict[str, str]) -> None:
    (work / "helper.c").write_text(HELPER)
    run(["clang-22", "-c", "helper.c", "-o", "full.o"], work, env)
    (work / "bad.o").write_bytes((work / "full.o").read_bytes()[:200])


def _truncated_archive(work: Path, env: dict[str, str]) -> None:
    (work / "helper.c").write_text(HELPER)
    run([ENZCC, "-c", "helper.c"], work, env)
    run(["ar", "rcs", "libfull.a", "helper.o"], work, env)
    data = (work / "libfull.a").read_bytes()
    (work / "libbad.a").write_bytes(data[:len(data) // 2])


CASES = {
    "missing input": ({}, None, ["nothere.c", "-o", "prog"],
                      r"enzcc: error: no such file or directory: 'nothere.c'"),
    "unknown enzc option": ({"main.c": GOOD}, None, ["--enzc-bogus", "main.c", "-o", "prog"],
                            r"enzcc: error: unknown enzc option '--enzc-bogus'"),
    "corrupt object": ({"main.c": GOOD, "bad.o": b"\x00garbage" * 40}, None,
                       ["main.c", "bad.o", "-o", "prog"],
                       r"enzcc: error: 'bad.o': not an ELF object or LLVM bitcode file"),
    "truncated ELF object": ({"main.c": GOOD}, _truncated_object, ["main.c", "bad.o", "-o", "prog"],
                             r"enzcc: error: 'bad.o': malformed ELF object"),
    "corrupt bitcode section": ({"main.c": GOOD}, _elf_with_bad_bitcode,
                                ["main.c", "badbc.o", "-o", "prog"],
                                r"enzcc: error: 'badbc.o': invalid LLVM IR"),
    "archive without magic": ({"main.c": GOOD, "libbad.a": b"not an archive at all"}, None,
                              ["main.c", "libbad.a", "-o", "prog"],
                              r"enzcc: error: 'libbad.a': not an archive"),
    "truncated archive": ({"main.c": GOOD}, _truncated_archive, ["main.c", "libbad.a", "-o",
                                                                 "prog"],
                          r"enzcc: error: 'libbad.a': malformed archive"),
    "unresolved symbol": ({"main.c": GOOD}, None, ["main.c", "-o", "prog"],
                          r"undefined reference to `helper'"),
    "unresolved symbol, -c objects": ({"main.c": GOOD}, None, ["-c", "main.c", "-o", "prog"],
                                      None),
}


@pytest.mark.parametrize("case", CASES)
def test_failure_is_clean(tmp_path: Path, tmpdir_env: dict[str, str], case: str) -> None:
    files, prepare, argv, message = CASES[case]
    work = tmp_path / "work"
    work.mkdir()
    _write_files(work, files)
    if prepare is not None:
        prepare(work, tmpdir_env)
    result = run([ENZCC, "-O2", *argv], work, tmpdir_env, check=False)
    if message is None:  # -c of that file is fine: a later link fails, not the compile
        assert result.returncode == 0
        result = run([ENZCC, "prog", "-o", "prog2"], work, tmpdir_env, check=False)
        message, argv = r"undefined reference to `helper'", ["-o", "prog2"]
    assert result.returncode != 0
    assert message is not None and re.search(message, result.stderr), result.stderr
    assert "Traceback" not in result.stderr
    assert not (work / argv[-1]).exists()
    assert temp_leftovers(tmpdir_env) == []


@pytest.mark.parametrize("mode", [["-c"], ["-S"], []])
def test_syntax_error_shows_clangs_diagnostic_and_exit_code(tmp_path: Path,
                                                           tmpdir_env: dict[str, str],
                                                           mode: list[str]) -> None:
    (tmp_path / "bad.c").write_text("int main(void) { return 0 }\n")
    ours = run([ENZCC, *mode, "bad.c", "-o", "out"], tmp_path, tmpdir_env, check=False)
    theirs = run(["clang-22", *mode, "bad.c", "-o", "out"], tmp_path, tmpdir_env, check=False)
    assert ours.returncode == theirs.returncode != 0
    assert ours.stderr == theirs.stderr and "error: expected ';'" in ours.stderr
    assert not (tmp_path / "out").exists()
    assert temp_leftovers(tmpdir_env) == []


def test_syntax_errors_in_parallel_frontends_are_all_shown_in_order(
        tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    (tmp_path / "a.c").write_text("int a(void) { return 1 }\n")
    (tmp_path / "b.c").write_text("int b(void) { return x; }\n")
    result = run([ENZCC, "a.c", "b.c", "-o", "prog"], tmp_path, tmpdir_env, check=False)
    assert result.returncode == 1
    assert result.stderr.index("a.c:1:") < result.stderr.index("b.c:1:")
    assert not (tmp_path / "prog").exists() and temp_leftovers(tmpdir_env) == []


def test_failed_build_leaves_an_existing_output_untouched(tmp_path: Path,
                                                         tmpdir_env: dict[str, str]) -> None:
    (tmp_path / "main.c").write_text(GOOD)
    (tmp_path / "prog").write_text("previous build\n")
    result = run([ENZCC, "main.c", "-o", "prog"], tmp_path, tmpdir_env, check=False)
    assert result.returncode != 0
    assert (tmp_path / "prog").read_text() == "previous build\n"


def test_unwritable_output_directory(tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    (tmp_path / "main.c").write_text(GOOD + HELPER)
    result = run([ENZCC, "main.c", "-o", "no/such/dir/prog"], tmp_path, tmpdir_env, check=False)
    assert result.returncode == 1
    assert "enzcc: error: cannot write 'no/such/dir/prog'" in result.stderr
    assert temp_leftovers(tmpdir_env) == []


def test_internal_error_is_one_line_exit_70_and_cleans_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    temp = tmp_path / "TMPDIR"
    temp.mkdir()
    (tmp_path / "main.c").write_text(GOOD + HELPER)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))

    def broken(session: object) -> None:
        Path(session.temp("half-written")).write_text("x")  # type: ignore[attr-defined]
        raise KeyError("simulated bug")

    monkeypatch.setattr("enzc.frontend.link.link_program", broken)
    assert cli.run(["main.c", "-o", "prog"], cxx=False) == cli.EXIT_INTERNAL
    err = capsys.readouterr().err
    assert err.startswith("enzcc: internal error: KeyError") and err.count("\n") == 1
    assert os.listdir(temp) == [] and not (tmp_path / "prog").exists()


def test_sigterm_mid_build_removes_temporaries_and_stops_children(
        tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    # enzcc reads the source from a pipe that stays open, so the build is still
    # running (reading its input into the temporary directory) when the signal arrives;
    # other.c's frontend may be running too.
    (tmp_path / "other.c").write_text(HELPER)
    process = subprocess.Popen([ENZCC, "-x", "c", "-", "other.c", "-o", "prog"], cwd=tmp_path,
                               env=tmpdir_env, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not _reading_stdin_into(Path(tmpdir_env["TMPDIR"])) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.poll() is None
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)  # stdin still open: only the signal can end the build
    finally:
        assert process.stdin is not None and process.stderr is not None
        process.stdin.close()
        stderr = process.stderr.read()
        process.stderr.close()
    assert process.returncode == 128 + signal.SIGTERM
    assert b"Traceback" not in stderr
    assert temp_leftovers(tmpdir_env) == [] and not (tmp_path / "prog").exists()


def _reading_stdin_into(temp: Path) -> bool:
    """True once enzcc has made its temporary directory and started copying stdin."""
    return any((run_dir / "inputs").is_dir() for run_dir in temp.glob("enzcc-*"))
