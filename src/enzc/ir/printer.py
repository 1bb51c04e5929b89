"""Print enzc's IR objects as LLVM textual IR, in llvm-dis's layout.

Unnamed values get their numbers here, in LLVM's order (arguments, then each block
and the value-producing instructions in it), so a transform never has to renumber;
named values that collide get `.N` suffixes. A function whose body was never
parsed prints as the exact text it came from.

Entry points: `print_module`, `print_function`, `print_instruction`, `print_block`
(`str()` of a module, function, block or instruction calls these).
"""

from __future__ import annotations

from typing import Callable

from enzc.ir.instructions import (
    Alloca, AtomicRMW, BinaryOp, Br, Call, CallBase, CallBr, Cast, CatchRet, CatchSwitch, CleanupRet,
    CmpXchg, Compare, DebugRecord, DIArgList, ExtractElement, ExtractValue, Fence, Freeze, FuncletPad,
    GetElementPtr, IndirectBr, InsertElement, InsertValue, Instruction, Invoke, LandingPad, Load, Phi,
    Resume, Ret, Select, ShuffleVector, Store, Switch, UnaryOp, Unreachable, VAArg,
)
from enzc.ir.metadata import Metadata, MDTuple, MDValue
from enzc.ir.module import Alias, BasicBlock, Function, GlobalVariable, Module
from enzc.ir.names import escape_bytes, global_ref, local_ref, unique_name
from enzc.ir.types import VOID
from enzc.ir.values import LocalValue, MetadataOperand, Value


class Slots:
    """The printed spelling of every local value of one function (`%x`, `%3`)."""

    def __init__(self, fn: Function | None) -> None:
        self.refs: dict[int, str] = {}
        if fn is None:
            return
        taken: set[str] = set()
        counter = 0
        refs = self.refs

        def assign(v: LocalValue, counter: int) -> int:
            name = v.name
            if name is None or name.isdigit():
                refs[id(v)] = f"%{counter}"
                return counter + 1
            if name in taken:
                name = unique_name(name, taken)
            else:
                taken.add(name)
            refs[id(v)] = local_ref(name)
            return counter

        for a in fn.args:
            counter = assign(a, counter)
        if fn.is_materialized:
            for b in fn.blocks:
                counter = assign(b, counter)
                for inst in b.instructions:
                    if inst.type is not VOID:
                        counter = assign(inst, counter)

    def ref(self, v: Value) -> str:
        """How an operand is spelled, without its type."""
        if isinstance(v, LocalValue):
            r = self.refs.get(id(v))
            if r is not None:
                return r
            return local_ref(v.name) if v.name is not None else "%<badref>"
        if isinstance(v, MetadataOperand):
            return self.md(v.md)
        if isinstance(v, DIArgList):
            return "!DIArgList(" + ", ".join(self.typed(x) for x in v.operands) + ")"
        return v.ref()

    def typed(self, v: Value) -> str:
        if isinstance(v, (MetadataOperand, DIArgList)):
            return self.ref(v)
        return f"{v.type} {self.ref(v)}"

    def md(self, md: Metadata | None) -> str:
        """Metadata spelling, with local values inside spelled by this function's slots."""
        if md is None:
            return "null"
        if isinstance(md, MDValue):
            return self.typed(md.value)
        if isinstance(md, MDTuple):
            inner = ", ".join(self.md(o) for o in md.operands)
            return ("distinct " if md.distinct else "") + "!{" + inner + "}"
        return str(md)


def _words(*parts: object) -> str:
    """Join the non-empty parts with single spaces."""
    return " ".join(str(p) for p in parts if p)


def _flags(inst: Instruction) -> str:
    flags = getattr(inst, "flags", ())
    return " " + " ".join(flags) if flags else ""


def _align(align: int | None) -> str:
    return f", align {align}" if align is not None else ""


def _scope(scope: str | None) -> str:
    return f' syncscope("{escape_bytes(scope.encode())}")' if scope is not None else ""


# ---------------------------------------------------------------- instructions
InstPrinter = Callable[[Instruction, Slots], str]


def _binary(i: BinaryOp, s: Slots) -> str:
    return f"{i.opcode}{_flags(i)} {i.lhs.type} {s.ref(i.lhs)}, {s.ref(i.rhs)}"


def _unary(i: UnaryOp, s: Slots) -> str:
    return f"{i.opcode}{_flags(i)} {s.typed(i.value)}"


def _cast(i: Cast, s: Slots) -> str:
    return f"{i.opcode}{_flags(i)} {s.typed(i.value)} to {i.type}"


def _compare(i: Compare, s: Slots) -> str:
    return f"{i.opcode}{_flags(i)} {i.predicate} {i.lhs.type} {s.ref(i.lhs)}, {s.ref(i.rhs)}"


def _select(i: Select, s: Slots) -> str:
    return f"select{_flags(i)} " + ", ".join(s.typed(o) for o in i.operands)


def _freeze(i: Freeze, s: Slots) -> str:
    return f"freeze {s.typed(i.value)}"


def _phi(i: Phi, s: Slots) -> str:
    pairs = ", ".join(f"[ {s.ref(v)}, {s.ref(b)} ]" for v, b in i.incoming)
    return f"phi{_flags(i)} {i.type} {pairs}"


def _alloca(i: Alloca, s: Slots) -> str:
    out = f"alloca{_flags(i)} {i.allocated_type}"
    if i.count is not None:
        out += f", {s.typed(i.count)}"
    out += _align(i.align)
    if i.type.addrspace:  # type: ignore[attr-defined]
        out += f", addrspace({i.type.addrspace})"  # type: ignore[attr-defined]
    return out


def _load(i: Load, s: Slots) -> str:
    head = _words("load", "atomic" if i.ordering else "", "volatile" if i.volatile else "")
    tail = _scope(i.syncscope) + (f" {i.ordering}" if i.ordering else "")
    return f"{head} {i.type}, {s.typed(i.ptr)}{tail}{_align(i.align)}"


def _store(i: Store, s: Slots) -> str:
    head = _words("store", "atomic" if i.ordering else "", "volatile" if i.volatile else "")
    tail = _scope(i.syncscope) + (f" {i.ordering}" if i.ordering else "")
    return f"{head} {s.typed(i.value)}, {s.typed(i.ptr)}{tail}{_align(i.align)}"


def _gep(i: GetElementPtr, s: Slots) -> str:
    return f"getelementptr{_flags(i)} {i.source_type}, " + ", ".join(s.typed(o) for o in i.operands)


def _atomicrmw(i: AtomicRMW, s: Slots) -> str:
    head = _words("atomicrmw", "volatile" if i.volatile else "", i.operation)
    return f"{head} {s.typed(i.ptr)}, {s.typed(i.value)}{_scope(i.syncscope)} {i.ordering}{_align(i.align)}"


def _cmpxchg(i: CmpXchg, s: Slots) -> str:
    head = _words("cmpxchg", "weak" if i.weak else "", "volatile" if i.volatile else "")
    ops = ", ".join(s.typed(o) for o in i.operands)
    return f"{head} {ops}{_scope(i.syncscope)} {i.success_ordering} {i.failure_ordering}{_align(i.align)}"


def _fence(i: Fence, s: Slots) -> str:
    return f"fence{_scope(i.syncscope)} {i.ordering}"


def _extractvalue(i: ExtractValue, s: Slots) -> str:
    return f"extractvalue {s.typed(i.aggregate)}, " + ", ".join(map(str, i.indices))


def _insertvalue(i: InsertValue, s: Slots) -> str:
    return f"insertvalue {s.typed(i.aggregate)}, {s.typed(i.value)}, " + ", ".join(map(str, i.indices))


def _vector_op(i: Instruction, s: Slots) -> str:
    return f"{i.opcode} " + ", ".join(s.typed(o) for o in i.operands)


def _va_arg(i: VAArg, s: Slots) -> str:
    return f"va_arg {s.typed(i.operand(0))}, {i.type}"


def _call_core(i: CallBase, s: Slots) -> str:
    """Everything of a call site from the flags to the operand bundles."""
    ft = i.function_type
    shown = ft if (i.explicit_type or ft.vararg) else ft.ret
    args = []
    for a, attrs in zip(i.args, i.arg_attrs):
        if isinstance(a, MetadataOperand):
            args.append(f"metadata {s.md(a.md)}")
        else:
            args.append(_words(a.type, *attrs, s.ref(a)))
    parts = [
        " ".join(i.flags), i.cconv or "", " ".join(i.ret_attrs),
        f"addrspace({i.addrspace})" if i.addrspace is not None else "",
        f"{shown} {s.ref(i.callee)}(" + ", ".join(args) + ")",
        " ".join(i.fn_attrs),
    ]
    out = _words(*parts)
    if i.bundle_tags:
        bundles = ", ".join(f'"{tag}"(' + ", ".join(s.typed(v) for v in vals) + ")" for tag, vals in i.bundles)
        out += f" [ {bundles} ]"
    return out


def _call(i: Call, s: Slots) -> str:
    return _words(i.tail or "", "call", _call_core(i, s))


def _invoke(i: Invoke, s: Slots) -> str:
    return (f"invoke {_call_core(i, s)}\n          to label {s.ref(i.normal_dest)} "
            f"unwind label {s.ref(i.unwind_dest)}")


def _callbr(i: CallBr, s: Slots) -> str:
    default, *indirect = i.successors
    targets = ", ".join(f"label {s.ref(b)}" for b in indirect)
    return f"callbr {_call_core(i, s)}\n          to label {s.ref(default)} [{targets}]"


def _ret(i: Ret, s: Slots) -> str:
    return "ret void" if i.value is None else f"ret {s.typed(i.value)}"


def _br(i: Br, s: Slots) -> str:
    if i.is_conditional:
        c, t, f = i.operands
        return f"br {s.typed(c)}, label {s.ref(t)}, label {s.ref(f)}"
    return f"br label {s.ref(i.operand(0))}"


def _switch(i: Switch, s: Slots) -> str:
    cases = "".join(f"\n    {s.typed(v)}, label {s.ref(b)}" for v, b in i.cases)
    return f"switch {s.typed(i.condition)}, label {s.ref(i.default)} [{cases}\n  ]"


def _indirectbr(i: IndirectBr, s: Slots) -> str:
    return f"indirectbr {s.typed(i.operand(0))}, [" + ", ".join(f"label {s.ref(b)}" for b in i.successors) + "]"


def _landingpad(i: LandingPad, s: Slots) -> str:
    out = f"landingpad {i.type}"
    if i.cleanup:
        out += "\n          cleanup"
    for kind, v in i.clauses:
        out += f"\n          {kind} {s.typed(v)}"
    return out


def _funcletpad(i: FuncletPad, s: Slots) -> str:
    args = ", ".join(s.typed(a) for a in i.operands[1:])
    return f"{i.opcode} within {s.ref(i.operand(0))} [{args}]"


def _catchswitch(i: CatchSwitch, s: Slots) -> str:
    handlers = ", ".join(f"label {s.ref(b)}" for b in i.operands[1 : 1 + i.num_handlers])
    rest = i.operands[1 + i.num_handlers :]
    unwind = f"label {s.ref(rest[0])}" if rest else "to caller"
    return f"catchswitch within {s.ref(i.operand(0))} [{handlers}] unwind {unwind}"


def _catchret(i: CatchRet, s: Slots) -> str:
    return f"catchret from {s.ref(i.operand(0))} to label {s.ref(i.operand(1))}"


def _cleanupret(i: CleanupRet, s: Slots) -> str:
    unwind = f"label {s.ref(i.operand(1))}" if len(i.operands) > 1 else "to caller"
    return f"cleanupret from {s.ref(i.operand(0))} unwind {unwind}"


INSTRUCTION_PRINTERS: dict[type, InstPrinter] = {
    BinaryOp: _binary, UnaryOp: _unary, Cast: _cast, Compare: _compare, Select: _select,
    Freeze: _freeze, Phi: _phi, Alloca: _alloca, Load: _load, Store: _store, GetElementPtr: _gep,
    AtomicRMW: _atomicrmw, CmpXchg: _cmpxchg, Fence: _fence, ExtractValue: _extractvalue,
    InsertValue: _insertvalue, ExtractElement: _vector_op, InsertElement: _vector_op,
    ShuffleVector: _vector_op, VAArg: _va_arg, Call: _call, Invoke: _invoke, CallBr: _callbr,
    Ret: _ret, Br: _br, Switch: _switch, IndirectBr: _indirectbr, Unreachable: lambda i, s: "unreachable",
    Resume: lambda i, s: f"resume {s.typed(i.operand(0))}", LandingPad: _landingpad,
    FuncletPad: _funcletpad, CatchSwitch: _catchswitch, CatchRet: _catchret, CleanupRet: _cleanupret,
}  # type: ignore[dict-item]
"""One printer per instruction class: the text after `%x = `, without attachments."""


def _instruction_text(inst: Instruction, s: Slots) -> str:
    body = INSTRUCTION_PRINTERS[type(inst)](inst, s)
    if inst.type is not VOID:
        body = f"{s.ref(inst)} = {body}"
    for kind, md in inst.metadata.items():
        body += f", !{kind} {s.md(md)}"
    return body


def _record_text(rec: DebugRecord, s: Slots) -> str:
    return f"#dbg_{rec.kind}(" + ", ".join(s.typed(o) for o in rec.operands) + ")"


def _block_lines(block: BasicBlock, s: Slots, out: list[str], entry: bool) -> None:
    if not entry or (block.name is not None and not block.name.isdigit()):
        label = s.ref(block)[1:]
        out.append(f"{label}:")
    for inst in block.instructions:
        for rec in inst.debug_records:
            out.append("    " + _record_text(rec, s))
        out.append("  " + _instruction_text(inst, s))
    for rec in block.trailing_debug_records:
        out.append("    " + _record_text(rec, s))


# ---------------------------------------------------------------- functions and globals
def _header(fn: Function, s: Slots, declaration: bool) -> str:
    args = []
    for a in fn.args:
        args.append(_words(a.type, *a.attrs, "" if declaration else s.ref(a)))
    if fn.function_type.vararg:
        args.append("...")
    md = " ".join(f"!{k} {s.md(v)}" for k, v in [*fn.metadata.items(), *fn.repeated_metadata])
    head = ["declare", md] if declaration else ["define"]
    parts = [
        *head, *fn.linkage.words, fn.cconv or "", *fn.ret_attrs,
        f"{fn.function_type.ret} {global_ref(fn.name)}(" + ", ".join(args) + ")",  # type: ignore[arg-type]
        fn.unnamed_addr or "",
        f"addrspace({fn.addrspace})" if fn.addrspace is not None else "",
        *fn.fn_attrs, *fn.header_suffix,
    ]
    if not declaration:
        parts.append(md)
    return _words(*parts)


def print_function(fn: Function) -> str:
    """The function's definition or declaration, ending in a newline."""
    if not fn.is_materialized and fn.header_key() == fn.source_header_key and fn.source_text is not None:
        return fn.source_text + "\n"
    blocks = fn.blocks  # parses a lazy body whose header was changed
    declaration = not blocks
    s = Slots(fn)
    if declaration:
        return _header(fn, s, True) + "\n"
    out = [_header(fn, s, False) + " {"]
    for i, block in enumerate(blocks):
        if i:
            out.append("")
        _block_lines(block, s, out, i == 0)
    out.append("}")
    return "\n".join(out) + "\n"


def _global_text(gv: GlobalVariable) -> str:
    words = list(gv.linkage.words)
    if gv.addrspace is not None and not any(w.startswith("addrspace(") for w in words):
        at = words.index("externally_initialized") if "externally_initialized" in words else len(words)
        words.insert(at, f"addrspace({gv.addrspace})")
    out = _words(global_ref(gv.name), "=", *words, "constant" if gv.is_constant else "global", gv.value_type)  # type: ignore[arg-type]
    if gv.initializer is not None:
        out += " " + gv.initializer.ref()
    for item in gv.suffix:
        out += f", {item}"
    for kind, md in [*gv.metadata.items(), *gv.repeated_metadata]:
        out += f", !{kind} {md}"
    if gv.attrs:
        out += " " + " ".join(gv.attrs)
    return out


def _alias_text(a: Alias) -> str:
    out = _words(global_ref(a.name), "=", *a.linkage.words, a.kind, a.value_type)  # type: ignore[arg-type]
    out += f", {a.target.typed_ref()}"
    for item in a.suffix:
        out += f", {item}"
    return out


def _quoted(text: str) -> str:
    return '"' + escape_bytes(text.encode("utf-8", "surrogateescape")) + '"'


def print_module(module: Module) -> str:
    """The whole module as LLVM assembly text."""
    header = []
    if module.source_filename is not None:
        header.append(f"source_filename = {_quoted(module.source_filename)}")
    if module.datalayout is not None:
        header.append(f"target datalayout = {_quoted(module.datalayout)}")
    if module.triple is not None:
        header.append(f"target triple = {_quoted(module.triple)}")
    # Sections are separated by one blank line, as llvm-dis does.
    sections: list[list[str]] = [
        header,
        [f"module asm {_quoted(line)}" for line in module.module_asm],
        [f"{local_ref(t.name)} = type {t.body_str()}" for t in module.types.values()],
        [f"${_comdat_name(c.name)} = comdat {c.selection}" for c in module.comdats.values()],
        [_global_text(g) for g in module.globals.values()],
        [_alias_text(a) for a in module.aliases.values() if a.kind == "alias"],
        [_alias_text(a) for a in module.aliases.values() if a.kind == "ifunc"],
    ]
    sections.extend([print_function(fn).rstrip("\n")] for fn in module.functions.values()
                    if not (fn.implicit and fn.is_declaration))
    sections += [
        [f"attributes #{k} = {{ {' '.join(v)} }}" for k, v in module.attribute_groups.items()],
        [f"!{k} = !{{{', '.join('!' + i for i in ids)}}}" for k, ids in module.named_metadata.items()],
        [f"!{k} = {node}" for k, node in module.metadata.items()],
        _extra_lines(module),
    ]
    return "\n\n".join("\n".join(lines) for lines in sections if lines) + "\n"


def _extra_lines(module: Module) -> list[str]:
    """Top-level lines kept as text. `uselistorder` directives count the uses of a
    value, which edits change; they are dropped once any body has been parsed (they
    carry no semantics, and a stale one would make the module invalid)."""
    edited = any(fn.is_materialized and fn.source_text is not None for fn in module.functions.values())
    return [line for line in module.extra_lines if not (edited and line.startswith("uselistorder"))]


def _comdat_name(name: str) -> str:
    return global_ref(name)[1:]


def print_instruction(inst: Instruction) -> str:
    """One instruction (with its debug records), numbered as in its function."""
    s = Slots(inst.function)
    lines = [_record_text(r, s) for r in inst.debug_records]
    return "\n".join([*lines, _instruction_text(inst, s)])


def print_block(block: BasicBlock) -> str:
    s = Slots(block.parent)
    out: list[str] = []
    _block_lines(block, s, out, entry=False)
    return "\n".join(out) + "\n"

