"""Functions that pick a case by an argument at their entry, seen one case at a time.

Type analysis joins what every path of a function does to an argument's memory.
That is right for a struct whose field always holds a pointer, and wrong for
storage whose type depends on the path: `std::function`'s manager stores a
`type_info` pointer into its destination in one `switch` case and copies the
lambda's doubles there in another, so the copy looked like a pointer move and the
captured doubles' adjoints were dropped wherever no TBAA showed the conflict
(`-fno-strict-aliasing`, AD before optimization). Type-erasing managers
(`std::function`, `std::any`, hand-written `void *` dispatchers) share the shape:
the operation is an argument, and the entry block picks a case by it (`switch`, or
`if (op == C)` with a pointer stored on one side and data written on the other:
`entry_choice`).

So a call that passes a constant operation is analysed as a call of the one case
it runs (`case_clone`: a copy whose entry branches there), and a function being
differentiated is split into one function per case (`synth.switch_cases`), each
typed by itself and by the calls that may run it (`SwitchCase`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from enzc.ir.builder import IRBuilder
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import Br, CallBase, Compare, GetElementPtr, Instruction, Load, Store, Switch
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.transforms import clone_function, fold_trivial_phis, remove_unreachable_blocks
from enzc.ir.types import PointerType
from enzc.ir.values import Argument, ConstantInt, Value


@dataclass(frozen=True)
class SwitchCase:
    """The case of the entry `switch` of the module's function `source` (on argument
    `arg`) that runs for `values`, or with `default`, for any value not `listed`."""

    source: str
    arg: int | None
    """None: the choice is by a value the function computes (every call may run the case)."""
    values: frozenset[int]
    default: bool
    listed: frozenset[int]

    def reached_by(self, call: CallBase) -> bool:
        """Whether `call` (of `source`) may run this case."""
        value = call.args[self.arg] if self.arg is not None and self.arg < len(call.args) else None
        if not isinstance(value, ConstantInt):
            return True
        return value.value in self.values or (self.default and value.value not in self.listed)


_COMPUTES = frozenset({"getelementptr", "bitcast", "addrspacecast", "ptrtoint", "inttoptr", "zext", "sext",
                       "trunc", "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "icmp",
                       "select", "extractvalue", "freeze"})
"""Entry instructions that only compute: every case clone may redo them."""


@dataclass(frozen=True)
class EntryChoice:
    """A choice of a case by the value of `condition`, which is fixed when the
    function is entered (an argument, arithmetic on arguments, or what the function
    loads before it may write anything: `switch (cmd->op)`): a `switch`, or a branch
    on `condition == value` (`!=`)."""

    terminator: Instruction
    condition: Value
    cases: tuple[tuple[int, BasicBlock], ...]
    default: BasicBlock
    prefix: tuple[BasicBlock, ...] | None = None
    """Where `condition` loads memory after the entry block's first write or outside
    it: the blocks that may run before the choice (the entry first), which only
    compute and load; a dispatcher runs a copy of them. None: `condition` can be
    computed before the function's first instruction (from the arguments, and loads
    the entry block makes before it may write)."""

    @property
    def arg(self) -> int | None:
        """The index of the argument the choice is made by (None: a computed value)."""
        return self.condition.index if isinstance(self.condition, Argument) else None

    @property
    def targets(self) -> list[BasicBlock]:
        """The distinct blocks chosen, the default's first."""
        return list(dict.fromkeys([self.default, *(t for _, t in self.cases)]))

    def target_for(self, value: int) -> BasicBlock:
        return next((t for v, t in self.cases if v == value), self.default)


def entry_choice(fn: Function) -> EntryChoice | None:
    """How `fn` picks a case by a value fixed when it is entered (`EntryChoice`):
    a `switch` ending an entry block that does nothing but compute and load (at
    least two distinct targets), or, in any block, a `switch` or a branch on
    equality with a constant whose sides write one object reached from the arguments
    with a pointer on one side and with data on the other (`if (op == ADDRESS)
    *(void **)dst = src; else memcpy(dst, ...)`, also after a counter or a null
    check: other branches, `if (n == 0) return`, keep one analysis). The first such
    block in layout order; None if there is none."""
    if not fn.blocks:
        return None
    entry = fn.blocks[0]
    tree: DominatorTree | None = None
    for block in fn.blocks:
        term = block.terminator
        if isinstance(term, Switch):
            if len(set(term.successors)) < 2:
                continue
            choice: EntryChoice | None = EntryChoice(
                term, term.condition, tuple((v.value, t) for v, t in term.cases), term.default)
        else:
            choice = _equality_branch(term)
        if choice is None:
            continue
        tree_of_condition = _condition_tree(choice.condition)
        if tree_of_condition is None:
            continue
        loads = [i for i in tree_of_condition if isinstance(i, Load)]
        if not all(_loaded_first(load, entry) for load in loads):
            prefix = _pure_prefix(block)
            if prefix is None:
                continue
            choice = replace(choice, prefix=prefix)
        if isinstance(term, Switch) and block is entry and all(_only_computes(i) for i in entry.instructions[:-1]):
            return choice
        tree = tree or DominatorTree(fn)
        if _writes_differ(fn, choice, tree):
            return choice
    return None


_MAX_CONDITION = 16
"""Instructions a choice's condition may be computed by."""


def _loaded_first(load: Load, entry: BasicBlock) -> bool:
    """Whether `load` is in the entry block, before anything that may write memory."""
    return load.parent is entry and \
        all(_only_computes(i) for i in entry.instructions[: entry.instructions.index(load)])


def _pure_prefix(block: BasicBlock) -> tuple[BasicBlock, ...] | None:
    """The blocks that may run before `block`'s terminator in a call (`block`
    itself, what can reach it), entry first, if they only compute and load and
    branch; None otherwise."""
    found = {block}
    work = [block]
    while work:
        for pred in work.pop().predecessors:
            if pred not in found:
                found.add(pred)
                work.append(pred)
    fn = block.parent
    assert fn is not None
    prefix = tuple(b for b in fn.blocks if b in found)
    for b in prefix:
        if not isinstance(b.terminator, (Br, Switch)) or not all(_only_computes(i) for i in b.instructions[:-1]):
            return None
    return prefix


def fixed_condition(choice: EntryChoice) -> list[Instruction]:
    """The instructions that compute `choice.condition`, operands first (what a
    dispatcher computes first when `choice.prefix` is None)."""
    tree = _condition_tree(choice.condition)
    assert tree is not None, "entry_choice checked it"
    return tree


def _condition_tree(condition: Value) -> list[Instruction] | None:
    """The instructions `condition` is computed by, operands first, if they are
    arithmetic and plain loads on arguments and constants (None otherwise: a phi,
    a call, a volatile load, more than `_MAX_CONDITION` of them)."""
    order: list[Instruction] = []

    def visit(v: Value) -> bool:
        if not isinstance(v, Instruction) or v in order:
            return True
        if not _only_computes(v) or len(order) >= _MAX_CONDITION:
            return False
        if not all(visit(op) for op in v.operands):
            return False
        order.append(v)
        return True

    return order if visit(condition) else None


def _equality_branch(term: Instruction | None) -> EntryChoice | None:
    if not isinstance(term, Br) or not term.is_conditional:
        return None
    cmp = term.condition
    if not isinstance(cmp, Compare) or cmp.opcode != "icmp" or cmp.predicate not in ("eq", "ne"):
        return None
    condition, value = cmp.lhs, cmp.rhs
    if isinstance(condition, ConstantInt):
        condition, value = value, condition
    if not isinstance(value, ConstantInt):
        return None
    taken, other = term.successors
    if taken is other:
        return None
    if cmp.predicate == "ne":
        taken, other = other, taken
    return EntryChoice(term, condition, ((value.value, taken),), other)


def _writes_differ(fn: Function, choice: EntryChoice, tree: DominatorTree) -> bool:
    """Whether the blocks only one target reaches write some object reached from
    the arguments with a pointer on one side and with data on the other (a target
    that other paths reach too, as the join after a `switch`, is no side)."""
    kinds: list[dict[tuple, set[str]]] = []
    for target in choice.targets:
        if len(target.predecessors) != 1:
            continue
        region = [b for b in fn.blocks if tree.dominates(target, b)]
        kinds.append(_object_writes(region))
    return any("pointer" in a.get(key, ()) and "data" in b.get(key, ())
               for a in kinds for b in kinds if a is not b for key in a)


def _object_writes(blocks: list[BasicBlock]) -> dict[tuple, set[str]]:
    """Per object reached from an argument (`_object_key`), what the blocks write
    into it: a pointer, or data."""
    out: dict[tuple, set[str]] = {}
    for block in blocks:
        for inst in block.instructions:
            if isinstance(inst, Store):
                target, kind = inst.ptr, "pointer" if isinstance(inst.value.type, PointerType) else "data"
            elif isinstance(inst, CallBase) and _is_memory_write(inst):
                target, kind = inst.args[0], "data"
            else:
                continue
            key = _object_key(target)
            if key is not None:
                out.setdefault(key, set()).add(kind)
    return out


def _is_memory_write(call: CallBase) -> bool:
    callee = call.called_function
    name = (callee.name or "") if callee is not None else ""
    return name.startswith(("llvm.memcpy", "llvm.memmove", "llvm.memset")) and bool(call.args)


def _object_key(ptr: Value, depth: int = 0) -> tuple | None:
    """Which object `ptr` points into, as the path from an argument: the argument
    itself past constant offsets, or a pointer loaded from such an object (`c->dst`
    in either side loads the same field); None for anything else."""
    while isinstance(ptr, GetElementPtr) and all(isinstance(i, ConstantInt) for i in ptr.indices):
        ptr = ptr.ptr
    if isinstance(ptr, Argument):
        return ("arg", ptr.index)
    if isinstance(ptr, Load) and depth < _MAX_LOADS:
        inner = _object_key(ptr.ptr, depth + 1)
        return ("load", inner) if inner is not None else None
    return None


_MAX_LOADS = 4
"""Loads followed from an argument to the written object."""


def _only_computes(inst: Instruction) -> bool:
    if isinstance(inst, Load):
        return not inst.volatile and inst.ordering is None
    return inst.opcode in _COMPUTES


def switch_cases(fn: Function, choice: EntryChoice) -> dict[BasicBlock, SwitchCase]:
    """Each distinct target of `fn`'s entry choice and the case it is."""
    listed = frozenset(v for v, _ in choice.cases)
    return {target: SwitchCase(fn.name or "", choice.arg,
                               frozenset(v for v, t in choice.cases if t is target),
                               target is choice.default, listed)
            for target in choice.targets}


def target_for(choice: EntryChoice, call: CallBase) -> BasicBlock | None:
    """The block the entry choice goes to for `call`'s constant argument (None: the
    choice is not by an argument, or the call passes no constant)."""
    value = call.args[choice.arg] if choice.arg is not None else None
    return choice.target_for(value.value) if isinstance(value, ConstantInt) else None


def case_clone(fn: Function, choice: EntryChoice, target: BasicBlock, name: str,
               module: Module | None = None) -> Function:
    """A copy of `fn` (joining `module` when given) whose entry branches to `target` only."""
    case, vmap = clone_function(fn, name, module)
    copied = vmap[choice.terminator]
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
    fold_trivial_phis(case)  # a value the case alone passes on is that value (a constant, no phi)
    return case
