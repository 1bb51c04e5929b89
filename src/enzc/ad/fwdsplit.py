"""`__enzyme_fwdsplit`, and the `__enzyme_augmentfwd` calls whose tape it takes.

Enzyme's forward split mode: `tape = __enzyme_augmentfwd(f, args...)` runs f and
returns a tape; `__enzyme_fwdsplit(f, args and tangents..., tape)` returns the
tangent without running f again (its writes to memory are not repeated), reading
the primal values from the tape, and frees the tape.

- With a tape: the pair `augfwd_f` / `fwdsplit_f` of `synth/forward_split.py`
  (the tape is `synth/forward_tape.py`'s log). An `__enzyme_augmentfwd` of f makes
  that tape when the program has an `__enzyme_fwdsplit` of f with a tape, and split
  reverse mode's tape otherwise. The two differ, so tapes of one f given to both
  `__enzyme_fwdsplit` and `__enzyme_reverse`, or `__enzyme_fwdsplit` calls of f with
  different argument classes, are compile-time errors.
- With a NULL tape or none: f must read and write none of the caller's memory
  (LLVM's inference gives it `memory(none)`; libm writing `errno` is allowed); every
  primal value is then a function of the arguments, and the tangent is
  `__enzyme_fwddiff`'s (the primal computed again, unseen by the caller).
"""

from __future__ import annotations

from typing import Protocol

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase, Instruction
from enzc.ir.module import Function, Module
from enzc.ir.types import PTR, VOID, PointerType, StructType
from enzc.ir.values import ConstantSimple, Value

from enzc.ad.analysis.visible_memory import touches_no_visible_memory
from enzc.ad.diagnostics import ad_error
from enzc.ad.synth.derivatives import DerivativeCache
from enzc.ad.synth.forward_tape import tape_free, tape_new
from enzc.ad.synth.signature import ForwardPair, Signature


class Entry(Protocol):
    """A parsed entry-point call (`callsite.EntryCall`)."""

    function: Function
    signature: Signature
    arguments: list[Value]
    trailing: list[Value]

    def primals(self) -> list[Value]: ...


class Lowering(Protocol):
    """What this module uses of `callsite.CallSiteLowering` (which calls it)."""

    module: Module
    derivatives: DerivativeCache

    def parse_entry(self, call: CallBase, caller: Function) -> Entry: ...

    def marker_name(self, v: Value) -> str | None: ...

    def emit_call(self, b: IRBuilder, call: CallBase, caller: Function, function: Function,
                  args: list[Value], continues: bool = False) -> Value: ...


_HINT = ("use __enzyme_fwddiff (it returns the tangent and computes the primal again), or "
         "__enzyme_augmentfwd/__enzyme_reverse for split reverse mode")
FWDSPLIT, REVERSE = "__enzyme_fwdsplit", "__enzyme_reverse"


def fwdsplit_derivative(lowering: Lowering, call: CallBase, caller: Function,
                        entry: Entry) -> tuple[ForwardPair, list[Value]]:
    """The derived function an `__enzyme_fwdsplit` call calls, and the arguments after
    f's (the tape, or none); `free_tape` after the call releases it."""
    module, fn = lowering.module, entry.function
    taped = _tape_argument(lowering, call, caller, entry)
    if taped is None:
        if not touches_no_visible_memory(module, fn):
            raise ad_error(module, call, caller.name or "?", f"__enzyme_fwdsplit of '{fn.name}' without a tape: "
                           f"'{fn.name}' may read or write the caller's memory, so its primal values must come "
                           "from a tape", "pass the tape of __enzyme_augmentfwd(f, ...) as the last argument")
        return lowering.derivatives.forward(fn, entry.signature), []
    lowering.derivatives.tape_consumers.setdefault(fn.name or "", []).append((FWDSPLIT, entry.signature))
    tape, in_buffer = taped
    if in_buffer:
        b = IRBuilder()
        b.position_before(call)
        tape = b.load(PTR, tape, "tape")
    return lowering.derivatives.fwdsplit(fn, entry.signature).replay, [tape]


def free_tape(b: IRBuilder, lowering: Lowering, extra: list[Value]) -> None:
    """After an `__enzyme_fwdsplit` call with a tape: the tape is freed (Enzyme's default)."""
    if extra:
        b.call(tape_free(lowering.module), extra)


def note_reverse_tape(lowering: Lowering, entry: Entry) -> None:
    """An `__enzyme_reverse` call takes a split reverse mode tape of its function."""
    lowering.derivatives.tape_consumers.setdefault(entry.function.name or "", []).append((REVERSE, entry.signature))


def forward_split_augment(lowering: Lowering, b: IRBuilder, call: CallBase, caller: Function,
                          entry: Entry) -> Value | None:
    """For an `__enzyme_augmentfwd` call whose tape goes to `__enzyme_fwdsplit`: call
    `augfwd_f` on a new tape and return the tape (f returns void) or `{tape, result}`,
    as split reverse mode's augmented function does; None for a split reverse mode tape."""
    sig = _fwdsplit_signature(lowering, call, caller, entry.function)
    if sig is None:
        return None
    split = lowering.derivatives.fwdsplit(entry.function, sig)
    tape = b.call(tape_new(lowering.module), [], "fwdtape")
    result = lowering.emit_call(b, call, caller, split.augmented, [*entry.primals(), tape])
    ret = entry.function.function_type.ret
    if ret == VOID:
        return tape
    pair = b.insert_value(b.const_undef(StructType((PTR, ret))), tape, 0, "aug")
    return b.insert_value(pair, result, 1, "aug")


def _fwdsplit_signature(lowering: Lowering, call: CallBase, caller: Function,
                        fn: Function) -> Signature | None:
    """The signature of the `__enzyme_fwdsplit` calls taking tapes of `fn` (lowered or
    not), if there are any; the errors of the module docstring."""
    recorded = lowering.derivatives.tape_consumers.get(fn.name or "", [])
    if not any(mark == FWDSPLIT for mark, _ in recorded) and not any(
            FWDSPLIT in (decl.name or "") for decl in lowering.module.functions.values()):
        return None  # no __enzyme_fwdsplit in the program: split reverse mode's tape
    consumers = [*recorded, *_pending(lowering, fn)]
    forward = {sig for mark, sig in consumers if mark == FWDSPLIT}
    if not forward:
        return None
    if any(mark == REVERSE for mark, _ in consumers):
        raise ad_error(lowering.module, call, caller.name or "?", f"the program gives tapes of '{fn.name}' to "
                       "both __enzyme_fwdsplit and __enzyme_reverse: enzc's tapes for the two differ",
                       "differentiate a copy of the function for one of them")
    if len(forward) > 1:
        raise ad_error(lowering.module, call, caller.name or "?", f"the __enzyme_fwdsplit calls of '{fn.name}' "
                       "pass different argument classes: enzc makes one kind of tape per function",
                       "pass the same markers in every __enzyme_fwdsplit call of the function")
    return forward.pop()


def _pending(lowering: Lowering, fn: Function) -> list[tuple[str, Signature]]:
    """The `__enzyme_fwdsplit` (with a tape) and `__enzyme_reverse` calls of `fn` not
    lowered yet."""
    found: list[tuple[str, Signature]] = []
    for decl in list(lowering.module.functions.values()):
        mark = next((m for m in (FWDSPLIT, REVERSE) if m in (decl.name or "")), None)
        if mark is None or not decl.is_declaration:
            continue
        for use in list(decl.uses):
            call = use.user
            if not isinstance(call, CallBase) or call.called_function is not decl or call.function is None:
                continue
            try:
                entry = lowering.parse_entry(call, call.function)
            except ValueError:  # an unsupported marker: its own lowering says so
                continue
            _drop_unused(entry, call)
            if entry.function is not fn:
                continue
            if mark == REVERSE or _tape_argument(lowering, call, call.function, entry) is not None:
                found.append((mark, entry.signature))
    return found


def _drop_unused(entry: Entry, call: CallBase) -> None:
    """Parsing inserts conversions of promoted arguments before the call: not needed yet."""
    for v in entry.arguments:
        if isinstance(v, Instruction) and not v.uses and v not in call.args and v.parent is not None:
            v.erase()


def _tape_argument(lowering: Lowering, call: CallBase, caller: Function,
                   entry: Entry) -> tuple[Value, bool] | None:
    """The tape after f's arguments, and whether it is the buffer of `enzyme_allocated,
    bytes, enzyme_tape, buffer` (which holds the tape pointer); None when the tape is
    NULL or left out."""
    rest: list[Value] = []
    buffer: Value | None = None
    operand_of: str | None = None
    """The tape marker the value at hand follows."""
    for v in entry.trailing:
        if operand_of is not None:
            buffer = v if operand_of == "enzyme_tape" else buffer
            operand_of = None
        elif (name := lowering.marker_name(v)) in ("enzyme_allocated", "enzyme_tape"):
            operand_of = name
        else:
            rest.append(v)
    if buffer is not None and not rest:
        return _one_tangent(lowering, call, caller, entry, buffer, True)
    if len(rest) > 1 or (rest and not isinstance(rest[0].type, PointerType)) or buffer is not None:
        raise ad_error(lowering.module, call, caller.name or "?", f"__enzyme_fwdsplit of '{entry.function.name}' "
                       f"takes f's arguments and one tape (a pointer, or enzyme_allocated, bytes, enzyme_tape, "
                       f"buffer), but {len(rest)} other values follow f's arguments", _HINT)
    if not rest or _is_null(rest[0]):
        return None
    return _one_tangent(lowering, call, caller, entry, rest[0], False)


def _one_tangent(lowering: Lowering, call: CallBase, caller: Function, entry: Entry, tape: Value,
                 in_buffer: bool) -> tuple[Value, bool]:
    if entry.signature.width > 1:
        raise ad_error(lowering.module, call, caller.name or "?", "__enzyme_fwdsplit with a tape takes one tangent, "
                       "not enzyme_width", "call __enzyme_fwdsplit once per direction, each with its own tape")
    return tape, in_buffer


def _is_null(v: Value) -> bool:
    return isinstance(v, ConstantSimple) and v.ref() == "null"
