"""Mutations of textual IR, ELF objects and `ar` archives, driven by a `random.Random`.

Each `mutate_*` function takes the seed's bytes and a Random and returns new bytes;
the same Random state gives the same mutant (campaigns replay a case from its
number; hypothesis passes a Random it can shrink). The mutations aim where readers
break: tokens swapped for others of the language, boundary numbers in sizes,
alignments and offsets, names and strings with NUL and non-UTF-8 bytes, deep
nesting, lines split or moved, tables pointing outside the file, truncation.
"""

from __future__ import annotations

import random
import re
import struct
from collections.abc import Callable

Mutator = Callable[[bytes, random.Random], bytes]

# --- textual IR ------------------------------------------------------------------

_TOKEN = re.compile(rb'c?"[^"\n]*"|;[^\n]*|[%@!#$]?[-a-zA-Z$._0-9]+|\s+|.', re.S)
_WORDS = [w.encode() for w in (
    "void i1 i8 i16 i32 i64 i128 i0 i7 i65 i8388608 half bfloat float double fp128 x86_fp80 "
    "ppc_fp128 ptr label metadata token x86_amx <4 x i32> [2 x i8] {i32, ptr} <{i8}> "
    "<vscale x 2 x i64> ptr addrspace(1) opaque type "
    "add sub mul udiv sdiv fadd fsub fmul fdiv frem shl lshr ashr and or xor icmp fcmp eq ne "
    "slt ult oeq une select phi br switch ret unreachable call invoke landingpad resume "
    "load store alloca getelementptr extractvalue insertvalue extractelement insertelement "
    "shufflevector trunc zext sext fptrunc fpext bitcast ptrtoint inttoptr addrspacecast "
    "freeze atomicrmw cmpxchg fence va_arg indirectbr callbr "
    "align nuw nsw exact inbounds volatile atomic seq_cst acquire release monotonic "
    "unordered tail musttail notail noundef nonnull dereferenceable(8) readonly "
    "zeroinitializer undef poison null none true false private internal external weak "
    "linkonce_odr dso_local global constant declare define attributes section comdat "
    "to label %0 %1 %entry @main @f !0 !1 !{} !dbg #0 #1 ... , ( ) { } [ ] < > = * x "
    "-1 0 1 2 3 4096 4294967296 18446744073709551616 0x7FF0000000000000 1.5 "
    "c\"a\\00b\" \"\\FF\" blockaddress(@f,%0) dso_local_equivalent").split()]
_NUMBERS = [b"0", b"1", b"3", b"-1", b"7", b"64", b"4096", b"65536", b"2147483648",
            b"4294967295", b"4294967296", b"8589934592", b"18446744073709551615",
            b"18446744073709551616", b"99999999999999999999999"]
_RAW_BYTES = [b"\0", b"\xff", b"\x80", b"\xc3", b"\xe2\x82", b'"', b"\\", b"\n", b"{", b"}",
              b"(", b")", b"!", b"#", b"%", b"@", b";", b"\r", b"\t", b"\x01"]


def _tokens(text: bytes) -> list[bytes]:
    return _TOKEN.findall(text)


def _solid(tokens: list[bytes]) -> list[int]:
    return [i for i, t in enumerate(tokens) if not t.isspace()] or [0]


def _replace_token(text: bytes, rnd: random.Random) -> bytes:
    tokens = _tokens(text)
    i = rnd.choice(_solid(tokens))
    choice = rnd.random()
    if choice < 0.4:
        tokens[i] = tokens[rnd.choice(_solid(tokens))]
    elif choice < 0.8 or not tokens[i].lstrip(b"-").isdigit():
        tokens[i] = rnd.choice(_WORDS)
    else:
        tokens[i] = rnd.choice(_NUMBERS)
    return b"".join(tokens)


def _delete_token(text: bytes, rnd: random.Random) -> bytes:
    tokens = _tokens(text)
    del tokens[rnd.choice(_solid(tokens))]
    return b"".join(tokens)


def _duplicate_token(text: bytes, rnd: random.Random) -> bytes:
    tokens = _tokens(text)
    i = rnd.choice(_solid(tokens))
    tokens.insert(i, tokens[i] + b" ")
    return b"".join(tokens)


def _edit_lines(text: bytes, rnd: random.Random) -> bytes:
    lines = text.split(b"\n")
    i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
    match rnd.randrange(4):
        case 0:
            del lines[i]
        case 1:
            lines.insert(j, lines[i])
        case 2:
            lines[i], lines[j] = lines[j], lines[i]
        case _:  # break a line where LLVM allows any white space
            spaces = [m.start() for m in re.finditer(rb" ", lines[i])]
            if spaces:
                at = rnd.choice(spaces)
                lines[i] = lines[i][:at] + b"\n" + b" " * rnd.randrange(3) + lines[i][at + 1:]
    return b"\n".join(lines)


def _insert_bytes(text: bytes, rnd: random.Random) -> bytes:
    at = rnd.randrange(len(text) + 1)
    junk = b"".join(rnd.choice(_RAW_BYTES) for _ in range(rnd.randint(1, 3)))
    return text[:at] + junk + text[at + rnd.randrange(2):]


def _odd_names(text: bytes, rnd: random.Random) -> bytes:
    """Rename one name to a quoted one with escapes, raw NUL or non-UTF-8 bytes."""
    names = sorted(set(re.findall(rb"[%@][-a-zA-Z$._][-a-zA-Z$._0-9]*", text)))
    if not names:
        return text
    name = rnd.choice(names)
    body = rnd.choice([b"\\FF\\00x", b"\xff\xfe", b"a\0b", b"\\22q", b"\xc3\xa9t\xe9",
                       b"sp ace", b"\\5C", b""])
    new = name[:1] + b'"' + name[1:] + body + b'"'
    return re.sub(re.escape(name) + rb"(?![-a-zA-Z$._0-9])", new.replace(b"\\", b"\\\\"), text)


def _odd_strings(text: bytes, rnd: random.Random) -> bytes:
    """Put NUL / non-UTF-8 bytes into a c"..." string (keeping or breaking its length)."""
    strings = list(re.finditer(rb'c"([^"\n]*)"', text))
    if not strings:
        return text
    m = rnd.choice(strings)
    at = m.start(1) + rnd.randrange(len(m.group(1)) + 1)
    byte = rnd.choice([b"\0", b"\xff", b"\x80", b"\\00", b"\\FF", b"\\Z", b"\\"])
    keep_length = rnd.random() < 0.7 and m.group(1)
    end = at + 1 if keep_length and at < m.end(1) else at
    return text[:at] + byte + text[end:]


def _deep_nesting(text: bytes, rnd: random.Random) -> bytes:
    """Nest a type, constant or metadata tuple hundreds or thousands of levels deep."""
    kind = rnd.randrange(3)
    # A struct constant spells every level's type: its text grows as depth^2.
    depth = rnd.choice([64, 300] if kind == 1 else [64, 300, 1200, 5000])
    if kind == 0:
        nested = b"[1 x " * depth + b"i8" + b"]" * depth
        line = b"@deep.type = global " + nested + b" zeroinitializer"
    elif kind == 1:
        line = b"@deep.const = global " + _nested_struct(depth)
    else:
        line = b"!deep = !{" + b"!{" * depth + b"}" * depth + b"}"
    lines = text.split(b"\n")
    lines.insert(rnd.randrange(len(lines) + 1), line)
    return b"\n".join(lines)


def _nested_struct(depth: int) -> bytes:
    """`T_depth V_depth` with T_0 = i32, T_k = { T_k-1 }, V_1 = { i32 0 },
    V_k = { T_k-1 V_k-1 }: a constant typed at every level, as LLVM wants."""
    types = [b"i32"]
    value = b"{ i32 0 }"
    for k in range(1, depth + 1):
        types.append(b"{ " + types[-1] + b" }")
        if k > 1:
            value = b"{ " + types[k - 1] + b" " + value + b" }"
    return types[-1] + b" " + value


def _numbers(text: bytes, rnd: random.Random) -> bytes:
    """A boundary value for an alignment, integer width, count or constant."""
    spots = list(re.finditer(rb"(align |\bi|\[|<| x |addrspace\(|!)(\d+)", text))
    if not spots:
        return text
    m = rnd.choice(spots)
    return text[:m.start(2)] + rnd.choice(_NUMBERS).lstrip(b"-") + text[m.end(2):]


def _splice(text: bytes, rnd: random.Random, donor: bytes) -> bytes:
    lines, extra = text.split(b"\n"), donor.split(b"\n")
    lines.insert(rnd.randrange(len(lines) + 1), rnd.choice(extra))
    return b"\n".join(lines)


LL_MUTATORS: list[tuple[Mutator, int]] = [
    (_replace_token, 30), (_delete_token, 12), (_duplicate_token, 6), (_edit_lines, 14),
    (_insert_bytes, 8), (_odd_names, 6), (_odd_strings, 6), (_deep_nesting, 3),
    (_numbers, 15),
]


def mutate_ll(text: bytes, rnd: random.Random, donor: bytes | None = None) -> bytes:
    """One to three mutations of IR text (sometimes a line spliced in from `donor`)."""
    mutators, weights = zip(*LL_MUTATORS)
    for _ in range(rnd.choice([1, 1, 1, 2, 3])):
        if donor is not None and rnd.random() < 0.05:
            text = _splice(text, rnd, donor)
        else:
            text = rnd.choices(mutators, weights)[0](text, rnd)
    return text


def mutate_bytes(data: bytes, rnd: random.Random, start: int = 0, end: int | None = None) -> bytes:
    """Overwrite, insert or delete a few bytes in `data[start:end]`, or truncate it."""
    out = bytearray(data)
    end = len(out) if end is None else end
    if end <= start:
        return bytes(out)
    for _ in range(rnd.randint(1, 4)):
        at = rnd.randrange(start, end)
        match rnd.randrange(10):
            case 0:
                del out[at:end][: rnd.randint(1, 8)]
            case 1:
                out[at:at] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 8)))
            case 2:
                out[at] ^= 1 << rnd.randrange(8)
            case 3:
                return bytes(out[: rnd.randrange(start, end)])
            case _:
                out[at] = rnd.choice([0, 0xFF, 0x7F, 0x80, rnd.randrange(256)])
    return bytes(out)


# --- ELF objects -------------------------------------------------------------------

_BOUNDARY64 = [0, 1, 2, 7, 8, 0x18, 0x40, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 1 << 32,
               0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF]


def _put(data: bytearray, offset: int, size: int, value: int) -> None:
    if 0 <= offset and offset + size <= len(data):
        data[offset:offset + size] = (value % (1 << (8 * size))).to_bytes(size, "little")


def _elf_sections(data: bytes) -> list[tuple[int, int, int, int]]:
    """(header offset, name offset, file offset, size) of each section header."""
    if len(data) < 64 or not data.startswith(b"\x7fELF") or data[4] != 2:
        return []
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    out = []
    for k in range(min(shnum, 200)):
        at = shoff + k * shentsize
        if shentsize < 64 or at + 64 > len(data):
            break
        name, = struct.unpack_from("<I", data, at)
        offset, size = struct.unpack_from("<QQ", data, at + 0x18)
        out.append((at, name, offset, size))
    return out


def mutate_elf(data: bytes, rnd: random.Random) -> bytes:
    """A header field, a section header field, a section's contents, or raw bytes."""
    out = bytearray(data)
    sections = _elf_sections(data)
    for _ in range(rnd.choice([1, 1, 2, 3])):
        kind = rnd.randrange(10)
        if kind == 0:  # ELF header: shoff, flags, sizes, shnum, shstrndx, class, data
            field = rnd.choice([(4, 1), (5, 1), (0x10, 2), (0x28, 8), (0x3A, 2), (0x3C, 2),
                                (0x3E, 2)])
            _put(out, *field, rnd.choice(_BOUNDARY64 + [rnd.randrange(70)]))
        elif kind in (1, 2) and sections:  # section header: name/type/offset/size/link/entsize
            at = rnd.choice(sections)[0]
            field = rnd.choice([(0, 4), (4, 4), (0x18, 8), (0x20, 8), (0x28, 4), (0x38, 8)])
            _put(out, at + field[0], field[1], rnd.choice(_BOUNDARY64 + [rnd.randrange(4096)]))
        elif kind in (3, 4, 5) and sections:  # contents: .llvmbc, .symtab, .strtab, ...
            _, _, offset, size = rnd.choice(sections)
            end = min(len(out), offset + size)
            if offset < end:
                out = bytearray(mutate_bytes(bytes(out), rnd, offset, end))
        elif kind == 6:
            return bytes(out[: rnd.randrange(len(out) + 1)])
        else:
            out = bytearray(mutate_bytes(bytes(out), rnd))
    return bytes(out)


# --- ar archives -------------------------------------------------------------------

def _ar_headers(data: bytes) -> list[tuple[int, int]]:
    """(header offset, size) of each member of a regular archive."""
    out, pos = [], 8
    while pos + 60 <= len(data) and len(out) < 200:
        field = data[pos + 48:pos + 58].strip()
        if not field.isdigit():
            break
        size = int(field)
        out.append((pos, size))
        pos += 60 + size + (size & 1)
        if pos < len(data) and data[pos:pos + 1] == b"\n":
            pos += 1
    return out


_AR_NAMES = [b"/", b"//", b"/0", b"/9999", b"/-1", b"#1/20", b"#1/-5", b"#1/99999",
             b"__.SYMDEF", b"/SYM64/", b"a.o/", b"", b"../x.o/", b"/\xff"]
_AR_SIZES = [b"-1", b"-60", b"0", b"1", b"+4", b"99999999", b"9999999999", b"1_0", b"0x10",
             b" ", b"abc", b"\xff"]


def mutate_ar(data: bytes, rnd: random.Random) -> bytes:
    """A member header field, the symbol index, a member's contents, or raw bytes."""
    out = bytearray(data)
    for _ in range(rnd.choice([1, 1, 2])):
        headers = _ar_headers(bytes(out))
        kind = rnd.randrange(10)
        if kind in (0, 1) and headers:  # name field
            at, _ = rnd.choice(headers)
            out[at:at + 16] = rnd.choice(_AR_NAMES)[:16].ljust(16)
        elif kind in (2, 3) and headers:  # size field
            at, _ = rnd.choice(headers)
            out[at + 48:at + 58] = rnd.choice(_AR_SIZES)[:10].ljust(10)
        elif kind == 4 and headers:  # end-of-header magic
            at, _ = rnd.choice(headers)
            out[at + 58:at + 60] = rnd.choice([b"``", b"\n\n", b"` "])
        elif kind in (5, 6) and headers:  # a member's contents: an object, the index
            at, size = rnd.choice(headers)
            body = bytes(out[at + 60:at + 60 + size])
            if body.startswith(b"\x7fELF") and rnd.random() < 0.7:
                new = mutate_elf(body, rnd)
            else:
                new = mutate_bytes(body, rnd)
            if rnd.random() < 0.8:  # keep the size field true to the new body
                out[at + 48:at + 58] = str(len(new)).encode().ljust(10)
            out[at + 60:at + 60 + size] = new
        elif kind == 7:
            out[:8] = rnd.choice([b"!<thin>\n", b"!<arch>\r", b"!<arch>\n"])
        elif kind == 8:
            return bytes(out[: rnd.randrange(len(out) + 1)])
        else:
            out = bytearray(mutate_bytes(bytes(out), rnd))
    return bytes(out)
