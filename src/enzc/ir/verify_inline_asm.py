"""LLVM's checks of an inline-assembly callee's constraint string (`InlineAsm::verify`,
made when the parser reads `call ... asm "code", "constraints"`).

The string is a comma-separated list; each constraint is an optional prefix (`=`
output, `~{reg}` clobber, `!` label), an optional `*` (indirect), modifiers (`&`
early clobber on outputs, `%` commutative), then codes: `{reg}`, a number naming an
earlier output an input must share, `|` between alternatives, `^xy`, `@N...`, or
single letters. Outputs come before inputs and clobbers; the number of direct
outputs decides the return type (void, one value, or a struct of that many) and the
inputs, indirect outputs included, must match the parameters. `@` without a digit
count (where LLVM itself would assert) is accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from enzc.ir.instructions import CallBase
from enzc.ir.names import unescape
from enzc.ir.types import VOID, NamedStructType, StructType

_CONSTRAINTS = re.compile(r'"((?:[^"\\]|\\.)*)"\s*\Z', re.S)


@dataclass
class _Constraint:
    kind: str  # "input", "output", "clobber" or "label"
    indirect: bool = False
    matched_by: int | None = None
    alternatives: list[int | None] = field(default_factory=list)
    """With `|`: per alternative, the input matching it (LLVM keeps none otherwise)."""


def inline_asm_problem(call: CallBase) -> str | None:
    """Why LLVM rejects the inline assembly `call` calls (None if it does not)."""
    m = _CONSTRAINTS.search(call.callee.spelling)  # type: ignore[attr-defined]
    if m is None:
        return None
    text = unescape(m.group(1)).decode("latin-1")
    ftype = call.function_type
    if ftype.vararg:
        return "inline asm cannot be variadic"
    constraints = _parse_all(text)
    if constraints is None:
        return "failed to parse constraints"
    return _count_problem(constraints, ftype)


def _parse_all(text: str) -> list[_Constraint] | None:
    """The constraints of `text`, or None where LLVM's parser fails (`""` is none)."""
    out: list[_Constraint] = []
    if not text:
        return out
    pieces = text.split(",")
    for piece in pieces:
        parsed = _parse_one(piece, out) if piece else None
        if parsed is None:
            return None
        out.append(parsed)
    return out


def _parse_one(s: str, so_far: list[_Constraint]) -> _Constraint | None:
    c = _Constraint("input")
    i, n = 0, len(s)
    if s[i] == "~":
        c.kind, i = "clobber", i + 1
        if i < n and s[i] != "{":
            return None
    elif s[i] in "=!":
        c.kind, i = ("output" if s[i] == "=" else "label"), i + 1
    if i < n and s[i] == "*":
        c.indirect, i = True, i + 1
    if i == n:
        return None
    early = commutative = False
    while s[i] in "&%#*":
        if s[i] == "&":
            if c.kind != "output" or early:
                return None
            early = True
        elif s[i] == "%":
            if c.kind == "clobber" or commutative:
                return None
            commutative = True
        else:
            return None  # comments and register preferences are not supported
        i += 1
        if i == n:
            return None
    if "|" in s:
        c.alternatives = [None] * (s.count("|") + 1)
    alternative = 0
    while i < n:
        ch = s[i]
        if ch == "{":
            end = s.find("}", i + 1)
            if end < 0:
                return None
            i = end + 1
        elif ch.isdigit() and ch.isascii():
            start = i
            while i < n and s[i].isdigit() and s[i].isascii():
                i += 1
            k = int(s[start:i])
            if k >= len(so_far) or so_far[k].kind != "output" or c.kind != "input":
                return None
            if c.alternatives:
                target = so_far[k].alternatives
                if alternative >= len(target) or target[alternative] is not None:
                    return None
                target[alternative] = len(so_far)
            else:
                if so_far[k].matched_by is not None and so_far[k].matched_by != len(so_far):
                    return None
                so_far[k].matched_by = len(so_far)
        elif ch == "|":
            alternative, i = alternative + 1, i + 1
        elif ch == "^":
            i += 3
        elif ch == "@":
            if i + 1 >= n or not s[i + 1].isdigit():
                return c  # LLVM would assert here; not ours to judge
            i += 2 + int(s[i + 1])
        else:
            i += 1
    return c


def _count_problem(constraints: list[_Constraint], ftype) -> str | None:  # type: ignore[no-untyped-def]
    outputs = inputs = clobbers = labels = indirect = 0
    for c in constraints:
        if c.kind == "output":
            if inputs - indirect or clobbers or labels:
                return "output constraint occurs after input, clobber or label constraint"
            if not c.indirect:
                outputs += 1
                continue
            indirect += 1
        if c.kind in ("output", "input"):
            if clobbers:
                return "input constraint occurs after clobber constraint"
            inputs += 1
        elif c.kind == "clobber":
            clobbers += 1
        else:
            if clobbers:
                return "label constraint occurs after clobber constraint"
            labels += 1
    ret = ftype.ret
    struct = isinstance(ret, (StructType, NamedStructType))
    if outputs == 0 and ret != VOID:
        return "inline asm without outputs must return void"
    if outputs == 1 and struct:
        return "inline asm with one output cannot return struct"
    if outputs > 1 and not (struct and len(ret.elements or ()) == outputs):
        return "number of output constraints does not match number of return struct elements"
    if len(ftype.params) != inputs:
        return "number of input constraints does not match number of parameters"
    return None
