"""Reading LLVM bitcode (and choosing between bitcode and text by content).

llvmlite (LLVM 22, the same version as clang-22) reads the bitcode and prints it as
text, which our parser then reads; so a `.bc` file gives exactly the module a
`.ll` of the same IR would.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from enzc.ir.errors import IRParseError
from enzc.ir.module import Module
from enzc.ir.parser import parse_module
from enzc.isolation import IsolatedCrash, reading_memory, run_isolated, step

BITCODE_MAGIC = b"BC\xc0\xde"
WRAPPER_MAGIC = (0x0B17C0DE).to_bytes(4, "little")
"""The bitcode wrapper header used by Darwin toolchains; LLVM reads both."""


def is_bitcode(data: bytes) -> bool:
    return data[:4] in (BITCODE_MAGIC, WRAPPER_MAGIC)


def parse_bitcode(data: bytes, *, filename: str = "<bitcode>", lazy: bool = True) -> Module:
    """Parse a bitcode module. Positions in errors refer to its disassembly.

    LLVM reads the bitcode in a forked child (`enzc.isolation`): corrupted bitcode can
    fail an assertion inside LLVM, which must not end the calling process.
    """
    try:
        text, problem = run_isolated(partial(_disassemble, data), tool=filename,
                                     memory_limit=reading_memory(len(data)))
    except IsolatedCrash as e:
        raise IRParseError(filename, 1, 1, str(e).split(" error: ", 1)[-1]) from None
    if problem is not None:
        raise IRParseError(filename, 1, 1, f"invalid bitcode: {problem}")
    return parse_module(text, filename=filename, lazy=lazy)


def _disassemble(data: bytes) -> tuple[str, str | None]:
    """(text, None) or ("", LLVM's complaint): bitcode read by llvmlite, run isolated;
    bytes that are not UTF-8 become surrogates."""
    import llvmlite.binding as llvm
    from llvmlite.binding import ffi

    step("reading the bitcode")
    # A fresh context per module: in a shared one, LLVM renames a second module's
    # struct types (`%struct.S` becomes `%struct.S.0`).
    context = llvm.create_context()
    try:
        ll_module = llvm.parse_bitcode(data, context=context)
        ll_module.verify()  # LLVM's own verifier: bitcode has no text for ours to point at
    except MemoryError:
        return "", "the module does not fit in memory (a corrupted size?)"
    except (RuntimeError, UnicodeDecodeError) as e:
        # llvmlite raises UnicodeDecodeError decoding a message that quotes non-UTF-8
        # bytes of the input; the bytes it failed on are LLVM's message.
        text = e.object.decode("utf-8", "backslashreplace") if isinstance(e, UnicodeDecodeError) else str(e)
        return "", text.strip().splitlines()[-1] if text.strip() else "unreadable bitcode"
    with ffi.OutputString() as out:
        ffi.lib.LLVMPY_PrintModuleToString(ll_module, out)
        return (out.bytes or b"").decode("utf-8", "surrogateescape"), None


def read_module_text(data: bytes) -> str:
    """Text IR from file contents; undecodable bytes survive as surrogates (see names.py)."""
    return data.decode("utf-8", "surrogateescape")


def parse_file(path: str | Path, *, lazy: bool = True) -> Module:
    """Parse a `.ll` or `.bc` file, telling them apart by content."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise IRParseError(str(path), 1, 1, f"cannot read file: {e.strerror}") from None
    if is_bitcode(data):
        return parse_bitcode(data, filename=str(path), lazy=lazy)
    return parse_module(read_module_text(data), filename=str(path), lazy=lazy)
