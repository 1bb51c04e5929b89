"""The per-function fixed point of type analysis: a tree per value, a worklist.

Every rule only ever *joins* facts into trees (`update`), so trees grow
monotonically in a lattice of finite height (depth and offsets are capped in
`typetree`) and the worklist empties. When a value's tree grows, the
instruction defining it (its backward rules) and its users (their forward
rules) are queued. Calls to defined functions are queued separately and only
run once the local worklist is empty, so callees get analysed with arguments
that have mostly settled instead of once per intermediate state.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable, Protocol

from enzc.ir.datalayout import DataLayoutError
from enzc.ir.instructions import CallBase, Instruction, Ret
from enzc.ir.module import Function, GlobalVariable
from enzc.ir.types import ArrayType, NamedStructType, PointerType, StructType, VectorType
from enzc.ir.values import Argument, Constant, ConstantAggregate, ConstantExpr, ConstantFP, ConstantInt, ConstantSplat
from enzc.ir.values import ConstantString, GlobalValue, Value

from enzc.ad.typeanalysis.offsets import TypeSeeds
from enzc.ad.typeanalysis.strings import StringObjects, untyped_pointee
from enzc.ad.typeanalysis.tbaa import TBAAReader
from enzc.ad.typeanalysis.typetree import ANYTHING, INTEGER, POINTER, Path, BaseType, TypeTree, float_type

_SMALL_INT = 4096
_BUDGET_PER_INSTRUCTION = 32
_BUDGET_BASE = 1024
_GROWTH_LIMIT = 40
"""Integer constants with magnitude up to this are integers; larger ones may be float bits."""


class Driver(Protocol):
    """What a function's fixed point asks of the analysis running it (`analysis.TypeAnalysis`):
    module-wide facts, the propagation rules, and calls to defined functions."""

    seeds: TypeSeeds
    tbaa: TBAAReader

    def provenance(self, fn: Function, memo: dict) -> dict: ...

    def string_objects(self, fn: Function) -> StringObjects:
        """The `std::string` objects of `fn` (`strings`)."""

    def global_memory(self, gv: GlobalVariable) -> TypeTree: ...

    def copy_bound(self, call: CallBase) -> int | None:
        """At most how many bytes a memcpy/memmove of a run-time length moves."""

    def constant_expr_tree(self, state: FunctionState, ce: ConstantExpr) -> TypeTree: ...

    def constant_expr_backward(self, state: FunctionState, ce: ConstantExpr, tree: TypeTree) -> None: ...

    def apply_rule(self, state: FunctionState, inst: Instruction) -> None:
        """Run the propagation rule of `inst` (`instruction_rules`)."""

    def run_call(self, state: FunctionState, call: CallBase) -> None:
        """Analyse the defined callee of `call` in `state`'s context and join back."""


class FunctionState:
    """Type trees of one function in one calling context, while being computed."""

    def __init__(self, analysis: Driver, fn: Function, arg_trees: list[TypeTree], ret_tree: TypeTree,
                 warm: dict[Value, TypeTree] | None = None,
                 origins: dict[int, tuple[FunctionState, int, int]] | None = None) -> None:
        self.analysis = analysis
        self.origins = origins or {}
        """Argument index → (caller frame, caller argument index, c): this argument is
        the caller's argument moved by `c` bytes (to recognise recursive pointer walks)."""
        self.fn = fn
        self.seeds = analysis.seeds
        self.strings = analysis.string_objects(fn)
        self.trees: dict[Value, TypeTree] = dict(warm) if warm else {}
        self.context = {arg: self._seed(arg).join(tree) for arg, tree in zip(fn.args, arg_trees)}
        """What the callers say about each argument (before this function's own facts)."""
        for arg, tree in zip(fn.args, arg_trees):
            self.trees[arg] = self.context[arg].join(self.trees.get(arg, TypeTree()))
        self.ret_tree = ret_tree
        self.version = 0
        """Bumped whenever an argument's or the return tree grows (the summary callers see)."""
        self.worklist: deque[Instruction] = deque()
        self.queued: set[Instruction] = set()
        self.call_worklist: deque[Instruction] = deque()
        self.call_queued: set[Instruction] = set()
        self.deps: set[FunctionState] = set()
        """Frames lower on the stack whose in-progress summary this result read."""
        self.provisional_calls: dict[Instruction, None] = {}
        """Call sites whose callee result read this frame's summary (recursion)."""
        self.min_read_version: int | None = None
        self.call_results: dict[Instruction, object] = {}
        """Call site → TypeResults of the callee in its context (for the AD engine)."""
        self.memo: dict[Value, int] = {}
        """`multiple_of` memo for GEP periods."""
        self.rule_seeds: dict[Instruction, TypeTree] = {}
        """Constant facts of an instruction (TBAA), computed on first visit."""
        self.array_extents: dict[tuple[Instruction, Value], int | tuple[int, int] | None] = {}
        """Per GEP and base, what `array_regions` says of the indexed array (fixed by
        the IR, so computed once): `elements_reached` for a variable index,
        `field_array` for a constant offset."""
        self._ce_users: dict[Value, set[Instruction]] = {}
        self._ret_insts = [i for b in fn.blocks for i in b.instructions if isinstance(i, Ret)]
        self.budget = _BUDGET_PER_INSTRUCTION * sum(len(b.instructions) for b in fn.blocks) + _BUDGET_BASE
        """Rule applications before trees stop taking new paths (see `frozen`)."""
        self.growth: dict[object, int] = {}
        """How often each value's tree gained new paths."""
        self.saturated: set[object] = set()
        """Values that gained new paths `_GROWTH_LIMIT` times: from then on only their
        existing paths may change. Stops growth no rule anticipated (a pointer walk
        through memory shifting a pointee again and again) at the price of facts."""
        self.frozen = False
        """Set when the budget ran out: only existing paths may still change. A
        safety valve against growth no rule anticipated; it loses facts (queries
        then report unknown types) but never invents them."""

    def provenance(self) -> dict[Value, tuple[Value, int, int]]:
        """`pointer_provenance` of this function (context independent, so shared)."""
        return self.analysis.provenance(self.fn, self.memo)

    # -- values -----------------------------------------------------------------------
    def size(self, v: Value) -> int | None:
        return self.seeds.size(v.type)

    def get(self, v: Value) -> TypeTree:
        """The current tree of `v` (seeded from its IR type and constant value)."""
        tree = self.trees.get(v)
        if tree is None:
            tree = self.trees[v] = self._seed(v)
        if isinstance(v, ConstantExpr):
            tree = tree.join(self.analysis.constant_expr_tree(self, v))
        return tree

    def get_from(self, v: Value, user: Instruction) -> TypeTree:
        """`get`, remembering that `user` reads `v` through a constant expression
        (so it is re-run when the underlying global's tree grows)."""
        if isinstance(v, ConstantExpr):
            for op in v.operands:
                if isinstance(op, GlobalValue):
                    self._ce_users.setdefault(op, set()).add(user)
        return self.get(v)

    def _seed(self, v: Value) -> TypeTree:
        match v:
            case GlobalVariable():
                return TypeTree.pointer_to(self.analysis.global_memory(v))
            case Function():
                return TypeTree.scalar(POINTER)
        return value_seed(v, self.seeds)

    def update(self, v: Value, tree: TypeTree) -> None:
        """Join `tree` into `v`'s tree, queueing what depends on it if it grew."""
        if not tree:
            return
        if isinstance(v, Constant) and not isinstance(v, (GlobalVariable, ConstantExpr)):
            return  # a constant is what it is; facts about one use do not transfer
        if isinstance(v.type, PointerType) and self.strings.buffer_extent(v) is not None:
            tree = untyped_pointee(tree)  # a string's own buffer: characters or capacity (a union)
        old = self.trees.get(v)
        if old is None:
            old = self._seed(v)
        new = self._grow(v, old, tree, self.size(v))
        if new is old:
            return
        self.trees[v] = new
        if isinstance(v, ConstantExpr):
            self.analysis.constant_expr_backward(self, v, new)
        elif isinstance(v, Instruction) and v.function is self.fn:
            self.push(v)
        self.push_users(v)
        if isinstance(v, Argument):
            self.version += 1
        for user in self._ce_users.get(v, ()):
            self.push(user)

    def _grow(self, key: object, old: TypeTree, tree: TypeTree, size: int | None) -> TypeTree:
        """`old` joined with `tree` (canonical for `size` bytes), or `old` itself if
        nothing changed. Trees only ever grow: a join whose result had to shed
        entries (`MAX_ENTRIES`) would lose facts, so the value is saturated instead
        and keeps its paths, as after `_GROWTH_LIMIT` growths or the budget."""
        for attempt in range(2):
            if self.frozen or key in self.saturated:
                tree = TypeTree({p: t for p, t in tree.items() if p in old})
            new = old.join(tree)
            if size:
                new = new.canonicalize(size)
            if new == old:
                return old
            if new.includes(old):
                break
            self.saturated.add(key)
        else:
            return old
        if any(p not in old for p in new):
            grown = self.growth.get(key, 0) + 1
            self.growth[key] = grown
            if grown >= _GROWTH_LIMIT:
                self.saturated.add(key)
        return new

    def update_memory(self, ptr: Value, memory: TypeTree) -> None:
        """Join facts about the memory `ptr` points to."""
        if memory:
            self.update(ptr, TypeTree.pointer_to(memory))

    def memory(self, ptr: Value, user: Instruction | None = None) -> TypeTree:
        """The tree of the memory `ptr` points to."""
        tree = self.get_from(ptr, user) if user is not None else self.get(ptr)
        return tree.data0()

    def update_ret(self, tree: TypeTree) -> None:
        new = self._grow("ret", self.ret_tree, tree, self.seeds.size(self.fn.return_type))
        if new is not self.ret_tree:
            self.ret_tree = new
            self.version += 1
            for r in self._ret_insts:
                self.push(r)

    # -- worklist ---------------------------------------------------------------------
    def push(self, inst: Instruction) -> None:
        if inst not in self.queued:
            self.queued.add(inst)
            self.worklist.append(inst)

    def push_users(self, v: Value) -> None:
        for use in v.uses:
            user = use.user
            if isinstance(user, Instruction) and user.parent is not None and user.parent.parent is self.fn:
                self.push(user)

    def context_of(self, arg: Value) -> TypeTree:
        """The callers' tree of this function's argument `arg` (what its IR type says
        when the context said nothing)."""
        return self.context.get(arg) or self._seed(arg)  # type: ignore[arg-type]

    def push_call(self, inst: Instruction) -> None:
        if inst not in self.call_queued:
            self.call_queued.add(inst)
            self.call_worklist.append(inst)

    def note_read(self, version: int) -> None:
        """A recursive call read this frame's summary at `version`."""
        if self.min_read_version is None or version < self.min_read_version:
            self.min_read_version = version

    def run(self, instructions: Iterable[Instruction]) -> None:
        """Iterate the rules to a fixed point (interprocedural calls last)."""
        for inst in instructions:
            self.push(inst)
        while True:
            while self.worklist:
                inst = self.worklist.popleft()
                self.queued.discard(inst)
                self.analysis.apply_rule(self, inst)
                self.budget -= 1
                if self.budget == 0:
                    self.frozen = True
            if self.call_worklist:
                call = self.call_worklist.popleft()
                self.call_queued.discard(call)
                self.analysis.run_call(self, call)  # type: ignore[arg-type]
                continue
            if self.min_read_version is not None and self.min_read_version < self.version:
                # A recursive call saw an older summary of this frame: redo those calls.
                self.min_read_version = None
                for call in self.provisional_calls:
                    self.push_call(call)
                continue
            break


def lanes(tree: TypeTree) -> TypeTree:
    """The part of a value tree that holds for every byte/lane (its `-1` entries)."""
    return TypeTree({p: t for p, t in tree.items() if p[0] == -1})


def to_memory(tree: TypeTree, size: int) -> TypeTree:
    """A value tree laid down as memory: one entry per element (big values keep `-1`)."""
    return tree.expand(size) if size <= 256 else tree.window(0, size)


def value_seed(v: Value, seeds: TypeSeeds) -> TypeTree:
    """What a value's IR type and (for constants) its value say about it."""
    tree = seeds.of_type(v.type)
    match v:
        case ConstantInt():
            if v.value == 0:
                tree = tree.join(TypeTree.scalar(ANYTHING))
            elif abs(v.value) <= _SMALL_INT:
                tree = tree.join(TypeTree.scalar(INTEGER))
        case ConstantFP():
            tree = tree.join(TypeTree.scalar(float_type(v.type.kind)))  # type: ignore[attr-defined]
        case ConstantString():
            tree = tree.join(TypeTree.scalar(INTEGER))
        case ConstantSplat():
            inner = value_seed(v.element, seeds)
            tree = tree.join(TypeTree({p: t for p, t in inner.items() if p[0] == -1}))
        case ConstantAggregate():
            tree = tree.join(_aggregate_seed(v, seeds))
    return tree


def _aggregate_seed(v: ConstantAggregate, seeds: TypeSeeds) -> TypeTree:
    t = v.type
    try:
        if isinstance(t, (StructType, NamedStructType)):
            offsets = list(seeds.layout.struct_layout(t).offsets)
        elif isinstance(t, (ArrayType, VectorType)):
            stride = seeds.alloc_size(t.element) or 0
            offsets = [i * stride for i in range(len(v.elements))]
        else:
            return TypeTree()
    except DataLayoutError:
        return TypeTree()
    entries: dict[Path, BaseType] = {}
    for off, e in zip(offsets, v.elements):
        size = seeds.size(e.type) or 0
        for p, bt in value_seed(e, seeds).expand(size).items():
            key = (p[0] + off, *p[1:])
            entries[key] = entries[key].join(bt) if key in entries else bt
    size = seeds.size(t) or 0
    tree = TypeTree(entries)
    return tree.canonicalize(size) if size else tree
