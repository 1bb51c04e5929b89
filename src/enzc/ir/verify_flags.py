"""LLVM's verifier rules for module flags (`!llvm.module.flags`), which enzc keeps as
plain tuples and would otherwise print back as a module `llvm-as` rejects.

Each flag is `!{i32 behavior, !"id", value}`: behavior 1-8 (error, warning, require,
override, append, append-unique, max, min); `require` takes a pair `!{!"id", value}`,
the append kinds a node, max and min an integer (min a non-negative one), `wchar_size`
an integer; an id is given once, except by `require` flags.
"""

from __future__ import annotations

from enzc.ir.metadata import MDRef, MDString, MDTuple, MDValue, Metadata
from enzc.ir.values import ConstantInt

REQUIRE, APPEND, APPEND_UNIQUE, MAX, MIN = 3, 5, 6, 7, 8


def module_flag_problems(module) -> list[str]:  # type: ignore[no-untyped-def]  # Module
    """One message per broken flag, like LLVM's verifier (the first rule each breaks)."""
    defined = module.metadata
    seen: set[bytes] = set()
    problems = []
    for ref in module.named_metadata.get("llvm.module.flags", []):
        flag = defined.get(ref)
        problem = _flag_problem(flag, defined, seen) if ref in defined else None
        if problem:
            problems.append(f"module flag !{ref}: {problem}")
    return problems


def _flag_problem(flag: Metadata | None, defined: dict[str, Metadata], seen: set[bytes]) -> str | None:
    if not isinstance(flag, MDTuple) or len(flag.operands) != 3:
        return "incorrect number of operands in module flag"
    behavior, ident, value = (_resolve(op, defined) for op in flag.operands)
    constant = _integer(behavior)
    if constant is None:
        return "invalid behavior operand in module flag (expected constant integer)"
    number = constant.unsigned
    if not 1 <= number <= MIN:
        return "invalid behavior operand in module flag (unexpected constant)"
    if not isinstance(ident, MDString):
        return "invalid ID operand in module flag (expected metadata string)"
    if ident.data == b"wchar_size" and _integer(value) is None:
        return "wchar_size metadata requires constant integer argument"
    if number == REQUIRE:
        if not isinstance(value, MDTuple) or len(value.operands) != 2:
            return "invalid value for 'require' module flag (expected metadata pair)"
        if not isinstance(_resolve(value.operands[0], defined), MDString):
            return "invalid value for 'require' module flag (first value operand should be a string)"
        return None
    if number in (APPEND, APPEND_UNIQUE) and not isinstance(value, MDTuple):
        return "invalid value for 'append'-type module flag (expected a metadata node)"
    if number == MAX and _integer(value) is None:
        return "invalid value for 'max' module flag (expected constant integer)"
    if number == MIN and ((bound := _integer(value)) is None or bound.value < 0):
        return "invalid value for 'min' module flag (expected constant non-negative integer)"
    if ident.data in seen:
        return f"module flag identifiers must be unique (or of 'require' type): {ident}"
    seen.add(ident.data)
    return None


def _resolve(md: Metadata | None, defined: dict[str, Metadata]) -> Metadata | None:
    return defined.get(md.id) if isinstance(md, MDRef) else md


def _integer(md: Metadata | None) -> ConstantInt | None:
    return md.value if isinstance(md, MDValue) and isinstance(md.value, ConstantInt) else None
