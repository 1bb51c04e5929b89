"""Small IR functions for what BLAS has no routine for, defined once per module and precision.

    __enzc_blas_frob_d(major, minor, part, X, ldx, Y, ldy) -> sum X[p,q] * Y[p,q]
    __enzc_blas_mscal_d(major, minor, part, alpha, X, ldx)      X[p,q] *= alpha
    __enzc_blas_maxpy_d(major, minor, part, alpha, X, ldx, Y, ldy)   Y[p,q] += alpha X[p,q]
    __enzc_blas_mcopy_d(major, minor, part, X, ldx, Y, ldy)      Y[p,q] = X[p,q]
    __enzc_blas_signaxpy_d(n, alpha, x, incx, y, incy)           y_i += alpha sign(x_i)
    __enzc_blas_signdot_d(n, x, incx, y, incy) -> sum sign(x_i) y_i
    __enzc_blas_symmetrize_<copy>(n, A, row_step, col_step, lower)   one triangle onto the other

Matrices are walked as `major` lines (columns of a column-major matrix, rows of a
row-major one) of `minor` elements, line p at `X + p * ldx`; `part` restricts the
walk to a triangle: 0 all, 1 `q >= p`, 2 `q <= p` (`triangle_part` maps a layout
and an `uplo` to it). Vectors follow BLAS's increments: a negative one walks
from the end. All dimensions are i64; `mscal` by zero stores zeros (as BLAS does
for beta = 0), so an adjoint slot never keeps a NaN it would otherwise multiply.
"""

from __future__ import annotations

from collections.abc import Callable

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.libc import define_helper
from enzc.ir.module import Function, Module
from enzc.ir.types import I1, I32, I64, PTR, VOID, FloatType, FunctionType
from enzc.ir.values import ConstantInt, Value, const_fp

from enzc.ad.rules.blas_calls import Array, Known, emit_call
from enzc.ad.typeanalysis.blas_abi import BlasCallee

Body = Callable[[IRBuilder, Value, Value], None]
"""Emits the work at element (p, q) of a matrix walk."""


def _i64(v: int) -> ConstantInt:
    return ConstantInt(I64, v)


def _walk_matrix(b: IRBuilder, fn: Function, major: Value, minor: Value, part: Value | None, body: Body) -> None:
    """for p in [0, major): for q in [lo, hi): body(p, q), lo/hi from `part`; then falls
    through to a new block where `b` is left."""
    outer, inner_pre, inner, inner_next, outer_next, done = (
        new_block(fn, n) for n in ("outer", "inner.pre", "inner", "inner.next", "outer.next", "done"))
    entry = b.block
    b.br(outer)
    b.position_at_end(outer)
    p = b.phi(I64, [(_i64(0), entry)], "p")
    b.cond_br(b.icmp("slt", p, major, "more"), inner_pre, done)
    b.position_at_end(inner_pre)
    lo, hi = _i64(0), minor
    if part is not None:
        lo = b.select(b.icmp("eq", part, ConstantInt(I32, 1), "upper"), p, _i64(0), "lo")
        p1 = b.add(p, _i64(1), "p1")
        short = b.select(b.icmp("slt", p1, minor, "short"), p1, minor, "p1.min")
        hi = b.select(b.icmp("eq", part, ConstantInt(I32, 2), "lower"), short, minor, "hi")
    b.br(inner)
    b.position_at_end(inner)
    q = b.phi(I64, [(lo, inner_pre)], "q")
    b.cond_br(b.icmp("slt", q, hi, "in"), inner_next, outer_next)
    b.position_at_end(inner_next)
    body(b, p, q)
    q.add_incoming(b.add(q, _i64(1), "q1"), b.block)  # type: ignore[attr-defined]
    b.br(inner)
    b.position_at_end(outer_next)
    p.add_incoming(b.add(p, _i64(1), "p.next"), outer_next)  # type: ignore[attr-defined]
    b.br(outer)
    b.position_at_end(done)


def _element(b: IRBuilder, ty: FloatType, base: Value, ld: Value, p: Value, q: Value) -> Value:
    return b.gep(ty, base, [b.add(b.mul(p, ld, "off"), q, "off")], "elt")


def _helper(module: Module, name: str, ty: FloatType, ret, params, names) -> tuple[Function, bool, IRBuilder]:
    fn, fresh = define_helper(module, f"__enzc_blas_{name}_{'d' if ty.kind == 'double' else 's'}",
                              FunctionType(ret, tuple(params)), names, attrs=("nounwind",))
    b = IRBuilder(new_block(fn, "entry")) if fresh else IRBuilder()
    return fn, fresh, b


def frob(module: Module, ty: FloatType) -> Function:
    fn, fresh, b = _helper(module, "frob", ty, ty, (I64, I64, I32, PTR, I64, PTR, I64),
                           ("major", "minor", "part", "x", "ldx", "y", "ldy"))
    if fresh:
        major, minor, part, x, ldx, y, ldy = fn.args
        acc = b.alloca(ty, name="acc")
        b.store(const_fp(ty, 0.0), acc)

        def body(b: IRBuilder, p: Value, q: Value) -> None:
            prod = b.fmul(b.load(ty, _element(b, ty, x, ldx, p, q), "xv"),
                          b.load(ty, _element(b, ty, y, ldy, p, q), "yv"), "prod")
            b.store(b.fadd(b.load(ty, acc, "a"), prod, "a.sum"), acc)

        _walk_matrix(b, fn, major, minor, part, body)
        b.ret(b.load(ty, acc, "sum"))
    return fn


def mscal(module: Module, ty: FloatType) -> Function:
    fn, fresh, b = _helper(module, "mscal", ty, VOID, (I64, I64, I32, ty, PTR, I64),
                           ("major", "minor", "part", "alpha", "x", "ldx"))
    if fresh:
        major, minor, part, alpha, x, ldx = fn.args
        zero = b.fcmp("oeq", alpha, const_fp(ty, 0.0), "zero")

        def body(b: IRBuilder, p: Value, q: Value) -> None:
            addr = _element(b, ty, x, ldx, p, q)
            scaled = b.fmul(b.load(ty, addr, "xv"), alpha, "scaled")
            b.store(b.select(zero, const_fp(ty, 0.0), scaled, "xv.new"), addr)

        _walk_matrix(b, fn, major, minor, part, body)
        b.ret_void()
    return fn


def maxpy(module: Module, ty: FloatType) -> Function:
    fn, fresh, b = _helper(module, "maxpy", ty, VOID, (I64, I64, I32, ty, PTR, I64, PTR, I64),
                           ("major", "minor", "part", "alpha", "x", "ldx", "y", "ldy"))
    if fresh:
        major, minor, part, alpha, x, ldx, y, ldy = fn.args

        def body(b: IRBuilder, p: Value, q: Value) -> None:
            addr = _element(b, ty, y, ldy, p, q)
            term = b.fmul(alpha, b.load(ty, _element(b, ty, x, ldx, p, q), "xv"), "term")
            b.store(b.fadd(b.load(ty, addr, "yv"), term, "yv.new"), addr)

        _walk_matrix(b, fn, major, minor, part, body)
        b.ret_void()
    return fn


def mcopy(module: Module, ty: FloatType) -> Function:
    fn, fresh, b = _helper(module, "mcopy", ty, VOID, (I64, I64, I32, PTR, I64, PTR, I64),
                           ("major", "minor", "part", "x", "ldx", "y", "ldy"))
    if fresh:
        major, minor, part, x, ldx, y, ldy = fn.args

        def body(b: IRBuilder, p: Value, q: Value) -> None:
            b.store(b.load(ty, _element(b, ty, x, ldx, p, q), "xv"), _element(b, ty, y, ldy, p, q))

        _walk_matrix(b, fn, major, minor, part, body)
        b.ret_void()
    return fn


def _vector_start(b: IRBuilder, n: Value, inc: Value) -> Value:
    """Offset of element 0: BLAS walks a vector with a negative increment from its end."""
    back = b.mul(b.sub(_i64(1), n, "1-n"), inc, "back")
    return b.select(b.icmp("slt", inc, _i64(0), "neg"), back, _i64(0), "start")


def _walk_vector(b: IRBuilder, fn: Function, n: Value, x: Value, incx: Value, y: Value, incy: Value,
                 ty: FloatType, body: Callable[[IRBuilder, Value, Value], None]) -> None:
    """body(address of x_i, address of y_i) for i in [0, n)."""
    sx, sy = _vector_start(b, n, incx), _vector_start(b, n, incy)

    def element(b: IRBuilder, p: Value, q: Value) -> None:
        xa = b.gep(ty, x, [b.add(sx, b.mul(q, incx, "ox"), "ix")], "xa")
        ya = b.gep(ty, y, [b.add(sy, b.mul(q, incy, "oy"), "iy")], "ya")
        body(b, xa, ya)

    _walk_matrix(b, fn, _i64(1), n, None, element)


def _sign(b: IRBuilder, ty: FloatType, v: Value) -> Value:
    one, zero = const_fp(ty, 1.0), const_fp(ty, 0.0)
    pos = b.select(b.fcmp("ogt", v, zero, "pos"), one, zero, "s")
    return b.select(b.fcmp("olt", v, zero, "neg"), const_fp(ty, -1.0), pos, "sign")


def signaxpy(module: Module, ty: FloatType) -> Function:
    fn, fresh, b = _helper(module, "signaxpy", ty, VOID, (I64, ty, PTR, I64, PTR, I64),
                           ("n", "alpha", "x", "incx", "y", "incy"))
    if fresh:
        n, alpha, x, incx, y, incy = fn.args

        def body(b: IRBuilder, xa: Value, ya: Value) -> None:
            term = b.fmul(alpha, _sign(b, ty, b.load(ty, xa, "xv")), "term")
            b.store(b.fadd(b.load(ty, ya, "yv"), term, "yv.new"), ya)

        _walk_vector(b, fn, n, x, incx, y, incy, ty, body)
        b.ret_void()
    return fn


def signdot(module: Module, ty: FloatType) -> Function:
    fn, fresh, b = _helper(module, "signdot", ty, ty, (I64, PTR, I64, PTR, I64), ("n", "x", "incx", "y", "incy"))
    if fresh:
        n, x, incx, y, incy = fn.args
        acc = b.alloca(ty, name="acc")
        b.store(const_fp(ty, 0.0), acc)

        def body(b: IRBuilder, xa: Value, ya: Value) -> None:
            term = b.fmul(_sign(b, ty, b.load(ty, xa, "xv")), b.load(ty, ya, "yv"), "term")
            b.store(b.fadd(b.load(ty, acc, "a"), term, "a.sum"), acc)

        _walk_vector(b, fn, n, x, incx, y, incy, ty, body)
        b.ret(b.load(ty, acc, "sum"))
    return fn


def symmetrize(module: Module, ty: FloatType, copy: Function, blas: BlasCallee) -> Function:
    """__enzc_blas_symmetrize_<copy>(n, A, row_step, col_step, lower): for i < n - 1, BLAS's
    copy of the n-i-1 entries past the diagonal in column i of the named triangle (row i
    for the upper one) onto row i (column i): Enzyme's potrf tangent, call for call."""
    fn, fresh, b = _helper(module, f"symmetrize_{copy.name}", ty, VOID, (I64, PTR, I64, I64, I1),
                           ("n", "a", "row_step", "col_step", "lower"))
    if fresh:
        n, a, row_step, col_step, lower = fn.args
        along = b.select(lower, row_step, col_step, "along")  # down the named triangle's column
        across = b.select(lower, col_step, row_step, "across")
        lines = b.select(b.icmp("sgt", n, _i64(0), "some"), b.sub(n, _i64(1), "n-1"), _i64(0), "lines")

        def body(b: IRBuilder, p: Value, i: Value) -> None:
            i1 = b.add(i, _i64(1), "i+1")
            src = b.gep(ty, a, [b.add(b.mul(i1, along, "o"), b.mul(i, across, "o"), "src.off")], "src")
            dst = b.gep(ty, a, [b.add(b.mul(i, along, "o"), b.mul(i1, across, "o"), "dst.off")], "dst")
            count = b.sub(b.sub(n, i, "n-i"), _i64(1), "count")
            emit_call(b, module, blas, copy, "copy", None,
                      [Known(count, "int"), Array(src, Known(along, "int")), Array(dst, Known(across, "int"))])

        _walk_matrix(b, fn, _i64(1), lines, None, body)
        b.ret_void()
    return fn


HELPERS = {"frob": frob, "mscal": mscal, "maxpy": maxpy, "mcopy": mcopy, "signaxpy": signaxpy, "signdot": signdot}
