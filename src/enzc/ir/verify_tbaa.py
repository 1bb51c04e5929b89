"""LLVM's verifier rules for TBAA access tags (`!tbaa`, `!llvm.errno.tbaa`) in the
format clang writes: a tag `!{!base, !access, iN offset[, iN 0|1]}` over type nodes
`!{!"name", !parent, i64 0}` (scalar), `!{!"name", !field, i64 offset, ...}`
(struct, offsets increasing) and a root `!{!"name"}`.

As LLVM does, the check follows the access path from the base type down to the
field holding the offset, verifying each node on the way (not every node of the
type DAG), and wants the access type on that path. Tags in the size-aware format
(`-new-struct-path-tbaa`: type nodes that start with their parent) are only
checked for their operand count and offset width.
"""

from __future__ import annotations

from enzc.ir.metadata import Metadata, MDRef, MDString, MDTuple, MDValue
from enzc.ir.types import IntType
from enzc.ir.values import ConstantInt

_TAGGED_OPCODES = frozenset({"load", "store", "call", "va_arg", "atomicrmw", "cmpxchg"})
"""Instructions that may carry a `!tbaa` tag."""


def tbaa_problem(tag: Metadata | None, defined: dict[str, Metadata], *,
                 opcode: str | None = None) -> str | None:
    """Why LLVM rejects the access tag `tag` on an `opcode` instruction (None for
    `!llvm.errno.tbaa`, where an old-style scalar tag is not upgraded)."""
    node = _node(tag, defined)
    if node is None:
        return "malformed !tbaa access tag" if tag is not None else None
    if opcode is not None and opcode not in _TAGGED_OPCODES:
        return f"a {opcode} instruction cannot have a !tbaa access tag"
    if not node.operands:
        return "a !tbaa tag cannot be empty"
    if not (len(node.operands) >= 3 and _node(node.operands[0], defined) is not None):
        if opcode is None:
            return ("old-style TBAA tag, which is no longer allowed (use struct-path TBAA: "
                    "!{base, access, i64 offset})")
        node = _upgraded(node)
    base, access = _node(node.operands[0], defined), _node(node.operands[1], defined)
    if base is not None and access is not None and _is_new_format(access, defined):
        return _new_format_problem(node, base)
    if len(node.operands) > 4:
        return "a struct tag has 3 or 4 operands"
    if base is None or access is None:
        return "the base and access types of a !tbaa tag must be nodes"
    if len(node.operands) == 4:
        flag = _integer(node.operands[3])
        if flag is None or flag.unsigned > 1:
            return "the immutability flag of a !tbaa tag must be 0 or 1"
    offset = _integer(node.operands[2])
    if offset is None:
        return "the offset of a !tbaa tag must be an integer constant"
    if not _is_scalar(access, defined, set()):
        return "the access type of a !tbaa tag must be a valid scalar type node"
    return _type_problem(base, access, offset, defined)


def _upgraded(scalar_tag: MDTuple) -> MDTuple:
    """The struct-path tag LLVM's parser makes of an old-style scalar one on an
    instruction (`!{!"int", !parent[, const]}` as a tag)."""
    zero = MDValue(ConstantInt(IntType(64), 0))
    if len(scalar_tag.operands) == 3:
        scalar = MDTuple(scalar_tag.operands[:2])
        return MDTuple([scalar, scalar, zero, scalar_tag.operands[2]])
    return MDTuple([scalar_tag, scalar_tag, zero])


def _type_problem(base: MDTuple, access: MDTuple, offset: ConstantInt,
                  defined: dict[str, Metadata]) -> str | None:
    """Walk from `base` to the field at `offset`, as LLVM's TBAA verifier does."""
    bits, remaining = offset.type.bits, offset.unsigned  # type: ignore[attr-defined]
    seen_access, path = False, set()
    node: MDTuple | None = base
    while node is not None and len(node.operands) >= 2:
        if id(node) in path:
            return "cycle in a !tbaa struct path"
        path.add(id(node))
        problem, width = _base_node_problem(node, defined)
        if problem:
            return problem
        seen_access |= node is access
        if (_is_scalar(node, defined, set()) or node is access) and remaining != 0:
            return "!tbaa offset not zero at the point of scalar access"
        if width != bits and not (width == 0 and remaining == 0):
            return "!tbaa offsets must be i64 (access bit-width not the same as description bit-width)"
        node, remaining, problem = _field_at(node, remaining, defined)
        if problem:
            return problem
    return None if seen_access else "the !tbaa access type is not on the access path"


def _base_node_problem(node: MDTuple, defined: dict[str, Metadata]) -> tuple[str | None, int]:
    """LLVM's checks of one type node on the path, and its offsets' bit width."""
    if not isinstance(node.operands[0], MDString):
        return "a !tbaa struct type node starts with its name (a string)", 0
    if len(node.operands) == 2:
        return (None if _is_scalar(node, defined, set()) else "invalid !tbaa scalar type node"), 0
    if len(node.operands) % 2 != 1:
        return "a !tbaa struct type node must have an odd number of operands", 0
    width, previous = 0, None
    for field, offset_md in zip(node.operands[1::2], node.operands[2::2]):
        offset = _integer(offset_md)
        if _node(field, defined) is None:
            return "incorrect field entry in a !tbaa struct type node", 0
        if offset is None:
            return "!tbaa struct field offsets must be integer constants", 0
        width = width or offset.type.bits  # type: ignore[attr-defined]
        if offset.type.bits != width:  # type: ignore[attr-defined]
            return "!tbaa struct field offsets must all have one bit width", 0
        if previous is not None and offset.unsigned < previous:
            return "!tbaa struct field offsets must be increasing", 0
        previous = offset.unsigned
    return None, width


def _field_at(node: MDTuple, offset: int,
              defined: dict[str, Metadata]) -> tuple[MDTuple | None, int, str | None]:
    """The field of `node` holding `offset` and the offset inside it."""
    if len(node.operands) == 2:
        return _node(node.operands[1], defined), offset, None
    fields = list(zip(node.operands[1::2], node.operands[2::2]))
    chosen = None
    for k, (field, offset_md) in enumerate(fields):
        start = _integer(offset_md).unsigned  # type: ignore[union-attr]  # checked above
        if start > offset:
            if k == 0:
                return None, offset, "could not find the !tbaa parent in a struct type node"
            break
        chosen = (field, start)
    field, start = chosen  # type: ignore[misc]
    return _node(field, defined), offset - start, None


def _is_scalar(node: MDTuple, defined: dict[str, Metadata], visited: set[int]) -> bool:
    ops = node.operands
    if len(ops) not in (2, 3) or not isinstance(ops[0], MDString):
        return False
    if len(ops) == 3:
        offset = _integer(ops[2])
        if offset is None or offset.unsigned != 0:
            return False
    parent = _node(ops[1], defined)
    if parent is None or id(parent) in visited:
        return False
    visited.add(id(parent))
    return len(parent.operands) < 2 or _is_scalar(parent, defined, visited)


def _is_new_format(access: MDTuple, defined: dict[str, Metadata]) -> bool:
    return len(access.operands) >= 3 and _node(access.operands[0], defined) is not None


def _new_format_problem(tag: MDTuple, base: MDTuple) -> str | None:
    """A size-aware tag `!{base, access, offset, size[, immutable]}` over type nodes
    `!{parent, size, name, (member, offset, size)*}`: the operand count and that
    the offsets are i64."""
    if len(tag.operands) not in (4, 5):
        return "a size-aware !tbaa tag has 4 or 5 operands"
    widths = {_width(tag.operands[2])} | {_width(op) for op in base.operands[4::3]}
    return None if widths == {64} else "!tbaa offsets must be i64"


def _node(md: Metadata | None, defined: dict[str, Metadata]) -> MDTuple | None:
    node = defined.get(md.id) if isinstance(md, MDRef) else md
    return node if isinstance(node, MDTuple) else None


def _integer(md: Metadata | None) -> ConstantInt | None:
    if isinstance(md, MDValue) and isinstance(md.value, ConstantInt):
        return md.value
    return None


def _width(md: Metadata | None) -> int | None:
    if isinstance(md, MDValue) and isinstance(md.value.type, IntType):
        return md.value.type.bits
    return None
