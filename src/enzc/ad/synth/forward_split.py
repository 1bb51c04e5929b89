"""Forward split mode with a tape: `augfwd_<f>` runs f once, `fwdsplit_<f>` its tangent.

    augfwd_f(f's arguments, ptr tape)              -> f's result
    fwdsplit_f(fwddiffe_f's arguments, ptr tape)   -> fwddiffe_f's result

Both come from the same prepared copy of f (`derived.start_derived`), so they take
the same path through the same instructions. `fwdsplit_f` is f's forward derivative
(`forward.build_forward`) with every primal access to memory taken out:

- each load of the primal reads its value from the tape instead (`forward_tape.pop`);
  `augfwd_f` appends the value it loaded at the same place (`forward_tape.push`);
- each call of the primal that may touch memory the same, for its result (nothing
  for a `void` one); a call of a function touching no memory the caller sees
  (`memory(none)`, libm) is computed again;
- each store of the primal, and each primal call whose result is not needed, is
  dropped: the primal's writes happen once, in `augfwd_f`;
- an active call of a defined function g calls `fwdsplit_g` (and, in `augfwd_f`,
  `augfwd_g`) on the same tape: their values sit in the log where the call was.

Every primal value of the tangent is then the value f computed in `augfwd_f`, even
if the caller changed the memory since; the tangent code itself reads and writes
only shadows. Control flow, addresses and arithmetic are recomputed from those
values. What the tangent code would have to read from primal memory (BLAS rules,
user forward derivatives of functions touching memory, calls through function
pointers, atomics, `invoke` of external code) is a located compile-time error.
Unlike Enzyme's tape (the values the tangent needs, per loop iteration), this one
logs every value read, in order: simpler to keep right, larger on loads the
tangent does not need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import AtomicRMW, CallBase, CallBr, CmpXchg, ExtractValue, Instruction, Invoke, Load
from enzc.ir.instructions import Store, VAArg
from enzc.ir.module import Function, Module
from enzc.ir.transforms import clone_into
from enzc.ir.types import PTR, VOID, FunctionType, PointerType

from enzc.ad.analysis.allocations import DEALLOCATORS, allocator_of
from enzc.ad.analysis.visible_memory import touches_no_visible_memory
from enzc.ad.memory.heap import SHADOW_ALLOC, SHADOW_ALLOC_ALIGNED, SHADOW_REALLOC
from enzc.ad.rules.table import has_rule
from enzc.ad.synth.derived import strip_debug_info
from enzc.ad.synth.forward import ForwardDerivative, build_forward, forward_type
from enzc.ad.synth.forward_tape import POP, pop, push
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.synth.signature import Derivatives, Signature

_HINT = "use __enzyme_fwddiff (it computes the primal again with the tangent)"
_SHADOW_CALLS = ("llvm.memset.", "llvm.memcpy.", "llvm.memmove.", "llvm.lifetime.", "llvm.assume",
                 SHADOW_ALLOC, SHADOW_ALLOC_ALIGNED, SHADOW_REALLOC)
"""What the tangent code calls on shadows (or on nothing): memory intrinsics, shadow blocks."""


@dataclass
class ForwardSplit:
    """The augmented forward and the tangent replay of one function and signature."""

    function: Function
    signature: Signature
    augmented: Function
    replay: ForwardDerivative


class SplitDerivatives(Derivatives, Protocol):
    """What building a pair needs of `derivatives.DerivativeCache`."""

    forward_done: dict

    def fwdsplit(self, fn: Function, sig: Signature) -> ForwardSplit: ...


_LOGGED = object()
"""Plan entry: the instruction's value goes through the tape."""


def declare_forward_split(module: Module, fn: Function, sig: Signature) -> ForwardSplit:
    """The pair, without bodies (recursive calls may refer to them already)."""
    ftype, pair = forward_type(fn, sig)
    replay = module.add_function(f"fwdsplit_{fn.name}", FunctionType(ftype.ret, (*ftype.params, PTR)))
    aug = module.add_function(f"augfwd_{fn.name}", FunctionType(fn.function_type.ret,
                                                                 (*fn.function_type.params, PTR)))
    for g in (replay, aug):
        g.linkage.words = ["internal"]
        g.header_suffix = [w for w in fn.header_suffix if w.startswith("personality")]
        g.args[-1].name = "tape"
    return ForwardSplit(fn, sig, aug, ForwardDerivative(replay, sig, pair))


def build_forward_split(derivatives: SplitDerivatives, split: ForwardSplit) -> None:
    """Fill both functions (see the module docstring); one tangent (`fwdsplit` rejects
    `enzyme_width` at the call)."""
    assert split.signature.width == 1
    gu = build_forward(derivatives, split.function, split.replay)
    plan = _Replay(gu, derivatives, split).run()
    _build_augmented(derivatives, gu.original, split, plan)


class _Replay:
    """Takes the primal's memory accesses out of the forward derivative `split.replay`."""

    def __init__(self, gu: GradientUtils, derivatives: SplitDerivatives, split: ForwardSplit) -> None:
        self.gu, self.derivatives, self.split = gu, derivatives, split
        self.fn = split.replay.function
        self.tape = self.fn.args[-1]
        self.b = IRBuilder()
        self.kept: set[int] = set()
        """Primal calls computed again (they touch no memory the caller sees)."""
        self.replays: set[int] = set()
        """Calls of the callees' tangent replays."""

    def run(self) -> dict[Instruction, object]:
        """Rewrite the replay; returns what `augfwd_f` does at each original instruction:
        `_LOGGED` (append its value) or a `ForwardSplit` (call the callee's augmented)."""
        gu = self.gu
        forwards = {id(fd.function): key for key, fd in self.derivatives.forward_done.items()}
        plan: dict[Instruction, object] = {}
        for orig in list(gu.original.instructions()):
            new = gu.value_map.get(orig)
            alive = isinstance(new, Instruction) and new.function is self.fn
            if isinstance(orig, (AtomicRMW, CmpXchg, VAArg, CallBr)):
                raise gu.error(orig, f"__enzyme_fwdsplit with a tape cannot replay '{orig.opcode}' yet", _HINT)
            if isinstance(orig, Load) and alive and isinstance(new, Load):
                self._log(new)
                plan[orig] = _LOGGED
            elif isinstance(orig, Store) and alive:
                new.erase()  # type: ignore[union-attr]
            elif isinstance(orig, CallBase):
                derived = _derived_call(new, forwards)
                if derived is not None:
                    name, sig = forwards[id(derived.called_function)]
                    callee = self.derivatives.fwdsplit(self.derivatives.module.functions[name], sig)
                    self._retarget(derived, callee)
                    plan[orig] = callee
                elif alive and isinstance(new, CallBase):
                    if self._recomputed(new):
                        self.kept.add(id(new))
                        continue
                    if isinstance(new, Invoke):
                        raise gu.error(orig, "__enzyme_fwdsplit with a tape cannot replay an invoke of a function "
                                       "that may touch memory", _HINT)
                    if new.type == VOID:
                        new.erase()
                    else:
                        self._log(new)
                        plan[orig] = _LOGGED
        self._check_tangent_calls()
        return plan

    def _recomputed(self, call: CallBase) -> bool:
        return _pure(self.derivatives.module, call)

    def _log(self, inst: Instruction) -> None:
        self.b.position_before(inst)
        value = pop(self.derivatives.module, self.b, self.tape, inst.type, self.derivatives.layout,
                    (inst.name or "v") + ".taped")
        inst.replace_all_uses_with(value)
        inst.erase()

    def _retarget(self, call: CallBase, callee: ForwardSplit) -> None:
        """`fwddiffe_g(...)` → `fwdsplit_g(..., tape)`."""
        b = self.b
        b.position_before(call)
        target = callee.replay.function
        args = [*call.args, self.tape]
        name = "" if target.function_type.ret == VOID else (call.name or "fwd") + ".replay"
        if isinstance(call, Invoke):
            new = b.invoke(target, args, call.normal_dest, call.unwind_dest, name)
        else:
            new = b.call(target, args, name)
        self.replays.add(id(new))
        if call.uses:
            call.replace_all_uses_with(new)
        call.erase()

    def _check_tangent_calls(self) -> None:
        """The calls the tangent code added must touch shadows only (or nothing)."""
        module = self.derivatives.module
        for inst in self.fn.instructions():
            if not isinstance(inst, CallBase) or id(inst) in self.kept or id(inst) in self.replays:
                continue
            fn = inst.called_function
            name = (fn.name or "") if isinstance(fn, Function) else ""
            if name == POP or name.startswith(_SHADOW_CALLS) or name in DEALLOCATORS or allocator_of(inst) is not None:
                continue
            if _pure(module, inst) or (name.startswith("llvm.") and not _pointer_args(inst)):
                continue
            orig = self.gu.original_of.get(inst)
            raise self.gu.error(orig if isinstance(orig, Instruction) else None,
                                f"__enzyme_fwdsplit with a tape cannot replay the tangent's call of "
                                f"'{name or 'a function pointer'}': it may read the primal's memory", _HINT)


def _pure(module: Module, call: CallBase) -> bool:
    """A call whose result depends on its arguments alone and that writes nothing the
    caller sees: a function touching no such memory, or math with a rule and no
    pointer argument (`sin` declared without attributes at -O0)."""
    fn = call.called_function
    if not isinstance(fn, Function):
        return False
    if touches_no_visible_memory(module, fn):
        return True
    return has_rule(fn.name or "") and not _pointer_args(call)


def _pointer_args(call: CallBase) -> bool:
    return any(isinstance(a.type, PointerType) for a in call.args)


def _derived_call(new: object, forwards: dict[int, tuple]) -> CallBase | None:
    """The call of a callee's forward derivative that replaced an original call, if any."""
    call = new.aggregate if isinstance(new, ExtractValue) else new
    if isinstance(call, CallBase) and call.parent is not None and id(call.called_function) in forwards:
        return call
    return None


def _build_augmented(derivatives: SplitDerivatives, original: Function, split: ForwardSplit,
                     plan: dict[Instruction, object]) -> None:
    """`augfwd_f`: the prepared copy of f, appending to the tape what the replay reads."""
    aug = split.augmented
    value_map: dict = {}
    for a, na in zip(original.args, aug.args):
        na.name = a.name or f"arg{a.index}"
        value_map[a] = na
    aug.blocks = []
    clone_into(original, aug, value_map)
    strip_debug_info(aug)
    tape = aug.args[-1]
    b = IRBuilder()
    for orig, action in plan.items():
        new = value_map[orig]
        if action is _LOGGED:
            b.position_after(new)
            push(derivatives.module, b, tape, new, derivatives.layout)
            continue
        assert isinstance(action, ForwardSplit) and isinstance(new, CallBase)
        b.position_before(new)
        target = action.augmented
        args = [*new.args, tape]
        name = "" if target.function_type.ret == VOID else (new.name or "call") + ".aug"
        if isinstance(new, Invoke):
            call = b.invoke(target, args, new.normal_dest, new.unwind_dest, name)
        else:
            call = b.call(target, args, name)
        if new.uses:
            new.replace_all_uses_with(call)
        new.erase()
