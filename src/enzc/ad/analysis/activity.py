"""Activity analysis: which values and instructions can carry a derivative.

A floating value is *active* iff it is both *varied* (depends on an active input:
an `out` argument or memory reachable from a `dup` argument) and *useful* (can
influence an active output: the returned value of an active return, or memory
with a shadow). A pointer is active iff it points into memory with a shadow
(derived from a `dup` argument, or an alloca that holds active data); active
pointers get shadow pointers. Integers, comparisons and address arithmetic are
never active. An instruction is active iff the reverse pass has work for it: it
defines an active value, or writes memory that has a shadow.

Text form (one line per argument and instruction, in program order):

    active %x
    inactive %i
    active store double %v, ptr %p
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

from enzc.ir.instructions import AtomicRMW, CmpXchg, BinaryOp, CallBase, Cast, ExtractElement, ExtractValue, Freeze
from enzc.ir.instructions import GetElementPtr, InsertElement, InsertValue, Instruction, Load, Phi, Ret, Select
from enzc.ir.instructions import ShuffleVector, Store, UnaryOp
from enzc.ir.module import Function, GlobalVariable, Module
from enzc.ir.types import ArrayType, FloatType, NamedStructType, PointerType, StructType, Type, VectorType
from enzc.ir.values import Value

from enzc.ad.analysis.allocations import allocator_of, allocator_of_function, local_roots, pointer_sources
from enzc.ad.analysis.calls import CallKind, RuleLookup, classify, writes_memory
from enzc.ad.analysis.inactive_memory import InactiveMemory
from enzc.ad.analysis.indirect_targets import candidates
from enzc.ad.analysis.integer_addresses import integer_address
from enzc.ad.analysis.globals_shadow import shadow_of_global, shadowed_constants
from enzc.ad.analysis.memory_facts import is_threadlocal_address, underlying_objects
from enzc.ad.analysis.mpi import buffers, float_transfer
from enzc.ad.typeanalysis.blas_abi import blas_callee


class ArgActivity(Enum):
    """Activity of one argument of the differentiated function (the markers)."""

    CONST = "const"
    DUP = "dup"
    DUPNONEED = "dupnoneed"
    OUT = "out"

    @property
    def has_shadow(self) -> bool:
        return self in (ArgActivity.DUP, ArgActivity.DUPNONEED)


def carries_float(t: Type) -> bool:
    """Whether values of type `t` contain floating data (scalars, vectors, aggregates)."""
    match t:
        case FloatType():
            return True
        case VectorType(element=e) | ArrayType(element=e):
            return carries_float(e)
        case StructType(elements=els):
            return any(carries_float(e) for e in els)
        case NamedStructType():
            return t.elements is not None and any(carries_float(e) for e in t.elements)
    return False


def carries_pointer(t: Type) -> bool:
    """Whether values of type `t` hold pointers (a pointer, or an aggregate with some:
    C++ returns iterator pairs as `{ptr, ptr}`) and no floats."""
    if carries_float(t):
        return False
    match t:
        case PointerType():
            return True
        case StructType(elements=els):
            return any(carries_pointer(e) for e in els)
        case ArrayType(element=e):
            return carries_pointer(e)
        case NamedStructType():
            return t.elements is not None and any(carries_pointer(e) for e in t.elements)
    return False


def float_leaves(ty: Type, prefix: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], Type]]:
    """Index paths to the floating (scalar or vector) leaves of an aggregate type."""
    match ty:
        case StructType(elements=els) | NamedStructType(elements=els) if els is not None:
            out = []
            for i, e in enumerate(els):
                out += float_leaves(e, prefix + (i,))
            return out
        case ArrayType(count=n, element=e):
            out = []
            for i in range(n):
                out += float_leaves(e, prefix + (i,))
            return out
    if isinstance(ty.scalar, FloatType):
        return [(prefix, ty)]
    return []


_FLOAT_FLOW = (BinaryOp, UnaryOp, Select, Phi, ExtractValue, InsertValue, ExtractElement, InsertElement,
               ShuffleVector, Freeze)
"""Instructions whose floating result depends on their floating operands."""

_POINTER_FLOW = (GetElementPtr, Cast, Phi, Select, Freeze)
"""Instructions whose pointer result points where their pointer operand points."""


@dataclass
class Activity:
    """The result: active values and instructions of one function and signature."""

    function: Function
    args: tuple[ArgActivity, ...]
    active_return: bool
    module: Module | None = None
    shadowed: set[Value] = field(default_factory=set)
    """Pointers into memory with a shadow."""
    varied: set[Value] = field(default_factory=set)
    useful: set[Value] = field(default_factory=set)
    has_rule: RuleLookup = field(kw_only=True)
    """Which callees the derivative rule table covers (pure math: `CallKind.RULE`)."""
    inactive_memory: InactiveMemory | None = None
    """Local memory that provably holds no derivative (`analysis.inactive_memory`)."""

    def is_active_value(self, v: Value) -> bool:
        """Carries a derivative: an active float value or a pointer with a shadow."""
        if v in self.shadowed:
            return True
        return v in self.varied and v in self.useful

    def has_shadow(self, v: Value) -> bool:
        return v in self.shadowed

    def is_active_instruction(self, inst: Instruction) -> bool:
        if self.is_active_value(inst):
            return True
        match inst:
            case Store():
                return inst.ptr in self.shadowed and carries_float(inst.value.type)
            case CallBase():
                return self._call_is_active(inst)
            case Ret():
                return self.active_return and inst.value is not None and self.is_active_value(inst.value)
            case AtomicRMW() | CmpXchg():
                return inst.operand(0) in self.shadowed
        return False

    def _call_is_active(self, call: CallBase) -> bool:
        """Calls without an active result matter only if they may move derivatives
        through shadowed memory (read-only calls returning non-floats never do)."""
        kind = classify(call, self.has_rule)
        shadow_args = [a for a in call.args if a in self.shadowed]
        match kind:
            case CallKind.INACTIVE | CallKind.RULE | CallKind.MIRRORED:
                return False
            case CallKind.MEMSET | CallKind.MEMCPY:
                return bool(shadow_args)
            case CallKind.ALLOC:
                return False  # active through its shadowed result
            case CallKind.CUSTOM:
                return bool(shadow_args)
            case CallKind.BLAS:
                return any(call.args[i] in self.shadowed for i in _blas_outputs(call))
        return (bool(shadow_args) or self.passes_varied(call)) and writes_memory(call, self.module)

    def passes_varied(self, call: CallBase) -> bool:
        """An unknown or defined callee that may write memory and gets varied data:
        it may store derivatives anywhere it can reach (globals included), so it must
        be differentiated or rejected, never skipped."""
        return (classify(call, self.has_rule) is CallKind.UNKNOWN
                and any(a in self.varied for a in call.args) and writes_memory(call, self.module))

    def text(self) -> str:
        """The text form described in the module docstring."""
        slots = slot_numbers(self.function)
        lines = []
        for a in self.function.args:
            lines.append(f"{_word(self.is_active_value(a))} {_label(a, slots)}")
        for inst in self.function.instructions():
            lines.append(f"{_word(self.is_active_instruction(inst))} {_label(inst, slots)}")
        return "\n".join(lines) + "\n"


def _word(active: bool) -> str:
    return "active" if active else "inactive"


def slot_numbers(fn: Function) -> dict[Value, int]:
    """LLVM's numbering of unnamed values: arguments, then each block and its values."""
    slots: dict[Value, int] = {}
    for a in fn.args:
        if a.name is None:
            slots[a] = len(slots)
    for b in fn.blocks:
        if b.name is None:
            slots[b] = len(slots)
        for inst in b.instructions:
            if inst.name is None and inst.type.is_first_class:
                slots[inst] = len(slots)
    return slots


def _label(v: Value, slots: dict[Value, int]) -> str:
    if v.name is not None:
        return v.ref()
    if v in slots:
        return f"%{slots[v]}"
    return str(v).strip().splitlines()[-1]


def parse_activity_text(text: str) -> dict[str, bool]:
    """`{"%x": True, "store double %v, ptr %p": True, ...}` from the text form."""
    out: dict[str, bool] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        word, _, rest = line.partition(" ")
        if word not in ("active", "inactive"):
            raise ValueError(f"not an activity line: {line!r}")
        out[rest.strip()] = word == "active"
    return out


def analyze(fn: Function, args: tuple[ArgActivity, ...], active_return: bool, module: Module | None = None, *,
            has_rule: RuleLookup) -> Activity:
    """Compute activity of every value of `fn` for the given argument classes; `has_rule`
    tells the calls the derivative rule table covers (`rules.table.has_rule`)."""
    act = Activity(fn, args, active_return, module, has_rule=has_rule)
    act.inactive_memory = InactiveMemory(fn, [cls is not ArgActivity.CONST for cls in args], module)
    insts = list(fn.instructions())
    for a, cls in zip(fn.args, args):
        if cls.has_shadow:
            act.shadowed.add(a)
        elif cls is ArgActivity.OUT:
            act.varied.add(a)
    if module is not None:
        act.shadowed.update(shadowed_constants(module, fn))  # globals with !enzyme_shadow
        act.shadowed.update(c for c in insts if isinstance(c, CallBase) and carries_pointer(c.type)
                            and classify(c, has_rule) is CallKind.UNKNOWN
                            and may_return_shadowed_global(module, c.called_function))
    _forward(act, insts)
    _backward(act, insts)
    return act


def may_return_shadowed_global(module: Module, fn: Function | None, depth: int = 3) -> bool:
    """Whether defined `fn` may return a pointer into a global with a shadow (a getter,
    `return &table[i]`): its result needs a shadow although no argument has one, or
    what the caller reads through it would carry no derivative."""
    if fn is None or fn.is_declaration or depth == 0:
        return False
    for obj in _returned_objects(fn):
        if isinstance(obj, GlobalVariable) and shadow_of_global(module, obj) is not None:
            return True
        if isinstance(obj, CallBase) and may_return_shadowed_global(module, obj.called_function, depth - 1):
            return True
    return False


def _returned_objects(fn: Function) -> Iterator[Value]:
    """The objects the pointers `fn` returns may point into."""
    for inst in fn.instructions():
        if isinstance(inst, Ret) and inst.value is not None and carries_pointer(inst.value.type):
            yield from underlying_objects(inst.value)


def _forward(act: Activity, insts: list[Instruction]) -> None:
    """Shadowed pointers and varied values, to a joint fixed point."""
    shadowed, varied = act.shadowed, act.varied
    changed = True
    while changed:
        changed = False
        for inst in insts:
            if inst in shadowed and inst in varied:
                continue
            ops = inst.operands
            new_shadow = False
            new_varied = False
            match inst:
                case Load():
                    if inst.ptr in shadowed:
                        if carries_pointer(inst.type):
                            new_shadow = True
                        elif carries_float(inst.type):
                            new_varied = True
                case Ret() if act.active_return and inst.value is not None \
                        and carries_pointer(inst.value.type):
                    changed |= _shadow_roots(act, inst.value)  # a returned shadow (split mode)
                case AtomicRMW():  # `old = *p; *p = old op v`: a load and a store in one
                    if inst.value in varied:
                        changed |= _shadow_roots(act, inst.ptr)
                    new_varied = inst.ptr in shadowed and carries_float(inst.type)
                case Store():
                    if inst.value in varied or inst.value in shadowed:
                        changed |= _shadow_roots(act, inst.ptr)
                    if inst.ptr in shadowed and carries_pointer(inst.value.type):
                        changed |= _shadow_roots(act, inst.value)  # its shadow goes into shadow memory
                case CallBase() if is_threadlocal_address(inst):
                    new_shadow = inst.args[0] in shadowed  # this thread's copy of a shadowed global
                case CallBase():
                    kind = classify(inst, act.has_rule)
                    if kind is CallKind.MEMCPY and len(inst.args) >= 2 and inst.args[1] in shadowed:
                        changed |= _shadow_roots(act, inst.args[0])
                    if kind is CallKind.CUSTOM and any(a in varied or a in shadowed for a in inst.args):
                        for a in inst.args:  # the custom derivative takes a shadow for every pointer
                            if isinstance(a.type, PointerType):
                                changed |= _shadow_roots(act, a)
                    if kind is CallKind.BLAS and any(a in varied or a in shadowed for a in inst.args):
                        for i in _blas_outputs(inst):  # the array it writes receives derivatives
                            changed |= _shadow_roots(act, inst.args[i])
                    if kind is CallKind.MIRRORED and any(a in shadowed for a in inst.args):
                        for a in inst.args:  # repeated on the shadows: every pointer needs one
                            if isinstance(a.type, PointerType):
                                changed |= _shadow_roots(act, a)
                        new_shadow = carries_pointer(inst.type)
                    if kind is CallKind.ALLOC:
                        moves = allocator_of(inst).moves_from  # type: ignore[union-attr]
                        new_shadow = moves is not None and inst.args[moves] in shadowed
                    if carries_float(inst.type) and kind is not CallKind.INACTIVE:
                        new_varied = any(a in varied or a in shadowed for a in inst.args)
                    if float_transfer(inst) is not None:  # MPI floats: in every derivative (`analysis.mpi`)
                        for buf in buffers(inst):
                            changed |= _shadow_roots(act, buf)
                    if kind is CallKind.UNKNOWN and any(a in varied or a in shadowed for a in inst.args):
                        changed |= _call_outputs(act, inst)
                        new_shadow = carries_pointer(inst.type)  # fresh or shadowed memory it may return
                case ExtractValue() | InsertValue() if carries_pointer(inst.type):
                    new_shadow = any(o in shadowed for o in ops[:2])
                case _ if isinstance(inst, _POINTER_FLOW) and (isinstance(inst.type.scalar, PointerType)
                                                               or carries_pointer(inst.type)):
                    if isinstance(inst, Select):
                        new_shadow = inst.true_value in shadowed or inst.false_value in shadowed
                    elif isinstance(inst, Phi):
                        new_shadow = any(v in shadowed for v, _ in inst.incoming)
                    elif (address := integer_address(inst)) is not None:
                        new_shadow = address.shadowed in shadowed
                    else:
                        new_shadow = ops[0] in shadowed
                    if new_shadow and isinstance(inst, (Phi, Select)):
                        changed |= _shadow_roots(act, inst)  # every incoming pointer needs a shadow
                case Cast() if inst.opcode in ("fpext", "fptrunc"):
                    new_varied = ops[0] in varied
                case _ if isinstance(inst, _FLOAT_FLOW) and carries_float(inst.type):
                    new_varied = any(o in varied for o in ops)
            if new_shadow and inst not in shadowed:
                shadowed.add(inst)
                changed = True
            if new_varied and inst not in varied:
                varied.add(inst)
                changed = True


def _blas_outputs(call: CallBase) -> tuple[int, ...]:
    """Argument positions of the arrays a BLAS call overwrites."""
    blas = blas_callee(call.called_function)
    assert blas is not None
    return blas.written_indices()


def _call_outputs(act: Activity, call: CallBase) -> bool:
    """A call that may write memory and receives varied or shadowed data may store
    it through any pointer argument: all of them get shadows (conservative; the
    callee's own derivative decides what really moves). Not local memory that
    provably holds no derivative, the callee's writes there included (a
    `std::string` key copied from an `enzyme_const` one): the callee receives it
    without a shadow."""
    if not writes_memory(call, act.module):
        return False
    changed = False
    quiet = act.inactive_memory
    for a in call.args:
        if isinstance(a.type, PointerType) and not (quiet is not None and quiet.no_derivative_behind(a)):
            changed |= _shadow_roots(act, a)
    return changed


def _shadow_roots(act: Activity, ptr: Value) -> bool:
    """Give shadows to the allocas and heap blocks `ptr` may point into (and to
    memory holding pointers it was loaded from), and to the calls of allocation
    wrappers it comes from; True if any was new."""
    shadowed, quiet = act.shadowed, act.inactive_memory
    fresh = [r for r in local_roots(ptr) if r not in shadowed]
    for c in pointer_sources(ptr):
        if not isinstance(c, CallBase) or c in shadowed or allocator_of(c) is not None \
                or classify(c, lambda _: False) is not CallKind.UNKNOWN:
            continue
        if c not in fresh and (may_return_fresh_memory(act.module, c.called_function)
                               or _may_reach_allocator(act.module, c)):
            fresh.append(c)
        # what it returns may point into what its arguments reach (a container's
        # element, `map[key]` of a local map): their shadows hold the result's (not
        # local memory that provably holds no derivative: the key string)
        fresh += [r for a in c.args if isinstance(a.type, PointerType)
                  and not (quiet is not None and quiet.no_derivative_behind(a))
                  for r in local_roots(a) if r not in shadowed and r not in fresh]
    shadowed.update(fresh)
    return bool(fresh)


def may_return_fresh_memory(module: Module | None, fn: Function | None, depth: int = 3) -> bool:
    """Whether defined `fn` may return a heap block it (or a callee) allocates: an
    allocation wrapper (`xmalloc`, a pool's `get`, an allocator hook called through
    a pointer). A caller writing active data there needs the block's shadow, which
    only `fn`'s derivative can return."""
    if fn is None or fn.is_declaration or depth == 0:
        return False
    return any(isinstance(obj, CallBase) and (allocator_of(obj) is not None
                                              or may_return_fresh_memory(module, obj.called_function, depth - 1)
                                              or _may_reach_allocator(module, obj))
               for obj in _returned_objects(fn))


def _may_reach_allocator(module: Module | None, call: CallBase) -> bool:
    """An indirect call that may reach a heap allocator (an allocator hook:
    `void *(*alloc)(size_t) = malloc`)."""
    if call.called_function is not None or module is None:
        return False
    return any(allocator_of_function(fn) is not None for fn in candidates(module, call)[1])


def _backward(act: Activity, insts: list[Instruction]) -> None:
    """Useful values: those that can reach the active return or shadowed memory."""
    useful = act.useful
    work: list[Value] = []

    def mark(v: Value) -> None:
        if v not in useful:
            useful.add(v)
            work.append(v)

    for inst in insts:
        match inst:
            case Ret() if act.active_return and inst.value is not None:
                mark(inst.value)
            case Store() | AtomicRMW() if inst.ptr in act.shadowed:
                mark(inst.value)
            case CallBase() if any(a in act.shadowed for a in inst.args) or act.passes_varied(inst):
                for a in inst.args:
                    mark(a)
    while work:
        v = work.pop()
        if not isinstance(v, Instruction):
            continue
        match v:
            case Load():
                pass  # memory: loads from shadowed memory are seeded by their uses
            case CallBase():
                for a in v.args:
                    mark(a)
            case Select():
                mark(v.true_value)
                mark(v.false_value)
            case Phi():
                for val, _ in v.incoming:
                    mark(val)
            case InsertElement() | ExtractElement():
                mark(v.operand(0))
                if isinstance(v, InsertElement):
                    mark(v.operand(1))
            case _:
                for o in v.operands:
                    mark(o)

