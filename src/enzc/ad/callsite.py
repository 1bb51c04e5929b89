"""Lowering of `__enzyme_autodiff*` calls: markers → signature → call of the derivative.

The first argument names the function (directly, through a cast, or through an
alias). Then each parameter of the function takes one or two call arguments,
optionally preceded by a marker: a load of (or the address of) a global named
`enzyme_dup`, `enzyme_dupnoneed`, `enzyme_const` or `enzyme_out`, the marker
global's constant initializer when the optimizer folded the load, or a
`metadata !"enzyme_*"` operand in IR inputs. Without a marker: integers are
const, floats out, pointers dup (the shadow follows).

ABI details clang produces: a variadic entry point promotes `float` arguments to
`double` (converted back here); a struct result too large for registers comes
back through an `sret` pointer that is the first argument (the function is then
the second); small struct results come back as `{double, double}`, `<2 x float>`,
`double`... — the out adjoints are laid out as the C struct of their types in a
stack slot and reloaded as whatever type the call returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.instructions import CallBase, Cast, Instruction, Invoke, Load, Phi, Select
from enzc.ir.libc import declare
from enzc.ir.metadata import MDString
from enzc.ir.module import Alias, Function, GlobalVariable, Module
from enzc.ir.transforms import rename_incoming
from enzc.ir.types import I1, I8, I64, PTR, VOID, ArrayType, FloatType, IntType, PointerType, StructType, Type
from enzc.ir.values import ConstantExpr, ConstantInt, MetadataOperand, Value

from enzc.ad.analysis.activity import ArgActivity, carries_float
from enzc.ad.analysis.globals_shadow import shadows_to_clear
from enzc.ad.analysis.memory_facts import distinct_pairs, objects_may_alias
from enzc.ad.diagnostics import ad_error
from enzc.ad.entry_results import coerce, layout_offsets, store_struct
from enzc.ad.fwdsplit import forward_split_augment, free_tape, fwdsplit_derivative, note_reverse_tape
from enzc.ad.strided import STRIDED_MARKERS, stride_problem, strided_shadows
from enzc.ad.synth.derivatives import DerivativeCache
from enzc.ad.synth.signature import Signature, out_types
from enzc.ad.typeanalysis.offsets import parse_type_prefix

REVERSE_MARK = "__enzyme_autodiff"
FORWARD_MARK = "__enzyme_fwddiff"
AUGMENT_MARK = "__enzyme_augmentfwd"
SPLIT_REVERSE_MARK = "__enzyme_reverse"
VIRTUAL_REVERSE_MARK = "__enzyme_virtualreverse"
ERROR_ESTIMATE_MARK = "__enzyme_error_estimate"
FWDSPLIT_MARK = "__enzyme_fwdsplit"


class EntryKind(Enum):
    """Which entry point a call is (by the substring of its name)."""

    REVERSE = REVERSE_MARK
    """Combined reverse mode: the derivatives of the `out` arguments."""
    FORWARD = FORWARD_MARK
    """Forward mode: the tangent of the result."""
    ERROR_ESTIMATE = ERROR_ESTIMATE_MARK
    """Forward mode carrying error estimates (`synth/forward_error.py`): the result's error."""
    FWDSPLIT = FWDSPLIT_MARK
    """Forward split mode: the tangent only, the primal's values from a tape (`fwdsplit`)."""
    AUGMENT = AUGMENT_MARK
    """Split reverse mode, first half: runs f, returns the tape."""
    SPLIT_REVERSE = SPLIT_REVERSE_MARK
    """Split reverse mode, second half: takes the tape, returns like REVERSE."""
    VIRTUAL_REVERSE = VIRTUAL_REVERSE_MARK
    """The shadow of a function (a pointer to its {augmented, reverse} pair)."""


FORWARD_KINDS = (EntryKind.FORWARD, EntryKind.ERROR_ESTIMATE, EntryKind.FWDSPLIT)
"""Entry points lowered to a forward derivative (`fwddiffe_f` / `fwderror_f`)."""


def entry_kind(fn: Function | None) -> EntryKind | None:
    name = (fn.name or "") if fn is not None else ""
    return next((k for k in EntryKind if k.value in name), None)

MARKERS: dict[str, ArgActivity] = {
    "enzyme_dup": ArgActivity.DUP,
    "enzyme_dupnoneed": ArgActivity.DUPNONEED,
    "enzyme_dupv": ArgActivity.DUP,
    "enzyme_dupnoneedv": ArgActivity.DUPNONEED,
    "enzyme_const": ArgActivity.CONST,
    "enzyme_out": ArgActivity.OUT,
}
"""Marker global (or metadata string) → argument class."""

PRIMAL_RETURN = "enzyme_primal_return"
"""Before the arguments: also return f's result (reverse: before the adjoints;
forward: `{result, tangent}`)."""

MODIFIERS = ("enzyme_nocache",)
"""Markers that qualify the next one (or the default class): ignored, enzc needs no
promise that the memory is not changed between the split halves."""

RUNTIME_ACTIVITY = "enzyme_runtime_activity"
"""Runtime activity for this call (`Signature.runtime_activity`): accepted before any
argument and after the last, as Enzyme reads it anywhere."""

TAPE_MARKERS = ("enzyme_allocated", "enzyme_tape")
"""Split mode, after the arguments: `enzyme_allocated, bytes` and `enzyme_tape, buffer`
(the tape lives in the caller's buffer)."""

WIDTH = "enzyme_width"
"""Before the arguments: `enzyme_width, N` — N tangents (forward mode) or adjoints
(reverse mode) per argument."""

WIDTH_KINDS = (EntryKind.FORWARD, EntryKind.FWDSPLIT, EntryKind.REVERSE, EntryKind.AUGMENT,
               EntryKind.SPLIT_REVERSE)
"""The entry points that take `enzyme_width` (not `__enzyme_error_estimate`)."""

BATCH_MARKERS = ("enzyme_vector", "enzyme_buffer")
"""`__enzyme_batch` only (with `enzyme_scalar`): one value per lane, a buffer with a lane stride."""

UNSUPPORTED_MARKERS = ("enzyme_shadow_return", "enzyme_noneed", "enzyme_scalar",
                       "enzyme_nofree", "enzyme_const_return", "enzyme_active_return", "enzyme_dup_return",
                       "enzyme_noret")


@dataclass
class EntryCall:
    """One parsed entry-point call."""

    call: CallBase
    function: Function
    signature: Signature
    arguments: list[Value]
    """Arguments for the derivative: each primal, then its shadow for dup ones."""
    sret: Value | None
    trailing: list[Value] = field(default_factory=list)
    """Split mode: the call's arguments after f's (tape markers, tape, return adjoint)."""
    return_primal: bool = False
    """`enzyme_primal_return` was given."""

    def primals(self) -> list[Value]:
        """The value passed for each parameter of the function (shadows left out)."""
        values = iter(self.arguments)
        out = []
        for cls in self.signature.args:
            out.append(next(values))
            for _ in range(self.signature.width if cls.has_shadow else 0):
                next(values)
        return out


def is_entry_point(fn: Function | None) -> bool:
    return entry_kind(fn) is not None


class CallSiteLowering:
    """Finds entry-point calls in a module and replaces them."""

    def __init__(self, module: Module, derivatives: DerivativeCache) -> None:
        self.module = module
        self.derivatives = derivatives
        self.marker_constants = _marker_constants(module)
        self.marker_uses: list[Instruction] = []
        self.runtime_activity = False
        """`--enzc-runtime-activity`: every call as if it carried `enzyme_runtime_activity`."""

    # -- parsing -----------------------------------------------------------------------------
    def parse(self, call: CallBase, caller: Function, kind: EntryKind = EntryKind.REVERSE) -> EntryCall:
        """The entry call's function, signature and arguments. In forward mode a
        `dup` float is followed by its tangent and an unmarked float is `dup`; in
        split mode arguments after f's are kept as `trailing`."""
        forward = kind in FORWARD_KINDS
        args = list(call.args)
        sret = None
        if call.arg_attrs and any(a.startswith("sret") for a in call.arg_attrs[0]):
            sret = args.pop(0)
        if not args:
            raise self._error(call, caller, "the entry point needs the function to differentiate as first argument")
        fn = function_of(args.pop(0))
        if fn is None:
            raise self._error(call, caller, "the first argument of the entry point is not a known function",
                              "pass the function itself, e.g. __enzyme_autodiff((void*)f, ...)")
        if fn.is_declaration:
            raise self._error(call, caller, f"cannot differentiate '{fn.name}': its body is not available",
                              "compile its source with enzcc (or -fembed-bitcode) so the body is linked in")
        classes: list[ArgActivity] = []
        values: list[Value] = []
        pos = 0
        return_primal, width, runtime = False, 1, self.runtime_activity
        while pos < len(args) and self._marker_name(args[pos]) in (PRIMAL_RETURN, WIDTH, RUNTIME_ACTIVITY):
            if self._marker_name(args[pos]) == RUNTIME_ACTIVITY:
                runtime, pos = True, pos + 1
                continue
            if self._marker_name(args[pos]) == PRIMAL_RETURN:
                return_primal, pos = True, pos + 1
                continue
            count = args[pos + 1] if pos + 1 < len(args) else None
            if kind not in WIDTH_KINDS or not isinstance(count, ConstantInt) or count.value < 1:
                raise self._error(call, caller, "enzyme_width takes a constant number of directions, in forward mode "
                                  "(__enzyme_fwddiff) or reverse mode (__enzyme_autodiff, __enzyme_augmentfwd "
                                  "and __enzyme_reverse)",
                                  "write __enzyme_fwddiff((void *)f, enzyme_width, 2, x, dx1, dx2)")
            width, pos = count.value, pos + 2
        params = list(enumerate(fn.function_type.params))
        if _sret_type(fn, self.module) is not None:
            values.extend(self._sret_memory(call, caller, fn, kind, sret, return_primal, width))
            classes.append(ArgActivity.DUP)
            params = params[1:]
        for i, ptype in params:
            if pos >= len(args):
                raise self._error(call, caller, f"too few arguments for '{fn.name}': parameter {i + 1} is missing")
            while pos < len(args) and self._marker_name(args[pos]) in (*MODIFIERS, RUNTIME_ACTIVITY):
                runtime = runtime or self._marker_name(args[pos]) == RUNTIME_ACTIVITY
                pos += 1
            if pos >= len(args):
                raise self._error(call, caller, f"too few arguments for '{fn.name}': parameter {i + 1} is missing")
            marker = self._marker(args[pos])
            if marker is None and (chosen := self._markers_chosen_at_run_time(args[pos])):
                raise self._error(call, caller, f"the class of parameter {i + 1} of '{fn.name}' is chosen at run "
                                  f"time (between {', '.join(chosen)}): a marker must be a constant",
                                  "write the marker in the call itself: one entry-point call per case")
            stride = None
            if marker is not None:
                pos += 1
                if self._marker_name(args[pos - 1]) in STRIDED_MARKERS:
                    problem = stride_problem(args[pos] if pos < len(args) else None, ptype, self._marker_name)
                    if problem is not None:
                        raise self._error(call, caller, f"parameter {i + 1} of '{fn.name}': {problem[0]}", problem[1])
                    stride, pos = args[pos], pos + 1
                if pos >= len(args):
                    raise self._error(call, caller, f"marker without an argument for parameter {i + 1} of '{fn.name}'")
            cls = marker if marker is not None else _default_class(ptype, forward)
            self._check_class(call, caller, fn, i, cls, ptype, forward)
            values.append(self._convert(args[pos], ptype, call, caller, fn, i))
            pos += 1
            if stride is not None:  # one shadow: lane k's at k * stride bytes from it
                if pos >= len(args):
                    raise self._error(call, caller, f"missing shadow for parameter {i + 1} of '{fn.name}'")
                values.extend(strided_shadows(call, args[pos], stride, width))
                pos += 1
                classes.append(cls)
                continue
            for _ in range(width if cls.has_shadow else 0):
                if pos >= len(args):
                    raise self._error(call, caller, f"missing shadow for parameter {i + 1} of '{fn.name}'",
                                      "enzyme_dup takes the value and its shadow (enzyme_width N: N of them)")
                values.append(self._convert(args[pos], ptype, call, caller, fn, i))
                pos += 1
            classes.append(cls)
        while pos < len(args) and self._marker_name(args[pos]) == RUNTIME_ACTIVITY:
            runtime, pos = True, pos + 1
        split = kind in (EntryKind.AUGMENT, EntryKind.SPLIT_REVERSE, EntryKind.FWDSPLIT)
        if pos != len(args) and not split:
            raise self._error(call, caller, f"too many arguments for '{fn.name}' "
                              f"({len(fn.function_type.params)} parameters)")
        ret = fn.function_type.ret
        active_return = (carries_float(ret) and not isinstance(ret, PointerType)) if forward \
            else isinstance(ret, FloatType)
        if return_primal and not (forward or kind is EntryKind.REVERSE):
            raise self._error(call, caller, "enzyme_primal_return is for __enzyme_autodiff and __enzyme_fwddiff",
                              "__enzyme_augmentfwd returns f's result when declared to return {result, tape}")
        sig = Signature(tuple(classes), active_return, return_primal=return_primal and kind is EntryKind.REVERSE,
                        width=width, runtime_activity=runtime, error=kind is EntryKind.ERROR_ESTIMATE)
        entry = EntryCall(call, fn, sig, values, sret, args[pos:])
        entry.return_primal = return_primal
        return entry

    def parse_entry(self, call: CallBase, caller: Function) -> EntryCall:
        """`parse` as the kind of entry point the callee's name says."""
        return self.parse(call, caller, entry_kind(call.called_function) or EntryKind.REVERSE)

    def _sret_memory(self, call: CallBase, caller: Function, fn: Function, kind: EntryKind, sret: Value | None,
                     return_primal: bool, width: int) -> list[Value]:
        """Where `fn`'s struct result (returned through its `sret` parameter) and its
        tangents go: the entry call's own result memory holds [the result, then] the
        tangents, one struct each, as a C struct of them lays them out; a result not
        asked for goes to a stack slot."""
        t = _sret_type(fn, self.module)
        assert t is not None
        if kind not in FORWARD_KINDS:
            raise self._error(call, caller, f"'{fn.name}' returns a struct through memory (sret): reverse mode "
                              "cannot take its adjoint", "return the result through a pointer argument passed "
                              "with enzyme_dup and its shadow holding the adjoint")
        if sret is None:
            raise self._error(call, caller, f"'{fn.name}' returns a struct through memory (sret), but the entry "
                              "point does not", "declare __enzyme_fwddiff to return the struct type "
                              "(with enzyme_primal_return: a struct of the result and its tangent)")
        stride = self.derivatives.layout.alloc_size_of(t)
        b = IRBuilder()
        b.position_before(call)
        if return_primal:
            primal = sret
        else:
            with b.goto_entry_allocas():
                primal = b.alloca(t, name="sret.primal")
        first = 1 if return_primal else 0
        shadows = [b.gep(I8, sret, [(first + k) * stride], "sret.tangent", inbounds=True) if first + k else sret
                   for k in range(width)]
        return [primal, *shadows]

    def _marker(self, v: Value) -> ArgActivity | None:
        name = self._marker_name(v)
        if name in UNSUPPORTED_MARKERS:
            raise ValueError(name)
        return MARKERS.get(name) if name is not None else None

    def _check_class(self, call, caller, fn, i: int, cls: ArgActivity, ptype: Type, forward: bool) -> None:
        if forward:
            if cls is ArgActivity.OUT:
                raise self._error(call, caller, f"enzyme_out on parameter {i + 1} of '{fn.name}' in forward mode",
                                  "pass the value and its tangent with enzyme_dup (enzyme_out is reverse mode)")
            if cls.has_shadow and not (isinstance(ptype, PointerType) or carries_float(ptype)):
                raise self._error(call, caller, f"enzyme_dup on parameter {i + 1} of '{fn.name}', which is "
                                  "neither a pointer nor floating-point", "use enzyme_const for integers")
            return
        if cls is ArgActivity.OUT and not isinstance(ptype.scalar, FloatType):
            raise self._error(call, caller, f"enzyme_out on parameter {i + 1} of '{fn.name}', which is not floating-point",
                              "use enzyme_dup for pointers and enzyme_const for integers")
        if cls.has_shadow and not isinstance(ptype, PointerType):
            raise self._error(call, caller, f"enzyme_dup on parameter {i + 1} of '{fn.name}', which is not a pointer",
                              "reverse mode returns derivatives of scalars: use enzyme_out")

    def _convert(self, v: Value, ptype: Type, call, caller, fn, i: int) -> Value:
        """Undo default argument promotions of a variadic entry point."""
        if v.type == ptype:
            return v
        b = IRBuilder()
        b.position_before(call)
        if isinstance(v.type, FloatType) and isinstance(ptype, FloatType):
            return b.fptrunc(v, ptype, "arg") if v.type.bits > ptype.bits else b.fpext(v, ptype, "arg")
        if isinstance(v.type, IntType) and isinstance(ptype, IntType):
            return b.trunc(v, ptype, "arg") if v.type.bits > ptype.bits else b.sext(v, ptype, "arg")
        raise self._error(call, caller, f"argument for parameter {i + 1} of '{fn.name}' has type {v.type}, "
                          f"expected {ptype}")

    def _error(self, call, caller: Function, what: str, hint: str | None = None):
        return ad_error(self.module, call, caller.name or "?", what, hint)

    # -- replacement -----------------------------------------------------------------------
    def lower(self, call: CallBase, caller: Function) -> None:
        kind = entry_kind(call.called_function)
        assert kind is not None
        if kind is EntryKind.VIRTUAL_REVERSE:
            self._lower_virtual_reverse(call, caller)
            return
        try:
            entry = self.parse(call, caller, kind)
        except ValueError as e:
            raise self._error(call, caller, f"marker '{e}' is not supported by enzc yet") from None
        b = IRBuilder()
        b.position_before(call)
        match kind:
            case EntryKind.FORWARD | EntryKind.ERROR_ESTIMATE | EntryKind.FWDSPLIT:
                fd, tape = (fwdsplit_derivative(self, call, caller, entry) if kind is EntryKind.FWDSPLIT
                            else (self.derivatives.forward(entry.function, entry.signature), []))
                ret, width = entry.function.function_type.ret, entry.signature.width
                outs = [ret] * width if fd.pair else []
                result = self.emit_call(b, call, caller, fd.function, [*entry.arguments, *tape])
                free_tape(b, self, tape)
                if entry.return_primal and ret != VOID and width == 1:
                    outs = [ret, ret] if fd.pair else [ret]  # {result, tangent}, as the derivative returns it
                elif outs:
                    result = b.extract_value(result, 1, "tangent")  # from {result, tangent(s)}
            case EntryKind.REVERSE:
                sig = replace(entry.signature, distinct=distinct_pairs(entry.primals(), objects_may_alias))
                derivative = self.derivatives.reverse(entry.function, sig)
                outs = derivative.out_types
                result = self.emit_call(b, call, caller, derivative.function, entry.arguments)
            case EntryKind.AUGMENT:
                self._lower_augment(b, call, caller, entry)
                return
            case EntryKind.SPLIT_REVERSE:
                note_reverse_tape(self, entry)
                split = self.derivatives.split(entry.function, entry.signature)
                args = [*entry.arguments, *self._reverse_trailing(b, call, caller, entry)]
                result = self.emit_call(b, call, caller, split.reverse, args, continues=True)
                outs = out_types(entry.function, entry.signature)
        if entry.sret is None and call.uses and len(outs) > 1 and call.type.is_first_class:
            layout, offsets = self.derivatives.layout, layout_offsets(self.derivatives.layout, outs)
            if layout.alloc_size_of(call.type) < offsets[-1] + layout.alloc_size_of(outs[-1]):
                names = ", ".join(str(t) for t in outs)
                raise self._error(call, caller, f"the entry point is declared to return {call.type}, but its "
                                  f"derivatives are {len(outs)} values ({names}), which do not fit: some would be lost",
                                  "declare it to return a struct with one member per enzyme_out argument, "
                                  "e.g. struct { double dx, dy; } __enzyme_autodiff(void *, ...)")
        self._deliver(b, call, outs, result, entry.sret)

    def _zero_enzc_shadows(self, b: IRBuilder) -> None:
        """What a previous derivative call left in enzc-made shadows is not this call's."""
        for g in shadows_to_clear(self.module):
            size = ConstantInt(I64, self.derivatives.layout.alloc_size_of(g.value_type))
            b.call(declare(self.module, "llvm.memset.p0.i64"), [g, ConstantInt(I8, 0), size, ConstantInt(I1, 0)])

    def emit_call(self, b: IRBuilder, call: CallBase, caller: Function, function: Function,
                  args: list[Value], continues: bool = False) -> Value:
        """The call of the derived function at the entry call's place (an `invoke` where
        it was one: what the derivative throws reaches the user's handlers); the builder
        is left after it. Unless it `continues` an augmented call (`__enzyme_reverse`),
        the shadows enzc made are cleared first (after the derivative is built: building
        it may make more)."""
        if not continues:
            self._zero_enzc_shadows(b)
        name = "grad" if function.function_type.ret != VOID else ""
        if isinstance(call, Invoke):
            cont = new_block(caller, "grad.cont", after=call.parent)
            result = b.invoke(function, args, cont, call.unwind_dest, name)
            rename_incoming(call.normal_dest, call.parent, cont)  # type: ignore[arg-type]
            b.position_at_end(cont)
        else:
            result = b.call(function, args, name)
        if "dbg" in call.metadata:
            result.metadata["dbg"] = call.metadata["dbg"]
        return result

    def _deliver(self, b: IRBuilder, call: CallBase, outs: list[Type], result: Value, sret: Value | None) -> None:
        """Hand `result` (the values `outs`) to the entry call's users, then remove it."""
        if sret is not None:
            store_struct(b, self.derivatives.layout, outs, result, sret)
        elif call.type.is_first_class and call.uses:
            call.replace_all_uses_with(coerce(b, self.derivatives.layout, outs, result, call.type))
        if isinstance(call, Invoke):
            b.br(call.normal_dest)
        call.erase()

    def _lower_virtual_reverse(self, call: CallBase, caller: Function) -> None:
        """`__enzyme_virtualreverse(f)`: the shadow of function pointer `f`, the address of
        a constant `{augmented_f, reverse_f}` (scalars out, pointers dup, result active).
        enzc finds the shadows of function pointers itself (`fnptr`: by comparing the
        primal pointer with the program's functions), so a program that stores this
        as a shadow gets the same derivative either way; given anything else (a C++
        vtable) it returns its argument."""
        from enzc.ad.memory.fnptr import pair_global

        fn = function_of(call.args[0]) if call.args else None
        if fn is None and call.args and call.type == call.args[0].type:
            call.replace_all_uses_with(call.args[0])  # a vtable: enzc never reads shadow vtables
            call.erase()
            return
        if fn is None or fn.is_declaration:
            raise self._error(call, caller, "__enzyme_virtualreverse needs a function defined in the program",
                              "pass the function itself, e.g. __enzyme_virtualreverse((void *)f)")
        classes = tuple(_default_class(t) for t in fn.function_type.params)
        sig = Signature(classes, isinstance(fn.function_type.ret, FloatType))
        pair = pair_global(self.module, self.derivatives.split(fn, sig))
        if call.uses:
            call.replace_all_uses_with(pair)
        call.erase()

    # -- split mode -----------------------------------------------------------------------
    def _lower_augment(self, b: IRBuilder, call: CallBase, caller: Function, entry: EntryCall) -> None:
        """`tape = __enzyme_augmentfwd(f, args...)`: f's augmented forward pass. It
        returns the tape (`{tape, result}` when the entry point is declared to return
        a pair and f returns a value); with `enzyme_allocated, n, enzyme_tape, buf`
        the tape goes into the caller's buffer instead."""
        result = forward_split_augment(self, b, call, caller, entry)  # a tape for __enzyme_fwdsplit
        if result is None:
            split = self.derivatives.split(entry.function, entry.signature)
            result = self.emit_call(b, call, caller, split.augmented, entry.arguments)
        tape = result if result.type == PTR else b.extract_value(result, 0, "tape")
        buffer = self._tape_buffer(call, caller, entry, allow_extra=False)
        if buffer is not None:
            b.store(tape, buffer)
        ret = entry.function.function_type.ret
        if call.type == result.type or call.type == VOID or not call.uses:
            value = result
        elif call.type == PTR:
            value = tape
        elif ret != VOID and call.type == StructType((ret, PTR)):  # {result, tape}, as Enzyme's tests declare it
            value = b.insert_value(b.const_undef(call.type), b.extract_value(result, 1, "result"), 0, "aug")
            value = b.insert_value(value, tape, 1, "aug")
        else:
            raise self._error(call, caller, f"__enzyme_augmentfwd is declared to return {call.type}; it returns "
                              f"the tape (void *), {{tape, result}} or {{result, tape}}")
        if call.type != VOID and call.uses:
            call.replace_all_uses_with(value)
        if isinstance(call, Invoke):
            b.br(call.normal_dest)
        call.erase()

    def _reverse_trailing(self, b: IRBuilder, call: CallBase, caller: Function, entry: EntryCall) -> list[Value]:
        """`__enzyme_reverse(f, args..., [d_result], tape)`: the reverse function's
        last parameters, the adjoint of an active result (0 when left out; with
        `enzyme_width` N, N of them) and the tape."""
        ret, width = entry.function.function_type.ret, entry.signature.width
        rest = [v for v in self._without_tape_markers(entry.trailing)]
        d_result: list[Value] = []
        if entry.signature.active_return:
            given = [v for v in rest if v.type == ret or isinstance(v.type, FloatType)]
            if given and len(given) != width:
                raise self._error(call, caller, f"__enzyme_reverse of '{entry.function.name}' with enzyme_width "
                                  f"{width} takes {width} adjoints of the result, one per lane; it has {len(given)}",
                                  "pass d_result for each lane before the tape (or none: zero)")
            d_result = [self._convert(v, ret, call, caller, entry.function, len(entry.arguments)) for v in given] \
                or [b.const_zero(ret)] * width
        buffer = self._tape_buffer(call, caller, entry, allow_extra=True)
        if buffer is not None:
            return [*d_result, b.load(PTR, buffer, "tape")]
        tapes = [v for v in rest if isinstance(v.type, PointerType)]
        if len(tapes) != 1:
            raise self._error(call, caller, f"__enzyme_reverse of '{entry.function.name}' needs the tape "
                              "__enzyme_augmentfwd returned as its last argument",
                              "call __enzyme_reverse(f, args..., [d_result], tape)")
        return [*d_result, tapes[0]]

    def _without_tape_markers(self, trailing: list[Value]) -> list[Value]:
        out, skip = [], False
        for v in trailing:
            if skip:
                skip = False
            elif self._marker_name(v) in TAPE_MARKERS:
                skip = True
            else:
                out.append(v)
        return out

    def _tape_buffer(self, call: CallBase, caller: Function, entry: EntryCall, allow_extra: bool) -> Value | None:
        """The caller's buffer of `enzyme_allocated, n, enzyme_tape, buffer`, if given
        (it must hold the tape pointer enzc keeps there)."""
        found: dict[str, Value] = {}
        trailing = entry.trailing
        for k, v in enumerate(trailing):
            name = self._marker_name(v)
            if name in TAPE_MARKERS and k + 1 < len(trailing):
                found[name] = trailing[k + 1]
        if not allow_extra and len(self._without_tape_markers(trailing)) != 0:
            raise self._error(call, caller, f"too many arguments for '{entry.function.name}'")
        if "enzyme_tape" not in found:
            return None
        size = found.get("enzyme_allocated")
        if isinstance(size, ConstantInt) and size.value < 8:
            raise self._error(call, caller, f"the allocated tape of {size.value} bytes is too small: enzc keeps an "
                              "8-byte pointer to its tape there", "allocate at least 8 bytes")
        return found["enzyme_tape"]

    def marker_name(self, v: Value) -> str | None:
        """The marker `v` spells, if any (see `_marker_name`)."""
        return self._marker_name(v)

    def convert(self, v: Value, ptype: Type, call: CallBase, caller: Function, fn: Function, i: int) -> Value:
        """`v` without the default argument promotions of a variadic call, as `ptype`."""
        return self._convert(v, ptype, call, caller, fn, i)

    def deliver(self, b: IRBuilder, call: CallBase, outs: list[Type], result: Value, sret: Value | None) -> None:
        """Replace `call` by `result` (the values `outs`), through its sret memory if any."""
        self._deliver(b, call, outs, result, sret)

    def _marker_name(self, v: Value) -> str | None:
        """The marker `v` spells (a load or address of a marker global, a metadata
        string, the folded value of a defined marker global), if any."""
        match v:
            case Load(ptr=GlobalVariable() as gv):
                if gv.name in (*MARKERS, *MODIFIERS, *TAPE_MARKERS, PRIMAL_RETURN, WIDTH, RUNTIME_ACTIVITY,
                               *UNSUPPORTED_MARKERS, *BATCH_MARKERS):
                    self.marker_uses.append(v)
                return gv.name
            case GlobalVariable():
                return v.name
            case MetadataOperand(md=MDString() as s):
                return s.text
            case ConstantInt():
                return self.marker_constants.get(v.value)
        return None

    def _markers_chosen_at_run_time(self, v: Value) -> list[str]:
        """The markers `v` selects between at run time (a select or phi of markers, or a
        load through a select or phi of marker addresses), if it is such a choice."""
        if isinstance(v, Load) and isinstance(v.ptr, (Select, Phi)):
            v = v.ptr
        match v:
            case Select():
                candidates = [v.operand(1), v.operand(2)]
            case Phi():
                candidates = [value for value, _ in v.incoming]
            case _:
                return []
        return sorted({name for c in candidates if (name := self._marker_name(c)) in MARKERS})

    def remove_markers(self) -> None:
        """Delete marker loads that lost their uses, then unused marker globals."""
        for inst in self.marker_uses:
            if not inst.uses and inst.parent is not None:
                inst.erase()
        for name in (*MARKERS, *MODIFIERS, *TAPE_MARKERS, PRIMAL_RETURN, WIDTH, *UNSUPPORTED_MARKERS,
                             *BATCH_MARKERS):
            gv = self.module.globals.get(name)
            if gv is None or not gv.is_declaration or gv.uses:
                continue
            if _mentioned_elsewhere(self.module, name):
                continue
            del self.module.globals[name]


def function_of(v: Value) -> Function | None:
    for _ in range(8):
        match v:
            case Function():
                return v
            case Alias(target=t):
                v = t
            case ConstantExpr(operands=[inner, *_]):
                v = inner
            case Cast():
                v = v.operand(0)
            case _:
                return None
    return None


def _sret_type(fn: Function, module: Module) -> Type | None:
    """The struct type `fn` returns through its first parameter (`sret(T)`), if it does."""
    if not fn.args:
        return None
    for attr in fn.args[0].attrs:
        if attr.startswith("sret("):
            parsed = parse_type_prefix(attr, len("sret("), module.types)
            return parsed[0] if parsed is not None else None
    return None


def _default_class(t: Type, forward: bool = False) -> ArgActivity:
    if isinstance(t, PointerType):
        return ArgActivity.DUP
    if isinstance(t.scalar, FloatType):
        return ArgActivity.DUP if forward else ArgActivity.OUT
    return ArgActivity.CONST


def _marker_constants(module: Module) -> dict[int, str]:
    """Initializer value → marker name, when the marker globals are defined and distinct."""
    found: dict[int, str] = {}
    for name in MARKERS:
        gv = module.globals.get(name)
        if gv is not None and isinstance(gv.initializer, ConstantInt):
            found.setdefault(gv.initializer.value, name)
            if found[gv.initializer.value] != name:
                return {}
    return found


def _mentioned_elsewhere(module: Module, name: str) -> bool:
    """Whether an unparsed function body or an initializer still names global `name`."""
    ref = "@" + name
    for fn in module.functions.values():
        if not fn.is_materialized and fn.source_text is not None and ref in fn.source_text:
            return True
    for gv in module.globals.values():
        init = gv.initializer
        if init is not None and not isinstance(init, ConstantInt):
            try:
                if ref in init.ref():
                    return True
            except ValueError:
                return True
    return False

