"""Type rules for calls: known library functions and LLVM intrinsics by name;
calls to functions defined in the module go to the interprocedural driver.

The table says what a signature implies beyond the IR types (which already make
`double` arguments floats): sizes are integers, `frexp`'s second argument points
to an `int`, `memcpy` moves the types of the copied bytes between its pointers.
Intrinsics are keyed by their name without type suffixes (`llvm.memcpy`).
"""

from __future__ import annotations

from typing import Callable

from enzc.ir.instructions import CallBase
from enzc.ir.types import VoidType
from enzc.ir.values import Constant, ConstantInt

from enzc.ad.typeanalysis.state import FunctionState, lanes, to_memory
from enzc.ad.typeanalysis.typetree import DOUBLE, FLOAT, INTEGER, TypeTree, float_type

Rule = Callable[[FunctionState, CallBase], None]

_INT = TypeTree.scalar(INTEGER)
_MEMCPY_EXPAND = 256
"""Copies of at most this many constant bytes transfer per-byte facts; longer
ones keep `-1` (array) entries as they are."""


def apply_call(s: FunctionState, call: CallBase) -> None:
    callee = call.called_function
    if callee is None:
        return
    rule = rule_for_name(callee.name)
    if rule is not None:
        rule(s, call)
    elif is_defined(callee):
        s.push_call(call)


def is_defined(fn) -> bool:
    """Whether `fn` has a body (functions built in memory may not update `is_declaration`)."""
    return not fn.is_declaration or (fn.is_materialized and bool(fn.blocks))


def rule_for_name(name: str) -> Rule | None:
    """The rule of a library function or intrinsic (suffixes like `.p0.i64` ignored)."""
    rule = LIBRARY.get(name)
    if rule is not None or not name.startswith("llvm."):
        return rule
    parts = name.split(".")
    for n in range(len(parts), 1, -1):
        rule = INTRINSICS.get(".".join(parts[:n]))
        if rule is not None:
            return rule
    return None


def _integers(*positions: int, ret: bool = False) -> Rule:
    """Arguments at `positions` (and the result) are integers (sizes, counts, flags)."""

    def rule(s: FunctionState, call: CallBase) -> None:
        args = call.args
        for i in positions:
            if i < len(args) and not isinstance(args[i], Constant):
                s.update(args[i], _INT)
        if ret:
            s.update(call, _INT)

    return rule


def _all_integers(s: FunctionState, call: CallBase) -> None:
    for a in call.args:
        if not isinstance(a, Constant):
            s.update(a, _INT)
    if not isinstance(call.type, VoidType):
        s.update(call, _INT)


def _pointee(*, ret: TypeTree | None = None, **args: TypeTree) -> Rule:
    """Arguments `a<i>` point to memory with the given tree at offset 0."""

    def rule(s: FunctionState, call: CallBase) -> None:
        for key, memory in args.items():
            i = int(key[1:])
            if i < len(call.args):
                s.update_memory(call.args[i], memory)
        if ret is not None:
            s.update(call, ret)

    return rule


def _memtransfer(returns_dst: bool) -> Rule:
    """memcpy/memmove(dst, src, n): the copied bytes have the same types at both ends."""

    def rule(s: FunctionState, call: CallBase) -> None:
        dst, src, n = call.args[0], call.args[1], call.args[2]
        if not isinstance(n, Constant):
            s.update(n, _INT)
        seed = s.rule_seeds.get(call)
        if seed is None:
            md = call.metadata.get("tbaa.struct")
            seed = s.analysis.tbaa.struct_copy_tree(md) if md is not None else TypeTree()
            s.rule_seeds[call] = seed
        s.update_memory(dst, seed)
        s.update_memory(src, seed)
        if isinstance(n, ConstantInt):
            length = n.value

            def part(m: TypeTree) -> TypeTree:
                return to_memory(m, length) if length <= _MEMCPY_EXPAND else m.window(0, length)
        else:
            def part(m: TypeTree) -> TypeTree:
                return m
        s.update_memory(dst, part(s.memory(src, call)))
        s.update_memory(src, part(s.memory(dst, call)))
        if returns_dst:
            s.update(call, s.get(dst))
            s.update(dst, s.get(call))

    return rule


def _realloc(s: FunctionState, call: CallBase) -> None:
    """The new block holds the old block's bytes."""
    old, size = call.args[0], call.args[1]
    if not isinstance(size, Constant):
        s.update(size, _INT)
    s.update_memory(call, s.memory(old, call))
    s.update_memory(old, s.memory(call))


def _same_as_arg0(s: FunctionState, call: CallBase) -> None:
    """The result is the first argument (possibly with bits masked/laundered)."""
    s.update(call, s.get_from(call.args[0], call))
    s.update(call.args[0], s.get(call))


def _masked_load(s: FunctionState, call: CallBase) -> None:
    size = s.size(call)
    if size:
        ptr = call.args[0]
        s.update(call, lanes(s.memory(ptr, call).lookup(0, size)))
        s.update_memory(ptr, to_memory(s.get(call), size))


def _masked_store(s: FunctionState, call: CallBase) -> None:
    value, ptr = call.args[0], call.args[1]
    size = s.size(value)
    if size:
        s.update_memory(ptr, to_memory(s.get_from(value, call), size))
        s.update(value, lanes(s.memory(ptr, call).lookup(0, size)))


def _nothing(s: FunctionState, call: CallBase) -> None:
    """Calls that imply nothing about types (lifetime markers, assumptions, ...)."""


def _ints(n: int) -> TypeTree:
    return TypeTree({(o,): INTEGER for o in range(n)})


_D0 = TypeTree({(0,): DOUBLE})
_F0 = TypeTree({(0,): FLOAT})
_L0 = TypeTree({(0,): float_type("x86_fp80")})
_I4 = _ints(4)

LIBRARY: dict[str, Rule] = {
    # allocation: sizes are integers; contents unknown until used
    "malloc": _integers(0),
    "calloc": _integers(0, 1),
    "aligned_alloc": _integers(0, 1),
    "valloc": _integers(0),
    "pvalloc": _integers(0),
    "memalign": _integers(0, 1),
    "posix_memalign": _integers(1, 2, ret=True),
    "realloc": _realloc,
    "reallocarray": _realloc,
    "free": _nothing,
    "_Znwm": _integers(0),
    "_Znam": _integers(0),
    "_ZnwmSt11align_val_t": _integers(0, 1),
    "_ZnamSt11align_val_t": _integers(0, 1),
    "_ZnwmRKSt9nothrow_t": _integers(0),
    "_ZnamRKSt9nothrow_t": _integers(0),
    "_ZdlPv": _nothing,
    "_ZdaPv": _nothing,
    "_ZdlPvm": _integers(1),
    "_ZdaPvm": _integers(1),
    # memory
    "memcpy": _memtransfer(returns_dst=True),
    "memmove": _memtransfer(returns_dst=True),
    "memset": _integers(1, 2),
    "bzero": _integers(1),
    "memcmp": _integers(2, ret=True),
    "strlen": _integers(ret=True),
    "strcmp": _integers(ret=True),
    "strncmp": _integers(2, ret=True),
    # libm with pointer or integer parts
    "frexp": _pointee(a1=_I4),
    "frexpf": _pointee(a1=_I4),
    "frexpl": _pointee(a1=_I4),
    "modf": _pointee(a1=_D0),
    "modff": _pointee(a1=_F0),
    "modfl": _pointee(a1=_L0),
    "sincos": _pointee(a1=_D0, a2=_D0),
    "sincosf": _pointee(a1=_F0, a2=_F0),
    "sincosl": _pointee(a1=_L0, a2=_L0),
    "remquo": _pointee(a2=_I4),
    "remquof": _pointee(a2=_I4),
    "lgamma_r": _pointee(a1=_I4),
    "lgammaf_r": _pointee(a1=_I4),
    "ldexp": _integers(1),
    "ldexpf": _integers(1),
    "ldexpl": _integers(1),
    "scalbn": _integers(1),
    "scalbnf": _integers(1),
    "scalbln": _integers(1),
    "ilogb": _integers(ret=True),
    "ilogbf": _integers(ret=True),
    "lround": _integers(ret=True),
    "llround": _integers(ret=True),
    "lrint": _integers(ret=True),
    "llrint": _integers(ret=True),
    "lroundf": _integers(ret=True),
    "lrintf": _integers(ret=True),
    "jn": _integers(0),
    "yn": _integers(0),
    # C library integers
    "abs": _all_integers,
    "labs": _all_integers,
    "llabs": _all_integers,
    "rand": _integers(ret=True),
    "srand": _integers(0),
    "exit": _integers(0),
    "putchar": _all_integers,
    "printf": _integers(ret=True),
    "fprintf": _integers(ret=True),
    "puts": _integers(ret=True),
    "atoi": _integers(ret=True),
    "atol": _integers(ret=True),
}

INTRINSICS: dict[str, Rule] = {
    "llvm.memcpy": _memtransfer(returns_dst=False),
    "llvm.memcpy.inline": _memtransfer(returns_dst=False),
    "llvm.memmove": _memtransfer(returns_dst=False),
    "llvm.memset": _integers(1, 2),
    "llvm.memset.inline": _integers(1, 2),
    "llvm.lifetime.start": _nothing,
    "llvm.lifetime.end": _nothing,
    "llvm.assume": _nothing,
    "llvm.dbg.value": _nothing,
    "llvm.dbg.declare": _nothing,
    "llvm.dbg.assign": _nothing,
    "llvm.experimental.noalias.scope.decl": _nothing,
    "llvm.invariant.start": _nothing,
    "llvm.invariant.end": _nothing,
    "llvm.prefetch": _nothing,
    "llvm.stacksave": _nothing,
    "llvm.stackrestore": _nothing,
    "llvm.ptrmask": _same_as_arg0,
    "llvm.threadlocal.address": _same_as_arg0,
    "llvm.launder.invariant.group": _same_as_arg0,
    "llvm.strip.invariant.group": _same_as_arg0,
    "llvm.expect": _same_as_arg0,
    "llvm.expect.with.probability": _same_as_arg0,
    "llvm.objectsize": _integers(ret=True),
    "llvm.is.fpclass": _integers(1, ret=True),
    "llvm.lround": _integers(ret=True),
    "llvm.llround": _integers(ret=True),
    "llvm.lrint": _integers(ret=True),
    "llvm.llrint": _integers(ret=True),
    "llvm.powi": _integers(1),
    "llvm.ldexp": _integers(1),
    "llvm.frexp": _nothing,
    "llvm.masked.load": _masked_load,
    "llvm.masked.store": _masked_store,
    **{f"llvm.{name}": _all_integers for name in (
        "smax", "smin", "umax", "umin", "abs", "ctpop", "ctlz", "cttz", "bswap", "bitreverse",
        "fshl", "fshr", "sadd.with.overflow", "uadd.with.overflow", "ssub.with.overflow",
        "usub.with.overflow", "smul.with.overflow", "umul.with.overflow", "sadd.sat", "uadd.sat",
        "ssub.sat", "usub.sat", "scmp", "ucmp",
        "vector.reduce.add", "vector.reduce.mul", "vector.reduce.and", "vector.reduce.or",
        "vector.reduce.xor", "vector.reduce.smax", "vector.reduce.smin", "vector.reduce.umax",
        "vector.reduce.umin",
    )},
}
