"""A function that only calls another: where a call of `f` must be seen, not its body."""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.module import Function, Module
from enzc.ir.types import VOID


def forwarding_wrapper(module: Module, fn: Function, name: str) -> Function:
    """`define internal T @name(args) { ret call @fn(args) }`, made once: a function
    that stands for `fn` where a call of `fn` (not its body) must be seen. The
    parameters keep `fn`'s attributes (`byval`, `sret`, ...) and the call passes them on."""
    got = module.functions.get(name)
    if got is not None:
        return got
    wrapper = module.add_function(name, fn.function_type)
    wrapper.linkage.words = ["internal"]
    wrapper.cconv, wrapper.ret_attrs = fn.cconv, fn.ret_attrs
    for mine, theirs in zip(wrapper.args, fn.args):
        mine.attrs = theirs.attrs
    wrapper.blocks = []
    b = IRBuilder(new_block(wrapper, "entry"))
    returns = fn.function_type.ret != VOID
    call = b.call(fn, list(wrapper.args), "r" if returns else "")
    call.arg_attrs = [a.attrs for a in fn.args]
    call.cconv = fn.cconv
    b.ret(call if returns else None)
    return wrapper
