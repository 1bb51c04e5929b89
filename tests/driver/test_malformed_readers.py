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
