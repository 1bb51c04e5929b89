"""What the AD knows about called functions without looking at their bodies.

One table answers, per callee name, whether a call can carry derivatives at all
(intrinsics like `llvm.dbg.*`, libc I/O) and how calls that touch memory behave.
Calls with a derivative rule (libm, math intrinsics) are in `rules.table`.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from enzc.ir.instructions import CallBase
from enzc.ir.module import Function, Module

from enzc.ad.analysis.allocations import DEALLOCATORS, allocator_of_function
from enzc.ad.analysis.annotations import has_custom_gradient, is_inactive_function, math_name
from enzc.ad.typeanalysis.blas_abi import blas_callee


RuleLookup = Callable[[str], bool]
"""Whether the derivative rule table covers a callee name (`rules.table.has_rule`).
The analyses take it as a parameter: the table belongs to a layer above them."""


class CallKind(Enum):
    """How the engine treats a call."""

    RULE = "rule"
    """A math function with an entry in the derivative table."""
    INACTIVE = "inactive"
    """Never carries a derivative and never writes float memory the AD tracks."""
    MEMSET = "memset"
    MEMCPY = "memcpy"
    ALLOC = "alloc"
    """A heap allocation (`malloc`, `realloc`, `new`, ...): see `heap`."""
    CUSTOM = "custom"
    """A function with a user-supplied derivative: see `custom`."""
    BLAS = "blas"
    """A BLAS routine (`typeanalysis.blas_abi`), declared or defined: see `rules.blas_rules`."""
    MIRRORED = "mirrored"
    """Relinks or walks pointers only: repeated on the shadows (`memory.mirrored_calls`)."""
    UNKNOWN = "unknown"
    """Anything else: inactive only if nothing active flows in or out."""


INACTIVE_PREFIXES = (
    "llvm.dbg.", "llvm.lifetime.", "llvm.assume", "llvm.experimental.noalias.scope.decl",
    "llvm.invariant.", "llvm.prefetch", "llvm.donothing", "llvm.sideeffect", "llvm.stacksave",
    "llvm.stackrestore", "llvm.trap", "llvm.debugtrap", "llvm.ubsantrap", "llvm.objectsize",
    "llvm.expect", "llvm.is.constant", "llvm.annotation", "llvm.var.annotation",
    "llvm.pseudoprobe", "llvm.launder.invariant.group", "llvm.strip.invariant.group",
    "llvm.threadlocal.address",
)
"""Intrinsics without any numeric effect on the program's floats
(`llvm.threadlocal.address` computes an address: its shadow is the same call on
the shadow global, `synth.gradient_utils`)."""

INACTIVE_CXX_PREFIXES = (
    "_ZNSo", "_ZNSt13basic_ostreamIwSt11char_traitsIwEE", "_ZSt16__ostream_insert", "_ZStlsI",
    "_ZSt4endlI", "_ZSt5flushI", "_ZNKSt5ctypeIcE13_M_widen_init", "_ZSt16__throw_",
    "_ZSt17__throw_", "_ZSt18__throw_", "_ZSt19__throw_", "_ZSt20__throw_", "_ZSt21__throw_",
    "_ZSt24__throw_", "_ZSt25__throw_", "_ZSt28__throw_",
    "_ZNKSt8__detail20_Prime_rehash_policy", "_ZSt11_Hash_bytes", "_ZSt15_Fnv_hash_bytes",
)
"""libstdc++ output streams (`std::cout << x`: `std::ostream` members, `operator<<`,
`endl`, `flush`), `std::__throw_*`, and the hash tables' helpers
(`std::unordered_map`: the rehash policy reads the float load factor and writes
only its integer `_M_next_resize`; `_Hash_bytes` hashes key bytes): they read
program memory, write only integer state of their own, or never return."""

INACTIVE_LIBC = frozenset({
    "printf", "puts", "putchar", "fprintf", "fputs", "fputc", "fflush", "fwrite", "perror",
    "abort", "exit", "_exit", "__assert_fail", "__stack_chk_fail", "clock", "time",
    "gettimeofday", "clock_gettime", "rand", "srand", "random", "srandom", "strlen",
    "strcmp", "strncmp", "getenv", "free", "__cxa_guard_acquire", "__cxa_guard_release",
    "posix_memalign", "vprintf", "vfprintf", "fputwc", "putwchar", "putc", "snprintf", "sprintf",
    *(f"{name}{suffix}" for name in ("lround", "llround", "lrint", "llrint", "ilogb") for suffix in ("", "f", "l")),
})
"""Library functions that read (never write) program memory or touch none of it.
libm's rounding to an integer (`lround`, `lrint`, `ilogb`, ...) has no derivative.

Freeing never moves derivatives (`heap` frees shadows in the reverse pass).
`posix_memalign` reaches the AD writing only a private slot (`posix_memalign.py`).
"""

MIRRORED_NAMES = frozenset({
    "_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_",
    "_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base", "_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base",
    "_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base", "_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base",
    "_ZNSt8__detail15_List_node_base7_M_hookEPS0_", "_ZNSt8__detail15_List_node_base9_M_unhookEv",
    "_ZNSt8__detail15_List_node_base11_M_transferEPS0_S1_", "_ZNSt8__detail15_List_node_base10_M_reverseEv",
    "_ZNSt8__detail15_List_node_base4swapERS0_S1_",
})
"""`std::map`'s red-black tree helpers and `std::list`'s node relinking in libstdc++.so:
they move only the links of `_Rb_tree_node_base` / `_List_node_base` (no key, no
value), so a shadow tree or list keeps the primal's shape when they are called on
it too."""

MEMSET_PREFIXES = ("llvm.memset.",)
MEMCPY_PREFIXES = ("llvm.memcpy.", "llvm.memmove.", "llvm.memcpy.inline.")
MEMSET_NAMES = frozenset({"memset"})
MEMCPY_NAMES = frozenset({"memcpy", "memmove"})


def callee_name(call: CallBase) -> str | None:
    """The callee's name, or the known function it is registered to behave like."""
    fn = call.called_function
    if fn is None:
        return None
    return math_name(fn) or fn.name


def classify(call: CallBase, has_rule: RuleLookup) -> CallKind:
    """The kind of `call`; `has_rule(name)` tells whether the rule table covers a name."""
    fn = call.called_function
    return CallKind.UNKNOWN if fn is None else classify_function(fn, has_rule)


def classify_function(fn: Function, has_rule: RuleLookup) -> CallKind:
    """The kind of every direct call of `fn` (see `classify`)."""
    name = math_name(fn) or fn.name
    if name is None:
        return CallKind.UNKNOWN
    if is_inactive_function(fn):
        return CallKind.INACTIVE
    if has_custom_gradient(fn):
        return CallKind.CUSTOM
    if (name.startswith(INACTIVE_PREFIXES) or name in INACTIVE_LIBC or name in DEALLOCATORS
            or name.startswith(INACTIVE_CXX_PREFIXES)):
        return CallKind.INACTIVE
    if allocator_of_function(fn) is not None:
        return CallKind.ALLOC
    if name in MIRRORED_NAMES:
        return CallKind.MIRRORED
    if name.startswith(MEMSET_PREFIXES) or name in MEMSET_NAMES:
        return CallKind.MEMSET
    if name.startswith(MEMCPY_PREFIXES) or name in MEMCPY_NAMES:
        return CallKind.MEMCPY
    if has_rule(name):
        return CallKind.RULE
    if blas_callee(fn) is not None:
        return CallKind.BLAS
    return CallKind.UNKNOWN


def is_memory_copy(call: CallBase) -> bool:
    """`memcpy`/`memmove` or their intrinsics (the rule table names no copy, so the
    answer does not depend on it)."""
    return classify(call, lambda _: False) is CallKind.MEMCPY


def is_mirrored_call(call: CallBase) -> bool:
    """A call of `MIRRORED_NAMES` (the rule table names none, so the answer does not depend on it)."""
    return classify(call, lambda _: False) is CallKind.MIRRORED


def call_attributes(call: CallBase, module: Module | None) -> list[str]:
    """The function attributes of the call site and of its callee, groups (`#3`) expanded."""
    attrs = list(_attrs(call.fn_attrs, module))
    fn = call.called_function
    if isinstance(fn, Function):
        attrs += list(_attrs(fn.fn_attrs, module))
    return attrs


def writes_memory(call: CallBase, module: Module | None) -> bool:
    """Whether the call may write memory, from `memory(...)`/`readonly`/`readnone`."""
    for a in call_attributes(call, module):
        if a in ("readnone", "readonly"):
            return False
        if a.startswith("memory(") and "write" not in a:
            return False
    return True


def _attrs(attrs: tuple[str, ...], module: Module | None):
    for a in attrs:
        if a.startswith("#") and module is not None and a[1:] in module.attribute_groups:
            yield from module.attribute_groups[a[1:]]
        else:
            yield a
