"""Short names of instructions for messages, shared by the verifiers (and exported as
`enzc.ir.describe_instruction`)."""

from __future__ import annotations

from enzc.ir.instructions import Instruction


def describe(inst: Instruction) -> str:
    """Short identification of an instruction for messages: `%x = fadd` or `store #3`
    (its position in the block), usable even when the instruction is broken."""
    if inst.name is not None:
        return f"%{inst.name} = {inst.opcode}"
    if inst.parent is not None and inst in inst.parent.instructions:
        return f"{inst.opcode} #{inst.parent.index_of(inst)}"
    return inst.opcode
