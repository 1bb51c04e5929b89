"""Indirect calls: the shadow of a function pointer and calls through it.

The shadow of a function pointer `fp` is a pointer to a constant global pair
`{ptr @augmented_f, ptr @reverse_f}` of the function `f` it points to. enzc
differentiates whole programs (every translation unit is merged before AD), so
the shadow is found by looking `fp` up among the module's *candidate* targets:
functions of the call's type used as values somewhere (an operand that is not the
callee of a direct call, read from the parsed IR). A declaration among them is
differentiated through a wrapper that calls it when the rule table, a user's
derivative or an inactive mark covers it (`sin` in a table next to user
functions), or when it is a heap allocator (`malloc` in an allocator hook: the
wrapper's derivative shadows the block as a direct call's does); any other declaration is a compile-time error, since no derivative
could be made for it. At an active indirect call the forward pass computes the
pair from `fp` (a chain of compares and selects), calls the augmented function
through it, and keeps the pair as a forward value; the reverse pass calls the
reverse function through the looked-up pair. In forward mode the forward
derivative of the target is chosen the same way (`function_of_pointer`) and
called. No shadow memory for function pointers is needed: tables of function
pointers in constant globals, structs of function pointers and pointers passed
as `const` arguments all work alike.

Every candidate is derived for the call site's own signature (which arguments
carry shadows or adjoints, whether the result is active), so all pairs reached
through one call share one type. A pointer that is none of the candidates
(one the merged module cannot see, e.g. from a shared library's callback) ends
the program with a message instead of silently producing a zero derivative.
"""

from __future__ import annotations

from typing import Protocol

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.instructions import CallBase
from enzc.ir.libc import declare
from enzc.ir.module import Function, GlobalVariable, Module
from enzc.ir.forwarding import forwarding_wrapper
from enzc.ir.types import I32, I64, PTR, ArrayType, FunctionType, IntType, StructType
from enzc.ir.values import ConstantAggregate, ConstantInt, Value

from enzc.ad.analysis.calls import CallKind, RuleLookup, classify_function
from enzc.ad.analysis.indirect_targets import candidates
from enzc.ad.analysis.gradient_state import GradientState

PAIR = StructType((PTR, PTR))
"""`{augmented, reverse}`: the shadow of a function."""


class DerivedPair(Protocol):
    """A function's augmented forward and reverse (`synth.split_mode.SplitDerivative`)."""

    augmented: Function
    reverse: Function

def reachable_definitions(state: GradientState, call: CallBase,
                          has_rule: RuleLookup) -> list[tuple[Function, Function]]:
    """The candidates of an active indirect `call`, each as (the address the pointer
    is compared with, the defined function to differentiate): a definition itself; a
    declaration with a derivative rule (`sin` in a table next to user functions; the
    rule table's lookup is `has_rule`), a user's derivative, marked inactive or an allocator,
    through a wrapper that calls it. A compile-time error if another declaration of
    the call's type is address-taken, or nothing is."""
    defined, external = candidates(state.module, call)
    targets = [(fn, fn) for fn in defined]
    for fn in external:
        kind = classify_function(fn, has_rule)
        if kind not in (CallKind.RULE, CallKind.CUSTOM, CallKind.INACTIVE, CallKind.ALLOC):
            name = fn.name
            raise state.error(call, f"an active indirect call may reach '{name}', which has no body in the "
                                    "program's bitcode to differentiate",
                              "call it through a small function defined in the program, or provide a custom "
                              f"derivative (__enzyme_register_gradient_{name})")
        targets.append((fn, _rule_wrapper(state.module, fn)))
    if not targets:
        raise state.error(call, "cannot differentiate an indirect call: no function of its type has its address "
                                "taken in the program", "call the function directly")
    return targets


def _rule_wrapper(module: Module, fn: Function) -> Function:
    """A body whose derivative the rule table gives, standing for declared `f`."""
    return forwarding_wrapper(module, fn, f"__enzc_wrap.{fn.name}")


def function_of_pointer(module: Module, b: IRBuilder, fp: Value, targets: list[tuple[Function, Function]]) -> Value:
    """Forward-mode code at `b`: of the (address, derived function) `targets` (all
    derived functions of one type), the derived function of the address `fp` holds,
    chosen by compares and selects (a function that reports the unknown target and
    aborts if none)."""
    chosen: Value = _trap_function(module, targets[0][1].function_type)
    for address, derived in reversed(targets):
        chosen = b.select(b.icmp("eq", fp, address, "fp.is"), derived, chosen, "fp.fwd")
    return chosen


def pair_global(module: Module, split: DerivedPair) -> GlobalVariable:
    """The constant `{augmented, reverse}` of one derived pair (made once)."""
    name = f"{split.augmented.name}.shadow"
    got = module.globals.get(name)
    if got is None:
        got = module.add_global(name, PAIR, ConstantAggregate(PAIR, [split.augmented, split.reverse]),
                                constant=True)
        got.linkage.words = ["internal"]
    return got


def shadow_of_pointer(module: Module, b: IRBuilder, fp: Value, targets: list[tuple[Function, DerivedPair]]) -> Value:
    """Forward code: the pair of the function `fp` points to (a trap pair if none)."""
    shadow: Value = _unknown_pair(module, targets[0][1])
    for fn, split in reversed(targets):
        hit = b.icmp("eq", fp, fn, "fp.is")
        shadow = b.select(hit, pair_global(module, split), shadow, "fp.shadow")
    return shadow


def _unknown_pair(module: Module, like: DerivedPair) -> GlobalVariable:
    """A pair of the types of `like` whose functions report an unknown target and abort."""
    fa = _trap_function(module, like.augmented.function_type)
    fr = _trap_function(module, like.reverse.function_type)
    gv = module.add_global("__enzc_unknown_target.pair", PAIR, ConstantAggregate(PAIR, [fa, fr]), constant=True)
    gv.linkage.words = ["internal"]
    return gv


MESSAGE = b"enzc: an indirect call in differentiated code reached a function without a derivative " \
          b"(not defined in the program's bitcode)\n"


def _trap_function(module: Module, ftype: FunctionType) -> Function:
    """A function of type `ftype` that prints `MESSAGE` to stderr and aborts."""
    fn = module.add_function("__enzc_unknown_target", ftype)
    fn.linkage.words = ["internal"]
    fn.blocks = []
    b = IRBuilder(new_block(fn, "entry"))
    msg = _message_global(module)
    b.call(declare(module, "write"), [ConstantInt(I32, 2), msg, ConstantInt(I64, len(MESSAGE))])
    b.call(declare(module, "abort"), [])
    b.unreachable()
    return fn


def _message_global(module: Module) -> GlobalVariable:
    name = "__enzc_unknown_target.msg"
    got = module.globals.get(name)
    if got is None:
        from enzc.ir.values import ConstantString

        got = module.add_global(name, ArrayType(len(MESSAGE), IntType(8)), ConstantString(ArrayType(len(MESSAGE), IntType(8)), MESSAGE), constant=True)
        got.linkage.words = ["private"]
    return got
