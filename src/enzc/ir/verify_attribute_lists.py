"""The rules LLVM's parser and verifier apply to attributes taken together: the
attributes of one parameter (`byval` with `nest`, `readonly` with `writeonly`), the
parameters of one function or call (one `sret`, on the first or second parameter;
`inalloca` last; `returned` matching the return type), the function's own attributes
(`optnone` needs `noinline`, `allockind`, `vscale_range`), and which attributes may
stand on a return value. Found by fuzzing (ll:5906571 and the forms around it);
the messages are LLVM's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from enzc.ir.types import FloatType, IntType, Type, VectorType
from enzc.ir.verify_attributes import attribute_word

RETURN_ATTRIBUTES = frozenset("""
    align dereferenceable dereferenceable_or_null inreg noalias noext nofpclass noundef
    nonnull range signext zeroext
""".split())
"""The attributes LLVM 22 reads on a return value (besides string attributes)."""

_GROUP = re.compile(r"#(\d+)\Z")
_EXCLUSIVE = ("byval", "inalloca", "preallocated", "sret", "nest", "byref")
_INCOMPATIBLE_PAIRS = (
    ("inalloca", "readonly"), ("sret", "returned"), ("zeroext", "signext"),
    ("readnone", "readonly"), ("readnone", "writeonly"), ("readonly", "writeonly"),
)
_ONCE_PER_LIST = {"nest": "More than one parameter has attribute nest!",
                  "returned": "More than one parameter has attribute returned!",
                  "sret": "Cannot have multiple 'sret' parameters!",
                  "swiftself": "Cannot have multiple 'swiftself' parameters!",
                  "swiftasync": "Cannot have multiple 'swiftasync' parameters!",
                  "swifterror": "Cannot have multiple 'swifterror' parameters!"}


def expand_groups(attrs: Iterable[str], groups: Mapping[str, Sequence[str]]) -> list[str]:
    """The attributes of a function or call with its `#N` group references replaced."""
    out: list[str] = []
    for attr in attrs:
        m = _GROUP.match(attr)
        out += groups.get(m.group(1), ()) if m else [attr]
    return out


def return_attribute_list_problems(attrs: Sequence[str]) -> list[str]:
    """What LLVM rejects among the attributes of a return value."""
    problems = [f"attribute '{attr[:40]}': this attribute does not apply to return values"
                for attr in attrs if not attribute_word(attr).startswith('"')
                and attribute_word(attr) not in RETURN_ATTRIBUTES]
    return problems + attribute_set_problems(attrs)


def attribute_set_problems(attrs: Sequence[str]) -> list[str]:
    """Attributes of one parameter or return value that LLVM rejects together."""
    words = {attribute_word(a) for a in attrs}
    problems = []
    exclusive = sum(w in words for w in _EXCLUSIVE) + ("inreg" in words and "sret" not in words)
    if exclusive > 1:
        problems.append("Attributes 'byval', 'inalloca', 'preallocated', 'inreg', 'nest', "
                        "'byref', and 'sret' are incompatible!")
    problems += [f"Attributes '{a} and {b}' are incompatible!"
                 for a, b in _INCOMPATIBLE_PAIRS if a in words and b in words]
    problems += [f"Attributes writable and {b} are incompatible!"
                 for b in ("readnone", "readonly") if "writable" in words and b in words]
    if "immarg" in words and len(attrs) > 1:
        problems.append("Attribute 'immarg' is incompatible with other attributes")
    return problems


def parameter_list_problems(ret: Type, params: Sequence[tuple[Sequence[str], Type]], fixed: int,
                            *, intrinsic: bool, inline_asm: bool) -> list[str]:
    """Rules over the parameters of a function type (`fixed` of them) or the arguments
    of a call (those after `fixed` are variadic)."""
    problems: list[str] = []
    seen: set[str] = set()
    for i, (attrs, type) in enumerate(params):
        words = {attribute_word(a) for a in attrs}
        problems += attribute_set_problems(attrs)
        if not intrinsic and "immarg" in words:
            problems.append("immarg attribute only applies to intrinsics")
        if not intrinsic and not inline_asm and "elementtype" in words:
            problems.append("Attribute 'elementtype' can only be applied to intrinsics and inline asm.")
        for word, message in _ONCE_PER_LIST.items():
            if word in words:
                if word in seen and (i < fixed or word in ("nest", "returned")):
                    problems.append(message)
                seen.add(word)
        if "returned" in words and not _losslessly_castable(type, ret):
            problems.append("Incompatible argument and return types for 'returned' attribute")
        if "sret" in words:
            if i >= fixed:
                problems.append("Attribute 'sret' cannot be used for vararg call arguments!")
            elif i > 1:
                problems.append("Attribute 'sret' is not on first or second parameter!")
        if "inalloca" in words:
            last = fixed - 1 if i < fixed else len(params) - 1
            if i != last:
                problems.append("inalloca isn't on the last parameter!")
    return problems


def _losslessly_castable(a: Type, b: Type) -> bool:
    """LLVM's `Type::canLosslesslyBitCastTo` for the types a `returned` can have."""
    if a == b:
        return True
    if isinstance(a, VectorType) and isinstance(b, VectorType):
        return (not a.scalable and not b.scalable and a.count * _bits(a.element) == b.count * _bits(b.element)
                and _bits(a.element) > 0)
    return False


def _bits(t: Type) -> int:
    return t.bits if isinstance(t, (IntType, FloatType)) else 0


def function_attribute_problems(fn_attrs: Sequence[str], param_attrs: Iterable[Sequence[str]],
                                *, global_unnamed_addr: bool | None) -> list[str]:
    """Rules over a function's (or call's) own attributes, groups expanded;
    `global_unnamed_addr` is None for a call."""
    words = {attribute_word(a): a for a in fn_attrs}
    problems = []
    if "noinline" in words and "alwaysinline" in words:
        problems.append("Attributes 'noinline and alwaysinline' are incompatible!")
    if "optnone" in words:
        if "noinline" not in words:
            problems.append("Attribute 'optnone' requires 'noinline'!")
        problems += [f"Attributes '{w} and optnone' are incompatible!"
                     for w in ("optsize", "minsize", "optdebug") if w in words]
    if "optdebug" in words:
        problems += [f"Attributes '{w} and optdebug' are incompatible!"
                     for w in ("optsize", "minsize") if w in words]
    writable = any(attribute_word(a) == "writable" for attrs in param_attrs for a in attrs)
    if writable and "memory" in words and not _argmem_written(words["memory"]):
        problems.append("Attribute writable and memory without argmem: write are incompatible!")
    if "jumptable" in words and not global_unnamed_addr:
        problems.append("Attribute 'jumptable' requires 'unnamed_addr'")
    if "allockind" in words:
        problems += _allockind_problems(words["allockind"])
    if "vscale_range" in words:
        problems += _vscale_range_problems(words["vscale_range"])
    return problems


def _argmem_written(memory: str) -> bool:
    """Whether `memory(...)` lets the function write memory its arguments point to."""
    access = "none"
    for item in memory[memory.find("(") + 1 : memory.rfind(")")].split(","):
        location, _, kind = item.strip().rpartition(":")
        location, kind = location.strip(), kind.strip()
        if not location or location == "argmem":
            access = kind
    return access in ("write", "readwrite")


def _allockind_problems(attr: str) -> list[str]:
    kinds = set(attr[attr.find('"') + 1 : attr.rfind('"')].split(","))
    problems = []
    if len(kinds & {"alloc", "realloc", "free"}) != 1:
        problems.append("'allockind()' requires exactly one of alloc, realloc, and free")
    elif "free" in kinds and kinds & {"uninitialized", "zeroed", "aligned"}:
        problems.append("'allockind(\"free\")' doesn't allow uninitialized, zeroed, or aligned modifiers.")
    if {"zeroed", "uninitialized"} <= kinds:
        problems.append("'allockind()' can't be both zeroed and uninitialized")
    return problems


def _vscale_range_problems(attr: str) -> list[str]:
    numbers = [int(n) for n in re.findall(r"\d+", attr)]
    low, high = numbers[0], (numbers[1] if len(numbers) > 1 else low)
    if low == 0:
        return ["'vscale_range' minimum must be greater than 0"]
    if low & (low - 1):
        return ["'vscale_range' minimum must be power-of-two value"]
    if high and low > high:
        return ["'vscale_range' minimum cannot be greater than maximum"]
    if high and high & (high - 1):
        return ["'vscale_range' maximum must be power-of-two value"]
    return []
