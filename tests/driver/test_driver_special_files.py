"""Outputs and inputs that are not regular files, handled as clang handles them.

An output that is a device or a FIFO (`-o /dev/null`, `-MF /dev/null`, a named pipe)
is written into, never replaced by a regular file. The real `/dev/null` is never
touched: the device node is a copy made with mknod in the test's directory (root
only). An input that can be read only once (stdin, `/dev/stdin`, a FIFO, `<(...)`) is
read once, and the program built from it is the one clang would build.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import ENZCC, run, temp_leftovers

PROGRAM = r"""
#include <stdio.h>
#include <enzyme/enzyme.h>
static double cube(double x) { return x * x * x; }
int main(void) { printf("%.17g\n", __enzyme_autodiff((void *)cube, 2.0)); return 0; }
"""
IR = """
define double @square(double %x) {
  %y = fmul double %x, %x
  ret double %y
}
"""


class _FifoReader:
    """Reads everything written into a FIFO, in a thread (a writer blocks without one)."""

    def __init__(self, path: Path) -> None:
        self.data = b""
        self._thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self._thread.start()

    def _read(self, path: Path) -> None:
        with open(path, "rb") as f:
            self.data = f.read()

    def result(self) -> bytes:
        self._thread.join(timeout=60)
        assert not self._thread.is_alive(), "nothing was written into the FIFO"
        return self.data


def _fifo(directory: Path, name: str = "out.fifo") -> Path:
    path = directory / name
    os.mkfifo(path)
    return path


NULL_DEVICE = os.makedev(1, 3)
"""Linux's numbers for /dev/null (not read from /dev/null: it may itself have been
replaced by a regular file, which is the bug these tests guard against)."""


def _null_device(directory: Path) -> Path:
    """A character device with /dev/null's numbers, in `directory` (needs root)."""
    if os.geteuid() != 0:
        pytest.skip("creating a device node needs root")
    path = directory / "null"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, NULL_DEVICE)
        with open(path, "wb"):
            pass
    except PermissionError:
        pytest.skip("mknod is not permitted here")
    return path


def _is_char_device(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "prog.c").write_text(PROGRAM)
    return tmp_path


@pytest.mark.parametrize("mode", [["-c"], ["-S"], ["-S", "-emit-llvm"], []])
def test_output_into_a_fifo(work: Path, tmpdir_env: dict[str, str], mode: list[str]) -> None:
    fifo = _fifo(work)
    reader = _FifoReader(fifo)
    run([ENZCC, "-O2", *mode, "prog.c", "-o", str(fifo)], work, tmpdir_env)
    data = reader.result()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    if mode in (["-c"], []):
        assert data.startswith(b"\x7fELF")
    else:
        assert b"main" in data
    if not mode:  # the executable that went through the FIFO is the program
        (work / "prog").write_bytes(data)
        (work / "prog").chmod(0o755)
        assert float(run([str(work / "prog")], work, tmpdir_env).stdout) == 12.0
    assert temp_leftovers(tmpdir_env) == []


def test_dependency_file_into_a_fifo(work: Path, tmpdir_env: dict[str, str]) -> None:
    fifo = _fifo(work, "deps.fifo")
    reader = _FifoReader(fifo)
    run([ENZCC, "-O2", "-c", "prog.c", "-o", "prog.o", "-MD", "-MF", str(fifo)], work, tmpdir_env)
    assert reader.result().startswith(b"prog.o: prog.c")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert (work / "prog.o").is_file()


@pytest.mark.parametrize("mode", [["-c"], ["-S", "-emit-llvm"], []])
def test_output_and_dependency_file_into_a_device(work: Path, tmpdir_env: dict[str, str],
                                                  mode: list[str]) -> None:
    null = _null_device(work)
    run([ENZCC, "-O2", *mode, "prog.c", "-o", str(null), "-MD", "-MF", str(null)], work,
        tmpdir_env)
    assert _is_char_device(null) and os.stat(null).st_rdev == NULL_DEVICE
    assert temp_leftovers(tmpdir_env) == []


def test_symlink_to_a_device_stays_a_symlink(work: Path, tmpdir_env: dict[str, str]) -> None:
    null = _null_device(work)
    (work / "link").symlink_to(null)
    run([ENZCC, "-O2", "-c", "prog.c", "-o", "link"], work, tmpdir_env)
    assert (work / "link").is_symlink() and _is_char_device(null)


def test_enzc_ir_writes_into_a_device_and_a_fifo(work: Path, tmpdir_env: dict[str, str]) -> None:
    (work / "m.ll").write_text(IR)
    null = _null_device(work)
    run([sys.executable, "-m", "enzc.ir", "m.ll", "-o", str(null)], work, tmpdir_env)
    assert _is_char_device(null)
    fifo = _fifo(work)
    reader = _FifoReader(fifo)
    run([sys.executable, "-m", "enzc.ir", "m.ll", "-o", str(fifo)], work, tmpdir_env)
    assert b"define double @square" in reader.result()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_unwritable_dependency_file_leaves_no_object(work: Path,
                                                     tmpdir_env: dict[str, str]) -> None:
    result = run([ENZCC, "-O2", "-c", "prog.c", "-o", "prog.o", "-MD", "-MF", "no/dir/prog.d"],
                 work, tmpdir_env, check=False)
    assert result.returncode != 0 and "no/dir/prog.d" in result.stderr
    assert not (work / "prog.o").exists()
    assert temp_leftovers(tmpdir_env) == []


def _gradient(work: Path, env: dict[str, str]) -> float:
    return float(run([str(work / "prog")], work, env).stdout)


def test_dev_stdin_is_read_once(work: Path, tmpdir_env: dict[str, str]) -> None:
    run([ENZCC, "-O2", "-c", "-x", "c", "/dev/stdin", "-o", "prog.o"], work, tmpdir_env,
        input=PROGRAM.encode())
    run([ENZCC, "prog.o", "-o", "prog"], work, tmpdir_env)
    assert _gradient(work, tmpdir_env) == 12.0


@pytest.mark.parametrize("mode", [["-c", "-o", "prog.o"], ["-o", "prog"]])
def test_process_substitution_is_read_once(work: Path, tmpdir_env: dict[str, str],
                                           mode: list[str]) -> None:
    script = f'exec "{ENZCC}" -O2 -x c <(cat prog.c) {" ".join(mode)}'
    run(["bash", "-c", script], work, tmpdir_env)
    if "-c" in mode:
        run([ENZCC, "prog.o", "-o", "prog"], work, tmpdir_env)
    assert _gradient(work, tmpdir_env) == 12.0


def test_fifo_source_keeps_its_name_and_directory(work: Path, tmpdir_env: dict[str, str]) -> None:
    (work / "src").mkdir()
    (work / "src" / "cube.h").write_text("static double cube(double x) { return x * x * x; }\n")
    text = PROGRAM.replace("static double cube(double x) { return x * x * x; }",
                           '#include "cube.h"\nstatic int unused_warning(void) { return 0; }')
    fifo = _fifo(work / "src", "prog.fifo")
    writer = subprocess.Popen(["sh", "-c", f'cat > "{fifo}"'], stdin=subprocess.PIPE)
    assert writer.stdin is not None
    writer.stdin.write(text.encode())
    writer.stdin.close()
    result = run([ENZCC, "-O2", "-Wall", "-x", "c", "src/prog.fifo", "-MD", "-MF", "prog.d",
                  "-o", "prog"], work, tmpdir_env)
    writer.wait(timeout=60)
    assert "src/prog.fifo:5:12: warning: unused function 'unused_warning'" in result.stderr
    deps = (work / "prog.d").read_text().replace("\\\n", " ").split()
    assert deps[:2] == ["prog:", "src/prog.fifo"] and "src/cube.h" in deps
    assert not any("enzcc-" in dep for dep in deps)
    assert _gradient(work, tmpdir_env) == 12.0
    assert temp_leftovers(tmpdir_env) == []


@pytest.mark.parametrize("lang", ["c", "ir"])
def test_stdin_diagnostics_name_stdin(work: Path, tmpdir_env: dict[str, str], lang: str) -> None:
    source = "int f(void) { return undeclared; }\n" if lang == "c" else "define i32 @f( {\n"
    result = run([ENZCC, "-c", "-x", lang, "-", "-o", "x.o"], work, tmpdir_env,
                 input=source.encode(), check=False)
    assert result.returncode == 1 and result.stderr.startswith("<stdin>:")
    assert not (work / "x.o").exists() and temp_leftovers(tmpdir_env) == []


def test_ir_from_stdin_is_linked_as_ir(work: Path, tmpdir_env: dict[str, str]) -> None:
    (work / "main.c").write_text('#include <stdio.h>\n#include <enzyme/enzyme.h>\n'
                                 'double square(double);\n'
                                 'int main(void) { printf("%g\\n", '
                                 '__enzyme_autodiff((void *)square, 3.0)); return 0; }\n')
    run([ENZCC, "-O2", "-x", "ir", "-", "-x", "none", "main.c", "-o", "prog"], work, tmpdir_env,
        input=IR.encode())
    assert _gradient(work, tmpdir_env) == 6.0
