"""Attribute checks: the grammar takes any word where an attribute may stand (so new
LLVM attributes parse), and these tables say which words LLVM 22 knows and where.

`attribute_problem(attr, position)` returns why LLVM would reject `attr` (canonical
text such as `noundef`, `align 8`, `memory(argmem: read)`, `"k"="v"`, `#0`) at a
function (`fn`) or parameter/return (`param`) position, or None.
"""

from __future__ import annotations

import re

from enzc.ir.types import ArrayType, FloatType, IntType, PointerType, Type, VectorType, VoidType
from enzc.ir.verify_string_attributes import string_attribute_problem

FUNCTION_ONLY = frozenset("""
    alwaysinline builtin cold convergent disable_sanitizer_instrumentation
    fn_ret_thunk_extern hot hybrid_patchable inlinehint jumptable minsize mustprogress
    naked nobuiltin nocallback nocf_check nocreateundeforpoison noduplicate
    noimplicitfloat noinline nomerge nonlazybind noprofile noredzone noreturn norecurse
    nosanitize_bounds nosanitize_coverage nosync nounwind null_pointer_is_valid optdebug
    optforfuzzing optnone optsize presplitcoroutine returns_twice safestack
    sanitize_address sanitize_alloc_token sanitize_hwaddress sanitize_memory
    sanitize_memtag sanitize_numerical_stability sanitize_realtime
    sanitize_realtime_blocking sanitize_thread sanitize_type shadowcallstack skipprofile
    speculatable speculative_load_hardening ssp sspreq sspstrong strictfp uwtable
    willreturn memory allockind allocsize vscale_range denormal_fpenv
""".split())
PARAMETER_ONLY = frozenset("""
    align allocalign allocptr byref byval captures dead_on_return dead_on_unwind
    dereferenceable dereferenceable_or_null elementtype immarg inalloca initializes inreg
    nest noalias nocapture nofpclass nonnull noundef preallocated range returned signext
    sret swiftasync swifterror swiftself writable zeroext noext
""".split())
EITHER = frozenset("nofree alignstack readnone readonly writeonly".split())

_WORD = re.compile(r"[a-z_][a-z_0-9]*")
_MEMORY_ITEM = re.compile(r"(?:(argmem|inaccessiblemem|errnomem|target_mem0|target_mem1)\s*:\s*)?"
                          r"(none|read|write|readwrite)\Z")
_STRING_ATTR = re.compile(r'"[^"]*"(?:="[^"]*")?\Z')
_CAPTURE = r"(?:none|address|address_is_null|provenance|read_provenance)"
_FPCLASS = r"(?:nan|inf|zero|sub|norm|snan|qnan|ninf|pinf|nzero|pzero|nsub|psub|nnorm|pnorm|all)"
_RANGE_PAIR = r"\(\s*-?\d+\s*,\s*-?\d+\s*\)"
_ARGUMENTS = {word: re.compile(pattern) for word, pattern in {
    "dereferenceable": r"\(0*[1-9]\d*\)", "dereferenceable_or_null": r"\(0*[1-9]\d*\)",  # not 0 (ll:5508306)
    "align": r"\s+\d+|\(\d+\)|=\d+", "alignstack": r"\(\d+\)", "uwtable": r"(?:\((?:sync|async)\))?",
    "allocsize": r"\(\d+(?:,\s*\d+)?\)", "vscale_range": r"\(\d+(?:,\s*\d+)?\)",
    "captures": rf"\((?:ret:\s*)?{_CAPTURE}(?:,\s*(?:ret:\s*)?{_CAPTURE})*\)",
    "nofpclass": rf"\({_FPCLASS}(?:\s+{_FPCLASS})*\)",
    "range": r"\(i\d+\s+-?\d+,\s*-?\d+\)",
    "allockind": r'\("[a-z,]*"\)',
    "initializes": rf"\(\s*{_RANGE_PAIR}(?:\s*,\s*{_RANGE_PAIR})*\s*\)",
}.items()}
"""The arguments of attributes that take them, where a mistake is easy to make."""
_TAKES_ARGUMENTS = frozenset("""
    align alignstack allockind allocsize byref byval captures denormal_fpenv dereferenceable
    dereferenceable_or_null elementtype inalloca initializes memory nofpclass preallocated
    range sret uwtable vscale_range
""".split())
"""The only words LLVM 22 reads a parenthesized argument after (`noundef(8)` is an error)."""


_POINTER_ONLY = frozenset("""
    align byref byval captures dead_on_return dead_on_unwind dereferenceable
    dereferenceable_or_null elementtype inalloca initializes nest noalias nocapture nonnull
    preallocated readnone readonly sret swifterror writable
""".split())
_TARGET_FEATURES = '"target-features"="'


def attribute_word(attr: str) -> str:
    """`align` of `align 8`, `byval` of `byval(i32)`; a string attribute is itself."""
    m = _WORD.match(attr)
    return m.group() if m else attr


def attribute_problem(attr: str, position: str) -> str | None:
    """Why LLVM rejects `attr` at `position` ("fn" or "param"), or None."""
    if attr.startswith('"'):
        if not _STRING_ATTR.match(attr):
            return f"malformed string attribute {attr[:40]}"
        if attr.startswith(_TARGET_FEATURES):
            bad = [f for f in attr[len(_TARGET_FEATURES):-1].split(",") if f and f[0] not in "+-"]
            return f"target feature '{bad[0][:40]}' must start with a '+' or '-'" if bad else None
        key, _, value = attr[1:-1].partition('"="')  # `"key"` alone has the value ""
        return string_attribute_problem(key, value) if position == "fn" else None
    if attr.startswith("#"):
        return None if position == "fn" else f"attribute group {attr} on a parameter"
    word = attribute_word(attr)
    if word not in FUNCTION_ONLY and word not in PARAMETER_ONLY and word not in EITHER:
        return f"unknown attribute '{word[:40]}'"
    if position == "fn" and word in PARAMETER_ONLY:
        return f"attribute '{word}' does not apply to functions"
    if position == "param" and word in FUNCTION_ONLY:
        return f"attribute '{word}' does not apply to parameters or return values"
    rest = attr[len(word):]
    if rest.startswith("(") and word not in _TAKES_ARGUMENTS:
        return f"attribute '{word}' takes no arguments: {attr[:60]}"
    if word == "memory":
        return _memory_problem(rest)
    if rest.startswith("(") and not _balanced(rest):
        return f"malformed attribute {attr[:40]}"
    if word in _ARGUMENTS and not _ARGUMENTS[word].fullmatch(rest):
        return f"malformed '{word}' attribute: {attr[:60]}"
    if word == "initializes":
        return _initializes_problem(rest)
    return None


def _initializes_problem(arguments: str) -> str | None:
    """`initializes((lo, hi), ...)`: each range non-empty, sorted, apart from the last."""
    previous_high = None
    for low, high in re.findall(r"(-?\d+)\s*,\s*(-?\d+)", arguments):
        if int(low) == int(high):
            return "the range should not represent the full or empty set!"
        if int(low) > int(high) or (previous_high is not None and int(low) <= previous_high):
            return "Invalid (unordered or overlapping) range list"
        previous_high = int(high)
    return None


def _memory_problem(arguments: str) -> str | None:
    if not (arguments.startswith("(") and arguments.endswith(")")):
        return "expected '(' after 'memory'"
    items = [item.strip() for item in arguments[1:-1].split(",")]
    for k, item in enumerate(items):
        m = _MEMORY_ITEM.match(item)
        if m is None:
            return (f"memory({arguments[1:-1][:40]}): expected memory location (argmem, "
                    "inaccessiblemem, errnomem) or access kind (none, read, write, readwrite)")
        if m.group(1) is None and k > 0:
            return "memory(...): the default access kind must be specified first"
    return None


def _balanced(text: str) -> bool:
    depth = 0
    for ch in re.sub(r'"[^"]*"', "", text):
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0 and text.endswith(")")


def typed_attribute_problem(attr: str, type: Type) -> str | None:
    """Why LLVM rejects parameter or return attribute `attr` on a value of `type`
    (attributes for pointers on other types, `range` of another width, ...)."""
    word = attribute_word(attr)
    scalar = type.scalar
    if word in _POINTER_ONLY and not isinstance(scalar if word == "align" else type, PointerType):
        return f"attribute '{attr[:40]}' applied to incompatible type {type}"
    if word in ("signext", "zeroext") and not isinstance(type, IntType):
        return f"attribute '{word}' applied to incompatible type {type}"
    if word == "range":
        width = re.match(r"\(i(\d+)", attr[len(word):])
        if not isinstance(scalar, IntType) or (width and int(width.group(1)) != scalar.bits):
            return f"attribute '{attr[:40]}' applied to incompatible type {type}"
        return _range_bounds_problem(attr, scalar.bits)
    if word == "nofpclass" and not isinstance(_element(type), FloatType):
        return f"attribute '{attr[:40]}' applied to incompatible type {type}"
    if word == "noundef" and isinstance(type, VoidType):
        return "attribute 'noundef' applied to void"
    return None


def _range_bounds_problem(attr: str, bits: int) -> str | None:
    """`range(iN lo, hi)`: each bound fits N bits (signed or unsigned), and equal bounds
    (the empty set) only as 0, 0 (ll:5602490)."""
    bounds = re.search(r"\(i\d+\s+(-?\d+),\s*(-?\d+)\)", attr)
    if bounds is None:
        return None  # malformed: reported by attribute_problem
    lo, hi = int(bounds.group(1)), int(bounds.group(2))
    if not all(-(1 << (bits - 1)) <= v < 1 << bits for v in (lo, hi)):
        return f"integer is too large for the bit width of specified type: {attr[:60]}"
    if (lo - hi) % (1 << bits) == 0 and (lo or hi):
        return f"the range represent the empty set but limits aren't 0: {attr[:60]}"
    return None


def _element(t: Type) -> Type:
    """The innermost element of arrays and vectors (nofpclass looks through both)."""
    while isinstance(t, (ArrayType, VectorType)):
        t = t.element
    return t
