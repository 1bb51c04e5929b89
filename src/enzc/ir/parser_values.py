"""Grammar callbacks, part 1: parser state, terminals, types, values and metadata operands.

`parser_transform.Builder` combines this with the callbacks for module entities
(parser_entities.py) and instructions (parser_instructions.py). The callbacks run in
source order, so the builder keeps the state of the body being parsed: the local
symbol table, forward references (a placeholder per name, swapped for the real value
with `replace_all_uses_with` when its definition appears), the current block, the
next slot number and debug records waiting for their instruction.

Untyped values (`value` in the grammar) reach the rule that knows their type as a
`Tok` or as a function of the type (`Deferred`); `tv` and friends resolve them.
Problems are raised as `BuildError(offset, message)` at a token's offset.
"""

from __future__ import annotations

import math
import struct
import sys
from typing import Any, Callable

from enzc.ir.instructions import DebugRecord, DIArgList
from enzc.ir.metadata import Metadata, MDRef, MDString, MDTuple, MDValue
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.names import unescape, unquote_name
from enzc.ir.parser_lalr import SyntaxProblem, Tok
from enzc.ir.parser_metadata import MDSyntax, parse_node
from enzc.ir.verify_gep import is_sized
from enzc.ir.types import (
    I1, LABEL, METADATA, PTR, TOKEN, VOID, ArrayType, FloatType, FunctionType, IntType, LabelType,
    MetadataType, PointerType, StructType, TargetExtType, TokenType, Type, VectorType, VoidType,
    X86AMXType,
)
from enzc.ir.values import (
    ConstantAggregate, ConstantExpr, ConstantFP, ConstantInt, ConstantSimple, ConstantSplat,
    ConstantString, GlobalValue, InlineAsm, LocalValue, RawConstant, Value,
)

Deferred = Callable[[Type], Value]


def _type_count(tok: Tok) -> int:
    """The element count of an array or vector type: LLVM reads it as a 64-bit number."""
    count = int(tok)
    if count < 0:
        raise BuildError(tok.pos, "expected a non-negative element count")  # ll:5209294: [-1 x i8]
    if count >= 1 << 64:
        raise BuildError(tok.pos, "element count does not fit in 64 bits")
    return count


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


LINKAGE_WORDS = frozenset({
    "private", "internal", "available_externally", "linkonce", "weak", "common", "appending",
    "extern_weak", "linkonce_odr", "weak_odr", "external", "dso_local", "dso_preemptable",
    "default", "hidden", "protected", "dllimport", "dllexport", "thread_local", "unnamed_addr",
    "local_unnamed_addr", "externally_initialized",
})
_CCONV_PREFIXES = ("amdgpu_", "aarch64_", "ptx_", "spir_", "riscv_", "arm_", "x86_", "m68k_", "avr_", "msp430_")
_ATTR_TOKENS = frozenset({"WORD", "ATTR_PAREN", "STRATTR", "STRING", "ATTRGRP", "WEAK", "ALLOCA_FLAG"})
_TYPE_ARGUMENT_ATTRS = frozenset({"sret", "byval", "byref", "inalloca", "preallocated", "elementtype"})
"""Attributes whose argument is a type: it is parsed as one (ll:5906571)."""


def is_cconv(word: str) -> bool:
    """Calling-convention keywords: `fastcc`, `cc 10`, `cc252` (as LLVM prints an
    unnamed one), `x86_stdcallcc`, `amdgpu_kernel`, ..."""
    return (word.endswith("cc") or word.startswith("cc ") or word.startswith(_CCONV_PREFIXES)
            or (word[:2] == "cc" and word[2:].isdigit()))


def _slot_key(name: str) -> str:
    """Numbered names compare as numbers: `%04` is `%4`."""
    return str(int(name)) if name[:1] == "0" and len(name) > 1 and name.isdigit() else name


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


def check_sized_argument(word: str, t: Type, tok: Tok) -> None:
    """LLVM's verifier: `byval(T)`, `byref(T)`, `inalloca(T)`, `preallocated(T)` need a sized T."""
    if not is_sized(t):
        raise BuildError(tok.pos, f"Attribute '{word}' does not support unsized types ({t})")


class ValueCallbacks:
    """Parser state and the callbacks for terminals, types, values and metadata operands."""

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
        self.parse_type_text: Callable[[str], Type] | None = None
        """Set by the parser: the grammar's `lone_type` start, for attribute arguments."""

    # ------------------------------------------------------------------ state
    def begin_module(self, module: Module) -> None:
        self.mod = module
        self._reset_body(None)
        self.global_forward: dict[str, list[_GlobalForward]] = {}
        self.defined_types: set[str] = set()
        self.type_refs: dict[str, Tok] = {}
        self.sized_type_arguments: list[tuple[str, Type, Tok]] = []
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
        self.later_types: frozenset[str] = frozenset()

    def begin_body(self, module: Module, fn: Function, arg_source_names: list[str | None],
                   later_types: frozenset[str] = frozenset()) -> None:
        """Prepare to parse `fn`'s body; `arg_source_names` are the argument names as
        written, `later_types` the named structs defined after it in the file."""
        self.mod = module
        self._reset_body(fn)
        self.later_types = later_types
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
        if self.blocks[-1].terminator is None:
            raise BuildError(end_pos, "expected instruction opcode: block does not end with a terminator")
        self._no_records_after_terminator(end_pos)
        blocks = self.blocks
        self._reset_body(None)
        return blocks

    def _no_records_after_terminator(self, pos: int) -> None:
        """A debug record belongs to the instruction after it: LLVM's parser takes
        none after a block's terminator (ll:4601503)."""
        if self.pending_records:
            raise BuildError(pos, "expected instruction opcode: a debug record after the block's terminator")

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
                if kind == "ATTR_PAREN":
                    self._check_type_argument(t)
                out.append(self._text(t))
            elif kind in ("ALIGN", "CC"):
                out.append(self._text(f"{t} {next(it)}"))
            elif kind == "ADDRSPACE":
                out.append(self._text(f"addrspace({next(it)})"))
            else:
                raise BuildError(t.pos, f"unexpected '{t}'")
        return out

    def _check_type_argument(self, tok: Tok) -> None:
        """`sret(T)` and its kin: T must be a type LLVM can read, its named structs
        defined (the attribute keeps its text; only the check needs the type)."""
        word, _, rest = str(tok).partition("(")
        if word not in _TYPE_ARGUMENT_ATTRS or self.parse_type_text is None:
            return
        start = len(word) + 1
        try:
            t = self.parse_type_text(rest[:-1])
        except (SyntaxProblem, BuildError) as e:
            raise BuildError(tok.pos + start + e.pos, e.message) from None
        if word not in ("sret", "elementtype"):  # LLVM's verifier lets those two be unsized
            if self.fn is None:  # a struct it names may be defined further down
                self.sized_type_arguments.append((word, t, tok))
            else:
                check_sized_argument(word, t, tok)

    def lone_type(self, c: list) -> Type:
        return c[0]

    def _name_of(self, tok: Tok) -> str:
        return sys.intern(_slot_key(unquote_name(tok)))

    # ------------------------------------------------------------------ terminals (on shift)
    # Terminal callbacks get the token's text and offset (no Tok is made for them).
    def INTTYPE(self, text: str, pos: int) -> IntType:
        t = self._int_types.get(text)
        if t is None:
            bits = int(text[1:])
            if not 1 <= bits <= 2**23:
                raise BuildError(pos, f"invalid integer width {bits}")
            t = self._int_types[text] = IntType(bits)
        return t

    def FLOATTY(self, text: str, pos: int) -> FloatType:
        t = self._float_types.get(text)
        if t is None:
            t = self._float_types[text] = FloatType(text)
        return t

    def PTR(self, text: str, pos: int) -> Type:
        return PTR

    def VOID(self, text: str, pos: int) -> Type:
        return VOID

    def LABEL(self, text: str, pos: int) -> Type:
        return LABEL

    def TOKEN(self, text: str, pos: int) -> Type:
        return TOKEN

    def X86_AMX(self, text: str, pos: int) -> Type:
        return X86AMXType()

    def METADATA(self, text: str, pos: int) -> Type:
        return METADATA

    def MDREF(self, text: str, pos: int) -> Metadata:
        return MDRef(text[1:])

    def MDSTRING(self, text: str, pos: int) -> Metadata:
        return MDString(unescape(text[2:-1]))

    def MDSPECIAL(self, text: str, pos: int) -> Metadata:
        try:
            return parse_node(text, resolve=self.mod.get_global)
        except MDSyntax as e:
            raise BuildError(pos + e.column - 1, e.message) from None

    def LABEL_DEF(self, text: str, pos: int) -> None:
        """A block label starts a new block (runs when the label is shifted, in order)."""
        if self.fn is None:
            raise BuildError(pos, "label outside a function body")
        text = text[:-1]
        name = sys.intern(_slot_key(unescape(text[1:-1]).decode("utf-8", "surrogateescape") if text.startswith('"') else text))
        prev = self.block
        if prev is not None and prev.terminator is None:
            raise BuildError(pos, f"expected instruction opcode: block before label '{name}' has no terminator")
        self._no_records_after_terminator(pos)
        fwd = self.forward_blocks.pop(name, None)
        if fwd is not None:
            block = fwd[0]
        else:
            if name in self.locals or name in self.forward:
                raise BuildError(pos, f"redefinition of '%{name}'")
            block = BasicBlock(None if name.isdigit() else name)
        self._number(name, pos)
        self.locals[name] = block
        block.parent = self.fn
        self.blocks.append(block)
        self.block = block

    def _number(self, name: str, pos: int) -> None:
        """Check and advance LLVM's numbering for a numbered definition."""
        if name.isdigit():
            n = int(name)
            if n < self.next_slot:
                raise BuildError(pos, f"value expected to be numbered '%{self.next_slot}' or greater")
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
        count = _type_count(c[0])
        if isinstance(c[1], (VoidType, LabelType, MetadataType, FunctionType, TokenType, X86AMXType)):
            raise BuildError(c[0].pos, f"invalid array element type {c[1]}")
        return ArrayType(count, c[1])

    def vector_type(self, c: list, scalable: bool = False) -> Type:
        count = _type_count(c[0])
        if count == 0:
            raise BuildError(c[0].pos, "zero element vector is illegal")
        if count >= 1 << 32:
            raise BuildError(c[0].pos, "size too large for vector")
        if not isinstance(c[1], (IntType, FloatType, PointerType)):
            raise BuildError(c[0].pos, f"invalid vector element type {c[1]}")
        return VectorType(count, c[1], scalable)

    def scalable_vector_type(self, c: list) -> Type:
        return self.vector_type(c, scalable=True)

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
            if v.type == "LOCAL":
                self._last_local = v
            return self._tokval[v.type](v, c[0])
        return v(c[0])

    def _constant_elements(self, elems: list) -> list:
        """Elements of a constant aggregate or splat: LLVM allows no function-local value there."""
        for e in elems:
            if isinstance(e, LocalValue):
                tok = e.tok if isinstance(e, _Forward) else self._last_local
                raise BuildError(tok.pos, f"invalid use of function-local name '{tok}'")
        return elems

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
        if tok == "none" and t != TOKEN:
            raise BuildError(tok.pos, f"invalid type for none constant ('{t}')")
        if tok == "null" and t.__class__ is not PointerType:
            raise BuildError(tok.pos, f"null must be a pointer type, not '{t}'")
        return ConstantSimple(t, self._text(tok))

    def _cstring_value(self, tok: Tok, t: Type) -> Value:
        data = unescape(tok[2:-1])
        if not (isinstance(t, ArrayType) and t.element == IntType(8) and t.count == len(data)):
            raise BuildError(tok.pos, f"constant string c\"...\" of {len(data)} bytes does not match type '{t}'")
        return ConstantString(t, data)

    # deferred constants: the callbacks return functions of the type
    def struct_c(self, c: list) -> Deferred:
        elems = self._constant_elements([e for e in c if e is not None])
        return lambda t: ConstantAggregate(t, elems)

    packed_c = struct_c
    array_c = struct_c
    vector_c = struct_c

    def splat_c(self, c: list) -> Deferred:
        self._constant_elements(c[:1])
        return lambda t: ConstantSplat(t, c[0])  # type: ignore[arg-type]

    def blockaddress_c(self, c: list) -> Deferred:
        return _pointer_constant("blockaddress", f"blockaddress({c[0]}, {c[1]})", c[0])

    def dso_local_equivalent_c(self, c: list) -> Deferred:
        return _pointer_constant("dso_local_equivalent", f"dso_local_equivalent {c[0]}", c[0])

    def no_cfi_c(self, c: list) -> Deferred:
        return _pointer_constant("no_cfi", f"no_cfi {c[0]}", c[0])

    def gep_c(self, c: list) -> Deferred:
        i = 0
        flags = []
        while isinstance(c[i], Tok):
            flags.append(self._text(c[i]))
            i += 1
        source, ops = c[i], c[i + 1 :]
        head = " ".join(["getelementptr", *flags])
        text = f"{head} ({source}, " + ", ".join(typed_spelling(o) for o in ops) + ")"
        return lambda t: ConstantExpr(t, "getelementptr", list(ops), text, source)

    def cast_c(self, c: list) -> Deferred:
        op, v, to = c
        self._supported_expression(op, _CONSTANT_CASTS)
        self._constant_elements([v])
        text = f"{op} ({typed_spelling(v)} to {to})"
        return lambda t: ConstantExpr(t, self._text(op), [v], text)

    def binop_c(self, c: list) -> Deferred:
        op, *flags, a, b = c
        self._supported_expression(op, _CONSTANT_BINOPS)
        self._constant_elements([a, b])
        head = " ".join([str(op), *map(str, flags)])
        text = f"{head} ({typed_spelling(a)}, {typed_spelling(b)})"
        return lambda t: ConstantExpr(t, self._text(op), [a, b], text)

    def extractelement_c(self, c: list) -> Deferred:
        self._constant_elements(c)
        text = f"extractelement ({typed_spelling(c[0])}, {typed_spelling(c[1])})"
        return lambda t: ConstantExpr(t, "extractelement", list(c), text)

    def _supported_expression(self, op: Tok, supported: frozenset[str]) -> None:
        """LLVM 17-19 removed most constant expressions; llvm-as-22 rejects their spelling."""
        if self._text(op) not in supported:
            raise BuildError(op.pos, f"{self._text(op)} constexprs are no longer supported")

    def ptrauth_c(self, c: list) -> Deferred:
        text = "ptrauth (" + ", ".join(typed_spelling(v) for v in c) + ")"
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

    def _attachment(self, tok: Tok, x: Any) -> Metadata:
        """The node of an attachment `!kind NODE`: LLVM takes a node there (`!12`,
        `!{...}`, `!DIKind(...)`), not a string or a value."""
        md = self._md(x)
        if md is None or isinstance(md, (MDString, MDValue)):
            raise BuildError(tok.pos, f"expected a metadata node after '{tok.strip()}', "
                             f"found '{md if md is not None else 'null'}'")
        return md


def attachment_ref(tok: Tok) -> tuple[str, MDRef]:
    """`, !dbg !12` → ("dbg", MDRef("12"))."""
    first = tok.index("!")
    second = tok.index("!", first + 1)
    return sys.intern(tok[first + 1 : second].rstrip()), MDRef(tok[second + 1 :])


_CONSTANT_BINOPS = frozenset({"add", "sub", "xor"})
"""The binary operators LLVM 22 still takes as constant expressions (ll:7205042: `shl`)."""
_CONSTANT_CASTS = frozenset({"trunc", "ptrtoint", "ptrtoaddr", "inttoptr", "bitcast", "addrspacecast"})
"""The casts LLVM 22 still takes as constant expressions."""


def typed_spelling(v: Value) -> str:
    """`T ref` for constants inside constant-expression spellings."""
    return v.typed_ref()


def _pointer_constant(kind: str, text: str, tok: Tok) -> Deferred:
    """A constant of pointer type only (`blockaddress`, `dso_local_equivalent`, `no_cfi`),
    kept as its text: any other type is LLVM's parse error."""
    def build(t: Type) -> Value:
        if not isinstance(t, PointerType):
            raise BuildError(tok.pos, f"type of {kind} must be a pointer and not '{t}'")
        return RawConstant(t, text)
    return build
