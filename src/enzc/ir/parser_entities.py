"""Grammar callbacks, part 2: module entities — type definitions, comdats, globals,
aliases and ifuncs, function headers — and binding forward references between globals."""

from __future__ import annotations

import re

from enzc.ir.metadata import Metadata
from enzc.ir.module import Alias, Comdat, Function, GlobalVariable
from enzc.ir.parser_lalr import Tok
from enzc.ir.parser_values import (
    LINKAGE_WORDS, BuildError, ValueCallbacks, attachment_ref, check_sized_argument, is_cconv,
    typed_spelling,
)
from enzc.ir.types import FunctionType, PointerType, StructType, Type
from enzc.ir.values import ConstantAggregate, ConstantExpr, ConstantSplat, GlobalValue, Value


class EntityCallbacks(ValueCallbacks):
    """Callbacks for the `module` start symbol."""

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

    def _global_suffix(self, c: list, i: int, suffix: list[str], md: dict[str, Metadata],
                       repeated: list[tuple[str, Metadata]]) -> tuple[str, ...]:
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
                _attach(md, repeated, t[t.index("!") + 1 :], self._attachment(t, c[i + 1]))
                i += 2
            elif kind == "ATTACH_REF":
                _attach(md, repeated, *attachment_ref(t))
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
        gv.attrs = self._global_suffix(c, i + 3, gv.suffix, gv.metadata, gv.repeated_metadata)
        self.mod.globals[name] = gv

    def alias_def(self, c: list) -> None:
        name = self._new_global_name(c[0])
        words, addrspace, i = self._global_words(c, 1)
        kind, vtype, target = c[i], c[i + 1], c[i + 2]
        alias = Alias(name, vtype, target, kind=self._text(kind))
        alias.type = target.type
        alias.linkage.words = words
        md: dict[str, Metadata] = {}
        self._global_suffix(c, i + 3, alias.suffix, md, [])
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
            if w in LINKAGE_WORDS or w.startswith("thread_local("):
                if fn.cconv is not None or ret_attrs:  # LLVM: linkage, ..., cconv, return attributes
                    raise BuildError(c[0].pos, f"expected type, not '{w}'")  # ll:7606625: `declare noalias internal ptr`
                linkage.append(w)
            elif fn.cconv is None and is_cconv(w):
                if ret_attrs:
                    raise BuildError(c[0].pos, f"expected type, not '{w}'")
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
        last_rank = -1
        while i < n:
            t = c[i]
            kind = t.type
            last_rank = _check_header_order(t, last_rank)
            if kind in ("SECTION", "PARTITION", "GC"):
                fn.header_suffix.append(f"{t} {c[i + 1]}")
                i += 2
            elif kind in ("PREFIX", "PROLOGUE", "PERSONALITY"):
                fn.header_suffix.append(f"{t} {typed_spelling(c[i + 1])}")
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
            elif kind == "ATTR_PAREN" and (m := _PAREN_ALIGN.fullmatch(str(t))):
                fn.header_suffix.append(f"align {m.group(1)}")  # `align(16)`: LLVM's other spelling
                i += 1
            elif kind == "ADDRSPACE":
                fn.addrspace = int(c[i + 1])
                if fn.addrspace:
                    fn.type = PointerType(fn.addrspace)
                i += 2
            elif kind == "MDKIND":
                _attach(fn.metadata, fn.repeated_metadata, t[1:], self._attachment(t, c[i + 1]))
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
            _attach(fn.metadata, fn.repeated_metadata, c[i][1:], self._attachment(c[i], c[i + 1]))

    def module(self, c: list) -> None:
        """The `module` rule: everything was recorded as it was reduced."""
        return None

    def resolve_module(self) -> None:
        """After the module pass: check type definitions and bind forward global references."""
        for name, tok in self.type_refs.items():
            if name not in self.defined_types:
                raise BuildError(tok.pos, f"use of undefined type named '{name}'")
        for word, t, tok in self.sized_type_arguments:
            check_sized_argument(word, t, tok)
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


def _attach(md: dict[str, Metadata], repeated: list[tuple[str, Metadata]], kind: str, node: Metadata) -> None:
    """Record an attachment; a second one of the same kind goes to `repeated`."""
    if kind in md:
        repeated.append((kind, node))
    else:
        md[kind] = node


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


_PAREN_ALIGN = re.compile(r"align\((\d+)\)")
_HEADER_RANKS = {"unnamed_addr": 0, "local_unnamed_addr": 0, "ADDRSPACE": 1, "SECTION": 3,
                 "PARTITION": 4, "COMDAT": 5, "ALIGN": 6, "GC": 7, "PREFIX": 8, "PROLOGUE": 9,
                 "PERSONALITY": 10, "MDKIND": 11}
"""The order of what follows a function's parameters in LLVM's parser; attributes
(rank 2, `align N` among them) and metadata attachments may repeat, nothing else."""
_REPEATABLE_RANKS = (2, 11)


def _check_header_order(tok: Tok, last_rank: int) -> int:
    """The rank of `tok` in a function header, after one of rank `last_rank`."""
    rank = _HEADER_RANKS.get(tok.type, _HEADER_RANKS.get(str(tok), 2))
    if tok.type == "ALIGN" and last_rank <= 2:
        rank = 2  # `align N` among the attributes
    if rank < last_rank or (rank == last_rank and rank not in _REPEATABLE_RANKS):
        raise BuildError(tok.pos, f"expected '{{' in function body (unexpected '{tok}' here: "
                         "LLVM's order is unnamed_addr, addrspace, attributes, section, "
                         "partition, comdat, align, gc, prefix, prologue, personality)")
    return rank
