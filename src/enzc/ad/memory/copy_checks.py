"""Run-time checks of copies the reverse pass takes as whole values: records of a
length nothing proves whole (`CopyLayout.checked`), and floats a run-time length
may cut (`CopyLayout.bounded`). A copy of part of a record or of a double has no
derivative, so the program stops with a message instead of computing one.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.libc import define_failure, define_helper
from enzc.ir.module import Function
from enzc.ir.types import I64, VOID, FunctionType
from enzc.ir.values import ConstantInt

from enzc.ad.analysis.gradient_state import GradientState


def whole_records_check(gu: GradientState) -> Function:
    """`void __enzc_check_whole_records(i64 n, i64 size)`: aborts with a message
    unless `n` bytes are whole `size`-byte records (the adjoint of part of a record
    would be wrong, not imprecise)."""
    fn, fresh = define_helper(gu.module, "__enzc_check_whole_records", FunctionType(VOID, (I64, I64)),
                              ("n", "size"))
    if not fresh:
        return fn
    n, size = fn.args
    entry, partial, whole = new_block(fn, "entry"), new_block(fn, "partial"), new_block(fn, "whole")
    b = IRBuilder(entry)
    b.cond_br(b.icmp("ne", b.urem(n, size, "rest"), ConstantInt(I64, 0), "is.partial"), partial, whole)
    b.position_at_end(partial)
    b.call(define_failure(gu.module, "__enzc_partial_record_error", _PARTIAL_RECORD), [])
    b.unreachable()
    b.position_at_end(whole)
    b.ret_void()
    return fn


def covered_elements(gu: GradientState) -> Function:
    """`i64 __enzc_covered_elements(i64 n, i64 offset, i64 count, i64 size)`: how many
    of the `count` elements of `size` bytes at `offset` a copy of `n` bytes moves
    whole; aborts with a message if it ends inside one."""
    fn, fresh = define_helper(gu.module, "__enzc_covered_elements", FunctionType(I64, (I64, I64, I64, I64)),
                              ("n", "offset", "count", "size"))
    if not fresh:
        return fn
    n, offset, count, size = fn.args
    entry, none, some, every, part, cut, whole = (new_block(fn, name) for name in (
        "entry", "none", "some", "every", "part", "cut", "whole"))
    b = IRBuilder(entry)
    b.cond_br(b.icmp("ugt", n, offset, "reaches"), some, none)
    b.position_at_end(none)
    b.ret(ConstantInt(I64, 0))
    b.position_at_end(some)
    avail = b.sub(n, offset, "avail")
    moved = b.udiv(avail, size, "moved")
    b.cond_br(b.icmp("uge", moved, count, "all"), every, part)
    b.position_at_end(every)
    b.ret(count)
    b.position_at_end(part)
    b.cond_br(b.icmp("ne", b.urem(avail, size, "rest"), ConstantInt(I64, 0), "inside"), cut, whole)
    b.position_at_end(cut)
    b.call(define_failure(gu.module, "__enzc_partial_float_error", _PARTIAL_FLOAT), [])
    b.unreachable()
    b.position_at_end(whole)
    b.ret(moved)
    return fn


_PARTIAL_FLOAT = (b"enzc: a memory copy being differentiated ended inside a floating-point value; "
                  b"no derivative exists\n")


_PARTIAL_RECORD = (b"enzc: a memory copy being differentiated moved part of a record (its length is not a "
                   b"whole number of the records the program indexes the memory as); no derivative exists\n")
