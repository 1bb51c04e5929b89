"""LLVM's verifier rules for exception handling in a function body.

- `resume` and the EH pads (`landingpad`, `catchswitch`, `catchpad`, `cleanuppad`)
  only in a function with a personality;
- an EH pad is the first instruction of its block after the phis, and not in the
  entry block;
- a `landingpad` has a clause or `cleanup`, all of a function's have one result type,
  and its block is entered only by the unwind edges of invokes;
- an invoke unwinds to a block that starts with an EH pad.
"""

from __future__ import annotations

from enzc.ir.instructions import Instruction, Invoke, LandingPad, Phi
from enzc.ir.module import BasicBlock, Function
from enzc.ir.types import Type

_PADS = frozenset({"landingpad", "catchswitch", "catchpad", "cleanuppad"})


def eh_problems(fn: Function) -> list[str]:
    """Everything wrong with exception handling in `fn`'s body."""
    has_personality = any(item.startswith("personality") for item in fn.header_suffix)
    problems: list[str] = []
    pad_type: list[Type] = []
    for block in fn.blocks:
        first = _first_non_phi(block)
        for inst in block.instructions:
            where = f"@{fn.name}, {inst.opcode} in block {_name(block)}"
            if (inst.opcode in _PADS or inst.opcode == "resume") and not has_personality:
                problems.append(f"{where}: needs to be in a function with a personality")
            if inst.opcode in _PADS:
                if inst is not first:
                    problems.append(f"{where}: an EH pad must be the first non-PHI instruction")
                if block is fn.blocks[0]:
                    problems.append(f"{where}: an EH pad cannot be in the entry block")
            if isinstance(inst, LandingPad):
                problems += [f"{where}: {p}" for p in _landingpad_problems(inst, block, pad_type)]
            if isinstance(inst, Invoke) and not _starts_with_pad(inst.unwind_dest):
                problems.append(f"{where}: the unwind destination {_name(inst.unwind_dest)} "
                                "does not start with an exception handling instruction")
    return problems


def _landingpad_problems(pad: LandingPad, block: BasicBlock, seen: list[Type]) -> list[str]:
    problems = []
    if not pad.cleanup and not pad.clause_kinds:
        problems.append("a landingpad needs at least one clause or to be a cleanup")
    if seen and pad.type != seen[0]:
        problems.append(f"landingpads of one function must have one result type "
                        f"({pad.type}, {seen[0]})")
    seen.append(pad.type)
    for pred in block.predecessors:
        term = pred.terminator
        if not (isinstance(term, Invoke) and term.unwind_dest is block
                and term.normal_dest is not block):
            problems.append("a block with a landingpad must be entered only by the unwind "
                            "edge of an invoke")
            break
    return problems


def _first_non_phi(block: BasicBlock) -> Instruction | None:
    return next((inst for inst in block.instructions if not isinstance(inst, Phi)), None)


def _starts_with_pad(block: BasicBlock) -> bool:
    first = _first_non_phi(block)
    return first is not None and first.opcode in _PADS


def _name(block: BasicBlock) -> str:
    return f"%{block.name}" if block.name is not None else "(unnamed)"
