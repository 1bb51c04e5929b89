"""Structural edits: splitting blocks and edges, cloning functions, dropping dead blocks.

Every edit keeps use lists and phis consistent, so `verify_function` passes after
it whenever it passed before.
"""

from __future__ import annotations

import copy
import re
from typing import Iterator

from enzc.ir.local_names import fresh_local_name, new_block
from enzc.ir.cfg import reachable_blocks
from enzc.ir.instructions import Br, DebugRecord, Instruction, LandingPad, Phi
from enzc.ir.metadata import Metadata, MDRaw, MDRef, MDSpecialized, MDTuple, MDValue
from enzc.ir.module import BasicBlock, Function, Linkage, Module
from enzc.ir.values import MetadataOperand, User, Value, poison

ValueMap = dict[Value, Value]
"""Old value → new value, for arguments, blocks and instructions."""


# ---------------------------------------------------------------------------
# Splitting


def split_block(block: BasicBlock, before: Instruction, name: str = "") -> BasicBlock:
    """Move `before` and everything after it into a new block placed after `block`.

    `block` then ends with `br` to the new block (carrying `before`'s `!dbg`), and
    phis in the moved terminator's successors name the new block as incoming.
    Returns the new block.
    """
    if before.parent is not block:
        raise ValueError("split point is not in the block")
    if isinstance(before, Phi):
        raise ValueError("cannot split a block before a phi")
    fn = block.parent
    assert fn is not None
    tail = new_block(fn, name or f"{block.name or 'bb'}.split", after=block)
    i = block.index_of(before)
    moved = block.instructions[i:]
    del block.instructions[i:]
    for inst in moved:
        inst.parent = tail
    tail.instructions.extend(moved)
    tail.trailing_debug_records, block.trailing_debug_records = block.trailing_debug_records, []
    for succ in dict.fromkeys(tail.successors):
        rename_incoming(succ, block, tail)
    br = Br(tail)
    if "dbg" in before.metadata:
        br.metadata["dbg"] = before.metadata["dbg"]
    block.append(br)
    return tail


def rename_incoming(block: BasicBlock, old: BasicBlock, new: BasicBlock) -> None:
    """`block`'s phis: entries for predecessor `old` now come from `new`."""
    for phi in block.phis:
        for k in range(1, len(phi.operands), 2):
            if phi.operand(k) is old:
                phi.set_operand(k, new)


def redirect_edges(src: BasicBlock, old: BasicBlock, new: BasicBlock) -> None:
    """Make every slot of `src`'s terminator that names `old` name `new` (phis are the
    caller's business)."""
    term = src.terminator
    assert term is not None
    for k, op in enumerate(term.operands):
        if op is old:
            term.set_operand(k, new)


def split_edge(src: BasicBlock, dst: BasicBlock, name: str = "") -> BasicBlock:
    """Insert a new block on the edge src -> dst and return it.

    All of `src`'s terminator slots naming `dst` go to the new block; `dst`'s phis
    keep one entry for it (several edges from one switch collapse into one).
    """
    term = src.terminator
    if term is None or dst not in term.successors:
        raise ValueError(f"no edge from {src.name} to {dst.name}")
    if isinstance(dst.first_non_phi, LandingPad):
        raise ValueError("cannot split an unwind edge (the landing pad must stay its target)")
    fn = src.parent
    assert fn is not None
    mid = new_block(fn, name or f"{src.name or 'bb'}.{dst.name or 'bb'}_crit_edge", after=src)
    redirect_edges(src, dst, mid)
    for phi in dst.phis:
        pairs = phi.incoming
        first = next(v for v, b in pairs if b is src)
        kept = [(v, b) for v, b in pairs if b is not src]
        phi.set_operands([x for pair in kept for x in pair] + [first, mid])
    br = Br(dst)
    if "dbg" in term.metadata:
        br.metadata["dbg"] = term.metadata["dbg"]
    mid.append(br)
    return mid


def remove_unreachable_blocks(fn: Function) -> int:
    """Delete blocks not reachable from the entry; returns how many were removed.

    Phi entries from removed blocks are dropped; any remaining use of a removed
    value (only possible from other dead code or debug records) becomes poison.
    """
    live = reachable_blocks(fn)
    dead = [b for b in fn.blocks if b not in live]
    if not dead:
        return 0
    dead_set = set(dead)
    for b in dead:
        for succ in dict.fromkeys(b.successors):
            if succ not in dead_set:
                for phi in succ.phis:
                    phi.remove_incoming(b)
    for b in dead:
        for inst in b.instructions:
            inst.drop_operands()
            for rec in inst.debug_records:
                rec.drop_operands()
    for b in dead:
        for inst in b.instructions:
            if inst.uses:
                inst.replace_all_uses_with(poison(inst.type))
            inst.parent = None
        b.instructions = []
        b.parent = None
    fn.blocks[:] = [b for b in fn.blocks if b not in dead_set]
    return len(dead)


def fold_trivial_phis(fn: Function) -> int:
    """Replace each phi whose incoming values are all one value (itself aside) by
    that value, as often as that makes others trivial; returns how many went.

    What removing edges leaves behind (a clone that keeps one case of a `switch`):
    the value then reaches its users as what it is, a constant or an argument."""
    removed = 0
    changed = True
    while changed:
        changed = False
        for block in fn.blocks:
            for phi in list(block.phis):
                values = {v for v, _ in phi.incoming if v is not phi}
                if len(values) == 1:
                    phi.replace_all_uses_with(values.pop())
                    phi.erase()
                    removed += 1
                    changed = True
    return removed


# ---------------------------------------------------------------------------
# Cloning


def clone_function(fn: Function, new_name: str, module: Module | None = None) -> tuple[Function, ValueMap]:
    """A copy of `fn` named `new_name` (made unique in `module`, which it joins).

    Blocks, instructions, debug records and metadata attachments are copied;
    constants, globals and metadata nodes are shared. The header (linkage,
    attributes, suffix) is copied except `comdat`, which names the original.
    Returns the new function and the map from `fn`'s arguments, blocks and
    instructions to their copies.
    """
    if module is not None:
        new = module.add_function(new_name, fn.function_type)
    else:
        new = Function(new_name, fn.function_type)
    for old_arg, new_arg in zip(fn.args, new.args):
        new_arg.name, new_arg.attrs = old_arg.name, old_arg.attrs
    new.linkage = Linkage(list(fn.linkage.words))
    new.cconv, new.ret_attrs, new.fn_attrs = fn.cconv, fn.ret_attrs, fn.fn_attrs
    new.header_suffix = [w for w in fn.header_suffix if not w.startswith("comdat")]
    new.addrspace, new.unnamed_addr = fn.addrspace, fn.unnamed_addr
    new.metadata = dict(fn.metadata)
    new.blocks = []
    value_map: ValueMap = dict(zip(fn.args, new.args))
    clone_into(fn, new, value_map)
    if module is not None:
        clone_subprogram(module, new)
    return new, value_map


def clone_into(src: Function, dst: Function, value_map: ValueMap, *, after: BasicBlock | None = None,
               name_suffix: str = "") -> ValueMap:
    """Copy `src`'s body into `dst` and return `value_map` extended with the copies.

    `value_map` must map each argument of `src` that the body uses (to an argument
    of `dst` or any value); it may also pre-map other values, e.g. to substitute
    instructions. New blocks go after `after` (default: at the end), named
    uniquely in `dst` (with `name_suffix` appended to each name).
    """
    blocks = list(src.blocks)  # a copy: `dst` may be `src` itself
    for a in src.args:
        if a.uses and a not in value_map:
            raise ValueError(f"clone_into: argument {a.name or a.index} of @{src.name} is not mapped")
    new_blocks: list[BasicBlock] = []
    anchor = after
    for b in blocks:
        nb = new_block(dst, (b.name + name_suffix) if b.name is not None else "", after=anchor)
        if anchor is not None:
            anchor = nb
        new_blocks.append(nb)
        value_map[b] = nb
    pairs: list[tuple[Instruction, Instruction]] = []
    for b, nb in zip(blocks, new_blocks):
        for inst in b.instructions:
            if inst in value_map:
                continue
            new = _shell(inst)
            if inst.name is not None:
                new.name = fresh_local_name(dst, inst.name + name_suffix)
            nb.append(new)
            value_map[inst] = new
            pairs.append((inst, new))
    for old, new in pairs:
        for op in old.operands:
            new.append_operand(remap_value(op, value_map))
        new.debug_records = [_clone_record(r, value_map) for r in old.debug_records]
    for b, nb in zip(blocks, new_blocks):
        nb.trailing_debug_records = [_clone_record(r, value_map) for r in b.trailing_debug_records]
    return value_map


def clone_instruction(inst: Instruction, value_map: ValueMap | None = None, *, debug: bool = True) -> Instruction:
    """A detached copy of `inst`, operands mapped through `value_map` (default: same).

    With `debug=False` the copy has no debug records and no `!dbg`/`!DIAssignID`:
    for copies placed in another function (one without `inst`'s subprogram), where
    records would name values of `inst`'s function.
    """
    vmap = value_map or {}
    new = _shell(inst)
    new.name = inst.name
    for op in inst.operands:
        new.append_operand(remap_value(op, vmap))
    if debug:
        new.debug_records = [_clone_record(r, vmap) for r in inst.debug_records]
    else:
        new.metadata = {k: m for k, m in new.metadata.items() if k not in ("dbg", "DIAssignID")}
    return new


def _shell(inst: Instruction) -> Instruction:
    """Same class and fields, no operands, uses, parent, name or debug records."""
    new = object.__new__(type(inst))
    fields = {k: (v.copy() if type(v) in (list, dict) else v) for k, v in inst.__dict__.items() if k not in _FRESH}
    fields.update(_operands=[], _operand_uses=[], uses={}, parent=None, name=None, debug_records=[])
    new.__dict__ = fields
    return new


_FRESH = frozenset(("_operands", "_operand_uses", "uses", "parent", "name", "debug_records"))


def _clone_record(rec: DebugRecord, value_map: ValueMap) -> DebugRecord:
    new = copy.copy(rec)
    new._operands, new._operand_uses, new.uses = [], [], {}
    for op in rec.operands:
        new.append_operand(remap_value(op, value_map))
    return new


def remap_value(v: Value, value_map: ValueMap) -> Value:
    """`v` through the map; metadata operands wrapping mapped values are rebuilt."""
    mapped = value_map.get(v)
    if mapped is not None:
        return mapped
    if isinstance(v, MetadataOperand):
        md = _remap_md(v.md, value_map)
        return v if md is v.md else MetadataOperand(v.type, md)
    if isinstance(v, User) and not isinstance(v, (Instruction, DebugRecord)):
        # A value list inside a debug record (`!DIArgList(...)`): copy if it changes.
        ops = [remap_value(op, value_map) for op in v.operands]
        if any(a is not b for a, b in zip(ops, v.operands)):
            new = copy.copy(v)
            new._operands, new._operand_uses, new.uses = [], [], {}
            for op in ops:
                new.append_operand(op)
            return new
    return v


def _remap_md(md: Metadata, value_map: ValueMap) -> Metadata:
    match md:
        case MDValue(value=val) if val in value_map:
            return MDValue(value_map[val])
        case MDTuple(operands=ops):
            new_ops = [None if o is None else _remap_md(o, value_map) for o in ops]
            if any(a is not b for a, b in zip(new_ops, ops)):
                return MDTuple(new_ops, md.distinct)
    return md


# ---------------------------------------------------------------------------
# Debug info of clones

_LOCAL_SCOPE_KINDS = {"DILexicalBlock", "DILexicalBlockFile", "DILocation", "DILocalVariable", "DILabel",
                      "DIAssignID", "DICommonBlock"}
"""Node kinds that belong to one function's body; types, files, compile units and
other subprograms are shared between a function and its clone (as in LLVM)."""

_NODE_REF = re.compile(r'"(?:[^"\\]|\\.)*"|!([0-9]+)')


def clone_subprogram(module: Module, fn: Function) -> None:
    """Give `fn` (a fresh clone) its own copy of its `DISubprogram` and local scopes.

    LLVM rejects a subprogram attached to two functions and then drops the
    module's debug info, so a clone of a `-g` function needs new distinct nodes
    for its subprogram and for every node of its body that leads back to it
    (locations, lexical blocks, local variables, loop ids), and its own
    `DIAssignID`s; attachments and debug records of `fn` are redirected to the
    copies.
    """
    sp = fn.metadata.get("dbg")
    nodes = module.metadata
    if not isinstance(sp, MDRef) or sp.id not in nodes:
        return
    roots = [sp.id]
    for inst in fn.instructions():
        for md in inst.metadata.values():
            roots.extend(_node_refs(md))
        for rec in inst.debug_records:
            for op in rec.operands:
                if isinstance(op, MetadataOperand):
                    roots.extend(_node_refs(op.md))
    # Walk the function-local part of the metadata graph, recording reverse edges.
    referrers: dict[str, list[str]] = {}
    seen: set[str] = set()
    stack = roots
    while stack:
        node_id = stack.pop()
        if node_id in seen:
            continue
        seen.add(node_id)
        node = nodes.get(node_id)
        if node is None or (isinstance(node, MDSpecialized) and node_id != sp.id and node.kind not in _LOCAL_SCOPE_KINDS):
            continue
        for ref in _node_refs(node):
            referrers.setdefault(ref, []).append(node_id)
            stack.append(ref)
    # The nodes to copy are those that lead back to the subprogram, and the
    # assignment ids linking this body's stores to its #dbg_assign records.
    local = {sp.id} | {i for i in seen if isinstance(nodes.get(i), MDSpecialized) and nodes[i].kind == "DIAssignID"}
    stack = list(local)
    while stack:
        for r in referrers.get(stack.pop(), []):
            if r not in local:
                local.add(r)
                stack.append(r)
    next_id = max((int(k) for k in nodes if k.isdigit()), default=-1) + 1
    mapping = {old: str(next_id + k) for k, old in enumerate(sorted(local, key=int))}
    for old, new_id in mapping.items():
        nodes[new_id] = _rewrite_md(nodes[old], mapping, force_copy=True)
    fn.metadata["dbg"] = MDRef(mapping[sp.id])
    for inst in fn.instructions():
        for key, md in list(inst.metadata.items()):
            inst.metadata[key] = _rewrite_md(md, mapping)
        for rec in inst.debug_records:
            for k, op in enumerate(rec.operands):
                if isinstance(op, MetadataOperand):
                    md = _rewrite_md(op.md, mapping)
                    if md is not op.md:
                        rec.set_operand(k, MetadataOperand(op.type, md))


def _node_refs(md: Metadata | None) -> Iterator[str]:
    """Ids of the numbered nodes `md` refers to directly."""
    match md:
        case MDRef(id=i):
            yield i
        case MDTuple(operands=ops):
            for o in ops:
                yield from _node_refs(o)
        case MDSpecialized(fields=fields):
            for _, text in fields:
                yield from (m.group(1) for m in _NODE_REF.finditer(text) if m.group(1))
        case MDRaw(text=text):
            yield from (m.group(1) for m in _NODE_REF.finditer(text) if m.group(1))


def _rewrite_text(text: str, mapping: dict[str, str]) -> str:
    def sub(m: re.Match) -> str:
        ref = m.group(1)
        return "!" + mapping[ref] if ref is not None and ref in mapping else m.group(0)

    return _NODE_REF.sub(sub, text)


def _rewrite_md(md: Metadata, mapping: dict[str, str], force_copy: bool = False) -> Metadata:
    """`md` with references through `mapping`; the same object when nothing changes
    (unless `force_copy`, for nodes being duplicated)."""
    match md:
        case MDRef(id=i) if i in mapping:
            return MDRef(mapping[i])
        case MDTuple(operands=ops, distinct=d):
            new_ops = [None if o is None else _rewrite_md(o, mapping) for o in ops]
            if force_copy or any(a is not b for a, b in zip(new_ops, ops)):
                return MDTuple(new_ops, d)
        case MDSpecialized(kind=kind, fields=fields, distinct=d):
            new_fields = [(k, _rewrite_text(v, mapping)) for k, v in fields]
            if force_copy or new_fields != fields:
                return MDSpecialized(kind, new_fields, d)
        case MDRaw(text=text):
            new_text = _rewrite_text(text, mapping)
            if force_copy or new_text != text:
                return MDRaw(new_text)
    return copy.copy(md) if force_copy else md
