"""Sine and cosine of one argument from one `sincos` call.

The reverse of `sin(x)` needs `cos(x)`, and that of `cos(x)` needs `sin(x)`:
evaluated in the reverse pass it is a second libm call for every forward one
(ODE's right-hand side spends most of its gradient in `sin` and `cos`).
libm's `sincos` (one range reduction) gives both for little more than one of
them. So for each double `sin(x)`/`cos(x)` whose result and
argument carry derivatives, and whose argument is a load the reverse would have
to keep for this derivative alone (so the partner takes its place and the tape
does not grow), `add_partners` puts the other
function of the same `x` right after it, in the original and in its forward clone; the partner is
inactive (nothing in the program uses it), and the reverse pass finds it as an
equal forward call (`rules/reuse.equal_forward_call`) and keeps it for the
reverse like any forward value, instead of calling libm again. Once the
reverse is built, `fuse` makes each call and its partner one `sincos` call (a
partner the reverse did not use is dropped).
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.instructions import Call, CallBase, Instruction, Load
from enzc.ir.types import DOUBLE, PTR, VOID, FunctionType
from enzc.ir.values import Value

from enzc.ad.analysis.calls import CallKind, callee_name, classify
from enzc.ad.rules.dsl import intrinsic
from enzc.ad.rules.reuse import equal_forward_call, math_base
from enzc.ad.rules.table import has_rule
from enzc.ad.synth.gradient_utils import GradientUtils

PARTNER = {"sin": "cos", "cos": "sin"}


def add_partners(gu: GradientUtils) -> list[tuple[Instruction, Instruction]]:
    """Insert the partner of each differentiated double `sin`/`cos` call (see the
    module docstring); returns (call, partner) pairs of original instructions."""
    pairs: list[tuple[Instruction, Instruction]] = []
    calls = [i for i in gu.original.instructions() if isinstance(i, CallBase)]
    for call in calls:
        name = callee_name(call)
        base = math_base(name) if name else None
        if base not in PARTNER or call.type != DOUBLE or len(call.args) != 1:
            continue
        if classify(call, has_rule) is not CallKind.RULE or call.bundle_tags:
            continue
        if not (gu.has_adjoint(call) and gu.has_adjoint(call.args[0])) or not _only_for_this(gu, call):
            continue
        if equal_forward_call(gu, PARTNER[base], list(call.args), call) is not None:  # type: ignore[index]
            continue
        partner_fn = intrinsic(gu.module, PARTNER[base], DOUBLE, [])  # type: ignore[index]
        partner = _call_after(call, partner_fn, call.args[0], f"{call.name or 'v'}.{PARTNER[base]}")  # type: ignore[index]
        clone = gu.new_value(call)
        if not isinstance(clone, Instruction) or clone.parent is None:
            partner.erase()
            continue
        new_partner = _call_after(clone, partner_fn, gu.new_value(call.args[0]), partner.name)
        gu.value_map[partner], gu.original_of[new_partner] = new_partner, partner
        pairs.append((call, partner))
    return pairs


def _only_for_this(gu: GradientUtils, call: CallBase) -> bool:
    """Whether the partner takes the place of what the reverse keeps instead of adding
    to it: the argument is a load used by this call only (the reverse needs it for
    this derivative alone) that the reverse cannot reload (memory written later, or a
    load outside loops, which is kept anyway). Anything else the reverse may reload or
    recompute from operands it keeps for other reasons."""
    x = call.args[0]
    if not isinstance(x, Load) or len(x.uses) != 1 or x.parent is None:
        return False
    return not (gu.loops.loops_of(x.parent) and gu.memory.load_unchanged(x))


def _call_after(at: Instruction, fn: object, arg: Value, name: str | None) -> Instruction:
    b = IRBuilder()
    b.position_after(at)
    return b.call(fn, [arg], name or "")  # type: ignore[arg-type]


def fuse(gu: GradientUtils, pairs: list[tuple[Instruction, Instruction]]) -> dict[Value, Value]:
    """Replace each pair's forward clones by one call of libm's `sincos` (glibc and
    musl have it; `llvm.sincos` would be the same call, but LLVM 22's vector-combine
    crashes on it), writing two entry slots. Skipped off Linux and when the program
    defines a `sincos` of its own: the two calls then stay as they are. Returns each
    erased call's replacement, for what holds values outside the IR (the returned
    values a split derivative's augmented forward pass hands back)."""
    module = gu.module
    own = module.functions.get("sincos")
    replaced: dict[Value, Value] = {}
    if not pairs or "linux" not in (module.triple or "") or (own is not None and not own.is_declaration):
        return replaced
    sincos = get_or_insert_function(module, "sincos", FunctionType(VOID, (DOUBLE, PTR, PTR)))
    for call, partner in pairs:
        first, second = gu.new_value(call), gu.new_value(partner)
        if not (isinstance(first, Call) and isinstance(second, Call)) or second.parent is None:
            continue
        if not second.uses:
            second.erase()  # the reverse did not need it
            continue
        block = first.parent
        if block is None or second.parent is not block or block.index_of(second) < block.index_of(first):
            continue
        b = IRBuilder(gu.new.entry)
        with b.goto_entry_allocas():
            sin_slot = b.alloca(DOUBLE, name="sin.slot", align=8)
            cos_slot = b.alloca(DOUBLE, name="cos.slot", align=8)
        b.position_before(first)
        b.call(sincos, [first.args[0], sin_slot, cos_slot])
        sin_part = b.load(DOUBLE, sin_slot, "sin", align=8)
        cos_part = b.load(DOUBLE, cos_slot, "cos", align=8)
        is_sin = math_base(callee_name(first) or "") == "sin"
        first.replace_all_uses_with(sin_part if is_sin else cos_part)
        second.replace_all_uses_with(cos_part if is_sin else sin_part)
        gu.value_map[call], gu.value_map[partner] = (sin_part, cos_part) if is_sin else (cos_part, sin_part)
        replaced[first], replaced[second] = gu.value_map[call], gu.value_map[partner]
        first.erase()
        second.erase()
    return replaced
