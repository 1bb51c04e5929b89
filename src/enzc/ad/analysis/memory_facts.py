"""Memory facts: may memory that a load reads change before the reverse pass reads it again?

The reverse pass needs the forward values of loads inside loops. It reloads them
(no cache) when no instruction of the original may write the memory they read
(`MemoryFacts.load_unchanged`). That needs alias facts that are sound for the IR
enzc receives (clang's, at any optimisation level):

- Objects: a pointer is traced to its underlying objects (`underlying_objects`:
  through GEPs, pointer casts, constant GEP expressions, phis and selects). Two
  distinct *identified* objects never overlap: allocas, global variables and
  fresh heap blocks (malloc/calloc/new, `allocations.allocator_of`; not realloc, whose
  block may be the old one). An argument cannot point into an alloca or a heap
  block of this call (they did not exist when it was passed); a `noalias`
  argument does not alias other arguments, globals or identified objects.
  Anything else (pointers loaded from memory, integer-to-pointer casts, aliases
  of globals) may alias everything.
- Types (`TBAAOrder`): clang's `!tbaa` tags say which C type an access uses;
  under strict aliasing two accesses whose scalar types are unrelated in the TBAA
  type tree (`int` and `double`, both children of `omnipotent char`) do not
  overlap. An access without a tag, or through `char`, may alias everything.

Writes are stores, atomics, memset/memcpy destinations, frees, lifetime ends, the
old block of realloc, and any call that may write memory (an unknown write).

Once-executed stores (`MemoryFacts.undone`): in combined mode a simple store
outside every loop, into argument or global memory, that is the only kind of
write to the memory some loop load reads, does not count as a write if the
derivative undoes it: `undo_stores` saves the old value before it in the
forward pass, writes it back at the store's reverse, and replays the stores in
forward order when the reverse ends. Memory those stores touch then holds, at
every point of the reverse pass, what it held at the matching point of the
forward pass, so loads inside loops (whose reverse lies wholly between the
reverses of the stores before and after the loop) reload the right values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from enzc.ir.instructions import Alloca, CallBase, Cast, GetElementPtr, Instruction, Load, Phi, Select, Store
from enzc.ir.loops import Loop, LoopInfo
from enzc.ir.metadata import Metadata
from enzc.ir.module import Function, GlobalVariable, Module
from enzc.ir.types import FloatType, IntType, PointerType, Type, VectorType
from enzc.ir.values import Argument, Constant, ConstantExpr, Value

from enzc.ad.analysis.allocations import DEALLOCATORS, allocator_of
from enzc.ad.analysis.calls import CallKind, RuleLookup, call_attributes, callee_name, classify
from enzc.ad.analysis.globals_shadow import base_global, has_zero_shadow
from enzc.ad.analysis.mpi import INACTIVE_CALLS as MPI_INACTIVE_CALLS
from enzc.ad.analysis.openmp import RUNTIME_WRITES
from enzc.ad.typeanalysis.blas_abi import blas_callee
from enzc.ad.typeanalysis.tbaa import TBAAReader

RELEASES = DEALLOCATORS | {"llvm.lifetime.end.p0"}
"""Calls after which memory may not be read again: a clobber for recomputation."""

_MAX_OBJECTS = 16
"""Pointers that may come from more objects than this are treated as unknown."""


class _Unknown(Value):
    """Stands for memory a call may write anywhere."""

    def __init__(self) -> None:
        from enzc.ir.types import I64
        super().__init__(I64)


UNKNOWN: Value = _Unknown()


# -- objects ------------------------------------------------------------------------------------


def underlying_object(ptr: Value) -> Value:
    """Strip GEPs and pointer casts to the allocation a pointer is derived from (a
    thread-local global for `llvm.threadlocal.address` of it: this thread's copy)."""
    for _ in range(64):
        match ptr:
            case GetElementPtr():
                ptr = ptr.ptr
            case CallBase() if is_threadlocal_address(ptr):
                ptr = ptr.args[0]
            case Cast() if ptr.opcode in ("bitcast", "addrspacecast"):
                ptr = ptr.operand(0)
            case ConstantExpr() if ptr.opcode in ("getelementptr", "bitcast", "addrspacecast"):
                bases = [o for o in ptr.operands if isinstance(o.type, PointerType)]
                if len(bases) != 1:
                    return ptr
                ptr = bases[0]
            case _:
                return ptr
    return ptr


def is_threadlocal_address(v: Value) -> bool:
    """`llvm.threadlocal.address(@g)`: the address of this thread's `@g`."""
    fn = v.called_function if isinstance(v, CallBase) else None
    return fn is not None and (fn.name or "").startswith("llvm.threadlocal.address") and len(v.args) == 1


def underlying_objects(ptr: Value) -> list[Value]:
    """Every object `ptr` may point into, looking through phis and selects
    (`[UNKNOWN]` when there are too many)."""
    out: list[Value] = []
    seen: set[int] = set()
    work = [ptr]
    while work:
        v = underlying_object(work.pop())
        if id(v) in seen:
            continue
        seen.add(id(v))
        match v:
            case Phi():
                work.extend(val for val, _ in v.incoming)
            case Select():
                work.extend((v.operand(1), v.operand(2)))
            case _:
                out.append(v)
        if len(seen) > 4 * _MAX_OBJECTS or len(out) > _MAX_OBJECTS:
            return [UNKNOWN]
    return out


def into_zero_globals(ptr: Value) -> bool:
    """Whether `ptr` is an address computed only from globals with a zero shadow
    (`globals_shadow.has_zero_shadow`: `getelementptr double, ptr @table, i64 %i`
    on one side of a select)."""
    objects = underlying_objects(ptr)
    return bool(objects) and all(isinstance(o, Constant) and has_zero_shadow(base_global(o)) for o in objects)


def is_fresh_allocation(v: Value) -> bool:
    """A heap block this call allocated (realloc excluded: it may return its old block)."""
    alloc = allocator_of(v) if isinstance(v, CallBase) else None
    return alloc is not None and alloc.moves_from is None


def _identified(v: Value) -> bool:
    """An object that no pointer to a different identified object can reach."""
    return isinstance(v, (Alloca, GlobalVariable)) or is_fresh_allocation(v)


def may_alias(a: Value, b: Value) -> bool:
    """Whether underlying objects `a` and `b` may overlap (conservative)."""
    if a is b or isinstance(a, _Unknown) or isinstance(b, _Unknown):
        return True
    if _identified(a) and _identified(b):
        return False
    for x, y in ((a, b), (b, a)):
        if isinstance(x, Argument):
            if isinstance(y, Alloca) or is_fresh_allocation(y):
                return False  # created after the argument was passed
            if "noalias" in x.attrs and (isinstance(y, Argument) or _identified(y)):
                return False
    return True


def objects_may_alias(xs: list[Value], ys: list[Value]) -> bool:
    return any(may_alias(x, y) for x in xs for y in ys)


DistinctArgs = frozenset[tuple[int, int]]
"""Pairs `(i, j)`, `i < j`, of pointer arguments that the caller passed into distinct
objects (a fact of a call site, carried by the callee's derivative signature)."""


def distinct_pairs(args: list[Value], alias: Callable[[list[Value], list[Value]], bool]) -> DistinctArgs:
    """The pairs of pointer arguments of a call whose underlying objects cannot overlap,
    by the caller's alias facts `alias` (`objects_may_alias`, or a derivative's own)."""
    objects = {k: underlying_objects(a) for k, a in enumerate(args) if isinstance(a.type, PointerType)}
    known = {k: objs for k, objs in objects.items() if not any(isinstance(o, _Unknown) for o in objs)}
    return frozenset((i, j) for i in known for j in known if i < j and not alias(known[i], known[j]))


# -- types (TBAA) -------------------------------------------------------------------------------


class TBAAOrder:
    """Whether two `!tbaa` access tags may name overlapping memory.

    A tag is `!{base, access, offset}`; type nodes are `!{name, parent, 0}` for
    scalars and `!{name, member, offset, ...}` for structs, rooted in a node with
    a name only. Two accesses may alias when either has no tag, when one access
    type is an ancestor of (or equal to) the other, when their roots differ, or
    when one tag's base type lies on the other's path from its base to its
    access type and on up to the root (one access may be to a sub-object of the
    other). Anything not understood may alias."""

    def __init__(self, module: Module | None) -> None:
        self.reader = TBAAReader(module)

    def may_alias(self, a: Metadata | None, b: Metadata | None) -> bool:
        if a is None or b is None:
            return True
        ta, tb = self._tag(a), self._tag(b)
        if ta is None or tb is None:
            return True
        (base_a, acc_a, off_a), (base_b, acc_b, off_b) = ta, tb
        up_a, up_b = self._ancestors(acc_a), self._ancestors(acc_b)
        if up_a is None or up_b is None or up_a[-1] is not up_b[-1]:
            return True
        if any(n is acc_b for n in up_a) or any(n is acc_a for n in up_b):
            return True
        path_a, path_b = self._path(base_a, off_a, acc_a), self._path(base_b, off_b, acc_b)
        if path_a is None or path_b is None:
            return True
        return any(n is base_b for n in path_a) or any(n is base_a for n in path_b)

    def _tag(self, md: Metadata) -> tuple[Metadata, Metadata, int] | None:
        ops = self.reader.operands(md)
        if len(ops) not in (3, 4):
            return None
        base, acc = self.reader.resolve(ops[0]), self.reader.resolve(ops[1])
        off = self.reader.integer(ops[2])
        if base is None or acc is None or off is None or self._name(base) is None or self._name(acc) is None:
            return None  # new-format (size-aware) tags start with the parent, not a name
        return base, acc, off

    def _name(self, node: Metadata) -> str | None:
        ops = self.reader.operands(node)
        return self.reader.string(ops[0]) if ops else None

    def _ancestors(self, node: Metadata) -> list[Metadata] | None:
        """`node`, its parent, ... up to the root (None: not a scalar chain)."""
        out = [node]
        for _ in range(32):
            ops = self.reader.operands(out[-1])
            if len(ops) == 1:
                return out
            if len(ops) != 3 or self.reader.integer(ops[2]) != 0:
                return None
            parent = self.reader.resolve(ops[1])
            if parent is None or self._name(parent) is None:
                return None
            out.append(parent)
        return None

    def _path(self, base: Metadata, offset: int, access: Metadata) -> list[Metadata] | None:
        """Type nodes from `base` down the member at `offset` to `access`, then its ancestors."""
        out = [base]
        node = base
        for _ in range(32):
            if node is access:
                up = self._ancestors(access)
                return None if up is None else out + up[1:]
            ops = self.reader.operands(node)
            members = [(self.reader.resolve(ops[i]), self.reader.integer(ops[i + 1]))
                       for i in range(1, len(ops) - 1, 2)]
            if not members or any(m is None or o is None for m, o in members):
                return None
            inside = [(m, o) for m, o in members if o <= offset]  # type: ignore[operator]
            if not inside:
                return None
            node, start = max(inside, key=lambda mo: mo[1])  # type: ignore[arg-type,return-value]
            offset -= start  # type: ignore[operator]
            out.append(node)  # type: ignore[arg-type]
        return None


# -- writes -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Write:
    """One instruction of the original that may write memory."""

    inst: Instruction
    objects: tuple[Value, ...]
    """Underlying objects it may write (`UNKNOWN`: anywhere)."""
    tag: Metadata | None = None
    """Its `!tbaa` access tag (stores only)."""


def collect_writes(fn: Function, module: Module | None, has_rule: RuleLookup) -> list[Write]:
    """Every instruction of `fn` that may write memory, with the objects it writes
    (`has_rule`: the callees the rule table covers, which write no program memory)."""
    out: list[Write] = []

    def add(inst: Instruction, ptr: Value | None, tag: Metadata | None = None) -> None:
        objs = underlying_objects(ptr) if ptr is not None else [UNKNOWN]
        out.append(Write(inst, tuple(objs), tag))

    for inst in fn.instructions():
        match inst:
            case Store():
                add(inst, inst.ptr, inst.metadata.get("tbaa"))
            case CallBase():
                if callee_name(inst) in RELEASES:
                    add(inst, inst.args[-1])
                    continue
                kind = classify(inst, has_rule)
                if kind is CallKind.RULE:
                    for arg in inst.args:  # frexp's exponent: the only writes of a rule call
                        if isinstance(arg.type, PointerType):
                            add(inst, arg)
                    continue
                if kind is CallKind.INACTIVE:
                    continue
                if kind is CallKind.ALLOC:
                    moves = allocator_of(inst).moves_from  # type: ignore[union-attr]
                    if moves is not None:
                        add(inst, inst.args[moves])  # realloc releases the old block
                elif kind in (CallKind.MEMSET, CallKind.MEMCPY):
                    add(inst, inst.args[0])
                elif kind is CallKind.BLAS:
                    for i in blas_callee(inst.called_function).clobbered_indices():  # type: ignore[union-attr]
                        add(inst, inst.args[i])  # the array it overwrites (and its status), nothing else
                else:
                    targets = call_write_targets(inst, module)
                    if targets is None:
                        add(inst, None)
                    elif targets:
                        out.append(Write(inst, tuple(o for t in targets for o in underlying_objects(t))))
            case _ if inst.opcode in ("atomicrmw", "cmpxchg"):
                add(inst, inst.operand(0))
    return out


HIDDEN_STATE_WRITERS = {"lgamma": "signgam", "lgammaf": "signgam", "lgammal": "signgam"}
"""libm functions without a `memory(...)` attribute that write only a libc global (and errno)."""

_PROGRAM_LOCATIONS = ("argmem", "other")
"""`memory(...)` locations the program's own objects live in (errno, inaccessible and
target memory are not: errno is ignored as for every libm call with a rule)."""


def call_write_targets(call: CallBase, module: Module | None) -> list[Value] | None:
    """Pointers into the program memory `call` may write ([]: none; None: anywhere),
    from its `memory(...)`, `readonly` and `readnone` attributes."""
    attrs = call_attributes(call, module)
    fn = call.called_function
    if isinstance(fn, Function) and fn.name in RUNTIME_WRITES:
        return [call.args[i] for i in RUNTIME_WRITES[fn.name]]  # OpenMP's loop bounds and flags
    if isinstance(fn, Function) and fn.name in MPI_INACTIVE_CALLS:
        return [call.args[i] for i in MPI_INACTIVE_CALLS[fn.name]]  # MPI ranks and sizes
    if any(a in ("readnone", "readonly") for a in attrs):
        return []
    effects = [_memory_effects(a[7:-1]) for a in attrs if a.startswith("memory(") and a.endswith(")")]
    if effects:
        writes = set.intersection(*effects)  # every attribute must allow the write
        if "other" in writes:
            return None
        if "argmem" not in writes:
            return []
        return [a for k, a in enumerate(call.args) if isinstance(a.type, PointerType) and not _read_only_arg(call, k)]
    hidden = HIDDEN_STATE_WRITERS.get(fn.name or "") if isinstance(fn, Function) else None
    if hidden is not None and module is not None:
        g = module.globals.get(hidden)
        return [g] if g is not None else []
    return None


_READ_ONLY_PARAM = ("readonly", "readnone")
"""Parameter attributes by which a callee promises not to write through that argument
(memory it reaches through another argument is that argument's write)."""


def _read_only_arg(call: CallBase, k: int) -> bool:
    """Whether the call may not write through its argument `k` (call-site or callee attributes)."""
    attrs = list(call.arg_attrs[k]) if k < len(call.arg_attrs) else []
    fn = call.called_function
    if isinstance(fn, Function) and k < len(fn.args):
        attrs += fn.args[k].attrs
    return any(a in _READ_ONLY_PARAM for a in attrs)


def _memory_effects(body: str) -> set[str]:
    """Program locations a `memory(...)` body lets the call write."""
    default = "none"
    per: dict[str, str] = {}
    for item in body.split(","):
        loc, _, access = item.strip().rpartition(":")
        if loc:
            per[loc.strip()] = access.strip()
        else:
            default = access.strip()
    return {loc for loc in _PROGRAM_LOCATIONS if "write" in per.get(loc, default)}


# -- the facts of one derivative ----------------------------------------------------------------


class FactsOwner(Protocol):
    """What memory facts read of the derivative they are made for
    (`synth.gradient_utils.GradientUtils`)."""

    module: Module
    original: Function
    """The function being differentiated (its private copy)."""
    split: bool
    stable_args: frozenset[int]
    distinct_args: DistinctArgs
    """Pairs of arguments every call site of this derivative passed into distinct objects."""
    loops: LoopInfo
    has_rule: RuleLookup


class MemoryFacts:
    """Write and alias facts of one original function, for one derivative."""

    def __init__(self, gu: FactsOwner) -> None:
        self.gu = gu
        self.tbaa = TBAAOrder(gu.module)
        self.writes = collect_writes(gu.original, gu.module, gu.has_rule)
        self.undone: list[Store] = [] if gu.split else self._undoable()
        """Stores the derivative undoes and replays (`undo_stores`), in forward order."""
        undone = set(self.undone)
        self._kept = [w for w in self.writes if w.inst not in undone]
        self._unchanged: dict[Load, bool] = {}
        self._in_loop: dict[Loop, list[Write]] = {}

    # -- queries -----------------------------------------------------------------------
    def load_unchanged(self, load: Load) -> bool:
        """No write of the original may change the memory `load` reads (and, in split
        mode, nor may the caller before the reverse function runs). Undone stores do
        not count for loads inside loops: those are reloaded only within their loop's
        reverse, where the undo log has put memory back as the loop saw it."""
        got = self._unchanged.get(load)
        if got is None:
            got = self._unchanged[load] = self._unchanged_uncached(load)
        return got

    def _unchanged_uncached(self, load: Load) -> bool:
        objs = underlying_objects(load.ptr)
        if self.gu.split and not all(self.outlives_caller_writes(t) for t in objs):
            return False
        writes = self._kept if self.gu.loops.loops_of(load.parent) else self.writes  # type: ignore[arg-type]
        return not any(self._clobbers(w, objs, load.metadata.get("tbaa")) for w in writes)

    def clobbered_in(self, load: Load, loop: Loop) -> bool:
        """Whether an instruction of `loop` may write the memory `load` reads (so the
        load may read different values in different iterations of `loop`)."""
        writes = self._in_loop.get(loop)
        if writes is None:
            writes = self._in_loop[loop] = [w for w in self.writes if loop.contains(w.inst)]
        objs = underlying_objects(load.ptr)
        return any(self._clobbers(w, objs, load.metadata.get("tbaa")) for w in writes)

    def written_anywhere(self, ptr: Value) -> bool:
        """Whether any write of the original, undone stores included, may write
        memory `ptr` points into (whatever its type)."""
        objs = underlying_objects(ptr)
        return any(self.objects_may_alias(list(w.objects), objs) for w in self.writes)

    def never_written(self, target: Value) -> bool:
        """No kept write of the original may write object `target`."""
        return not any(self.objects_may_alias([target], list(w.objects)) for w in self._kept)

    def objects_may_alias(self, xs: list[Value], ys: list[Value]) -> bool:
        """`objects_may_alias`, knowing which arguments the call sites passed into distinct objects."""
        distinct = self.gu.distinct_args
        for x in xs:
            for y in ys:
                if isinstance(x, Argument) and isinstance(y, Argument) and x is not y \
                        and (min(x.index, y.index), max(x.index, y.index)) in distinct:
                    continue
                if may_alias(x, y):
                    return True
        return False

    def distinct_pairs(self, args: list[Value]) -> DistinctArgs:
        """The pairs of a call's pointer arguments that point into distinct objects."""
        return distinct_pairs(args, self.objects_may_alias)

    def input_unchanged(self, ptr: Value, call: Instruction) -> bool:
        """Whether the reverse pass can read array `ptr`, an input of `call`, in place:
        no write of the original may change the memory it points into (`call`'s own
        write does not count when it runs once, outside loops: a routine's output never
        overlaps its inputs, as BLAS requires) and, in split mode, the caller cannot
        change it before the reverse runs either."""
        objs = underlying_objects(ptr)
        if self.gu.split and not all(self.outlives_caller_writes(t) for t in objs):
            return False
        once = not self.gu.loops.loops_of(call.parent)  # type: ignore[arg-type]
        return not any(objects_may_alias(list(w.objects), objs) for w in self._kept
                       if not (once and w.inst is call))

    def outlives_caller_writes(self, target: Value) -> bool:
        """Whether memory `target` stays as this function left it until its reverse
        pass runs: always in combined mode; in split mode for its own stack and for
        arguments the caller declared stable."""
        if not self.gu.split or isinstance(target, Alloca):
            return True
        return isinstance(target, Argument) and target.index in self.gu.stable_args

    def _clobbers(self, w: Write, objs: list[Value], tag: Metadata | None) -> bool:
        return self.objects_may_alias(list(w.objects), objs) and self.tbaa.may_alias(w.tag, tag)

    # -- once-executed stores ----------------------------------------------------------
    def _undoable(self) -> list[Store]:
        """Stores worth undoing: simple once-executed stores into argument or global
        memory that every write aliasing them is one of, and that stand between
        some loop load and its reload."""
        cands = {w.inst: w for w in self.writes if isinstance(w.inst, Store) and self._simple(w)}
        changed = True
        while changed:  # every write aliasing a candidate must be a candidate too
            changed = False
            for s, ws in list(cands.items()):
                if any(w.inst is not s and w.inst not in cands and self._clobbers(w, list(ws.objects), ws.tag)
                       for w in self.writes):
                    del cands[s]
                    changed = True
        if not cands:
            return []
        useful: set[Instruction] = set()
        for load in self.gu.original.instructions():
            if not isinstance(load, Load) or not self.gu.loops.loops_of(load.parent) or load.volatile \
                    or load.ordering is not None:  # type: ignore[arg-type]
                continue
            objs, tag = underlying_objects(load.ptr), load.metadata.get("tbaa")
            blockers = [w.inst for w in self.writes if self._clobbers(w, objs, tag)]
            if blockers and all(b in cands for b in blockers):
                useful.update(blockers)
        work = list(useful)
        while work:  # stores aliasing an undone one are undone too, so replaying keeps their order
            s = cands[work.pop()]
            for t, wt in cands.items():
                if t not in useful and self._clobbers(wt, list(s.objects), s.tag):
                    useful.add(t)
                    work.append(t)
        order = {b: i for i, b in enumerate(_forward_order(self.gu.original))}
        chosen = [s for s in cands if s in useful]
        chosen.sort(key=lambda s: (order[s.parent], s.parent.instructions.index(s)))  # type: ignore[index,union-attr]
        return chosen  # type: ignore[return-value]

    def _simple(self, w: Write) -> bool:
        s = w.inst
        assert isinstance(s, Store)
        gu = self.gu
        if s.volatile or s.ordering is not None or gu.loops.loops_of(s.parent) or not _plain(s.value.type):  # type: ignore[arg-type]
            return False
        if not all(isinstance(o, Argument) or isinstance(o, GlobalVariable) and not o.is_constant
                   for o in w.objects):
            return False
        for op in (s.value, s.ptr):  # looked up at the store's reverse and at the very end
            if isinstance(op, Instruction) and gu.loops.loops_of(op.parent):  # type: ignore[arg-type]
                return False
        return True


def _plain(ty: Type) -> bool:
    """Integer or floating scalars and vectors: no pointers whose shadows would go stale."""
    if isinstance(ty, VectorType):
        ty = ty.element
    return isinstance(ty, (IntType, FloatType))


def _forward_order(fn: Function):
    """Blocks in reverse post-order: a block outside loops comes after every block
    that reaches it without it reaching them."""
    from enzc.ir.cfg import reverse_post_order
    blocks = reverse_post_order(fn)
    return blocks + [b for b in fn.blocks if b not in set(blocks)]
