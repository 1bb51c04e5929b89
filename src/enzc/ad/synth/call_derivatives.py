"""Active calls to defined functions: the augmented forward call and the reverse call.

At a call `r = g(a, p)` that can carry a derivative, the caller's forward pass calls
`augmented_g(a, p, p')` (p' the caller's shadow of p), which runs g's forward pass
and returns `{tape, r}`; the tape is an ordinary forward value of the caller, so
inside loops `lookup` caches one tape per iteration. At the call's place in the
caller's reverse pass, `reverse_g(a, p, p', d_r, tape)` runs g's reverse pass and
returns the adjoints of the active by-value arguments, which are added to the
adjoints of the actual arguments. The pair is made once per (g, signature) by
`split_mode` and reused by every call site (see `DerivativeCache.split`).

The callee's signature comes from the caller's activity: a pointer argument with a
shadow is `dup`, a floating argument with an adjoint is `out`, anything else
`const`; the return is active when the call's result has an adjoint.
"""

from __future__ import annotations


from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import Call, CallBase, Instruction, Invoke, Ret
from enzc.ir.module import Function
from enzc.ir.types import PTR, VOID, FunctionType, PointerType
from enzc.ir.values import InlineAsm, Value

from enzc.ad.analysis.activity import ArgActivity, carries_pointer
from enzc.ad.analysis.calls import CallKind, classify
from enzc.ad.analysis.distinct_shadows import distinct_shadow_pairs
from enzc.ad.analysis.memory_facts import underlying_object
from enzc.ad.memory.fnptr import PAIR, reachable_definitions, shadow_of_pointer
from enzc.ad.rules.table import has_rule
from enzc.ad.synth.gradient_utils import GradientUtils, null_pointer
from enzc.ad.synth.lanes import each_lane, lane_shadows
from enzc.ad.synth.site_types import call_site_context
from enzc.ad.synth.signature import CallRecord, Signature, augmented_type, reverse_type

HINT = ("let the optimizer inline it (static inline / always_inline), provide a custom derivative "
        "(__enzyme_register_gradient_{name}) or mark it inactive (__enzyme_inactivefn)")


def differentiable_callee(call: CallBase) -> Function | None:
    """The defined function `call` calls directly, if the engine derives it."""
    fn = call.called_function
    if not isinstance(fn, Function) or fn.is_declaration:
        return None
    if classify(call, has_rule) is not CallKind.UNKNOWN:
        return None
    return fn


def callee_signature(gu: GradientUtils, call: CallBase) -> Signature:
    args = []
    for a in call.args:
        if gu.activity.has_shadow(a) or null_pointer(a):  # a null position: the callee may write there
            args.append(ArgActivity.DUP)
        elif gu.has_adjoint(a):
            args.append(ArgActivity.OUT)
        else:
            args.append(ArgActivity.CONST)
    shadow_return = carries_pointer(call.type) and gu.activity.has_shadow(call)
    shadowed = {i for i, a in enumerate(args) if a is ArgActivity.DUP}
    fn = call.called_function
    site = call_site_context(gu.type_analysis, gu.original, call, fn) \
        if isinstance(fn, Function) and not fn.is_declaration else None
    return Signature(tuple(args), gu.has_adjoint(call) or shadow_return, stable_args(gu, call), width=gu.width,
                     parallel=gu.parallel, distinct=gu.memory.distinct_pairs(list(call.args)),
                     runtime_activity=gu.runtime_activity,
                     distinct_shadows=distinct_shadow_pairs(list(call.args), shadowed, gu.distinct_shadow_args),
                     site=site)


def stable_args(gu: GradientUtils, call: CallBase) -> frozenset[int]:
    """Pointer arguments into memory the caller never writes and that outlives the
    callee's reverse (Enzyme's "uncacheable arguments", inverted): the callee's
    reverse may reload through them instead of caching."""
    out = []
    for i, a in enumerate(call.args):
        if isinstance(a.type, PointerType):
            target = underlying_object(a)
            if gu.outlives_caller_writes(target) and gu.never_written(target):
                out.append(i)
    return frozenset(out)


def forward_call(gu: GradientUtils, call: CallBase) -> None:
    """Replace the forward clone of active `call` by a call of the augmented forward."""
    if not gu.activity.is_active_instruction(call) or gu.derivatives is None:
        return
    if call.called_function is None and not isinstance(call.callee, InlineAsm):
        _forward_indirect(gu, call)
        return
    fn = differentiable_callee(call)
    if fn is None:
        return  # libraries and unknown callees: the reverse visitor decides (or rejects)
    if fn.function_type.vararg:
        raise gu.error(call, f"cannot differentiate a call to the variadic function '{fn.name}'",
                       HINT.format(name=fn.name))
    sig = callee_signature(gu, call)
    split = gu.derivatives.split(fn, sig)
    b = _builder_at(gu, call)
    result = _augmented_call(gu, b, call, split.augmented, _forward_args(gu, call, sig),
                             split.augmented.function_type)
    _finish_forward(gu, call, result, CallRecord(sig, split.reverse, split.reverse.function_type, result))


def _forward_indirect(gu: GradientUtils, call: CallBase) -> None:
    """Through a function pointer: call the augmented function of its shadow pair."""
    sig = callee_signature(gu, call)
    assert gu.derivatives is not None
    targets = [(address, gu.derivatives.split(body, sig))
               for address, body in reachable_definitions(gu, call, has_rule)]
    b = _builder_at(gu, call)
    pair = shadow_of_pointer(gu.module, b, gu.new_value(call.callee), targets)
    pair.name = gu.label(call) + ".fn.shadow"
    probe = targets[0][0]
    aug_t, rev_t = augmented_type(probe, sig), reverse_type(probe, sig)
    aug = b.load(PTR, pair, "fn.aug")
    result = _augmented_call(gu, b, call, aug, _forward_args(gu, call, sig), aug_t)
    _finish_forward(gu, call, result, CallRecord(sig, pair, rev_t, result))


def _builder_at(gu: GradientUtils, call: CallBase) -> IRBuilder:
    nc = gu.new_value(call)
    if isinstance(nc, Invoke):
        _check_unwind_path(gu, call)
    elif not isinstance(nc, Call):
        raise gu.error(call, f"cannot differentiate a '{call.opcode}' of a function", "call it with a plain call")
    b = IRBuilder()
    b.position_before(nc)
    return b


def _augmented_call(gu: GradientUtils, b: IRBuilder, call: CallBase, callee: Value, args: list[Value],
                    fn_type: FunctionType) -> Instruction:
    """The augmented call at `call`'s place: an `invoke` with the same destinations
    when `call` is one (C++ with exceptions: if the callee throws, the caller's
    cleanups still run and the exception leaves the derivative)."""
    name = f"{gu.label(call)}.aug"
    nc = gu.new_value(call)
    if isinstance(nc, Invoke):
        return b.invoke(callee, args, nc.normal_dest, nc.unwind_dest, name, fn_type=fn_type)
    return b.call(callee, args, name, fn_type=fn_type)


def _check_unwind_path(gu: GradientUtils, call: CallBase) -> None:
    """An exception from an active call must leave the derivative: the reverse pass
    cannot run the reverse of a callee that stopped half-way. A handler that catches
    it and goes on to a `ret` (try/catch inside the differentiated code) is rejected."""
    assert isinstance(call, Invoke)
    seen: set[int] = set()
    stack = [call.unwind_dest]
    while stack:
        block = stack.pop()
        if id(block) in seen:
            continue
        seen.add(id(block))
        term = block.terminator
        if isinstance(term, Ret):
            raise gu.error(call, "an exception thrown by this call is caught inside the differentiated code, "
                                 "which then goes on: its derivative cannot be computed",
                           "move the try/catch out of the differentiated function, or make the callee "
                           "noexcept")
        if term is not None:
            stack.extend(term.successors)


def _forward_args(gu: GradientUtils, call: CallBase, sig: Signature) -> list[Value]:
    args: list[Value] = []
    for a, cls in zip(call.args, sig.args):
        args.append(gu.new_value(a))
        if cls.has_shadow:
            args.extend(lane_shadows(gu, a))
    return args


def _finish_forward(gu: GradientUtils, call: CallBase, result: Value, rec: CallRecord) -> None:
    """Replace the primal call by the augmented one's result; keep its tape."""
    nc = gu.new_value(call)
    b = IRBuilder()
    if isinstance(result, Invoke):
        b.position_after_phis(result.normal_dest)  # a block of its own: `preprocess` splits shared ones
    else:
        b.position_after(result)  # type: ignore[arg-type]
    label = gu.label(call)
    if call.type == VOID:
        rec.tape = result
    else:
        rec.tape = b.extract_value(result, 0, f"{label}.tape")
        primal = b.extract_value(result, 1, label if call.name is None else "")
        for k in range(2, len(result.type.elements)):  # type: ignore[attr-defined]
            gu.lane_maps[k - 2][0][call] = b.extract_value(result, k, f"{label}'")  # lane k - 2's shadow
        nc.replace_all_uses_with(primal)
        result = primal
    gu.value_map[call] = result
    gu.original_of[result] = call
    nc.erase()
    gu.call_records[call] = rec


def reverse_call(gu: GradientUtils, call: CallBase) -> bool:
    """Emit the reverse call of `call` at the builder's position; False if the call
    was not prepared by `forward_call` (not a call this module handles)."""
    rec = gu.call_records.get(call)
    if rec is None:
        return False
    sig = rec.signature
    b = gu.b
    args: list[Value] = []
    for a, cls in zip(call.args, sig.args):
        args.append(gu.lookup(gu.new_value(a)))
        if cls.has_shadow:
            args.extend(gu.lookup(s) for s in lane_shadows(gu, a))
    if sig.active_return and not carries_pointer(call.type):
        args.extend(gu.take_adjoint(call) for _ in each_lane(gu))
    args.append(gu.lookup(rec.tape))
    callee = rec.reverse
    if not isinstance(callee, Function):
        callee = b.load(PTR, b.gep(PAIR, gu.lookup(callee), [0, 1], "fn.rev.addr"), "fn.rev")
    res = b.call(callee, args, "" if rec.reverse_type.ret == VOID else "d.call", fn_type=rec.reverse_type)
    outs = [a for a, cls in zip(call.args, sig.args) if cls is ArgActivity.OUT]
    for j, a in enumerate(outs):  # lane k of out argument j: result j * width + k
        for k in each_lane(gu):
            gu.add_adjoint(a, res if len(outs) * gu.width == 1 else b.extract_value(res, j * gu.width + k, "d.arg"))
    return True
