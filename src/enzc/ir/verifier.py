"""Structural and type checks of function bodies, run after every transform in tests.

`verify_function` collects every problem it finds (not just the first) and raises
one `VerificationError` listing them, each naming the function, block and
instruction. It checks what our transforms can break: block structure, phis
against the CFG, operand types, SSA dominance, the use lists themselves, and that
operands and debug records name values of their own function.
It is linear in the function size apart from the dominator tree.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from enzc.errors import EnzcError
from enzc.ir.describe import describe
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import (
    AtomicRMW,
    BinaryOp,
    Br,
    CallBase,
    Cast,
    CmpXchg,
    Compare,
    DebugRecord,
    DIArgList,
    ExtractElement,
    ExtractValue,
    Freeze,
    GetElementPtr,
    InsertElement,
    InsertValue,
    Instruction,
    Load,
    Phi,
    Ret,
    Select,
    ShuffleVector,
    Store,
    Switch,
    UnaryOp,
    Alloca,
)
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.types import (
    I1,
    ArrayType,
    VOID,
    FloatType,
    IntType,
    NamedStructType,
    PointerType,
    StructType,
    Type,
    VectorType,
    aggregate_member,
)
from enzc.ir.values import (Argument, Constant, ConstantAggregate, ConstantInt, ConstantSimple, ConstantSplat,
                             Value)
from enzc.ir.verify_gep import gep_problem, is_sized

FP_BINOPS = {"fadd", "fsub", "fmul", "fdiv", "frem"}


class VerificationError(EnzcError):
    """Invalid IR; `problems` lists each finding as a one-line message."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("invalid IR:\n  " + "\n  ".join(problems))


def verify_function(fn: Function) -> None:
    """Raise `VerificationError` if `fn`'s body is malformed; declarations pass."""
    if problems := check_function(fn):
        raise VerificationError(problems)


def verify_module(module: Module, *, materialize: bool = False) -> None:
    """Verify the module: metadata, attributes, alignments and names at module level
    (verify_globals.py), and every function body; lazily kept (untouched) bodies are
    skipped unless `materialize`, since they are still the text LLVM produced. Names
    shared by two values are allowed (the printer tells them apart)."""
    from enzc.ir.verify_globals import body_problems, module_problems

    problems = module_problems(module)
    for fn in module.functions.values():
        if not fn.is_declaration and (fn.is_materialized or materialize):
            problems += check_function(fn, unique_names=False) + body_problems(module, fn)
    if problems:
        raise VerificationError(problems)


def _printed(inst: Instruction, slots) -> str | None:
    """The instruction as the printer spells it, if it can be printed."""
    from enzc.ir.printer import _instruction_text  # late: analysis does not need the printer

    try:
        return _instruction_text(inst, slots)
    except Exception:  # a broken instruction may not print; the short form still identifies it
        return None


def check_function(fn: Function, *, unique_names: bool = True) -> list[str]:
    """All problems found in `fn`, as messages (empty when valid). Without
    `unique_names`, two values may share a name (the printer makes them `x`, `x.1`)."""
    if fn.is_declaration:
        return []
    return _Checker(fn, unique_names).run()


class _Checker:
    def __init__(self, fn: Function, unique_names: bool = True) -> None:
        self.fn = fn
        self.unique_names = unique_names
        self.problems: list[str] = []
        self.blocks = set(fn.blocks)
        self.slots = None

    def ref(self, v: Value) -> str:
        """`v` spelled as the printer would (`%loop`, `%7`)."""
        from enzc.ir.printer import Slots

        if self.slots is None:
            self.slots = Slots(self.fn)
        return self.slots.ref(v)

    def typed(self, v: Value) -> str:
        return self.ref(v) if isinstance(v, BasicBlock) else f"{v.type} {self.ref(v)}"

    def report(self, block: BasicBlock | None, inst: Instruction | None, msg: str) -> None:
        """Record `msg`; the line names the function, block and instruction, and ends
        with the instruction's text when it prints."""
        from enzc.ir.printer import Slots

        if self.slots is None:
            self.slots = Slots(self.fn)
        where = f"@{self.fn.name}"
        if block is not None:
            where += f", block {self.slots.ref(block)}"
        if inst is not None:
            where += f", {describe(inst)}"
        line = f"{where}: {msg}"
        if inst is not None and (text := _printed(inst, self.slots)) is not None:
            line += f" (in `{text.strip()}`)"
        self.problems.append(line)

    def run(self) -> list[str]:
        fn = self.fn
        if not fn.blocks:
            self.report(None, None, "function definition has no blocks")
            return self.problems
        self.check_names()
        structure_ok = all(self.check_block_structure(b) for b in fn.blocks)
        if fn.entry.predecessors:
            self.report(fn.entry, None, "the entry block has predecessors")
        self.records = {id(r) for i in fn.instructions() for r in i.debug_records}
        self.records |= {id(r) for b in fn.blocks for r in b.trailing_debug_records}
        dt = DominatorTree(fn) if structure_ok else None
        for b in fn.blocks:
            self.check_phis(b)
            for inst in b.instructions:
                self.check_operands(b, inst, dt)
                self.check_users(b, inst)
                checker = _TYPE_CHECKS.get(type(inst)) or _base_check(inst)
                if checker is not None:
                    msg = checker(inst, fn)
                    if msg:
                        self.report(b, inst, msg)
            self.check_records(b, None, b.trailing_debug_records)
        return self.problems

    def check_names(self) -> None:
        names = [a.name for a in self.fn.args] + [b.name for b in self.fn.blocks]
        names += [i.name for i in self.fn.instructions()]
        for name, n in Counter(x for x in names if x is not None).items():
            if n > 1 and self.unique_names:
                self.report(None, None, f"local name %{name} is defined {n} times")
        for inst in self.fn.instructions():
            if inst.name is not None and inst.type == VOID:
                self.report(inst.parent, inst, "a void instruction cannot have a name")

    def check_block_structure(self, b: BasicBlock) -> bool:
        ok = True
        if b.parent is not self.fn:
            self.report(b, None, "block's parent is not this function")
        if not b.instructions:
            self.report(b, None, "empty block (every block needs a terminator)")
            return False
        for k, inst in enumerate(b.instructions):
            if inst.parent is not b:
                self.report(b, inst, "instruction's parent is not the block holding it")
            last = k == len(b.instructions) - 1
            if inst.is_terminator and not last:
                self.report(b, inst, "terminator in the middle of the block")
                ok = False
            if last and not inst.is_terminator:
                self.report(b, inst, "block does not end with a terminator")
                ok = False
        seen_non_phi = False
        for inst in b.instructions:
            if isinstance(inst, Phi):
                if seen_non_phi:
                    self.report(b, inst, "phi after a non-phi instruction (phis must start the block)")
            else:
                seen_non_phi = True
        for s in b.successors:
            if not isinstance(s, BasicBlock) or s not in self.blocks:
                self.report(b, b.terminator, "branch target is not a block of this function")
                ok = False
        return ok

    def check_phis(self, b: BasicBlock) -> None:
        phis = [i for i in b.instructions if isinstance(i, Phi)]
        if not phis:
            return
        edges: Counter[BasicBlock] = Counter()
        for p in b.predecessors:
            edges[p] += sum(1 for s in p.successors if s is b)
        for phi in phis:
            if len(phi.operands) % 2:
                self.report(b, phi, "phi has an odd number of operands")
                continue
            if not phi.operands:
                self.report(b, phi, "phi has no incoming values")
                continue
            seen: dict[BasicBlock, Value] = {}
            counts: Counter[BasicBlock] = Counter()
            for v, inc in phi.incoming:
                if not isinstance(inc, BasicBlock):
                    self.report(b, phi, f"incoming block operand {self.typed(inc)} is not a block")
                    continue
                counts[inc] += 1
                if inc in seen and not _same_value(seen[inc], v):
                    self.report(b, phi, f"two different values for predecessor {self.ref(inc)}")
                seen[inc] = v
            for inc, n in counts.items():
                if inc not in edges:
                    self.report(b, phi, f"incoming block {self.ref(inc)} is not a predecessor")
                elif n != edges[inc]:
                    self.report(b, phi, f"{n} entries for predecessor {self.ref(inc)}, which has {edges[inc]} edges here")
            for p in edges:
                if p not in counts:
                    self.report(b, phi, f"no entry for predecessor {self.ref(p)}")

    def check_operands(self, b: BasicBlock, inst: Instruction, dt: DominatorTree | None) -> None:
        for k, (op, use) in enumerate(zip(inst._operands, inst._operand_uses)):
            if op is None:
                self.report(b, inst, f"operand {k} is missing")
                continue
            if use.user is not inst or use.index != k or use not in op.uses:
                self.report(b, inst, f"use list of operand {k} ({self.typed(op)}) does not record this use")
            if foreign := self.foreign(op):
                self.report(b, inst, foreign)
            elif isinstance(op, Instruction) and dt is not None and not dt.dominates(op, use):
                self.report(b, inst, f"operand {self.typed(op)} does not dominate this use")
            elif isinstance(op, BasicBlock) and op not in self.blocks:
                self.report(b, inst, f"block operand {self.typed(op)} is not a block of this function")
        self.check_records(b, inst, inst.debug_records)

    def check_records(self, b: BasicBlock, inst: Instruction | None, records: list[DebugRecord]) -> None:
        """Records name values of this function only (others print as `%<badref>`)."""
        for rec in records:
            for k, (op, use) in enumerate(zip(rec._operands, rec._operand_uses)):
                if use.user is not rec or use.index != k or use not in op.uses:
                    self.report(b, inst, f"debug record operand {k} is not in its value's use list")
                for v in op.operands if isinstance(op, DIArgList) else (op,):
                    if foreign := self.foreign(v):
                        self.report(b, inst, f"debug record #dbg_{rec.kind}: {foreign}")

    def foreign(self, op: Value) -> str | None:
        """Why the local value `op` cannot be used in this function, if it cannot."""
        if isinstance(op, Instruction):
            if op.parent is None:
                return f"operand {self.typed(op)} is not in any block (erased or detached)"
            if op.parent.parent is not self.fn or op.parent not in self.blocks:
                return f"operand {self.typed(op)} is defined in another function"
        elif isinstance(op, Argument) and op.parent is not self.fn:
            return f"argument {self.typed(op)} belongs to another function"
        return None

    def check_users(self, b: BasicBlock, inst: Instruction) -> None:
        for use in inst.uses:
            user = use.user
            if use.index >= len(user._operands) or user._operands[use.index] is not inst:
                self.report(b, inst, "stale entry in the use list (the user no longer has it as operand)")
            elif isinstance(user, DebugRecord):
                if id(user) not in self.records:
                    self.report(b, inst, "used by a debug record that is not attached to any instruction")
            elif isinstance(user, Instruction):
                ub = user.parent
                if ub is None:
                    self.report(b, inst, f"used by a detached instruction ({describe(user)}); drop its operands")
                elif ub.parent is not self.fn or ub not in self.blocks:
                    self.report(b, inst, f"used by {describe(user)} in another function")


# ---------------------------------------------------------------------------
# Type rules, one function per instruction class; each returns a message or None.


def _ref(v: Value) -> str:
    try:
        return v.typed_ref() if not isinstance(v, BasicBlock) else v.ref()
    except ValueError:
        return f"<unnamed {v.type}>"


def _same_value(a: Value, b: Value) -> bool:
    """Identical, or equal constants (the parser makes one object per occurrence)."""
    if a is b:
        return True
    if isinstance(a, Constant) and isinstance(b, Constant) and a.type == b.type:
        try:
            return a.ref() == b.ref()
        except ValueError:
            return False
    return False


def _same_shape(a: Type, b: Type) -> bool:
    """Both scalars, or vectors of the same length."""
    if isinstance(a, VectorType) or isinstance(b, VectorType):
        return isinstance(a, VectorType) and isinstance(b, VectorType) and a.count == b.count
    return True


def _check_binary(inst: BinaryOp, fn: Function) -> str | None:
    lt, rt = inst.lhs.type, inst.rhs.type
    if lt != rt:
        return f"operand types differ: {lt} and {rt}"
    if inst.type != lt:
        return f"result type {inst.type} is not the operand type {lt}"
    if inst.opcode in FP_BINOPS:
        if not isinstance(lt.scalar, FloatType):
            return f"{inst.opcode} needs floating operands, got {lt}"
    elif not isinstance(lt.scalar, IntType):
        return f"{inst.opcode} needs integer operands, got {lt}"
    return None


def _check_unary(inst: UnaryOp, fn: Function) -> str | None:
    if not isinstance(inst.value.type.scalar, FloatType):
        return f"fneg needs a floating operand, got {inst.value.type}"
    return None if inst.type == inst.value.type else "result type differs from the operand type"


def _check_compare(inst: Compare, fn: Function) -> str | None:
    lt, rt = inst.lhs.type, inst.rhs.type
    if lt != rt:
        return f"operand types differ: {lt} and {rt}"
    scalar = lt.scalar
    if inst.opcode == "icmp" and not isinstance(scalar, (IntType, PointerType)):
        return f"icmp needs integer or pointer operands, got {lt}"
    if inst.opcode == "fcmp" and not isinstance(scalar, FloatType):
        return f"fcmp needs floating operands, got {lt}"
    if inst.type.scalar != I1 or not _same_shape(inst.type, lt):
        return f"result type {inst.type} does not match operands {lt}"
    return None


def _check_select(inst: Select, fn: Function) -> str | None:
    ct, tt, ft = inst.condition.type, inst.true_value.type, inst.false_value.type
    if tt != ft:
        return f"arms differ in type: {tt} and {ft}"
    if ct.scalar != I1 or (isinstance(ct, VectorType) and not _same_shape(ct, tt)):
        return f"condition must be i1 (or a vector of i1 matching the arms), got {ct}"
    return None if inst.type == tt else "result type differs from the arms"


_CAST_RULES: dict[str, tuple[type, type, Callable[[Type, Type], bool] | None]] = {
    "trunc": (IntType, IntType, lambda s, d: d.bits < s.bits),  # type: ignore[attr-defined]
    "zext": (IntType, IntType, lambda s, d: d.bits > s.bits),  # type: ignore[attr-defined]
    "sext": (IntType, IntType, lambda s, d: d.bits > s.bits),  # type: ignore[attr-defined]
    "fptrunc": (FloatType, FloatType, lambda s, d: d.bits < s.bits),  # type: ignore[attr-defined]
    "fpext": (FloatType, FloatType, lambda s, d: d.bits > s.bits),  # type: ignore[attr-defined]
    "fptoui": (FloatType, IntType, None),
    "fptosi": (FloatType, IntType, None),
    "uitofp": (IntType, FloatType, None),
    "sitofp": (IntType, FloatType, None),
    "ptrtoint": (PointerType, IntType, None),
    "ptrtoaddr": (PointerType, IntType, None),
    "inttoptr": (IntType, PointerType, None),
    "addrspacecast": (PointerType, PointerType, lambda s, d: s != d),
}
"""Cast opcode → (source scalar class, destination scalar class, size rule)."""


def _check_cast(inst: Cast, fn: Function) -> str | None:
    src, dst = inst.value.type, inst.type
    if inst.opcode == "bitcast":
        if isinstance(src.scalar, PointerType) != isinstance(dst.scalar, PointerType):
            return f"bitcast between pointer and non-pointer ({src} to {dst})"
        if _bits(src) is not None and _bits(dst) is not None and _bits(src) != _bits(dst):
            return f"bitcast changes the size ({src} to {dst})"
        return None
    rule = _CAST_RULES.get(inst.opcode)
    if rule is None:
        return f"unknown cast {inst.opcode}"
    src_cls, dst_cls, size_ok = rule
    if not _same_shape(src, dst):
        return f"{inst.opcode} between different vector shapes ({src} to {dst})"
    if not isinstance(src.scalar, src_cls) or not isinstance(dst.scalar, dst_cls):
        return f"invalid {inst.opcode} from {src} to {dst}"
    if size_ok is not None and not size_ok(src.scalar, dst.scalar):
        return f"invalid {inst.opcode} from {src} to {dst} (sizes)"
    return None


def _bits(t: Type) -> int | None:
    match t:
        case IntType(bits=b):
            return b
        case FloatType():
            return t.bits
        case VectorType(count=n, element=e):
            eb = _bits(e)
            return None if eb is None else n * eb
    return None


def _check_pointer_operand(v: Value, what: str) -> str | None:
    return None if isinstance(v.type.scalar, PointerType) else f"{what} operand must be a pointer, got {v.type}"


def _check_load(inst: Load, fn: Function) -> str | None:
    if not inst.type.is_first_class or inst.type == VOID or not is_sized(inst.type):
        return f"cannot load a value of type {inst.type}"
    return _check_pointer_operand(inst.ptr, "address")


def _check_store(inst: Store, fn: Function) -> str | None:
    if not inst.value.type.is_first_class or inst.value.type == VOID or not is_sized(inst.value.type):
        return f"cannot store a value of type {inst.value.type}"
    return _check_pointer_operand(inst.ptr, "address")


def _check_alloca(inst: Alloca, fn: Function) -> str | None:
    if not is_sized(inst.allocated_type):
        return f"cannot allocate unsized type {inst.allocated_type}"
    if inst.count is not None and not isinstance(inst.count.type, IntType):
        return f"alloca count must be an integer, got {inst.count.type}"
    return None


def _check_gep(inst: GetElementPtr, fn: Function) -> str | None:
    return gep_problem(inst.source_type, inst.ptr, inst.indices, inst.type)


def _walk_indices(t: Type, indices: tuple[int, ...]) -> Type | str:
    for i in indices:
        try:
            count = _aggregate_len(t)
            if i < 0 or (count is not None and i >= count):
                return f"index {i} out of range for {t}"
            t = aggregate_member(t, i)
        except (TypeError, ValueError, IndexError):
            return f"cannot index into {t}"
    return t


def _aggregate_len(t: Type) -> int | None:
    match t:
        case StructType(elements=e):
            return len(e)
        case NamedStructType(elements=e) if e is not None:
            return len(e)
        case ArrayType(count=n):
            return n
    return None


def _check_extractvalue(inst: ExtractValue, fn: Function) -> str | None:
    if isinstance(inst.aggregate.type, VectorType):
        return "extractvalue needs a struct or array operand"
    t = _walk_indices(inst.aggregate.type, inst.indices)
    if isinstance(t, str):
        return t
    return None if t == inst.type else f"result type {inst.type} is not the member type {t}"


def _check_insertvalue(inst: InsertValue, fn: Function) -> str | None:
    t = _walk_indices(inst.aggregate.type, inst.indices)
    if isinstance(t, str):
        return t
    if t != inst.value.type:
        return f"inserted value has type {inst.value.type}, the slot has {t}"
    return None if inst.type == inst.aggregate.type else "result type differs from the aggregate"


def _check_extractelement(inst: ExtractElement, fn: Function) -> str | None:
    vt = inst.vector.type
    if not isinstance(vt, VectorType):
        return f"extractelement of a non-vector {vt}"
    if not isinstance(inst.index.type, IntType):
        return "index must be an integer"
    return None if inst.type == vt.element else "result type is not the element type"


def _check_insertelement(inst: InsertElement, fn: Function) -> str | None:
    vt = inst.vector.type
    if not isinstance(vt, VectorType):
        return f"insertelement into a non-vector {vt}"
    if inst.value.type != vt.element:
        return f"inserted value has type {inst.value.type}, elements are {vt.element}"
    return None if isinstance(inst.index.type, IntType) else "index must be an integer"


def _check_shuffle(inst: ShuffleVector, fn: Function) -> str | None:
    a, b = inst.operand(0).type, inst.operand(1).type
    if a != b or not isinstance(a, VectorType):
        return f"shufflevector needs two vectors of one type, got {a} and {b}"
    return _shuffle_mask_problem(inst.mask, a)


def _shuffle_mask_problem(mask: Value, operand: VectorType) -> str | None:
    """LLVM's ShuffleVectorInst::isValidOperands on the mask: a constant vector of i32
    whose lanes are poison/undef or (unsigned) below twice the operands' lane count;
    `zeroinitializer`, `undef`, `poison` whole, the only masks of scalable vectors."""
    mt = mask.type
    if not (isinstance(mt, VectorType) and isinstance(mt.element, IntType) and mt.element.bits == 32
            and mt.scalable == operand.scalable):
        return f"invalid shufflevector operands: the mask must be a vector of i32, not {mt}"
    if isinstance(mask, ConstantSimple) and mask.keyword in ("undef", "poison", "zeroinitializer"):
        return None
    if isinstance(mask, ConstantSplat) and not mt.scalable:
        lanes = [mask.element]
    elif isinstance(mask, ConstantAggregate) and not mt.scalable:
        lanes = mask.elements
    else:
        return "invalid shufflevector operands: the mask must be a constant"
    for lane in lanes:
        if isinstance(lane, ConstantSimple) and lane.keyword in ("undef", "poison"):
            continue
        if not isinstance(lane, ConstantInt) or lane.unsigned >= 2 * operand.count:
            return f"invalid shufflevector operands: mask lane {lane.ref()} is not below {2 * operand.count}"
    return None


def _check_phi(inst: Phi, fn: Function) -> str | None:
    for v, _ in inst.incoming:
        if v.type != inst.type:
            return f"incoming value {_ref(v)} does not have the phi's type {inst.type}"
    return None


def _check_ret(inst: Ret, fn: Function) -> str | None:
    want = fn.return_type
    v = inst.value
    if want == VOID:
        return None if v is None else "ret with a value in a function returning void"
    if v is None:
        return f"ret without a value in a function returning {want}"
    return None if v.type == want else f"returns {v.type}, the function returns {want}"


def _check_br(inst: Br, fn: Function) -> str | None:
    if len(inst.operands) not in (1, 3):
        return f"br with {len(inst.operands)} operands"
    cond = inst.condition
    if cond is not None and cond.type != I1:
        return f"branch condition must be i1, got {cond.type}"
    return None


def _check_switch(inst: Switch, fn: Function) -> str | None:
    ct = inst.condition.type
    if not isinstance(ct, IntType):
        return f"switch condition must be an integer, got {ct}"
    seen: set[int] = set()
    for v, _ in inst.cases:
        if not isinstance(v, ConstantInt) or v.type != ct:
            return f"case value {_ref(v)} is not a constant of type {ct}"
        if v.value in seen:
            return f"duplicate case value {v.value}"
        seen.add(v.value)
    return None


def _check_call(inst: CallBase, fn: Function) -> str | None:
    ft = inst.function_type
    if not isinstance(inst.callee.type.scalar, PointerType):
        return f"callee must be a pointer, got {inst.callee.type}"
    args = inst.args
    n = len(ft.params)
    if len(args) < n or (len(args) > n and not ft.vararg):
        return f"{len(args)} arguments passed, the function type {ft} takes {n}"
    for k, (p, a) in enumerate(zip(ft.params, args)):
        if a.type != p:
            return f"argument {k} has type {a.type}, the parameter is {p}"
    return None if inst.type == ft.ret else f"result type {inst.type} is not the return type {ft.ret}"


def _check_atomicrmw(inst: AtomicRMW, fn: Function) -> str | None:
    msg = _check_pointer_operand(inst.ptr, "address")
    if msg:
        return msg
    return None if inst.type == inst.value.type else "result type differs from the operand"


def _check_cmpxchg(inst: CmpXchg, fn: Function) -> str | None:
    msg = _check_pointer_operand(inst.operand(0), "address")
    if msg:
        return msg
    e, n = inst.operand(1).type, inst.operand(2).type
    return None if e == n else f"expected and new values differ in type: {e} and {n}"


def _check_freeze(inst: Freeze, fn: Function) -> str | None:
    return None if inst.type == inst.value.type else "result type differs from the operand"


_TYPE_CHECKS: dict[type, Callable] = {
    BinaryOp: _check_binary,
    UnaryOp: _check_unary,
    Compare: _check_compare,
    Select: _check_select,
    Cast: _check_cast,
    Load: _check_load,
    Store: _check_store,
    Alloca: _check_alloca,
    GetElementPtr: _check_gep,
    ExtractValue: _check_extractvalue,
    InsertValue: _check_insertvalue,
    ExtractElement: _check_extractelement,
    InsertElement: _check_insertelement,
    ShuffleVector: _check_shuffle,
    Phi: _check_phi,
    Ret: _check_ret,
    Br: _check_br,
    Switch: _check_switch,
    AtomicRMW: _check_atomicrmw,
    CmpXchg: _check_cmpxchg,
    Freeze: _check_freeze,
}
"""Instruction class → type rule (exact class; subclasses found via `_base_check`)."""


def _base_check(inst: Instruction) -> Callable | None:
    if isinstance(inst, CallBase):
        return _check_call
    for cls in type(inst).__mro__[1:]:
        if cls in _TYPE_CHECKS:
            return _TYPE_CHECKS[cls]
    return None
