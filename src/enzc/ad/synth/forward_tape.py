"""The tape of forward split mode (`forward_split`): a log of the primal values the
augmented forward read, in the order it read them.

    struct { ptr data; i64 used; i64 capacity; i64 read; }     (calloc'd, 32 bytes)

`__enzc_fwdtape_push(t, n)` returns where the next `n` bytes go (the log grows by
`realloc`, doubling); `__enzc_fwdtape_pop(t, n)` returns where the next `n` bytes
read come from. Every slot is a multiple of 8 bytes, so values stay 8-byte aligned.
A derivative and the functions it calls share one tape: the replay reads it in the
order the augmented forward wrote it, because it takes the same path through the
same code. `__enzc_fwdtape_free(t)` releases both blocks.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.datalayout import DataLayout
from enzc.ir.libc import declare, define_helper
from enzc.ir.module import Function, Module
from enzc.ir.types import I8, I64, PTR, VOID, FunctionType, StructType, Type
from enzc.ir.values import ConstantInt, Value

TAPE = StructType((PTR, I64, I64, I64))
NEW, PUSH, POP, FREE = "__enzc_fwdtape_new", "__enzc_fwdtape_push", "__enzc_fwdtape_pop", "__enzc_fwdtape_free"
FIRST_CAPACITY = 256
"""Bytes of the first log block."""


def slot_size(layout: DataLayout, ty: Type) -> int:
    """Bytes a value of `ty` takes in the log (its allocation size rounded up to 8)."""
    return (layout.alloc_size_of(ty) + 7) // 8 * 8


def tape_new(module: Module) -> Function:
    """`ptr __enzc_fwdtape_new()`: an empty tape."""
    fn, fresh = define_helper(module, NEW, FunctionType(PTR, ()), (), ("nounwind",))
    if fresh:
        b = IRBuilder(new_block(fn, "entry"))
        b.ret(b.call(_calloc(module), [ConstantInt(I64, 1), ConstantInt(I64, 32)], "tape"))
    return fn


def tape_free(module: Module) -> Function:
    """`void __enzc_fwdtape_free(ptr t)`."""
    fn, fresh = define_helper(module, FREE, FunctionType(VOID, (PTR,)), ("tape",), ("nounwind",))
    if fresh:
        b = IRBuilder(new_block(fn, "entry"))
        free = declare(module, "free")
        b.call(free, [b.load(PTR, fn.args[0], "data")])
        b.call(free, [fn.args[0]])
        b.ret_void()
    return fn


def push(module: Module, b: IRBuilder, tape: Value, value: Value, layout: DataLayout) -> None:
    """Append `value` to the log at the builder's position."""
    slot = b.call(_push(module), [tape, ConstantInt(I64, slot_size(layout, value.type))], "tape.slot")
    b.store(value, slot, align=8)


def pop(module: Module, b: IRBuilder, tape: Value, ty: Type, layout: DataLayout, name: str) -> Value:
    """The next value of the log (of type `ty`), read at the builder's position."""
    slot = b.call(_pop(module), [tape, ConstantInt(I64, slot_size(layout, ty))], "tape.slot")
    return b.load(ty, slot, name, align=8)


def _calloc(module: Module) -> Function:
    from enzc.ir.builder import get_or_insert_function

    return get_or_insert_function(module, "calloc", FunctionType(PTR, (I64, I64)))


def _field(b: IRBuilder, tape: Value, k: int) -> Value:
    return b.gep(TAPE, tape, [0, k], ("datap", "usedp", "capp", "readp")[k])


def _push(module: Module) -> Function:
    fn, fresh = define_helper(module, PUSH, FunctionType(PTR, (PTR, I64)), ("tape", "bytes"), ("nounwind",))
    if not fresh:
        return fn
    entry, grow, put = new_block(fn, "entry"), new_block(fn, "grow"), new_block(fn, "put")
    tape, n = fn.args
    b = IRBuilder(entry)
    used = b.load(I64, _field(b, tape, 1), "used")
    end = b.add(used, n, "end")
    cap = b.load(I64, _field(b, tape, 2), "cap")
    b.cond_br(b.icmp("ugt", end, cap, "full"), grow, put)
    b.position_at_end(grow)
    doubled = b.mul(cap, ConstantInt(I64, 2), "doubled")
    wanted = b.select(b.icmp("ugt", end, doubled, "more"), end, doubled, "wanted")
    newcap = b.select(b.icmp("ult", wanted, ConstantInt(I64, FIRST_CAPACITY), "small"),
                      ConstantInt(I64, FIRST_CAPACITY), wanted, "newcap")
    data = b.call(declare(module, "realloc"), [b.load(PTR, _field(b, tape, 0), "old"), newcap], "data")
    b.store(data, _field(b, tape, 0))
    b.store(newcap, _field(b, tape, 2))
    b.br(put)
    b.position_at_end(put)
    b.store(end, _field(b, tape, 1))
    b.ret(b.gep(I8, b.load(PTR, _field(b, tape, 0), "base"), [used], "slot"))
    return fn


def _pop(module: Module) -> Function:
    fn, fresh = define_helper(module, POP, FunctionType(PTR, (PTR, I64)), ("tape", "bytes"))
    if not fresh:
        return fn
    tape, n = fn.args
    b = IRBuilder(new_block(fn, "entry"))
    read = b.load(I64, _field(b, tape, 3), "read")
    b.store(b.add(read, n, "next"), _field(b, tape, 3))
    b.ret(b.gep(I8, b.load(PTR, _field(b, tape, 0), "base"), [read], "slot"))
    return fn
