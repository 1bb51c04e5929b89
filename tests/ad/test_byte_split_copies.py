"""`memory.byte_split_copies`: a record SROA read as its first byte plus a memcpy of
the rest (libstdc++'s fill value, held in a union with an `unsigned char`) is joined
into one copy, exactly where that is the same program; and the joined copy carries
the derivative of the doubles it moves (run in-process, against the analytic one)."""

from __future__ import annotations

from jitrun import HEAD, P, compile_ir, doubles, function

from enzc.ad import run_ad_stage
from enzc.ad.memory.byte_split_copies import join_byte_split_copies
from enzc.ir import parse_module
from enzc.ir.instructions import CallBase, Load, Store
from enzc.ir.verifier import verify_function

MEMCPY = "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n"


def split_copy(between_load_and_copy: str = "", between_store_and_copy: str = "", after_fill: str = "") -> str:
    """`fill(dst, src, n)`: n copies of the record at src, read as 1 + 15 bytes."""
    return f"""
define void @fill(ptr %dst, ptr %src, i64 %n) {{
entry:
  %tmp = alloca [15 x i8], align 1
  %b = load i8, ptr %src, align 8
  %src1 = getelementptr inbounds i8, ptr %src, i64 1
  {between_load_and_copy}
  call void @llvm.memcpy.p0.p0.i64(ptr %tmp, ptr %src1, i64 15, i1 false)
  {after_fill}
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %at = getelementptr inbounds [16 x i8], ptr %dst, i64 %i
  store i8 %b, ptr %at, align 8
  %at1 = getelementptr inbounds i8, ptr %at, i64 1
  {between_store_and_copy}
  call void @llvm.memcpy.p0.p0.i64(ptr %at1, ptr %tmp, i64 15, i1 false)
  %i1 = add i64 %i, 1
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}}
"""


def _shape(text: str) -> tuple[int, list[int], int]:
    """(temporaries joined, lengths of the memcpys left, byte loads and stores left)."""
    module = parse_module(HEAD + MEMCPY + text)
    fn = module.functions["fill"]
    joined = join_byte_split_copies(module, fn)
    verify_function(fn)
    lengths = [c.args[2].value for c in fn.instructions()
               if isinstance(c, CallBase) and (c.called_function.name or "").startswith("llvm.memcpy")]
    bytes_moved = sum(1 for i in fn.instructions() if isinstance(i, (Load, Store)))
    return joined, lengths, bytes_moved


def test_split_record_copy_is_joined() -> None:
    assert _shape(split_copy()) == (1, [16, 16], 0)


def test_write_between_load_and_copy_keeps_the_split() -> None:
    # the first byte is read before the store, the rest after: one 16-byte read would differ
    assert _shape(split_copy(between_load_and_copy="store i8 7, ptr %src1")) == (0, [15, 15], 3)


def test_read_between_store_and_copy_keeps_the_split() -> None:
    # a call between may look at the half-written record
    text = split_copy(between_store_and_copy="call void @look(ptr %at)") + "declare void @look(ptr)\n"
    assert _shape(text) == (0, [15, 15], 2)


def test_temporary_read_otherwise_keeps_the_split() -> None:
    # the temporary's bytes are read directly too: it must stay
    text = split_copy(after_fill="%peek.at = getelementptr i8, ptr %tmp, i64 7\n  %peek = load i8, ptr %peek.at")
    assert _shape(text) == (0, [15, 15], 3)


def test_joined_copy_carries_derivatives() -> None:
    # f(x) = sum over 3 copies of {x0, x1}: c.w * c.b * (k + 1) -> df/dx0 = 6 x1, df/dx1 = 6 x0
    body = split_copy() + """
define double @f(ptr %x) {
  %buf = alloca [48 x i8], align 8
  call void @fill(ptr %buf, ptr %x, i64 3)
  br label %loop
loop:
  %k = phi i64 [ 0, %0 ], [ %k1, %loop ]
  %s = phi double [ 0.0, %0 ], [ %s1, %loop ]
  %w.at = getelementptr inbounds [16 x i8], ptr %buf, i64 %k
  %b.at = getelementptr inbounds i8, ptr %w.at, i64 8
  %w = load double, ptr %w.at, align 8
  %b = load double, ptr %b.at, align 8
  %wb = fmul double %w, %b
  %k1 = add i64 %k, 1
  %kf = uitofp i64 %k1 to double
  %t = fmul double %wb, %kf
  %s1 = fadd double %s, %t
  %done = icmp eq i64 %k1, 3
  br i1 %done, label %exit, label %loop
exit:
  ret double %s1
}
declare void @__enzyme_autodiff(...)
define void @grad(ptr %x, ptr %dx) {
  call void (...) @__enzyme_autodiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx)
  ret void
}
"""
    grad = function(compile_ir(run_ad_stage(HEAD + MEMCPY + body)), "grad", None, P, P)
    x, dx = doubles([0.75, -1.5]), doubles([0.0, 0.0])
    grad(x, dx)
    assert list(dx) == [6 * -1.5, 6 * 0.75]
