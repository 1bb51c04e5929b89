"""The archive and ELF readers on malformed input: a clean `enzcc: error:` naming the
file and the problem, never a hang or a Python exception of another kind."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from enzc.lto.archive import ArchiveError, parse_archive


def _header(name: bytes, size: bytes) -> bytes:
    """A 60-byte GNU ar member header with `size` written verbatim in the size field."""
    return (name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6)
            + b"644".ljust(8) + size.ljust(10) + b"`\n")


@pytest.mark.parametrize("size", [b"-60", b"-1", b"+4", b"1_0", b"0x10", b"4 4", b"\xff"])
def test_bad_member_size_is_an_error_not_a_hang(size: bytes) -> None:
    data = b"!<arch>\n" + _header(b"a.o/", size) + b"abcd"
    with pytest.raises(ArchiveError, match="bad member size"):
        parse_archive("x.a", data)


@pytest.mark.parametrize("name", [b"#1/-3", b"#1/99", b"#1/x"])
def test_bad_bsd_name_length_is_an_error(name: bytes) -> None:
    data = b"!<arch>\n" + _header(name, b"4") + b"abcd"
    with pytest.raises(ArchiveError, match="bad BSD member name"):
        parse_archive("x.a", data)


def test_truncated_and_out_of_range_tables_are_errors(tmp_path: Path) -> None:
    ok = b"!<arch>\n" + _header(b"a.o/", b"4") + b"abcd"
    assert [m.name for m in parse_archive("x.a", ok).members] == ["a.o"]
    with pytest.raises(ArchiveError, match="points outside the name table"):
        parse_archive("x.a", b"!<arch>\n" + _header(b"/999", b"4") + b"abcd")
    with pytest.raises(ArchiveError, match="symbol index claims more entries"):
        parse_archive("x.a", b"!<arch>\n" + _header(b"/", b"4") + b"\xff\xff\xff\xff")
    with pytest.raises(ArchiveError, match="truncated symbol index"):
        parse_archive("x.a", b"!<arch>\n" + _header(b"/", b"2") + b"\0\0")


def test_ll_input_with_nul_and_non_utf8_bytes_links_as_with_clang(tmp_path: Path) -> None:
    """llvmlite reads text up to the first NUL and as UTF-8; LLVM reads the bytes. A NUL
    in a comment once cut the module short, a non-UTF-8 string attribute gave exit 70."""
    import os
    import sys

    enzcc = os.path.join(os.path.dirname(sys.executable), "enzcc")
    source = tmp_path / "odd.ll"
    source.write_bytes(b'@s = private constant [5 x i8] c"ok\\FF\\0A\\00"\n'
                       b'@t = private constant [3 x i8] c"\xff\0\x00"\n'
                       b"declare i32 @printf(ptr, ...)\n"
                       b"; a comment with a NUL \0 before main\n"
                       b"define i32 @main() #0 {\n  call i32 (ptr, ...) @printf(ptr @s)\n"
                       b"  ret i32 0\n}\n"
                       b'attributes #0 = { "odd-\x85key"="v\xfe" }\n')
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = dict(os.environ, TMPDIR=str(temp))
    for compiler in (["clang-22"], [enzcc]):
        exe = tmp_path / f"prog-{len(compiler[0])}"
        built = subprocess.run([*compiler, str(source), "-o", str(exe)], capture_output=True,
                               env=env)
        assert built.returncode == 0, built.stderr.decode(errors="replace")
        assert subprocess.run([str(exe)], capture_output=True).stdout == b"ok\xff\n"
    assert os.listdir(temp) == []


def test_ir_for_a_triple_llvm_has_no_target_for_is_an_error() -> None:
    """obj:3300629: a damaged object's IR named the triple `x8664-pc-linux-gnu`; making
    the target machine for O2* raised RuntimeError, an internal error of enzcc."""
    import llvmlite.binding as llvm

    from enzc.errors import EnzcError
    from enzc.frontend.passes import run_o2_star
    from enzc.lto.irmodule import initialize_llvm

    initialize_llvm()
    module = llvm.parse_assembly('target triple = "x8664-pc-linux-gnu"\n')
    with pytest.raises(EnzcError, match="'x8664-pc-linux-gnu', for which LLVM has no target"):
        run_o2_star(module)
