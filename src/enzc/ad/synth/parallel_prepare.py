"""OpenMP code in the private copy of a function to differentiate, made explicit.

Two things clang emits hide data flow from the engine; on the private copy (never
on the user's function) they are rewritten before activity analysis:

- Reductions. `__kmpc_reduce_nowait(loc, gtid, n, size, data, combine, lock)`
  lets the runtime choose how the team's private copies are combined: under a
  lock (it returns 1: each thread adds its copy to the shared variable), with
  atomics (2), or in a tree where the runtime calls `combine` on other threads'
  copies and only the master adds the result (1 on the master, 0 elsewhere). The
  tree's additions happen inside the runtime, out of the derivative's sight. So
  the derivative always takes the lock: the call becomes `__kmpc_critical(loc,
  gtid, lock)` and the constant 1, `__kmpc_end_reduce_nowait` becomes
  `__kmpc_end_critical` (the blocking `__kmpc_reduce`/`__kmpc_end_reduce` add
  the barrier the latter implies). The switch on the answer then folds to the
  locked path, and the atomic one disappears.
- Captures passed by value. A `firstprivate` double is passed to the fork call as
  the `i64` of its bits (varargs are read as pointer-sized words) and turned back
  into a double in the outlined function; a shared variable the region only reads
  (a pointer argument `x`, a coefficient `c`) is passed as the address of a stack
  slot the caller stores it into once. Through the slot, a constant pointer would
  look like a pointer stored into shadowed memory, and the region's activity
  would follow the slot rather than the value. The fork call of the private copy
  passes the double, pointer or float itself to a clone of the outlined function
  taking it by value (`<outlined>.byval`), so each capture is an ordinary `out`,
  `dup` or constant argument; the fork's lowering (`parallel_region`) passes
  floats as words again (`parallel_wrappers`). The caller's own later loads of
  such a slot (clang reloads `u` from it before each call in a time loop) read
  the stored value directly, so the caller's alias facts see `u` itself (an
  argument, a `gep` of one), not an unknown loaded pointer.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import Alloca, Br, CallBase, Cast, Instruction, Load, Store, Switch
from enzc.ir.loops import LoopInfo
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.transforms import clone_into, remove_unreachable_blocks
from enzc.ir.types import DOUBLE, FLOAT, I32, I64, PTR, VOID, FunctionType, Type
from enzc.ir.values import Argument, ConstantInt, Value

from enzc.ad.analysis.openmp import CAPTURES_START, FORK, OUTLINED_CAPTURES_START, callee, outlined_function

_REDUCE = {"__kmpc_reduce_nowait": False, "__kmpc_reduce": True}
"""Reduction entry points, and whether their end implies a barrier."""
_END_REDUCE = ("__kmpc_end_reduce_nowait", "__kmpc_end_reduce")

RETYPED_SUFFIX = ".byval"
"""Name suffix of an outlined function's clone taking captures by value."""


def prepare_parallel(fn: Function, module: Module) -> None:
    """Rewrite reductions and float captures of private copy `fn` (module docstring)."""
    calls = [i for i in fn.instructions() if isinstance(i, CallBase)]
    if not any(callee(c) in _REDUCE or callee(c) == FORK for c in calls):
        return
    folded = False
    slots: list[Alloca] = []
    order = _Order(fn)
    for call in calls:
        name = callee(call)
        if name in _REDUCE:
            _lock_reduction(call, module)
            folded = True
        elif name in _END_REDUCE:
            _unlock_reduction(call, module, name == "__kmpc_end_reduce")
        elif name == FORK:
            slots.extend(_retype_captures(call, module, order))
    if slots:
        _forward_slot_loads(slots, order)
    if folded:
        for block in list(fn.blocks):
            _fold_constant_switch(block)
        remove_unreachable_blocks(fn)


def _lock_reduction(call: CallBase, module: Module) -> None:
    loc, gtid, lock = call.args[0], call.args[1], call.args[6]
    b = IRBuilder()
    b.position_before(call)
    b.call(_declare(module, "__kmpc_critical", VOID, (PTR, I32, PTR)), [loc, gtid, lock])
    call.replace_all_uses_with(ConstantInt(I32, 1))
    call.erase()


def _unlock_reduction(call: CallBase, module: Module, barrier: bool) -> None:
    loc, gtid, lock = call.args[0], call.args[1], call.args[2]
    b = IRBuilder()
    b.position_before(call)
    b.call(_declare(module, "__kmpc_end_critical", VOID, (PTR, I32, PTR)), [loc, gtid, lock])
    if barrier:
        b.call(_declare(module, "__kmpc_barrier", VOID, (PTR, I32)), [loc, gtid])
    call.erase()


def _declare(module: Module, name: str, ret: Type, params: tuple[Type, ...]) -> Function:
    return get_or_insert_function(module, name, FunctionType(ret, params))


def _fold_constant_switch(block: BasicBlock) -> None:
    """`switch i32 1, ...` after a reduction became a lock: a branch to its case."""
    term = block.terminator
    if not isinstance(term, Switch) or not isinstance(term.condition, ConstantInt):
        return
    value = term.condition.value
    target = next((dest for v, dest in term.cases if isinstance(v, ConstantInt) and v.value == value), term.default)
    for succ in dict.fromkeys(term.successors):
        for phi in succ.phis:
            entries = [(v, p) for v, p in phi.incoming if p is block]
            if not entries:
                continue
            phi.remove_incoming(block)
            if succ is target:
                phi.add_incoming(entries[0][0], block)
    term.erase()
    block.append(Br(target))


# -- captures by value -----------------------------------------------------------------------


class _Order:
    """Dominance and loops of the function being prepared (its blocks do not change
    while captures are retyped)."""

    def __init__(self, fn: Function) -> None:
        self.dom = DominatorTree(fn)
        self.loops = LoopInfo(fn, self.dom)

    def reads_stored(self, store: Store, at: Instruction) -> bool:
        """Whether `at` may use `store`'s value instead of reloading it: the store
        dominates `at`, and the value is defined in no loop that `at` is outside of
        (the loops stay in LCSSA form)."""
        value = store.value
        if not self.dom.dominates(store, at):
            return False
        return not isinstance(value, Instruction) or \
            set(self.loops.loops_of(value.parent)) <= set(self.loops.loops_of(at.parent))  # type: ignore[arg-type]


def _retype_captures(call: CallBase, module: Module, order: _Order) -> list[Alloca]:
    """Pass float words and read-only slots by value to a clone (module docstring);
    returns the slots now passed by value."""
    outlined = outlined_function(call)
    if outlined is None:
        return []
    outlined.blocks  # a lazy body is parsed now: its parameters' uses are read below
    words: dict[int, Value] = {}
    slots: dict[int, Value] = {}
    for k, a in enumerate(call.args[CAPTURES_START:]):
        param = outlined.args[k + OUTLINED_CAPTURES_START]
        if (f := float_bits_source(a)) is not None:
            words[k] = f
        elif (v := _slot_value(a, call, param, order)) is not None:
            slots[k] = v
    if not words and not slots:
        return []
    clone = _retyped_clone(outlined, {k + OUTLINED_CAPTURES_START: v.type for k, v in words.items()},
                           {k + OUTLINED_CAPTURES_START: v.type for k, v in slots.items()}, module)
    passed = [call.args[CAPTURES_START + k] for k in slots]
    call.set_operand(2, clone)
    for k, v in {**words, **slots}.items():
        call.set_operand(CAPTURES_START + k, v)
    call.explicit_type = True
    return [a for a in passed if isinstance(a, Alloca)]


def _forward_slot_loads(slots: list[Alloca], order: _Order) -> None:
    """The caller's loads of a capture slot read the stored value where it reaches
    them, when nothing but its one store, loads and lifetime markers use the slot
    any more (every fork now passes the value)."""
    for slot in dict.fromkeys(slots):
        stores = [u for u in slot.users if isinstance(u, Store)]
        loads = [u for u in slot.users if isinstance(u, Load)]
        markers = [u for u in slot.users if isinstance(u, CallBase) and callee(u).startswith("llvm.lifetime.")]
        if len(stores) != 1 or stores[0].ptr is not slot or len(stores) + len(loads) + len(markers) != len(slot.users):
            continue
        for load in loads:
            if load.type == stores[0].value.type and order.reads_stored(stores[0], load):
                load.replace_all_uses_with(stores[0].value)
                load.erase()


def _slot_value(slot: Value, fork: CallBase, param: Argument, order: _Order) -> Value | None:
    """The pointer or float `slot` holds if the caller stores it there once, the
    store reaching `fork` (`_Order.reads_stored`), and the region only loads it
    whole; else None."""
    if not isinstance(slot, Alloca) or sum(1 for a in fork.args if a is slot) != 1:
        return None
    stores = [u for u in slot.users if isinstance(u, Store)]
    others = [u for u in slot.users if not isinstance(u, (Store, Load)) and u is not fork
              and not (isinstance(u, CallBase) and callee(u).startswith("llvm.lifetime."))
              and not _region_only_loads(u, slot)]
    if len(stores) != 1 or others or stores[0].ptr is not slot:
        return None
    value = stores[0].value
    if value.type not in (PTR, DOUBLE, FLOAT) or not order.reads_stored(stores[0], fork):
        return None
    if not param.users or not all(isinstance(u, Load) and u.ptr is param and u.type == value.type
                                  for u in param.users):
        return None
    return value


def _region_only_loads(user: Value, slot: Alloca) -> bool:
    """Whether `user` is another fork passing `slot` once to a region that only loads it."""
    if not isinstance(user, CallBase) or callee(user) != FORK or sum(1 for a in user.args if a is slot) != 1:
        return False
    outlined = outlined_function(user)
    if outlined is None:
        return False
    outlined.blocks  # a lazy body is parsed now
    param = outlined.args[user.args.index(slot) - CAPTURES_START + OUTLINED_CAPTURES_START]
    return all(isinstance(u, Load) and u.ptr is param for u in param.users)


def float_bits_source(v: Value) -> Value | None:
    """The float whose bits `v` holds: `bitcast double X to i64`, or `zext (bitcast
    float X to i32) to i64`."""
    if isinstance(v, Cast) and v.opcode == "zext" and v.type == I64:
        inner = v.value
        if isinstance(inner, Cast) and inner.opcode == "bitcast" and inner.type == I32 and inner.value.type == FLOAT:
            return inner.value
        return None
    if isinstance(v, Cast) and v.opcode == "bitcast" and v.type == I64 and v.value.type == DOUBLE:
        return v.value
    return None


def _retyped_clone(outlined: Function, word_params: dict[int, Type], slot_params: dict[int, Type],
                   module: Module) -> Function:
    """`outlined` taking the floats at `word_params` and the slots' contents at
    `slot_params` directly (memoized by name and retyped positions)."""
    key = ".".join(f"{'w' if i in word_params else 's'}{i}" for i in sorted({**word_params, **slot_params}))
    name = f"{outlined.name or 'outlined'}{RETYPED_SUFFIX}.{key}"
    got = module.get_function(name)
    if got is not None:
        return got
    retyped = {**word_params, **slot_params}
    params = tuple(retyped.get(i, t) for i, t in enumerate(outlined.function_type.params))
    clone = module.add_function(name, FunctionType(outlined.function_type.ret, params), unique=False)
    clone.linkage.words = ["internal"]
    clone.fn_attrs = outlined.fn_attrs
    clone.blocks = []
    value_map: dict[Value, Value] = {}
    rebuilt: list[Instruction] = []
    chains: dict[Argument, list[Instruction]] = {}
    for old, new in zip(outlined.args, clone.args):
        new.name = old.name
        value_map[old] = new
        if old.index in word_params:
            bits = chains[new] = _bits_of(new)
            value_map[old] = bits[-1]
            rebuilt.extend(bits)
        elif old.index not in slot_params:
            new.attrs = old.attrs
    clone_into(outlined, clone, value_map)
    for inst in reversed(rebuilt):
        inst.insert_before(clone.entry.instructions[0])
    for arg, chain in chains.items():
        _forward_float_uses(arg, chain)
    for i in slot_params:
        for load in list(clone.args[i].users):
            load.replace_all_uses_with(clone.args[i])  # the region's loads of the slot: the value
            load.erase()
    return clone


def _bits_of(arg: Argument) -> list[Instruction]:
    """Detached instructions rebuilding the i64 word the original parameter held."""
    if arg.type == FLOAT:
        as_int = Cast("bitcast", arg, I32)
        return [as_int, Cast("zext", as_int, I64)]
    return [Cast("bitcast", arg, I64)]


def _forward_float_uses(arg: Argument, chain: list[Instruction]) -> None:
    """Uses turning the rebuilt word back into the float (`bitcast i64 to double`;
    `trunc` to i32 then `bitcast` to float) use the float itself; the rebuilding
    instructions go when nothing else needs them."""
    for use in list(chain[-1].uses):
        user = use.user
        backs = [user] if arg.type == DOUBLE else \
            [u.user for u in list(user.uses)] if isinstance(user, Cast) and user.opcode == "trunc" else []
        for back in backs:
            if isinstance(back, Cast) and back.opcode == "bitcast" and back.type == arg.type:
                back.replace_all_uses_with(arg)
                back.erase()
        if isinstance(user, Cast) and user.opcode == "trunc" and not user.uses:
            user.erase()
    for inst in reversed(chain):
        if not inst.uses:
            inst.erase()
