"""LLVM's rules for metadata whose shape LLVM itself relies on, which enzc.ir keeps as
plain tuples and would otherwise print back as a module LLVM rejects or crashes on.

- `!llvm.ident` and `!llvm.commandline` list nodes of exactly one string each
  (LLVM's verifier).
- An `!llvm.loop` attachment has at least one operand: LLVM's parser strips debug
  locations from loop IDs of every module without a "Debug Info Version" flag,
  reading operand 0 as the loop itself, and segfaults on an empty node (ll:3702503).
"""

from __future__ import annotations

from enzc.ir.metadata import Metadata, MDRef, MDString, MDTuple

_ONE_STRING_LISTS = ("llvm.ident", "llvm.commandline")


def named_metadata_problems(module) -> list[str]:  # type: ignore[no-untyped-def]  # Module
    """One message per broken entry of `!llvm.ident` / `!llvm.commandline`."""
    defined = module.metadata
    problems = []
    for name in _ONE_STRING_LISTS:
        for ref in module.named_metadata.get(name, []):
            entry = defined.get(ref)
            if not isinstance(entry, MDTuple):
                continue  # an undefined reference is reported with the others
            if len(entry.operands) != 1:
                problems.append(f"!{name}: incorrect number of operands in !{ref}")
            elif not isinstance(_resolve(entry.operands[0], defined), MDString):
                problems.append(f"!{name}: invalid value for entry !{ref} (the operand should be a string)")
    return problems


def loop_attachment_problem(attachment: Metadata | None, defined: dict[str, Metadata]) -> str | None:
    """Why LLVM cannot take `attachment` as an instruction's `!llvm.loop`, or None."""
    node = _resolve(attachment, defined)
    if isinstance(node, MDTuple) and not node.operands:
        return "!llvm.loop needs at least one operand (the loop ID itself)"
    return None


def _resolve(md: Metadata | None, defined: dict[str, Metadata]) -> Metadata | None:
    return defined.get(md.id) if isinstance(md, MDRef) else md
