"""LLVM's verifier rules for `!range` attachments.

`!range !{iN lo, iN hi, ...}` goes on loads, calls and invokes whose result is an
integer or a vector of integers; it holds one or more half-open intervals `[lo, hi)`
(wrapping when `lo > hi`), each with both bounds integer constants of the result's
(element) type and `lo != hi`; each interval starts (signed) above the one before
and neither overlaps nor touches it, and with three or more the last and the
first do not either.
"""

from __future__ import annotations

from enzc.ir.instructions import CallBase, Instruction, Load
from enzc.ir.metadata import Metadata, MDRef, MDTuple, MDValue
from enzc.ir.types import IntType, VectorType
from enzc.ir.values import ConstantInt


def range_problem(attachment: Metadata | None, inst: Instruction,
                  defined: dict[str, Metadata]) -> str | None:
    """Why LLVM rejects `attachment` as the `!range` of `inst` (None if it does not)."""
    if attachment is None:
        return None
    if not isinstance(inst, (Load, CallBase)):
        return "ranges are only for loads, calls and invokes"
    node = defined.get(attachment.id) if isinstance(attachment, MDRef) else attachment
    operands = node.operands if isinstance(node, MDTuple) else []
    if not operands:
        return "!range should have at least one range"
    if len(operands) % 2:
        return "unfinished !range"
    element = inst.type.element if isinstance(inst.type, VectorType) else inst.type
    intervals: list[tuple[int, int]] = []
    for lo_md, hi_md in zip(operands[::2], operands[1::2]):
        lo, hi = _integer(lo_md), _integer(hi_md)
        if lo is None or hi is None:
            return "the limits of a !range must be integers"
        if lo.type != hi.type:
            return "!range pair types must match"
        if lo.type != element or not isinstance(element, IntType):
            return "!range types must match the instruction type"
        width = 1 << element.bits
        low, high = lo.value % width, hi.value % width
        if low == high:
            return "the limits of a !range cannot be the same value (an empty or full range)"
        intervals.append((low, high))
    return _order_problem(intervals, 1 << element.bits)


def _order_problem(intervals: list[tuple[int, int]], width: int) -> str | None:
    """Each interval after the first must start (signed) above the one before and
    neither overlap nor touch it; with three or more, the last must not overlap or
    touch the first either (LLVM compares only these pairs)."""
    def signed(v: int) -> int:
        return v - width if v >= width // 2 else v

    pairs = [(intervals[k - 1], intervals[k]) for k in range(1, len(intervals))]
    for last, current in pairs:
        if _overlap(current, last, width):
            return "!range intervals are overlapping"
        if signed(current[0]) <= signed(last[0]):
            return "!range intervals are not in order"
        if _touch(current, last):
            return "!range intervals are contiguous"
    if len(intervals) > 2:
        first, last = intervals[0], intervals[-1]
        if _overlap(first, last, width):
            return "!range intervals are overlapping"
        if _touch(first, last):
            return "!range intervals are contiguous"
    return None


def _overlap(a: tuple[int, int], b: tuple[int, int], width: int) -> bool:
    """Whether two half-open arcs of the integers mod `width` share a value: one
    contains the other's start."""
    return _contains(a, b[0], width) or _contains(b, a[0], width)


def _contains(interval: tuple[int, int], x: int, width: int) -> bool:
    lo, hi = interval
    return (x - lo) % width < (hi - lo) % width


def _touch(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[1] == b[0] or a[0] == b[1]


def _integer(md: Metadata | None) -> ConstantInt | None:
    if isinstance(md, MDValue) and isinstance(md.value, ConstantInt):
        return md.value
    return None
