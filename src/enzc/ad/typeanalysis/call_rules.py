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
from enzc.ir.types import PointerType, VoidType
from enzc.ir.values import Constant, ConstantInt

from enzc.ad.typeanalysis.blas_abi import LETTER_ROLES, BlasCallee, blas_callee
from enzc.ad.typeanalysis.state import FunctionState, lanes, to_memory
from enzc.ad.typeanalysis.strings import M_CREATE
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
    blas = blas_callee(callee) if rule is None else None
    if rule is not None:
        rule(s, call)
    elif blas is not None:
        _blas(s, call, blas)  # even when defined: its calls are differentiated by rule, not body
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
        elif (bound := s.analysis.copy_bound(call)) is not None:
            def part(m: TypeTree) -> TypeTree:
                return m.window(0, bound)  # the copy cannot leave either object
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


def _blas(s: FunctionState, call: CallBase, blas: BlasCallee) -> None:
    """A BLAS routine (`blas_abi`): arrays hold floats of its precision everywhere,
    dimensions, increments and flags are integers; Fortran passes all of them by
    reference (integers of 4 bytes, 8 in ILP64 builds; flags are characters)."""
    fp = TypeTree({(-1,): float_type(blas.kind)})
    int_bytes = 8 if "64" in blas.suffix else 4
    for p, arg in zip(blas.params(), call.args):
        if p.role == "handle":
            continue
        if p.is_array:
            s.update_memory(arg, fp)
        elif p.role == "result" or blas.cublas and p.role == "fp" and blas.fp_by_ref:
            s.update_memory(arg, TypeTree({(0,): float_type(blas.kind)}))
        elif blas.cublas:
            if p.role != "fp":
                s.update(arg, _INT)
        elif blas.cblas and p.role == "info" and isinstance(arg.type, PointerType):
            s.update_memory(arg, _ints(4))
        elif blas.cblas:
            if p.role != "fp":
                s.update(arg, _INT)
        elif p.role == "fp":
            s.update_memory(arg, TypeTree({(0,): float_type(blas.kind)}))
        else:
            s.update_memory(arg, _ints(1 if p.role in LETTER_ROLES else int_bytes))
    for arg in call.args[len(blas.params()):]:
        if not isinstance(arg, Constant):
            s.update(arg, _INT)  # gfortran's hidden string lengths


def _nothing(s: FunctionState, call: CallBase) -> None:
    """Calls that imply nothing about types (lifetime markers, assumptions, ...)."""


def _ints(n: int) -> TypeTree:
    return TypeTree({(o,): INTEGER for o in range(n)})


_D0 = TypeTree({(0,): DOUBLE})
_F0 = TypeTree({(0,): FLOAT})
_L0 = TypeTree({(0,): float_type("x86_fp80")})
_I4 = _ints(4)

def _table(*groups: tuple[Rule, str]) -> dict[str, Rule]:
    """A name -> rule table from `(rule, "name name ...")` groups."""
    return {name: rule for rule, names in groups for name in names.split()}


LIBRARY: dict[str, Rule] = _table(
    # allocation: sizes are integers; contents unknown until used
    (_integers(0), "malloc valloc pvalloc _Znwm _Znam _ZnwmRKSt9nothrow_t _ZnamRKSt9nothrow_t"),
    (_integers(0, 1), "calloc aligned_alloc memalign _ZnwmSt11align_val_t _ZnamSt11align_val_t"),
    (_integers(1, 2, ret=True), "posix_memalign"),
    (_realloc, "realloc reallocarray"),
    (_nothing, "free _ZdlPv _ZdaPv"),
    (_integers(1), "_ZdlPvm _ZdaPvm"),
    # memory
    (_memtransfer(returns_dst=True), "memcpy memmove"),
    (_integers(1, 2), "memset"),
    (_integers(1), "bzero"),
    (_integers(2, ret=True), "memcmp strncmp"),
    (_integers(ret=True), "strlen strcmp"),
    # libm with pointer or integer parts
    (_pointee(a1=_I4), "frexp frexpf frexpl lgamma_r lgammaf_r"),
    (_pointee(a2=_I4), "remquo remquof remquol"),
    (_pointee(a1=_D0), "modf"),
    (_pointee(a1=_F0), "modff"),
    (_pointee(a1=_L0), "modfl"),
    (_pointee(a1=_D0, a2=_D0), "sincos"),
    (_pointee(a1=_F0, a2=_F0), "sincosf"),
    (_pointee(a1=_L0, a2=_L0), "sincosl"),
    (_pointee(a2=_I4), "remquo remquof"),
    (_integers(1), "ldexp ldexpf ldexpl scalbn scalbnf scalbln"),
    (_integers(ret=True), "ilogb ilogbf lround llround lrint llrint lroundf lrintf"),
    (_integers(0), "jn yn"),
    # C library integers
    (_all_integers, "abs labs llabs putchar"),
    (_integers(ret=True), "rand printf fprintf puts atoi atol"),
    (_integers(0), "srand exit"),
    # std::string's heap block (libstdc++.so): the capacity by reference
    (_pointee(a1=_ints(8)), M_CREATE),
)

_INTEGER_INTRINSICS = (
    "smax smin umax umin abs ctpop ctlz cttz bswap bitreverse fshl fshr sadd.with.overflow "
    "uadd.with.overflow ssub.with.overflow usub.with.overflow smul.with.overflow umul.with.overflow sadd.sat "
    "uadd.sat ssub.sat usub.sat scmp ucmp vector.reduce.add vector.reduce.mul vector.reduce.and "
    "vector.reduce.or vector.reduce.xor vector.reduce.smax vector.reduce.smin vector.reduce.umax "
    "vector.reduce.umin")
"""Integer-only intrinsics (`llvm.` prefixed below): every operand and the result are integers."""

INTRINSICS: dict[str, Rule] = _table(
    (_memtransfer(returns_dst=False), "llvm.memcpy llvm.memcpy.inline llvm.memmove"),
    (_integers(1, 2), "llvm.memset llvm.memset.inline"),
    (_nothing, "llvm.lifetime.start llvm.lifetime.end llvm.assume llvm.dbg.value llvm.dbg.declare "
               "llvm.dbg.assign llvm.experimental.noalias.scope.decl llvm.invariant.start llvm.invariant.end "
               "llvm.prefetch llvm.stacksave llvm.stackrestore llvm.frexp"),
    (_same_as_arg0, "llvm.ptrmask llvm.threadlocal.address llvm.launder.invariant.group "
                    "llvm.strip.invariant.group llvm.expect llvm.expect.with.probability"),
    (_integers(ret=True), "llvm.objectsize llvm.lround llvm.llround llvm.lrint llvm.llrint"),
    (_integers(1, ret=True), "llvm.is.fpclass"),
    (_integers(1), "llvm.powi llvm.ldexp"),
    (_masked_load, "llvm.masked.load"),
    (_masked_store, "llvm.masked.store"),
    (_all_integers, " ".join(f"llvm.{name}" for name in _INTEGER_INTRINSICS.split())),
)
