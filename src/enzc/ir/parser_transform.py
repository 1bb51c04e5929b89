"""Grammar callbacks that build enzc's IR objects while the LALR parser reduces.

One `Builder` serves both start symbols of llvm.lark: `module` (type definitions,
comdats, globals, aliases, function headers) and `body` (one function body). The
callbacks run in source order, so the builder keeps the state of the body being
parsed: the local symbol table, forward references (a placeholder per name, swapped
for the real value with `replace_all_uses_with` when its definition appears), the
current block, the next slot number and debug records waiting for their instruction.

Untyped values (`value` in the grammar) reach the rule that knows their type as a
`Tok` or as a function of the type (`Deferred`); `tv` and friends resolve them.
Problems are raised as `BuildError(offset, message)` at a token's offset.
"""

from __future__ import annotations

import math
import struct
import sys
from typing import Any, Callable

from enzc.ir.instructions import (
    Alloca, AtomicRMW, BinaryOp, Br, Call, CallBr, Cast, CatchRet, CatchSwitch, CleanupRet, CmpXchg,
    Compare, DebugRecord, DIArgList, ExtractElement, ExtractValue, Fence, Freeze, FuncletPad,
    GetElementPtr, IndirectBr, InsertElement, InsertValue, Instruction, Invoke, LandingPad, Load, Phi,
    Resume, Ret, Select, ShuffleVector, Store, Switch, UnaryOp, Unreachable, VAArg,
)
from enzc.ir.metadata import Metadata, MDRef, MDString, MDTuple, MDValue
from enzc.ir.module import Alias, BasicBlock, Comdat, Function, GlobalVariable, Module
from enzc.ir.names import unescape
from enzc.ir.parser_lalr import Tok
from enzc.ir.parser_metadata import MDSyntax, parse_node
from enzc.ir.types import (
    I1, LABEL, METADATA, PTR, TOKEN, VOID, ArrayType, FloatType, FunctionType, IntType,
    NamedStructType, PointerType, StructType, TargetExtType, Type, VectorType, X86AMXType,
)
from enzc.ir.values import (
    ConstantAggregate, ConstantExpr, ConstantFP, ConstantInt, ConstantSimple, ConstantSplat,
    ConstantString, GlobalValue, InlineAsm, LocalValue, MetadataOperand, RawConstant, Value,
)

Deferred = Callable[[Type], Value]


class BuildError(Exception):
    """A semantic error (undefined value, type mismatch, ...) at an offset of the parsed text."""

    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos = pos
        self.message = message


class _Forward(LocalValue):
    """A local used before its definition; replaced when the definition is parsed."""

    def __init__(self, type: Type, name: str, tok: Tok) -> None:
        super().__init__(type, name)
        self.tok = tok


class _GlobalForward(GlobalValue):
    """A global referenced in a module-level constant before its definition."""

    def __init__(self, name: str, tok: Tok, type: Type) -> None:
        super().__init__(type, name)
        self.tok = tok


_LINKAGE_WORDS = frozenset({
    "private", "internal", "available_externally", "linkonce", "weak", "common", "appending",
    "extern_weak", "linkonce_odr", "weak_odr", "external", "dso_local", "dso_preemptable",
    "default", "hidden", "protected", "dllimport", "dllexport", "thread_local", "unnamed_addr",
    "local_unnamed_addr", "externally_initialized",
})
_CCONV_PREFIXES = ("amdgpu_", "aarch64_", "ptx_", "spir_", "riscv_", "arm_", "x86_", "m68k_", "avr_", "msp430_")
_ATTR_TOKENS = frozenset({"WORD", "ATTR_PAREN", "STRATTR", "STRING", "ATTRGRP", "WEAK", "ALLOCA_FLAG"})


def is_cconv(word: str) -> bool:
    """Calling-convention keywords: `fastcc`, `cc 10`, `x86_stdcallcc`, `amdgpu_kernel`, ..."""
    return word.endswith("cc") or word.startswith("cc ") or word.startswith(_CCONV_PREFIXES)


def _slot_key(name: str) -> str:
    """Numbered names compare as numbers: `%04` is `%4`."""
    return str(int(name)) if name[:1] == "0" and len(name) > 1 and name.isdigit() else name


def unquote_name(text: str) -> str:
    """A name without its sigil: `%x` → `x`, `@"a b"` → `a b` (escapes decoded)."""
    body = text[1:]
    if body.startswith('"'):
        return unescape(body[1:-1]).decode("utf-8", "surrogateescape")
    return body


def fp_value(text: str, kind: str) -> float:
    """The value of an LLVM floating literal (decimal, or hex bits of the type)."""
    if not text.startswith("0x"):
        return float(text)
    tag = text[2]
    digits = text[3:] if tag in "KLMHR" else text[2:]
    bits = int(digits, 16)
    if tag not in "KLMHR":
        return struct.unpack("<d", struct.pack("<Q", bits & (2**64 - 1)))[0]
    if tag == "H":
        return struct.unpack("<e", struct.pack("<H", bits & 0xFFFF))[0]
    if tag == "R":
        return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]
    if tag == "K":  # x86_fp80: sign, 15-bit exponent, 64-bit mantissa with explicit integer bit
        sign = -1.0 if bits >> 79 else 1.0
        exp = (bits >> 64) & 0x7FFF
        mant = bits & (2**64 - 1)
        if exp == 0x7FFF:
            return sign * math.inf if mant << 1 == 0 else math.nan
        return sign * math.ldexp(mant, exp - 16383 - 63)
    if tag == "L":  # fp128, printed low 64 bits first
        lo, hi = bits >> 64, bits & (2**64 - 1)
        full = (hi << 64) | lo
        sign = -1.0 if full >> 127 else 1.0
        exp = (full >> 112) & 0x7FFF
        mant = full & (2**112 - 1)
        if exp == 0x7FFF:
            return sign * math.inf if mant == 0 else math.nan
        if exp == 0:
            return sign * math.ldexp(mant, 1 - 16383 - 112)
        return sign * math.ldexp(mant | (1 << 112), exp - 16383 - 112)
    # ppc_fp128: the sum of two doubles, high one first
    hi, lo = bits >> 64, bits & (2**64 - 1)
    return sum(struct.unpack("<d", struct.pack("<Q", part))[0] for part in (hi, lo))


class Builder:
    """Callbacks for llvm.lark. Set up with `begin_module` or `begin_body` before parsing."""

    def __init__(self) -> None:
        self.mod: Module = Module()
        self._words: dict[str, str] = {}
        self._int_types: dict[str, IntType] = {}
        self._float_types: dict[str, FloatType] = {}
        self._tokval: dict[str, Callable[[Tok, Type], Value]] = {
            "LOCAL": self._local_value, "GLOBAL": self._global_value, "INT": self._int_value,
            "FLOAT": self._float_value, "CONSTKW": self._keyword_value, "CSTRING": self._cstring_value,
        }
        self._reset_body(None)

    # ------------------------------------------------------------------ state
    def begin_module(self, module: Module) -> None:
        self.mod = module
        self._reset_body(None)
        self.global_forward: dict[str, list[_GlobalForward]] = {}
        self.defined_types: set[str] = set()
        self.type_refs: dict[str, Tok] = {}
        self.defined_functions: list[Function] = []
        self.header_arg_names: list[list[str | None]] = []

    def _reset_body(self, fn: Function | None) -> None:
        self.fn = fn
        self.locals: dict[str, Value] = {}
        self.forward: dict[str, _Forward] = {}
        self.forward_blocks: dict[str, tuple[BasicBlock, Tok]] = {}
        self.blocks: list[BasicBlock] = []
        self.block: BasicBlock | None = None
        self.next_slot = 0
        self.pending_records: list[DebugRecord] = []
        self.md_forward: list[MDValue] = []
        self.new_declarations: list[Function] = []

    def begin_body(self, module: Module, fn: Function, arg_source_names: list[str | None]) -> None:
        """Prepare to parse `fn`'s body; `arg_source_names` are the argument names as written."""
        self.mod = module
        self._reset_body(fn)
        for arg, name in zip(fn.args, arg_source_names):
            if name is None:
                name = str(self.next_slot)
            if name.isdigit():
                self.next_slot = int(name) + 1
            self.locals[name] = arg

    def finish_body(self, end_pos: int) -> list[BasicBlock]:
        """Check the body is complete and return its blocks."""
        for name, fwd in self.forward.items():
            raise BuildError(fwd.tok.pos, f"use of undefined value '%{name}'")
        for name, (_, tok) in self.forward_blocks.items():
            raise BuildError(tok.pos, f"use of undefined label '%{name}'")
        if not self.blocks:
            raise BuildError(end_pos, "function body requires at least one basic block")
        last = self.blocks[-1]
        if self.pending_records:
            last.trailing_debug_records.extend(self.pending_records)
            self.pending_records = []
        if last.terminator is None:
            raise BuildError(end_pos, "expected instruction opcode: block does not end with a terminator")
        blocks = self.blocks
        self._reset_body(None)
        return blocks

    def abandon_body(self) -> None:
        """After an error: unregister the uses held by the half-built body, then reset."""
        for block in self.blocks:
            for inst in block.instructions:
                inst.drop_operands()
                for rec in inst.debug_records:
                    rec.drop_operands()
        for rec in self.pending_records:
            rec.drop_operands()
        for fn in self.new_declarations:
            del self.mod.functions[fn.name]  # type: ignore[arg-type]
        self._reset_body(None)

    # ------------------------------------------------------------------ small helpers
    def _text(self, tok: str) -> str:
        """The interned plain-str copy of a token's text."""
        w = self._words.get(tok)
        if w is None:
            w = self._words[tok] = sys.intern(str(tok))
        return w

    def _attrs(self, items: list[Any]) -> list[str]:
        """Attribute strings from a run of attribute tokens (`align` and `cc` take the next INT)."""
        out = []
        it = iter(items)
        for t in it:
            kind = t.type
            if kind in _ATTR_TOKENS:
                out.append(self._text(t))
            elif kind in ("ALIGN", "CC"):
                out.append(self._text(f"{t} {next(it)}"))
            elif kind == "ADDRSPACE":
                out.append(self._text(f"addrspace({next(it)})"))
            else:
                raise BuildError(t.pos, f"unexpected '{t}'")
        return out

    def _name_of(self, tok: Tok) -> str:
        return sys.intern(_slot_key(unquote_name(tok)))

    # ------------------------------------------------------------------ terminals (on shift)
    def INTTYPE(self, tok: Tok) -> IntType:
        t = self._int_types.get(tok)
        if t is None:
            bits = int(tok[1:])
            if not 1 <= bits <= 2**23:
                raise BuildError(tok.pos, f"invalid integer width {bits}")
            t = self._int_types[tok] = IntType(bits)
        return t

    def FLOATTY(self, tok: Tok) -> FloatType:
        t = self._float_types.get(tok)
        if t is None:
            t = self._float_types[tok] = FloatType(str(tok))
        return t

    def PTR(self, tok: Tok) -> Type:
        return PTR

    def VOID(self, tok: Tok) -> Type:
        return VOID

    def LABEL(self, tok: Tok) -> Type:
        return LABEL

    def TOKEN(self, tok: Tok) -> Type:
        return TOKEN

    def X86_AMX(self, tok: Tok) -> Type:
        return X86AMXType()

    def METADATA(self, tok: Tok) -> Type:
        return METADATA

    def MDREF(self, tok: Tok) -> Metadata:
        return MDRef(tok[1:])

    def MDSTRING(self, tok: Tok) -> Metadata:
        return MDString(unescape(tok[2:-1]))

    def MDSPECIAL(self, tok: Tok) -> Metadata:
        try:
            return parse_node(str(tok), resolve=self.mod.get_global)
        except MDSyntax as e:
            raise BuildError(tok.pos + e.column - 1, e.message) from None

    def LABEL_DEF(self, tok: Tok) -> None:
        """A block label starts a new block (runs when the label is shifted, in order)."""
        if self.fn is None:
            raise BuildError(tok.pos, "label outside a function body")
        text = tok[:-1]
        name = sys.intern(_slot_key(unescape(text[1:-1]).decode("utf-8", "surrogateescape") if text.startswith('"') else text))
        prev = self.block
        if prev is not None and prev.terminator is None:
            raise BuildError(tok.pos, f"expected instruction opcode: block before label '{name}' has no terminator")
        if prev is not None and self.pending_records:
            prev.trailing_debug_records.extend(self.pending_records)
            self.pending_records = []
        fwd = self.forward_blocks.pop(name, None)
        if fwd is not None:
            block = fwd[0]
        else:
            if name in self.locals or name in self.forward:
                raise BuildError(tok.pos, f"redefinition of '%{name}'")
            block = BasicBlock(None if name.isdigit() else name)
        self._number(name, tok)
        self.locals[name] = block
        block.parent = self.fn
        self.blocks.append(block)
        self.block = block

    def _number(self, name: str, tok: Tok) -> None:
        """Check and advance LLVM's numbering for a numbered definition."""
        if name.isdigit():
            n = int(name)
            if n < self.next_slot:
                raise BuildError(tok.pos, f"value expected to be numbered '%{self.next_slot}' or greater")
            self.next_slot = n + 1

    # ------------------------------------------------------------------ types
    def named_type(self, c: list) -> Type:
        tok = c[0]
        name = self._name_of(tok)
        t = self.mod.types.get(name)
        if t is None:
            if self.fn is not None:
                raise BuildError(tok.pos, f"use of undefined type named '{name}'")
            t = self.mod.named_type(name)
        if self.fn is None and name not in self.defined_types:
            self.type_refs.setdefault(name, tok)
        return t

    def ptr_addrspace(self, c: list) -> Type:
        n = int(c[2])
        return PTR if n == 0 else PointerType(n)

    def struct_type(self, c: list) -> Type:
        return StructType(tuple(t for t in c if t is not None))

    def packed_struct_type(self, c: list) -> Type:
        return StructType(tuple(t for t in c if t is not None), packed=True)

    def array_type(self, c: list) -> Type:
        return ArrayType(int(c[0]), c[1])

    def vector_type(self, c: list) -> Type:
        return VectorType(int(c[0]), c[1])

    def scalable_vector_type(self, c: list) -> Type:
        return VectorType(int(c[0]), c[1], scalable=True)

    def function_type(self, c: list) -> Type:
        ret, params = c
        types, vararg = params if params is not None else ((), False)
        return FunctionType(ret, types, vararg)

    def param_types(self, c: list) -> tuple[tuple[Type, ...], bool]:
        vararg = bool(c) and isinstance(c[-1], Tok) and c[-1].type == "ELLIPSIS"
        return tuple(t for t in c if not isinstance(t, Tok) and t is not None), vararg

    def target_type(self, c: list) -> Type:
        name = unescape(c[0][1:-1]).decode()
        types = tuple(x for x in c[1:] if isinstance(x, Type))
        ints = tuple(int(x) for x in c[1:] if isinstance(x, Tok))
        return TargetExtType(name, types, ints)

    # ------------------------------------------------------------------ values
    def resolve(self, t: Type, v: Any) -> Value:
        if v.__class__ is Tok:
            return self._tokval[v.type](v, t)
        return v(t)

    def tv(self, c: list) -> Value:
        v = c[1]
        if v.__class__ is Tok:
            return self._tokval[v.type](v, c[0])
        return v(c[0])

    def _local_value(self, tok: Tok, t: Type) -> Value:
        if self.fn is None:
            raise BuildError(tok.pos, f"local value '{tok}' outside a function body")
        name = tok[1:]
        if name[0] == '"' or name[0] == "0":
            name = self._name_of(tok)
        v = self.locals.get(name)
        if v is None:
            v = self.forward.get(name)
            if v is None:
                if t is LABEL:
                    return self._block_ref(tok)
                v = self.forward[name] = _Forward(t, name, tok)
        if v.type is not t and v.type != t:
            raise BuildError(tok.pos, f"'%{name}' defined with type '{v.type}' but expected '{t}'")
        return v

    def _block_ref(self, tok: Tok) -> BasicBlock:
        name = self._name_of(tok)
        v = self.locals.get(name)
        if v is not None:
            if not isinstance(v, BasicBlock):
                raise BuildError(tok.pos, f"'%{name}' is not a basic block")
            return v
        entry = self.forward_blocks.get(name)
        if entry is None:
            if name in self.forward:
                raise BuildError(tok.pos, f"'%{name}' is not a basic block")
            entry = self.forward_blocks[name] = (BasicBlock(None if name.isdigit() else name), tok)
        return entry[0]

    def _global_value(self, tok: Tok, t: Type) -> Value:
        name = self._name_of(tok)
        g = self.mod.get_global(name)
        if g is None:
            if self.fn is not None:
                raise BuildError(tok.pos, f"use of undefined value '@{name}'")
            g = _GlobalForward(name, tok, t)
            self.global_forward.setdefault(name, []).append(g)
        if g.type != t and not isinstance(g, _GlobalForward):
            raise BuildError(tok.pos, f"'@{name}' defined with type '{g.type}' but expected '{t}'")
        if not isinstance(t, PointerType):
            raise BuildError(tok.pos, f"global variable reference must have pointer type, not '{t}'")
        return g

    def _int_value(self, tok: Tok, t: Type) -> Value:
        if t.__class__ is not IntType:
            raise BuildError(tok.pos, f"integer constant must have integer type, not '{t}'")
        # ConstantInt wraps to the width, so `s0xFF` and `u0xFF` both need no sign handling.
        return ConstantInt(t, int(tok[3:], 16) if tok[0] in "us" else int(tok))

    def _float_value(self, tok: Tok, t: Type) -> Value:
        if t.__class__ is not FloatType:
            raise BuildError(tok.pos, f"floating point constant invalid for type '{t}'")
        return ConstantFP(t, fp_value(tok, t.kind), self._text(tok))

    def _keyword_value(self, tok: Tok, t: Type) -> Value:
        if tok == "true" or tok == "false":
            if t != I1:
                raise BuildError(tok.pos, f"'{tok}' must have type i1, not '{t}'")
            return ConstantInt(I1, 1 if tok == "true" else 0)
        return ConstantSimple(t, self._text(tok))

    def _cstring_value(self, tok: Tok, t: Type) -> Value:
        data = unescape(tok[2:-1])
        if not (isinstance(t, ArrayType) and t.element == IntType(8) and t.count == len(data)):
            raise BuildError(tok.pos, f"constant string c\"...\" of {len(data)} bytes does not match type '{t}'")
        return ConstantString(t, data)

    # deferred constants: the callbacks return functions of the type
    def struct_c(self, c: list) -> Deferred:
        elems = [e for e in c if e is not None]
        return lambda t: ConstantAggregate(t, elems)

    packed_c = struct_c
    array_c = struct_c
    vector_c = struct_c

    def splat_c(self, c: list) -> Deferred:
        return lambda t: ConstantSplat(t, c[0])  # type: ignore[arg-type]

    def blockaddress_c(self, c: list) -> Deferred:
        text = f"blockaddress({c[0]}, {c[1]})"
        return lambda t: RawConstant(t, text)

    def dso_local_equivalent_c(self, c: list) -> Deferred:
        g = c[0]
        return lambda t: RawConstant(t, f"dso_local_equivalent {g}")

    def no_cfi_c(self, c: list) -> Deferred:
        g = c[0]
        return lambda t: RawConstant(t, f"no_cfi {g}")

    def gep_c(self, c: list) -> Deferred:
        i = 0
        flags = []
        while isinstance(c[i], Tok):
            flags.append(self._text(c[i]))
            i += 1
        source, ops = c[i], c[i + 1 :]
        head = " ".join(["getelementptr", *flags])
        text = f"{head} ({source}, " + ", ".join(_typed(o) for o in ops) + ")"
        return lambda t: ConstantExpr(t, "getelementptr", list(ops), text)

    def cast_c(self, c: list) -> Deferred:
        op, v, to = c
        text = f"{op} ({_typed(v)} to {to})"
        return lambda t: ConstantExpr(t, self._text(op), [v], text)

    def binop_c(self, c: list) -> Deferred:
        op, *flags, a, b = c
        head = " ".join([str(op), *map(str, flags)])
        text = f"{head} ({_typed(a)}, {_typed(b)})"
        return lambda t: ConstantExpr(t, self._text(op), [a, b], text)

    def extractelement_c(self, c: list) -> Deferred:
        text = f"extractelement ({_typed(c[0])}, {_typed(c[1])})"
        return lambda t: ConstantExpr(t, "extractelement", list(c), text)

    def ptrauth_c(self, c: list) -> Deferred:
        text = "ptrauth (" + ", ".join(_typed(v) for v in c) + ")"
        return lambda t: ConstantExpr(t, "ptrauth", list(c), text)

    def inline_asm(self, c: list) -> Deferred:
        text = " ".join(["asm", *map(str, c[:-2])]) + f" {c[-2]}, {c[-1]}"
        return lambda t: InlineAsm(t, text)

    # ------------------------------------------------------------------ metadata operands
    def md_tuple(self, c: list) -> Metadata:
        ops: list[Metadata | None] = []
        for x in c[1:]:
            if x is None:
                continue
            if isinstance(x, Tok):  # CONSTKW
                if x != "null":
                    raise BuildError(x.pos, f"unexpected '{x}' in metadata tuple")
                ops.append(None)
            elif isinstance(x, Value):
                ops.append(self._md(x))
            else:
                ops.append(x)
        return MDTuple(ops)

    def di_arglist(self, c: list) -> DIArgList:
        return DIArgList([v for v in c[1:] if v is not None])

    def _md(self, x: Any) -> Metadata:
        """Metadata from an `md` result; a value becomes MDValue. Metadata does not hold
        tracked uses, so an MDValue of a forward reference is fixed up in `_define`."""
        if not isinstance(x, Value):
            return x
        md = MDValue(x)
        if isinstance(x, _Forward):
            self.md_forward.append(md)
        return md

    # ------------------------------------------------------------------ module entities
    def typedef(self, c: list) -> None:
        tok, body = c[0], c[1]
        name = self._name_of(tok)
        if name in self.defined_types:
            raise BuildError(tok.pos, f"redefinition of type named '{name}'")
        t = self.mod.named_type(name)
        self.defined_types.add(name)
        # Keep definition order (references may have created the entry earlier).
        del self.mod.types[name]
        self.mod.types[name] = t
        if isinstance(body, StructType):
            t.elements, t.packed = body.elements, body.packed
        elif not (isinstance(body, Tok) and body.type == "OPAQUE"):
            raise BuildError(tok.pos, f"type '%{name}' must be a struct or opaque, not '{body}'")

    def comdat_def(self, c: list) -> None:
        name = self._name_of(c[0])
        self.mod.comdats[name] = Comdat(name, self._text(c[1]))

    def _new_global_name(self, tok: Tok) -> str:
        name = self._name_of(tok)
        if self.mod.get_global(name) is not None:
            raise BuildError(tok.pos, f"redefinition of global '@{name}'")
        return name

    def _global_words(self, c: list, start: int) -> tuple[list[str], int | None, int]:
        """Linkage/visibility/... words up to the kind keyword; returns (words, addrspace, index)."""
        words: list[str] = []
        addrspace = None
        i = start
        while c[i].type not in ("GKIND", "AKIND"):
            t = c[i]
            if t.type == "ADDRSPACE":
                addrspace = int(c[i + 1])
                words.append(f"addrspace({addrspace})")
                i += 2
                continue
            words.append(self._text(t))
            i += 1
        return words, addrspace, i

    def _global_suffix(self, c: list, i: int, suffix: list[str], md: dict[str, Metadata]) -> tuple[str, ...]:
        attrs: list[str] = []
        n = len(c) - 1  # last child is END
        while i < n:
            t = c[i]
            if t is None:
                i += 1
                continue
            kind = t.type
            if kind == "COMMA_ALIGN":
                suffix.append(f"align {c[i + 1]}")
                i += 2
            elif kind == "COMDAT":
                ref = c[i + 1] if i + 1 < n and isinstance(c[i + 1], Tok) and c[i + 1].type == "COMDATREF" else None
                suffix.append(f"comdat({ref})" if ref is not None else "comdat")
                i += 2 if ref is not None else 1
                if ref is None and i < n and c[i] is None:
                    i += 1
            elif kind == "ATTACH":
                md[t[t.index("!") + 1 :]] = self._md(c[i + 1])
                i += 2
            elif kind == "ATTACH_REF":
                key, ref = _attachment_ref(t)
                md[key] = ref
                i += 1
            elif kind == "ATTRGRP":
                attrs.append(self._text(t))
                i += 1
            else:  # `, section "x"`, `, partition "x"`, `, no_sanitize_address`, ...
                nxt = c[i + 1] if i + 1 < n else None
                if isinstance(nxt, Tok) and nxt.type == "STRING":
                    suffix.append(f"{t} {nxt}")
                    i += 2
                else:
                    suffix.append(self._text(t))
                    i += 1
        return tuple(attrs)

    def global_def(self, c: list) -> None:
        name = self._new_global_name(c[0])
        words, addrspace, i = self._global_words(c, 1)
        kind, vtype, init = c[i], c[i + 1], c[i + 2]
        gv = GlobalVariable(name, vtype, None, constant=(kind == "constant"))
        gv.linkage.words = words
        if addrspace:
            gv.type = PointerType(addrspace)
        if init is not None:
            gv.initializer = self.resolve(vtype, init)  # type: ignore[assignment]
        elif not {"external", "extern_weak"} & set(words):
            raise BuildError(c[-1].pos, f"expected an initializer for '@{name}' (only external globals have none)")
        gv.addrspace = addrspace
        gv.attrs = self._global_suffix(c, i + 3, gv.suffix, gv.metadata)
        self.mod.globals[name] = gv

    def alias_def(self, c: list) -> None:
        name = self._new_global_name(c[0])
        words, addrspace, i = self._global_words(c, 1)
        kind, vtype, target = c[i], c[i + 1], c[i + 2]
        alias = Alias(name, vtype, target, kind=self._text(kind))
        alias.type = target.type
        alias.linkage.words = words
        md: dict[str, Metadata] = {}
        self._global_suffix(c, i + 3, alias.suffix, md)
        self.mod.aliases[name] = alias

    def params(self, c: list) -> tuple[list, bool]:
        vararg = False
        out = []
        for p in c:
            if p is None:
                continue
            if isinstance(p, Tok):
                vararg = True
            else:
                out.append(p)
        return out, vararg

    def param(self, c: list) -> tuple[Type, tuple[str, ...], Tok | None]:
        return c[0], tuple(self._attrs(c[1:-1])), c[-1]

    def fn_header(self, c: list) -> tuple[Function, list[str | None]]:
        i = 0
        while isinstance(c[i], Tok):
            i += 1
        ret, gtok, params = c[i], c[i + 1], c[i + 2]
        name = self._new_global_name(gtok)
        plist, vararg = params if params is not None else ([], False)
        ftype = FunctionType(ret, tuple(p[0] for p in plist), vararg)
        src_names = [self._name_of(p[2]) if p[2] is not None else None for p in plist]
        fn = Function(name, ftype, [None if n is None or n.isdigit() else n for n in src_names])
        for arg, p in zip(fn.args, plist):
            arg.attrs = p[1]
        linkage, ret_attrs = [], []
        for w in self._attrs(c[:i]):
            if w in _LINKAGE_WORDS or w.startswith("thread_local("):
                linkage.append(w)
            elif fn.cconv is None and is_cconv(w):
                fn.cconv = w
            else:
                ret_attrs.append(w)
        fn.linkage.words = linkage
        fn.ret_attrs = tuple(ret_attrs)
        self._fn_post(fn, c, i + 3)
        self.mod.functions[name] = fn
        return fn, src_names

    def _fn_post(self, fn: Function, c: list, i: int) -> None:
        attrs: list[str] = []
        n = len(c)
        while i < n:
            t = c[i]
            kind = t.type
            if kind in ("SECTION", "PARTITION", "GC"):
                fn.header_suffix.append(f"{t} {c[i + 1]}")
                i += 2
            elif kind in ("PREFIX", "PROLOGUE", "PERSONALITY"):
                fn.header_suffix.append(f"{t} {_typed(c[i + 1])}")
                i += 2
            elif kind == "COMDAT":
                ref = c[i + 1] if i + 1 < n and isinstance(c[i + 1], Tok) and c[i + 1].type == "COMDATREF" else None
                fn.header_suffix.append(f"comdat({ref})" if ref is not None else "comdat")
                i += 2 if ref is not None else 1
                if ref is None and i < n and c[i] is None:
                    i += 1
            elif kind == "ALIGN":
                fn.header_suffix.append(f"align {c[i + 1]}")
                i += 2
            elif kind == "ADDRSPACE":
                fn.addrspace = int(c[i + 1])
                if fn.addrspace:
                    fn.type = PointerType(fn.addrspace)
                i += 2
            elif kind == "MDKIND":
                fn.metadata[t[1:]] = self._md(c[i + 1])
                i += 2
            elif t in ("unnamed_addr", "local_unnamed_addr"):
                fn.unnamed_addr = self._text(t)
                i += 1
            else:
                attrs.extend(self._attrs([t]))
                i += 1
        fn.fn_attrs = tuple(attrs)

    def function_def(self, c: list) -> None:
        self.defined_functions.append(c[0][0])
        self.header_arg_names.append(c[0][1])

    def function_decl(self, c: list) -> None:
        fn = c[-2][0]
        for i in range(0, len(c) - 2, 2):
            fn.metadata[c[i][1:]] = self._md(c[i + 1])

    def module(self, c: list) -> None:
        """The `module` rule: everything was recorded as it was reduced."""
        return None

    def resolve_module(self) -> None:
        """After the module pass: check type definitions and bind forward global references."""
        for name, tok in self.type_refs.items():
            if name not in self.defined_types:
                raise BuildError(tok.pos, f"use of undefined type named '{name}'")
        if not self.global_forward:
            return
        targets: dict[int, GlobalValue] = {}
        for name, fwds in self.global_forward.items():
            g = self.mod.get_global(name)
            if g is None:
                raise BuildError(fwds[0].tok.pos, f"use of undefined value '@{name}'")
            for f in fwds:
                targets[id(f)] = g
        for gv in self.mod.globals.values():
            if gv.initializer is not None:
                gv.initializer = _substitute(gv.initializer, targets)  # type: ignore[assignment]
        for alias in self.mod.aliases.values():
            alias.target = _substitute(alias.target, targets)  # type: ignore[assignment]

    # ------------------------------------------------------------------ body statements
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
                kind, ref = _attachment_ref(att)
                inst.metadata[kind] = ref
                i += 1
            else:
                inst.metadata[att[att.index("!") + 1 :]] = self._md(c[i + 1])
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
        self._number(name, tok)
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
        return Alloca(t, count, int(align) if align is not None else None,
                      int(addrspace) if addrspace is not None else 0, flags)

    def _memory_tail(self, c: list, i: int) -> tuple[str | None, str | None, int | None]:
        """(syncscope, ordering, align) from the children after the operands."""
        scope = ordering = None
        n = len(c)
        while i < n - 2:
            t = c[i]
            if t.type == "SYNCSCOPE":
                scope = unescape(t[11:-2]).decode()
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
        return Load(t, ptr, align, volatile, ordering, scope)

    def store(self, c: list) -> Instruction:
        i = 0
        volatile = False
        while c[i].__class__ is Tok:
            volatile |= c[i].type == "VOLATILE"
            i += 1
        value, ptr = c[i], c[i + 1]
        scope, ordering, align = self._memory_tail(c, i + 2)
        return Store(value, ptr, align, volatile, ordering, scope)

    def gep(self, c: list) -> Instruction:
        i = 0
        while c[i].__class__ is Tok:
            i += 1
        source, ptr, indices = c[i], c[i + 1], c[i + 2 :]
        result = ptr.type
        if not isinstance(result, VectorType):
            for idx in indices:
                if isinstance(idx.type, VectorType):
                    result = VectorType(idx.type.count, ptr.type, idx.type.scalable)
                    break
        return GetElementPtr(source, ptr, list(indices), self._flags(c, 0, i), result_type=result)

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
            scope = unescape(c[j][11:-2]).decode()
            j += 1
        success, failure = self._text(c[j]), self._text(c[j + 1])
        align = c[-1]
        return CmpXchg(ptr, expected, new, success, failure, weak, volatile, scope,
                       int(align) if align is not None else None)

    def fence(self, c: list) -> Instruction:
        scope = unescape(c[0][11:-2]).decode() if len(c) == 2 else None
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


def _attachment_ref(tok: Tok) -> tuple[str, MDRef]:
    """`, !dbg !12` → ("dbg", MDRef("12"))."""
    first = tok.index("!")
    second = tok.index("!", first + 1)
    return sys.intern(tok[first + 1 : second].rstrip()), MDRef(tok[second + 1 :])


def _typed(v: Value) -> str:
    """`T ref` for constants inside constant-expression spellings."""
    return v.typed_ref()


def _member(t: Type, index: int) -> Type:
    from enzc.ir.types import aggregate_member

    if isinstance(t, (ArrayType,)) and not 0 <= index < t.count:
        raise IndexError(index)
    if isinstance(t, (StructType, NamedStructType)):
        elems = t.elements
        if elems is None or not 0 <= index < len(elems):
            raise IndexError(index)
    return aggregate_member(t, index)


def _substitute(c: Value, targets: dict[int, GlobalValue]) -> Value:
    """`c` with forward global placeholders replaced by the globals they name."""
    hit = targets.get(id(c))
    if hit is not None:
        return hit
    match c:
        case ConstantAggregate():
            c.elements = [_substitute(e, targets) for e in c.elements]
        case ConstantExpr():
            c.operands = [_substitute(e, targets) for e in c.operands]
        case ConstantSplat():
            c.element = _substitute(c.element, targets)
    return c

