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

from dataclasses import dataclass

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.instructions import CallBase, Cast, Instruction, Invoke, Load
from enzc.ir.metadata import MDString
from enzc.ir.module import Alias, Function, GlobalVariable, Module
from enzc.ir.transforms import rename_incoming
from enzc.ir.types import I8, VOID, ArrayType, FloatType, IntType, PointerType, Type
from enzc.ir.values import ConstantExpr, ConstantInt, MetadataOperand, Value

from enzc.ad.activity import ArgActivity, carries_float
from enzc.ad.diagnostics import ad_error
from enzc.ad.synthesis import DerivativeCache, Signature

REVERSE_MARK = "__enzyme_autodiff"
FORWARD_MARK = "__enzyme_fwddiff"

MARKERS: dict[str, ArgActivity] = {
    "enzyme_dup": ArgActivity.DUP,
    "enzyme_dupnoneed": ArgActivity.DUPNONEED,
    "enzyme_const": ArgActivity.CONST,
    "enzyme_out": ArgActivity.OUT,
}
"""Marker global (or metadata string) → argument class."""

UNSUPPORTED_MARKERS = ("enzyme_width", "enzyme_dupv", "enzyme_shadow_return", "enzyme_primal_return",
                       "enzyme_noneed", "enzyme_tape", "enzyme_allocated", "enzyme_scalar", "enzyme_nofree")


@dataclass
class EntryCall:
    """One parsed entry-point call."""

    call: CallBase
    function: Function
    signature: Signature
    arguments: list[Value]
    """Arguments for the derivative: each primal, then its shadow for dup ones."""
    sret: Value | None


def is_entry_point(fn: Function | None) -> bool:
    return fn is not None and (REVERSE_MARK in (fn.name or "") or FORWARD_MARK in (fn.name or ""))


def is_forward_entry(fn: Function | None) -> bool:
    return fn is not None and FORWARD_MARK in (fn.name or "")


class CallSiteLowering:
    """Finds entry-point calls in a module and replaces them."""

    def __init__(self, module: Module, derivatives: DerivativeCache) -> None:
        self.module = module
        self.derivatives = derivatives
        self.marker_constants = _marker_constants(module)
        self.marker_uses: list[Instruction] = []

    # -- parsing -----------------------------------------------------------------------------
    def parse(self, call: CallBase, caller: Function, forward: bool = False) -> EntryCall:
        """The entry call's function, signature and arguments; `forward`: a
        `__enzyme_fwddiff` call, where a `dup` float is followed by its tangent and
        an unmarked float is `dup`."""
        args = list(call.args)
        sret = None
        if call.arg_attrs and any(a.startswith("sret") for a in call.arg_attrs[0]):
            sret = args.pop(0)
        if not args:
            raise self._error(call, caller, "the entry point needs the function to differentiate as first argument")
        fn = _function_of(args.pop(0))
        if fn is None:
            raise self._error(call, caller, "the first argument of the entry point is not a known function",
                              "pass the function itself, e.g. __enzyme_autodiff((void*)f, ...)")
        if fn.is_declaration:
            raise self._error(call, caller, f"cannot differentiate '{fn.name}': its body is not available",
                              "compile its source with enzcc (or -fembed-bitcode) so the body is linked in")
        classes: list[ArgActivity] = []
        values: list[Value] = []
        pos = 0
        for i, ptype in enumerate(fn.function_type.params):
            if pos >= len(args):
                raise self._error(call, caller, f"too few arguments for '{fn.name}': parameter {i + 1} is missing")
            marker = self._marker(args[pos])
            if marker is not None:
                pos += 1
                if pos >= len(args):
                    raise self._error(call, caller, f"marker without an argument for parameter {i + 1} of '{fn.name}'")
            cls = marker if marker is not None else _default_class(ptype, forward)
            self._check_class(call, caller, fn, i, cls, ptype, forward)
            values.append(self._convert(args[pos], ptype, call, caller, fn, i))
            pos += 1
            if cls.has_shadow:
                if pos >= len(args):
                    raise self._error(call, caller, f"missing shadow for parameter {i + 1} of '{fn.name}'",
                                      "enzyme_dup takes two arguments: the value and its shadow")
                values.append(self._convert(args[pos], ptype, call, caller, fn, i))
                pos += 1
            classes.append(cls)
        if pos != len(args):
            raise self._error(call, caller, f"too many arguments for '{fn.name}' "
                              f"({len(fn.function_type.params)} parameters)")
        ret = fn.function_type.ret
        active_return = (carries_float(ret) and not isinstance(ret, PointerType)) if forward \
            else isinstance(ret, FloatType)
        return EntryCall(call, fn, Signature(tuple(classes), active_return), values, sret)

    def _marker(self, v: Value) -> ArgActivity | None:
        name = None
        match v:
            case Load(ptr=GlobalVariable() as gv):
                name = gv.name
                if name in MARKERS or name in UNSUPPORTED_MARKERS:
                    self.marker_uses.append(v)
            case GlobalVariable():
                name = v.name
            case MetadataOperand(md=MDString() as s):
                name = s.text
            case ConstantInt():
                name = self.marker_constants.get(v.value)
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
        forward = is_forward_entry(call.called_function)
        try:
            entry = self.parse(call, caller, forward)
        except ValueError as e:
            raise self._error(call, caller, f"marker '{e}' is not supported by enzc yet") from None
        if forward:
            fd = self.derivatives.forward(entry.function, entry.signature)
            function, outs = fd.function, [entry.function.function_type.ret] if fd.pair else []
        else:
            derivative = self.derivatives.reverse(entry.function, entry.signature)
            function, outs = derivative.function, derivative.out_types
        b = IRBuilder()
        b.position_before(call)
        name = "grad" if function.function_type.ret != VOID else ""
        if isinstance(call, Invoke):  # C++ with exceptions: what the derivative throws reaches the handlers
            cont = new_block(caller, "grad.cont", after=call.parent)
            result = b.invoke(function, entry.arguments, cont, call.unwind_dest, name)
            rename_incoming(call.normal_dest, call.parent, cont)  # type: ignore[arg-type]
            b.position_at_end(cont)
        else:
            result = b.call(function, entry.arguments, name)
        if "dbg" in call.metadata:
            result.metadata["dbg"] = call.metadata["dbg"]
        if forward and outs:
            result = b.extract_value(result, 1, "tangent")  # the result's tangent, from {primal, tangent}
        if entry.sret is not None:
            self._store_struct(b, outs, result, entry.sret)
        elif call.type.is_first_class and call.uses:
            call.replace_all_uses_with(self._coerce(b, outs, result, call.type))
        if isinstance(call, Invoke):
            b.br(call.normal_dest)
        call.erase()

    def _layout_offsets(self, outs: list[Type]) -> list[int]:
        layout = self.derivatives.layout
        offsets, pos = [], 0
        for t in outs:
            align = layout.abi_align(t)
            pos = (pos + align - 1) // align * align
            offsets.append(pos)
            pos += layout.alloc_size_of(t)
        return offsets

    def _store_struct(self, b: IRBuilder, outs: list[Type], result: Value, dest: Value) -> None:
        for k, (t, off) in enumerate(zip(outs, self._layout_offsets(outs))):
            v = result if len(outs) == 1 else b.extract_value(result, k, "out")
            addr = b.gep(I8, dest, [off], "out.addr", inbounds=True) if off else dest
            b.store(v, addr)

    def _coerce(self, b: IRBuilder, outs: list[Type], result: Value, want: Type) -> Value:
        if not outs:
            return b.const_zero(want)
        if len(outs) == 1 and outs[0] == want:
            return result
        if len(outs) == 1 and isinstance(want, FloatType) and isinstance(outs[0], FloatType):
            return b.fpext(result, want, "grad") if want.bits > outs[0].bits else b.fptrunc(result, want, "grad")
        layout = self.derivatives.layout
        size = max(layout.alloc_size_of(want), sum(layout.alloc_size_of(t) for t in outs) + 16)
        with b.goto_entry_allocas():
            slot = b.alloca(ArrayType(size, I8), name="grad.slot", align=16)
        b.store(b.const_zero(ArrayType(size, I8)), slot)
        self._store_struct(b, outs, result, slot)
        return b.load(want, slot, "grad.ret")

    def remove_markers(self) -> None:
        """Delete marker loads that lost their uses, then unused marker globals."""
        for inst in self.marker_uses:
            if not inst.uses and inst.parent is not None:
                inst.erase()
        for name in list(MARKERS) + list(UNSUPPORTED_MARKERS):
            gv = self.module.globals.get(name)
            if gv is None or not gv.is_declaration or gv.uses:
                continue
            if _mentioned_elsewhere(self.module, name):
                continue
            del self.module.globals[name]


def _function_of(v: Value) -> Function | None:
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

