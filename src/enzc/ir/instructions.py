"""Every LLVM 22 instruction as a concrete class over one operand list.

Operands (including successor blocks, phi incoming blocks and the callee of a call)
live in `User.operands`, so use lists see all of them and `replace_all_uses_with`
on a block retargets branches and phis. Non-value details (flags, alignment,
predicates, attributes) are plain fields. Flags are kept as strings in the order
parsed: `nuw nsw exact disjoint nneg samesign inbounds` and fast-math flags
`fast nnan ninf nsz arcp contract afn reassoc`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enzc.ir.types import I1, TOKEN, VOID, FunctionType, Type, VectorType
from enzc.ir.values import LocalValue, User, Value

if TYPE_CHECKING:
    from enzc.ir.metadata import Metadata
    from enzc.ir.module import BasicBlock


FAST_MATH_FLAGS = ("fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc")


class Instruction(User, LocalValue):
    """Base: an operation in a basic block. Void-typed instructions have no name."""

    opcode: str = ""

    def __init__(self, type: Type, operands: list[Value] = (), name: str | None = None) -> None:  # type: ignore[assignment]
        super().__init__(type, operands, name)
        self.parent: BasicBlock | None = None
        self.metadata: dict[str, Metadata] = {}
        """Attachments by kind without `!` (`dbg`, `tbaa`, `prof`, ...)."""
        self.debug_records: list[DebugRecord] = []
        """`#dbg_*` records printed on the lines before this instruction."""

    def __str__(self) -> str:
        from enzc.ir.printer import print_instruction

        return print_instruction(self)

    # -- position -----------------------------------------------------------------
    @property
    def function(self):  # -> Function | None
        return self.parent.parent if self.parent is not None else None

    @property
    def is_terminator(self) -> bool:
        return False

    def insert_before(self, other: Instruction) -> None:
        """Insert this (detached) instruction right before `other`."""
        block = other.parent
        assert block is not None and self.parent is None
        block.instructions.insert(block.index_of(other), self)
        self.parent = block

    def insert_after(self, other: Instruction) -> None:
        block = other.parent
        assert block is not None and self.parent is None
        block.instructions.insert(block.index_of(other) + 1, self)
        self.parent = block

    def remove_from_parent(self) -> None:
        """Detach from its block, keeping operands (to insert elsewhere)."""
        if self.parent is not None:
            self.parent.instructions.remove(self)
            self.parent = None

    def erase(self) -> None:
        """Detach and drop operands (no uses may remain); its debug records pass to the next one."""
        if self.uses:
            raise ValueError(f"cannot erase {self.opcode} that still has {len(self.uses)} uses")
        if self.debug_records and self.parent is not None:
            self.parent.pass_records_on(self)
        self.remove_from_parent()
        self.drop_operands()
        for rec in self.debug_records:
            rec.drop_operands()
        self.debug_records = []

    @property
    def successors(self) -> list[BasicBlock]:
        return []

    @property
    def fast_math(self) -> tuple[str, ...]:
        return tuple(f for f in getattr(self, "flags", ()) if f in FAST_MATH_FLAGS)


class DebugRecord(User):
    """`#dbg_value(...)`, `#dbg_declare(...)`, `#dbg_assign(...)`, `#dbg_label(...)`.

    `args` are its operands in order; value-carrying ones are `MetadataOperand`s
    whose uses are tracked, the rest metadata kept as text via `MDRaw`/`MDRef`.
    """

    def __init__(self, kind: str, args: list[Value]) -> None:
        super().__init__(VOID, args)
        self.kind = kind
        """value, declare, assign or label."""


class DIArgList(User):
    """`!DIArgList(ptr %a, i64 %b)` in a debug record; its values are tracked operands,
    so replacing or erasing them updates the record like any other use."""

    def __init__(self, args: list[Value]) -> None:
        from enzc.ir.types import METADATA

        super().__init__(METADATA, args)

    def ref(self) -> str:
        return "!DIArgList(" + ", ".join(a.typed_ref() for a in self.operands) + ")"

    def typed_ref(self) -> str:
        return self.ref()


# ---- arithmetic ------------------------------------------------------------------


class BinaryOp(Instruction):
    def __init__(self, opcode: str, lhs: Value, rhs: Value, flags: tuple[str, ...] = (), name: str | None = None) -> None:
        super().__init__(lhs.type, [lhs, rhs], name)
        self.opcode = opcode
        self.flags = flags

    lhs = property(lambda self: self.operand(0))
    rhs = property(lambda self: self.operand(1))


class UnaryOp(Instruction):
    """`fneg` — LLVM's only unary operator."""

    def __init__(self, opcode: str, value: Value, flags: tuple[str, ...] = (), name: str | None = None) -> None:
        super().__init__(value.type, [value], name)
        self.opcode = opcode
        self.flags = flags

    value = property(lambda self: self.operand(0))


class Cast(Instruction):
    """trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint ptrtoaddr
    inttoptr bitcast addrspacecast."""

    def __init__(self, opcode: str, value: Value, to: Type, flags: tuple[str, ...] = (), name: str | None = None) -> None:
        super().__init__(to, [value], name)
        self.opcode = opcode
        self.flags = flags

    value = property(lambda self: self.operand(0))


class Compare(Instruction):
    """`icmp` or `fcmp` with a predicate (`slt`, `oeq`, ...)."""

    def __init__(self, opcode: str, predicate: str, lhs: Value, rhs: Value, flags: tuple[str, ...] = (), name: str | None = None) -> None:
        rtype: Type = VectorType(lhs.type.count, I1, lhs.type.scalable) if isinstance(lhs.type, VectorType) else I1
        super().__init__(rtype, [lhs, rhs], name)
        self.opcode = opcode
        self.predicate = predicate
        self.flags = flags

    lhs = property(lambda self: self.operand(0))
    rhs = property(lambda self: self.operand(1))


INVERSE_PREDICATE = {"eq": "ne", "ne": "eq", "slt": "sge", "sge": "slt", "sgt": "sle", "sle": "sgt",
                     "ult": "uge", "uge": "ult", "ugt": "ule", "ule": "ugt"}
"""The `icmp` predicate that holds exactly where this one does not."""
SWAPPED_PREDICATE = {"eq": "eq", "ne": "ne", "slt": "sgt", "sgt": "slt", "sle": "sge", "sge": "sle",
                     "ult": "ugt", "ugt": "ult", "ule": "uge", "uge": "ule"}
"""The `icmp` predicate of the same test with its operands swapped."""


class Select(Instruction):
    opcode = "select"

    def __init__(self, cond: Value, true_value: Value, false_value: Value, flags: tuple[str, ...] = (), name: str | None = None) -> None:
        super().__init__(true_value.type, [cond, true_value, false_value], name)
        self.flags = flags

    condition = property(lambda self: self.operand(0))
    true_value = property(lambda self: self.operand(1))
    false_value = property(lambda self: self.operand(2))


class Freeze(Instruction):
    opcode = "freeze"

    def __init__(self, value: Value, name: str | None = None) -> None:
        super().__init__(value.type, [value], name)

    value = property(lambda self: self.operand(0))


class Phi(Instruction):
    """Operands alternate value, block: [v0, b0, v1, b1, ...]."""

    opcode = "phi"

    def __init__(self, type: Type, incoming: list[tuple[Value, BasicBlock]] = (), flags: tuple[str, ...] = (), name: str | None = None) -> None:  # type: ignore[assignment]
        super().__init__(type, [x for pair in incoming for x in pair], name)
        self.flags = flags

    @property
    def incoming(self) -> list[tuple[Value, BasicBlock]]:
        ops = self._operands
        return [(ops[i], ops[i + 1]) for i in range(0, len(ops), 2)]  # type: ignore[misc]

    def add_incoming(self, value: Value, block: BasicBlock) -> None:
        self.append_operand(value)
        self.append_operand(block)

    def incoming_value_for(self, block: BasicBlock) -> Value:
        for v, b in self.incoming:
            if b is block:
                return v
        raise KeyError(f"phi has no incoming edge from {block.name}")

    def remove_incoming(self, block: BasicBlock) -> None:
        pairs = [(v, b) for v, b in self.incoming if b is not block]
        self.set_operands([x for pair in pairs for x in pair])


# ---- memory ----------------------------------------------------------------------


class Alloca(Instruction):
    opcode = "alloca"

    def __init__(self, allocated_type: Type, count: Value | None = None, align: int | None = None,
                 addrspace: int = 0, flags: tuple[str, ...] = (), name: str | None = None) -> None:
        from enzc.ir.types import PointerType

        super().__init__(PointerType(addrspace), [count] if count is not None else [], name)
        self.allocated_type = allocated_type
        self.align = align
        self.flags = flags
        """`inalloca`, `swifterror`."""

    @property
    def count(self) -> Value | None:
        return self.operand(0) if self.operands else None


class Load(Instruction):
    opcode = "load"

    def __init__(self, type: Type, ptr: Value, align: int | None = None, volatile: bool = False,
                 ordering: str | None = None, syncscope: str | None = None, name: str | None = None) -> None:
        super().__init__(type, [ptr], name)
        self.align = align
        self.volatile = volatile
        self.ordering = ordering
        """Atomic ordering (`monotonic`, `acquire`, `seq_cst`, ...) for `load atomic`."""
        self.syncscope = syncscope

    ptr = property(lambda self: self.operand(0))


class Store(Instruction):
    opcode = "store"

    def __init__(self, value: Value, ptr: Value, align: int | None = None, volatile: bool = False,
                 ordering: str | None = None, syncscope: str | None = None) -> None:
        super().__init__(VOID, [value, ptr])
        self.align = align
        self.volatile = volatile
        self.ordering = ordering
        self.syncscope = syncscope

    value = property(lambda self: self.operand(0))
    ptr = property(lambda self: self.operand(1))


class GetElementPtr(Instruction):
    opcode = "getelementptr"

    def __init__(self, source_type: Type, ptr: Value, indices: list[Value], flags: tuple[str, ...] = (),
                 name: str | None = None, result_type: Type | None = None) -> None:
        super().__init__(result_type or ptr.type, [ptr, *indices], name)
        self.source_type = source_type
        self.flags = flags
        """`inbounds`, `nusw`, `nuw`, `inrange(a,b)`."""

    ptr = property(lambda self: self.operand(0))

    @property
    def indices(self) -> tuple[Value, ...]:
        return self.operands[1:]


class AtomicRMW(Instruction):
    opcode = "atomicrmw"

    def __init__(self, operation: str, ptr: Value, value: Value, ordering: str, volatile: bool = False,
                 syncscope: str | None = None, align: int | None = None, name: str | None = None) -> None:
        super().__init__(value.type, [ptr, value], name)
        self.operation = operation
        """xchg add sub and nand or xor max min umax umin fadd fsub fmax fmin ..."""
        self.ordering = ordering
        self.volatile = volatile
        self.syncscope = syncscope
        self.align = align

    ptr = property(lambda self: self.operand(0))
    value = property(lambda self: self.operand(1))


class CmpXchg(Instruction):
    opcode = "cmpxchg"

    def __init__(self, ptr: Value, expected: Value, new: Value, success_ordering: str, failure_ordering: str,
                 weak: bool = False, volatile: bool = False, syncscope: str | None = None,
                 align: int | None = None, name: str | None = None) -> None:
        from enzc.ir.types import StructType

        super().__init__(StructType((expected.type, I1)), [ptr, expected, new], name)
        self.success_ordering = success_ordering
        self.failure_ordering = failure_ordering
        self.weak = weak
        self.volatile = volatile
        self.syncscope = syncscope
        self.align = align


class Fence(Instruction):
    opcode = "fence"

    def __init__(self, ordering: str, syncscope: str | None = None) -> None:
        super().__init__(VOID, [])
        self.ordering = ordering
        self.syncscope = syncscope


# ---- aggregates and vectors ------------------------------------------------------------


class ExtractValue(Instruction):
    opcode = "extractvalue"

    def __init__(self, aggregate: Value, indices: tuple[int, ...], type: Type, name: str | None = None) -> None:
        super().__init__(type, [aggregate], name)
        self.indices = indices

    aggregate = property(lambda self: self.operand(0))


class InsertValue(Instruction):
    opcode = "insertvalue"

    def __init__(self, aggregate: Value, value: Value, indices: tuple[int, ...], name: str | None = None) -> None:
        super().__init__(aggregate.type, [aggregate, value], name)
        self.indices = indices

    aggregate = property(lambda self: self.operand(0))
    value = property(lambda self: self.operand(1))


class ExtractElement(Instruction):
    opcode = "extractelement"

    def __init__(self, vector: Value, index: Value, name: str | None = None) -> None:
        super().__init__(vector.type.element, [vector, index], name)  # type: ignore[attr-defined]

    vector = property(lambda self: self.operand(0))
    index = property(lambda self: self.operand(1))


class InsertElement(Instruction):
    opcode = "insertelement"

    def __init__(self, vector: Value, value: Value, index: Value, name: str | None = None) -> None:
        super().__init__(vector.type, [vector, value, index], name)

    vector = property(lambda self: self.operand(0))
    value = property(lambda self: self.operand(1))
    index = property(lambda self: self.operand(2))


class ShuffleVector(Instruction):
    """The mask is a constant operand (a vector of i32, `poison`/`undef` lanes allowed)."""

    opcode = "shufflevector"

    def __init__(self, a: Value, b: Value, mask: Value, name: str | None = None) -> None:
        vt, mt = a.type, mask.type  # not vectors in broken input: the verifier says so (ll:4608788)
        shape = isinstance(vt, VectorType) and isinstance(mt, VectorType)
        super().__init__(VectorType(mt.count, vt.element, mt.scalable) if shape else vt, [a, b, mask], name)  # type: ignore[attr-defined]

    mask = property(lambda self: self.operand(2))


class VAArg(Instruction):
    opcode = "va_arg"

    def __init__(self, valist: Value, type: Type, name: str | None = None) -> None:
        super().__init__(type, [valist], name)


# ---- calls -------------------------------------------------------------------------


class CallBase(Instruction):
    """call, invoke and callbr. Operands: args, bundle operands, then extra blocks
    (invoke/callbr destinations), then the callee last."""

    def __init__(self, function_type: FunctionType, callee: Value, args: list[Value], *,
                 name: str | None = None, cconv: str | None = None, ret_attrs: tuple[str, ...] = (),
                 fn_attrs: tuple[str, ...] = (), arg_attrs: list[tuple[str, ...]] | None = None,
                 bundles: list[tuple[str, list[Value]]] | None = None, flags: tuple[str, ...] = (),
                 blocks: list[BasicBlock] = (), addrspace: int | None = None,  # type: ignore[assignment]
                 explicit_type: bool = False) -> None:
        bundles = bundles or []
        ops = [*args] + [v for _, vs in bundles for v in vs] + list(blocks) + [callee]
        super().__init__(function_type.ret, ops, name)
        self.function_type = function_type
        self.num_args = len(args)
        self.bundle_tags = [(tag, len(vs)) for tag, vs in bundles]
        self.num_blocks = len(blocks)
        self.cconv = cconv
        self.ret_attrs = ret_attrs
        self.fn_attrs = fn_attrs
        """Function attributes on the call, incl. group refs like `#3`."""
        self.arg_attrs = arg_attrs if arg_attrs is not None else [() for _ in args]
        self.flags = flags
        """Fast-math flags."""
        self.addrspace = addrspace
        self.explicit_type = explicit_type
        """Print the full function type (needed for varargs callees)."""

    @property
    def callee(self) -> Value:
        return self.operand(len(self._operands) - 1)

    @property
    def args(self) -> tuple[Value, ...]:
        return self.operands[: self.num_args]

    @property
    def bundles(self) -> list[tuple[str, tuple[Value, ...]]]:
        out = []
        pos = self.num_args
        for tag, n in self.bundle_tags:
            out.append((tag, self.operands[pos : pos + n]))
            pos += n
        return out

    @property
    def _block_start(self) -> int:
        return len(self._operands) - 1 - self.num_blocks

    @property
    def called_function(self):  # -> Function | None
        """The directly called `Function`, if the callee is one."""
        from enzc.ir.module import Function

        c = self.callee
        return c if isinstance(c, Function) else None


class Call(CallBase):
    opcode = "call"

    def __init__(self, function_type: FunctionType, callee: Value, args: list[Value], *, tail: str | None = None, **kw) -> None:
        super().__init__(function_type, callee, args, **kw)
        self.tail = tail
        """None, `tail`, `musttail` or `notail`."""


class Invoke(CallBase):
    opcode = "invoke"

    def __init__(self, function_type: FunctionType, callee: Value, args: list[Value], normal: BasicBlock,
                 unwind: BasicBlock, **kw) -> None:
        super().__init__(function_type, callee, args, blocks=[normal, unwind], **kw)

    is_terminator = property(lambda self: True)
    normal_dest = property(lambda self: self.operand(self._block_start))
    unwind_dest = property(lambda self: self.operand(self._block_start + 1))

    @property
    def successors(self) -> list[BasicBlock]:
        return [self.normal_dest, self.unwind_dest]


class CallBr(CallBase):
    opcode = "callbr"

    def __init__(self, function_type: FunctionType, callee: Value, args: list[Value], default: BasicBlock,
                 indirect: list[BasicBlock], **kw) -> None:
        super().__init__(function_type, callee, args, blocks=[default, *indirect], **kw)

    is_terminator = property(lambda self: True)

    @property
    def successors(self) -> list[BasicBlock]:
        s = self._block_start
        return list(self.operands[s : s + self.num_blocks])  # type: ignore[arg-type]


# ---- terminators -----------------------------------------------------------------------


class Terminator(Instruction):
    is_terminator = property(lambda self: True)


class Ret(Terminator):
    opcode = "ret"

    def __init__(self, value: Value | None = None) -> None:
        super().__init__(VOID, [value] if value is not None else [])

    @property
    def value(self) -> Value | None:
        return self.operand(0) if self.operands else None


class Br(Terminator):
    """`br label %d` (one operand) or `br i1 %c, label %t, label %f` (three)."""

    opcode = "br"

    def __init__(self, *ops: Value) -> None:
        assert len(ops) in (1, 3)
        super().__init__(VOID, list(ops))

    @property
    def is_conditional(self) -> bool:
        return len(self._operands) == 3

    @property
    def condition(self) -> Value | None:
        return self.operand(0) if self.is_conditional else None

    @property
    def successors(self) -> list[BasicBlock]:
        return list(self.operands[1:] if self.is_conditional else self.operands)  # type: ignore[arg-type]


class Switch(Terminator):
    """Operands: condition, default, then value/block pairs."""

    opcode = "switch"

    def __init__(self, condition: Value, default: BasicBlock, cases: list[tuple[Value, BasicBlock]] = ()) -> None:  # type: ignore[assignment]
        super().__init__(VOID, [condition, default, *[x for pair in cases for x in pair]])

    condition = property(lambda self: self.operand(0))
    default = property(lambda self: self.operand(1))

    @property
    def cases(self) -> list[tuple[Value, BasicBlock]]:
        ops = self._operands
        return [(ops[i], ops[i + 1]) for i in range(2, len(ops), 2)]  # type: ignore[misc]

    @property
    def successors(self) -> list[BasicBlock]:
        return [self.default] + [b for _, b in self.cases]


class IndirectBr(Terminator):
    opcode = "indirectbr"

    def __init__(self, address: Value, destinations: list[BasicBlock]) -> None:
        super().__init__(VOID, [address, *destinations])

    @property
    def successors(self) -> list[BasicBlock]:
        return list(self.operands[1:])  # type: ignore[arg-type]


class Unreachable(Terminator):
    opcode = "unreachable"

    def __init__(self) -> None:
        super().__init__(VOID, [])


class Resume(Terminator):
    opcode = "resume"

    def __init__(self, value: Value) -> None:
        super().__init__(VOID, [value])


class LandingPad(Instruction):
    """Clauses are (`catch` | `filter`, constant) pairs; the constants are operands."""

    opcode = "landingpad"

    def __init__(self, type: Type, cleanup: bool, clauses: list[tuple[str, Value]] = (), name: str | None = None) -> None:  # type: ignore[assignment]
        super().__init__(type, [v for _, v in clauses], name)
        self.cleanup = cleanup
        self.clause_kinds = [k for k, _ in clauses]

    @property
    def clauses(self) -> list[tuple[str, Value]]:
        return list(zip(self.clause_kinds, self.operands))


class FuncletPad(Instruction):
    """`catchpad within %cs [args]` / `cleanuppad within none [args]` (Windows EH)."""

    def __init__(self, opcode: str, parent_pad: Value, args: list[Value], name: str | None = None) -> None:
        super().__init__(TOKEN, [parent_pad, *args], name)
        self.opcode = opcode


class CatchSwitch(Terminator):
    """Operands: parent pad, handlers..., then the unwind block if any."""

    opcode = "catchswitch"

    def __init__(self, parent_pad: Value, handlers: list[BasicBlock], unwind: BasicBlock | None, name: str | None = None) -> None:
        super().__init__(TOKEN, [parent_pad, *handlers] + ([unwind] if unwind is not None else []), name)
        self.num_handlers = len(handlers)

    @property
    def successors(self) -> list[BasicBlock]:
        return list(self.operands[1:])  # type: ignore[arg-type]


class CatchRet(Terminator):
    opcode = "catchret"

    def __init__(self, pad: Value, target: BasicBlock) -> None:
        super().__init__(VOID, [pad, target])

    @property
    def successors(self) -> list[BasicBlock]:
        return [self.operand(1)]  # type: ignore[list-item]


class CleanupRet(Terminator):
    opcode = "cleanupret"

    def __init__(self, pad: Value, unwind: BasicBlock | None = None) -> None:
        super().__init__(VOID, [pad] + ([unwind] if unwind is not None else []))

    @property
    def successors(self) -> list[BasicBlock]:
        return list(self.operands[1:])  # type: ignore[arg-type]


__all__ = [
    "Instruction", "DebugRecord", "DIArgList", "BinaryOp", "UnaryOp", "Cast", "Compare", "Select", "Freeze", "Phi",
    "Alloca", "Load", "Store", "GetElementPtr", "AtomicRMW", "CmpXchg", "Fence", "ExtractValue",
    "InsertValue", "ExtractElement", "InsertElement", "ShuffleVector", "VAArg", "CallBase", "Call",
    "Invoke", "CallBr", "Terminator", "Ret", "Br", "Switch", "IndirectBr", "Unreachable", "Resume",
    "LandingPad", "FuncletPad", "CatchSwitch", "CatchRet", "CleanupRet", "FAST_MATH_FLAGS",
]
