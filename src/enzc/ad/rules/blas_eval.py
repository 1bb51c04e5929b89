"""Running a BLAS rule (`blas_rules`) at one call: statements become BLAS and helper calls.

The same evaluator serves the reverse pass (at the call's reverse position,
through `reverse_blas_call`) and forward mode (around the primal call): what
differs is the `BlasEnv` that says where primal values, arrays, derivatives and
caches are.
"""

from __future__ import annotations

from typing import Protocol

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase
from enzc.ir.libc import declare
from enzc.ir.module import BasicBlock, Module
from enzc.ir.types import I1, I8, I32, I64, FloatType, IntType
from enzc.ir.values import ConstantInt, Value, const_fp

from enzc.ad.analysis.runtime_activity import either, masked_read
from enzc.ad.diagnostics import ADError
from enzc.ad.rules import blas_helpers
from enzc.ad.rules.blas_calls import Array, Choice, FlagLiteral, Known, Literal, Operand, coerce, emit_call
from enzc.ad.rules.blas_calls import derived_flag, flag_is_first, is_code, routine_function, transposed
from enzc.ad.rules.blas_dsl import Apply, BinOp, Expr, Flag, Item, Name, Number, Statement, derivatives_named
from enzc.ad.rules.blas_dsl import parse_expr
from enzc.ad.typeanalysis.blas_abi import FLAG_CODES, ROUTINES, BlasCallee, blas_callee


class BlasEnv(Protocol):
    """Where a rule finds its values at one call."""

    b: IRBuilder
    module: Module
    blas: BlasCallee
    call: CallBase
    """The original call."""

    def scalar(self, name: str) -> Value:
        """The value of scalar parameter `name` (layout, flags, dimensions, alpha)."""

    def array(self, name: str) -> Array:
        """Array parameter `name` as the call read it (a cache, or the array itself)."""

    def old(self, name: str) -> Array:
        """Overwritten array `name` as it was before the call."""

    def new(self, name: str) -> Array:
        """Reverse: overwritten array `name` as the call left it."""

    def shadow(self, name: str) -> Value:
        """The derivative memory of array parameter `name`."""

    def has_derivative(self, name: str) -> bool:
        """Whether parameter `name` (or `ret`, the result) carries a derivative."""

    def tangent(self, name: str) -> Value:
        """Forward mode: the tangent of floating parameter `name`."""

    def add_derivative(self, name: str, value: Value) -> None:
        """Reverse: adj(name) += value; forward: tangent of the result += value (`ret`)."""

    def result(self) -> Value:
        """The primal result."""

    def result_adjoint(self) -> Value:
        """Reverse: the adjoint of the result."""

    def result_adjoint_address(self) -> Value | None:
        """Reverse, cuBLAS: the memory the result's adjoint is read from (None: a value)."""

    def error(self, what: str, hint: str | None = None) -> ADError: ...

    def inactive(self, name: str) -> Value | None:
        """Runtime activity: the run-time flag "the derivative memory of parameter `name`
        is its primal memory" (None: no such check)."""

    def continued_in(self, block: BasicBlock) -> None:
        """The code at the call went on in `block` after a run-time check split it."""


UPLO_FORMS = {"flip": ("L", "U", "uplo"), "normal_of": ("T", "N", "trans"),
              "trans_of": ("N", "T", "trans"), "side_of": ("R", "L", "side")}
"""Flags derived from an uplo: (for 'U', for 'L', their role), as Enzyme's LAPACK rules use them."""

MATRIX_HELPERS = {"frob": "frob", "mscal": "mscal", "maxpy": "maxpy", "mcopy": "mcopy",
                  "trifrob": "frob", "trimscal": "mscal", "trimaxpy": "maxpy"}


class Evaluator:
    """Runs the items of one rule at one call."""

    def __init__(self, env: BlasEnv) -> None:
        self.env = env
        self.b = env.b
        self.blas = env.blas
        self.fp = FloatType(env.blas.kind)
        self.first_used = False
        self.temps: dict[str, Array] = {}
        self.masked_by: Value | None = None
        """Runtime activity: the flag that zeroes what the current item adds."""
        self.letters: Value | None = None
        """CBLAS: i1, the call passes its flags as letters (made in `run`, before any branch)."""

    def run(self, items: tuple[Item, ...]) -> None:
        self.letters = self.letter_style()
        items = tuple(i for i in items if all(self.env.has_derivative(n) for n in derivatives_named(i)))
        names = {n for i in items for n in derivatives_named(i)}
        names |= {stmt.unless for i in items for stmt in i if stmt.unless not in (None, "first")}  # type: ignore[misc]
        if not [n for n in sorted(names) if self.env.inactive(n) is not None]:  # (all checks made here, up front)
            for item in items:
                self.run_item(item)
            return
        # runtime activity: an item may be skipped at run time, so the old derivative is
        # scaled by `beta` first and every `first(beta)` is 1 (the same sum)
        scaling = tuple(i for i in items if all(stmt.unless == "first" for stmt in i))
        for item in scaling:
            self.run_checked(item)
        self.first_used = True
        for item in items:
            if item not in scaling:
                self.run_checked(item)

    def run_checked(self, item: Item) -> None:
        """`item`, skipped at run time when an array it differentiates has its primal
        as derivative memory (inactive: nothing flows into or out of it)."""
        skip: Value | None = None
        for name in sorted(derivatives_named(item)):
            skip = either(self.b, skip, self.env.inactive(name))
        if skip is None:
            self.run_item(item)
        elif all(stmt.kind == "add" and self.env.inactive(stmt.target) is None for stmt in item):  # type: ignore[arg-type]
            self.masked_by = skip  # reads only, into registers: the sums it adds are masked instead
            self.run_item(item)
            self.masked_by = None
        else:
            self.run_if(self.b.xor(skip, ConstantInt(I1, 1), "rt.active"), item)

    def run_if(self, cond: Value, item: Item) -> None:
        with self.b.if_then(cond):
            self.run_item(item)
        assert self.b.block is not None
        self.env.continued_in(self.b.block)

    def run_item(self, item: Item) -> None:
        env = self.env
        for stmt in item:
            if stmt.unless == "first" and self.first_used:
                continue
            if stmt.unless not in (None, "first") and env.has_derivative(stmt.unless):  # type: ignore[arg-type]
                inactive = env.inactive(stmt.unless)  # type: ignore[arg-type]
                if inactive is not None:  # runtime activity: the derivative is absent at run time
                    self.run_if(inactive, (stmt,))
                continue
            self.statement(stmt)
        free = declare(env.module, "free")
        for t in self.temps.values():
            self.b.call(free, [t.ptr])
        self.temps = {}

    def statement(self, stmt: Statement) -> None:
        if stmt.kind == "tmp":
            self.temps[stmt.target] = self.temporary(stmt)  # type: ignore[index]
        elif stmt.kind == "add":
            value = self.float_value(self.expr(stmt.expr))  # type: ignore[arg-type]
            self.env.add_derivative(stmt.target, masked_read(self.b, self.masked_by, value))  # type: ignore[arg-type]
        else:
            self.expr(stmt.expr)  # type: ignore[arg-type]

    # -- expressions ---------------------------------------------------------------------
    def expr(self, e: Expr) -> Operand:
        match e:
            case Number():
                return Literal(e.value, e.is_float)
            case Flag():
                return FlagLiteral(e.letter, self.letters)
            case Name():
                return self.name(e.name)
            case BinOp():
                return self.arith(e.op, self.expr(e.lhs), self.expr(e.rhs))
            case Apply():
                return self.apply(e)
        raise AssertionError(e)

    def name(self, name: str) -> Operand:
        env = self.env
        if name in self.temps:
            return self.temps[name]
        if name == "ret":
            return Known(env.result(), "fp")
        if name == "dret":
            return Known(env.result_adjoint(), "fp", env.result_adjoint_address())
        p = env.blas.routine.param(name)
        if p.is_array:
            return env.array(name)
        return Known(env.scalar(name), p.role)

    def apply(self, e: Apply) -> Operand:
        f, args = e.function, e.args
        match f:
            case "d":
                return self.derivative(args[0].name)  # type: ignore[union-attr]
            case "old":
                return self.env.old(args[0].name)  # type: ignore[union-attr]
            case "new":
                return self.env.new(args[0].name)  # type: ignore[union-attr]
            case "first":
                if self.first_used:
                    return Literal(1.0, True)
                self.first_used = True
                return self.expr(args[0])
            case "T":
                flag = self.expr(args[0])
                assert isinstance(flag, Known)
                return transposed(self.b, self.blas, flag)
            case "flip" | "normal_of" | "trans_of" | "side_of":
                flag = self.expr(args[0])
                assert isinstance(flag, Known)
                first, other, role = UPLO_FORMS[f]
                return derived_flag(self.b, self.blas, flag, first, other, role, keep_case=f != "side_of")
            case "symmetrize":
                return self.symmetrize(*(self.expr(a) for a in args))
            case "pick":
                return self.pick(args)
            case "len" | "rows" | "cols":
                p = self.env.blas.routine.param(args[0].name)  # type: ignore[union-attr]
                return self.expr(parse_expr(p.shape[1 if f == "cols" else 0]))
            case "diag":
                return self.diagonal(self.expr(args[0]))
            case "div0":
                return self.div0(self.float_value(self.expr(args[0])), self.float_value(self.expr(args[1])))
            case "live":
                return self.live(self.expr(args[0]), self.expr(args[1]))
        if f in ROUTINES:
            ops = [self.expr(a) for a in args]
            if f == "scal":
                ops = [self.forward_walk(op) if isinstance(op, Array) else op for op in ops]
            return self.expr_call(f, ops)
        if f in MATRIX_HELPERS:
            return self.matrix_helper(f, [self.expr(a) for a in args])
        if f in ("signaxpy", "signdot"):
            return self.vector_helper(f, [self.expr(a) for a in args])
        raise self.env.error(f"BLAS rule: unknown function '{f}'")

    def expr_call(self, routine: str, ops: list[Operand]) -> Known:
        result = emit_call(self.b, self.env.module, self.blas, self.env.call.called_function, routine,  # type: ignore[arg-type]
                           self.layout(), ops, "blas." + routine)
        return Known(result, "fp")

    def derivative(self, name: str) -> Operand:
        env = self.env
        p = env.blas.routine.param(name)
        if p.is_array:
            stride = env.blas.routine.params[env.blas.routine.index(name) + 1].name
            return Array(env.shadow(name), Known(env.scalar(stride), "int"))
        return Known(env.tangent(name), "fp")

    def pick(self, args: tuple[Expr, ...]) -> Operand:
        flag = self.expr(args[0])
        assert isinstance(flag, Known)
        cond = flag_is_first(self.b, self.blas, flag)
        a, c = self.expr(args[1]), self.expr(args[2])
        if isinstance(a, Array) and isinstance(c, Array):
            return Array(self.b.select(cond, a.ptr, c.ptr, "blas.pick"), Choice(cond, a.stride, c.stride))
        return Choice(cond, a, c)

    def diagonal(self, m: Operand) -> Array:
        assert isinstance(m, Array)
        ld = self.int_value(m.stride)
        return Array(m.ptr, Known(self.b.add(ld, ConstantInt(ld.type, 1), "blas.diag"), "int"))  # type: ignore[arg-type]

    # -- scalar arithmetic ------------------------------------------------------------------
    def float_value(self, op: Operand) -> Value:
        return op.scalar(self.b, self.blas, "fp", self.fp)

    def int_value(self, op: Operand, ty: IntType | None = None) -> Value:
        if ty is None:
            ty = op.value.type if isinstance(op, Known) else self.int_type()  # type: ignore[assignment]
        return op.scalar(self.b, self.blas, "int", ty)  # type: ignore[arg-type]

    def int_type(self) -> IntType:
        """The integer type of the routine's dimensions (as this evaluator sees them)."""
        first_int = next(p.name for p in self.blas.routine.params if p.role == "int")
        return self.env.scalar(first_int).type  # type: ignore[return-value]

    def arith(self, op: str, a: Operand, c: Operand) -> Operand:
        if isinstance(a, Literal) and isinstance(c, Literal):
            x, y = a.number, c.number
            value = {"+": x + y, "-": x - y, "*": x * y, "/": x / y if y else 0.0}[op]
            return Literal(value, a.is_float or c.is_float)
        known = a if isinstance(a, Known) else c
        assert isinstance(known, Known)
        b = self.b
        if isinstance(known.value.type, FloatType):
            x, y = self.float_value(a), self.float_value(c)
            fop = {"+": b.fadd, "-": b.fsub, "*": b.fmul, "/": b.fdiv}[op]
            return Known(fop(x, y, "blas.f"), "fp")
        ty = known.value.type
        x, y = self.int_value(a, ty), self.int_value(c, ty)  # type: ignore[arg-type]
        iop = {"+": b.add, "-": b.sub, "*": b.mul, "/": b.sdiv}[op]
        return Known(iop(x, y, "blas.i"), "int")

    def div0(self, x: Value, y: Value) -> Known:
        """x / y, and 0 where y is 0 (the norm's derivative at the origin)."""
        b = self.b
        q = b.fdiv(x, y, "blas.q")
        zero = const_fp(self.fp, 0.0)
        return Known(b.select(b.fcmp("oeq", y, zero, "blas.y0"), zero, q, "blas.div0"), "fp")

    def live(self, n: Operand, inc: Operand) -> Known:
        """n where the increment is positive, else 0: BLAS's nrm2, asum and scal do nothing
        with an increment <= 0 (they return 0 or leave x as it is), so neither do their rules."""
        b = self.b
        count = self.int_value(n)
        step = self.int_value(inc, count.type)  # type: ignore[arg-type]
        zero = ConstantInt(count.type, 0)  # type: ignore[arg-type]
        return Known(b.select(b.icmp("sgt", step, zero, "blas.inc.pos"), count, zero, "blas.live"), "int")

    def forward_walk(self, v: Array) -> Array:
        """`v` with its increment made positive: a rule scales a whole derivative vector, in
        any order, but BLAS's scal ignores a vector whose increment is negative."""
        b = self.b
        inc = self.int_value(v.stride, self.int_type())
        flipped = b.sub(ConstantInt(inc.type, 0), inc, "blas.inc.neg")  # type: ignore[arg-type]
        positive = b.select(b.icmp("slt", inc, ConstantInt(inc.type, 0), "blas.inc.lt0"), flipped, inc, "blas.inc.abs")  # type: ignore[arg-type]
        return Array(v.ptr, Known(positive, "int"))

    # -- layout, temporaries and helpers ----------------------------------------------------------
    def letter_style(self) -> Value | None:
        """i1 at run time: this CBLAS call passes its first flag as a letter (None: no such flag)."""
        if not self.blas.cblas:
            return None
        flag = next((p for p in self.blas.routine.params if p.role in FLAG_CODES and p.role != "layout"), None)
        if flag is None:
            return None
        return self.b.xor(is_code(self.b, Known(self.env.scalar(flag.name), flag.role)), ConstantInt(I1, 1),
                          "blas.letters")

    def symmetrize(self, uplo: Operand, n: Operand, a: Operand) -> Literal:
        """The triangle of square `a` that `uplo` names copied onto the other, one BLAS copy per
        line below (above) the diagonal, as Enzyme's potrf tangent does."""
        assert isinstance(uplo, Known) and isinstance(a, Array)
        b = self.b
        ld = self.int_value(a.stride, I64)
        row = self.is_row_major()
        one = ConstantInt(I64, 1)
        row_step, col_step = (one, ld) if row is None else (
            b.select(row, ld, one, "blas.rstep"), b.select(row, one, ld, "blas.cstep"))
        lower = b.xor(flag_is_first(b, self.blas, uplo), ConstantInt(I1, 1), "blas.lower")
        copy = routine_function(self.env.module, self.blas, self.env.call.called_function, "copy")  # type: ignore[arg-type]
        fn = blas_helpers.symmetrize(self.env.module, self.fp, copy, self.blas)
        b.call(fn, [self.int_value(n, I64), a.ptr, row_step, col_step, lower])
        return Literal(0, False)

    def layout(self) -> Value | None:
        """What calls pass first: the layout (CBLAS), the handle (cuBLAS), else None."""
        if self.blas.cublas:
            return self.env.scalar("handle")
        return self.env.scalar("layout") if self.blas.cblas and self.blas.routine.has_layout else None

    def is_row_major(self) -> Value | None:
        """i1 at run time: a CBLAS row-major call (None: column-major for sure)."""
        layout = self.layout()
        if layout is None or not self.blas.cblas:
            return None
        return self.b.icmp("eq", layout, ConstantInt(layout.type, FLAG_CODES["layout"]["R"]), "blas.row")  # type: ignore[arg-type]

    def temporary(self, stmt: Statement) -> Array:
        kind, dims = stmt.shape  # type: ignore[misc]
        b = self.b
        sizes = [self.int_value(self.expr(d), I64) for d in dims]
        count = sizes[0] if kind == "vec" else b.mul(sizes[0], sizes[1], "blas.count")
        nbytes = b.mul(count, ConstantInt(I64, 4 if self.fp.kind == "float" else 8), "blas.bytes")
        ptr = b.call(declare(self.env.module, "malloc"), [nbytes], "blas.tmp." + stmt.target)  # type: ignore[operator]
        if kind.startswith("z"):  # zvec, zmat: zeros, for a rule that accumulates into it (ger)
            b.call(declare(self.env.module, "llvm.memset.p0.i64"), [ptr, ConstantInt(I8, 0), nbytes, ConstantInt(I1, 0)])
        if kind.endswith("vec"):
            return Array(ptr, Literal(1, False))
        row = self.is_row_major()
        ld = sizes[0] if row is None else b.select(row, sizes[1], sizes[0], "blas.ld")
        return Array(ptr, Known(ld, "int"))

    def major_minor(self, rows: Value, cols: Value) -> tuple[Value, Value]:
        row = self.is_row_major()
        if row is None:
            return cols, rows
        b = self.b
        return b.select(row, rows, cols, "blas.major"), b.select(row, cols, rows, "blas.minor")

    def triangle_part(self, uplo: Operand) -> Value:
        """Which half of the (major, minor) walk an `uplo` triangle is (see `blas_helpers`)."""
        assert isinstance(uplo, Known)
        b = self.b
        upper = flag_is_first(b, self.blas, uplo)
        row = self.is_row_major()
        swap = upper if row is None else b.xor(upper, row, "blas.swap")
        return b.select(swap, ConstantInt(I32, 2), ConstantInt(I32, 1), "blas.part")

    def program_lascl(self) -> bool:
        """Whether the program has `lascl` in the call's ABI (`cblas_dlascl`, `dlascl_`)."""
        fn = self.env.module.get_function(self.blas.name_of("lascl"))
        found = blas_callee(fn)
        return found is not None and found.routine.name == "lascl"

    def matrix_helper(self, f: str, ops: list[Operand]) -> Operand:
        b = self.b
        if f in ("mscal", "trimscal") and self.program_lascl():  # X = (alpha / 1) X, as Enzyme scales
            one, zero = Literal(1.0, True), Literal(0, False)
            if f == "mscal":
                m, n, alpha, x = ops
                return self.expr_call("lascl", [FlagLiteral("G"), zero, zero, one, alpha, m, n, x, zero])
            uplo, n, alpha, x = ops
            return self.expr_call("lascl", [uplo, zero, zero, one, alpha, n, n, x, zero])
        if f.startswith("tri"):
            part = self.triangle_part(ops[0])
            n = self.int_value(ops[1], I64)
            rows = cols = n
            rest = ops[2:]
        else:
            part = ConstantInt(I32, 0)
            rows, cols = self.int_value(ops[0], I64), self.int_value(ops[1], I64)
            rest = ops[2:]
        major, minor = self.major_minor(rows, cols)
        args: list[Value] = [major, minor, part]
        for op in rest:
            if isinstance(op, Array):
                args += [op.ptr, self.int_value(op.stride, I64)]
            else:
                args.append(self.float_value(op))
        fn = blas_helpers.HELPERS[MATRIX_HELPERS[f]](self.env.module, self.fp)
        result = b.call(fn, args, "blas." + f if fn.function_type.ret == self.fp else "")
        return Known(result, "fp")

    def vector_helper(self, f: str, ops: list[Operand]) -> Operand:
        args: list[Value] = [self.int_value(ops[0], I64)]
        for op in ops[1:]:
            if isinstance(op, Array):
                args += [op.ptr, self.int_value(op.stride, I64)]
            else:
                args.append(self.float_value(op))
        fn = blas_helpers.HELPERS[f](self.env.module, self.fp)
        result = self.b.call(fn, args, "blas." + f if fn.function_type.ret == self.fp else "")
        return Known(result, "fp")


def check_constants(env: BlasEnv, constant: tuple[str, ...]) -> None:
    """A located error where a parameter whose derivative the rule does not compute has one."""
    for name in constant:
        if env.has_derivative(name):
            raise env.error(f"the derivative of {env.blas.routine.name}'s '{name}' is not supported",
                            f"pass '{name}' as a constant (Enzyme requires the same)")


def copy_array(env: BlasEnv, ev: Evaluator, name: str) -> Array:
    """A contiguous copy of array parameter `name` (a cache), made at the builder's position:
    BLAS's copy for a vector, a helper loop for a matrix (leading dimension: its rows in
    column-major, its columns in row-major)."""
    b = env.b
    p = env.blas.routine.param(name)
    src = env.array(name)
    dims = [ev.int_value(ev.expr(parse_expr(s)), I64) for s in p.shape]
    count = dims[0] if p.role == "vec" else b.mul(dims[0], dims[1], "blas.count")
    nbytes = b.mul(count, ConstantInt(I64, 4 if ev.fp.kind == "float" else 8), "blas.bytes")
    ptr = b.call(declare(env.module, "malloc"), [nbytes], f"blas.cache.{name}")
    if p.role == "vec":
        emit_call(b, env.module, env.blas, env.call.called_function, "copy", ev.layout(),  # type: ignore[arg-type]
                  [Known(coerce(b, dims[0], ev.int_type()), "int"), src, Array(ptr, Literal(1, False))])
        return Array(ptr, Literal(1, False))
    major, minor = ev.major_minor(dims[0], dims[1])
    b.call(blas_helpers.mcopy(env.module, ev.fp),
           [major, minor, ConstantInt(I32, 0), src.ptr, ev.int_value(src.stride, I64), ptr, minor])
    return Array(ptr, Known(minor, "int"))
