"""`memcpy`/`memmove`/`memset` touching a dense view, as a loop of element moves.

A copy loop over a view (`for (i) local[i] = x[i]`) is what LLVM's loop-idiom pass
turns into `llvm.memcpy` before AD; a view has no bytes to copy, only elements its
load and store functions produce. The intrinsic becomes a loop of plain loads and
stores of the view's element type, in increasing address order, which the view's
lowering then rewrites like any other access. A length that is not a whole number of
elements is a compile-time error when constant, a trap at run time otherwise; a
`memset` may only clear (byte 0, elements 0).
"""

from __future__ import annotations

from collections.abc import Callable

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.datalayout import DataLayout
from enzc.ir.instructions import CallBase, Instruction
from enzc.ir.local_names import new_block
from enzc.ir.module import Module
from enzc.ir.transforms import split_block
from enzc.ir.types import I8, VOID, FunctionType, Type
from enzc.ir.values import ConstantInt, Value

TRANSFERS = ("llvm.memcpy", "llvm.memmove")
FILL = "llvm.memset"


def is_view_transfer(call: CallBase) -> bool:
    """Whether `call` is a `memcpy`/`memmove`/`memset` intrinsic (the ones expanded here)."""
    name = (call.called_function.name or "") if call.called_function is not None else ""
    return any(name.startswith(n) for n in (*TRANSFERS, FILL))


def expand_transfer(module: Module, layout: DataLayout, call: CallBase, element: Type,
                    error: Callable[[Instruction, str, str], Exception]) -> None:
    """Replace the intrinsic `call` by a loop moving `element`s one at a time."""
    name = call.called_function.name or ""  # type: ignore[union-attr]
    fill = name.startswith(FILL)
    dst, source, length, volatile = call.args[0], call.args[1], call.args[2], call.args[3]
    size = layout.alloc_size_of(element)
    if not isinstance(volatile, ConstantInt) or volatile.value != 0:
        raise error(call, f"'{name}' is volatile", "copy the elements one by one")
    if fill and not (isinstance(source, ConstantInt) and source.value == 0):
        raise error(call, f"'{name}' fills the view with a byte other than 0",
                    "store the elements one by one")
    if isinstance(length, ConstantInt) and length.value % size:
        raise error(call, f"'{name}' moves {length.value} bytes, not a whole number of {size}-byte {element} "
                    "elements", "copy whole elements")
    before = call.parent
    assert before is not None and before.parent is not None
    fn = before.parent
    after = split_block(before, call, "view.copy.done")
    before.instructions[-1].erase()  # split_block's branch: the loop goes between
    b = IRBuilder(before)
    step = ConstantInt(length.type, size)  # type: ignore[arg-type]
    count = b.udiv(length, step, "view.count")
    head = new_block(fn, "view.copy", after=before)
    body = new_block(fn, "view.copy.body", after=head)
    if isinstance(length, ConstantInt):
        b.br(head)
    else:
        trap_block = new_block(fn, "view.copy.partial", after=body)
        partial = b.icmp("ne", b.urem(length, step, "view.rest"), ConstantInt(length.type, 0))  # type: ignore[arg-type]
        b.cond_br(partial, trap_block, head)
        b.position_at_end(trap_block)
        b.call(get_or_insert_function(module, "llvm.trap", FunctionType(VOID, ())), [])
        b.unreachable()
    b.position_at_end(head)
    k = b.phi(length.type, [(ConstantInt(length.type, 0), before)], "view.k")  # type: ignore[arg-type]
    b.cond_br(b.icmp("ult", k, count), body, after)
    b.position_at_end(body)
    offset = b.mul(k, step, "view.off")
    value: Value = b.const_zero(element) if fill else b.load(element, b.gep(I8, source, [offset], "view.src"),
                                                               "view.elt")
    b.store(value, b.gep(I8, dst, [offset], "view.dst"))
    next_k = b.add(k, ConstantInt(length.type, 1), "view.k.next")  # type: ignore[arg-type]
    b.br(head)
    k.add_incoming(next_k, body)
    call.erase()


__all__ = ["expand_transfer", "is_view_transfer"]
