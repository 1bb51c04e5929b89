"""Module-level checks of the verifier: what LLVM's parser and verifier reject outside
(or across) function bodies and enzc's model would otherwise print back.

- metadata: node syntax and references to undefined nodes (verify_metadata.py);
- attributes: known to LLVM and in a place where they apply (verify_attributes.py);
- module flags (verify_flags.py) and the datalayout string (sizes LLVM accepts);
- alignments (`align N` of globals, functions, parameters and memory instructions):
  a power of two, at most 2^32;
- constants: aggregates, strings, splats and float spellings (verify_constants.py),
  initializers of external globals;
- the `llvm.used` and ctor/dtor lists, `appending` linkage (verify_intrinsic_globals.py);
- names: LLVM forbids NUL in names, quoted or not;
- metadata attachments (`!dbg !12`) of functions, globals and instructions that
  point to undefined nodes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from enzc.ir.datalayout import X86_64_DATALAYOUT, DataLayout, DataLayoutError, for_module
from enzc.ir.describe import describe
from enzc.ir.instructions import Alloca, Call, CallBase, Instruction
from enzc.ir.metadata import Metadata, MDRef, MDTuple
from enzc.ir.module import Function, Module
from enzc.ir.names import unquote_name
from enzc.ir.types import FunctionType, IntType, MetadataType, TokenType, Type, VoidType
from enzc.ir.values import Constant, ConstantSimple, GlobalValue, InlineAsm, MetadataOperand, Value
from enzc.ir.verify_atomics import atomic_problem
from enzc.ir.verify_attribute_lists import (
    expand_groups, function_attribute_problems, parameter_list_problems, return_attribute_list_problems,
)
from enzc.ir.verify_attributes import attribute_problem, attribute_word, typed_attribute_problem
from enzc.ir.verify_blockaddress import blockaddress_problems
from enzc.ir.datalayout_rules import layout_problem
from enzc.ir.verify_constants import constant_problems, global_problems
from enzc.ir.verify_flags import module_flag_problems
from enzc.ir.verify_intrinsic_globals import intrinsic_global_problems
from enzc.ir.verify_linkage import prefix_problems, suffix_problems
from enzc.ir.verify_eh import eh_problems
from enzc.ir.verify_musttail import musttail_problem
from enzc.ir.verify_known_metadata import loop_attachment_problem, named_metadata_problems
from enzc.ir.verify_prof import prof_problem
from enzc.ir.verify_range import range_problem
from enzc.ir.verify_inline_asm import inline_asm_problem
from enzc.ir.verify_metadata import metadata_problems, node_problems, undefined_references
from enzc.ir.verify_scopes import SCOPE_KINDS, scope_list_problem
from enzc.ir.verify_tbaa import tbaa_problem

MAX_ALIGNMENT = 1 << 32
_ALIGN_WORD = re.compile(r"\balign\s+(-?\d+)\b|\balign\s*\((-?\d+)\)|\balignstack\((-?\d+)\)")
_GROUP_REF = re.compile(r"#(\d+)\Z")


def module_problems(module: Module) -> list[str]:
    """Everything wrong at module level (function bodies are checked elsewhere)."""
    problems = metadata_problems(module) + module_flag_problems(module) + _datalayout_problems(module)
    problems += named_metadata_problems(module)
    problems += intrinsic_global_problems(module)
    for fn in module.functions.values():
        where = f"@{fn.name}"
        problems += _name_problems(where, fn.name)
        problems += _attribute_problems(where, [fn.fn_attrs])
        problems += _typed_attribute_problems(where, [(fn.ret_attrs, fn.function_type.ret)]
                                              + [(a.attrs, a.type) for a in fn.args])
        problems += _attribute_problems(where, [fn.ret_attrs, *(a.attrs for a in fn.args)],
                                        "param")
        problems += _attribute_list_problems(where, fn, module)
        problems += prefix_problems(where, fn.linkage.words, "function")
        problems += _intrinsic_only_type_problems(where, fn)
        problems += _allocsize_problems(where, fn.fn_attrs, fn.function_type, module)
        if fn.linkage.linkage in ("common", "appending"):
            problems.append(f"{where}: invalid function linkage type")
        elif fn.is_declaration and fn.linkage.linkage not in ("external", "extern_weak"):
            problems.append(f"{where}: invalid linkage for function declaration")  # ll:7606625
        if fn.is_declaration and any(w.startswith("personality") for w in fn.header_suffix):
            problems.append(f"{where}: a declaration cannot have a personality")
        problems += _alignment_problems(where, " ".join(fn.header_suffix))
        problems += _comdat_problems(where, fn.header_suffix, fn.name, fn.is_declaration, module)
        problems += _attachment_problems(where, _attachments(fn), module.metadata)
    for var in module.globals.values():
        where = f"@{var.name}"
        problems += _name_problems(where, var.name)
        problems += prefix_problems(where, var.linkage.words, "variable")
        problems += suffix_problems(where, var.suffix)
        problems += _alignment_problems(where, " ".join(var.suffix))
        problems += _comdat_problems(where, var.suffix, var.name, var.initializer is None, module)
        problems += _attribute_problems(where, [var.attrs])
        problems += global_problems(var)
        if var.initializer is not None:
            problems += [f"{where}: {p}" for p in blockaddress_problems(var.initializer, module)]
        problems += _attachment_problems(where, _attachments(var), module.metadata)
    for alias in module.aliases.values():
        problems += _name_problems(f"@{alias.name}", alias.name)
        problems += prefix_problems(f"@{alias.name}", alias.linkage.words, "alias")
    for name in module.types:
        problems += _name_problems(f"type %{name}", name)
    errno_tags = module.named_metadata.get("llvm.errno.tbaa")
    if errno_tags is not None and not errno_tags:
        problems.append("llvm.errno.tbaa must have at least one operand")
    for ref in errno_tags or []:
        problems += _errno_tbaa_problems(ref, module.metadata)
    for key, attrs in module.attribute_groups.items():
        problems += _attribute_problems(f"attributes #{key}", [attrs])
    return problems


def _attribute_list_problems(where: str, fn: Function, module: Module) -> list[str]:
    """The rules over a function's attributes taken together (verify_attribute_lists.py)."""
    ftype = fn.function_type
    problems = return_attribute_list_problems(fn.ret_attrs)
    problems += parameter_list_problems(ftype.ret, [(a.attrs, a.type) for a in fn.args], len(fn.args),
                                        intrinsic=fn.name.startswith("llvm."), inline_asm=False)
    problems += function_attribute_problems(expand_groups(fn.fn_attrs, module.attribute_groups),
                                            [a.attrs for a in fn.args],
                                            global_unnamed_addr=fn.unnamed_addr == "unnamed_addr")
    if not isinstance(ftype.ret, VoidType) and any(
            attribute_word(attr) == "sret" for a in fn.args for attr in a.attrs):
        problems.append("functions with 'sret' argument must return void")
    return [f"{where}: {p}" for p in problems]


def _call_attribute_list_problems(where: str, call: CallBase, module: Module) -> list[str]:
    callee = call.callee
    ftype = call.function_type
    problems = return_attribute_list_problems(call.ret_attrs)
    problems += parameter_list_problems(
        ftype.ret, list(zip(call.arg_attrs, (a.type for a in call.args))), len(ftype.params),
        intrinsic=isinstance(callee, Function) and callee.name.startswith("llvm."),
        inline_asm=isinstance(callee, InlineAsm))
    problems += function_attribute_problems(expand_groups(call.fn_attrs, module.attribute_groups),
                                            call.arg_attrs, global_unnamed_addr=None)
    return [f"{where}: {p}" for p in problems]


def _comdat_problems(where: str, words: Iterable[str], own_name: str, declaration: bool,
                     module: Module) -> list[str]:
    """`comdat($c)` names a defined `$c = comdat ...`, a bare `comdat` the global's own
    name; a declaration is in none (ll:5109999)."""
    for word in words:
        if word == "comdat" or word.startswith("comdat("):
            name = unquote_name(word[7:-1]) if word != "comdat" else own_name
            if name not in module.comdats:
                return [f"{where}: use of undefined comdat '${name}'"]
            if declaration:
                return [f"{where}: a declaration may not be in a comdat"]
    return []


def _layout(module: Module) -> DataLayout:
    """The module's data layout, x86-64's if its own is broken (reported elsewhere)."""
    try:
        return for_module(module)
    except DataLayoutError:
        return DataLayout.parse(X86_64_DATALAYOUT)


def _datalayout_problems(module: Module) -> list[str]:
    if problem := layout_problem(module.datalayout or ""):
        return [f"target datalayout: {problem}"]
    try:
        DataLayout.parse(module.datalayout or "")
    except DataLayoutError as err:
        return [f"target datalayout: {err}"]
    return _triple_problems(module.triple or "")


def _triple_problems(triple: str) -> list[str]:
    """An architecture LLVM's triple parser does not know (`x86_68-pc-linux`): llvm-as
    keeps it, but opt, llc and clang reject the module ("unrecognized architecture")."""
    import llvmlite.binding as llvm

    arch = triple.split("-", 1)[0]
    ascii_triple = "".join(c if c.isascii() else "?" for c in triple)  # LLVM knows only ASCII names;
    # bytes that are not UTF-8 (kept as surrogates) cannot be handed to llvmlite
    if arch in ("", "unknown") or llvm.get_triple_parts(ascii_triple).Arch != "unknown":
        return []
    return [f"target triple: unrecognized architecture '{arch}'"]


def body_problems(module: Module, fn: Function) -> list[str]:
    """Per-instruction checks the type checker does not make (names, alignment,
    attribute groups of calls, metadata attachments and operands)."""
    problems: list[str] = eh_problems(fn)
    layout = _layout(module)
    for arg in fn.args:
        if arg.name is not None:
            problems += _name_problems(f"@{fn.name}, argument %{arg.name}", arg.name)
    for block in fn.blocks:
        if block.name is not None:
            problems += _name_problems(f"@{fn.name}, block %{block.name}", block.name)
        for inst in block.instructions:
            where = f"@{fn.name}, {describe(inst)}"
            if inst.name is not None:
                problems += _name_problems(where, inst.name)
            problems += _flag_problems(where, getattr(inst, "flags", ()), inst.opcode)
            align = getattr(inst, "align", None)
            if align is not None:
                problems += _alignment_value_problems(where, align)
            if isinstance(inst, Call) and inst.tail == "musttail" and \
                    (problem := musttail_problem(fn, inst)):
                problems.append(f"{where}: {problem}")
            if isinstance(inst, CallBase):
                if isinstance(inst.callee, InlineAsm) and (problem := inline_asm_problem(inst)):
                    problems.append(f"{where}: {problem}")
                problems += _intrinsic_call_problems(where, inst, module.metadata)
                problems += _intrinsic_only_call_problems(where, inst)
                problems += _allocsize_problems(where, inst.fn_attrs, inst.function_type, module)
                problems += _attribute_problems(where, [inst.fn_attrs])
                problems += _typed_attribute_problems(
                    where, [(inst.ret_attrs, inst.type), *zip(inst.arg_attrs, (a.type for a in inst.args))])
                problems += _attribute_problems(where, [inst.ret_attrs, *inst.arg_attrs],
                                                "param")
                problems += _call_attribute_list_problems(where, inst, module)
            problems += _attachment_problems(where, _attachments(inst), module.metadata)
            problems += _tbaa_problems(where, inst, module.metadata)
            if problem := prof_problem(inst.metadata.get("prof"), inst, module.metadata):
                problems.append(f"{where}: {problem}")
            if problem := range_problem(inst.metadata.get("range"), inst, module.metadata):
                problems.append(f"{where}: {problem}")
            if problem := loop_attachment_problem(inst.metadata.get("llvm.loop"), module.metadata):
                problems.append(f"{where}: {problem}")
            if problem := atomic_problem(inst, layout):
                problems.append(f"{where}: {problem}")
            problems += [f"{where}: {p}" for kind in SCOPE_KINDS
                         if (p := scope_list_problem(inst.metadata.get(kind), module.metadata))]
            problems += _operand_metadata_problems(where, inst, module.metadata)
            for op in [*inst.operands, *(op for r in inst.debug_records for op in r.operands)]:
                if isinstance(op, Constant) and not isinstance(op, GlobalValue):
                    problems += [f"{where}: {p}" for p in constant_problems(op) + blockaddress_problems(op, module)]
    return problems


_ONCE_FLAGS = frozenset("nuw nsw exact disjoint nneg samesign inbounds nusw inrange".split())


_FLAG_OPCODES = {
    "nuw": {"add", "sub", "mul", "shl", "trunc", "getelementptr"},
    "nsw": {"add", "sub", "mul", "shl", "trunc"},
    "exact": {"udiv", "sdiv", "lshr", "ashr"},
    "disjoint": {"or"}, "nneg": {"zext", "uitofp"}, "samesign": {"icmp"},
    "inbounds": {"getelementptr"}, "nusw": {"getelementptr"},
}
"""The instructions each integer flag may qualify (LLVM reads it nowhere else)."""


def _flag_problems(where: str, flags: tuple[str, ...], opcode: str) -> list[str]:
    """`sub nsw nsw` and `udiv nuw` are syntax errors for LLVM (fast-math flags may repeat)."""
    misplaced = sorted({f for f in flags if f in _FLAG_OPCODES and opcode not in _FLAG_OPCODES[f]})
    if misplaced:
        return [f"{where}: flag '{misplaced[0]}' does not apply to {opcode}"]
    repeated = sorted({f for f in flags if f in _ONCE_FLAGS and flags.count(f) > 1})
    return [f"{where}: flag '{f}' given twice" for f in repeated]


def _intrinsic_call_problems(where: str, call: CallBase, defined: dict[str, Metadata]) -> list[str]:
    """An intrinsic's declaration fixes its signature; a call must use exactly it (other
    callees may be called through a different function type)."""
    callee = call.callee
    if not (isinstance(callee, Function) and callee.name.startswith("llvm.")):
        return []
    if call.function_type != callee.function_type:
        return [f"{where}: intrinsic called with incompatible signature "
                f"({call.function_type}, declared {callee.function_type})"]
    if callee.name.startswith("llvm.threadlocal.address.") and call.args:
        return _threadlocal_address_problems(where, call.args[0])
    if callee.name == "llvm.experimental.noalias.scope.decl" and call.args:
        return [f"{where}: {p}" for p in [_scope_decl_problem(call.args[0], defined)] if p]
    if callee.name.startswith(("llvm.lifetime.start.", "llvm.lifetime.end.")) and call.args:
        operand = call.args[-1]  # ll:4902429
        if not (isinstance(operand, Alloca) or (isinstance(operand, ConstantSimple) and operand.keyword == "poison")):
            return [f"{where}: llvm.lifetime.start/end can only be used on alloca or poison"]
    return []


def _scope_decl_problem(operand: Value, defined: dict[str, Metadata]) -> str | None:
    """`llvm.experimental.noalias.scope.decl` takes a list of exactly one scope (ll:5208647)."""
    md = operand.md if isinstance(operand, MetadataOperand) else None
    scopes = defined.get(md.id) if isinstance(md, MDRef) else md
    if not isinstance(scopes, MDTuple):
        return "!id.scope.list must point to an MDNode"
    if len(scopes.operands) != 1:
        return "!id.scope.list must point to a list with a single scope"
    return scope_list_problem(scopes, defined)


def _threadlocal_address_problems(where: str, operand: Value) -> list[str]:
    """`llvm.threadlocal.address` takes a global that is itself `thread_local` (an alias
    of one is not)."""
    if not isinstance(operand, GlobalValue):
        return [f"{where}: llvm.threadlocal.address takes a global, not '{operand.ref()}'"]
    words = getattr(getattr(operand, "linkage", None), "words", ())
    if not any(w.startswith("thread_local") for w in words):
        return [f"{where}: llvm.threadlocal.address of '{operand.ref()}', "
                "which is not thread_local"]
    return []


_ALLOCSIZE = re.compile(r"allocsize\((\d+)(?:,\s*(\d+))?\)\Z")


def _allocsize_problems(where: str, attrs: Iterable[str], ftype: FunctionType,
                        module: Module) -> list[str]:
    """`allocsize(i[, j])` (also through an attribute group) names integer parameters
    of the function or call it is on."""
    problems = []
    for word in expand_groups(attrs, module.attribute_groups):
        if (m := _ALLOCSIZE.match(word)) is None:
            continue
        for index, role in ((m.group(1), "element size"), (m.group(2), "number of elements")):
            if index is None:
                continue
            if int(index) >= len(ftype.params):
                problems.append(f"{where}: 'allocsize' {role} argument is out of bounds")
            elif not isinstance(ftype.params[int(index)], IntType):
                problems.append(f"{where}: 'allocsize' {role} argument must refer to an "
                                "integer parameter")
    return problems


def _intrinsic_only_type_problems(where: str, fn: Function) -> list[str]:
    """Token and metadata values cross only intrinsic boundaries (LLVM's verifier)."""
    if fn.name.startswith("llvm."):
        return []
    problems = [f"{where}: function takes {kind} but isn't an intrinsic"
                for kind in _intrinsic_only_kinds(fn.function_type.params)]
    if isinstance(fn.function_type.ret, TokenType):
        problems.append(f"{where}: function returns a token but isn't an intrinsic")
    return problems


def _intrinsic_only_call_problems(where: str, call: CallBase) -> list[str]:
    """A call passes tokens or metadata only to an intrinsic, and an indirect call
    returns no token (LLVM's verifier, e.g. ll:4101835: `@__sigsetjmp(token ...)`)."""
    callee = call.callee
    if isinstance(callee, Function) and callee.name.startswith("llvm."):
        return []
    ftype = call.function_type
    problems = [f"{where}: function has {kind} parameter but isn't an intrinsic"
                for kind in _intrinsic_only_kinds(ftype.params)]
    if not isinstance(callee, Function) and isinstance(ftype.ret, TokenType):
        problems.append(f"{where}: return type cannot be token for indirect call")
    return problems


def _intrinsic_only_kinds(params: Iterable[Type]) -> list[str]:
    kinds = {"token": TokenType, "metadata": MetadataType}
    return [kind for kind, cls in kinds.items() if any(isinstance(p, cls) for p in params)]


def _name_problems(where: str, name: str) -> list[str]:
    return [f"{where}: NUL character is not allowed in names"] if "\0" in name else []


def _attribute_problems(where: str, lists: Iterable[Iterable[str]],
                        position: str = "fn") -> list[str]:
    problems = []
    for attrs in lists:
        for attr in attrs:
            group = _GROUP_REF.match(attr)  # an undefined group is fine with LLVM
            message = attribute_problem(attr, position)
            if message:
                problems.append(f"{where}: {message}")
            elif not group:
                problems += _alignment_problems(where, attr)
    return problems


def _typed_attribute_problems(where: str, pairs: Iterable[tuple[Iterable[str], Type]]) -> list[str]:
    return [f"{where}: {message}" for attrs, type in pairs for attr in attrs
            if (message := typed_attribute_problem(attr, type))]


def _alignment_problems(where: str, text: str) -> list[str]:
    problems = []
    for m in _ALIGN_WORD.finditer(re.sub(r'"[^"]*"', '""', text)):
        value = int(m.group(1) or m.group(2) or m.group(3))
        limit = 256 if m.group(3) else MAX_ALIGNMENT
        problems += _alignment_value_problems(where, value, limit)
    return problems


def _alignment_value_problems(where: str, value: int, limit: int = MAX_ALIGNMENT) -> list[str]:
    if value <= 0 or value & (value - 1):
        return [f"{where}: alignment {value} is not a power of two"]
    if value > limit:
        return [f"{where}: alignment {value} is larger than {limit}"]
    return []


def _attachments(owner: object) -> Iterator[tuple[str, Metadata]]:
    yield from getattr(owner, "metadata", {}).items()
    yield from getattr(owner, "repeated_metadata", [])


def _attachment_problems(where: str, attachments: Iterable[tuple[str, Metadata]],
                         defined: dict[str, Metadata]) -> list[str]:
    problems = []
    for kind, node in attachments:
        for ref in undefined_references(node, defined):
            problems.append(f"{where}: !{kind} uses undefined metadata '!{ref}'")
    return problems


def _tbaa_problems(where: str, inst: Instruction, defined: dict[str, Metadata]) -> list[str]:
    problem = tbaa_problem(inst.metadata.get("tbaa"), defined, opcode=inst.opcode)
    return [f"{where}: {problem}"] if problem else []


def _errno_tbaa_problems(ref: str, defined: dict[str, Metadata]) -> list[str]:
    """`!llvm.errno.tbaa` lists access tags; unlike an instruction's `!tbaa`, LLVM
    does not upgrade an old-style (scalar) one there: it rejects it."""
    problem = tbaa_problem(MDRef(ref), defined) if ref in defined else None
    return [f"!llvm.errno.tbaa: !{ref}: {problem}"] if problem else []


def _operand_metadata_problems(where: str, inst: Instruction,
                               defined: dict[str, Metadata]) -> list[str]:
    """`metadata !N` call operands and debug-record operands must name defined nodes;
    nodes written inline there (`!DIExpression(...)`) must be well formed."""
    problems = []
    operands = list(inst.operands)
    for record in inst.debug_records:
        operands += list(record.operands)
    for op in operands:
        if isinstance(op, MetadataOperand):
            for ref in undefined_references(op.md, defined):
                problems.append(f"{where}: use of undefined metadata '!{ref}'")
            problems += [f"{where}: {p}" for p in node_problems(op.md)]
    return problems
