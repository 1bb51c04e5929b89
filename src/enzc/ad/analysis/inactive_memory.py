"""Local memory that provably holds no derivative, so a call reading it needs no shadow.

Activity is conservative at calls: a call that may write memory and receives a
shadowed pointer may store derivatives through every pointer argument, so all of
them get shadows (`activity._call_outputs`). For a `std::string` key copied from
an `enzyme_const` vector (`std::string k(keys[i]); m[k]`), that shadows `k`, its
characters become "active" bytes of no known type, and their copy into the map's
node is a located error: nothing says the characters hold no double's bytes.

They need not be typed when nothing in them can carry a derivative. This module
proves that for local objects (allocas, heap blocks from allocators and
`std::string::_M_create`) by a small points-to analysis over the function and the
defined functions it calls (three calls deep, each call site analysed on its own:
the five keys a function hands to `m[k]` stay apart). Every value gets the set of
places it may point to or be made from — `(object, offset)` of a local object,
`CONST` (memory reached from `enzyme_const` arguments and constant globals) or
`ACTIVE` (`enzyme_dup`/`enzyme_out` arguments, writable globals, results of
unknown calls, anything loaded from such memory) — and every store, copy or
callee write records what lands in which bytes of which object. Numbers keep the
places they are made from too (an `inttoptr` of a pointer's bits points where the
pointer did). An object is *dirty* when a value made from `ACTIVE` may land in it,
and *escaped* (dirty, and so is all it reaches) when its address may land in
memory outside the local objects, or reaches an unknown call: code the analysis
does not follow may write it then. `no_derivative_behind(ptr)` holds when `ptr`
and every local object reachable from it are clean: whatever their bytes are,
their derivative is zero, so a call may receive `ptr` without a shadow
(`enzyme_const`) and a copy out of it moves no adjoint (the copy's reverse zeroes
the destination's shadow, as for any copy from constant memory). A string whose
bytes come from an active double is dirty and keeps its shadow: its copies are
typed as before, or are located errors.

Byte ranges are kept per write (offset and size; an unknown offset covers the
whole object), so a copy reading a string's characters (`memcpy(dst, k._M_p, n)`
from offset 16 of `k`) does not read the `_M_p` pointer at offset 0: a copy reads
the bytes from its source offset on. Branches are used in one case: where a
dominating `icmp eq`/`ne` tells a pointer apart from the exact address of a local
variable of the function (one instance per call), the pointer does not point
there (a string moved into a map node hands over its heap block, never its own
buffer: `if (s._M_p != s._M_local_buf) node._M_p = s._M_p`).
"""

from __future__ import annotations

from collections.abc import Iterable

from enzc.ir.datalayout import for_module
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import Alloca, AtomicRMW, Br, CallBase, Cast, CmpXchg, Compare, Freeze, GetElementPtr
from enzc.ir.instructions import Instruction, Load
from enzc.ir.instructions import Phi, Ret, Select, Store, VAArg
from enzc.ir.module import BasicBlock, Function, GlobalVariable, Module
from enzc.ir.types import PointerType
from enzc.ir.values import Constant, ConstantExpr, Value

from enzc.ad.analysis.allocations import DEALLOCATORS, allocator_of
from enzc.ad.analysis.calls import CallKind, classify, writes_memory
from enzc.ad.typeanalysis.offsets import TypeSeeds, gep_offset

CONST = "const"
ACTIVE = "active"
Place = tuple[object, int | None]
"""`(local object, byte offset or None: unknown)`, or `(CONST|ACTIVE, None)`."""
Context = tuple[CallBase, ...]
"""The calls that led from the function differentiated to the one analysed."""
WHOLE = 1 << 40
"""Size of a write of unknown extent."""
MAX_DEPTH = 3
"""Calls followed into defined callees."""
MAX_CONTEXTS = 256
"""Call sites analysed in all (a budget for large programs)."""
_MAX_ROUNDS = 50
_NO_WRITE = ("llvm.lifetime.", "llvm.dbg.", "llvm.assume", "llvm.experimental.noalias.scope.decl",
             "llvm.invariant.", "llvm.launder.invariant.group")


class InactiveMemory:
    """Which local memory of `fn` (and of its callees) holds no derivative, given
    which arguments are active (`active_args[i]`: not `enzyme_const`)."""

    def __init__(self, fn: Function, active_args: Iterable[bool], module: Module | None) -> None:
        self.module = module
        self.seeds = TypeSeeds(for_module(module)) if module is not None else None
        self.places: dict[tuple[Context, Value], frozenset[Place]] = {}
        self.writes: dict[object, list[tuple[int | None, int, frozenset[Place]]]] = {}
        self.dirty: set[object] = set()
        self.escaped: set[object] = set()
        self.const_written = False
        """Whether a value made from `ACTIVE` is written through a pointer into `CONST`
        memory only (an error elsewhere; here, reads of constant memory then count as
        active). A pointer that may also point elsewhere (a map's `operator[]` result,
        imprecisely) has a shadow of its own: what it writes is checked there."""
        self.returns: dict[Context, frozenset[Place]] = {}
        self.contexts: dict[Context, Function] = {(): fn}
        """Each function analysed, by the chain of calls that reached it (one analysis
        per call site: five keys handed to `m[k]` stay apart)."""
        self.top = fn
        self._ctx: Context = ()
        self._unequal: dict[Function, dict[BasicBlock, list[tuple[Value, Value]]]] = {}
        self._changed = True
        for arg, active in zip(fn.args, active_args):
            self.places[((), arg)] = frozenset({(ACTIVE if active else CONST, None)})
        self.reliable = self.seeds is not None
        if not self.reliable:
            return
        rounds = 0
        while self._changed and rounds < _MAX_ROUNDS:
            self._changed = False
            rounds += 1
            for ctx, g in list(self.contexts.items()):
                self._ctx = ctx
                for inst in g.instructions():
                    self._step(inst)
        self._ctx = ()
        self.reliable = not self._changed

    # -- the query --------------------------------------------------------------------------------

    def no_derivative_behind(self, ptr: Value) -> bool:
        """Whether `ptr` points only into clean local objects (or constant memory),
        and so does every pointer stored in them, transitively."""
        if not self.reliable:
            return False
        start = self._of(ptr)
        if not any(p[0] not in (CONST, ACTIVE) for p in start):
            return False  # not local memory: nothing to decide here
        work, seen = list(start), set()
        while work:
            obj, _ = work.pop()
            if obj == CONST or obj in seen:
                continue
            if obj == ACTIVE or obj in self.dirty or obj in self.escaped:
                return False
            seen.add(obj)
            for _, _, stored in self.writes.get(obj, ()):
                work.extend(stored)
        return True

    # -- transfer functions -----------------------------------------------------------------------

    def _of(self, v: Value) -> frozenset[Place]:
        known = self.places.get((self._ctx, v))
        if known is not None:
            return known
        match v:
            case GlobalVariable():
                return frozenset({(CONST if v.is_constant else ACTIVE, None)})
            case ConstantExpr():
                return frozenset(p for o in v.operands for p in self._of(o))
            case Function() | Constant() | Instruction():
                return frozenset()  # an instruction not reached yet: nothing so far
        return frozenset({(ACTIVE, None)})  # an argument of a callee not reached, an unknown value

    def _set(self, v: Value, places: Iterable[Place], ctx: Context | None = None) -> None:
        key = (self._ctx if ctx is None else ctx, v)
        new = self.places.get(key, frozenset()) | frozenset(places)
        if new != self.places.get(key):
            self.places[key] = new
            self._changed = True

    def _object(self, inst: Instruction) -> object:
        """The abstract object an allocation makes: the instruction itself in the
        function differentiated, `(calls, instruction)` in a callee."""
        return inst if not self._ctx else (self._ctx, inst)

    def _step(self, inst: Instruction) -> None:
        match inst:
            case Alloca():
                self._set(inst, [(self._object(inst), 0)])
            case GetElementPtr():
                self._set(inst, self._moved(inst))
            case Cast() | Freeze():  # the same bits (`inttoptr` of a pointer's bits: the same places)
                self._set(inst, self._of(inst.operand(0)))
            case Load():
                self._set(inst, self._read(self._of(inst.ptr), self._size(inst.type)))
            case VAArg():  # reads the caller's arguments: nothing known
                self._set(inst, [(ACTIVE, None)])
            case Store():
                self._write(self._at(inst.ptr, inst), self._size(inst.value.type), self._at(inst.value, inst))
            case AtomicRMW() | CmpXchg():
                values = frozenset(p for o in inst.operands[1:] for p in self._of(o))
                self._write(self._of(inst.operand(0)), WHOLE, values)
                self._set(inst, self._read(self._of(inst.operand(0)), WHOLE) | values)
            case CallBase():
                self._call(inst)
            case Ret() if inst.value is not None:
                old = self.returns.get(self._ctx, frozenset())
                if not self._of(inst.value) <= old:
                    self.returns[self._ctx] = old | self._of(inst.value)
                    self._changed = True
            case _ if inst.type.is_first_class:
                # phis, selects, arithmetic, comparisons, aggregates: made from their operands
                # (offsets kept only through phis and selects, which choose one operand)
                keep = isinstance(inst, (Phi, Select))
                self._set(inst, [p if keep else (p[0], None) for o in inst.operands for p in self._of(o)])

    def _at(self, v: Value, user: Instruction) -> frozenset[Place]:
        """What `v` may point to where `user` is: less the place of a local variable of
        the function differentiated (one instance per call) that a dominating branch
        tells `v` apart from (`if (s._M_p != s._M_local_buf) node._M_p = s._M_p`:
        a string moved into a map node hands over its heap block, never its buffer)."""
        places = self._of(v)
        block = user.parent
        if block is None:
            return places
        fn = block.parent
        if fn not in self._unequal:
            self._unequal[fn] = _unequal_values(fn)
        for a, b in self._unequal[fn].get(block, ()):
            other = b if v is a else a if v is b else None
            if other is None:
                continue
            known = self._of(other)
            if len(known) == 1 and _one_instance(next(iter(known)), self.top):
                places = places - known
        return places

    def _moved(self, gep: GetElementPtr) -> list[Place]:
        measured = gep_offset(gep, self.seeds, {})  # type: ignore[arg-type]
        delta = measured[0] if measured is not None and measured[1] == 0 else None
        return [(o, None if off is None or delta is None else off + delta) for o, off in self._of(gep.ptr)]

    def _size(self, t) -> int:
        size = self.seeds.size(t) if self.seeds is not None else None
        return size if size else WHOLE

    def _read(self, places: frozenset[Place], size: int, from_on: bool = False) -> frozenset[Place]:
        """What a read of `size` bytes at each place may yield (`from_on`: every byte
        from the place on: a copy of a run-time length)."""
        out: set[Place] = set()
        for obj, off in places:
            if obj in (CONST, ACTIVE):
                out.add((ACTIVE if self.const_written else obj, None))
                continue
            if obj in self.dirty or obj in self.escaped:
                out.add((ACTIVE, None))
            for w_off, w_size, stored in self.writes.get(obj, ()):
                if off is None or w_off is None or w_off + w_size > off and (from_on or w_off < off + size):
                    out |= stored
        return frozenset(out)

    def _reachable(self, places: frozenset[Place]) -> frozenset[Place]:
        """`places` and every place stored in the objects they reach, transitively (what
        a callee handed them may read)."""
        out, work = set(places), list(places)
        while work:
            for p in self._read(frozenset({(work.pop()[0], None)}), WHOLE):
                if p not in out:
                    out.add(p)
                    work.append(p)
        return frozenset(out)

    def _write(self, places: frozenset[Place], size: int, stored: frozenset[Place]) -> None:
        locals_stored = {p[0] for p in stored if p[0] not in (CONST, ACTIVE)}
        for obj, off in places:
            if obj in (CONST, ACTIVE) or obj in self.escaped:
                for o in locals_stored:
                    self._escape(o)  # its address lands where the analysis cannot follow it
                if obj == CONST and len(places) == 1 and any(p[0] == ACTIVE for p in stored) \
                        and not self.const_written:
                    self.const_written = True  # "constant" memory written with active data: it is not
                    self._changed = True
                continue
            entries = self.writes.setdefault(obj, [])
            entry = (off, size, stored)
            if entry not in entries:
                entries.append(entry)
                self._changed = True
            if any(p[0] == ACTIVE for p in stored):
                self._dirty(obj)

    def _dirty(self, obj: object) -> None:
        if obj not in self.dirty:
            self.dirty.add(obj)
            self._changed = True

    def _escape(self, obj: object) -> None:
        if obj in (CONST, ACTIVE) or obj in self.escaped:
            return
        self.escaped.add(obj)
        self._dirty(obj)
        for _, _, stored in self.writes.get(obj, ()):
            for o, _ in stored:
                self._escape(o)

    # -- calls ----------------------------------------------------------------------------------------

    def _call(self, call: CallBase) -> None:
        fn = call.called_function
        name = (fn.name if fn is not None else None) or ""
        args = [self._at(a, call) for a in call.args]
        alloc = allocator_of(call)
        if alloc is not None:
            self._set(call, [(self._object(call), 0)])  # a fresh block (`_M_create` writes only its integer capacity)
            if alloc.moves_from is not None:  # realloc: the old contents move
                moved = self._read(args[alloc.moves_from], WHOLE, True)
                self._write(frozenset({(self._object(call), None)}), WHOLE, moved)
            return
        if name.startswith(_NO_WRITE) or name in DEALLOCATORS:
            return
        if name == "posix_memalign":  # a fresh block, through memory
            self._write(args[0], WHOLE, frozenset({(self._object(call), 0)}))
            self._set(call, [])
            return
        kind = classify(call, lambda _: False) if fn is not None else CallKind.UNKNOWN
        if kind is CallKind.MEMCPY:
            self._write(args[0], WHOLE, self._read(args[1], WHOLE, from_on=True))
            return
        if kind is CallKind.MEMSET:
            self._write(args[0], WHOLE, args[1])
            return
        made = self._reachable(frozenset(p for a in args for p in a))
        if kind is CallKind.INACTIVE or not writes_memory(call, self.module):
            # reads only (or writes only integer state of its own): a pointer it returns
            # points where its arguments do; a number is made from what they reach
            self._set(call, made if isinstance(call.type, PointerType) else _data_only(made))
            return
        if isinstance(fn, Function) and not fn.is_declaration and kind is CallKind.UNKNOWN \
                and len(self._ctx) < MAX_DEPTH:
            self._enter(fn, call, args)
            return
        for places in args:  # anything may happen to what an unknown callee receives
            for obj, _ in places:
                self._escape(obj)
        self._set(call, made | {(ACTIVE, None)})

    def _enter(self, fn: Function, call: CallBase, args: list[frozenset[Place]]) -> None:
        ctx = self._ctx + (call,)
        if ctx not in self.contexts:
            if len(self.contexts) >= MAX_CONTEXTS:  # a budget: what it does is then unknown
                for places in args:
                    for obj, _ in places:
                        self._escape(obj)
                self._set(call, frozenset(p for a in args for p in a) | {(ACTIVE, None)})
                return
            self.contexts[ctx] = fn
            self._changed = True
        for param, places in zip(fn.args, args):
            self._set(param, places, ctx)
        if fn.function_type.vararg:
            for places in args[len(fn.args):]:
                for obj, _ in places:
                    self._escape(obj)
        self._set(call, self.returns.get(ctx, frozenset()))


def _unequal_values(fn: Function) -> dict[BasicBlock, list[tuple[Value, Value]]]:
    """For each block, the pairs of pointers a dominating `icmp eq`/`ne` branch tells
    apart there (the blocks dominated by the not-equal successor, when the branch is
    its only way in)."""
    out: dict[BasicBlock, list[tuple[Value, Value]]] = {}
    tree: DominatorTree | None = None
    for block in fn.blocks:
        br = block.terminator
        if not isinstance(br, Br) or not br.is_conditional:
            continue
        cond = br.condition
        if not isinstance(cond, Compare) or cond.predicate not in ("eq", "ne") \
                or not isinstance(cond.operand(0).type, PointerType):
            continue
        target = br.successors[1 if cond.predicate == "eq" else 0]
        if len(target.predecessors) != 1 or br.successors[0] is br.successors[1]:
            continue
        tree = tree or DominatorTree(fn)
        work = [target]
        while work:
            b = work.pop()
            out.setdefault(b, []).append((cond.operand(0), cond.operand(1)))
            work.extend(tree.children(b))
    return out


def _one_instance(place: Place, top: Function) -> bool:
    """An exact place in a local variable of `top`'s entry block: one instance per call."""
    obj, off = place
    return (isinstance(obj, Alloca) and off is not None and obj.count is None
            and obj.parent is not None and obj.parent is top.blocks[0])


def _data_only(places: frozenset[Place]) -> frozenset[Place]:
    """What a number computed from `places` is made of: no address, only whether
    it may carry a derivative (`ACTIVE`) or comes from constant memory."""
    return frozenset((o, None) for o, _ in places if o in (CONST, ACTIVE))


__all__ = ["InactiveMemory", "CONST", "ACTIVE"]
