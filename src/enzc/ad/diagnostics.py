"""Compile-time errors of the AD engine: where, what, and what the user can do.

Messages follow clang: `file:line:col: error: enzc: <what>` when the instruction has
a `!dbg` location, then `note:` with the function and the instruction's text, then
`hint:`. The driver prints the message of the raised `ADError` and exits with 1.
"""

from __future__ import annotations

import re

from enzc.ir.instructions import Instruction
from enzc.ir.module import Module


def location_of(module: Module | None, inst: Instruction | None) -> str | None:
    """`file:line:col` of `inst` from its `!dbg`, if the parser can resolve it."""
    if module is None or inst is None or "dbg" not in inst.metadata:
        return None
    try:
        from enzc.ir import source_location  # provided by the parser package
    except ImportError:
        return None
    loc = source_location(module, inst)
    return str(loc) if loc is not None else None


_ATTACHMENTS = re.compile(r"(, ![-\w.]+ ![0-9]+)+$")


def describe_instruction(inst: Instruction) -> str:
    """The instruction's own line, without debug records and metadata attachments."""
    try:
        text = str(inst).strip().splitlines()[-1]
    except Exception:  # noqa: BLE001 - printing must never hide the real error
        return inst.opcode
    return _ATTACHMENTS.sub("", text)


def format_error(module: Module | None, inst: Instruction | None, function: str, what: str,
                 hint: str | None = None) -> str:
    """The full multi-line message (without the trailing newline)."""
    loc = location_of(module, inst)
    head = f"{loc}: error: enzc: {what}" if loc else f"error: enzc: {what}"
    lines = [head]
    if inst is not None:
        lines.append(f"note: in function '{function}': {describe_instruction(inst)}")
    else:
        lines.append(f"note: in function '{function}'")
    if hint:
        lines.append(f"hint: {hint}")
    return "\n".join(lines)


def ad_error(module: Module | None, inst: Instruction | None, function: str, what: str,
             hint: str | None = None):
    """An `ADError` ready to raise."""
    from enzc.ad import ADError

    return ADError(format_error(module, inst, function, what, hint))
