"""Forward mode: `fwddiffe_<f>` computes `f` and, beside every active value, its tangent.

    fwddiffe_f(a, da, p, dp, n)      parameters: each argument, then after each
                                     differentiated one its tangent (a float) or its
                                     shadow (a pointer to memory holding tangents)
        ... the clone of f, and after each active instruction its tangent:
        %y  = fmul double %a, %b
        %dy = da * b + a * db             (only the terms of active operands)
        ret {y, dy}                       (or y alone: inactive or void return)

No tape and no reverse pass: tangents flow in program order. Memory with shadows
(`dup` arguments, local and heap blocks holding active data) carries tangents in
the shadow: a load reads the tangent from the shadow, a store writes it there,
`memcpy`/`memmove` copy the shadow bytes, `memset` zeroes them; heap blocks get
shadow blocks, freed with them. Phis get tangent phis (filled once every block is
visited). Libm and intrinsic calls use the rule table's partials
(`dr = sum_i dr/dx_i * dx_i`); calls to defined functions call their own forward
derivative (memoized per function and signature, so recursion works), through a
function pointer that of the function it holds (`fnptr.function_of_pointer`); a user's
forward derivative (`__enzyme_register_derivative_*`) replaces the call. Anything
else that could carry a tangent is a compile-time error, as in reverse mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzc.ir.builder import IRBuilder
from enzc.ir.cfg import reverse_post_order
from enzc.ir.instructions import AtomicRMW, CallBase, Instruction, Invoke, Load, Phi, Ret, Store
from enzc.ir.libc import declare
from enzc.ir.module import Function, Module
from enzc.ir.types import I1, I8, I64, VOID, ArrayType, FunctionType, PointerType, StructType, Type
from enzc.ir.values import Constant, ConstantInt, InlineAsm, Value

from enzc.ad.analysis.activity import ArgActivity, carries_float, carries_pointer
from enzc.ad.analysis.allocations import DEALLOCATORS, allocator_of
from enzc.ad.analysis.annotations import forward_derivative_of
from enzc.ad.analysis.calls import CallKind, callee_name, classify
from enzc.ad.analysis.mpi import float_transfer
from enzc.ad.analysis.openmp import is_fork
from enzc.ad.analysis.runtime_activity import checked_write, either, inactive_at_run_time, masked_length, masked_read
from enzc.ad.analysis.write_only import pointers_from, write_only_params
from enzc.ad.memory.fnptr import function_of_pointer, reachable_definitions
from enzc.ad.memory.mirrored_calls import mirror_call
from enzc.ad.rules.complex import complex_parts, forward_complex
from enzc.ad.rules.dsl import emit_scaled
from enzc.ad.rules.table import has_rule, rule_for
from enzc.ad.synth.derived import start_derived
from enzc.ad.synth.forward_arith import ARITHMETIC_TANGENTS
from enzc.ad.synth.forward_blas import forward_blas
from enzc.ad.synth.forward_error import ARITHMETIC, arithmetic_error, reject_in_error_mode, rule_call_error
from enzc.ad.synth.gradient_utils import GradientUtils, null_pointer
from enzc.ad.synth.lanes import enter_lane, start_lanes
from enzc.ad.synth.mpi_calls import check_mpi, forward_mpi, is_mpi
from enzc.ad.synth.mpi_requests import is_wait
from enzc.ad.synth.noneed_writes import drop_primal_writes
from enzc.ad.synth.parallel_adjoints import check_atomic_forward
from enzc.ad.synth.parallel_region import forward_mode_fork
from enzc.ad.synth.reverse import HINT_CUSTOM, check_store_forward, unshadowed_memory_error
from enzc.ad.synth.signature import Derivatives, Signature, derived_params
from enzc.ad.synth.site_types import call_site_context


@dataclass
class ForwardDerivative:
    """A forward-mode derivative and how its result is shaped."""

    function: Function
    signature: Signature
    pair: bool
    """Returns `{primal, tangent}` (an active float or shadowed pointer result);
    with `enzyme_width` N, `{primal, [N x tangent]}`."""


def forward_type(fn: Function, sig: Signature) -> tuple[FunctionType, bool]:
    """Parameters with `width` tangents/shadows after each differentiated one; the
    result and its tangent(s) as a pair when the return is active."""
    ret = fn.function_type.ret
    pair = sig.active_return and ret != VOID
    tangents: Type = ret if sig.width == 1 else ArrayType(sig.width, ret)
    rt: Type = StructType((ret, tangents)) if pair else ret
    return FunctionType(rt, tuple(derived_params(fn, sig.args, sig.width))), pair


def declare_forward(module: Module, fn: Function, sig: Signature) -> ForwardDerivative:
    ftype, pair = forward_type(fn, sig)
    g = module.add_function(f"{'fwderror' if sig.error else 'fwddiffe'}_{fn.name}", ftype)
    g.linkage.words = ["internal"]
    g.header_suffix = [w for w in fn.header_suffix if w.startswith("personality")]
    return ForwardDerivative(g, sig, pair)


def build_forward(derivatives: Derivatives, fn: Function, fd: ForwardDerivative) -> GradientUtils:
    """Fill the declared `fd.function` with `fn`'s forward derivative; returns the
    state that made it (`forward_split` rewrites the primal's part)."""
    width = fd.signature.width
    gu, extra = start_derived(derivatives.module, derivatives.layout, fn, fd.signature.args,
                              fd.signature.active_return, fd.function, reverse=False, width=width,
                              types=derivatives.types, site=fd.signature.site)
    gu.derivatives = derivatives
    gu.parallel = fd.signature.parallel
    gu.runtime_activity = fd.signature.runtime_activity
    if width > 1 and any(isinstance(v, Constant) for v in gu.activity.shadowed):
        raise gu.error(None, "a global with a shadow (!enzyme_shadow) cannot take several tangents at once",
                       "call __enzyme_fwddiff once per direction instead of enzyme_width")
    start_lanes(gu, [{a: ts[k] for a, ts in extra.items() if isinstance(a.type, PointerType)}
                     for k in range(width)])
    lanes = [_Lane({a: ts[k] for a, ts in extra.items() if not isinstance(a.type, PointerType)})
             for k in range(width)]
    noneed = write_only_params(gu.original, [i for i, c in enumerate(fd.signature.args)
                                             if c == ArgActivity.DUPNONEED])
    _Tangents(gu, fd, lanes, pointers_from([gu.original.args[i] for i in noneed]) or {}).run()
    drop_primal_writes([gu.new_value(gu.original.args[i]) for i in noneed])
    return gu


@dataclass
class _Lane:
    """One direction of (vector) forward mode: its tangents (its shadows are
    GradientUtils' lane `k`, `lanes.py`)."""

    t: dict[Value, Value]
    phis: list[tuple[Phi, Phi]] = field(default_factory=list)


class _Tangents:
    """Emits the tangent of every active instruction right after its clone."""

    def __init__(self, gu: GradientUtils, fd: ForwardDerivative, lanes: list[_Lane],
                 noneed: dict[Value, None]) -> None:
        self.gu = gu
        self.noneed = noneed
        """Original pointers into `enzyme_dupnoneed` memory that is only written: callees get them dupnoneed."""
        self.fd = fd
        self.lanes = lanes
        self.lane = 0
        self.calls_done: set[int] = set()
        """Calls to defined functions: one call serves every lane."""
        self.b = IRBuilder()
        self.error = fd.signature.error
        """Error estimates instead of tangents (`forward_error`)."""

    @property
    def t(self) -> dict[Value, Value]:
        """The current lane's tangents."""
        return self.lanes[self.lane].t

    def enter_lane(self, k: int) -> None:
        """Make lane `k` current: its tangents, and its shadows for GradientUtils."""
        self.lane = k
        enter_lane(self.gu, k)

    # -- values ------------------------------------------------------------------------------
    def tangent(self, v: Value) -> Value:
        """The tangent of original `v` (zero for constants and inactive values)."""
        got = self.t.get(v)
        return got if got is not None else self.b.const_zero(v.type)

    def has_tangent(self, v: Value) -> bool:
        return v in self.t

    def new(self, v: Value) -> Value:
        return self.gu.new_value(v)

    def active(self, inst: Instruction) -> bool:
        return carries_float(inst.type) and self.gu.activity.is_active_value(inst) and \
            not self.gu.activity.has_shadow(inst)

    # -- driver --------------------------------------------------------------------------------
    def run(self) -> None:
        gu = self.gu
        for block in reverse_post_order(gu.original):
            for inst in list(block.instructions):
                for k in range(len(self.lanes)):
                    self.enter_lane(k)
                    self.visit(inst)
        for k, lane in enumerate(self.lanes):
            self.enter_lane(k)
            for phi, tphi in lane.phis:
                for value, block in phi.incoming:
                    tphi.add_incoming(self._tangent_at_end(value, block), gu.new_block_of(block))
        self.enter_lane(0)
        for block in gu.original.blocks:
            term = block.terminator
            if isinstance(term, Ret):
                self._return(term)

    def _tangent_at_end(self, value: Value, block) -> Value:
        return self.t.get(value) or self.b.const_zero(value.type)

    def visit(self, inst: Instruction) -> None:
        gu = self.gu
        if self.error:
            reject_in_error_mode(gu, inst)
        if isinstance(inst, Phi):
            if self.active(inst):
                self.b.position_after_phis(gu.new_block_of(inst.parent))  # type: ignore[arg-type]
                tphi = self.b.phi(inst.type, [], "d." + gu.label(inst))
                self.t[inst] = tphi
                self.lanes[self.lane].phis.append((inst, tphi))
            return
        if isinstance(inst, Store):
            self._store(inst)
            return
        if isinstance(inst, CallBase):
            self._call(inst)
            return
        if isinstance(inst, AtomicRMW):
            self._atomic(inst)
            return
        if not self.active(inst):
            return
        handler = arithmetic_error if self.error and inst.opcode in ARITHMETIC else _HANDLERS.get(inst.opcode)
        if handler is None:
            raise gu.error(inst, f"cannot differentiate the instruction '{inst.opcode}' on active values "
                                 "in forward mode",
                           "restructure the code, or mark the function inactive (__enzyme_inactivefn)")
        self.b.position_after(self.new(inst))  # type: ignore[arg-type]
        d = handler(self, inst)
        if d is not None:
            self.t[inst] = d

    # -- memory ------------------------------------------------------------------------------
    def _store(self, inst: Store) -> None:
        gu = self.gu
        check_store_forward(gu, inst)  # pointer shadows, and the errors for memory without one
        if not carries_float(inst.value.type) or not gu.activity.has_shadow(inst.ptr):
            return
        shadow = gu.shadow(inst.ptr)
        self.b.position_after(self.new(inst))  # type: ignore[arg-type]
        target, _ = checked_write(gu, self.b, shadow, inst.ptr, inst.value.type)
        self.b.store(self.tangent(inst.value), target, align=inst.align)

    def _atomic(self, inst: AtomicRMW) -> None:
        """`#pragma omp atomic`: the tangent is added to the shadow atomically too."""
        check_atomic_forward(self.gu, inst)
        if not carries_float(inst.type) or not self.gu.activity.has_shadow(inst.ptr):
            return
        self.b.position_after(self.new(inst))  # type: ignore[arg-type]
        d = self.tangent(inst.value)
        shadow = self.gu.shadow(inst.ptr)
        target, inactive = checked_write(self.gu, self.b, shadow, inst.ptr, inst.type)
        old = self.b.atomic_rmw(inst.operation, target, d, inst.ordering, "d.old", inst.align)
        if self.active(inst):
            self.t[inst] = masked_read(self.b, inactive, old)

    # -- calls -------------------------------------------------------------------------------
    def _call(self, call: CallBase) -> None:
        gu = self.gu
        if is_fork(call):
            if len(self.lanes) > 1:
                raise gu.error(call, "forward mode with enzyme_width does not differentiate OpenMP regions yet",
                               "call __enzyme_fwddiff once per direction")
            forward_mode_fork(gu, call, lambda a: self.t.get(a))
            return
        if is_mpi(call):
            self._mpi(call)
            return
        custom = forward_derivative_of(gu.module, call.called_function)
        if custom is not None:
            self._custom(call, custom)
            return
        kind = classify(call, has_rule)
        match kind:
            case CallKind.INACTIVE:
                self._free_shadow(call)
            case CallKind.RULE:
                if self.active(call):
                    self._rule(call)
            case CallKind.MEMSET:
                if gu.activity.has_shadow(call.args[0]):
                    self._after(call)
                    self._memset_shadow(call.args[0], call.args[2])
            case CallKind.MEMCPY:
                self._memcpy(call)
            case CallKind.ALLOC:
                if gu.activity.has_shadow(call):
                    gu.shadow(call)
            case CallKind.MIRRORED:
                mirror_call(gu, call)
            case CallKind.BLAS:
                forward_blas(self, call)
            case CallKind.CUSTOM:
                raise gu.error(call, f"'{callee_name(call)}' has a reverse-mode custom derivative only",
                               "register a forward one: void *__enzyme_register_derivative_NAME[2] = "
                               "{(void *)f, (void *)fwd_f};")
            case CallKind.UNKNOWN:
                self._unknown(call)

    def _after(self, call: CallBase) -> None:
        self.b.position_after(self.new(call))  # type: ignore[arg-type]

    def _rule(self, call: CallBase) -> None:
        rule = rule_for(callee_name(call) or "")
        assert rule is not None
        if rule.complex_op is not None and self.error:
            raise self.gu.error(call, f"error estimation does not follow complex '{callee_name(call)}' yet",
                                "write the real and imaginary parts")
        self._after(call)
        if rule.complex_op is not None:
            operands = complex_parts(self.b, call, self.new)
            tangents = complex_parts(self.b, call, self.tangent, self.has_tangent)
            if any(t is not None for t in tangents):
                self.t[call] = forward_complex(self.b, self.gu.module, call, rule.complex_op, operands,  # type: ignore[arg-type]
                                               tangents, self.new(call))
            return
        env = _ForwardEnv(self, call)
        if self.error:
            self.t[call] = rule_call_error(self, call, rule, env)
            return
        total: Value | None = None
        for i, arg in enumerate(call.args):
            tree = rule.partial(i)
            if tree is None or not self.has_tangent(arg):
                continue
            term = emit_scaled(tree, self.tangent(arg), self.b, self.gu.module, call.type, env)
            total = term if total is None else self.b.fadd(total, term, "d.sum")
        if total is not None:
            self.t[call] = total

    def _memset_shadow(self, dst: Value, length: Value, skip: Value | None = None) -> None:
        """Zero `dst`'s shadow over `length` bytes (not where run-time flag `skip` is true)."""
        memset = declare(self.gu.module, "llvm.memset.p0.i64")
        n = self.new(length)
        if n.type != I64:
            n = self.b.zext(n, I64, "n")
        shadow = self.gu.shadow(dst)
        n = masked_length(self.b, either(self.b, inactive_at_run_time(self.gu, self.b, shadow, dst), skip), n)
        self.b.call(memset, [shadow, ConstantInt(I8, 0), n, ConstantInt(I1, 0)])

    def _memcpy(self, call: CallBase) -> None:
        gu = self.gu
        dst, src = call.args[0], call.args[1]
        if not gu.activity.has_shadow(dst):
            if gu.activity.has_shadow(src):
                unshadowed_memory_error(gu, call, "active memory is copied into")
            return
        self._after(call)
        if not gu.activity.has_shadow(src):
            self._memset_shadow(dst, call.args[2])
            return
        nc = self.new(call)
        assert isinstance(nc, CallBase)
        d_dst, d_src = gu.shadow(dst), gu.shadow(src)
        dst_inactive = inactive_at_run_time(gu, self.b, d_dst, dst)
        src_inactive = inactive_at_run_time(gu, self.b, d_src, src)
        n, *rest = [self.new(a) for a in call.args[2:]]
        self.b.call(nc.callee, [d_dst, d_src, masked_length(self.b, either(self.b, dst_inactive, src_inactive), n),
                                *rest], fn_type=nc.function_type)
        if src_inactive is not None:  # copied from inactive memory: the destination's tangent is 0
            self._memset_shadow(dst, call.args[2], skip=self.b.not_(src_inactive, "rt.src.active"))

    def _free_shadow(self, call: CallBase) -> None:
        """A freed block with a shadow: free the shadow with it."""
        gu = self.gu
        fn = call.called_function
        if fn is None or fn.name not in DEALLOCATORS or not call.args or not gu.activity.has_shadow(call.args[0]):
            return
        self._after(call)
        nc = self.new(call)
        assert isinstance(nc, CallBase)
        shadow = gu.shadow(call.args[0])
        inactive = inactive_at_run_time(gu, self.b, shadow, call.args[0])
        if inactive is not None:  # the primal's own block: freed by the primal call already
            shadow = self.b.select(inactive, self.b.const_null(shadow.type), shadow, "rt.free")
        self.b.call(nc.callee, [shadow, *[self.new(a) for a in call.args[1:]]], fn_type=nc.function_type)

    def _unknown(self, call: CallBase) -> None:
        gu = self.gu
        act = gu.activity
        if not act.is_active_instruction(call) and not self.active(call):
            return
        fn = call.called_function
        if isinstance(fn, Function) and not fn.is_declaration and allocator_of(call) is None:
            self._defined(call, fn)
            return
        from enzc.ad.rules.library_hints import library_hint

        name = callee_name(call) or "an indirect callee"
        if fn is None and not isinstance(call.callee, InlineAsm):
            self._defined(call, None)  # through a function pointer
            return
        if fn is None:
            raise gu.error(call, "cannot differentiate inline assembly that may be active",
                           "write the computation in C (a builtin or a plain expression), or put the asm in "
                           "a function of its own with a custom derivative (__enzyme_register_gradient_NAME)")
        if self.error:
            raise gu.error(call, f"no error estimate for the call to external function '{name}' (no body, no rule)",
                           "compile its body with enzcc, or mark it inactive (__enzyme_inactivefn) to take its "
                           "result as exact")
        raise gu.error(call, f"cannot differentiate call to external function '{name}' in forward mode",
                       library_hint(name) or HINT_CUSTOM.format(name=name))

    def _mpi(self, call: CallBase) -> None:
        """An MPI transfer of floats is repeated on the tangents (`mpi_calls`)."""
        check_mpi(self.gu, call)
        if self.gu.activity.is_active_instruction(call) and (float_transfer(call) is not None or is_wait(call)):
            if len(self.lanes) > 1:
                raise self.gu.error(call, "forward mode with enzyme_width does not differentiate MPI transfers yet",
                                    "call __enzyme_fwddiff once per direction")
            self._after(call)
            forward_mpi(self.gu, call, self.b)

    def _custom(self, call: CallBase, custom: Function) -> None:
        """The user's forward derivative (`__enzyme_register_derivative_*`): the
        arguments, each pointer or float one followed by its shadow or tangent (or
        every one followed by one). It computes the primal outputs and their
        tangents, and returns `{primal, tangent}`, nothing (a `void` f), or the
        tangent alone (the original call then stays for the primal)."""
        gu = self.gu
        if len(self.lanes) > 1:
            raise gu.error(call, f"a user forward derivative ('{custom.name}') takes one tangent, not enzyme_width",
                           "call __enzyme_fwddiff once per direction")
        f = call.called_function
        assert isinstance(f, Function)
        params = f.function_type.params
        differentiable = [i for i, p in enumerate(params) if isinstance(p, PointerType) or carries_float(p)]
        n = len(custom.function_type.params)
        if n == 2 * len(params):
            followed = set(range(len(params)))
        elif n == len(params) + len(differentiable):
            followed = set(differentiable)
        else:
            raise gu.error(call, f"the forward derivative '{custom.name}' of '{f.name}' takes {n} parameters; "
                                 f"expected {len(params) + len(differentiable)} (each parameter, a shadow or "
                                 "tangent after each pointer or floating-point one)",
                           "write fwd_f(x, dx, p, dp, ...) with the parameters of f")
        args: list[Value] = []
        for i, a in enumerate(call.args):
            args.append(self.new(a))
            if i not in followed:
                continue
            if isinstance(a.type, PointerType):
                args.append(gu.shadow(a) if gu.activity.has_shadow(a) else self.b.const_null(a.type))
            else:
                args.append(self.tangent(a))
        ret, got = f.function_type.ret, custom.function_type.ret
        pair = got == StructType((ret, ret)) and ret != VOID
        if not (pair or got == VOID or (got == ret and carries_float(ret))):
            raise gu.error(call, f"the forward derivative '{custom.name}' of '{f.name}' returns {got}; expected "
                                 f"{{{ret}, {ret}}} (primal and tangent), {ret} (the tangent) or void",
                           "return the tangent of the result")
        nc = self.new(call)
        assert isinstance(nc, CallBase)
        self.b.position_before(nc)
        result = self.b.call(custom, args, "" if got == VOID else f"{gu.label(call)}.fwd")
        if pair:
            self.t[call] = self.b.extract_value(result, 1, f"d.{gu.label(call)}")
            primal = self.b.extract_value(result, 0, gu.label(call))
            nc.replace_all_uses_with(primal)
            gu.value_map[call] = primal
            gu.original_of[primal] = call
            nc.erase()
        elif got != VOID:
            self.t[call] = result  # the original call stays for the primal
        elif ret == VOID:
            gu.value_map.pop(call, None)
            nc.erase()  # it computes the primal outputs too

    def _defined(self, call: CallBase, fn: Function | None) -> None:
        """A call to a function that stayed a call (`fn`, or None through a function
        pointer): call its forward derivative, once for every lane (each
        differentiated argument followed by its tangent or shadow of each lane)."""
        gu = self.gu
        if id(call) in self.calls_done:
            return
        self.calls_done.add(id(call))
        if fn is not None and fn.function_type.vararg:
            raise gu.error(call, f"cannot differentiate a call to the variadic function '{fn.name}'",
                           HINT_CUSTOM.format(name=fn.name))
        here = self.lane
        classes = []
        args: list[Value] = []
        for a in call.args:
            args.append(self.new(a))
            shadowed = gu.activity.has_shadow(a) or null_pointer(a)  # a null position: written through
            floating = not isinstance(a.type, PointerType) and carries_float(a.type)
            if not shadowed and not (floating and any(a in lane.t for lane in self.lanes)):
                classes.append(ArgActivity.CONST)
                continue
            classes.append(ArgActivity.DUPNONEED if a in self.noneed else ArgActivity.DUP)
            for k in range(len(self.lanes)):
                self.enter_lane(k)
                args.append(gu.shadow(a) if shadowed else self.tangent(a))
        self.enter_lane(here)
        active_return = self.active(call) or (carries_pointer(call.type) and gu.activity.has_shadow(call))
        assert gu.derivatives is not None
        site = call_site_context(gu.type_analysis, gu.original, call, fn) \
            if fn is not None and not fn.is_declaration else None
        sig = Signature(tuple(classes), active_return, width=len(self.lanes), parallel=gu.parallel,
                        runtime_activity=gu.runtime_activity, error=self.error, site=site)
        nc = self.new(call)
        assert isinstance(nc, CallBase)
        b = self.b
        b.position_before(nc)
        if fn is None:  # all candidates' derivatives have one type: any of them describes the call
            targets = [(address, gu.derivatives.forward(body, sig))
                       for address, body in reachable_definitions(gu, call, has_rule)]
            callee = function_of_pointer(gu.module, b, self.new(call.callee),
                                         [(address, fd.function) for address, fd in targets])
            fd = targets[0][1]
        else:
            fd = gu.derivatives.forward(fn, sig)
            callee = fd.function
        label = gu.label(call)
        ftype = fd.function.function_type
        if isinstance(nc, Invoke):
            result = b.invoke(callee, args, nc.normal_dest, nc.unwind_dest, f"{label}.fwd", fn_type=ftype)
        else:
            result = b.call(callee, args, f"{label}.fwd" if ftype.ret != VOID else "", fn_type=ftype)
        b.position_after(result)  # type: ignore[arg-type]
        primal: Value = result
        if fd.pair:
            primal = b.extract_value(result, 0, label if call.name is None else "")
            for k, lane in enumerate(self.lanes):
                index = [1] if len(self.lanes) == 1 else [1, k]
                derivative = b.extract_value(result, index, f"d.{label}")
                if carries_pointer(call.type):
                    gu.lane_maps[k][0][call] = derivative
                else:
                    lane.t[call] = derivative
        if nc.uses:
            nc.replace_all_uses_with(primal)
        gu.value_map[call] = primal
        gu.original_of[primal] = call
        nc.erase()

    # -- returns ------------------------------------------------------------------------------
    def _return(self, ret: Ret) -> None:
        if not self.fd.pair:
            return
        gu = self.gu
        value = ret.value
        assert value is not None
        nret = self.new(ret)
        self.b.position_before(nret)  # type: ignore[arg-type]
        pair = self.b.insert_value(self.b.const_undef(self.fd.function.function_type.ret), self.new(value), 0, "ret")
        for k in range(len(self.lanes)):
            self.enter_lane(k)
            d = gu.shadow(value) if carries_pointer(value.type) else self.tangent(value)
            pair = self.b.insert_value(pair, d, [1] if len(self.lanes) == 1 else [1, k], "ret")
        self.enter_lane(0)
        self.b.ret(pair)
        nret.erase()  # type: ignore[union-attr]


class _ForwardEnv:
    """Rule expressions' values in forward mode: everything is at hand."""

    def __init__(self, fw: _Tangents, call: CallBase) -> None:
        self.fw, self.call = fw, call

    def argument(self, index: int) -> Value:
        return self.fw.new(self.call.args[index])

    def result(self) -> Value:
        return self.fw.new(self.call)

    def forward_call(self, function: str, params: tuple[str, ...]) -> Value | None:
        return None


# -- moves -----------------------------------------------------------------------------------------


def _same_op(fw: _Tangents, inst: Instruction) -> Value | None:
    """The instruction itself applied to the tangents of its floating operands
    (casts between float types, vector and aggregate moves, freeze): linear in them."""
    from enzc.ir.transforms import clone_instruction

    if not any(fw.has_tangent(o) for o in inst.operands if carries_float(o.type)):
        return None
    d = clone_instruction(inst, debug=False)  # inst is the original's: its records name its values
    for k, o in enumerate(inst.operands):
        if carries_float(o.type):
            d.set_operand(k, fw.tangent(o))
        elif not isinstance(o, Constant):
            d.set_operand(k, fw.new(o))
    return fw.b.insert(d, "d." + fw.gu.label(inst))


def _cast(fw: _Tangents, inst: Instruction) -> Value | None:
    if inst.opcode in ("fpext", "fptrunc") or (
            inst.opcode == "bitcast" and inst.operand(0).type.scalar == inst.type.scalar):
        return _same_op(fw, inst)
    raise fw.gu.error(inst, f"cannot differentiate the cast '{inst.opcode}' of an active value "
                            f"({inst.operand(0).type} to {inst.type})",
                      "avoid reinterpreting floating-point bits in differentiated code")


def _select(fw: _Tangents, inst: Instruction) -> Value | None:
    t, f = inst.operand(1), inst.operand(2)
    if not (fw.has_tangent(t) or fw.has_tangent(f)):
        return None
    return fw.b.select(fw.new(inst.operand(0)), fw.tangent(t), fw.tangent(f), "d.sel")


def _load(fw: _Tangents, inst: Instruction) -> Value | None:
    assert isinstance(inst, Load)
    if not fw.gu.activity.has_shadow(inst.ptr):
        return None
    shadow = fw.gu.shadow(inst.ptr)
    fw.b.position_after(fw.new(inst))  # type: ignore[arg-type]
    d = fw.b.load(inst.type, shadow, "d." + fw.gu.label(inst), align=inst.align)
    return masked_read(fw.b, inactive_at_run_time(fw.gu, fw.b, shadow, inst.ptr), d)


_HANDLERS = {
    **ARITHMETIC_TANGENTS,
    "freeze": _same_op,
    "fpext": _cast,
    "fptrunc": _cast,
    "bitcast": _cast,
    "select": _select,
    "extractvalue": _same_op,
    "insertvalue": _same_op,
    "extractelement": _same_op,
    "insertelement": _same_op,
    "shufflevector": _same_op,
    "load": _load,
}
