"""Alias scope metadata (`!alias.scope`, `!noalias`) as LLVM's verifier checks it.

A scope list is a node of scopes; a scope is `!{self or "name", domain[, "desc"]}`
and a domain `!{self or "name"[, "desc"]}` ("self" meaning a reference to the node
itself, as clang writes `distinct !{!5, !"f"}` for `!5`).
"""

from __future__ import annotations

from enzc.ir.metadata import Metadata, MDRef, MDString, MDTuple, MDValue

SCOPE_KINDS = ("alias.scope", "noalias")


def scope_list_problem(md: Metadata | None, defined: dict[str, Metadata]) -> str | None:
    """Why LLVM rejects `md` as an `!alias.scope` / `!noalias` list (None: accepted)."""
    scopes = defined.get(md.id) if isinstance(md, MDRef) else md
    if not isinstance(scopes, MDTuple):
        return None  # not a node at all: reported by the attachment checks
    for op in scopes.operands:
        target = defined.get(op.id) if isinstance(op, MDRef) else op
        if op is None or isinstance(target, (MDString, MDValue)):
            return "scope list must consist of MDNodes"
        if isinstance(target, MDTuple) and isinstance(op, MDRef):
            problem = _scope_problem(op.id, target, defined)
            if problem:
                return problem
    return None


def _scope_problem(key: str, scope: MDTuple, defined: dict[str, Metadata]) -> str | None:
    ops = scope.operands
    if len(ops) not in (2, 3):
        return "scope must have two or three operands"
    if not _names_itself(key, ops[0]):
        return "first scope operand must be self-referential or string"
    if len(ops) == 3 and not isinstance(ops[2], MDString):
        return "third scope operand must be string (if used)"
    domain_ref = ops[1]
    domain = defined.get(domain_ref.id) if isinstance(domain_ref, MDRef) else domain_ref
    if not isinstance(domain, MDTuple):
        return "second scope operand must be MDNode"
    dops = domain.operands
    if len(dops) not in (1, 2):
        return "domain must have one or two operands"
    key_of_domain = domain_ref.id if isinstance(domain_ref, MDRef) else None
    if not _names_itself(key_of_domain, dops[0]):
        return "first domain operand must be self-referential or string"
    if len(dops) == 2 and not isinstance(dops[1], MDString):
        return "second domain operand must be string (if used)"
    return None


def _names_itself(key: str | None, first: Metadata | None) -> bool:
    return isinstance(first, MDString) or (isinstance(first, MDRef) and first.id == key)
