"""Which calls are BLAS routines, and what each of their parameters is.

A BLAS routine comes in two ABIs, for `float` (`s`) and `double` (`d`):

- CBLAS (`cblas_ddot`, `cblas_dgemm`): scalars by value; level 2 and 3 routines
  take a layout first (`CblasRowMajor` = 101, `CblasColMajor` = 102), transposes
  and triangles as enum values (`CblasNoTrans` = 111, `CblasTrans` = 112,
  `CblasConjTrans` = 113, `CblasUpper` = 121, `CblasLower` = 122), of any integer
  width (a test harness may declare them `char`);
- Fortran (`ddot_`, `dgemm_`, also without the underscore and as `64_` / `_64_`
  ILP64 builds): every argument by reference, column-major, transposes and
  triangles as characters (`'N'`, `'t'`, `'U'`, ...); a caller may pass the
  hidden string lengths gfortran appends (trailing integers).

A routine is described once, by its CBLAS parameter list (`SIGNATURES`): each
parameter has a role, and arrays carry their shape as expressions over the other
parameters (`rows, cols` of a matrix as stored, before any transpose) and are
followed by their increment or leading dimension. `!` marks the array the
routine overwrites. A call is BLAS when the callee's name and IR signature both
fit (`blas_callee`); a function of a BLAS name with another signature is the
user's own. The derivative rules (`rules/blas_rules.py`) and type analysis read
the same description.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from enzc.ir.module import Function
from enzc.ir.types import FloatType, IntType, PointerType, Type, VoidType

SIGNATURES: dict[str, str] = {
    "dot": "n, x:vec(n), incx, y:vec(n), incy -> fp",
    "nrm2": "n, x:vec(n), incx -> fp",
    "asum": "n, x:vec(n), incx -> fp",
    "axpy": "n, alpha:fp, x:vec(n), incx, y:vec(n)!, incy",
    "scal": "n, alpha:fp, x:vec(n)!, incx",
    "copy": "n, x:vec(n), incx, y:vec(n)!, incy",
    "gemv": "layout, trans:trans, m, n, alpha:fp, A:mat(m, n), lda, x:vec(pick(trans, n, m)), incx, beta:fp, "
            "y:vec(pick(trans, m, n))!, incy",
    "symv": "layout, uplo:uplo, n, alpha:fp, A:mat(n, n), lda, x:vec(n), incx, beta:fp, y:vec(n)!, incy",
    "ger": "layout, m, n, alpha:fp, x:vec(m), incx, y:vec(n), incy, A:mat(m, n)!, lda",
    "gemm": "layout, transa:trans, transb:trans, m, n, k, alpha:fp, A:mat(pick(transa, m, k), pick(transa, k, m)), "
            "lda, B:mat(pick(transb, k, n), pick(transb, n, k)), ldb, beta:fp, C:mat(m, n)!, ldc",
    "syrk": "layout, uplo:uplo, trans:trans, n, k, alpha:fp, A:mat(pick(trans, n, k), pick(trans, k, n)), lda, "
            "beta:fp, C:mat(n, n)!, ldc",
    # triangular A (uplo; diag 'U': a unit diagonal, not read): x = op(A) x, x = op(A)^-1 x,
    # B = alpha op(A) B (side L) or alpha B op(A) (side R), and the solves of those
    "trmv": "layout, uplo:uplo, trans:trans, diag:diag, n, A:mat(n, n), lda, x:vec(n)!, incx",
    "trsv": "layout, uplo:uplo, trans:trans, diag:diag, n, A:mat(n, n), lda, x:vec(n)!, incx",
    "trsm": "layout, side:side, uplo:uplo, trans:trans, diag:diag, m, n, alpha:fp, "
            "A:mat(pick(side, m, n), pick(side, m, n)), lda, B:mat(m, n)!, ldb",
    "trmm": "layout, side:side, uplo:uplo, trans:trans, diag:diag, m, n, alpha:fp, "
            "A:mat(pick(side, m, n), pick(side, m, n)), lda, B:mat(m, n)!, ldb",
    # called by derivative rules (no rules of their own)
    "syr2": "layout, uplo:uplo, n, alpha:fp, x:vec(n), incx, y:vec(n), incy, A:mat(n, n)!, lda",
    "symm": "layout, side:side, uplo:uplo, m, n, alpha:fp, A:mat(pick(side, m, n), pick(side, m, n)), lda, "
            "B:mat(m, n), ldb, beta:fp, C:mat(m, n)!, ldc",
    "syr2k": "layout, uplo:uplo, trans:trans, n, k, alpha:fp, A:mat(pick(trans, n, k), pick(trans, k, n)), lda, "
             "B:mat(pick(trans, n, k), pick(trans, k, n)), ldb, beta:fp, C:mat(n, n)!, ldc",
    # LAPACK's A = (cto / cfrom) A (`dlascl_`; `cblas_dlascl` is Enzyme's name for its CBLAS form)
    "lascl": "layout, type:letter, kl, ku, cfrom:fp, cto:fp, m, n, A:mat(m, n)!, lda, info:info",
    # LAPACK's Cholesky factorisation (forward mode only) and what its rule calls
    "potrf": "layout, uplo:uplo, n, A:mat(n, n)!, lda, info:info",
    "lacpy": "layout, uplo:letter, m, n, A:mat(m, n), lda, B:mat(m, n)!, ldb",
}
"""CBLAS parameter lists; roles: int (the default), fp, layout, trans, uplo, side, diag,
letter (a character in both ABIs: lascl's matrix type 'G', 'U', 'L'), info (LAPACK's
status: an integer or a pointer to one in the CBLAS form, by reference in Fortran),
vec(length), mat(rows, cols). `-> fp`: the routine returns a float of its precision."""

FLAG_CODES: dict[str, dict[str, int]] = {
    "layout": {"R": 101, "C": 102},
    "trans": {"N": 111, "T": 112, "C": 113},
    "uplo": {"U": 121, "L": 122},
    "side": {"L": 141, "R": 142},
    "diag": {"N": 131, "U": 132},
}
"""CBLAS enum values of the flags (Fortran passes the letter itself)."""
FIRST_LETTER = {"trans": "N", "uplo": "U", "side": "L", "diag": "N"}
"""The letter `pick(flag, a, b)` chooses `a` for."""
LETTER_ROLES = ("trans", "uplo", "side", "diag", "letter")
"""Flags: one character by reference in Fortran (a CBLAS enum or, in test harnesses
such as Enzyme's, the letter itself)."""

CUBLAS_CODES: dict[str, dict[str, int]] = {
    "trans": {"N": 0, "T": 1, "C": 2},
    "uplo": {"L": 0, "U": 1},
    "side": {"L": 0, "R": 1},
    "diag": {"N": 0, "U": 1},
    "letter": {"G": 2},
}
"""cuBLAS's enum values (cublasOperation_t, cublasFillMode_t, ...); `letter`: the
type Enzyme passes its `cublasDlascl` for a full matrix."""

FLOAT_KINDS = {"s": "float", "d": "double"}
FORTRAN_SUFFIXES = ("_", "", "64_", "_64_")
"""Fortran name endings (`ddot_`, `ddot`, and the ILP64 builds of OpenBLAS)."""


@dataclass(frozen=True)
class Param:
    """One parameter of a routine (CBLAS order)."""

    name: str
    role: str
    """int, fp, layout, trans, uplo, vec or mat."""
    shape: tuple[str, ...] = ()
    """vec: (length,); mat: (rows, cols) as stored: expressions over other parameters."""
    written: bool = False

    @property
    def is_array(self) -> bool:
        return self.role in ("vec", "mat")


@dataclass(frozen=True)
class Routine:
    """A BLAS routine independent of precision and ABI."""

    name: str
    params: tuple[Param, ...]
    returns_fp: bool

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def index(self, name: str) -> int:
        """Position of a parameter in the CBLAS list."""
        return next(i for i, p in enumerate(self.params) if p.name == name)

    @property
    def has_layout(self) -> bool:
        return bool(self.params) and self.params[0].role == "layout"

    @property
    def written(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.written)


_PARAM = re.compile(r"^(\w+)\s*(?::\s*(\w+)\s*(?:\((.*)\))?)?\s*(!)?$")


def _split_top(text: str) -> list[str]:
    """`text` split at commas outside parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += (ch == "(") - (ch == ")")
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_signature(name: str, text: str) -> Routine:
    """A `Routine` from its `SIGNATURES` entry."""
    params_text, _, ret = text.partition("->")
    params = []
    for item in _split_top(params_text):
        m = _PARAM.match(item)
        if m is None:
            raise ValueError(f"bad BLAS parameter {item!r} of {name}")
        pname, shape, bang = m.group(1), m.group(3), m.group(4)
        role = m.group(2) or ("layout" if pname == "layout" else "int")
        params.append(Param(pname, role, tuple(_split_top(shape)) if shape else (), bool(bang)))
    return Routine(name, tuple(params), ret.strip() == "fp")


ROUTINES: dict[str, Routine] = {name: parse_signature(name, text) for name, text in SIGNATURES.items()}


@dataclass(frozen=True)
class BlasCallee:
    """A function recognised as a BLAS routine."""

    routine: Routine
    kind: str
    """`double` or `float`."""
    cblas: bool
    """CBLAS ABI (by value, with a layout) or Fortran (by reference, column-major)."""
    prefix: str
    """`cblas_` or `` (Fortran)."""
    suffix: str
    """The Fortran name ending (`_`, ``, `64_`, `_64_`); `` for CBLAS."""
    extra: int
    """Trailing hidden string-length parameters of a Fortran declaration."""
    cublas: bool = False
    """cuBLAS (`cublasDgemm`, `cublasDdot_v2`): a handle first, no layout, flags as
    cuBLAS's enums, `suffix` `_v2` or ``."""
    fp_by_ref: bool = False
    """cuBLAS: alpha and beta by pointer (cuBLAS's API) rather than by value."""
    result_ptr: bool = False
    """cuBLAS: a float result through a trailing pointer (`cublasDdot_v2(..., &r)`)."""

    @property
    def letter(self) -> str:
        return "d" if self.kind == "double" else "s"

    def name_of(self, routine: str) -> str:
        """The name of another routine of the same precision and ABI (`daxpy_`)."""
        if self.cublas:
            return f"cublas{self.letter.upper()}{routine}{self.suffix}"
        return f"{self.prefix}{self.letter}{routine}{self.suffix}"

    def params(self) -> tuple[Param, ...]:
        """The parameters as passed: Fortran has no layout; cuBLAS has a handle, and a
        result pointer where `result_ptr`."""
        if self.cblas:
            return self.routine.params
        plain = tuple(p for p in self.routine.params if p.role != "layout")
        if not self.cublas:
            return plain
        return (HANDLE, *plain, *((RESULT,) if self.result_ptr else ()))

    def param(self, name: str) -> Param:
        return next(p for p in self.params() if p.name == name)

    def by_ref(self, p: Param) -> bool:
        """Whether scalar parameter `p` is passed by reference (all of Fortran's; cuBLAS's
        floats where `fp_by_ref`; LAPACK's status and cuBLAS's result are outputs)."""
        if p.is_array or p.role in ("info", "result", "handle"):
            return False
        return not self.cblas and (not self.cublas or p.role == "fp" and self.fp_by_ref)

    def flag_codes(self, role: str) -> dict[str, int] | None:
        """The enum values of flags of `role` in this ABI (None: letters, as Fortran)."""
        if self.cublas:
            return CUBLAS_CODES.get(role)
        return FLAG_CODES.get(role) if self.cblas else None

    def arg_index(self, name: str) -> int | None:
        """Position of parameter `name` in a call (None: the layout of a Fortran call)."""
        return next((i for i, p in enumerate(self.params()) if p.name == name), None)

    def written_indices(self) -> tuple[int, ...]:
        """Positions of the arrays the routine overwrites (and of cuBLAS's result)."""
        return tuple(i for i, p in enumerate(self.params()) if p.written)

    def clobbered_indices(self) -> tuple[int, ...]:
        """Positions of every pointer the routine writes through: `written_indices` and
        LAPACK's status."""
        return tuple(i for i, p in enumerate(self.params()) if p.written or p.role == "info" and not self.cblas)

    def array_indices(self) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(self.params()) if p.is_array)


HANDLE = Param("handle", "handle")
RESULT = Param("result", "result", written=True)


def split_name(name: str) -> tuple[str, str, str, str] | None:
    """(prefix, precision letter, routine, suffix) of a BLAS-shaped name."""
    if name.startswith("cublas"):
        body = name[6:].removesuffix("_v2")
        if body[:1] in ("S", "D") and body[1:] in ROUTINES:
            return "cublas", body[0].lower(), body[1:], name[6 + len(body):]
        return None
    if name.startswith("cblas_"):
        body = name[6:]
        if body[:1] in FLOAT_KINDS and body[1:] in ROUTINES:
            return "cblas_", body[0], body[1:], ""
        return None
    for suffix in sorted(FORTRAN_SUFFIXES, key=len, reverse=True):
        body = name[: len(name) - len(suffix)] if suffix else name
        if name.endswith(suffix) and body[:1] in FLOAT_KINDS and body[1:] in ROUTINES:
            return "", body[0], body[1:], suffix
    return None


def blas_callee(fn: Function | None) -> BlasCallee | None:
    """The BLAS routine `fn` is, if its name and IR signature both fit."""
    if fn is None or fn.name is None:
        return None
    return _callee(fn.name, fn.function_type.params, fn.function_type.ret)


@lru_cache(maxsize=256)
def _callee(name: str, params: tuple[Type, ...], ret: Type) -> BlasCallee | None:
    parts = split_name(name)
    if parts is None:
        return None
    prefix, letter, routine_name, suffix = parts
    routine = ROUTINES[routine_name]
    kind = FLOAT_KINDS[letter]
    if prefix == "cublas":
        return _cublas_callee(routine, kind, suffix, params, ret)
    cblas = prefix == "cblas_"
    callee = BlasCallee(routine, kind, cblas, prefix, suffix, 0)
    expected = callee.params()
    if len(params) < len(expected):
        return None
    extra = params[len(expected):]
    if cblas and extra or any(not isinstance(t, IntType) for t in extra):
        return None
    if routine.returns_fp != isinstance(ret, FloatType):
        return None
    if routine.returns_fp and cblas and ret != FloatType(kind):
        return None
    if not all(_fits(p, t, kind, cblas) for p, t in zip(expected, params)):
        return None
    return BlasCallee(routine, kind, cblas, prefix, suffix, len(extra))


def _cublas_callee(routine: Routine, kind: str, suffix: str, params: tuple[Type, ...], ret: Type) -> BlasCallee | None:
    """cuBLAS: (handle, the parameters without the layout[, result pointer]) returning a status
    (or the float result); floats all by pointer or all by value."""
    fp = FloatType(kind)
    result_ptr = routine.returns_fp and ret != fp
    floats = [t for p, t in zip((q for q in routine.params if q.role != "layout"), params[1:]) if p.role == "fp"]
    callee = BlasCallee(routine, kind, False, "cublas", suffix, 0, True,
                        bool(floats) and isinstance(floats[0], PointerType), result_ptr)
    expected = callee.params()
    if len(params) != len(expected) or not (isinstance(ret, IntType) or ret == fp or isinstance(ret, VoidType)):
        return None
    for p, t in zip(expected, params):
        if p.is_array or p.role in ("handle", "result"):
            ok = isinstance(t, PointerType)
        elif p.role == "fp":
            ok = isinstance(t, PointerType) if callee.fp_by_ref else t == fp
        else:
            ok = isinstance(t, IntType)
        if not ok:
            return None
    return callee


def _fits(p: Param, t: Type, kind: str, cblas: bool) -> bool:
    if not cblas or p.is_array:
        return isinstance(t, PointerType)
    if p.role == "fp":
        return t == FloatType(kind)
    if p.role == "info":
        return isinstance(t, (IntType, PointerType))
    return isinstance(t, IntType)


LAPACK_ROUTINES = frozenset(
    "getrf getrs getri gesv potrf potrs potri posv trtrs trtri geqrf orgqr ormqr gels gelsd gesvd gesdd syev syevd "
    "geev laset lange".split())
OTHER_BLAS = frozenset("syr spmv spr2 spr gbmv sbmv tbmv tbsv rot rotg swap "
                       "iamax dotu dotc".split())


def unsupported_blas_name(name: str) -> str | None:
    """What `name` is when it looks like a LAPACK routine or a BLAS routine without
    derivative rules (`dgetrf_`, `LAPACKE_dpotrf`, `cblas_dtbmv`, `cblas_zgemm`), else None."""
    body = name
    for prefix in ("cblas_", "LAPACKE_", "lapack_"):
        if body.startswith(prefix):
            body = body[len(prefix):]
            break
    body = body.removesuffix("_work").rstrip("_").removesuffix("64").rstrip("_")
    letter, routine = body[:1].lower(), body[1:].lower()
    if letter not in "sdcz" or not letter:
        return None
    if routine in LAPACK_ROUTINES:
        return f"the LAPACK routine '{name}'"
    if routine in OTHER_BLAS or routine in ROUTINES and letter in "cz":
        return f"the BLAS routine '{name}'" + (" (complex)" if letter in "cz" else "")
    return None
