"""Compile-time errors of the AD engine: where, what, and what the user can do.

Messages follow clang: `file:line:col: error: enzc: <what>` when the instruction has
a `!dbg` location, then `note:` with the function and the instruction's text, a
`note: inlined at` for each call its code was inlined through (a library header's
line, then the user's), then `hint:`. The driver prints the message of the raised `ADError` and exits with 1.

Every layer of the engine reports through this module, so it depends on nothing of
the engine (only on `enzc.ir`): it is the bottom of `enzc.ad`'s layers.
"""

from __future__ import annotations

import re
import shutil
import subprocess

from enzc.errors import EnzcError
from enzc.ir.instructions import Instruction
from enzc.ir.module import Module


class ADError(EnzcError):
    """The AD engine cannot differentiate something; the message says where and why."""


def location_of(module: Module | None, inst: Instruction | None) -> str | None:
    """`file:line:col` of `inst` from its `!dbg`, if the parser can resolve it.

    An instruction the optimizer left without a location (a terminator, often)
    takes the location of the nearest one before it in its block, else after it."""
    if module is None or inst is None:
        return None
    inst = _nearest_located(inst)
    if inst is None:
        return None
    try:
        from enzc.ir import source_location  # provided by the parser package
    except ImportError:
        return None
    loc = source_location(module, inst)
    return str(loc) if loc is not None else None


def inlined_from(module: Module | None, inst: Instruction | None) -> list[str]:
    """`file:line:col` of each call `inst`'s code was inlined through, innermost first."""
    if module is None or inst is None or (inst := _nearest_located(inst)) is None:
        return []
    try:
        from enzc.ir import inlined_at
    except ImportError:
        return []
    return [str(loc) for loc in inlined_at(module, inst)]


def _nearest_located(inst: Instruction) -> Instruction | None:
    if "dbg" in inst.metadata or inst.parent is None:
        return inst if "dbg" in inst.metadata else None
    block = inst.parent.instructions
    at = next(i for i, x in enumerate(block) if x is inst)
    for other in (*reversed(block[:at]), *block[at + 1:]):
        if "dbg" in other.metadata:
            return other
    return None


_ATTACHMENTS = re.compile(r"(, ![-\w.]+ ![0-9]+)+$")


def describe_instruction(inst: Instruction) -> str:
    """The instruction's own text on one line (an `invoke` prints on two), without
    debug records and metadata attachments."""
    try:
        lines = [ln.strip() for ln in str(inst).strip().splitlines()]
    except Exception:  # noqa: BLE001 - printing must never hide the real error
        return inst.opcode
    return _ATTACHMENTS.sub("", " ".join(ln for ln in lines if ln and not ln.startswith("#dbg_")))


DEMANGLERS = ("llvm-cxxfilt-22", "llvm-cxxfilt", "c++filt")


def readable_name(name: str) -> str:
    """A C++ symbol demangled (`_ZN3foo3barEv` → `foo::bar()`), other names as they are."""
    if not name.startswith("_Z"):
        return name
    for tool in DEMANGLERS:
        path = shutil.which(tool)
        if path is None:
            continue
        try:
            out = subprocess.run([path], input=name, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        return out or name
    return name


def format_error(module: Module | None, inst: Instruction | None, function: str, what: str,
                 hint: str | None = None) -> str:
    """The full multi-line message (without the trailing newline)."""
    loc = location_of(module, inst)
    head = f"{loc}: error: enzc: {what}" if loc else f"error: enzc: {what}"
    lines = [head]
    if inst is not None:
        lines.append(f"note: in function '{readable_name(function)}': {describe_instruction(inst)}")
    else:
        lines.append(f"note: in function '{readable_name(function)}'")
    lines += [f"note: inlined at {at}" for at in inlined_from(module, inst)]
    if hint:
        lines.append(f"hint: {hint}")
    if loc is None and inst is not None:
        if module is not None and "llvm.dbg.cu" in module.named_metadata:
            lines.append("note: the optimized code keeps no source line for this instruction")
        else:
            lines.append("note: no source line is known: compile with -g (or -gline-tables-only) to see it")
    return "\n".join(lines)


def ad_error(module: Module | None, inst: Instruction | None, function: str, what: str,
             hint: str | None = None):
    """An `ADError` ready to raise."""
    return ADError(format_error(module, inst, function, what, hint))
