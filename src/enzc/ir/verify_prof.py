"""LLVM's verifier rules for `!prof` attachments on instructions.

A `!prof` node starts with its name string. `!{!"branch_weights"[, !"expected"], iN w...}`
holds one integer weight per successor of a branch, switch, indirectbr or callbr, two
for a select, one for a call, one or two for an invoke, and is allowed nowhere else.
`!{!"unknown", !"origin"}` may go where branch weights may.
`!{!"VP", iN kind, ...}` (value profile) has at least five operands, an odd number,
a kind 0..2, and kinds 0 and 1 (indirect call targets, memop sizes) only on calls.
Any other name is rejected.
"""

from __future__ import annotations

from enzc.ir.instructions import CallBase, Instruction
from enzc.ir.metadata import Metadata, MDRef, MDString, MDTuple, MDValue
from enzc.ir.values import ConstantInt

_VALUE_PROFILE_KINDS = range(3)
"""Indirect call target, memop size, vtable target."""
_CALL_ONLY_KINDS = (0, 1)


def prof_problem(attachment: Metadata | None, inst: Instruction,
                 defined: dict[str, Metadata]) -> str | None:
    """Why LLVM rejects `attachment` as the `!prof` of `inst` (None if it does not)."""
    if attachment is None:
        return None
    node = defined.get(attachment.id) if isinstance(attachment, MDRef) else attachment
    operands = node.operands if isinstance(node, MDTuple) else [None]
    if not operands:
        return "!prof annotations should have at least 1 operand"
    if operands[0] is None:
        return "the first operand of !prof should not be null"
    if not isinstance(operands[0], MDString):
        return "expected a string with the name of the !prof annotation"
    name = operands[0].data
    if name == b"unknown":
        if _expected_weights(inst) is None:
            return "'unknown' !prof should only appear where 'branch_weights' may"
        if len(operands) != 2 or not isinstance(operands[1], MDString):
            return "'unknown' !prof should have a single additional string operand"
        return None
    if len(operands) < 2:
        return "!prof annotations should have no less than 2 operands"
    if name == b"branch_weights":
        return _branch_weights_problem(operands, inst)
    if name == b"VP":
        return _value_profile_problem(operands, inst)
    return "expected either branch_weights or VP profile name in !prof"


def _expected_weights(inst: Instruction) -> tuple[int, ...] | None:
    """The numbers of branch weights `inst` may carry (None: it may carry none)."""
    if inst.opcode in ("br", "switch", "indirectbr", "callbr"):
        return (len(inst.successors),)
    if inst.opcode == "select":
        return (2,)
    if inst.opcode == "invoke":
        return (1, 2)
    if inst.opcode == "call":
        return (1,)
    return None


def _branch_weights_problem(operands: list[Metadata | None], inst: Instruction) -> str | None:
    expected = _expected_weights(inst)
    if expected is None:
        return "!prof branch_weights are not allowed for this instruction"
    marker = operands[1]
    start = 2 if isinstance(marker, MDString) and marker.data == b"expected" else 1
    weights = operands[start:]
    if len(weights) not in expected:
        return (f"wrong number of !prof branch_weights operands ({len(weights)}, "
                f"expected {' or '.join(map(str, expected))})")
    if any(w is None for w in weights):
        return "a !prof branch_weights operand should not be null"
    if not all(_integer(w) is not None for w in weights):
        return "a !prof branch_weights operand is not a constant integer"
    return None


def _value_profile_problem(operands: list[Metadata | None], inst: Instruction) -> str | None:
    if len(operands) < 5:
        return "invalid value profiling metadata (fewer than 5 operands)"
    kind = _integer(operands[1])
    if kind is None:
        return "VP !prof missing kind argument"
    if kind.unsigned not in _VALUE_PROFILE_KINDS:
        return f"invalid VP !prof kind {kind.unsigned}"
    if len(operands) % 2 == 0:
        return "VP !prof should have an even number of arguments after 'VP'"
    if kind.unsigned in _CALL_ONLY_KINDS and not isinstance(inst, CallBase):
        return "VP !prof of indirect call targets or memop sizes belongs on calls only"
    return None


def _integer(md: Metadata | None) -> ConstantInt | None:
    if isinstance(md, MDValue) and isinstance(md.value, ConstantInt):
        return md.value
    return None
