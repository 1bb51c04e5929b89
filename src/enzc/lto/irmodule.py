"""LLVM modules in-process (llvmlite): parse, inspect symbols, prepare, link.

llvmlite works in LLVM's global context, which is not thread-safe: callers that use
threads hold `LLVM_LOCK` around everything in here.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from enzc.errors import EnzcError
from enzc.isolation import growth_limited, reading_memory, step
from enzc.lto.elfobj import Symbols

if TYPE_CHECKING:
    from llvmlite.binding import ModuleRef, ValueRef

BITCODE_MAGICS = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")  # raw bitcode, bitcode wrapper
LLVM_LOCK = threading.Lock()
_LOCAL_LINKAGES = frozenset({"internal", "private", "available_externally", "appending"})
_ATTRIBUTE_GROUP = re.compile(r"^(attributes #\d+ = \{)(.*)(\}\s*)$", re.MULTILINE)


class IRError(EnzcError):
    """An IR input (file or embedded section) is not valid LLVM IR."""


def is_bitcode(head: bytes) -> bool:
    """True if `head` starts an LLVM bitcode file."""
    return head.startswith(BITCODE_MAGICS)


def initialize_llvm() -> None:
    """Set up llvmlite's native target (idempotent); the O2* pipeline needs it."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()


def parse_module(data: bytes, label: str) -> ModuleRef:
    """Parse bitcode or textual IR (`label` names the origin in messages)."""
    import llvmlite.binding as llvm

    step(f"reading the IR of '{label}'")
    try:
        with growth_limited(reading_memory(len(data))):  # a corrupted count in bitcode
            if is_bitcode(data):
                module = llvm.parse_bitcode(data)
            else:
                module = llvm.parse_assembly(llvm_safe_text(data))
        module.verify()
    except (RuntimeError, UnicodeDecodeError) as err:  # see _first_line
        raise IRError(f"enzcc: error: '{label}': invalid LLVM IR: {_first_line(err)}") from None
    except MemoryError:
        raise IRError(f"enzcc: error: '{label}': invalid LLVM IR: it does not fit in memory "
                      "(a corrupted size?)") from None
    return module


def llvm_safe_text(data: bytes) -> str:
    r"""IR text that llvmlite passes to LLVM unchanged in meaning.

    llvmlite hands LLVM a NUL-terminated UTF-8 string, but LLVM reads any bytes: a NUL
    or a non-UTF-8 byte is legal inside a quoted string or name (`c"\xff"`), and a
    stray NUL counts as white space. Both are spelled here the way LLVM reads them
    (`\00`, `\FF` in quotes, a space elsewhere), so nothing is cut off at a NUL.
    """
    if b"\0" not in data:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return _QUOTED_OR_NUL.sub(_escape_token, data).decode("utf-8", "replace")


_QUOTED_OR_NUL = re.compile(rb'"[^"]*"|;[^\n]*|\0')


def _escape_token(m: re.Match[bytes]) -> bytes:
    token = m.group()
    if token.startswith(b'"'):
        return b"".join(b"\\%02X" % b if b == 0 or b >= 0x80 else bytes([b]) for b in token)
    return b" " if token == b"\0" else token.replace(b"\0", b" ")


def module_text(module: ModuleRef) -> str:
    """The module as text; bytes that are not UTF-8 (LLVM prints string attributes
    unescaped) become surrogates, as in `enzc.ir` (encode with surrogateescape)."""
    from llvmlite.binding import ffi

    with ffi.OutputString() as out:
        ffi.lib.LLVMPY_PrintModuleToString(module, out)
        return (out.bytes or b"").decode("utf-8", "surrogateescape")


def value_text(value: ValueRef) -> str:
    """A value as IR text, bytes that are not UTF-8 as surrogates (llvmlite's `str`
    raises UnicodeDecodeError on them)."""
    from llvmlite.binding import ffi

    with ffi.OutputString() as out:
        ffi.lib.LLVMPY_PrintValueToString(value, out)
        return (out.bytes or b"").decode("utf-8", "surrogateescape")


def value_name(value: ValueRef) -> str:
    """A global's name; bytes that are not UTF-8 (legal in a quoted LLVM name) become
    surrogates, where llvmlite's `.name` raises UnicodeDecodeError."""
    from llvmlite.binding import ffi

    return ffi.lib.LLVMPY_GetValueName(value).decode("utf-8", "surrogateescape")


def module_triple(module: ModuleRef) -> str:
    """The module's target triple, bytes that are not UTF-8 as surrogates (a damaged
    object's bitcode can name any bytes; llvmlite's `.triple` raises on them)."""
    from llvmlite.binding import ffi

    with ffi.OutputString(owned=False) as out:
        ffi.lib.LLVMPY_GetTarget(module, out)
        return (out.bytes or b"").decode("utf-8", "surrogateescape")


def module_symbols(module: ModuleRef) -> Symbols:
    """The symbols a linker would see for this module's object code."""
    defined: set[str] = set()
    undefined: set[str] = set()
    for value in (*module.functions, *module.global_variables):
        linkage = value.linkage.name
        name = value_name(value)
        if name.startswith("llvm.") or linkage in _LOCAL_LINKAGES:
            continue
        if not value.is_declaration:
            defined.add(name)
        elif linkage != "external_weak":
            undefined.add(name)
    return Symbols(frozenset(defined), frozenset(undefined))


def strip_o0_attributes(module: ModuleRef, label: str, every_noinline: bool = False) -> ModuleRef:
    """Drop `optnone` and the `noinline` that -O0 adds with it, so optimization applies.

    IR from `clang -O0 -fembed-bitcode` marks every function `noinline optnone`; left
    alone, O2* skips those functions and AD sees unoptimized code. A `noinline` without
    `optnone` is the user's and stays, unless `every_noinline` (IR we lowered at -O0
    for --enzc-ad-before-opt, where -O0 put `noinline` on every function). Returns
    `module` itself when there is nothing to strip (the common case: no text round trip).
    """
    marks = (b"optnone", b"noinline") if every_noinline else (b"optnone",)
    if not any(_function_attributes(fn).intersection(marks) for fn in module.functions):
        return module

    def strip(match: re.Match[str]) -> str:
        words = match.group(2).split(" ")
        if "optnone" in words or every_noinline:
            words = [w for w in words if w not in ("optnone", "noinline")]
        return match.group(1) + " ".join(words) + match.group(3)

    text = _ATTRIBUTE_GROUP.sub(strip, module_text(module))
    return parse_module(text.encode("utf-8", "surrogateescape"), label)


def _function_attributes(function) -> set[bytes]:  # type: ignore[no-untyped-def]  # llvmlite
    """The function-level attribute words (llvmlite lists them first)."""
    return set(next(iter(function.attributes), b"").split())


def link_modules(modules: Iterable[tuple[ModuleRef, str]]) -> ModuleRef:
    """Link (module, label) pairs into the first; the others are consumed."""
    merged: ModuleRef | None = None
    for module, label in modules:
        if merged is None:
            merged = module
            continue
        step(f"linking the IR of '{label}' into the program")
        try:
            merged.link_in(module)
        except RuntimeError as err:
            raise IRError(f"enzcc: error: cannot link the IR of '{label}' into the program: "
                          f"{_first_line(err)}") from None
    if merged is None:
        raise IRError("enzcc: error: no IR to link")
    return merged


def keep_symbols(module: ModuleRef, names: Iterable[str]) -> None:
    """Make discardable (linkonce) definitions of `names` weak, so optimization keeps them.

    Native objects linked next to the merged module may reference a C++ inline function
    or template instance the module defines linkonce_odr; if O2* dropped it after
    inlining, ld would pull the archive member that defines it a second time.
    """
    weaker = {"linkonce_any": "weak_any", "linkonce_odr": "weak_odr"}
    for name in names:
        value = _lookup(module, name)
        if value is not None and value.linkage.name in weaker:
            value.linkage = weaker[value.linkage.name]


def _lookup(module: ModuleRef, name: str):  # type: ignore[no-untyped-def]  # llvmlite ValueRef
    """The function or global variable called `name`, or None."""
    for get in (module.get_function, module.get_global_variable):
        try:
            return get(name)
        except NameError:
            pass
    return None


def _first_line(err: Exception) -> str:
    """The informative line of an LLVM error ("LLVM IR parsing error\n<string>:2:12: ...").
    A message quoting non-UTF-8 bytes of the input reaches us as the UnicodeDecodeError
    llvmlite raises decoding it; its bytes are LLVM's message."""
    text = (err.object.decode("utf-8", "backslashreplace") if isinstance(err, UnicodeDecodeError)
            else str(err))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].startswith("LLVM ") and lines[0].endswith("error"):
        lines = lines[1:]
    return lines[0].removeprefix("<string>:") if lines else type(err).__name__
