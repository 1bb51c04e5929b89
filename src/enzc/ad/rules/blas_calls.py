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
from enzc.ir.types import I8, I32, I64, PTR, VOID, FloatType, FunctionType, IntType, Type
from enzc.ir.values import ConstantInt, Value, const_fp

from enzc.ad.typeanalysis.blas_abi import FIRST_LETTER, FLAG_CODES, ROUTINES, BlasCallee, Param, blas_callee

FLAG_ROLES = ("layout", "trans", "uplo", "side", "letter")


class Operand:
    """A value of a rule, typed where it is used."""

    def scalar(self, b: IRBuilder, blas: BlasCallee, role: str, ty: Type) -> Value:
        raise TypeError(f"{type(self).__name__} is not a scalar")


@dataclass
class Known(Operand):
    """An IR value: an integer, a float, or a flag of `role`."""

    value: Value
    role: str

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
    """'N', 'T', 'L', 'R', 'U', 'G': an enum value (CBLAS) or the letter (Fortran)."""

    letter: str

    def scalar(self, b: IRBuilder, blas: BlasCallee, role: str, ty: Type) -> Value:
        assert isinstance(ty, IntType)
        code = FLAG_CODES[role][self.letter] if blas.cblas and role in FLAG_CODES else ord(self.letter)
        return ConstantInt(ty, code)


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


def flag_is_first(b: IRBuilder, blas: BlasCallee, flag: Known) -> Value:
    """i1: `flag` is 'N' (trans), 'U' (uplo) or 'L' (side), in either case or as a CBLAS code."""
    letter = FIRST_LETTER[flag.role]
    v = flag.value
    if blas.cblas:
        return b.icmp("eq", v, ConstantInt(v.type, FLAG_CODES[flag.role][letter]), "blas.first")  # type: ignore[arg-type]
    upper = b.icmp("eq", v, ConstantInt(v.type, ord(letter)), "blas.first")  # type: ignore[arg-type]
    lower = b.icmp("eq", v, ConstantInt(v.type, ord(letter.lower())), "blas.first")  # type: ignore[arg-type]
    return b.or_(upper, lower, "blas.first")


def transposed(b: IRBuilder, blas: BlasCallee, flag: Known) -> Known:
    """'N' <-> 'T' ('C', conjugate, is 'T' for real data), keeping a Fortran letter's case."""
    v = flag.value
    ty = v.type
    is_n = flag_is_first(b, blas, flag)
    if blas.cblas:
        return Known(b.select(is_n, ConstantInt(ty, 112), ConstantInt(ty, 111), "blas.trans"), "trans")  # type: ignore[arg-type]
    small = b.icmp("sge", v, ConstantInt(ty, ord("a")), "blas.lower")  # type: ignore[arg-type]
    to_t = b.select(small, ConstantInt(ty, ord("t")), ConstantInt(ty, ord("T")), "blas.t")  # type: ignore[arg-type]
    to_n = b.select(small, ConstantInt(ty, ord("n")), ConstantInt(ty, ord("N")), "blas.n")  # type: ignore[arg-type]
    return Known(b.select(is_n, to_t, to_n, "blas.trans"), "trans")


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
    call_args: list[Value] = []
    flags = 0
    for k, (v, role) in enumerate(values):
        if role == "array":
            call_args.append(v)
            continue
        ty = ftype.params[k] if blas.cblas else _by_ref_type(blas, role)
        if role == "info":  # LAPACK's status, an output: a slot for it where the routine takes a pointer
            status = ConstantInt(I64 if "64" in blas.suffix else I32, 0)
            by_value = blas.cblas and isinstance(ty, IntType)
            call_args.append(ConstantInt(ty, 0) if by_value else by_reference(b, status))  # type: ignore[arg-type]
            continue
        value = v.scalar(b, blas, role, ty) if isinstance(v, Operand) else coerce(b, v, ty)
        flags += role in FLAG_ROLES
        call_args.append(value if blas.cblas else by_reference(b, value))
    for t in ftype.params[len(call_args):]:
        call_args.append(ConstantInt(t, 1) if isinstance(t, IntType) else b.const_null(t))  # hidden string lengths
    call = b.call(fn, call_args, name if ftype.ret != VOID else "")
    assert isinstance(call, CallBase)
    call.arg_attrs = [tuple(x for x in a.attrs if x in ("signext", "zeroext")) for a in fn.args]
    return call


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
    fn = module.get_function(name)
    if fn is not None:
        if blas_callee(fn) is None:
            raise ValueError(f"'{name}' is declared with a signature that is not BLAS's")
        return fn
    return get_or_insert_function(module, name, _declared_type(blas, primal, routine))


def _declared_type(blas: BlasCallee, primal: Function, routine: str) -> FunctionType:
    r = ROUTINES[routine]
    ret: Type = FloatType(blas.kind) if r.returns_fp else VOID
    ptypes = primal.function_type.params
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
