"""The C library functions and LLVM memory intrinsics generated code calls, and internal
helper functions defined once per module.

Code that emits calls of `malloc`, `free` or `llvm.memset.p0.i64` takes their
declaration from one table (`declare`) instead of spelling the signature at each
call site; `define_helper` adds an internal function (a small runtime routine the
generated code calls) the first time it is asked for.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, get_or_insert_function, new_block
from enzc.ir.module import Function, Module
from enzc.ir.types import I1, I8, I32, I64, PTR, VOID, ArrayType, FunctionType
from enzc.ir.values import ConstantInt, ConstantString

LIBRARY: dict[str, FunctionType] = {
    "malloc": FunctionType(PTR, (I64,)),
    "realloc": FunctionType(PTR, (PTR, I64)),
    "aligned_alloc": FunctionType(PTR, (I64, I64)),
    "free": FunctionType(VOID, (PTR,)),
    "malloc_usable_size": FunctionType(I64, (PTR,)),
    "abort": FunctionType(VOID, ()),
    "write": FunctionType(I64, (I32, PTR, I64)),
    "atexit": FunctionType(I32, (PTR,)),
    "dprintf": FunctionType(I32, (I32, PTR), vararg=True),
    "qsort_r": FunctionType(VOID, (PTR, I64, I64, PTR, PTR)),
    "bsearch": FunctionType(PTR, (PTR, PTR, I64, I64, PTR)),
    "llvm.memset.p0.i64": FunctionType(VOID, (PTR, I8, I64, I1)),
    "llvm.memcpy.p0.p0.i64": FunctionType(VOID, (PTR, PTR, I64, I1)),
    "llvm.memmove.p0.p0.i64": FunctionType(VOID, (PTR, PTR, I64, I1)),
}
"""Signatures (x86-64 SysV, 64-bit sizes) of what generated code may call."""


def declare(module: Module, name: str) -> Function:
    """`module`'s function `name` from `LIBRARY`, declared on first use."""
    return get_or_insert_function(module, name, LIBRARY[name])


def define_helper(module: Module, name: str, ftype: FunctionType, arg_names: tuple[str, ...],
                  attrs: tuple[str, ...] = ("alwaysinline", "nounwind")) -> tuple[Function, bool]:
    """The internal function `name` of `module`, and whether it is new: a new one has
    named arguments, the given attributes and no blocks yet (the caller builds them)."""
    fn = module.get_function(name)
    if fn is not None:
        return fn, False
    fn = module.add_function(name, ftype, unique=False)
    fn.linkage.words = ["internal"]
    fn.fn_attrs = attrs
    for a, n in zip(fn.args, arg_names):
        a.name = n
    fn.blocks = []
    return fn, True


def define_failure(module: Module, name: str, message: bytes) -> Function:
    """`void name()`: writes `message` to stderr and aborts (a check generated code
    makes at run time, where no compile-time error can be given)."""
    fn, fresh = define_helper(module, name, FunctionType(VOID, ()), (), attrs=("noinline", "cold", "noreturn"))
    if fresh:
        text_type = ArrayType(len(message), I8)
        text = module.add_global(name + ".msg", text_type, ConstantString(text_type, message), constant=True)
        text.linkage.words = ["private"]
        b = IRBuilder(new_block(fn, "entry"))
        b.call(declare(module, "write"), [ConstantInt(I32, 2), text, ConstantInt(I64, len(message))])
        b.call(declare(module, "abort"), [])
        b.unreachable()
    return fn
