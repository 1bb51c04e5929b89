"""IRBuilder: create instructions at an insertion point, with unique names.

The insertion point is a block plus an optional instruction to insert before
(None: append at the end). Positioning helpers are context managers that restore
the previous position, which makes emitting code into several blocks (e.g. the
reverse blocks of a gradient) read top to bottom:

    b = IRBuilder(fn.entry)
    with b.if_then(b.icmp("slt", x, b.const_i64(0))):
        b.store(b.const_double(0.0), p)

Names: every named value gets a name unique in its function, `x`, `x.1`, ...
(LLVM's scheme). An empty name leaves the value unnamed (numbered when printed).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Sequence

from enzc.ir.instructions import Alloca, AtomicRMW, BinaryOp, Br, Call, Cast, CmpXchg, Compare, ExtractElement
from enzc.ir.instructions import ExtractValue, Fence, Freeze, GetElementPtr, InsertElement, InsertValue, Instruction
from enzc.ir.instructions import Invoke, Load, Phi, Resume, Ret, Select, ShuffleVector, Store, Switch, UnaryOp
from enzc.ir.instructions import Unreachable, VAArg
from enzc.ir.local_names import forget_names, fresh_local_name, new_block  # noqa: F401 - the builder's API too
from enzc.ir.metadata import Metadata
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.types import DOUBLE, FLOAT, I1, I32, I64, VOID, FloatType, FunctionType, IntType, NamedStructType
from enzc.ir.types import PointerType, StructType, Type, VectorType, aggregate_member
from enzc.ir.values import ConstantAggregate, ConstantFP, ConstantInt, ConstantSimple, Value, const_fp, null, poison
from enzc.ir.values import undef, zeroinitializer


def get_or_insert_function(module: Module, name: str, fn_type: FunctionType) -> Function:
    """The function `@name` of `module`, declared with `fn_type` if missing.

    For library and intrinsic declarations (`malloc`, `llvm.fabs.f64`). An existing
    function of another type is an error: calls through it would be miscompiled.
    """
    fn = module.get_function(name)
    if fn is not None:
        if fn.function_type != fn_type:
            raise ValueError(f"@{name} exists with type {fn.function_type}, wanted {fn_type}")
        return fn
    if module.get_global(name) is not None:
        raise ValueError(f"@{name} exists and is not a function")
    return module.add_function(name, fn_type, unique=False)


# ---------------------------------------------------------------------------


INT_BINOPS = ("add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor")
FP_BINOPS = ("fadd", "fsub", "fmul", "fdiv", "frem")
CASTS = ("trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
         "ptrtoint", "ptrtoaddr", "inttoptr", "bitcast", "addrspacecast")


class IRBuilder:
    """Creates instructions at an insertion point; see the module docstring."""

    def __init__(self, block: BasicBlock | None = None) -> None:
        self.block: BasicBlock | None = None
        """Block receiving new instructions."""
        self.before: Instruction | None = None
        """Insert before this instruction; None: at the end of `block`."""
        self.debug_location: Metadata | None = None
        """`!dbg` attached to every new instruction when set."""
        if block is not None:
            self.position_at_end(block)

    # -- position ----------------------------------------------------------------------
    @property
    def function(self) -> Function:
        assert self.block is not None and self.block.parent is not None, "builder is not positioned"
        return self.block.parent

    def position_at_end(self, block: BasicBlock) -> None:
        self.block, self.before = block, None

    def position_at_start(self, block: BasicBlock) -> None:
        self.block = block
        self.before = block.instructions[0] if block.instructions else None

    def position_after_phis(self, block: BasicBlock) -> None:
        self.block, self.before = block, block.first_non_phi

    def position_before(self, inst: Instruction) -> None:
        assert inst.parent is not None, "instruction is not in a block"
        self.block, self.before = inst.parent, inst

    def position_after(self, inst: Instruction) -> None:
        """Just after `inst`; for an `invoke`, at the start of its normal successor,
        the first place its result is defined (which must be entered only from it)."""
        block = inst.parent
        assert block is not None, "instruction is not in a block"
        if isinstance(inst, Invoke):
            normal = inst.normal_dest
            if normal.predecessors != [block]:
                raise ValueError("an invoke's result has no single place after it: its normal successor "
                                 "is entered from other blocks too")
            self.position_after_phis(normal)
            return
        i = block.index_of(inst)
        self.block = block
        self.before = block.instructions[i + 1] if i + 1 < len(block.instructions) else None

    def position_before_terminator(self, block: BasicBlock) -> None:
        """Before the terminator if there is one, else at the end."""
        self.block, self.before = block, block.terminator

    @contextmanager
    def _saved(self) -> Iterator[None]:
        saved = (self.block, self.before, self.debug_location)
        try:
            yield
        finally:
            self.block, self.before, self.debug_location = saved

    @contextmanager
    def goto_block(self, block: BasicBlock) -> Iterator[None]:
        """Temporarily insert into `block`, before its terminator if it has one."""
        with self._saved():
            self.position_before_terminator(block)
            yield

    @contextmanager
    def goto_before(self, inst: Instruction) -> Iterator[None]:
        with self._saved():
            self.position_before(inst)
            yield

    @contextmanager
    def goto_after(self, inst: Instruction) -> Iterator[None]:
        with self._saved():
            self.position_after(inst)
            yield

    @contextmanager
    def goto_entry_allocas(self) -> Iterator[None]:
        """Temporarily insert at the start of the entry block, after its allocas
        (where shadow allocations belong: static allocas must stay in the entry)."""
        entry = self.function.entry
        with self._saved():
            self.block = entry
            self.before = next((i for i in entry.instructions if not isinstance(i, (Alloca, Phi))), None)
            yield

    def copy_debug_location(self, inst: Instruction) -> None:
        """Give new instructions the `!dbg` location of `inst` (None clears it)."""
        self.debug_location = inst.metadata.get("dbg")

    # -- blocks ------------------------------------------------------------------------
    def append_block(self, name: str = "") -> BasicBlock:
        """A new block at the end of the current function."""
        return new_block(self.function, name)

    def insert_block_after(self, after: BasicBlock, name: str = "") -> BasicBlock:
        return new_block(self.function, name, after)

    # -- insertion ---------------------------------------------------------------------
    def insert(self, inst: Instruction, name: str = "") -> Instruction:
        """Place `inst` at the insertion point, naming it uniquely when `name` is given."""
        block = self.block
        assert block is not None, "builder is not positioned"
        fn = block.parent
        if name and inst.type != VOID and fn is not None:
            inst.name = fresh_local_name(fn, name)
        if self.before is not None:
            inst.insert_before(self.before)
        else:
            block.append(inst)
        if self.debug_location is not None and "dbg" not in inst.metadata:
            inst.metadata["dbg"] = self.debug_location
        return inst

    # -- arithmetic --------------------------------------------------------------------
    def binop(self, opcode: str, lhs: Value, rhs: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        """Any binary operator by opcode (`add`, `fmul`, ...), with `nsw`/fast-math flags."""
        if lhs.type != rhs.type:
            raise TypeError(f"{opcode} operands differ in type: {lhs.type} and {rhs.type}")
        want_float = opcode in FP_BINOPS
        if opcode not in INT_BINOPS and not want_float:
            raise ValueError(f"unknown binary operator {opcode}")
        scalar = lhs.type.scalar
        if want_float != isinstance(scalar, FloatType) or (not want_float and not isinstance(scalar, IntType)):
            raise TypeError(f"{opcode} on {lhs.type}")
        return self.insert(BinaryOp(opcode, lhs, rhs, flags), name)

    def add(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("add", a, b, name, flags)

    def sub(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("sub", a, b, name, flags)

    def mul(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("mul", a, b, name, flags)

    def udiv(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("udiv", a, b, name, flags)

    def sdiv(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("sdiv", a, b, name, flags)

    def urem(self, a: Value, b: Value, name: str = "") -> Instruction:
        return self.binop("urem", a, b, name)

    def srem(self, a: Value, b: Value, name: str = "") -> Instruction:
        return self.binop("srem", a, b, name)

    def shl(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("shl", a, b, name, flags)

    def lshr(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("lshr", a, b, name, flags)

    def ashr(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("ashr", a, b, name, flags)

    def and_(self, a: Value, b: Value, name: str = "") -> Instruction:
        return self.binop("and", a, b, name)

    def or_(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("or", a, b, name, flags)

    def xor(self, a: Value, b: Value, name: str = "") -> Instruction:
        return self.binop("xor", a, b, name)

    def fadd(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("fadd", a, b, name, flags)

    def fsub(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("fsub", a, b, name, flags)

    def fmul(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("fmul", a, b, name, flags)

    def fdiv(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("fdiv", a, b, name, flags)

    def frem(self, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.binop("frem", a, b, name, flags)

    def fneg(self, a: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        if not a.type.is_fp_or_fp_vector:
            raise TypeError(f"fneg on {a.type}")
        return self.insert(UnaryOp("fneg", a, flags), name)

    def neg(self, a: Value, name: str = "") -> Instruction:
        """Integer negation as `sub 0, a`."""
        return self.sub(zeroinitializer(a.type) if isinstance(a.type, VectorType) else ConstantInt(a.type, 0), a, name)  # type: ignore[arg-type]

    def not_(self, a: Value, name: str = "") -> Instruction:
        """Bitwise not as `xor a, -1`."""
        return self.xor(a, ConstantInt(a.type, -1), name)  # type: ignore[arg-type]

    # -- casts and comparisons ---------------------------------------------------------
    def cast(self, opcode: str, value: Value, to: Type, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        if opcode not in CASTS:
            raise ValueError(f"unknown cast {opcode}")
        return self.insert(Cast(opcode, value, to, flags), name)

    def trunc(self, v: Value, to: Type, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.cast("trunc", v, to, name, flags)

    def zext(self, v: Value, to: Type, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.cast("zext", v, to, name, flags)

    def sext(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("sext", v, to, name)

    def fptrunc(self, v: Value, to: Type, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.cast("fptrunc", v, to, name, flags)

    def fpext(self, v: Value, to: Type, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.cast("fpext", v, to, name, flags)

    def fptoui(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("fptoui", v, to, name)

    def fptosi(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("fptosi", v, to, name)

    def uitofp(self, v: Value, to: Type, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        return self.cast("uitofp", v, to, name, flags)

    def sitofp(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("sitofp", v, to, name)

    def ptrtoint(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("ptrtoint", v, to, name)

    def inttoptr(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("inttoptr", v, to, name)

    def bitcast(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("bitcast", v, to, name)

    def addrspacecast(self, v: Value, to: Type, name: str = "") -> Instruction:
        return self.cast("addrspacecast", v, to, name)

    def icmp(self, predicate: str, lhs: Value, rhs: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        """`icmp` with an LLVM predicate: eq ne ugt uge ult ule sgt sge slt sle."""
        if predicate not in ICMP_PREDICATES:
            raise ValueError(f"unknown icmp predicate {predicate}")
        if lhs.type != rhs.type:
            raise TypeError(f"icmp operands differ in type: {lhs.type} and {rhs.type}")
        return self.insert(Compare("icmp", predicate, lhs, rhs, flags), name)

    def fcmp(self, predicate: str, lhs: Value, rhs: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        """`fcmp` with an LLVM predicate: oeq ogt ... uno, true, false."""
        if predicate not in FCMP_PREDICATES:
            raise ValueError(f"unknown fcmp predicate {predicate}")
        if lhs.type != rhs.type:
            raise TypeError(f"fcmp operands differ in type: {lhs.type} and {rhs.type}")
        return self.insert(Compare("fcmp", predicate, lhs, rhs, flags), name)

    def select(self, cond: Value, a: Value, b: Value, name: str = "", flags: tuple[str, ...] = ()) -> Instruction:
        if a.type != b.type:
            raise TypeError(f"select arms differ in type: {a.type} and {b.type}")
        return self.insert(Select(cond, a, b, flags), name)

    def freeze(self, v: Value, name: str = "") -> Instruction:
        return self.insert(Freeze(v), name)

    def phi(self, type: Type, incoming: Sequence[tuple[Value, BasicBlock]] = (), name: str = "") -> Phi:
        """A phi; with the default position rules it goes where the builder points,
        so position after the existing phis (`position_after_phis`) first."""
        return self.insert(Phi(type, list(incoming)), name)  # type: ignore[return-value]

    # -- memory ------------------------------------------------------------------------
    def alloca(self, type: Type, count: Value | None = None, name: str = "", align: int | None = None) -> Instruction:
        return self.insert(Alloca(type, count, align), name)

    def load(self, type: Type, ptr: Value, name: str = "", align: int | None = None, volatile: bool = False,
             ordering: str | None = None) -> Instruction:
        return self.insert(Load(type, ptr, align, volatile, ordering), name)

    def store(self, value: Value, ptr: Value, align: int | None = None, volatile: bool = False,
              ordering: str | None = None) -> Instruction:
        return self.insert(Store(value, ptr, align, volatile, ordering))

    def gep(self, source_type: Type, ptr: Value, indices: Sequence[Value | int], name: str = "",
            inbounds: bool = False, flags: tuple[str, ...] = ()) -> Instruction:
        """`getelementptr`; int indices become i64 constants, or i32 inside structs."""
        vals: list[Value] = []
        current: Type | None = None
        vector_count = ptr.type.count if isinstance(ptr.type, VectorType) else None
        for k, idx in enumerate(indices):
            if isinstance(idx, int):
                in_struct = isinstance(current, (StructType, NamedStructType))
                idx = ConstantInt(I32 if in_struct else I64, idx)
            if isinstance(idx.type, VectorType):
                vector_count = idx.type.count
            vals.append(idx)
            current = source_type if k == 0 else _member(current, idx)
        all_flags = (("inbounds",) if inbounds and "inbounds" not in flags else ()) + tuple(flags)
        result = VectorType(vector_count, PointerType(_addrspace(ptr.type))) if vector_count is not None else None
        return self.insert(GetElementPtr(source_type, ptr, vals, all_flags, result_type=result), name)

    def struct_gep(self, struct_type: Type, ptr: Value, field: int, name: str = "") -> Instruction:
        """Address of field `field` of the struct at `ptr` (`gep inbounds T, ptr, i32 0, i32 field`)."""
        return self.gep(struct_type, ptr, [0, field], name, inbounds=True)

    def atomic_rmw(self, operation: str, ptr: Value, value: Value, ordering: str = "seq_cst", name: str = "",
                   align: int | None = None, syncscope: str | None = None) -> Instruction:
        return self.insert(AtomicRMW(operation, ptr, value, ordering, syncscope=syncscope, align=align), name)

    def cmpxchg(self, ptr: Value, expected: Value, new: Value, success: str = "seq_cst", failure: str = "seq_cst",
                name: str = "", weak: bool = False, align: int | None = None) -> Instruction:
        return self.insert(CmpXchg(ptr, expected, new, success, failure, weak=weak, align=align), name)

    def fence(self, ordering: str = "seq_cst", syncscope: str | None = None) -> Instruction:
        return self.insert(Fence(ordering, syncscope))

    def va_arg(self, valist: Value, type: Type, name: str = "") -> Instruction:
        return self.insert(VAArg(valist, type), name)

    # -- aggregates and vectors --------------------------------------------------------
    def extract_value(self, agg: Value, indices: int | Sequence[int], name: str = "") -> Instruction:
        idx = (indices,) if isinstance(indices, int) else tuple(indices)
        t = agg.type
        for i in idx:
            t = aggregate_member(t, i)
        return self.insert(ExtractValue(agg, idx, t), name)

    def insert_value(self, agg: Value, value: Value, indices: int | Sequence[int], name: str = "") -> Instruction:
        idx = (indices,) if isinstance(indices, int) else tuple(indices)
        t = agg.type
        for i in idx:
            t = aggregate_member(t, i)
        if t != value.type:
            raise TypeError(f"insertvalue of {value.type} into a slot of type {t}")
        return self.insert(InsertValue(agg, value, idx), name)

    def extract_element(self, vec: Value, index: Value | int, name: str = "") -> Instruction:
        return self.insert(ExtractElement(vec, _index(index)), name)

    def insert_element(self, vec: Value, value: Value, index: Value | int, name: str = "") -> Instruction:
        return self.insert(InsertElement(vec, value, _index(index)), name)

    def shuffle_vector(self, a: Value, b: Value, mask: Value | Sequence[int], name: str = "") -> Instruction:
        """`mask` may be a list of lane numbers; -1 is a poison lane."""
        if not isinstance(mask, Value):
            lanes: list[Value] = [poison(I32) if m < 0 else ConstantInt(I32, m) for m in mask]
            mask = ConstantAggregate(VectorType(len(lanes), I32), lanes)
        return self.insert(ShuffleVector(a, b, mask), name)

    # -- calls -------------------------------------------------------------------------
    def call(self, callee: Value, args: Sequence[Value], name: str = "", fn_type: FunctionType | None = None,
             tail: str | None = None, flags: tuple[str, ...] = (), fn_attrs: tuple[str, ...] = ()) -> Instruction:
        """Call a `Function` (type taken from it) or any pointer with `fn_type`."""
        ftype = _callee_type(callee, fn_type)
        _check_args(ftype, args)
        call = Call(ftype, callee, list(args), tail=tail, flags=flags, fn_attrs=fn_attrs, explicit_type=ftype.vararg)
        return self.insert(call, name)

    def invoke(self, callee: Value, args: Sequence[Value], normal: BasicBlock, unwind: BasicBlock, name: str = "",
               fn_type: FunctionType | None = None) -> Instruction:
        ftype = _callee_type(callee, fn_type)
        _check_args(ftype, args)
        return self.insert(Invoke(ftype, callee, list(args), normal, unwind, explicit_type=ftype.vararg), name)

    # -- terminators -------------------------------------------------------------------
    def br(self, target: BasicBlock) -> Instruction:
        return self.insert(Br(target))

    def cond_br(self, cond: Value, if_true: BasicBlock, if_false: BasicBlock) -> Instruction:
        return self.insert(Br(cond, if_true, if_false))

    def switch(self, value: Value, default: BasicBlock, cases: Sequence[tuple[Value | int, BasicBlock]] = ()) -> Switch:
        """`switch`; int case values become constants of the condition's type."""
        pairs = [(ConstantInt(value.type, v) if isinstance(v, int) else v, bb) for v, bb in cases]  # type: ignore[arg-type]
        return self.insert(Switch(value, default, pairs))  # type: ignore[return-value]

    def ret(self, value: Value | None = None) -> Instruction:
        return self.insert(Ret(value))

    def ret_void(self) -> Instruction:
        return self.insert(Ret())

    def unreachable(self) -> Instruction:
        return self.insert(Unreachable())

    def resume(self, value: Value) -> Instruction:
        return self.insert(Resume(value))

    # -- structured control flow -------------------------------------------------------
    def _split_here(self, tail_name: str) -> BasicBlock:
        """End the current block at the insertion point with `br` to a new tail block
        holding whatever came after; returns the tail."""
        from enzc.ir.transforms import split_block  # transforms imports this module

        block = self.block
        assert block is not None, "builder is not positioned"
        if self.before is not None:
            tail = split_block(block, self.before, tail_name)
        else:
            tail = self.insert_block_after(block, tail_name)
            self.insert(Br(tail))
        return tail

    def _branch_to(self, target: BasicBlock) -> None:
        assert self.block is not None
        if self.block.terminator is None:
            self.position_at_end(self.block)
            self.br(target)

    @contextmanager
    def if_then(self, cond: Value) -> Iterator[BasicBlock]:
        """Code in the `with` body runs only when `cond` is true.

        Splits the current block at the insertion point; afterwards the builder
        points where it pointed before, now in the tail (`.endif`) block.
        """
        block = self.block
        assert block is not None, "builder is not positioned"
        base = block.name or "bb"
        tail = self._split_here(f"{base}.endif")
        then = self.insert_block_after(block, f"{base}.if")
        _retarget_end(block, Br(cond, then, tail))
        self.position_at_end(then)
        yield then
        self._branch_to(tail)
        self.position_at_start(tail)

    @contextmanager
    def if_else(self, cond: Value) -> Iterator[tuple]:
        """`with b.if_else(c) as (then, otherwise): with then: ...; with otherwise: ...`."""
        block = self.block
        assert block is not None, "builder is not positioned"
        base = block.name or "bb"
        tail = self._split_here(f"{base}.endif")
        then = self.insert_block_after(block, f"{base}.if")
        other = self.insert_block_after(then, f"{base}.else")
        _retarget_end(block, Br(cond, then, other))

        @contextmanager
        def arm(bb: BasicBlock) -> Iterator[BasicBlock]:
            self.position_at_end(bb)
            yield bb
            self._branch_to(tail)

        yield arm(then), arm(other)
        for bb in (then, other):
            if bb.terminator is None:
                with self.goto_block(bb):
                    self.br(tail)
        self.position_at_start(tail)

    # -- constants ---------------------------------------------------------------------
    @staticmethod
    def const_int(type: IntType, value: int) -> ConstantInt:
        return ConstantInt(type, value)

    @staticmethod
    def const_i1(value: bool) -> ConstantInt:
        return ConstantInt(I1, int(value))

    @staticmethod
    def const_i32(value: int) -> ConstantInt:
        return ConstantInt(I32, value)

    @staticmethod
    def const_i64(value: int) -> ConstantInt:
        return ConstantInt(I64, value)

    @staticmethod
    def const_fp(type: Type, value: float) -> Value:
        """A float constant, or a splat for a vector type."""
        return const_fp(type, value)

    @staticmethod
    def const_double(value: float) -> ConstantFP:
        return ConstantFP(DOUBLE, value)

    @staticmethod
    def const_float(value: float) -> ConstantFP:
        return ConstantFP(FLOAT, value)

    @staticmethod
    def const_null(type: Type = PointerType()) -> ConstantSimple:
        return null(type)

    @staticmethod
    def const_zero(type: Type) -> Value:
        """The zero of any type: 0, 0.0, null or zeroinitializer."""
        match type:
            case IntType():
                return ConstantInt(type, 0)
            case FloatType():
                return ConstantFP(type, 0.0)
            case PointerType():
                return null(type)
        return zeroinitializer(type)

    @staticmethod
    def const_undef(type: Type) -> ConstantSimple:
        return undef(type)

    @staticmethod
    def const_poison(type: Type) -> ConstantSimple:
        return poison(type)


ICMP_PREDICATES = ("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle")
FCMP_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                   "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true")

def _retarget_end(block: BasicBlock, new_term: Instruction) -> None:
    """Replace `block`'s terminator (the `br` a split just added) with `new_term`."""
    old = block.terminator
    assert old is not None
    new_term.metadata.update(old.metadata)
    new_term.insert_before(old)
    old.erase()


def _member(t: Type | None, idx: Value) -> Type:
    if isinstance(t, (StructType, NamedStructType)):
        if not isinstance(idx, ConstantInt):
            raise TypeError(f"struct index into {t} must be a constant")
        return aggregate_member(t, idx.value)
    assert t is not None
    return aggregate_member(t, 0)


def _addrspace(t: Type) -> int:
    t = t.scalar
    return t.addrspace if isinstance(t, PointerType) else 0


def _index(index: Value | int) -> Value:
    return ConstantInt(I64, index) if isinstance(index, int) else index


def _callee_type(callee: Value, fn_type: FunctionType | None) -> FunctionType:
    if fn_type is not None:
        return fn_type
    if isinstance(callee, Function):
        return callee.function_type
    raise TypeError("calling a value that is not a Function needs fn_type")


def _check_args(ftype: FunctionType, args: Sequence[Value]) -> None:
    n = len(ftype.params)
    if len(args) < n or (len(args) > n and not ftype.vararg):
        raise TypeError(f"call of {ftype} with {len(args)} arguments")
    for i, (p, a) in enumerate(zip(ftype.params, args)):
        if p != a.type:
            raise TypeError(f"call argument {i} has type {a.type}, the callee expects {p}")
