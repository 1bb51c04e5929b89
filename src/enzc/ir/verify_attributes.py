"""Attribute checks: the grammar takes any word where an attribute may stand (so new
LLVM attributes parse), and these tables say which words LLVM 22 knows and where.

`attribute_problem(attr, position)` returns why LLVM would reject `attr` (canonical
text such as `noundef`, `align 8`, `memory(argmem: read)`, `"k"="v"`, `#0`) at a
function (`fn`) or parameter/return (`param`) position, or None.
"""

from __future__ import annotations

import re

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
    sret swiftasync swifterror swiftself writable zeroext
""".split())
EITHER = frozenset("nofree alignstack readnone readonly writeonly".split())

_WORD = re.compile(r"[a-z_][a-z_0-9]*")
_MEMORY_ITEM = re.compile(r"(?:(argmem|inaccessiblemem|errnomem|target_mem0|target_mem1)\s*:\s*)?"
                          r"(none|read|write|readwrite)\Z")
_STRING_ATTR = re.compile(r'"[^"]*"(?:="[^"]*")?\Z')
_CAPTURE = r"(?:none|address|address_is_null|provenance|read_provenance)"
_FPCLASS = r"(?:nan|inf|zero|sub|norm|snan|qnan|ninf|pinf|nzero|pzero|nsub|psub|nnorm|pnorm|all)"
_ARGUMENTS = {word: re.compile(pattern) for word, pattern in {
    "dereferenceable": r"\(\d+\)", "dereferenceable_or_null": r"\(\d+\)",
    "alignstack": r"\(\d+\)", "uwtable": r"(?:\((?:sync|async)\))?",
    "allocsize": r"\(\d+(?:,\s*\d+)?\)", "vscale_range": r"\(\d+(?:,\s*\d+)?\)",
    "captures": rf"\((?:ret:\s*)?{_CAPTURE}(?:,\s*(?:ret:\s*)?{_CAPTURE})*\)",
    "nofpclass": rf"\({_FPCLASS}(?:\s+{_FPCLASS})*\)",
    "range": r"\(i\d+\s+-?\d+,\s*-?\d+\)",
    "allockind": r'\("[a-z,]*"\)',
}.items()}
"""The arguments of attributes that take them, where a mistake is easy to make."""


def attribute_problem(attr: str, position: str) -> str | None:
    """Why LLVM rejects `attr` at `position` ("fn" or "param"), or None."""
    if attr.startswith('"'):
        return None if _STRING_ATTR.match(attr) else f"malformed string attribute {attr[:40]}"
    if attr.startswith("#"):
        return None if position == "fn" else f"attribute group {attr} on a parameter"
    m = _WORD.match(attr)
    word = m.group() if m else attr
    if word not in FUNCTION_ONLY and word not in PARAMETER_ONLY and word not in EITHER:
        return f"unknown attribute '{word[:40]}'"
    if position == "fn" and word in PARAMETER_ONLY:
        return f"attribute '{word}' does not apply to functions"
    if position == "param" and word in FUNCTION_ONLY:
        return f"attribute '{word}' does not apply to parameters or return values"
    rest = attr[len(word):]
    if word == "memory":
        return _memory_problem(rest)
    if rest.startswith("(") and not _balanced(rest):
        return f"malformed attribute {attr[:40]}"
    if word in _ARGUMENTS and not _ARGUMENTS[word].fullmatch(rest):
        return f"malformed '{word}' attribute: {attr[:60]}"
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
