"""LLVM's verifier rules for `musttail` calls: the callee takes the caller's frame, so
caller and callee must agree on everything that shapes it.

- not to inline assembly; varargs on both sides or neither; congruent return types
  (equal, or pointers of one address space); the same calling convention;
- the call is followed by `ret` (of its result, `undef`/`poison`, or void), possibly
  through one bitcast of the result;
- except for `tailcc`/`swifttailcc` and intrinsics, congruent parameter lists (the
  extra rules of those two conventions, no sret, byval, ... at all, are not checked);
- the ABI-shaping parameter attributes (sret, byval, inalloca, inreg, alignstack,
  swiftself, swiftasync, swifterror, preallocated, byref, and `align` next to byval or
  byref) the same on each parameter of the caller and argument of the call.
"""

from __future__ import annotations

from enzc.ir.instructions import Call, Ret
from enzc.ir.module import Function
from enzc.ir.types import FunctionType, PointerType, Type
from enzc.ir.values import ConstantSimple, InlineAsm

_ABI_ATTRS = ("sret", "byval", "inalloca", "inreg", "alignstack", "swiftself", "swiftasync",
              "swifterror", "preallocated", "byref")
_TAIL_CONVENTIONS = ("tailcc", "swifttailcc", "cc18", "cc16")
_DEFAULT_CONVENTIONS = (None, "ccc", "cc0")


def musttail_problem(fn: Function, call: Call) -> str | None:
    """Why LLVM rejects the `musttail` call `call` in `fn` (None if it does not)."""
    if isinstance(call.callee, InlineAsm):
        return "cannot use musttail call with inline asm"
    caller, callee = fn.function_type, call.function_type
    if caller.vararg != callee.vararg:
        return "cannot guarantee tail call due to mismatched varargs"
    if not _congruent(caller.ret, callee.ret):
        return "cannot guarantee tail call due to mismatched return types"
    if _convention(fn.cconv) != _convention(call.cconv):
        return "cannot guarantee tail call due to mismatched calling conventions"
    if problem := _placement_problem(call):
        return problem
    if _convention(call.cconv) in _TAIL_CONVENTIONS:
        return None
    if not (isinstance(call.callee, Function) and call.callee.name.startswith("llvm.")):
        if problem := _prototype_problem(caller, callee):
            return problem
    for index, arg in enumerate(fn.args):
        call_attrs = call.arg_attrs[index] if index < len(call.arg_attrs) else ()
        if _abi_attrs(arg.attrs) != _abi_attrs(call_attrs):
            return ("cannot guarantee tail call due to mismatched ABI impacting "
                    f"attributes of parameter {index}")
    return None


def _placement_problem(call: Call) -> str | None:
    block = call.parent
    if block is None:
        return None
    following = block.instructions[block.index_of(call) + 1:]
    result = call
    if following and following[0].opcode == "bitcast":
        if following[0].operands[0] is not call:
            return "bitcast following musttail call must use the call"
        result = following[0]
        following = following[1:]
    if not following or not isinstance(following[0], Ret):
        return "musttail call must precede a ret with an optional bitcast"
    value = following[0].value
    undefined = isinstance(value, ConstantSimple) and value.ref() in ("undef", "poison")
    if value is not None and value is not result and not undefined:
        return "musttail call result must be returned"
    return None


def _prototype_problem(caller: FunctionType, callee: FunctionType) -> str | None:
    if len(caller.params) != len(callee.params):
        return "cannot guarantee tail call due to mismatched parameter counts"
    if not all(_congruent(a, b) for a, b in zip(caller.params, callee.params)):
        return "cannot guarantee tail call due to mismatched parameter types"
    return None


def _congruent(a: Type, b: Type) -> bool:
    if isinstance(a, PointerType) and isinstance(b, PointerType):
        return a.addrspace == b.addrspace
    return a == b


def _convention(cconv: str | None) -> str | None:
    return None if cconv in _DEFAULT_CONVENTIONS else cconv


def _abi_attrs(attrs: tuple[str, ...]) -> frozenset[str]:
    """The attributes of one parameter that shape the frame, as written."""
    words = [a for a in attrs if a.split("(")[0].split(" ")[0] in _ABI_ATTRS]
    if any(a.startswith(("byval", "byref")) for a in words):
        words += [a for a in attrs if a.startswith("align ") or a.startswith("align(")]
    return frozenset(" ".join(w.split()) for w in words)
