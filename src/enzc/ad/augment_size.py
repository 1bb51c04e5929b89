"""`__enzyme_augmentsize(f, args...)`: how many bytes the tape buffer of
`enzyme_allocated, bytes, enzyme_tape, buffer` needs (Enzyme: the size of f's tape
struct). enzc keeps a pointer to its tape in that buffer, whatever f is, so the
answer is the size of a pointer.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase, Invoke, Load, Phi
from enzc.ir.module import Function, GlobalVariable, Module
from enzc.ir.types import IntType
from enzc.ir.values import ConstantInt

from enzc.ad.diagnostics import ad_error

AUGMENT_SIZE_MARK = "__enzyme_augmentsize"
TAPE_POINTER_BYTES = 8
"""What the buffer holds: enzc's tape pointer (x86-64)."""


def is_augment_size(fn: Function | None) -> bool:
    return fn is not None and AUGMENT_SIZE_MARK in (fn.name or "")


def lower_augment_size(module: Module, call: CallBase, caller: Function) -> None:
    """Replace the call by the constant; its marker loads go with it."""
    if not isinstance(call.type, IntType):
        raise ad_error(module, call, caller.name or "?", f"__enzyme_augmentsize returns an integer, but is "
                       f"declared to return {call.type}", "declare it as size_t __enzyme_augmentsize(void *, ...)")
    args = list(call.args)
    if call.uses:
        call.replace_all_uses_with(ConstantInt(call.type, TAPE_POINTER_BYTES))
    if isinstance(call, Invoke):  # it cannot throw now: its unwind edge goes
        for inst in call.unwind_dest.instructions:
            if isinstance(inst, Phi):
                inst.remove_incoming(call.parent)  # type: ignore[arg-type]
        b = IRBuilder()
        b.position_before(call)
        b.br(call.normal_dest)
    call.erase()
    for a in args:  # marker globals are often only declared: their loads must not stay behind
        if isinstance(a, Load) and isinstance(a.ptr, GlobalVariable) and not a.uses and a.parent is not None:
            a.erase()
