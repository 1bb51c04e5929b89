"""A function being differentiated that picks a case by a value fixed at its entry
(an argument, or one it loads first), split into one function per case
(`typeanalysis.cases` says why).

The private copy becomes a dispatcher (what computes the chosen value, then a
`switch` on it) that calls `<name>.case<k>`, a clone whose choice branches to that
case alone (the clone does everything else the function did, once); type analysis analyses those calls in the
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
from enzc.ad.typeanalysis.cases import EntryChoice, case_clone, entry_choice, fixed_condition, switch_cases


def split_entry_choice(module: Module, fn: Function, types: TypeAnalysis) -> bool:
    """Turn `fn` (a private copy) into a dispatcher over one function per case of
    its choice (`entry_choice`); False (and `fn` unchanged) when it has none."""
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
    speculated = choice.prefix is None and choice.terminator.parent is not fn.blocks[0]
    chooser = _keep_condition(fn, choice) if choice.prefix is None else _keep_prefix(fn, choice)
    blocks = {target: _call_block(fn, clone) for target, clone in calls.items()}
    kept = set(fn.blocks)
    for block in fn.blocks:  # the prefix's ways out: the choice is not reached, any case does the rest
        if block.terminator is not None:
            for i, op in enumerate(block.terminator.operands):
                if isinstance(op, BasicBlock) and op not in kept:
                    block.terminator.set_operand(i, blocks[choice.default])
    b = IRBuilder(chooser)
    condition = b.freeze(choice.condition, "case.choice") if speculated else choice.condition
    b.switch(condition, blocks[choice.default], [(value, blocks[target]) for value, target in choice.cases])
    return True


def _keep_condition(fn: Function, choice: EntryChoice) -> BasicBlock:
    """Empty `fn` but for a new entry block computing the chosen value (moved there:
    nothing else of `fn` is left to use it, and it reads no memory the function
    writes first); that block."""
    condition = fixed_condition(choice)
    for block in fn.blocks:
        for inst in block.instructions:
            if inst not in condition:
                inst.drop_operands()
    fn.blocks = []
    entry = new_block(fn, "dispatch")
    b = IRBuilder(entry)
    for inst in condition:
        inst.parent, inst.debug_records = None, []
        b.insert(inst)
    return entry


def _keep_prefix(fn: Function, choice: EntryChoice) -> BasicBlock:
    """Empty `fn` but for the blocks before the choice (they only compute, load and
    branch), the choice itself removed; its block."""
    assert choice.prefix is not None
    kept = set(choice.prefix)
    for block in fn.blocks:
        if block not in kept:
            for inst in block.instructions:
                inst.drop_operands()
    fn.blocks = [b for b in fn.blocks if b in kept]
    chooser = choice.terminator.parent
    assert chooser is not None
    choice.terminator.erase()
    return chooser


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
