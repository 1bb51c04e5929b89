"""Enzyme's clang-plugin attributes and pragmas in a source: an error, not a silent ignore.

Enzyme's clang plugin teaches clang `__attribute__((enzyme_inactive))` and friends; plain
clang only warns "unknown attribute ignored", and the function would then be
differentiated as if unmarked, a gradient the user did not ask for. enzcc stops at
such a source instead, naming the C registration that does the same where one exists.
A byte scan of the source file itself (headers are not read), comments and string
literals blanked first.
"""

from __future__ import annotations

import re

from enzc.errors import EnzcError

_COMMENT_OR_LITERAL = re.compile(rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)
_ENZYME_SPELLING = re.compile(
    rb"__attribute__\s*\(\(\s*(enzyme_\w+)"         # GNU attribute
    rb"|\[\[\s*(?:\w+::)?(enzyme_\w+)"              # C++11 / C23 attribute
    rb"|^[ \t]*#[ \t]*pragma[ \t]+(enzyme\w*)", re.M)  # #pragma enzyme ...

INSTEAD = {
    "enzyme_inactive": "register the function inactive: void *__enzyme_inactivefn[] = {(void *)f};",
}
"""What to write instead of an attribute, when enzc has an equivalent."""


class EnzymeAttributeError(EnzcError):
    """A source uses an Enzyme clang-plugin attribute or pragma."""


def _blank(m: re.Match[bytes]) -> bytes:
    """A comment or string literal as spaces: its words are not code (lines kept, for the location)."""
    return re.sub(rb"[^\n]", b" ", m.group())


def check_source(path: str) -> None:
    """Raise `EnzymeAttributeError` at the first Enzyme attribute or pragma in `path`."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return  # stdin, or a file clang will report missing
    text = _COMMENT_OR_LITERAL.sub(_blank, data)
    match = _ENZYME_SPELLING.search(text)
    if match is None:
        return
    name = next(g for g in match.groups() if g is not None).decode()
    start = match.start(match.lastindex or 0)
    line = text.count(b"\n", 0, start) + 1
    column = start - (text.rfind(b"\n", 0, start) + 1) + 1
    kind = "pragma" if match.group(3) else "attribute"
    hint = INSTEAD.get(name, "enzc supports Enzyme's C interface (__enzyme_* calls and registration "
                             "globals), not its clang plugin's attributes and pragmas")
    raise EnzymeAttributeError(
        f"{path}:{line}:{column}: error: enzc: Enzyme's '{name}' {kind} is not supported "
        f"(clang would ignore it and the code would be differentiated as if unmarked)\n"
        f"hint: {hint}")
