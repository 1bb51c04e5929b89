"""Grammar callbacks, part 3: function bodies — statements, labels' blocks,
instructions and debug records."""

from __future__ import annotations

import re
import sys
from typing import Any

from enzc.ir.instructions import (
    Alloca, AtomicRMW, BinaryOp, Br, Call, CallBr, Cast, CatchRet, CatchSwitch, CleanupRet, CmpXchg,
    Compare, DebugRecord, ExtractElement, ExtractValue, Fence, Freeze, FuncletPad, GetElementPtr,
    IndirectBr, InsertElement, InsertValue, Instruction, Invoke, LandingPad, Load, Phi, Resume, Ret,
    Select, ShuffleVector, Store, Switch, UnaryOp, Unreachable, VAArg,
)
from enzc.ir.module import BasicBlock, Function
from enzc.ir.names import unescape
from enzc.ir.parser_lalr import Tok
from enzc.ir.parser_values import BuildError, ValueCallbacks, attachment_ref, is_cconv
from enzc.ir.types import (
    METADATA, PTR, TOKEN, VOID, ArrayType, FunctionType, NamedStructType, PointerType, StructType,
    Type, VectorType,
)
from enzc.ir.values import ConstantSimple, MetadataOperand, Value


_RMW_BINOPS = frozenset({"add", "sub", "and", "or", "xor", "fadd", "fsub"})
"""The words of the binary operators that are also atomicrmw operations."""


class InstructionCallbacks(ValueCallbacks):
    """Callbacks for the `body` start symbol."""

    def _append(self, inst: Instruction, pos: int) -> None:
        block = self.block
        if block is None or block.terminator is not None:
            # An unlabeled block: the entry block, or one following a terminator; it
            # takes the next number, under which it may already have been referenced.
            name = str(self.next_slot)
            fwd = self.forward_blocks.pop(name, None)
            block = fwd[0] if fwd is not None else BasicBlock(None)
            block.parent = self.fn
            self.next_slot += 1
            self.locals[name] = block
            self.blocks.append(block)
            self.block = block
        block.instructions.append(inst)
        inst.parent = block
        if self.pending_records:
            inst.debug_records = self.pending_records
            self.pending_records = []

    def inst_line(self, c: list) -> None:
        first = c[0]
        if first.__class__ is Tok:
            inst, i = c[1], 2
        else:
            inst, i = first, 1
        self._append(inst, 0)
        n = len(c)
        while i < n:
            att = c[i]
            if att.type == "ATTACH_REF":
                kind, ref = attachment_ref(att)
                inst.metadata[kind] = ref
                i += 1
            else:
                inst.metadata[att[att.index("!") + 1 :]] = self._attachment(att, c[i + 1])
                i += 2
        if first.__class__ is Tok:
            self._define(first, inst)
        elif inst.type is not VOID:
            self.next_slot += 1

    def _define(self, tok: Tok, value: Instruction) -> None:
        name = tok[1:]
        if name[0] == '"' or name[0] == "0":
            name = self._name_of(tok)
        else:
            name = sys.intern(name)
        if value.type is VOID:
            raise BuildError(tok.pos, f"instructions returning void cannot have a name ('%{name}')")
        if name in self.locals:
            raise BuildError(tok.pos, f"multiple definition of local value named '{name}'")
        self._number(name, tok.pos)
        if not name.isdigit():
            value.name = name
        fwd = self.forward.pop(name, None)
        if fwd is not None:
            if fwd.type != value.type:
                raise BuildError(fwd.tok.pos, f"'%{name}' defined with type '{value.type}' but expected '{fwd.type}'")
            fwd.replace_all_uses_with(value)
            for md in self.md_forward:
                if md.value is fwd:
                    md.value = value
        elif name in self.forward_blocks:
            raise BuildError(tok.pos, f"'%{name}' is used as a label and defined as a value")
        self.locals[name] = value

    def dbg_record(self, c: list) -> None:
        kind = self._text(c[0][5:-1])
        ops: list[Value] = []
        for x in c[1:]:
            if isinstance(x, Value):
                ops.append(x)
            else:
                ops.append(MetadataOperand(METADATA, x))
        self.pending_records.append(DebugRecord(kind, ops))

    def uselistorder(self, c: list) -> None:
        """Use-list orders only fix the order of use lists, not semantics; a body
        printed from objects does without them (an untouched body keeps its text)."""
        return None

    def body(self, c: list) -> None:
        return None

    # ------------------------------------------------------------------ instructions
    def _flags(self, c: list, start: int, end: int) -> tuple[str, ...]:
        return tuple(self._text(x) for x in c[start:end]) if end > start else ()

    def binop(self, c: list) -> Instruction:
        t = c[-3]
        return BinaryOp(self._text(c[0]), self.resolve(t, c[-2]), self.resolve(t, c[-1]), self._flags(c, 1, len(c) - 3))

    def fneg(self, c: list) -> Instruction:
        return UnaryOp("fneg", c[-1], self._flags(c, 0, len(c) - 1))

    def cast(self, c: list) -> Instruction:
        return Cast(self._text(c[0]), c[-2], c[-1], self._flags(c, 1, len(c) - 2))

    def _compare(self, opcode: str, c: list) -> Instruction:
        t = c[-3]
        pred = c[-4]
        if self._text(pred) not in _PREDICATES[opcode]:
            raise BuildError(pred.pos, f"expected {opcode} predicate (e.g. '{_PREDICATES[opcode][0]}')")
        return Compare(opcode, self._text(pred), self.resolve(t, c[-2]), self.resolve(t, c[-1]), self._flags(c, 0, len(c) - 4))

    def icmp(self, c: list) -> Instruction:
        return self._compare("icmp", c)

    def fcmp(self, c: list) -> Instruction:
        return self._compare("fcmp", c)

    def select(self, c: list) -> Instruction:
        return Select(c[-3], c[-2], c[-1], self._flags(c, 0, len(c) - 3))

    def freeze(self, c: list) -> Instruction:
        return Freeze(c[0])

    def phi(self, c: list) -> Instruction:
        i = 0
        while c[i].__class__ is Tok:
            i += 1
        t = c[i]
        incoming = []
        for j in range(i + 1, len(c), 2):
            incoming.append((self.resolve(t, c[j]), self._block_ref(c[j + 1])))
        return Phi(t, incoming, self._flags(c, 0, i))

    def alloca(self, c: list) -> Instruction:
        # [ALLOCA_FLAG*, type, tv|None, COMMA_ALIGN|None, INT|None, COMMA_ADDRSPACE|None, INT|None]
        flags = self._flags(c, 0, len(c) - 6)
        t, count, _, align, _, addrspace = c[-6:]
        self._check_sized_here(t, c, "Cannot allocate unsized type")
        return Alloca(t, count, int(align) if align is not None else None,
                      int(addrspace) if addrspace is not None else 0, flags)

    def _memory_tail(self, c: list, i: int) -> tuple[str | None, str | None, int | None]:
        """(syncscope, ordering, align) from the children after the operands."""
        scope = ordering = None
        n = len(c)
        while i < n - 2:
            t = c[i]
            if t.type == "SYNCSCOPE":
                scope = _syncscope(t)
            else:
                ordering = self._text(t)
            i += 1
        align = c[-1]
        return scope, ordering, int(align) if align is not None else None

    def load(self, c: list) -> Instruction:
        i = 0
        atomic = volatile = False
        while c[i].__class__ is Tok:
            atomic |= c[i].type == "ATOMIC"
            volatile |= c[i].type == "VOLATILE"
            i += 1
        t, ptr = c[i], c[i + 1]
        scope, ordering, align = self._memory_tail(c, i + 2)
        _check_atomic_access("load", c, atomic, scope, ordering, align)
        self._check_sized_here(t, c, "loading unsized types is not allowed")
        return Load(t, ptr, align, volatile, ordering, scope)

    def store(self, c: list) -> Instruction:
        i = 0
        atomic = volatile = False
        while c[i].__class__ is Tok:
            atomic |= c[i].type == "ATOMIC"
            volatile |= c[i].type == "VOLATILE"
            i += 1
        value, ptr = c[i], c[i + 1]
        scope, ordering, align = self._memory_tail(c, i + 2)
        _check_atomic_access("store", c, atomic, scope, ordering, align)
        return Store(value, ptr, align, volatile, ordering, scope)

    def gep(self, c: list) -> Instruction:
        i = 0
        while c[i].__class__ is Tok:
            i += 1
        source, ptr, indices = c[i], c[i + 1], c[i + 2 :]
        if indices:
            self._check_sized_here(source, c, "base element of getelementptr must be sized")
        result = ptr.type
        if not isinstance(result, VectorType):
            for idx in indices:
                if isinstance(idx.type, VectorType):
                    result = VectorType(idx.type.count, ptr.type, idx.type.scalable)
                    break
        return GetElementPtr(source, ptr, list(indices), self._flags(c, 0, i), result_type=result)

    def _check_sized_here(self, t: Type, c: list, message: str) -> None:
        """LLVM reads the file in order: a named struct defined after this function is
        still opaque here, so a type holding one (not behind a pointer) is unsized
        (ll:4700903: a type definition moved below its uses)."""
        if self.later_types and _holds_named(t, self.later_types, set()):
            pos = next((x.pos for x in c if x.__class__ is Tok), 0)
            raise BuildError(pos, f"{message} ({t} holds a struct defined later in the file)")

    def extractvalue(self, c: list) -> Instruction:
        agg = c[0]
        indices = tuple(int(x) for x in c[1:])
        t = agg.type
        try:
            for idx in indices:
                t = _member(t, idx)
        except (TypeError, ValueError, IndexError):
            raise BuildError(c[1].pos, f"invalid indices for extractvalue on '{agg.type}'") from None
        return ExtractValue(agg, indices, t)

    def insertvalue(self, c: list) -> Instruction:
        return InsertValue(c[0], c[1], tuple(int(x) for x in c[2:]))

    def extractelement(self, c: list) -> Instruction:
        return ExtractElement(c[0], c[1])

    def insertelement(self, c: list) -> Instruction:
        return InsertElement(c[0], c[1], c[2])

    def shufflevector(self, c: list) -> Instruction:
        return ShuffleVector(c[0], c[1], c[2])

    def va_arg(self, c: list) -> Instruction:
        return VAArg(c[0], c[1])

    def atomicrmw(self, c: list) -> Instruction:
        i = 0
        volatile = False
        if c[0].type == "VOLATILE":
            volatile, i = True, 1
        op, ptr, value = self._text(c[i]), c[i + 1], c[i + 2]
        if c[i].type == "BINOP" and op not in _RMW_BINOPS:  # ll:6507442: `atomicrmw lshr`
            raise BuildError(c[i].pos, "expected binary operation in atomicrmw")
        scope, ordering, align = self._memory_tail(c, i + 3)
        return AtomicRMW(op, ptr, value, ordering or "", volatile, scope, align)

    def cmpxchg(self, c: list) -> Instruction:
        i = 0
        weak = volatile = False
        while c[i].__class__ is Tok:
            weak |= c[i].type == "WEAK"
            volatile |= c[i].type == "VOLATILE"
            i += 1
        ptr, expected, new = c[i], c[i + 1], c[i + 2]
        scope = None
        j = i + 3
        if c[j].type == "SYNCSCOPE":
            scope = _syncscope(c[j])
            j += 1
        success, failure = self._text(c[j]), self._text(c[j + 1])
        align = c[-1]
        return CmpXchg(ptr, expected, new, success, failure, weak, volatile, scope,
                       int(align) if align is not None else None)

    def fence(self, c: list) -> Instruction:
        scope = _syncscope(c[0]) if len(c) == 2 else None
        return Fence(self._text(c[-1]), scope)

    # calls ----------------------------------------------------------------------
    def args(self, c: list) -> list:
        return c

    def arg(self, c: list) -> tuple[Value, tuple[str, ...]]:
        t = c[0]
        return self.resolve(t, c[-1]), (tuple(self._attrs(c[1:-1])) if len(c) > 2 else ())

    def md_arg(self, c: list) -> tuple[Value, tuple[str, ...]]:
        return MetadataOperand(METADATA, self._md(c[1])), ()

    def bundles(self, c: list) -> list:
        return c

    def bundle(self, c: list) -> tuple[str, list[Value]]:
        return str(c[0])[1:-1], [v for v in c[1:] if v is not None]

    def _build_call(self, c: list, start: int, cls: type, **extra: Any) -> Instruction:
        """Build a call-like instruction from `_callsite` children starting at `start`."""
        i = start
        flags = []
        while c[i].__class__ is Tok and c[i].type == "FLAG":
            flags.append(self._text(c[i]))
            i += 1
        pre_start = i
        while c[i].__class__ is Tok:
            i += 1
        ret, callee_raw, args = c[i], c[i + 1], c[i + 2] or []
        pre = self._attrs(c[pre_start:i])
        j = i + 3
        post_start = j
        while j < len(c) and c[j].__class__ is Tok and c[j].type != "LOCAL":
            j += 1
        post = self._attrs(c[post_start:j])
        bundles = None
        if j < len(c) and not (c[j].__class__ is Tok):
            bundles = c[j]
            j += 1
        elif j < len(c) and c[j] is None:
            j += 1
        cconv = None
        ret_attrs = []
        addrspace = None
        for w in pre:
            if cconv is None and is_cconv(w):
                cconv = w
            elif w.startswith("addrspace("):
                addrspace = int(w[10:-1])
            else:
                ret_attrs.append(w)
        arg_values = [a for a, _ in args]
        arg_attrs = [attrs for _, attrs in args]
        explicit = isinstance(ret, FunctionType)
        ftype = ret if explicit else FunctionType(ret, tuple(a.type for a in arg_values), False)
        if (callee_raw.__class__ is Tok and callee_raw.type == "GLOBAL" and self.fn is not None
                and callee_raw.startswith("@llvm.") and self.mod.get_global(self._name_of(callee_raw)) is None):
            self._declare_intrinsic(self._name_of(callee_raw), ftype)
        callee = self.resolve(PTR if addrspace is None else PointerType(addrspace), callee_raw)
        inst = cls(ftype, callee, arg_values, name=None, cconv=cconv, ret_attrs=tuple(ret_attrs),
                   fn_attrs=tuple(post), arg_attrs=arg_attrs, bundles=bundles, flags=tuple(flags),
                   addrspace=addrspace, explicit_type=explicit, **extra)
        return inst

    def _declare_intrinsic(self, name: str, ftype: FunctionType) -> None:
        """LLVM declares an intrinsic that is called without a declaration; so do we."""
        fn = Function(name, ftype)
        fn.implicit = True
        self.mod.functions[name] = fn
        self.new_declarations.append(fn)

    def call(self, c: list) -> Instruction:
        tail = None
        start = 0
        if c[0].__class__ is Tok and c[0].type == "TAIL":
            tail, start = self._text(c[0]), 1
        return self._build_call(c, start, Call, tail=tail)

    def invoke(self, c: list) -> Instruction:
        normal, unwind = self._block_ref(c[-2]), self._block_ref(c[-1])
        return self._build_call(c[:-2], 0, Invoke, normal=normal, unwind=unwind)

    def callbr(self, c: list) -> Instruction:
        j = len(c) - 1
        while c[j] is None or (c[j].__class__ is Tok and c[j].type == "LOCAL"):
            j -= 1
        dests = [self._block_ref(t) for t in c[j + 1 :] if t is not None]
        return self._build_call(c[: j + 1], 0, CallBr, default=dests[0], indirect=dests[1:])

    # terminators -------------------------------------------------------------------
    def ret(self, c: list) -> Instruction:
        v = c[0]
        return Ret(None if v is VOID else v)

    def br(self, c: list) -> Instruction:
        if len(c) == 1:
            return Br(self._block_ref(c[0]))
        return Br(c[0], self._block_ref(c[1]), self._block_ref(c[2]))

    def switch(self, c: list) -> Instruction:
        cases = [(c[i], self._block_ref(c[i + 1])) for i in range(2, len(c), 2)]
        return Switch(c[0], self._block_ref(c[1]), cases)

    def indirectbr(self, c: list) -> Instruction:
        return IndirectBr(c[0], [self._block_ref(t) for t in c[1:] if t is not None])

    def unreachable(self, c: list) -> Instruction:
        return Unreachable()

    def resume(self, c: list) -> Instruction:
        return Resume(c[0])

    def landingpad(self, c: list) -> Instruction:
        cleanup = len(c) > 1 and c[1].__class__ is Tok and c[1].type == "CLEANUP"
        start = 2 if cleanup else 1
        clauses = [(self._text(c[i]), c[i + 1]) for i in range(start, len(c), 2)]
        return LandingPad(c[0], cleanup, clauses)

    def _pad(self, tok: Tok) -> Value:
        if tok.type == "CONSTKW":
            if tok != "none":
                raise BuildError(tok.pos, f"expected 'none' or a token value, found '{tok}'")
            return ConstantSimple(TOKEN, "none")
        return self._local_value(tok, TOKEN)

    def catchswitch(self, c: list) -> Instruction:
        parent = self._pad(c[0])
        last = c[-1]
        unwind = None if last.type == "CALLER" else self._block_ref(last)
        handlers = [self._block_ref(t) for t in c[1:-1] if t is not None]
        return CatchSwitch(parent, handlers, unwind)

    def catchpad(self, c: list) -> Instruction:
        return FuncletPad("catchpad", self._local_value(c[0], TOKEN), [v for v in c[1:] if v is not None])

    def cleanuppad(self, c: list) -> Instruction:
        return FuncletPad("cleanuppad", self._pad(c[0]), [v for v in c[1:] if v is not None])

    def catchret(self, c: list) -> Instruction:
        return CatchRet(self._local_value(c[0], TOKEN), self._block_ref(c[1]))

    def cleanupret(self, c: list) -> Instruction:
        pad = self._local_value(c[0], TOKEN)
        last = c[-1]
        return CleanupRet(pad, None if last.type == "CALLER" else self._block_ref(last))


def _member(t: Type, index: int) -> Type:
    from enzc.ir.types import aggregate_member

    if isinstance(t, (ArrayType,)) and not 0 <= index < t.count:
        raise IndexError(index)
    if isinstance(t, (StructType, NamedStructType)):
        elems = t.elements
        if elems is None or not 0 <= index < len(elems):
            raise IndexError(index)
    return aggregate_member(t, index)


_PREDICATES = {
    "icmp": ("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle"),
    "fcmp": ("oeq", "false", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
             "une", "uno", "true"),
}
"""The predicates each comparison takes (the grammar lexes them all alike)."""


def _check_atomic_access(kind: str, c: list, atomic: bool, scope: str | None, ordering: str | None,
                         align: int | None) -> None:
    """LLParser's rules for `load`/`store`: an ordering or syncscope only after
    `atomic`, which needs an ordering its direction allows and an alignment."""
    pos = next((x.pos for x in c if x.__class__ is Tok), 0)
    if not atomic:
        if scope is not None or ordering is not None:
            raise BuildError(pos, f"an ordering or syncscope needs '{kind} atomic'")
        return
    if ordering is None:
        raise BuildError(pos, "expected ordering on atomic instruction")
    if ordering in _FORBIDDEN_ORDERINGS[kind]:
        raise BuildError(pos, f"atomic {kind} cannot use {ordering} ordering")
    if not align:
        raise BuildError(pos, f"atomic {kind} must have explicit non-zero alignment")


_FORBIDDEN_ORDERINGS = {"load": ("release", "acq_rel"), "store": ("acquire", "acq_rel")}


def _holds_named(t: Type, names: frozenset[str], seen: set[str]) -> bool:
    """Whether `t` holds a struct named in `names` by value (through arrays, vectors
    and struct members, not pointers)."""
    match t:
        case NamedStructType():
            if t.name in names:
                return True
            if t.name in seen or t.elements is None:
                return False
            seen.add(t.name)
            return any(_holds_named(e, names, seen) for e in t.elements)
        case StructType():
            return any(_holds_named(e, names, seen) for e in t.elements)
        case ArrayType() | VectorType():
            return _holds_named(t.element, names, seen)
    return False


_SYNCSCOPE = re.compile(r'syncscope\("([^"]*)"\)')


def _syncscope(tok: Tok) -> str:
    """The name in `syncscope("name")`: one string, nothing else (ll:5608885)."""
    m = _SYNCSCOPE.fullmatch(tok)
    if m is None:
        raise BuildError(tok.pos, "expected ')' in syncscope: one quoted scope name")
    return unescape(m.group(1)).decode("utf-8", "surrogateescape")
