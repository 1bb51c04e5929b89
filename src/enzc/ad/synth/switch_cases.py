"""A function being differentiated whose entry picks a case by an argument or a
value it loads, split into one function per case (`typeanalysis.cases` says why).

The private copy becomes a dispatcher (its entry block, then a `switch` on the
chosen value) that calls `<name>.case<k>`, a clone whose entry branches to that
case alone; type analysis analyses those calls in the
dispatcher's own context and joins nothing back (`TypeAnalysis.case_functions`),
so a case's instructions are typed by that case and by the calls of the original
function that may run it, never by a sibling case. Where a case cannot be typed
on its own, the result is the usual located error, not another case's guess. The
user's function is untouched; the dispatcher's calls are differentiated like any
call.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import Unreachable
from enzc.ir.local_names import new_block
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.types import VoidType

from enzc.ad.typeanalysis.analysis import TypeAnalysis
from enzc.ad.typeanalysis.cases import case_clone, entry_choice, switch_cases


def split_entry_choice(module: Module, fn: Function, types: TypeAnalysis) -> bool:
    """Turn `fn` (a private copy) into a dispatcher over one function per case of
    its entry choice (`entry_choice`); False (and `fn` unchanged) when it has none."""
    choice = entry_choice(fn)
    if choice is None:
        return False
    calls: dict[BasicBlock, Function | None] = {}
    for k, (target, case) in enumerate(switch_cases(fn, choice).items()):
        if isinstance(target.instructions[0], Unreachable):  # a value the program never passes
            calls[target] = None
            continue
        clone = case_clone(fn, choice, target, f"{fn.name}.case{k}", module)
        clone.linkage.words = ["internal"]
        types.case_functions[clone.name or ""] = case
        calls[target] = clone
    entry = fn.blocks[0]  # kept: it computes the value the choice is made by
    for block in fn.blocks[1:]:
        for inst in block.instructions:
            inst.drop_operands()
    choice.terminator.erase()
    fn.blocks = [entry]
    blocks = {target: _call_block(fn, clone) for target, clone in calls.items()}
    IRBuilder(entry).switch(choice.condition, blocks[choice.default],
                            [(value, blocks[target]) for value, target in choice.cases])
    return True


def _call_block(fn: Function, case: Function | None) -> BasicBlock:
    """A block of the dispatcher that calls `case` with `fn`'s arguments and returns
    its result (None: a block that is unreachable)."""
    if case is None:
        block = new_block(fn, "unreachable")
        IRBuilder(block).unreachable()
        return block
    block = new_block(fn, case.name.rsplit(".", 1)[-1])
    b = IRBuilder(block)
    result = b.call(case, list(fn.args))
    result.arg_attrs = [a.attrs for a in case.args]  # `sret`, `byval`: the call's ABI is the case's
    result.cconv = case.cconv
    if isinstance(fn.function_type.ret, VoidType):
        b.ret_void()
    else:
        b.ret(result)
    return block
