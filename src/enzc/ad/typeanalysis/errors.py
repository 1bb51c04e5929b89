"""Errors type analysis raises when the gradient needs a type it cannot give.

They carry the offending IR value so the AD engine can print the clang-style
diagnostic (file:line from `!dbg`, the function, the instruction); `str(err)`
alone is already a complete sentence with a hint.
"""

from __future__ import annotations

from enzc.errors import EnzcError
from enzc.ir.instructions import CallBase, Instruction
from enzc.ir.module import Function
from enzc.ir.values import Argument, Value


class TypeAnalysisError(EnzcError):
    """The gradient needs the type of `value`, and type analysis cannot give one."""

    def __init__(self, reason: str, value: Value, hint: str) -> None:
        self.reason = reason
        """What could not be decided, e.g. "cannot deduce the type of memory copied by this memcpy"."""
        self.value = value
        """The instruction or argument the diagnostic should point at."""
        self.hint = hint
        """What the user can do about it."""
        self.function = _function_of(value)
        where = f" in function @{self.function.name}" if self.function is not None else ""
        super().__init__(f"{reason}{where}: {describe_value(value)}; hint: {hint}")


class UnknownTypeError(TypeAnalysisError):
    """Nothing in the program says what the bytes hold."""


class TypeConflictError(TypeAnalysisError):
    """The program uses the same bytes as two incompatible types (e.g. double and long)."""


def _function_of(value: Value) -> Function | None:
    if isinstance(value, Instruction):
        return value.function
    if isinstance(value, Argument):
        return value.parent
    return None


def describe_value(value: Value) -> str:
    """A short spelling of an IR value for messages: `%x`, `call @llvm.memcpy...`."""
    if isinstance(value, CallBase):
        callee = value.called_function
        target = f"@{callee.name}" if callee is not None else "an indirect callee"
        named = f"%{value.name} = " if value.name else ""
        return f"`{named}call {target}`"
    if isinstance(value, Instruction):
        named = f"%{value.name} = " if value.name else ""
        return f"`{named}{value.opcode} {value.type}`"
    if isinstance(value, Argument):
        return f"argument {value.index} (%{value.name})" if value.name else f"argument {value.index}"
    try:
        return f"`{value.typed_ref()}`"
    except (ValueError, NotImplementedError):
        return f"a value of type {value.type}"
