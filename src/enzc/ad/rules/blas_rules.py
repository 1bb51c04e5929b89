"""Derivative rules of BLAS routines: one entry per routine, in the language of `blas_dsl`.

`reverse` runs at the call's place in the reverse pass, items in order; the
adjoint of the overwritten array is read by every item before the last ones
scale or clear it. `forward` computes tangents before the call (so `x`, `y` and
`C` are the values the call reads), after it where `forward_after` says so.
Parameter names and array shapes are those of `typeanalysis.blas_abi.SIGNATURES`;
one rule serves `s` and `d`, CBLAS (any layout) and Fortran.

The math, for y = alpha op(A) x + beta y (gemv), with adjoint dy:
    d(alpha) += <dy, op(A) x>   dA += alpha dy x^T (or x dy^T when op = T)
    dx += alpha op(A)^T dy      d(beta) += <dy, y_old>       dy = beta dy
and for C = alpha op(A) op(B) + beta C (gemm): dop(A) += alpha dC op(B)^T,
dop(B) += alpha op(A)^T dC, read back through the transposes as two gemm calls.
`mscal` and `trimscal` (gemm's and syrk's dC = beta dC) are the program's own `lascl`
where it has one (Enzyme's `cblas_dlascl(layout, 'G' or uplo, 0, 0, 1.0, beta, m, n, dC,
ldc, info)`, LAPACK's `dlascl_`), else a helper loop (`blas_eval.Evaluator.matrix_helper`).
Symmetric matrices (symv, syrk) keep one triangle: the adjoint of an off-diagonal
entry collects both of its uses, a diagonal entry one.

Triangular routines read one triangle of A (uplo), without its diagonal when diag
is 'U' (then taken as 1). Write T for that matrix and M = op(T). For
B1 = alpha M B0 (trmm, side L; side R: alpha B0 M) with adjoint dB1:
    d(alpha) += <dB1, M B0>    dM = alpha dB1 B0^T (R: alpha B0^T dB1)
    dB0 = alpha M^T dB1 (R: alpha dB1 M^T): one trmm with the transposed op.
For the solve M X = alpha B0 (trsm, side L; side R: X M = alpha B0), Z = M^-T dX
(R: dX M^-T), one trsm with the transposed op, in place in dX:
    dB0 = alpha Z   d(alpha) += <Z, B0>   dM = -Z X^T (R: -X^T Z)
(from dX = M^-1 (alpha dB0 + d(alpha) B0 - dM X), R: (alpha dB0 + d(alpha) B0 - X dM) M^-1,
which are also the tangents). In
both, dT = dM or dM^T as op is N or T: one gemm into a k x k temporary G (k the
order of A: m for side L, n for R) whose first operand is dB1 (Z) for L,N and
R,T and B0 (X) otherwise; G's diagonal is zeroed when diag is 'U', then G's
triangle is added to dA's (`trimaxpy`): the other triangle gets nothing. trmv and
trsv are the same with alpha = 1 and one column (a `ger` into a zeroed G).
Tangents: the part of dA a triangular routine reads, with a zero diagonal when
diag is 'U' (dA's diagonal is set aside, zeroed and put back around the call).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from enzc.ad.rules.blas_dsl import Item, parse_item

Items = tuple[str | tuple[str, ...], ...]


@dataclass(frozen=True)
class BlasRule:
    reverse: Items | None
    """None: forward mode only (reverse mode stops with a located error)."""
    forward: Items
    constant: tuple[str, ...] = ()
    """Floating parameters the rule gives no derivative: a located error where one has."""
    forward_after: bool = False
    """The tangent calls read what the call wrote (potrf's factor): they follow the call."""

    @cached_property
    def reverse_items(self) -> tuple[Item, ...]:
        assert self.reverse is not None
        return tuple(parse_item(i) for i in self.reverse)

    @cached_property
    def forward_items(self) -> tuple[Item, ...]:
        return tuple(parse_item(i) for i in self.forward)


RULES: dict[str, BlasRule] = {
    "dot": BlasRule(
        reverse=("axpy(n, dret, y, d(x))",
                 "axpy(n, dret, x, d(y))"),
        forward=("d(ret) += dot(n, d(x), y)",
                 "d(ret) += dot(n, x, d(y))"),
    ),
    "nrm2": BlasRule(  # d|x| = x / |x|; 0 at x = 0
        reverse=("axpy(live(n, incx), div0(dret, ret), x, d(x))",),
        forward=("d(ret) += div0(dot(live(n, incx), x, d(x)), nrm2(n, x))",),  # (before the call, as Enzyme)
    ),
    "asum": BlasRule(  # d sum |x_i| = sign(x_i)
        reverse=("signaxpy(live(n, incx), dret, x, d(x))",),
        forward=("d(ret) += signdot(live(n, incx), x, d(x))",),
    ),
    "axpy": BlasRule(
        reverse=("d(alpha) += dot(n, d(y), x)",
                 "axpy(n, alpha, d(y), d(x))"),
        forward=("axpy(n, alpha, d(x), d(y))",
                 "axpy(n, d(alpha), x, d(y))"),
    ),
    "scal": BlasRule(
        reverse=("d(alpha) += dot(live(n, incx), old(x), d(x))",
                 "scal(live(n, incx), alpha, d(x))"),
        forward=("scal(live(n, incx), alpha, d(x))",
                 "axpy(live(n, incx), d(alpha), x, d(x))"),
    ),
    "copy": BlasRule(
        reverse=("axpy(n, 1.0, d(y), d(x))",
                 "scal(n, 0.0, d(y))"),
        forward=("copy(n, d(x), d(y))",
                 "unless x: scal(n, 0.0, d(y))"),
    ),
    "gemv": BlasRule(
        reverse=(("tmp t: vec(len(y))",
                  "gemv(trans, m, n, 1.0, A, x, 0.0, t)",
                  "d(alpha) += dot(len(y), d(y), t)"),
                 "ger(m, n, alpha, pick(trans, d(y), x), pick(trans, x, d(y)), d(A))",
                 "gemv(T(trans), m, n, alpha, A, d(y), 1.0, d(x))",
                 "d(beta) += dot(len(y), d(y), old(y))",
                 "scal(len(y), beta, d(y))"),
        forward=("gemv(trans, m, n, alpha, A, d(x), first(beta), d(y))",
                 "gemv(trans, m, n, alpha, d(A), x, first(beta), d(y))",
                 "gemv(trans, m, n, d(alpha), A, x, first(beta), d(y))",
                 "unless first: scal(len(y), beta, d(y))",
                 "axpy(len(y), d(beta), y, d(y))"),
    ),
    "symv": BlasRule(
        reverse=(("tmp t: vec(n)",
                  "symv(uplo, n, 1.0, A, x, 0.0, t)",
                  "d(alpha) += dot(n, d(y), t)"),
                 # syr2 adds alpha (x dy^T + dy x^T): twice the diagonal's share, halved after
                 ("tmp s: vec(n)",
                  "copy(n, diag(d(A)), s)",
                  "syr2(uplo, n, alpha, x, d(y), d(A))",
                  "scal(n, 0.5, diag(d(A)))",
                  "axpy(n, 0.5, s, diag(d(A)))"),
                 "symv(uplo, n, alpha, A, d(y), 1.0, d(x))",
                 "d(beta) += dot(n, d(y), old(y))",
                 "scal(n, beta, d(y))"),
        forward=("symv(uplo, n, alpha, A, d(x), first(beta), d(y))",
                 "symv(uplo, n, alpha, d(A), x, first(beta), d(y))",
                 "symv(uplo, n, d(alpha), A, x, first(beta), d(y))",
                 "unless first: scal(n, beta, d(y))",
                 "axpy(n, d(beta), y, d(y))"),
    ),
    "ger": BlasRule(
        reverse=(("tmp t: vec(m)",
                  "gemv('N', m, n, 1.0, d(A), y, 0.0, t)",
                  "d(alpha) += dot(m, t, x)"),
                 "gemv('N', m, n, alpha, d(A), y, 1.0, d(x))",
                 "gemv('T', m, n, alpha, d(A), x, 1.0, d(y))"),
        forward=("ger(m, n, alpha, d(x), y, d(A))",
                 "ger(m, n, alpha, x, d(y), d(A))",
                 "ger(m, n, d(alpha), x, y, d(A))"),
    ),
    "gemm": BlasRule(
        reverse=(("tmp P: mat(m, n)",
                  "gemm(transa, transb, m, n, k, 1.0, A, B, 0.0, P)",
                  "d(alpha) += frob(m, n, d(C), P)"),
                 "gemm(pick(transa, 'N', transb), pick(transa, T(transb), 'T'), pick(transa, m, k), "
                 "pick(transa, k, m), n, alpha, pick(transa, d(C), B), pick(transa, B, d(C)), 1.0, d(A))",
                 "gemm(pick(transb, T(transa), 'T'), pick(transb, 'N', transa), pick(transb, k, n), "
                 "pick(transb, n, k), m, alpha, pick(transb, A, d(C)), pick(transb, d(C), A), 1.0, d(B))",
                 "d(beta) += frob(m, n, d(C), old(C))",
                 "mscal(m, n, beta, d(C))"),
        forward=("gemm(transa, transb, m, n, k, alpha, A, d(B), first(beta), d(C))",
                 "gemm(transa, transb, m, n, k, alpha, d(A), B, first(beta), d(C))",
                 "gemm(transa, transb, m, n, k, d(alpha), A, B, first(beta), d(C))",
                 "unless first: mscal(m, n, beta, d(C))",
                 "maxpy(m, n, d(beta), C, d(C))"),
    ),
    "syrk": BlasRule(
        reverse=(("tmp P: mat(n, n)",
                  "syrk(uplo, trans, n, k, 1.0, A, 0.0, P)",
                  "d(alpha) += trifrob(uplo, n, d(C), P)"),
                 # dA += alpha (S + S^T) op(A), S = the triangle of dC: symm of dC with its diagonal doubled
                 ("tmp s: vec(n)",
                  "copy(n, diag(d(C)), s)",
                  "scal(n, 2.0, diag(d(C)))",
                  "symm(pick(trans, 'L', 'R'), uplo, pick(trans, n, k), pick(trans, k, n), alpha, d(C), A, 1.0, "
                  "d(A))",
                  "copy(n, s, diag(d(C)))"),
                 "d(beta) += trifrob(uplo, n, d(C), old(C))",
                 "trimscal(uplo, n, beta, d(C))"),
        forward=("syr2k(uplo, trans, n, k, alpha, A, d(A), first(beta), d(C))",
                 "syrk(uplo, trans, n, k, d(alpha), A, first(beta), d(C))",
                 "unless first: trimscal(uplo, n, beta, d(C))",
                 "trimaxpy(uplo, n, d(beta), C, d(C))"),
    ),
    "trmv": BlasRule(  # x1 = M x0
        reverse=(("tmp G: zmat(n, n)",
                  "ger(n, n, 1.0, pick(trans, d(x), old(x)), pick(trans, old(x), d(x)), G)",
                  "scal(n, pick(diag, 1.0, 0.0), diag(G))",
                  "trimaxpy(uplo, n, 1.0, G, d(A))"),
                 "trmv(uplo, T(trans), diag, n, A, d(x))"),
        forward=("trmv(uplo, trans, diag, n, A, d(x))",
                 ("tmp t: vec(n)",
                  "tmp s: vec(n)",
                  "copy(n, x, t)",
                  "copy(n, diag(d(A)), s)",
                  "scal(n, pick(diag, 1.0, 0.0), diag(d(A)))",
                  "trmv(uplo, trans, 'N', n, d(A), t)",
                  "copy(n, s, diag(d(A)))",
                  "axpy(n, 1.0, t, d(x))")),
    ),
    "trsv": BlasRule(  # M x1 = x0
        reverse=("trsv(uplo, T(trans), diag, n, A, d(x))",
                 ("tmp G: zmat(n, n)",
                  "ger(n, n, -1.0, pick(trans, d(x), new(x)), pick(trans, new(x), d(x)), G)",
                  "scal(n, pick(diag, 1.0, 0.0), diag(G))",
                  "trimaxpy(uplo, n, 1.0, G, d(A))")),
        forward=(("tmp t: vec(n)",
                  "tmp s: vec(n)",
                  "copy(n, x, t)",
                  "trsv(uplo, trans, diag, n, A, t)",
                  "copy(n, diag(d(A)), s)",
                  "scal(n, pick(diag, 1.0, 0.0), diag(d(A)))",
                  "trmv(uplo, trans, 'N', n, d(A), t)",
                  "copy(n, s, diag(d(A)))",
                  "axpy(n, -1.0, t, d(x))"),
                 "trsv(uplo, trans, diag, n, A, d(x))"),
    ),
    "trmm": BlasRule(
        reverse=(("tmp P: mat(m, n)",
                  "mcopy(m, n, old(B), P)",
                  "trmm(side, uplo, trans, diag, m, n, 1.0, A, P)",
                  "d(alpha) += frob(m, n, d(B), P)"),
                 ("tmp G: mat(pick(side, m, n), pick(side, m, n))",
                  "gemm(pick(side, 'N', 'T'), pick(side, 'T', 'N'), pick(side, m, n), pick(side, m, n), "
                  "pick(side, n, m), alpha, pick(trans, pick(side, d(B), old(B)), pick(side, old(B), d(B))), "
                  "pick(trans, pick(side, old(B), d(B)), pick(side, d(B), old(B))), 0.0, G)",
                  "scal(pick(side, m, n), pick(diag, 1.0, 0.0), diag(G))",
                  "trimaxpy(uplo, pick(side, m, n), 1.0, G, d(A))"),
                 "trmm(side, uplo, T(trans), diag, m, n, alpha, A, d(B))"),
        forward=("trmm(side, uplo, trans, diag, m, n, alpha, A, d(B))",
                 ("tmp P: mat(m, n)",
                  "mcopy(m, n, B, P)",
                  "trmm(side, uplo, trans, diag, m, n, d(alpha), A, P)",
                  "maxpy(m, n, 1.0, P, d(B))"),
                 ("tmp P: mat(m, n)",
                  "tmp s: vec(pick(side, m, n))",
                  "mcopy(m, n, B, P)",
                  "copy(pick(side, m, n), diag(d(A)), s)",
                  "scal(pick(side, m, n), pick(diag, 1.0, 0.0), diag(d(A)))",
                  "trmm(side, uplo, trans, 'N', m, n, alpha, d(A), P)",
                  "copy(pick(side, m, n), s, diag(d(A)))",
                  "maxpy(m, n, 1.0, P, d(B))")),
    ),
    "trsm": BlasRule(
        reverse=("trsm(side, uplo, T(trans), diag, m, n, 1.0, A, d(B))",  # Z
                 "d(alpha) += frob(m, n, d(B), old(B))",
                 ("tmp G: mat(pick(side, m, n), pick(side, m, n))",
                  "gemm(pick(side, 'N', 'T'), pick(side, 'T', 'N'), pick(side, m, n), pick(side, m, n), "
                  "pick(side, n, m), -1.0, pick(trans, pick(side, d(B), new(B)), pick(side, new(B), d(B))), "
                  "pick(trans, pick(side, new(B), d(B)), pick(side, d(B), new(B))), 0.0, G)",
                  "scal(pick(side, m, n), pick(diag, 1.0, 0.0), diag(G))",
                  "trimaxpy(uplo, pick(side, m, n), 1.0, G, d(A))"),
                 "mscal(m, n, alpha, d(B))"),
        forward=("mscal(m, n, alpha, d(B))",
                 "maxpy(m, n, d(alpha), B, d(B))",
                 ("tmp X: mat(m, n)",
                  "tmp s: vec(pick(side, m, n))",
                  "mcopy(m, n, B, X)",
                  "trsm(side, uplo, trans, diag, m, n, alpha, A, X)",  # the call's solution
                  "copy(pick(side, m, n), diag(d(A)), s)",
                  "scal(pick(side, m, n), pick(diag, 1.0, 0.0), diag(d(A)))",
                  "trmm(side, uplo, trans, 'N', m, n, -1.0, d(A), X)",
                  "copy(pick(side, m, n), s, diag(d(A)))",
                  "maxpy(m, n, 1.0, X, d(B))"),
                 "trsm(side, uplo, trans, diag, m, n, 1.0, A, d(B))"),
    ),
    "lascl": BlasRule(  # A = (cto / cfrom) A on the entries `type` names: the derivative scales alike
        reverse=("lascl(type, kl, ku, cfrom, cto, m, n, d(A), 0)",),
        forward=("lascl(type, kl, ku, cfrom, cto, m, n, d(A), 0)",),
        constant=("cfrom", "cto"),
    ),
    "lacpy": BlasRule(reverse=None, forward=("lacpy(uplo, m, n, d(A), d(B))",)),  # B = A on a triangle or all
    # A = L L^T (U^T U): dL = L Phi(L^-1 dA L^-T), Phi keeping the lower triangle and half the
    # diagonal; the other triangle of A is not touched, so its tangent stays. Enzyme's calls:
    "potrf": BlasRule(
        reverse=None,
        forward=(("tmp tri: mat(n, n)",
                  "tmp s: vec(n)",
                  "lacpy(flip(uplo), n, n, d(A), tri)",  # the other triangle's tangent, kept
                  "symmetrize(uplo, n, d(A))",
                  "trsm('L', uplo, normal_of(uplo), 'N', n, n, 1.0, A, d(A))",
                  "trsm('R', uplo, trans_of(uplo), 'N', n, n, 1.0, A, d(A))",
                  "scal(n, 0.5, diag(d(A)))",
                  "copy(n, diag(d(A)), s)",
                  "lascl(flip(uplo), 0, 0, 1.0, 0.0, n, n, d(A), 0)",  # Phi: the other triangle zeroed
                  "copy(n, s, diag(d(A)))",
                  "trmm(side_of(uplo), uplo, 'N', 'N', n, n, 1.0, A, d(A))",
                  "copy(n, diag(d(A)), s)",
                  "lacpy(flip(uplo), n, n, tri, d(A))",
                  "copy(n, s, diag(d(A)))"),),
        forward_after=True,
    ),
}
"""Routine -> its rule. A routine of `blas_abi.SIGNATURES` without an entry is callable
by rules (syr2, symm, syr2k) but a compile-time error where a program differentiates it."""
