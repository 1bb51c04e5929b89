"""The reverse-pass visitor: adjoint code for one active instruction, by opcode.

Each handler runs with the builder in the instruction's reverse block. It takes the
adjoint of the result (`take_adjoint` loads and clears it), fetches the forward
values it needs with `lookup`, and adds partial adjoints into the operands
(`add_adjoint`, which ignores constants and inactive operands). Memory adjoints
go through shadows: a load's adjoint is added to its shadow slot; a store moves
its shadow slot's adjoint to the stored value and zeroes the slot.
"""

from __future__ import annotations

from typing import Callable, NoReturn

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import Alloca, CallBase, Instruction, Load, Store
from enzc.ir.libc import declare
from enzc.ir.module import Function, GlobalVariable
from enzc.ir.types import I1, I8, I64, PTR, VOID, FloatType, IntType, PointerType, Type, VectorType
from enzc.ir.values import ConstantAggregate, ConstantInt, ConstantSimple, ConstantSplat, InlineAsm, Use, Value

from enzc.ad.analysis.activity import carries_float
from enzc.ad.analysis.calls import CallKind, callee_name, classify, writes_memory
from enzc.ad.analysis.globals_shadow import base_global, is_inactive_global
from enzc.ad.analysis.integer_addresses import integer_address
from enzc.ad.analysis.memory_facts import into_zero_globals, underlying_object
from enzc.ad.analysis.runtime_activity import checked_write, inactive_at_run_time, masked_length, masked_read
from enzc.ad.analysis.uses import derived_addresses, is_address_step, reaches
from enzc.ad.memory.heap import reverse_allocation
from enzc.ad.memory.memtypes import memcpy_adjoint
from enzc.ad.rules.blas_reverse import reverse_blas_call
from enzc.ad.rules.complex import reverse_complex
from enzc.ad.rules.custom import reverse_custom_call
from enzc.ad.rules.dsl import emit_scaled
from enzc.ad.rules.dsl import PARAMS, intrinsic
from enzc.ad.rules.library_hints import library_hint
from enzc.ad.rules.reuse import equal_forward_call
from enzc.ad.rules.table import has_rule, rule_for
from enzc.ad.synth.call_derivatives import reverse_call
from enzc.ad.synth.adjoint_zero import adjoint_zero
from enzc.ad.synth.gradient_utils import GradientUtils, derived_from_null
from enzc.ad.synth.mpi_calls import reverse_mpi
from enzc.ad.synth.parallel_adjoints import accumulate_shadow, reverse_atomic
from enzc.ad.synth.parallel_region import reverse_fork
from enzc.ad.typeanalysis.typetree import Kind

Handler = Callable[[GradientUtils, Instruction], None]

HINT_CUSTOM = ("provide a custom derivative (__enzyme_register_gradient_{name}) or mark it inactive "
               "(__enzyme_inactivefn)")


def fwd(gu: GradientUtils, v: Value) -> Value:
    """The forward value of original `v` at the current reverse position."""
    return gu.lookup(gu.new_value(v))


# -- arithmetic ------------------------------------------------------------------------------


def _fadd(gu: GradientUtils, inst: Instruction) -> None:
    d = gu.take_adjoint(inst)
    gu.add_adjoint(inst.operand(0), d)
    gu.add_adjoint(inst.operand(1), d)


def _fsub(gu: GradientUtils, inst: Instruction) -> None:
    d = gu.take_adjoint(inst)
    gu.add_adjoint(inst.operand(0), d)
    if gu.has_adjoint(inst.operand(1)):
        gu.add_adjoint(inst.operand(1), gu.b.fneg(d, "d.neg"))


def _fmul(gu: GradientUtils, inst: Instruction) -> None:
    d = gu.take_adjoint(inst)
    a, c = inst.operand(0), inst.operand(1)
    b = gu.b
    if gu.has_adjoint(a):
        gu.add_adjoint(a, b.fmul(d, fwd(gu, c), "d.mul"))
    if gu.has_adjoint(c):
        gu.add_adjoint(c, b.fmul(d, fwd(gu, a), "d.mul"))


def _fdiv(gu: GradientUtils, inst: Instruction) -> None:
    d = gu.take_adjoint(inst)
    a, c = inst.operand(0), inst.operand(1)
    b = gu.b
    if not (gu.has_adjoint(a) or gu.has_adjoint(c)):
        return
    den = fwd(gu, c)
    t = b.fdiv(d, den, "d.div")
    gu.add_adjoint(a, t)
    if gu.has_adjoint(c):
        gu.add_adjoint(c, b.fneg(b.fmul(t, b.fdiv(fwd(gu, a), den, "q"), "d.den"), "d.neg"))


def _frem(gu: GradientUtils, inst: Instruction) -> None:
    d = gu.take_adjoint(inst)
    a, c = inst.operand(0), inst.operand(1)
    gu.add_adjoint(a, d)
    if gu.has_adjoint(c):
        b = gu.b
        q = b.fdiv(fwd(gu, a), fwd(gu, c), "q")
        tq = b.call(intrinsic(gu.module, "trunc", q.type, []), [q], "q.trunc")
        gu.add_adjoint(c, b.fneg(b.fmul(d, tq, "d.rem"), "d.neg"))


def _fneg(gu: GradientUtils, inst: Instruction) -> None:
    d = gu.take_adjoint(inst)
    if gu.has_adjoint(inst.operand(0)):
        gu.add_adjoint(inst.operand(0), gu.b.fneg(d, "d.neg"))


def _passthrough(gu: GradientUtils, inst: Instruction) -> None:
    """freeze: the adjoint flows to the operand unchanged."""
    gu.add_adjoint(inst.operand(0), gu.take_adjoint(inst))


def _fp_cast(gu: GradientUtils, inst: Instruction) -> None:
    d = gu.take_adjoint(inst)
    src = inst.operand(0)
    if gu.has_adjoint(src):
        back = "fptrunc" if inst.opcode == "fpext" else "fpext"
        gu.add_adjoint(src, gu.b.cast(back, d, src.type, "d.cast"))


def _cast(gu: GradientUtils, inst: Instruction) -> None:
    match inst.opcode:
        case "fpext" | "fptrunc":
            _fp_cast(gu, inst)
        case "bitcast" | "addrspacecast" if isinstance(inst.type.scalar, PointerType):
            pass  # pointer casts: their shadows are computed in the forward pass
        case "bitcast" if inst.operand(0).type.scalar == inst.type.scalar:
            _passthrough(gu, inst)
        case _:
            raise gu.error(inst, f"cannot differentiate the cast '{inst.opcode}' of an active value "
                                 f"({inst.operand(0).type} to {inst.type})",
                           "avoid reinterpreting floating-point bits in differentiated code")


def _select(gu: GradientUtils, inst: Instruction) -> None:
    if not carries_float(inst.type):
        return  # a select of pointers: handled by shadows
    d = gu.take_adjoint(inst)
    t, f = inst.operand(1), inst.operand(2)
    if not (gu.has_adjoint(t) or gu.has_adjoint(f)):
        return
    b = gu.b
    c = fwd(gu, inst.operand(0))
    zero = b.const_zero(inst.type)
    if gu.has_adjoint(t):
        gu.add_adjoint(t, b.select(c, d, zero, "d.sel"))
    if gu.has_adjoint(f):
        gu.add_adjoint(f, b.select(c, zero, d, "d.sel"))


# -- aggregates and vectors -------------------------------------------------------------------


def _extractvalue(gu: GradientUtils, inst: Instruction) -> None:
    if not carries_float(inst.type):
        return  # pointers out of an aggregate: shadows are forward work
    d = gu.take_adjoint(inst)
    agg = inst.operand(0)
    if gu.has_adjoint(agg):
        b = gu.b
        addr = b.gep(agg.type, gu.adjoint_slot(agg), [0, *inst.indices], "d.elt", inbounds=True)  # type: ignore[attr-defined]
        gu.accumulate(addr, inst.type, d)


def _insertvalue(gu: GradientUtils, inst: Instruction) -> None:
    if not carries_float(inst.type):
        return
    d = gu.take_adjoint(inst)
    agg, val = inst.operand(0), inst.operand(1)
    b = gu.b
    idx = list(inst.indices)  # type: ignore[attr-defined]
    if gu.has_adjoint(val):
        gu.add_adjoint(val, b.extract_value(d, idx, "d.elt"))
    if gu.has_adjoint(agg):
        gu.add_adjoint(agg, b.insert_value(d, b.const_zero(val.type), idx, "d.rest"))


def _extractelement(gu: GradientUtils, inst: Instruction) -> None:
    d = gu.take_adjoint(inst)
    vec = inst.operand(0)
    if gu.has_adjoint(vec):
        b = gu.b
        idx = fwd(gu, inst.operand(1))
        delta = b.insert_element(b.const_zero(vec.type), d, idx, "d.lane")
        gu.add_adjoint(vec, delta)


def _insertelement(gu: GradientUtils, inst: Instruction) -> None:
    d = gu.take_adjoint(inst)
    vec, val = inst.operand(0), inst.operand(1)
    b = gu.b
    idx = fwd(gu, inst.operand(2))
    if gu.has_adjoint(val):
        gu.add_adjoint(val, b.extract_element(d, idx, "d.lane"))
    if gu.has_adjoint(vec):
        gu.add_adjoint(vec, b.insert_element(d, b.const_zero(val.type), idx, "d.rest"))


def _shufflevector(gu: GradientUtils, inst: Instruction) -> None:
    d = gu.take_adjoint(inst)
    a, c = inst.operand(0), inst.operand(1)
    n = a.type.count  # type: ignore[attr-defined]
    lanes = _mask_lanes(inst.operand(2), inst.type.count)  # type: ignore[attr-defined]
    if lanes is None:
        raise gu.error(inst, "cannot differentiate a shufflevector with a non-constant mask")
    b = gu.b
    acc = {0: adjoint_zero(a.type), 1: adjoint_zero(c.type)}
    for j, m in enumerate(lanes):
        if m is None:
            continue
        src, lane = (0, m) if m < n else (1, m - n)
        part = b.extract_element(d, j, "d.lane")
        old = b.extract_element(acc[src], lane, "d.old")
        acc[src] = b.insert_element(acc[src], b.fadd(old, part, "d.sum"), lane, "d.acc")
    gu.add_adjoint(a, acc[0])
    gu.add_adjoint(c, acc[1])


def _mask_lanes(mask: Value, count: int) -> list[int | None] | None:
    match mask:
        case ConstantAggregate(elements=els):
            return [e.value if isinstance(e, ConstantInt) else None for e in els]
        case ConstantSimple(keyword="zeroinitializer"):
            return [0] * count
        case ConstantSimple():
            return [None] * count
        case ConstantSplat(element=ConstantInt() as e):
            return [e.value] * count
    return None


# -- memory -------------------------------------------------------------------------------------


def _load(gu: GradientUtils, inst: Instruction) -> None:
    assert isinstance(inst, Load)
    if not gu.has_adjoint(inst):
        return  # a pointer load: its shadow is loaded in the forward pass
    d = gu.take_adjoint(inst)
    shadow = gu.lookup(gu.shadow(inst.ptr))
    target, inactive = checked_write(gu, gu.b, shadow, inst.ptr, inst.type, reverse=True)
    accumulate_shadow(gu, inst, target, inst.type, d, inst.align, private=inactive is None)


def _store(gu: GradientUtils, inst: Instruction) -> None:
    assert isinstance(inst, Store)
    value = inst.value
    if not gu.activity.has_shadow(inst.ptr):
        return
    if not carries_float(value.type):
        return
    b = gu.b
    shadow = gu.lookup(gu.shadow(inst.ptr))
    target, inactive = checked_write(gu, b, shadow, inst.ptr, value.type, reverse=True)
    old = b.load(value.type, target, "d.mem", align=inst.align)
    b.store(b.const_zero(value.type), target, align=inst.align)
    gu.add_adjoint(value, masked_read(b, inactive, old))


def check_store_forward(gu: GradientUtils, inst: Store) -> None:
    """Forward-pass duties and sanity checks of a store (run before the reverse pass)."""
    act = gu.activity
    value, ptr = inst.value, inst.ptr
    pointer_with_shadow = act.has_shadow(value) or (isinstance(value, Instruction) and derived_from_null(value))
    if pointer_with_shadow and act.has_shadow(ptr):
        sv, sp = gu.shadow(value), gu.shadow(ptr)
        nv = gu.new_value(inst)
        b = IRBuilder()
        b.position_after(nv)  # type: ignore[arg-type]
        _store_shadow_pointer(gu, b, sv, sp, ptr, value.type, inst.align)
        return
    if isinstance(value.type, PointerType) and act.has_shadow(ptr) and not act.has_shadow(value):
        check_unshadowed_pointer_store(gu, inst)
    varied = value in act.varied or act.has_shadow(value)
    if varied and not act.has_shadow(ptr):
        target = underlying_object(ptr)
        if is_inactive_global(base_global(target) or target):
            return  # registered inactive (__enzyme_inactive_global): nothing flows through it
        if isinstance(target, GlobalVariable):
            raise gu.error(inst, f"an active value is written to the global '{target.name}', which has no shadow",
                           f"give it a shadow: void *__enzyme_shadow_global_{target.name}[2] = "
                           f"{{(void *)&{target.name}, (void *)&d_{target.name}}}; (or !enzyme_shadow in IR), "
                           "or mark it inactive (__enzyme_inactive_global)")
        unshadowed_memory_error(gu, inst, "an active value is written to")
    # Integer stores of floating data were given their real type or rejected by `intfloat`.


def unshadowed_memory_error(gu: GradientUtils, inst: Instruction, what: str) -> NoReturn:
    """The error for active data written into memory without a shadow; it names the
    global when the address was loaded from one (`static double *work;` a scratch
    buffer kept between calls), since that pointer is what needs a registered shadow."""
    dest = inst.ptr if isinstance(inst, Store) else inst.args[0]
    holder = _pointer_global(underlying_object(dest))
    if holder is not None:
        raise gu.error(inst, f"{what} memory reached through the pointer in the global '{holder.name}', "
                             "which has no shadow",
                       f"register a shadow pointer beside it (void *__enzyme_shadow_global_{holder.name}[2] = "
                       f"{{(void *)&{holder.name}, (void *)&d_{holder.name}}};) whose buffer the program "
                       "allocates and zeroes with the primal one, or pass the buffer with enzyme_dup")
    raise gu.error(inst, f"{what} memory the AD cannot shadow "
                         "(not a local variable, heap block or enzyme_dup argument it can follow)",
                   "pass that memory as an argument with enzyme_dup, or keep the value local")


def _pointer_global(address: Value) -> GlobalVariable | None:
    """The global `address` was loaded from (through constant offsets into it), if any."""
    if not isinstance(address, Load):
        return None
    holder = base_global(underlying_object(address.ptr))
    return holder if isinstance(holder, GlobalVariable) else None


def _store_shadow_pointer(gu: GradientUtils, b: IRBuilder, shadow_value: Value, shadow_ptr: Value, ptr: Value,
                          ty: Type, align: int | None) -> None:
    """Forward pass: `*shadow_ptr = shadow_value` (under runtime activity not into the
    primal memory when `shadow_ptr` is `ptr`'s own)."""
    b.store(shadow_value, checked_write(gu, b, shadow_ptr, ptr, ty)[0], align=align)


def check_unshadowed_pointer_store(gu: GradientUtils, inst: Store) -> None:
    """A pointer without a shadow (an enzyme_const argument, memory the AD treats as
    inactive) stored into memory that has one: its shadow slot gets nothing, so a later
    read of floats through the stored pointer would accumulate derivatives through a
    stale shadow pointer (a crash, or a write into unrelated memory). A pointer into a
    constant (or registered inactive) global stores that global's zeroed scratch
    shadow instead (when it holds floats). Otherwise an error when type analysis knows
    it points to floats or pointers; integers (an index array), unknown contents (an
    opaque handle) and globals of pointers (vtables) keep the old behaviour: the slot
    is left alone."""
    value = inst.value
    if isinstance(value, ConstantSimple):
        return  # NULL: its shadow is the slot's zero
    kinds = {t.kind for _, t in gu.types.tree_of(value).data0().items()}
    if not kinds & {Kind.FLOAT, Kind.POINTER}:
        return  # integers, or nothing known: an index array, an opaque handle, a string
    if Kind.FLOAT in kinds and into_zero_globals(value):
        b = IRBuilder()
        b.position_after(gu.new_value(inst))  # type: ignore[arg-type]
        b.store(gu.shadow(value), gu.shadow(inst.ptr), align=inst.align)
        return
    if gu.runtime_activity:  # the primal pointer as its own shadow: "inactive", checked where it is used
        b = IRBuilder()
        b.position_after(gu.new_value(inst))  # type: ignore[arg-type]
        _store_shadow_pointer(gu, b, gu.new_value(value), gu.shadow(inst.ptr), inst.ptr, value.type, inst.align)
        return
    target = underlying_object(inst.ptr)
    if isinstance(target, Alloca) and not _slot_feeds_derivatives(gu, target):
        return  # a local slot (-O0 spills) the derivative never reads the shadow of
    where = ("a local object handed to a differentiated call (a C++ expression object holding "
             "pointers to active and constant data)" if isinstance(target, Alloca) else "differentiable memory")
    source = underlying_object(value)
    if isinstance(source, GlobalVariable) and Kind.FLOAT not in kinds:
        return  # a global of pointers (a C++ vtable, a table of tables): left alone
    if isinstance(source, GlobalVariable):
        raise gu.error(inst, f"a pointer into the global '{source.name}', which has no shadow, is stored into "
                             f"{where}: derivatives read back through it would have nowhere to go",
                       f"declare '{source.name}' const if the program never writes it, give it a shadow "
                       "(__enzyme_shadow_global) or mark it inactive (__enzyme_inactive_global)")
    raise gu.error(inst, "a pointer without a shadow (an enzyme_const argument, or memory the AD treats as "
                         f"inactive) is stored into {where}: derivatives read back through it would have "
                         "nowhere to go",
                   "pass that pointer with enzyme_dup (and a zeroed shadow buffer), or the memory it is stored "
                   "into as enzyme_const")


def _slot_feeds_derivatives(gu: GradientUtils, alloca: Alloca) -> bool:
    """Whether derivative code reads the shadow of what is stored in local `alloca`:
    it (or an address into it) is an argument of an active call, or is itself
    stored into a local object that is (an Eigen `Solve` holding the address of a
    `Map`), or a pointer loaded back from it reads or writes active data (the
    `Map`'s data pointer, reloaded for a dot product): with a null shadow slot,
    that derivative would accumulate through address zero."""
    seen: set[int] = set()
    work = [alloca]
    while work:
        slot = work.pop()
        if id(slot) in seen:
            continue
        seen.add(id(slot))
        if _passed_to_active_call(gu, slot):
            return True
        for address in derived_addresses(slot):
            for use in address.uses:
                user = use.user
                if isinstance(user, Store) and use.index == 0:
                    container = underlying_object(user.ptr)
                    if isinstance(container, Alloca):
                        work.append(container)
                elif isinstance(user, Load) and isinstance(user.type, PointerType) and _reads_active(gu, user):
                    return True
    return False


def _reads_active(gu: GradientUtils, pointer: Value) -> bool:
    """Whether an address computed from `pointer` is read for derivatives (a varied
    load) or written with active data."""
    act = gu.activity
    for address in derived_addresses(pointer):
        for use in address.uses:
            user = use.user
            if isinstance(user, Load) and user.ptr is address and user in act.varied:
                return True
            if isinstance(user, Store) and use.index == 1 and (user.value in act.varied or act.has_shadow(user.value)):
                return True
    return False


def _passed_to_active_call(gu: GradientUtils, alloca: Alloca) -> bool:
    """Whether `alloca` (or an address into it) is an argument of an active call: the
    callee's derivative then reads the shadows of the pointers stored in it."""
    def hit(use: Use) -> bool:
        user = use.user
        if not (isinstance(user, CallBase) and use.index < len(user.args)):
            return False
        callee = user.called_function
        intrinsic = callee is not None and (callee.name or "").startswith("llvm.")
        return gu.activity.is_active_instruction(user) and not intrinsic

    return reaches(alloca, is_address_step, hit)


# -- calls ------------------------------------------------------------------------------------------


class _CallEnv:
    def __init__(self, gu: GradientUtils, call: CallBase) -> None:
        self.gu, self.call = gu, call

    def argument(self, index: int) -> Value:
        return fwd(self.gu, self.call.args[index])

    def result(self) -> Value:
        return fwd(self.gu, self.call)

    def forward_call(self, function: str, params: tuple[str, ...]) -> Value | None:
        args = [self.call.args[PARAMS.index(p)] for p in params]
        found = equal_forward_call(self.gu, function, args, self.call)
        return fwd(self.gu, found) if found is not None else None


def _call(gu: GradientUtils, inst: Instruction) -> None:
    assert isinstance(inst, CallBase)
    name = callee_name(inst)
    kind = classify(inst, has_rule)
    match kind:
        case CallKind.INACTIVE | CallKind.MIRRORED:
            return  # a mirrored call was repeated on the shadows in the forward pass
        case CallKind.RULE:
            _call_rule(gu, inst, name or "")
        case CallKind.MEMSET:
            if gu.activity.has_shadow(inst.args[0]):
                _zero_shadow(gu, inst.args[0], inst.args[2])
        case CallKind.MEMCPY:
            _memcpy(gu, inst)
        case CallKind.ALLOC:
            reverse_allocation(gu, inst)
        case CallKind.CUSTOM:
            reverse_custom_call(gu, inst)
        case CallKind.BLAS:
            reverse_blas_call(gu, inst)
        case CallKind.UNKNOWN:
            _unknown_call(gu, inst, name)


def _call_rule(gu: GradientUtils, inst: CallBase, name: str) -> None:
    rule = rule_for(name)
    assert rule is not None
    if not gu.has_adjoint(inst):
        return
    if rule.complex_op is not None:
        reverse_complex(gu, inst, rule.complex_op)
        return
    d = gu.take_adjoint(inst)
    env = _CallEnv(gu, inst)
    for i, arg in enumerate(inst.args):
        if not gu.has_adjoint(arg):
            continue
        tree = rule.partial(i)
        if tree is None:
            continue
        gu.add_adjoint(arg, emit_scaled(tree, d, gu.b, gu.module, inst.type, env))


def _memcpy(gu: GradientUtils, inst: CallBase) -> None:
    dst, src = inst.args[0], inst.args[1]
    act = gu.activity
    if not act.has_shadow(dst):
        if act.has_shadow(src):
            unshadowed_memory_error(gu, inst, "active memory is copied into")
        return
    if not act.has_shadow(src):
        _zero_shadow(gu, dst, inst.args[2])  # constant data overwrote the destination
        return
    memcpy_adjoint(gu, inst)


def _length(gu: GradientUtils, length: Value) -> Value:
    n = fwd(gu, length)
    return n if n.type == I64 else gu.b.zext(n, I64, "n")


def _zero_shadow(gu: GradientUtils, dst: Value, length: Value) -> None:
    """The reverse of overwriting memory with inactive data: its adjoint is dropped."""
    b = gu.b
    shadow = gu.lookup(gu.shadow(dst))
    inactive = inactive_at_run_time(gu, b, shadow, dst, reverse=True)
    n = masked_length(b, inactive, _length(gu, length))
    b.call(declare(gu.module, "llvm.memset.p0.i64"), [shadow, ConstantInt(I8, 0), n, ConstantInt(I1, 0)])


def _unknown_call(gu: GradientUtils, inst: CallBase, name: str | None) -> None:
    if reverse_fork(gu, inst) or reverse_mpi(gu, inst) or reverse_call(gu, inst):
        return  # an OpenMP region's reverse team, an MPI transfer's, or a defined callee's reverse
    act = gu.activity
    fn = inst.called_function
    shadow_args = [a for a in inst.args if act.has_shadow(a)]
    result_active = gu.has_adjoint(inst)
    writes = writes_memory(inst, gu.module)
    if not result_active and not ((shadow_args or act.passes_varied(inst)) and writes):
        return  # nothing active flows out of the call
    shown = name or "an indirect callee"
    if isinstance(fn, Function) and not fn.is_declaration:
        raise gu.error(inst, f"call to non-inlined function '{shown}' is not supported yet",
                       "let the optimizer inline it (static inline / always_inline), "
                       + HINT_CUSTOM.format(name=shown))
    if fn is None and isinstance(inst.callee, InlineAsm):
        raise gu.error(inst, "cannot differentiate inline assembly that may be active",
                       "write the computation in C (a builtin or a plain expression), or put the asm in "
                       "a function of its own with a custom derivative (__enzyme_register_gradient_NAME)")
    if fn is None:
        raise gu.error(inst, "cannot differentiate an indirect call that may be active",
                       "call the function directly so it can be inlined")
    raise gu.error(inst, f"cannot differentiate call to external function '{shown}' ({_c_signature(fn)})",
                   library_hint(shown) or HINT_CUSTOM.format(name=shown))


def _c_signature(fn: Function) -> str:
    def c(t) -> str:
        match t:
            case FloatType(kind="double"):
                return "double"
            case FloatType(kind="float"):
                return "float"
            case IntType(bits=32):
                return "int"
            case IntType(bits=64):
                return "long"
            case _ if t == PTR:
                return "void *"
            case VectorType():
                return str(t)
        return str(t)

    params = ", ".join(c(p) for p in fn.function_type.params) or "void"
    return f"{c(fn.function_type.ret) if fn.function_type.ret != VOID else 'void'} {fn.name}({params})"


def _nothing(gu: GradientUtils, inst: Instruction) -> None:
    """Pointer arithmetic, allocas, returns: no adjoint (shadows and seeds are forward work)."""


def _integer_address(gu: GradientUtils, inst: Instruction) -> None:
    """A pointer made by arithmetic on another's bits (`integer_addresses`): no
    adjoint, its shadow is forward work; any other `inttoptr` is an error."""
    if integer_address(inst) is None:
        _unsupported(gu, inst)


def _unsupported(gu: GradientUtils, inst: Instruction) -> None:
    raise gu.error(inst, f"cannot differentiate the instruction '{inst.opcode}' on active values",
                   "restructure the code, or mark the function inactive (__enzyme_inactivefn)")


HANDLERS: dict[str, Handler] = {
    "fadd": _fadd,
    "fsub": _fsub,
    "fmul": _fmul,
    "fdiv": _fdiv,
    "frem": _frem,
    "fneg": _fneg,
    "freeze": _passthrough,
    "fpext": _cast,
    "fptrunc": _cast,
    "bitcast": _cast,
    "addrspacecast": _cast,
    "select": _select,
    "extractvalue": _extractvalue,
    "insertvalue": _insertvalue,
    "extractelement": _extractelement,
    "insertelement": _insertelement,
    "shufflevector": _shufflevector,
    "load": _load,
    "store": _store,
    "atomicrmw": reverse_atomic,
    "call": _call,
    "invoke": _call,  # allocations (C++ `new` with cleanups); other active invokes are rejected there
    "getelementptr": _nothing,
    "inttoptr": _integer_address,
    "alloca": _nothing,
    "ret": _nothing,
}


def reverse_instruction(gu: GradientUtils, inst: Instruction) -> None:
    """Emit the adjoint code of active `inst` at the builder's position."""
    HANDLERS.get(inst.opcode, _unsupported)(gu, inst)

