"""Split reverse mode: `augmented_g` and `reverse_g` for calls from derivatives.

    augmented_g(args, shadows)               -> tape            (g returns void)
                                             -> {tape, result}  (otherwise)
    reverse_g(args, shadows, [d_result], tape) -> adjoints of the `out` arguments

Both come from one combined derivative built by the ordinary visitor in split
mode (`synthesize_reverse(..., split=True)`: the return adjoint is a parameter, and
every `ret` of the forward pass branches to a seed block that starts the reverse
pass). That function is then cut along those branches:

- the forward blocks (reachable from the entry without entering a seed block)
  move to `augmented_g`; each branch to a seed block becomes a `ret` of the tape;
- the seed and reverse blocks move to `reverse_g`, behind a new entry that loads
  from the tape what the reverse blocks use of the forward pass and jumps to the
  seed of the `ret` that was taken (recorded in the tape when there are several).

The tape is one heap block (`malloc` in the augmented entry, `free` before each
`ret` of the reverse; a null pointer when nothing crosses). It holds:

- each SSA value defined in the forward blocks and used by reverse blocks, stored
  at each forward exit it dominates (loop values reach the reverse pass through
  the caches, whose base pointers are such values);
- the memory of each entry `alloca` used on both sides (primal locals the reverse
  reads, shadows of locals, spill slots), at its alignment;
- the number of the `ret` taken, when there are several.

An `alloca` whose only forward use is one store of a constant (adjoint slots and
their zero initialisation) moves to the reverse function with that store.
Because the reverse may run after the caller has changed memory, the visitor
recomputes in split mode only loads of the function's own stack
(`GradientUtils.split`); everything else it needs is cached or taped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzc.ir.builder import IRBuilder, forget_names, new_block
from enzc.ir.dominators import DominatorTree
from enzc.ir.libc import declare
from enzc.ir.instructions import Alloca, Br, CallBase, Cast, GetElementPtr, Instruction, Load, Phi, Ret, Select, Store
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.types import I8, I32, I64, PTR, ArrayType, PointerType, StructType, Type
from enzc.ir.values import Constant, ConstantInt, Value

from enzc.ad.analysis.uses import reaches
from enzc.ad.synth.cache_report import CacheAllocation
from enzc.ad.synth.combined import synthesize_reverse
from enzc.ad.synth.signature import Derivatives, Signature, augmented_type, reverse_type
from enzc.ad.synth.tape_stack import BLOCK_ALIGN, tape_alloc, tape_free


@dataclass
class SplitDerivative:
    """The augmented forward / reverse pair of one function and signature."""

    function: Function
    signature: Signature
    augmented: Function
    reverse: Function
    caches: int = 0
    cache_allocations: list[CacheAllocation] = field(default_factory=list)
    """What `--enzc-print-cache` reports for the pair (`cache_report`)."""


def declare_split(module: Module, fn: Function, sig: Signature) -> SplitDerivative:
    """The two functions, still without bodies (callers may refer to them already)."""
    aug = module.add_function(f"augmented_{fn.name}", augmented_type(fn, sig))
    rev = module.add_function(f"reverse_{fn.name}", reverse_type(fn, sig))
    for f in (aug, rev):
        f.linkage.words = ["internal"]
    aug.header_suffix = [w for w in fn.header_suffix if w.startswith("personality")]  # landing pads need it
    return SplitDerivative(fn, sig, aug, rev)


def build_split(derivatives: Derivatives, split: SplitDerivative) -> None:
    """Synthesize the combined split-mode derivative and cut it into the pair."""
    module = derivatives.module
    combined = synthesize_reverse(module, derivatives.layout, split.function, split.signature, derivatives,
                                  split=True)
    split.caches, split.cache_allocations = combined.caches, combined.cache_allocations
    _Cut(module, derivatives.layout, combined.function, combined.returns, split).run()
    del module.functions[combined.function.name or ""]


class _Cut:
    """Moves the blocks of the combined function `g` into the augmented/reverse pair."""

    def __init__(self, module: Module, layout, g: Function,
                 returns: list[tuple[BasicBlock, Value | None, list[Value]]],
                 split: SplitDerivative) -> None:
        self.module, self.layout, self.g, self.split = module, layout, g, split
        self.returns = returns
        seeds = [b.terminator.successors[0] for b, _, _ in returns]  # type: ignore[union-attr]
        self.forward = _reachable(g.entry, set(seeds))
        self.reverse_blocks = [b for b in g.blocks if b not in self.forward]
        self.seeds = seeds
        self.fields: list[tuple[Type, int]] = []
        """(type, alignment) of each tape field, in order."""
        self.stacked = split.signature.parallel or _recursive(split.function)
        """Tapes from the tape stack (`tape_stack`): a recursion's calls cannot be inlined,
        while LLVM removes the malloc'd tape of a pair inlined into its caller; a
        thread of an OpenMP team takes its tapes from its own stack instead of a
        `malloc` arena that hands the pages back after every reverse pass."""

    # -- classification -------------------------------------------------------------------
    def _field(self, ty: Type, align: int | None = None) -> int:
        self.fields.append((ty, max(align or 1, self.layout.abi_align(ty))))
        return len(self.fields) - 1

    def run(self) -> None:
        g = self.g
        fwd = self.forward
        which = self._field(I32) if len(self.returns) > 1 else None
        crossing: dict[Instruction, int] = {}
        taped_allocas: dict[Alloca, int] = {}
        moved: list[tuple[Alloca, list[Store]]] = []
        for block in g.blocks:
            if block not in fwd:
                continue
            for inst in block.instructions:
                users = [u.user for u in inst.uses]
                if not any(isinstance(u, Instruction) and u.parent not in fwd for u in users):
                    continue
                forward_users = [u for u in users if isinstance(u, Instruction) and u.parent in fwd]
                if isinstance(inst, Alloca):
                    if _only_constant_init(inst, forward_users, g.entry):
                        moved.append((inst, forward_users))  # type: ignore[arg-type]
                    elif block is g.entry and (inst.count is None or isinstance(inst.count, ConstantInt)):
                        n = inst.count.value if isinstance(inst.count, ConstantInt) else 1
                        ty = inst.allocated_type if n == 1 else ArrayType(n, inst.allocated_type)
                        taped_allocas[inst] = self._field(ty, inst.align)
                    else:
                        from enzc.ad.diagnostics import ad_error

                        raise ad_error(self.module, None, self.split.function.name or "?",
                                       "a variable-size stack allocation is needed by the reverse pass of a "
                                       "function called from differentiated code",
                                       "allocate it with malloc, or let the call be inlined")
                else:
                    crossing[inst] = self._field(inst.type)
        moved_allocas = {a for a, _ in moved}
        for inst in g.entry.instructions:
            if (isinstance(inst, Alloca) and inst not in taped_allocas and inst not in moved_allocas
                    and (inst.count is None or isinstance(inst.count, ConstantInt))
                    and _address_crosses(inst, crossing)):
                n = inst.count.value if isinstance(inst.count, ConstantInt) else 1
                ty = inst.allocated_type if n == 1 else ArrayType(n, inst.allocated_type)
                taped_allocas[inst] = self._field(ty, inst.align)
        if all(_private(a) for a in taped_allocas):
            # Only the reverse reaches the tape then, always through this parameter: with
            # `noalias` LLVM keeps the tape's fields in registers across stores to shadows.
            # (A local whose address is passed on or stored lives in the tape too, and a
            # callee's reverse may reach it through the pointer its own tape kept.)
            self.split.reverse.args[-1].attrs = ("noalias",)
        tape_type, offsets = self._layout()
        dt = DominatorTree(g)
        self._build_augmented(tape_type, offsets, which, crossing, taped_allocas, dt)
        self._build_reverse(tape_type, offsets, which, crossing, taped_allocas, moved)

    def _tape_align(self) -> int:
        return max((align for _, align in self.fields), default=1)

    def _fields_at(self, b: IRBuilder, tape: Value) -> Value:
        """Where the tape's fields start: the block itself, or, when a field needs
        more than the 16-byte alignment of `malloc` and `__enzc_tape_alloc` (an
        AVX-512 vector, an `alignas(64)` local), the first address in it aligned for
        that (the block is allocated that much larger; the augmented pass and the
        reverse compute the same address from the block, which is what is freed)."""
        align = self._tape_align()
        if align <= BLOCK_ALIGN or isinstance(tape, Constant):
            return tape
        misalignment = b.and_(b.sub(ConstantInt(I64, 0), b.ptrtoint(tape, I64, "tape.addr"), "tape.neg"),
                              ConstantInt(I64, align - 1), "tape.pad")
        return b.gep(I8, tape, [misalignment], "tape.fields")

    def _layout(self) -> tuple[StructType, list[int]]:
        """A packed struct with explicit padding, so over-aligned allocas keep their
        alignment (from `_fields_at`)."""
        elements: list[Type] = []
        offsets: list[int] = []
        at = 0
        for ty, align in self.fields:
            pad = -at % align
            if pad:
                elements.append(ArrayType(pad, I8))
                at += pad
            offsets.append(len(elements))
            elements.append(ty)
            at += self.layout.alloc_size_of(ty)
        return StructType(tuple(elements), packed=True), offsets

    # -- the augmented forward ----------------------------------------------------------------
    def _build_augmented(self, tape_type: StructType, offsets: list[int], which: int | None,
                         crossing: dict[Instruction, int], taped: dict[Alloca, int], dt: DominatorTree) -> None:
        g, aug = self.g, self.split.augmented
        blocks = [b for b in g.blocks if b in self.forward]
        own_arg = dict(zip(g.args, aug.args))
        for ga, aa in own_arg.items():
            aa.name = ga.name
            _replace_uses_in(ga, aa, self.forward)
        aug.blocks = blocks
        forget_names(aug)
        b = IRBuilder()
        b.position_at_start(aug.entry)
        b.position_after_phis(aug.entry)
        first = aug.entry.first_non_phi
        if first is not None:
            b.position_before(first)
        tape: Value
        if self.fields:
            size = self.layout.alloc_size_of(tape_type) + max(0, self._tape_align() - BLOCK_ALIGN)
            alloc = tape_alloc(self.module) if self.stacked else declare(self.module, "malloc")
            tape = b.call(alloc, [ConstantInt(I64, size)], "tape")
        else:
            tape = b.const_null(PTR)
        fields = self._fields_at(b, tape)
        for alloca, k in taped.items():
            addr = b.gep(tape_type, fields, [0, offsets[k]], (alloca.name or "local") + ".tape")
            _replace_uses_in(alloca, addr, self.forward)
        ret_type = aug.function_type.ret
        for index, (block, value, shadows) in enumerate(self.returns):
            # a returned argument (`return it;`) is no use of it: map it by hand
            value = own_arg.get(value, value)  # type: ignore[arg-type]
            shadows = [own_arg.get(s, s) for s in shadows]  # type: ignore[misc]
            term = block.terminator
            assert isinstance(term, Br)
            b.position_before(term)
            for v, k in crossing.items():
                if v.parent is not None and dt.block_dominates(v.parent, block):
                    b.store(v, b.gep(tape_type, fields, [0, offsets[k]], "tape.slot"))
            if which is not None:
                b.store(ConstantInt(I32, index), b.gep(tape_type, fields, [0, offsets[which]], "tape.ret"))
            if ret_type == PTR:
                b.ret(tape)
            else:
                agg = b.insert_value(b.const_undef(ret_type), tape, 0, "aug.tape")
                agg = b.insert_value(agg, value if value is not None else b.const_undef(ret_type.elements[1]),  # type: ignore[attr-defined]
                                     1, "aug.ret")
                for k in range(2, len(ret_type.elements)):  # type: ignore[attr-defined]
                    shadow = shadows[k - 2] if shadows else b.const_zero(ret_type.elements[k])  # type: ignore[attr-defined]
                    agg = b.insert_value(agg, shadow, k, "aug.shadow")
                b.ret(agg)
            term.erase()

    # -- the reverse ----------------------------------------------------------------------------
    def _build_reverse(self, tape_type: StructType, offsets: list[int], which: int | None,
                       crossing: dict[Instruction, int], taped: dict[Alloca, int],
                       moved: list[tuple[Alloca, list[Store]]]) -> None:
        g, rev = self.g, self.split.reverse
        rev_set = set(self.reverse_blocks)
        for ga, ra in zip(g.args, rev.args):
            ra.name = ga.name
            _replace_uses_in(ga, ra, rev_set)
        tape = rev.args[-1]
        rev.blocks = list(self.reverse_blocks)
        forget_names(rev)
        entry = new_block(rev, "reverse.entry")
        rev.blocks.remove(entry)
        rev.blocks.insert(0, entry)
        forget_names(rev)
        b = IRBuilder(entry)
        for alloca, inits in moved:
            alloca.remove_from_parent()
            b.insert(alloca)
        for alloca, inits in moved:
            for st in inits:
                st.remove_from_parent()
                b.insert(st)
        fields = self._fields_at(b, tape)
        for alloca, k in taped.items():
            addr = b.gep(tape_type, fields, [0, offsets[k]], (alloca.name or "local") + ".tape")
            _replace_uses_in(alloca, addr, rev_set)
            alloca.erase()
        for v, k in crossing.items():
            loaded = b.load(v.type, b.gep(tape_type, fields, [0, offsets[k]], "tape.slot"), (v.name or "v") + ".tape")
            _replace_uses_in(v, loaded, rev_set)
        if which is None:
            b.br(self.seeds[0])
        else:
            index = b.load(I32, b.gep(tape_type, fields, [0, offsets[which]], "tape.ret"), "ret.taken")
            b.switch(index, self.seeds[0], [(ConstantInt(I32, k), s) for k, s in enumerate(self.seeds) if k])
        if self.fields:
            free = tape_free(self.module) if self.stacked else declare(self.module, "free")
            for block in self.reverse_blocks:
                term = block.terminator
                if isinstance(term, Ret):
                    b.position_before(term)
                    b.call(free, [tape])


def _address_crosses(alloca: Alloca, crossing: dict[Instruction, int]) -> bool:
    """Whether a pointer computed from `alloca` (GEPs, casts, selects, phis) is a
    value the reverse function receives: it would point into the finished
    augmented call's frame, so the alloca's memory must live in the tape."""
    def passes_on(user: Instruction) -> bool:
        return isinstance(user, (GetElementPtr, Cast, Select, Phi)) and isinstance(user.type, PointerType)

    if alloca in crossing:
        return True
    return reaches(alloca, passes_on, lambda use: use.user in crossing and passes_on(use.user))


def _recursive(fn: Function) -> bool:
    """Whether `fn` may call itself through direct calls of defined functions."""
    seen: set[int] = set()
    work = [fn]
    while work:
        for inst in work.pop().instructions():
            callee = inst.called_function if isinstance(inst, CallBase) else None
            if callee is fn:
                return True
            if isinstance(callee, Function) and callee.blocks and id(callee) not in seen:
                seen.add(id(callee))
                work.append(callee)
    return False


def _private(alloca: Alloca) -> bool:
    """Whether the alloca's address is only used to load and store through (GEPs of it
    included): no call, store or cast passes it on."""
    work: list[Instruction] = [alloca]
    while work:
        ptr = work.pop()
        for use in ptr.uses:
            user = use.user
            if isinstance(user, GetElementPtr) and use.index == 0:
                work.append(user)
            elif not (isinstance(user, Load) or isinstance(user, Store) and use.index == 1):
                return False
    return True


def _only_constant_init(alloca: Alloca, forward_users: list, entry: BasicBlock) -> bool:
    """Used in the forward pass only by one store of a constant in the entry block."""
    if len(forward_users) != 1:
        return not forward_users
    st = forward_users[0]
    return (isinstance(st, Store) and st.ptr is alloca and st.value is not alloca
            and isinstance(st.value, Constant) and st.parent is entry)


def _replace_uses_in(old: Value, new: Value, blocks: set[BasicBlock]) -> None:
    for use in list(old.uses):
        user = use.user
        if isinstance(user, Instruction) and user.parent in blocks:
            user.set_operand(use.index, new)


def _reachable(entry: BasicBlock, stop: set[BasicBlock]) -> set[BasicBlock]:
    seen = {entry}
    work = [entry]
    while work:
        blk = work.pop()
        for s in blk.successors:
            if s not in seen and s not in stop:
                seen.add(s)
                work.append(s)
    return seen
