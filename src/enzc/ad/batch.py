"""`__enzyme_batch(f, enzyme_width, W, args...)`: `f` evaluated for W lanes at once.

Enzyme's BatchMode, without a derivative. Each parameter of `f` takes, after an
optional marker:

    (none) or enzyme_vector, v1 ... vW       one value per lane (one value when W is 1)
    enzyme_scalar, v                         the same value in every lane
    enzyme_buffer, bytes, p                  lane k gets p + k * bytes

and the call returns the W results (a struct or array of them, returned through
`sret` memory when the ABI does), or nothing for a `void` f. enzc calls `f` once per
lane, in lane order: the same as Enzyme's batched function for lanes that do not
write memory another lane reads (Enzyme interleaves the lanes instruction by
instruction; lanes that share written memory see each other's writes in lane order
here).
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase, Invoke
from enzc.ir.module import Function
from enzc.ir.types import I8, VOID, StructType, Type
from enzc.ir.values import ConstantInt, Value

from enzc.ad.callsite import WIDTH, CallSiteLowering, function_of
from enzc.ad.diagnostics import ADError, ad_error

BATCH = "__enzyme_batch"
LANE_MARKERS = ("enzyme_vector", "enzyme_scalar", "enzyme_buffer")


def is_batch(fn: Function | None) -> bool:
    return fn is not None and BATCH in (fn.name or "")


def lower_batch(lowering: CallSiteLowering, call: CallBase, caller: Function) -> None:
    """Replace `call` by W calls of its function and the tuple of their results."""
    def error(what: str, hint: str | None = None) -> ADError:
        return ad_error(lowering.module, call, caller.name or "?", what, hint)

    if isinstance(call, Invoke):
        raise error("__enzyme_batch inside a try block (an invoke) is not supported",
                    "call it from a small function without try/catch or cleanups")
    args = list(call.args)
    sret = args.pop(0) if call.arg_attrs and any(a.startswith("sret") for a in call.arg_attrs[0]) else None
    fn = function_of(args.pop(0)) if args else None
    if fn is None:
        raise error("the first argument of __enzyme_batch is not a known function",
                    "pass the function itself, e.g. __enzyme_batch((void *)f, enzyme_width, 4, ...)")
    if len(args) < 2 or lowering.marker_name(args[0]) != WIDTH or not isinstance(args[1], ConstantInt) \
            or args[1].value < 1:
        raise error("__enzyme_batch needs enzyme_width and a constant number of lanes after the function",
                    "write __enzyme_batch((void *)f, enzyme_width, 4, x1, x2, x3, x4)")
    width = args[1].value
    lanes = _lane_arguments(lowering, call, caller, fn, args[2:], width, error)
    b = IRBuilder()
    b.position_before(call)
    ret = fn.function_type.ret
    results = [b.call(fn, lane, "lane" if ret != VOID else "") for lane in lanes]
    if ret == VOID:
        lowering.deliver(b, call, [], ConstantInt(I8, 0), None)
        return
    outs: list[Type] = [ret] * width
    result: Value = results[0]
    if width > 1:
        result = b.const_zero(StructType(tuple(outs)))
        for k, r in enumerate(results):
            result = b.insert_value(result, r, [k], "lanes")
    lowering.deliver(b, call, outs, result, sret)


def _lane_arguments(lowering: CallSiteLowering, call: CallBase, caller: Function, fn: Function,
                    args: list[Value], width: int, error) -> list[list[Value]]:
    """Each lane's arguments of `fn`, read from the batch call's arguments and markers."""
    lanes: list[list[Value]] = [[] for _ in range(width)]
    pos = 0

    def take(n: int, what: str) -> list[Value]:
        nonlocal pos
        if pos + n > len(args):
            raise error(f"__enzyme_batch of '{fn.name}': {what} is missing",
                        "give each parameter W values, or enzyme_scalar and one value")
        pos += n
        return args[pos - n:pos]

    for i, ptype in enumerate(fn.function_type.params):
        marker = lowering.marker_name(args[pos]) if pos < len(args) else None
        if marker is not None and marker.startswith("enzyme_") and marker not in LANE_MARKERS:
            raise error(f"marker '{marker}' does not apply to __enzyme_batch",
                        "use enzyme_vector, enzyme_scalar or enzyme_buffer")
        if marker in LANE_MARKERS:
            pos += 1
        what = f"the value of parameter {i + 1}"
        if marker == "enzyme_scalar" or (marker is None and width == 1):
            values = take(1, what) * width
        elif marker == "enzyme_buffer":
            stride, base = take(2, f"the lane stride and pointer of parameter {i + 1}")
            values = [base] + [_offset(call, base, stride, k) for k in range(1, width)]
        else:
            values = take(width, f"one of the {width} values of parameter {i + 1}")
        for lane, v in zip(lanes, values):
            lane.append(lowering.convert(v, ptype, call, caller, fn, i))
    if pos != len(args):
        raise error(f"__enzyme_batch of '{fn.name}' has {len(args) - pos} arguments more than its "
                    f"{len(fn.function_type.params)} parameters take for {width} lanes")
    return lanes


def _offset(call: CallBase, base: Value, stride: Value, lane: int) -> Value:
    """`base + lane * stride` bytes, before `call`."""
    b = IRBuilder()
    b.position_before(call)
    step = b.mul(stride, ConstantInt(stride.type, lane), "lane.bytes")  # type: ignore[arg-type]
    return b.gep(I8, base, [step], "lane.ptr")
