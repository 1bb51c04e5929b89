"""Functions that switch on an argument at their entry, seen one case at a time.

Type analysis joins what every path of a function does to an argument's memory.
That is right for a struct whose field always holds a pointer, and wrong for
storage whose type depends on the path: `std::function`'s manager stores a
`type_info` pointer into its destination in one `switch` case and copies the
lambda's doubles there in another, so the copy looked like a pointer move and the
captured doubles' adjoints were dropped wherever no TBAA showed the conflict
(`-fno-strict-aliasing`, AD before optimization). Type-erasing managers
(`std::function`, `std::any`, hand-written `void *` dispatchers) share the shape:
the operation is an argument, and the entry block is a `switch` on it.

So a call that passes a constant operation is analysed as a call of the one case
it runs (`case_clone`, a copy whose entry branches there), and a function being
differentiated is split into one function per case (`synth.switch_cases`), each
typed by itself and by the calls that may run it (`SwitchCase`).
"""

from __future__ import annotations

from dataclasses import dataclass

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase, Instruction, Load, Switch
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.transforms import clone_function, remove_unreachable_blocks
from enzc.ir.values import Argument, ConstantInt


@dataclass(frozen=True)
class SwitchCase:
    """The case of the entry `switch` of the module's function `source` (on argument
    `arg`) that runs for `values`, or with `default`, for any value not `listed`."""

    source: str
    arg: int
    values: frozenset[int]
    default: bool
    listed: frozenset[int]

    def reached_by(self, call: CallBase) -> bool:
        """Whether `call` (of `source`) may run this case."""
        value = call.args[self.arg] if self.arg < len(call.args) else None
        if not isinstance(value, ConstantInt):
            return True
        return value.value in self.values or (self.default and value.value not in self.listed)


_COMPUTES = frozenset({"getelementptr", "bitcast", "addrspacecast", "ptrtoint", "inttoptr", "zext", "sext",
                       "trunc", "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "icmp",
                       "select", "extractvalue", "freeze"})
"""Entry instructions that only compute: every case clone may redo them."""


def entry_switch(fn: Function) -> Switch | None:
    """The `switch` on one of `fn`'s arguments (with at least two distinct targets)
    that ends an entry block doing nothing else but compute and load (the cases'
    common loads that the optimizer hoisted: `std::any`'s manager reads the stored
    pointer first), or None."""
    if not fn.blocks:
        return None
    entry = fn.blocks[0]
    term = entry.terminator
    if not isinstance(term, Switch) or not isinstance(term.condition, Argument) or len(set(term.successors)) < 2:
        return None
    if not all(_only_computes(inst) for inst in entry.instructions[:-1]):
        return None
    return term


def _only_computes(inst: Instruction) -> bool:
    if isinstance(inst, Load):
        return not inst.volatile and inst.ordering is None
    return inst.opcode in _COMPUTES


def switch_cases(fn: Function, switch: Switch) -> dict[BasicBlock, SwitchCase]:
    """Each distinct target of `fn`'s entry `switch` and the case it is."""
    listed = frozenset(v.value for v, _ in switch.cases)
    return {target: SwitchCase(fn.name or "", switch.condition.index,
                               frozenset(v.value for v, t in switch.cases if t is target),
                               target is switch.default, listed)
            for target in dict.fromkeys(switch.successors)}


def target_for(switch: Switch, call: CallBase) -> BasicBlock | None:
    """The block the entry `switch` goes to for `call`'s constant argument (None: not a constant)."""
    value = call.args[switch.condition.index]
    if not isinstance(value, ConstantInt):
        return None
    return next((t for v, t in switch.cases if v.value == value.value), switch.default)


def case_clone(fn: Function, switch: Switch, target: BasicBlock, name: str,
               module: Module | None = None) -> Function:
    """A copy of `fn` (joining `module` when given) whose entry branches to `target` only."""
    case, vmap = clone_function(fn, name, module)
    copied = vmap[switch]
    entry = copied.parent
    kept = vmap[target]
    for succ in dict.fromkeys(copied.successors):
        for phi in succ.phis:
            value = phi.incoming_value_for(entry)
            phi.remove_incoming(entry)
            if succ is kept:  # one entry for the one edge left (a switch may have had several)
                phi.add_incoming(value, entry)
    copied.erase()
    IRBuilder(entry).br(kept)
    remove_unreachable_blocks(case)
    return case
