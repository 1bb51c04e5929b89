"""`python -m enzc.ir`: round trip of .ll and .bc files; clean errors and no partial output."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LLVM_AS = shutil.which("llvm-as-22")

MODULE = """define i32 @f(i32 %x) {
entry:   ; kept only by --lazy
  %y = mul i32 %x,   %x
  ret i32 %y
}
"""


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "enzc.ir", *args], input=stdin, capture_output=True, text=True)


def test_round_trip_to_file_and_stdout(tmp_path: Path) -> None:
    src = tmp_path / "in.ll"
    src.write_text(MODULE)
    out = tmp_path / "out.ll"
    proc = run_cli(str(src), "-o", str(out))
    assert proc.returncode == 0 and proc.stderr == ""
    expected = "define i32 @f(i32 %x) {\nentry:\n  %y = mul i32 %x, %x\n  ret i32 %y\n}\n"
    assert out.read_text() == expected
    proc = run_cli(str(src), "--lazy", "-o", "-")
    assert proc.returncode == 0 and proc.stdout == MODULE
    assert [p.name for p in tmp_path.iterdir()] and not list(tmp_path.glob(".*.tmp"))


def test_bitcode_input(tmp_path: Path) -> None:
    if LLVM_AS is None:
        pytest.skip("llvm-as-22 not installed")
    src = tmp_path / "in.ll"
    src.write_text(MODULE)
    bc = tmp_path / "in.bc"
    subprocess.run([LLVM_AS, str(src), "-o", str(bc)], check=True)
    proc = run_cli(str(bc))
    assert proc.returncode == 0, proc.stderr
    assert "define i32 @f(i32 %x) {\nentry:\n  %y = mul i32 %x, %x\n  ret i32 %y\n}\n" in proc.stdout


def test_malformed_input_clean_error_and_no_output(tmp_path: Path) -> None:
    src = tmp_path / "bad.ll"
    src.write_text("define i32 @f(i32 %x) {\n  %y = mul i32 %x, %q\n  ret i32 %y\n}\n")
    out = tmp_path / "out.ll"
    proc = run_cli(str(src), "-o", str(out))
    assert proc.returncode == 1
    assert proc.stderr == f"{src}:2:20: error: use of undefined value '%q'\n"
    assert proc.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.ll"]  # no output, no temporary file

    out.write_text("previous contents\n")
    proc = run_cli(str(src), "-o", str(out), "--lazy")  # lazy: the body is never parsed, so this succeeds
    assert proc.returncode == 0 and out.read_text() != "previous contents\n"
    out.write_text("previous contents\n")
    proc = run_cli(str(src), "-o", str(out))
    assert proc.returncode == 1 and out.read_text() == "previous contents\n"  # untouched on error


@pytest.mark.parametrize("content,fragment", [
    (None, "cannot read file"),
    (b"BC\xc0\xde\x00\x00garbage", "invalid bitcode"),
    (b"@g = global i32 0\n@g = global i32 1\n", ":2:1: error: redefinition of global '@g'"),
])
def test_unreadable_inputs(tmp_path: Path, content: bytes | None, fragment: str) -> None:
    src = tmp_path / "x.ll"
    if content is not None:
        src.write_bytes(content)
    proc = run_cli(str(src), "-o", str(tmp_path / "out.ll"))
    assert proc.returncode == 1
    assert fragment in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert not (tmp_path / "out.ll").exists()


def test_stdin_input() -> None:
    proc = run_cli("-", stdin=MODULE)
    assert proc.returncode == 0 and "%y = mul i32 %x, %x" in proc.stdout
