"""Read Unix `ar` archives (GNU/SysV and BSD variants, regular and thin).

The link step needs what `ld` sees in a static library: its members and the
symbol index that says which member defines which symbol. Members are read
lazily-by-slice from one bytes buffer; thin archives read member files by path.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from enzc.errors import EnzcError

MAGIC = b"!<arch>\n"
THIN_MAGIC = b"!<thin>\n"
_HEADER_SIZE = 60
_FMAG = b"`\n"


class ArchiveError(EnzcError):
    """A file that claims to be an archive cannot be read as one."""


_Bad = Callable[[str], ArchiveError]


@dataclass(frozen=True)
class Member:
    """One object (or other file) stored in an archive."""

    name: str
    """The member's file name as `ar t` prints it."""
    offset: int
    """Offset of the member's header: what the archive's symbol index points at."""
    data: bytes = field(repr=False)
    """The member's contents."""


@dataclass(frozen=True)
class Archive:
    """A parsed archive: members in order and the symbol index, if it has one."""

    path: str
    members: tuple[Member, ...]
    index: dict[str, int] | None
    """Symbol name -> header offset of the defining member (first one wins, as in ld);
    None when the archive has no index (no `/`, `/SYM64/` or `__.SYMDEF` member)."""

    @cached_property
    def _by_offset(self) -> dict[int, Member]:
        return {member.offset: member for member in self.members}

    def member_at(self, offset: int) -> Member | None:
        """The member whose header starts at `offset` (what index entries point at)."""
        return self._by_offset.get(offset)

    def label(self, member: Member) -> str:
        """`lib.a(member.o)`, the way linkers name archive members in messages."""
        return f"{self.path}({member.name})"


def is_archive(head: bytes) -> bool:
    """True if `head` (the first bytes of a file) starts an archive."""
    return head.startswith(MAGIC) or head.startswith(THIN_MAGIC)


def read_archive(path: str) -> Archive:
    """Parse the archive at `path`; raise ArchiveError with the reason if malformed."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise ArchiveError(f"enzcc: error: cannot read '{path}': {err.strerror}") from None
    return parse_archive(path, data)


def parse_archive(path: str, data: bytes) -> Archive:
    """Parse archive bytes `data` (read from `path`, used for messages and thin members)."""
    if data.startswith(MAGIC):
        thin = False
    elif data.startswith(THIN_MAGIC):
        thin = True
    else:
        raise ArchiveError(f"enzcc: error: '{path}': not an archive (bad magic)")

    def bad(reason: str) -> ArchiveError:
        return ArchiveError(f"enzcc: error: '{path}': malformed archive: {reason}")

    members: list[Member] = []
    raw_index: tuple[bytes, bool] | None = None  # (payload, is_64_bit) of the GNU index
    bsd_index: bytes | None = None
    long_names = b""
    pos = len(MAGIC)
    while pos < len(data):
        if data[pos:pos + 1] == b"\n":  # padding some writers leave at the end
            pos += 1
            continue
        header = data[pos:pos + _HEADER_SIZE]
        if len(header) < _HEADER_SIZE or header[58:60] != _FMAG:
            raise bad(f"truncated or corrupt member header at offset {pos}")
        raw_name = header[0:16].rstrip(b" ")
        size = _decimal(header[48:58])
        if size is None:
            raise bad(f"bad member size {header[48:58].decode('latin-1').strip()!r} "
                      f"at offset {pos}")
        body_start = pos + _HEADER_SIZE
        special = raw_name in (b"/", b"/SYM64/", b"//")
        stored = size if (not thin or special) else 0
        body = data[body_start:body_start + stored]
        if len(body) < stored:
            raise bad(f"member at offset {pos} runs past the end of the file")
        name, body = _member_name(raw_name, body, long_names, bad)
        match raw_name:
            case b"/":
                raw_index = (body, False)
            case b"/SYM64/":
                raw_index = (body, True)
            case b"//":
                long_names = body
            case _ if name in ("__.SYMDEF", "__.SYMDEF SORTED"):
                bsd_index = body
            case _:
                if thin:
                    body = _read_thin_member(path, name, bad)
                members.append(Member(name, pos, body))
        pos = body_start + stored + (stored & 1)

    index: dict[str, int] | None = None
    if raw_index is not None:
        index = _parse_gnu_index(*raw_index, bad)
    elif bsd_index is not None:
        index = _parse_bsd_index(bsd_index, bad)
    return Archive(path, tuple(members), index)


def _member_name(raw: bytes, body: bytes, long_names: bytes, bad: _Bad) -> tuple[str, bytes]:
    """Decode a member name (GNU `name/`, `/offset`, BSD `#1/len`); return (name, body)."""
    if raw.startswith(b"#1/"):  # BSD: the name is the first `len` bytes of the body
        length = _decimal(raw[3:])
        if length is None or length > len(body):
            raise bad(f"bad BSD member name {raw.decode('latin-1')!r}")
        return body[:length].rstrip(b"\0").decode("utf-8", "replace"), body[length:]
    if raw.startswith(b"/") and raw[1:].isdigit():
        start = int(raw[1:])
        end = long_names.find(b"/\n", start)
        if start >= len(long_names) or end < 0:
            raise bad(f"member name {raw.decode()} points outside the name table")
        return long_names[start:end].decode("utf-8", "replace"), body
    if raw.endswith(b"/") and raw not in (b"/", b"//"):
        raw = raw[:-1]
    return raw.decode("utf-8", "replace"), body


def _decimal(field: bytes) -> int | None:
    """A space-padded unsigned decimal header field (sizes, name lengths), else None.

    `int()` alone would take `-5`, `+5` or `1_0`; a negative size once made the reader
    step backwards forever."""
    digits = field.strip(b" ")
    return int(digits) if digits.isdigit() else (0 if not digits else None)


def _read_thin_member(path: str, name: str, bad: _Bad) -> bytes:
    """A thin archive stores member paths relative to the archive's directory."""
    member_path = os.path.join(os.path.dirname(path), name)
    if "\0" in name:  # no file can have that name (open() would raise ValueError)
        raise bad(f"thin archive member name {name!r} contains a NUL byte")
    try:
        with open(member_path, "rb") as f:
            return f.read()
    except OSError as err:
        raise bad(f"thin archive member '{member_path}': {err.strerror}") from None


def _parse_gnu_index(payload: bytes, is64: bool, bad: _Bad) -> dict[str, int]:
    """GNU/SysV index: big-endian count, `count` offsets, then NUL-terminated names."""
    width = 8 if is64 else 4
    if len(payload) < width:
        raise bad("truncated symbol index")
    count = int.from_bytes(payload[:width], "big")
    names_start = width + count * width
    if names_start > len(payload):
        raise bad("symbol index claims more entries than it holds")
    names = payload[names_start:].split(b"\0")
    if len(names) < count:
        raise bad("symbol index has fewer names than offsets")
    index: dict[str, int] = {}
    for i in range(count):
        offset = int.from_bytes(payload[width + i * width:width + (i + 1) * width], "big")
        index.setdefault(names[i].decode("utf-8", "replace"), offset)
    return index


def _parse_bsd_index(payload: bytes, bad: _Bad) -> dict[str, int]:
    """BSD `__.SYMDEF`: little-endian ranlib pairs (string offset, member offset)."""
    if len(payload) < 4:
        raise bad("truncated symbol index")
    ranlib_size = int.from_bytes(payload[:4], "little")
    strings_at = 4 + ranlib_size + 4
    if strings_at > len(payload):
        raise bad("truncated symbol index")
    strings = payload[strings_at:]
    index: dict[str, int] = {}
    for i in range(0, ranlib_size - ranlib_size % 8, 8):
        name_at = int.from_bytes(payload[4 + i:8 + i], "little")
        offset = int.from_bytes(payload[8 + i:12 + i], "little")
        end = strings.find(b"\0", name_at)
        index.setdefault(strings[name_at:end if end >= 0 else None].decode("utf-8", "replace"), offset)
    return index
