"""Heap shadows, typed memory copies and integer moves of floats, on small IR
functions: the derivative is run in-process (MCJIT) and compared with the analytic
gradient; structural facts (shadow frees, escapes) are checked on the IR."""

from __future__ import annotations

import math

import pytest

from jitrun import HEAD, I64, P, compile_ir, doubles, function

from enzc.ad import ADError, run_ad_stage
from enzc.ad.analysis.allocations import may_escape
from enzc.ir import parse_module

MALLOC_DECLS = """
declare ptr @malloc(i64)
declare ptr @calloc(i64, i64)
declare ptr @realloc(ptr, i64)
declare void @free(ptr)
declare double @llvm.sin.f64(double)
declare double @__enzyme_autodiff(...)
"""

# s = sum_i c_i * sin(x_i)^2 with c_i = i+1, through a malloc'd scratch buffer
SCRATCH = """
define double @f(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %buf = call ptr @malloc(i64 %bytes)
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i1, %fill ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %px
  %s = call double @llvm.sin.f64(double %v)
  %pb = getelementptr inbounds double, ptr %buf, i64 %i
  store double %s, ptr %pb
  %i1 = add nuw i64 %i, 1
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %fill, label %sum
sum:
  %j = phi i64 [ 0, %fill ], [ %j1, %sum ]
  %acc = phi double [ 0.0, %fill ], [ %acc1, %sum ]
  %q = getelementptr inbounds double, ptr %buf, i64 %j
  %w = load double, ptr %q
  %j1 = add nuw i64 %j, 1
  %c = uitofp i64 %j1 to double
  %ww = fmul double %w, %w
  %t = fmul double %ww, %c
  %acc1 = fadd double %acc, %t
  %more2 = icmp ult i64 %j1, %n
  br i1 %more2, label %sum, label %done
done:
  call void @free(ptr %buf)
  ret double %acc1
}
"""


def gradient_driver(fn: str = "f") -> str:
    return f"""
define void @grad(ptr %x, ptr %dx, i64 %n) {{
  %r = call double (...) @__enzyme_autodiff(ptr @{fn}, metadata !"enzyme_dup", ptr %x, ptr %dx,
                                           metadata !"enzyme_const", i64 %n)
  ret void
}}
"""


def run_gradient(body: str, x: list[float], fn: str = "f") -> list[float]:
    out = run_ad_stage(HEAD + MALLOC_DECLS + body + gradient_driver(fn))
    grad = function(compile_ir(out), "grad", None, P, P, I64)
    xs, dx = doubles(x), doubles([0.0] * len(x))
    grad(xs, dx, len(x))
    return list(dx)


def test_malloc_scratch_buffer_gradient_and_shadow_freed() -> None:
    x = [0.3, -1.2, 2.0, 0.7]
    dx = run_gradient(SCRATCH, x)
    want = [(i + 1) * 2 * math.sin(v) * math.cos(v) for i, v in enumerate(x)]
    assert dx == pytest.approx(want, rel=1e-13)
    out = run_ad_stage(HEAD + MALLOC_DECLS + SCRATCH + gradient_driver())
    g = out[out.index("define internal void @diffe_f"):]
    g = g[: g.index("\n}\n")]
    assert "%\"buf'\" = call ptr @__enzc_shadow_alloc(i64 %bytes)" in g
    assert "call void @free(ptr %\"buf'\")" in g  # the shadow, in the reverse pass


def test_realloc_moves_adjoints_back() -> None:
    # a = calloc(1, 8); a[0] = x0*x0; a = realloc(a, 16); a[1] = x1*a[0]; return a[0] + a[1]
    body = """
define double @f(ptr %x, i64 %n) {
entry:
  %a = call ptr @calloc(i64 1, i64 8)
  %x0 = load double, ptr %x
  %sq = fmul double %x0, %x0
  store double %sq, ptr %a
  %b = call ptr @realloc(ptr %a, i64 16)
  %px1 = getelementptr inbounds double, ptr %x, i64 1
  %x1 = load double, ptr %px1
  %b0 = load double, ptr %b
  %p = fmul double %x1, %b0
  %b1p = getelementptr inbounds double, ptr %b, i64 1
  store double %p, ptr %b1p
  %c0 = load double, ptr %b
  %c1 = load double, ptr %b1p
  %r = fadd double %c0, %c1
  call void @free(ptr %b)
  ret double %r
}
"""
    x0, x1 = 1.5, -0.5
    dx = run_gradient(body, [x0, x1])
    assert dx == pytest.approx([2 * x0 + 2 * x0 * x1, x0 * x0], rel=1e-14)


@pytest.mark.parametrize("shift", [1, -1])
def test_overlapping_memmove_in_both_directions(shift: int) -> None:
    # buf[k] = x[k]^2 (k < 4); memmove by one element; s = sum (k+1) * buf[k] over 5
    dst, src = (1, 0) if shift > 0 else (0, 1)
    body = f"""
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
define double @f(ptr %x, i64 %n) {{
entry:
  %buf = alloca [5 x double]
  call void @llvm.memset.p0.i64(ptr %buf, i8 0, i64 40, i1 false)
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i1, %fill ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %px
  %sq = fmul double %v, %v
  %pb = getelementptr inbounds double, ptr %buf, i64 %i
  store double %sq, ptr %pb
  %i1 = add nuw i64 %i, 1
  %more = icmp ult i64 %i1, 4
  br i1 %more, label %fill, label %move
move:
  %d = getelementptr inbounds double, ptr %buf, i64 {dst}
  %s = getelementptr inbounds double, ptr %buf, i64 {src}
  call void @llvm.memmove.p0.p0.i64(ptr %d, ptr %s, i64 24, i1 false)
  br label %sum
sum:
  %j = phi i64 [ 0, %move ], [ %j1, %sum ]
  %acc = phi double [ 0.0, %move ], [ %acc1, %sum ]
  %q = getelementptr inbounds double, ptr %buf, i64 %j
  %w = load double, ptr %q
  %j1 = add nuw i64 %j, 1
  %c = uitofp i64 %j1 to double
  %t = fmul double %w, %c
  %acc1 = fadd double %acc, %t
  %more2 = icmp ult i64 %j1, 5
  br i1 %more2, label %sum, label %done
done:
  ret double %acc1
}}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
"""
    x = [0.5, -1.0, 1.5, 2.0]
    weights = [0.0] * 4  # d s / d buf_before[k], by simulating the move on indices
    moved = list(range(5))
    for k in range(3):
        moved[dst + k] = src + k
    for pos, origin in enumerate(moved):
        if origin < 4:
            weights[origin] += pos + 1
    dx = run_gradient(body, x)
    assert dx == pytest.approx([w * 2 * v for w, v in zip(weights, x)], rel=1e-14)


def test_memcpy_of_mixed_struct_moves_only_the_double() -> None:
    # struct {double v; i64 tag} copied with memcpy of 16 bytes; tbaa types both fields
    body = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define double @f(ptr %x, i64 %n) {
entry:
  %s = alloca { double, i64 }
  %d = alloca { double, i64 }
  %v = load double, ptr %x, !tbaa !1
  %v3 = fmul double %v, 3.0
  store double %v3, ptr %s, !tbaa !1
  %tagp = getelementptr inbounds i8, ptr %s, i64 8
  store i64 7, ptr %tagp, !tbaa !4
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 16, i1 false)
  %w = load double, ptr %d, !tbaa !1
  %r = fmul double %w, %w
  ret double %r
}
!0 = !{!"Simple C/C++ TBAA"}
!1 = !{!2, !2, i64 0}
!2 = !{!"double", !0, i64 0}
!3 = !{!"long", !0, i64 0}
!4 = !{!3, !3, i64 0}
"""
    dx = run_gradient(body, [1.25])
    assert dx == pytest.approx([18 * 1.25], rel=1e-14)


def test_memcpy_of_untyped_bytes_is_an_error() -> None:
    body = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define void @copy(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  ret void
}
define void @g(ptr %d, ptr %dd, ptr %s, ptr %ds, i64 %n) {
  call void (...) @__enzyme_autodiff(ptr @copy, ptr %d, ptr %dd, ptr %s, ptr %ds, i64 %n)
  ret void
}
"""
    with pytest.raises(ADError) as info:
        run_ad_stage(HEAD + MALLOC_DECLS.replace("declare double @__enzyme_autodiff(...)",
                                                 "declare void @__enzyme_autodiff(...)") + body)
    text = str(info.value)
    assert "cannot deduce the type" in text and "memcpy" in text and "hint:" in text


INT_MOVE = """
define double @f(ptr %x, i64 %n) {
entry:
  %buf = alloca [2 x double]
  %bits = load i64, ptr %x
  store i64 %bits, ptr %buf
  %px1 = getelementptr inbounds double, ptr %x, i64 1
  %f1 = load double, ptr %px1
  %b1 = getelementptr inbounds double, ptr %buf, i64 1
  store double %f1, ptr %b1
  %a = load double, ptr %buf
  %b = load double, ptr %b1
  %r = fmul double %a, %b
  ret double %r
}
"""


def test_integer_move_of_a_double_carries_its_derivative() -> None:
    dx = run_gradient(INT_MOVE, [2.0, 3.0])
    assert dx == pytest.approx([3.0, 2.0], rel=1e-15)


def test_integer_move_of_unknown_bytes_into_active_memory_is_an_error() -> None:
    body = """
define double @f(ptr %x, i64 %n) {
entry:
  %buf = alloca [16 x i8]
  %v = load double, ptr %x
  %p8 = getelementptr inbounds i8, ptr %buf, i64 8
  store double %v, ptr %p8
  %px1 = getelementptr inbounds i8, ptr %x, i64 8
  %bits = load i64, ptr %px1
  store i64 %bits, ptr %buf
  %a = load double, ptr %p8
  %r = fmul double %a, %a
  ret double %r
}
"""
    with pytest.raises(ADError) as info:
        run_ad_stage(HEAD + MALLOC_DECLS + body + gradient_driver())
    assert "i64" in str(info.value) and "hint:" in str(info.value)


def test_integer_move_in_a_callee_typed_by_its_call_site() -> None:
    """A helper that moves 8 bytes as an `i64` between its pointer arguments says
    nothing about them; its only call site passes a double (the module's type
    analysis of the callers), so its derivative moves a double adjoint."""
    body = """
define internal void @mv(ptr %d, ptr %s) noinline {
entry:
  %bits = load i64, ptr %s
  store i64 %bits, ptr %d
  ret void
}

define double @f(ptr %x, i64 %n) {
entry:
  %t = alloca double
  call void @mv(ptr %t, ptr %x)
  %y = load double, ptr %t
  %r = fmul double %y, %y
  ret double %r
}
"""
    assert run_gradient(body, [3.0, 5.0]) == pytest.approx([6.0, 0.0], rel=1e-15)


def test_pointer_arithmetic_on_integers_follows_the_shadow() -> None:
    """`(double *)((uintptr_t)x + 8)`: the shadow is the same arithmetic on the
    shadow's bits (`analysis/integer_addresses.py`)."""
    body = """
define double @f(ptr %x, i64 %n) {
  %i = ptrtoint ptr %x to i64
  %j = add i64 %i, 8
  %p = inttoptr i64 %j to ptr
  %v = load double, ptr %p
  %w = fmul double %v, %v
  ret double %w
}
"""
    assert run_gradient(body, [3.0, 5.0]) == pytest.approx([0.0, 10.0], rel=1e-15)


def test_pointer_rebuilt_from_bits_it_cannot_follow_is_an_error() -> None:
    body = """
define double @f(ptr %x, i64 %n) {
  %i = ptrtoint ptr %x to i64
  %j = xor i64 %i, 8
  %p = inttoptr i64 %j to ptr
  %v = load double, ptr %p
  %w = fmul double %v, %v
  ret double %w
}
"""
    with pytest.raises(ADError) as info:
        run_ad_stage(HEAD + MALLOC_DECLS + body + gradient_driver())
    assert "inttoptr" in str(info.value)


def test_pointer_moved_as_an_integer_keeps_its_shadow() -> None:
    """`load i64` of a stored pointer, then `inttoptr` (what optimized C++ does with
    `std::tuple<T&>`): the loaded pointer is used as it is, so its shadow follows."""
    body = """
define double @f(ptr %x, i64 %n) {
  %slot = alloca ptr
  store ptr %x, ptr %slot
  %bits = load i64, ptr %slot
  %p = inttoptr i64 %bits to ptr
  %v = load double, ptr %p
  %w = fmul double %v, %v
  ret double %w
}
"""
    assert run_gradient(body, [3.0]) == pytest.approx([6.0], rel=1e-15)


def test_copy_of_a_partly_uninitialized_local_object() -> None:
    """A memcpy of a local byte buffer whose first 8 bytes nothing ever writes (Eigen
    copies half-initialized evaluator objects): those bytes hold no data, and the
    copy's adjoint moves the double that is there."""
    body = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define double @f(ptr %x, i64 %n) {
  %src = alloca [32 x i8], align 8
  %dst = alloca [32 x i8], align 8
  %v = load double, ptr %x
  %sq = fmul double %v, %v
  %s8 = getelementptr inbounds i8, ptr %src, i64 8
  store double %sq, ptr %s8
  %s16 = getelementptr inbounds i8, ptr %src, i64 16
  store i64 7, ptr %s16
  %s24 = getelementptr inbounds i8, ptr %src, i64 24
  store i64 9, ptr %s24
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 32, i1 false)
  %d8 = getelementptr inbounds i8, ptr %dst, i64 8
  %r = load double, ptr %d8
  ret double %r
}
"""
    assert run_gradient(body, [3.0]) == pytest.approx([6.0], rel=1e-15)


def test_written_ranges_of_a_local_object() -> None:
    """What `memtypes` knows is never written in a local object (so a copy of those
    bytes moves no data): writes at constant offsets, none through an escape."""
    from enzc.ad.memory.memtypes import _written_ranges
    from enzc.ad.typeanalysis.offsets import TypeSeeds
    from enzc.ir.datalayout import DataLayout

    src = HEAD + """
declare void @g(ptr)
define void @f(ptr %x) {
  %a = alloca [32 x i8], align 8
  %b = alloca [32 x i8], align 8
  %a8 = getelementptr inbounds i8, ptr %a, i64 8
  store double 1.0, ptr %a8
  %a16 = getelementptr inbounds i8, ptr %a, i64 16
  call void @llvm.memset.p0.i64(ptr %a16, i8 0, i64 16, i1 false)
  %v = load i64, ptr %a
  %b4 = getelementptr inbounds i8, ptr %b, i64 4
  call void @g(ptr %b4)
  ret void
}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
"""
    m = parse_module(src)
    seeds = TypeSeeds(DataLayout.parse(m.datalayout))
    a, b = [i for i in m.functions["f"].instructions()][:2]
    assert sorted(_written_ranges(a, seeds)) == [(8, 16), (16, 32)]  # bytes 0..8: never written
    assert _written_ranges(b, seeds) is None  # its address escapes to @g


ESCAPES = HEAD + """
declare ptr @malloc(i64)
declare void @free(ptr)
declare void @keep(ptr)
define void @f(ptr %out, i64 %n) {
entry:
  %local = call ptr @malloc(i64 16)
  %node = call ptr @malloc(i64 16)
  %next = getelementptr inbounds i8, ptr %node, i64 8
  store ptr %local, ptr %next
  %kept = call ptr @malloc(i64 8)
  call void @keep(ptr %kept)
  %out1 = call ptr @malloc(i64 8)
  store ptr %out1, ptr %out
  %ret = call ptr @malloc(i64 8)
  call void @free(ptr %node)
  call void @free(ptr %local)
  ret void
}
"""


def test_escape_analysis_of_allocations() -> None:
    fn = parse_module(ESCAPES).functions["f"]
    calls = {i.name: i for i in fn.instructions() if i.name}
    assert not may_escape(calls["local"])  # only stored into another local block
    assert not may_escape(calls["node"])
    assert may_escape(calls["kept"])  # handed to an unknown function
    assert may_escape(calls["out1"])  # stored into the caller's memory


def test_pointer_copied_out_through_a_local_struct_escapes() -> None:
    fn = parse_module(HEAD + """
declare ptr @malloc(i64)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define void @f(ptr %out) {
  %holder = alloca { ptr, i64 }
  %block = call ptr @malloc(i64 8)
  store ptr %block, ptr %holder
  call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %holder, i64 16, i1 false)
  ret void
}
""").functions["f"]
    block = next(i for i in fn.instructions() if i.name == "block")
    assert may_escape(block)


ALIGNED_THEN_OFFSET = """
define double @f(ptr %x, i64 %n) {
  %raw = call ptr @malloc(i64 128)
  %bits = ptrtoint ptr %raw to i64
  %down = and i64 %bits, -64
  %up = add i64 %down, 64
  %aligned = inttoptr i64 %up to ptr
  %x0 = load double, ptr %x
  %sq = fmul double %x0, %x0
  store double %sq, ptr %aligned
  %offset = sub i64 %up, %bits
  %again = getelementptr inbounds i8, ptr %raw, i64 %offset
  %back = load double, ptr %again
  %px1 = getelementptr inbounds double, ptr %x, i64 1
  %x1 = load double, ptr %px1
  %r = fmul double %back, %x1
  call void @free(ptr %raw)
  ret double %r
}
"""


def test_offset_of_an_aligned_address_indexes_the_shadow_by_the_shadows_offset() -> None:
    """`raw + ((char *)aligned - (char *)raw)` is `aligned`: its shadow must be the
    shadow of `aligned`, whose offset in the shadow block differs from the primal's
    (`GradientUtils._index_on_shadows`)."""
    out = run_ad_stage(HEAD + MALLOC_DECLS + ALIGNED_THEN_OFFSET + gradient_driver())
    assert "shadow.offset" in out
    grad = function(compile_ir(out), "grad", None, P, P, I64)
    for _ in range(8):  # blocks at different offsets from a 64-byte boundary
        xs, dx = doubles([1.5, 3.0]), doubles([0.0, 0.0])
        grad(xs, dx, 2)
        assert list(dx) == [2 * 1.5 * 3.0, 1.5 * 1.5]
