"""C signatures of a module's exported functions, read from its debug info.

The sources are compiled with -g, so every function clang defines carries a
DISubprogram: its DISubroutineType gives the declared types (typedefs, const,
structs) and its DILocalVariables with `arg: N` the parameter names. The IR adds
what the optimizer proved: a pointer parameter marked `readonly` (or a function
that only reads argument memory) is never written, whatever its C type says.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzc.ir.metadata import MDRef, MDSpecialized, MDTuple, Metadata, unquote
from enzc.ir.module import Function, Module
from enzc.python.ctype import CType, Pointer, Scalar, Unsupported, scalar

_ENCODINGS = {"DW_ATE_float": "f", "DW_ATE_signed": "i", "DW_ATE_signed_char": "i",
              "DW_ATE_unsigned": "u", "DW_ATE_unsigned_char": "u", "DW_ATE_boolean": "b"}
_QUALIFIERS = ("DW_TAG_volatile_type", "DW_TAG_restrict_type", "DW_TAG_atomic_type")
_MAX_DEPTH = 32


@dataclass(frozen=True)
class Param:
    """One C parameter."""

    name: str
    ctype: CType
    written: bool
    """A pointer the C code may write through (so the array must be writable)."""


@dataclass(frozen=True)
class Signature:
    """A C function as Python sees it."""

    name: str
    params: tuple[Param, ...]
    result: Scalar | Unsupported | None
    """None: the function returns void."""
    where: str
    """`file:line` of the definition, for messages."""

    @property
    def unsupported(self) -> str | None:
        """Why Python cannot call this function, or None when it can."""
        if isinstance(self.result, Unsupported):
            return f"it returns {self.result.why}"
        for p in self.params:
            if isinstance(p.ctype, Unsupported):
                return f"parameter '{p.name}' is {p.ctype.why}"
        return None

    def param_index(self, name: str) -> int | None:
        return next((i for i, p in enumerate(self.params) if p.name == name), None)


def exported_signatures(module: Module) -> list[Signature]:
    """Signatures of the functions `module` defines with external, unmangled names."""
    reader = _DebugInfo(module)
    found = []
    for fn in module.functions.values():
        if fn.is_declaration or fn.linkage in ("internal", "private"):
            continue
        sp = reader.node(fn.metadata.get("dbg"))
        if not isinstance(sp, MDSpecialized) or sp.kind != "DISubprogram":
            continue
        if unquote(sp.get("name") or "") != fn.name:  # a mangled C++ name
            continue
        found.append(reader.signature(fn, sp))
    return found


class _DebugInfo:
    """Follows a module's metadata references to turn debug types into CTypes."""

    def __init__(self, module: Module) -> None:
        self.module = module

    def node(self, ref: Metadata | str | None) -> Metadata | None:
        if isinstance(ref, str):
            ref = MDRef(ref[1:]) if ref.startswith("!") and ref[1:].isdigit() else None
        if isinstance(ref, MDRef):
            return self.module.metadata.get(ref.id)
        return ref

    def field(self, node: MDSpecialized, key: str) -> Metadata | None:
        return self.node(node.get(key))

    def signature(self, fn: Function, sp: MDSpecialized) -> Signature:
        subroutine = self.field(sp, "type")
        types = self.field(subroutine, "types") if isinstance(subroutine, MDSpecialized) else None
        operands = types.operands if isinstance(types, MDTuple) else []
        names = self._param_names(sp)
        arg_memory_read_only = _only_reads_arguments(fn, self.module)
        params = []
        for i, operand in enumerate(operands[1:]):
            ctype = self.ctype(operand, 0)
            ir_attrs = fn.args[i].attrs if i < len(fn.args) else ()
            written = isinstance(ctype, Pointer) and not ctype.const and not (
                arg_memory_read_only or "readonly" in ir_attrs or "readnone" in ir_attrs)
            params.append(Param(names.get(i + 1, f"arg{i}"), ctype, written))
        result = None if not operands or operands[0] is None else self.ctype(operands[0], 0)
        if isinstance(result, Pointer):
            result = Unsupported(f"a pointer ({result.spelled} *)")
        file = self.field(sp, "file")
        filename = unquote(file.get("filename") or "") if isinstance(file, MDSpecialized) else "?"
        where = f"{filename}:{sp.get('line') or '?'}"
        return Signature(fn.name or "", tuple(params), result, where)

    def _param_names(self, sp: MDSpecialized) -> dict[int, str]:
        nodes = self.field(sp, "retainedNodes")
        names = {}
        for ref in nodes.operands if isinstance(nodes, MDTuple) else []:
            var = self.node(ref)
            if isinstance(var, MDSpecialized) and var.kind == "DILocalVariable" and var.get("arg"):
                names[int(var.get("arg") or 0)] = unquote(var.get("name") or '""')
        return names

    def ctype(self, ref: Metadata | None, depth: int) -> CType:
        """A parameter or return type."""
        node = self.node(ref)
        name, node, _ = self._strip(node, depth)
        if not isinstance(node, MDSpecialized):
            return Unsupported("of an unknown type")
        tag = node.get("tag")
        if node.kind == "DIBasicType" or tag == "DW_TAG_enumeration_type":
            return self._scalar(node, name)
        if tag == "DW_TAG_pointer_type":
            return self._pointer(self.field(node, "baseType"), depth + 1)
        if tag in ("DW_TAG_structure_type", "DW_TAG_union_type", "DW_TAG_class_type"):
            return Unsupported(f"a struct passed by value ('{name or 'struct'}')")
        return Unsupported(f"of a type enzc.load cannot pass ('{name or tag}')")

    def _strip(self, node: Metadata | None, depth: int) -> tuple[str, Metadata | None, bool]:
        """Skip typedefs and qualifiers: (first name seen, underlying node, const?)."""
        name, const = "", False
        while isinstance(node, MDSpecialized) and depth < _MAX_DEPTH:
            tag = node.get("tag")
            if tag == "DW_TAG_typedef":
                name = name or unquote(node.get("name") or '""')
            elif tag == "DW_TAG_const_type":
                const = True
            elif tag not in _QUALIFIERS:
                break
            node = self.field(node, "baseType")
            depth += 1
        if isinstance(node, MDSpecialized) and not name and node.get("name"):
            name = unquote(node.get("name") or '""')
        return name, node, const

    def _scalar(self, node: MDSpecialized, name: str) -> Scalar | Unsupported:
        if node.get("tag") == "DW_TAG_enumeration_type":
            base = self.field(node, "baseType")
            kind = _ENCODINGS.get(base.get("encoding") or "") if isinstance(base, MDSpecialized) \
                else "u"
        else:
            kind = _ENCODINGS.get(node.get("encoding") or "")
        size = int(node.get("size") or 0) // 8
        if kind is None:
            return Unsupported(f"'{name}', a type enzc.load cannot pass")
        return scalar(kind, size, name or "enum")

    def _pointer(self, pointee: Metadata | None, depth: int) -> CType:
        name, node, const = self._strip(pointee, depth)
        spelled = ("const " if const else "") + (name or "void")
        if node is None:
            return Unsupported("an untyped pointer (void *)")
        element = self._element(node, depth)
        if isinstance(element, Unsupported):
            return Unsupported(f"a pointer to {spelled}: {element.why}")
        return Pointer(element, const, spelled)

    def _element(self, node: Metadata | None, depth: int) -> Scalar | Unsupported:
        """The one scalar type a pointee is made of (a struct of doubles: double)."""
        name, node, _ = self._strip(node, depth)
        if not isinstance(node, MDSpecialized) or depth >= _MAX_DEPTH:
            return Unsupported("a type enzc.load cannot pass")
        tag = node.get("tag")
        if node.kind == "DIBasicType" or tag == "DW_TAG_enumeration_type":
            return self._scalar(node, name)
        if tag == "DW_TAG_array_type":
            return self._element(self.field(node, "baseType"), depth + 1)
        if tag == "DW_TAG_structure_type":
            return self._struct_element(node, name, depth)
        if tag == "DW_TAG_pointer_type":
            return Unsupported("a pointer to pointers")
        return Unsupported(f"'{name or tag}', a type enzc.load cannot pass")

    def _struct_element(self, node: MDSpecialized, name: str, depth: int) -> Scalar | Unsupported:
        members = self.field(node, "elements")
        leaves = set()
        for ref in members.operands if isinstance(members, MDTuple) else []:
            member = self.node(ref)
            if isinstance(member, MDSpecialized) and member.get("tag") == "DW_TAG_member":
                leaves.add(self._element(self.field(member, "baseType"), depth + 1))
        kinds = {(leaf.kind, leaf.size) for leaf in leaves if isinstance(leaf, Scalar)}
        if len(leaves) == 0 or len(kinds) != 1 or any(isinstance(x, Unsupported) for x in leaves):
            return Unsupported(f"struct '{name or 'anonymous'}' is not made of one scalar type "
                               "(only such structs pass as arrays)")
        leaf = next(x for x in leaves if isinstance(x, Scalar))
        if int(node.get("size") or 0) % (leaf.size * 8):
            return Unsupported(f"struct '{name}' has padding")
        return Scalar(leaf.kind, leaf.size, leaf.spelled)


def _only_reads_arguments(fn: Function, module: Module) -> bool:
    """True if the function's `memory(...)` attribute rules out writes to argument memory."""
    for attr in _function_attrs(fn, module):
        if attr.startswith("memory(") and attr.endswith(")"):
            effect = None
            for entry in attr[len("memory("):-1].split(","):
                location, _, value = entry.strip().rpartition(":")
                if location.strip() in ("", "argmem"):
                    effect = value.strip() if location.strip() == "argmem" or effect is None \
                        else effect
            return effect is not None and "write" not in effect
    return False


def _function_attrs(fn: Function, module: Module) -> list[str]:
    attrs: list[str] = []
    for attr in fn.fn_attrs:
        if attr.startswith("#"):
            attrs.extend(module.attribute_groups.get(attr[1:], ()))
        else:
            attrs.append(attr)
    return attrs
