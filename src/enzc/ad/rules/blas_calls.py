"""Emitting calls of BLAS routines in the ABI of the call being differentiated.

The values a rule computes (`Operand`s) stay untyped until they meet a parameter:
a flag literal becomes `CblasTrans` (112) for a CBLAS parameter and `'T'` for a
Fortran one, `1.0` a float or a double, `1` the integer width of the routine.
`emit_call` lays out a call in CBLAS order (the layout first, each array followed
by its increment or leading dimension) or in Fortran's (no layout, everything by
reference through stack slots, gfortran's hidden string lengths when the program's
calls pass them). A routine already declared or defined in the module is called
with its own type and parameter attributes (a test harness may define
`cblas_dgemv(char, char, ...)`); a missing one is declared from the types of the
call being differentiated.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.instructions import CallBase
from enzc.ir.module import Function, Module
from enzc.ir.types import I8, I32, I64, PTR, VOID, FloatType, FunctionType, IntType, PointerType, Type
from enzc.ir.values import ConstantInt, Value, const_fp

from enzc.ad.typeanalysis.blas_abi import CUBLAS_CODES, FIRST_LETTER, FLAG_CODES, LETTER_ROLES, ROUTINES
from enzc.ad.typeanalysis.blas_abi import BlasCallee, Param, blas_callee

FLAG_ROLES = ("layout", *LETTER_ROLES)


class Operand:
    """A value of a rule, typed where it is used."""

    def scalar(self, b: IRBuilder, blas: BlasCallee, role: str, ty: Type) -> Value:
        raise TypeError(f"{type(self).__name__} is not a scalar")


@dataclass
class Known(Operand):
    """An IR value: an integer, a float, or a flag of `role`."""

    value: Value
    role: str
    address: Value | None = None
    """cuBLAS: the memory `value` was read from, handed as is to a routine that takes a
    float by pointer (the pointer mode decides whether it is host or device memory)."""

    def scalar(self, b: IRBuilder, blas: BlasCallee, role: str, ty: Type) -> Value:
        return coerce(b, self.value, ty)


@dataclass
class Literal(Operand):
    """A number of the rule: the type of the parameter it meets."""

    number: float
    is_float: bool

    def scalar(self, b: IRBuilder, blas: BlasCallee, role: str, ty: Type) -> Value:
        if isinstance(ty, FloatType):
            return const_fp(ty, self.number)
        assert isinstance(ty, IntType) and not self.is_float, (role, ty, self.number)
        return ConstantInt(ty, int(self.number))


@dataclass
class FlagLiteral(Operand):
    """'N', 'T', 'L', 'R', 'U', 'G': an enum value (CBLAS) or the letter (Fortran).
    `letters`: i1 at run time, the CBLAS call being differentiated passes its flags as
    letters (Enzyme's test harness does): the letter then, as Enzyme passes it."""

    letter: str
    letters: Value | None = None

    def scalar(self, b: IRBuilder, blas: BlasCallee, role: str, ty: Type) -> Value:
        assert isinstance(ty, IntType)
        letter = ConstantInt(ty, ord(self.letter))
        codes = blas.flag_codes(role)
        if codes is None:
            return letter
        code = ConstantInt(ty, codes[self.letter])
        return code if self.letters is None else b.select(self.letters, letter, code, "blas.flag")


@dataclass
class Choice(Operand):
    """`pick(flag, a, b)` of two scalars."""

    cond: Value
    a: Operand
    b: Operand

    def scalar(self, b: IRBuilder, blas: BlasCallee, role: str, ty: Type) -> Value:
        return b.select(self.cond, self.a.scalar(b, blas, role, ty), self.b.scalar(b, blas, role, ty), "blas.pick")


@dataclass
class Array(Operand):
    """An array: its pointer and its increment (vector) or leading dimension (matrix)."""

    ptr: Value
    stride: Operand


def coerce(b: IRBuilder, v: Value, ty: Type) -> Value:
    """`v` as an integer of width `ty` (sign-extended or truncated); floats as they are."""
    if v.type == ty or not isinstance(ty, IntType) or not isinstance(v.type, IntType):
        return v
    return b.sext(v, ty, "blas.int") if v.type.bits < ty.bits else b.trunc(v, ty, "blas.int")


def _is(b: IRBuilder, v: Value, codes: list[int]) -> Value:
    """i1: `v` is one of `codes`."""
    hits = [b.icmp("eq", v, ConstantInt(v.type, c), "blas.is") for c in codes]  # type: ignore[arg-type]
    out = hits[0]
    for h in hits[1:]:
        out = b.or_(out, h, "blas.is")
    return out


def _letters(letter: str) -> list[int]:
    return [ord(letter.upper()), ord(letter.lower())]


def flag_is_first(b: IRBuilder, blas: BlasCallee, flag: Known) -> Value:
    """i1: `flag` is 'N' (trans, diag), 'U' (uplo) or 'L' (side), in either case or as a CBLAS code."""
    letter = FIRST_LETTER[flag.role]
    if blas.cublas:
        return _is(b, flag.value, [CUBLAS_CODES[flag.role][letter]])
    codes = _letters(letter)
    if blas.cblas:
        codes.append(FLAG_CODES[flag.role][letter])
    return _is(b, flag.value, codes)


def is_code(b: IRBuilder, flag: Known) -> Value:
    """i1: a CBLAS call's `flag` is an enum value (else a letter, as in Enzyme's harness)."""
    return _is(b, flag.value, list(FLAG_CODES[flag.role].values()))


def derived_flag(b: IRBuilder, blas: BlasCallee, flag: Known, if_first: str, otherwise: str, role: str,
                 keep_case: bool = True) -> Known:
    """A flag of `role` chosen by `flag`: `if_first` where `flag` is its first letter (see
    `flag_is_first`), else `otherwise`; an enum value for an enum, else a letter of the
    case of `flag` ('l' -> 'n': how Enzyme derives the flags of its LAPACK rules; its
    sides are upper case)."""
    v = flag.value
    ty = v.type
    first = flag_is_first(b, blas, flag)

    def const(x: int) -> Value:
        return ConstantInt(ty, x)  # type: ignore[arg-type]

    if blas.cublas:
        codes = CUBLAS_CODES[role]
        return Known(b.select(first, const(codes[if_first]), const(codes[otherwise]), "blas.code"), role)

    small = b.icmp("sge", v, const(ord("a")), "blas.lower")
    upper = b.select(first, const(ord(if_first)), const(ord(otherwise)), "blas.letter")
    lower = b.select(first, const(ord(if_first.lower())), const(ord(otherwise.lower())), "blas.letter")
    letter = b.select(small, lower, upper, "blas.letter") if keep_case else upper
    if not blas.cblas or role not in FLAG_CODES:
        return Known(letter, role)
    codes = FLAG_CODES[role]
    code = b.select(first, const(codes[if_first]), const(codes[otherwise]), "blas.code")
    return Known(b.select(is_code(b, flag), code, letter, "blas.flag"), role)


def transposed(b: IRBuilder, blas: BlasCallee, flag: Known) -> Known:
    """'N' <-> 'T' ('C', conjugate, is 'T' for real data), keeping a letter's case."""
    return derived_flag(b, blas, flag, "T", "N", "trans")


def as_letter(b: IRBuilder, blas: BlasCallee, flag: Known) -> Value:
    """An uplo flag as LAPACK's letter (a CBLAS enum value becomes 'U' or 'L')."""
    if not blas.cblas:
        return flag.value
    return derived_flag(b, blas, Known(flag.value, flag.role), "U", "L", "letter").value


# -- the call ----------------------------------------------------------------------------------


def visible_params(blas: BlasCallee, routine: str) -> list[Param]:
    """The parameters a rule passes to `routine`: no layout, no increments or leading
    dimensions (they come with the arrays)."""
    params = ROUTINES[routine].params
    out, skip = [], False
    for p in params:
        if skip:
            skip = False
            continue
        if p.role == "layout":
            continue
        out.append(p)
        skip = p.is_array
    return out


def emit_call(b: IRBuilder, module: Module, blas: BlasCallee, primal: Function, routine: str,
              layout: Value | None, args: list[Operand], name: str = "") -> Value:
    """Call `routine` (of `blas`'s precision and ABI) with rule operands `args`."""
    fn = routine_function(module, blas, primal, routine)
    ftype = fn.function_type
    target = blas_callee(fn)
    assert target is not None
    params = visible_params(blas, routine)
    if len(params) != len(args):
        raise ValueError(f"BLAS rule: {routine} takes {len(params)} operands, given {len(args)}")
    values: list[tuple[Value, str]] = []  # (value as passed by CBLAS, its role)
    if blas.cublas:
        assert layout is not None  # (the handle)
        values.append((layout, "array"))
    if blas.cblas and ROUTINES[routine].has_layout:
        assert layout is not None
        values.append((layout, "layout"))
    for p, op in zip(params, args):
        if p.is_array:
            if not isinstance(op, Array):
                raise ValueError(f"BLAS rule: {routine}'s {p.name} needs an array")
            values.append((op.ptr, "array"))
            values.append((op.stride, "int"))  # type: ignore[arg-type]
        else:
            if isinstance(op, Array):
                raise ValueError(f"BLAS rule: {routine}'s {p.name} is a scalar, given an array")
            values.append((op, p.role))  # type: ignore[arg-type]
    call_args = [_argument(b, blas, ftype.params[k], v, role) for k, (v, role) in enumerate(values)]
    result = None
    if target.result_ptr:  # cuBLAS's dot_v2 and nrm2_v2: the float comes back through a pointer
        with b.goto_entry_allocas():
            result = b.alloca(FloatType(blas.kind), name="blas.result")
        call_args.append(result)
    for t in ftype.params[len(call_args):]:
        call_args.append(ConstantInt(t, 1) if isinstance(t, IntType) else b.const_null(t))  # hidden string lengths
    call = b.call(fn, call_args, name if ftype.ret != VOID else "")
    assert isinstance(call, CallBase)
    call.arg_attrs = [tuple(x for x in a.attrs if x in ("signext", "zeroext")) for a in fn.args]
    return call if result is None else b.load(FloatType(blas.kind), result, name)


def _argument(b: IRBuilder, blas: BlasCallee, target: Type, v: Value | Operand, role: str) -> Value:
    """One argument of `role` for a parameter of IR type `target`: a pointer to a slot
    where the routine takes a scalar by reference (Fortran, cuBLAS's alpha)."""
    if role == "array":
        return v  # type: ignore[return-value]
    by_ref = isinstance(target, PointerType)
    if by_ref and isinstance(v, Known) and v.address is not None:
        return v.address
    if role == "info":  # LAPACK's status, an output
        status = ConstantInt(I64 if "64" in blas.suffix else I32, 0)
        return by_reference(b, status) if by_ref else ConstantInt(target, 0)  # type: ignore[arg-type]
    ty = _by_ref_type(blas, role) if by_ref else target
    if role == "letter" and isinstance(v, Known) and v.role in FLAG_CODES:  # lacpy/lascl given an uplo
        v = Known(as_letter(b, blas, v), "letter")
    value = v.scalar(b, blas, role, ty) if isinstance(v, Operand) else coerce(b, v, ty)
    return by_reference(b, value) if by_ref else value


def _by_ref_type(blas: BlasCallee, role: str) -> Type:
    """The type of the value a Fortran argument points to."""
    if role == "fp":
        return FloatType(blas.kind)
    if role in FLAG_ROLES:
        return I8
    return I64 if "64" in blas.suffix else I32


def by_reference(b: IRBuilder, value: Value) -> Value:
    """A stack slot holding `value` (Fortran passes every scalar by reference)."""
    with b.goto_entry_allocas():
        slot = b.alloca(value.type, name="blas.arg")
    b.store(value, slot)
    return slot


def routine_function(module: Module, blas: BlasCallee, primal: Function, routine: str) -> Function:
    """The module's function for `routine` in `blas`'s ABI, declared if missing."""
    name = blas.name_of(routine)
    fn = module.get_function(name) or _cublas_twin(module, blas, routine)
    if fn is not None:
        if blas_callee(fn) is None:
            raise ValueError(f"'{fn.name}' is declared with a signature that is not BLAS's")
        return fn
    return get_or_insert_function(module, name, _declared_type(blas, primal, routine))


def _cublas_twin(module: Module, blas: BlasCallee, routine: str) -> Function | None:
    """cuBLAS names its handle API both `cublasDcopy_v2` and, through cublas_v2.h's
    macros, `cublasDcopy`; the legacy `cublasDcopy` (no handle) shares the second name.
    When the module has only the other spelling, use it if it takes a handle."""
    if not blas.cublas:
        return None
    twin = f"cublas{blas.letter.upper()}{routine}{'' if blas.suffix else '_v2'}"
    fn = module.get_function(twin)
    found = blas_callee(fn)
    return fn if found is not None and found.cublas else None


def _declared_type(blas: BlasCallee, primal: Function, routine: str) -> FunctionType:
    r = ROUTINES[routine]
    ret: Type = FloatType(blas.kind) if r.returns_fp else VOID
    ptypes = primal.function_type.params
    if blas.cublas:  # cuBLAS's v2 API: handle, floats by pointer, a float result through one, a status
        out = [PTR] + [PTR if p.is_array or p.role == "fp" else I32 for p in r.params if p.role != "layout"]
        return FunctionType(I32, (*out, PTR) if r.returns_fp else tuple(out))
    if not blas.cblas:
        params: list[Type] = [PTR] * (len(r.params) - r.has_layout)
        if blas.extra:
            flags = sum(p.role in FLAG_ROLES for p in r.params if p.role != "layout")
            params += [ptypes[-1]] * flags
        return FunctionType(ret, tuple(params))
    roles = {p.role: t for p, t in zip(blas.params(), ptypes)}
    int_type = next((t for p, t in zip(blas.params(), ptypes) if p.role == "int"), I32)
    flag_type = next((t for p, t in zip(blas.params(), ptypes) if p.role in FLAG_ROLES), I32)
    out: list[Type] = []
    for p in r.params:
        if p.is_array:
            out.append(PTR)
        elif p.role == "fp":
            out.append(FloatType(blas.kind))
        elif p.role in FLAG_ROLES:
            out.append(roles.get(p.role, flag_type))
        else:
            out.append(int_type)
    return FunctionType(ret, tuple(out))
