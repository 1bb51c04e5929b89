"""LLVM 22's syntax of a `target datalayout` string, checked as its parser checks it.

`DataLayout.parse` (datalayout.py) reads the sizes and alignments enzc needs and
ignores the rest; LLVM rejects far more: an empty spec (`e--m:e`), a mangling mode
it does not know, spaces or signs in numbers, alignments that are not a power of two
bytes, pointer flags other than `u`/`e`, ... (ll:6901608: `m :e`). Each rule was
compared with llvm-as-22 on thousands of mutated layouts.
"""

from __future__ import annotations

import re
import string

_NUMBER = re.compile(r"[0-9]+")
_MANGLING = set("elmoxwa")
_POINTER_FLAGS = set("ue")
"""`u` unstable, `e` external state (non-integral address spaces only)."""


def layout_problem(text: str) -> str | None:
    """Why LLVM rejects the datalayout `text`, or None."""
    if not text:
        return None
    for spec in text.split("-"):
        if not spec:
            return "empty specification is not allowed"
        if problem := _spec_problem(spec):
            return problem
    return None


def _spec_problem(spec: str) -> str | None:
    head, rest = spec[0], spec[1:]
    if spec.startswith("ni"):
        return _non_integral_problem(spec)
    match head:
        case "s":
            return None  # the old stack alignment spec: read and ignored
        case "e" | "E":
            return "malformed specification, must be just 'e' or 'E'" if rest else None
        case "m":
            if len(spec) < 3 or spec[1] != ":":
                return 'malformed specification, must be of the form "m:<mangling>"'
            return None if spec[2:] in _MANGLING else "unknown mangling mode"
        case "i" | "f" | "v" | "a":
            return _primitive_problem(head, rest.split(":"))
        case "p":
            return _pointer_problem(rest.split(":"))
        case "S":
            return _alignment_problem(rest, "stack natural alignment", '"S<size>"')
        case "F":
            if not rest:
                return 'malformed specification, must be of the form "F<type><abi>"'
            if rest[0] not in "in":
                return f"unknown function pointer alignment type '{rest[0]}'"
            return _alignment_problem(rest[1:], "ABI alignment")
        case "n":
            return next(filter(None, (_size_problem(part, "size") for part in rest.split(":"))), None)
        case "A" | "P" | "G":
            if not rest:
                return f'malformed specification, must be of the form "{head}<address space>"'
            return None if _integer(rest, 24) is not None else "address space must be a 24-bit integer"
    return f"unknown specifier '{head}'"


def _primitive_problem(kind: str, parts: list[str]) -> str | None:
    """`i<size>:<abi>[:<pref>]` (also f, v) and `a[0]:<abi>[:<pref>]`."""
    if len(parts) not in (2, 3):
        form = "a:<abi>[:<pref>]" if kind == "a" else f"{kind}<size>:<abi>[:<pref>]"
        return f'malformed specification, must be of the form "{form}"'
    if kind == "a":
        if parts[0] and _integer(parts[0], 24) != 0:
            return "size must be zero"
    elif problem := _size_problem(parts[0], "size"):
        return problem
    abi = _alignment(parts[1], "ABI alignment", zero_allowed=kind == "a")
    if isinstance(abi, str):
        return abi
    if kind == "i" and _integer(parts[0], 24) == 8 and abi != 8:
        return "i8 must be 8-bit aligned"
    return _preferred_problem(parts[2:], abi)


def _pointer_problem(parts: list[str]) -> str | None:
    """`p[<flags>][<n>]:<size>:<abi>[:<pref>[:<idx>]]`."""
    if not 3 <= len(parts) <= 5:
        return 'malformed specification, must be of the form "p[<n>]:<size>:<abi>[:<pref>[:<idx>]]"'
    head = parts[0]
    flags = head[:len(head) - len(head.lstrip(string.ascii_letters))]
    if bad := next((f for f in flags if f not in _POINTER_FLAGS), None):
        return f"'{bad}' is not a valid pointer specification flag"
    space = _integer(head[len(flags):], 24) if head[len(flags):] else 0
    if space is None:
        return "address space must be a 24-bit integer"
    if flags and space == 0:
        return "address space 0 cannot be unstable or have external state"
    if problem := _size_problem(parts[1], "pointer size"):
        return problem
    abi = _alignment(parts[2], "ABI alignment")
    if isinstance(abi, str):
        return abi
    if problem := _preferred_problem(parts[3:4], abi):
        return problem
    if len(parts) == 5:
        if problem := _size_problem(parts[4], "index size"):
            return problem
        if int(parts[4]) > int(parts[1]):
            return "index size cannot be larger than the pointer size"
    return None


def _non_integral_problem(spec: str) -> str | None:
    """`ni:<address space>[:<address space>]...`, never address space 0."""
    if spec[2:3] != ":":
        return 'malformed specification, must be of the form "ni:<address space>[:<address space>]..."'
    for part in spec[3:].split(":"):
        if not part:
            return "address space component cannot be empty"
        space = _integer(part, 24)
        if space is None:
            return "address space must be a 24-bit integer"
        if space == 0:
            return "address space 0 cannot be non-integral"
    return None


def _preferred_problem(parts: list[str], abi: int) -> str | None:
    if not parts:
        return None
    pref = _alignment(parts[0], "preferred alignment")
    if isinstance(pref, str):
        return pref
    return "preferred alignment cannot be less than the ABI alignment" if pref < abi else None


def _alignment_problem(text: str, what: str, form: str | None = None) -> str | None:
    if not text and form:
        return f"malformed specification, must be of the form {form}"
    result = _alignment(text, what)
    return result if isinstance(result, str) else None


def _alignment(text: str, what: str, zero_allowed: bool = False) -> int | str:
    """An alignment in bits (a power of two bytes), or why it is not one."""
    if not text:
        return f"{what} component cannot be empty"
    bits = _integer(text, 16)
    if bits is None:
        return f"{what} must be a 16-bit integer"
    if bits == 0:
        return 0 if zero_allowed else f"{what} must be non-zero"
    if bits % 8 or (bits // 8) & (bits // 8 - 1):
        return f"{what} must be a power of two times the byte width"
    return bits


def _size_problem(text: str, what: str) -> str | None:
    if not text:
        return f"{what} component cannot be empty"
    return None if _integer(text, 24) else f"{what} must be a non-zero 24-bit integer"


def _integer(text: str, bits: int) -> int | None:
    """A decimal number below 2**bits (digits only, as LLVM reads it), or None."""
    if not _NUMBER.fullmatch(text):
        return None
    value = int(text)
    return value if value < 1 << bits else None
