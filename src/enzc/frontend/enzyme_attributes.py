"""Enzyme's clang-plugin attributes and pragmas in a source.

Enzyme's clang plugin teaches clang `__attribute__((enzyme_inactive))` and friends;
plain clang only warns "unknown attribute ignored", and the function would then be
differentiated as if unmarked, a gradient the user did not ask for. Two of them
enzcc supports by defining them as clang annotations (`ATTRIBUTE_MACROS`), which the
AD stage reads from `@llvm.global.annotations` (`ad/markers.py`):

    __attribute__((enzyme_inactive))                 a function or global: inactive
    __attribute__((enzyme_function_like("log1p")))   the function behaves like log1p

Any other Enzyme attribute or pragma, and the C++11/C23 spellings (`[[enzyme_...]]`,
which a macro cannot reach), stop enzcc with a located error instead. A byte scan
of the source file itself (headers are not read), comments and string literals
blanked first.
"""

from __future__ import annotations

import re

from enzc.errors import EnzcError

_COMMENT_OR_LITERAL = re.compile(rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)
_GNU_ATTRIBUTE = re.compile(rb"__attribute__\s*\(\((.*?)\)\)", re.S)
_ENZYME_NAME = re.compile(rb"\b(enzyme_\w+)")
_OTHER_SPELLING = re.compile(
    rb"\[\[\s*(?:\w+::)?(enzyme_\w+|enzyme::\w+)"   # C++11 / C23 attribute
    rb"|^[ \t]*#[ \t]*pragma[ \t]+(enzyme\w*)", re.M)  # #pragma enzyme ...

ATTRIBUTE_MACROS = [
    '-Denzyme_inactive=annotate("enzyme_inactive")',
    '-Denzyme_function_like(name)=annotate("enzyme_function_like",name)',
]
"""Defined for units that mention the attributes: they become clang annotations."""
SUPPORTED = frozenset({"enzyme_inactive", "enzyme_function_like"})

INSTEAD = {
    "enzyme_inactive": "write __attribute__((enzyme_inactive)), or register the function inactive: "
                       "void *__enzyme_inactivefn[] = {(void *)f};",
    "enzyme_function_like": 'write __attribute__((enzyme_function_like("log1p")))',
}
"""What to write instead of an attribute, when enzc has an equivalent."""


class EnzymeAttributeError(EnzcError):
    """A source uses an Enzyme clang-plugin attribute or pragma enzc does not support."""


def _blank(m: re.Match[bytes]) -> bytes:
    """A comment or string literal as spaces: its words are not code (lines kept, for the location)."""
    return re.sub(rb"[^\n]", b" ", m.group())


def _unsupported(text: bytes) -> tuple[str, int, str] | None:
    """(name, offset, attribute|pragma) of the first unsupported use, if any."""
    found: list[tuple[str, int, str]] = []
    for attr in _GNU_ATTRIBUTE.finditer(text):
        for name in _ENZYME_NAME.finditer(attr.group(1)):
            if name.group(1).decode() not in SUPPORTED:
                found.append((name.group(1).decode(), attr.start(1) + name.start(1), "attribute"))
                break
    other = _OTHER_SPELLING.search(text)
    if other is not None:
        index = other.lastindex or 1
        found.append((other.group(index).decode(), other.start(index), "pragma" if index == 2 else "attribute"))
    return min(found, key=lambda f: f[1]) if found else None


def check_source(path: str, shown_as: str | None = None) -> None:
    """Raise `EnzymeAttributeError` at the first unsupported Enzyme attribute or pragma
    of the file at `path` (`shown_as`: how the message names it, default `path`)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return  # stdin, or a file clang will report missing
    text = _COMMENT_OR_LITERAL.sub(_blank, data)
    hit = _unsupported(text)
    if hit is None:
        return
    name, start, kind = hit
    line = text.count(b"\n", 0, start) + 1
    column = start - (text.rfind(b"\n", 0, start) + 1) + 1
    hint = INSTEAD.get(name.replace("enzyme::", "enzyme_"), "enzc supports Enzyme's C interface (__enzyme_* calls and registration "
                             "globals) and the attributes enzyme_inactive and enzyme_function_like, "
                             "not the clang plugin's other attributes and pragmas")
    raise EnzymeAttributeError(
        f"{shown_as or path}:{line}:{column}: error: enzc: Enzyme's '{name}' {kind} is not supported "
        f"(clang would ignore it and the code would be differentiated as if unmarked)\n"
        f"hint: {hint}")
