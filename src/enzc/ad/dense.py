"""`__enzyme_todense(load_fn, store_fn, args...)`: memory whose loads and stores are calls.

The builtin returns a pointer `p`; every load of `T` at `p + off` becomes
`load_fn(off, args...)` and every store of `v` there `store_fn(v, off, args...)`,
`off` in bytes (Enzyme's ABI). Code written for dense arrays then runs on sparse or
computed storage, and differentiates through the calls like any other code.
`__enzyme_post_sparse_todense` is the same view (Enzyme lowers it after its own
sparsity rewrite, which enzc does not have).

The lowering replaces the builtin's result by `null`: pointers computed from it
(GEPs without `inbounds`, casts, phis, selects) then carry the byte offset, which
`ptrtoint` reads at each load and store, and comparisons between them keep their
meaning. A call that passes such a pointer to a defined function calls a copy of
that function (`dense_clone`) taking the view's arguments as extra parameters,
rewritten the same way; a `memcpy`/`memset` on the view becomes a loop of element
moves first (`dense_memory`). Anything else the pointer reaches (a store of the
pointer itself, an external call, a return, an integer conversion) is a located
compile-time error: the view would be silently wrong there.

It runs twice. Before AD (`before_ad=True`), every view whose pointers reach no
`__enzyme_*` call: the functions being differentiated then contain calls of
`load_fn`/`store_fn`, differentiated as code. A view handed to an entry point (a
primal or a shadow of `__enzyme_fwddiff`, as Enzyme's sparse Hessians do) waits
until the entry point is a call of its derived function, and is lowered after AD.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from enzc.ir.builder import IRBuilder
from enzc.ir.datalayout import for_module
from enzc.ir.instructions import (Call, CallBase, Cast, Compare, Freeze, GetElementPtr, Instruction, Invoke, Load,
                                  Phi, Select, Store)
from enzc.ir.module import Function, Module
from enzc.ir.types import I1, PTR, VOID, ArrayType, FloatType, IntType, StructType, Type, VectorType
from enzc.ir.values import ConstantInt, ConstantSimple, Value, null

from enzc.ad.analysis.uses import derived_values
from enzc.ad.callsite import function_of
from enzc.ad.dense_memory import expand_transfer, is_view_transfer
from enzc.ad.dense_clone import clone_with_view_params, offset_attributes, without_memory_facts
from enzc.ad.diagnostics import ADError, ad_error, readable_name

TODENSE = "__enzyme_todense"
POST_SPARSE_TODENSE = "__enzyme_post_sparse_todense"
BUILTINS = (TODENSE, POST_SPARSE_TODENSE)
ENZYME_PREFIX = "__enzyme_"
POINTER_FLOW = ("bitcast", "addrspacecast")
GEP_FLAGS_DROPPED = ("inbounds", "nusw", "nuw")
ERASED_INTRINSICS = ("llvm.prefetch", "llvm.assume")
"""Intrinsics that may name a view pointer and are dropped with it (hints only)."""


@dataclass(frozen=True)
class DenseView:
    """One `__enzyme_todense` call: its functions and, in the function being rewritten,
    the values its extra arguments are."""

    load_fn: Function
    store_fn: Function
    args: tuple[Value, ...]
    origin: CallBase
    """The builtin's call, where errors about the view point."""
    origin_function: str
    builtin: str

    def key(self) -> tuple:
        return (id(self.load_fn), id(self.store_fn), tuple(str(a.type) for a in self.args))


def dense_builtin(fn: Function | None) -> str | None:
    """The dense-view builtin `fn` is (by name: C++ mangling, typed variants), if any."""
    name = (fn.name or "") if fn is not None else ""
    if POST_SPARSE_TODENSE in name:
        return POST_SPARSE_TODENSE
    return TODENSE if TODENSE in name else None


def lower_dense_views(module: Module, *, before_ad: bool,
                      differentiated: Callable[[], set[str]] = lambda: set()) -> int:
    """Lower the dense-view builtins of `module`; returns how many calls were lowered.

    `before_ad`: leave the views whose pointers reach an `__enzyme_*` call (they are
    lowered after AD); such a view inside a function named by `differentiated()` is an
    error, since its derivative would take the builtin for an unknown call."""
    lowering = _Lowering(module)
    count = 0
    differentiated_names: set[str] | None = None
    for fn in list(module.functions.values()):
        if fn.is_declaration or not _mentions_builtin(fn):
            continue
        calls = [i for i in fn.instructions() if isinstance(i, CallBase) and dense_builtin(i.called_function)]
        for call in calls:
            view = _view_of(module, fn, call)
            if before_ad and lowering.reaches_enzyme_call(fn, [call]):
                differentiated_names = differentiated() if differentiated_names is None else differentiated_names
                if fn.name in differentiated_names:
                    raise ad_error(module, call, fn.name or "?",
                                   f"a pointer of {view.builtin} made inside a function being differentiated "
                                   "is passed to another __enzyme_* call",
                                   f"call {view.builtin} in the function that makes the outer __enzyme_* call")
                continue
            lowering.rewrite(fn, [call], view)
            _erase_builtin_call(call)
            count += 1
    return count


def _erase_builtin_call(call: CallBase) -> None:
    """The view's pointer is `null` from now on; an `invoke` of the builtin (C++ without
    `noexcept`) becomes a branch to its normal destination."""
    call.replace_all_uses_with(null(PTR))
    if isinstance(call, Invoke):
        block = call.parent
        b = IRBuilder()
        b.position_before(call)
        b.br(call.normal_dest)
        for inst in call.unwind_dest.instructions:
            if isinstance(inst, Phi):
                inst.remove_incoming(block)
    call.erase()


def _mentions_builtin(fn: Function) -> bool:
    if not fn.is_materialized and fn.source_text is not None:
        return any(b in fn.source_text for b in BUILTINS)
    return True


def _view_of(module: Module, fn: Function, call: CallBase) -> DenseView:
    builtin = dense_builtin(call.called_function) or TODENSE
    args = list(call.args)
    fns = [function_of(a) for a in args[:2]]
    if len(args) < 2 or fns[0] is None or fns[1] is None:
        raise ad_error(module, call, fn.name or "?",
                       f"{builtin} needs a load function and a store function (not pointers to them) "
                       "as its first two arguments",
                       f"write {builtin}((void *)load, (void *)store, args...) with "
                       "double load(int64_t offset, args...) and void store(double v, int64_t offset, args...)")
    return DenseView(fns[0], fns[1], tuple(args[2:]), call, fn.name or "?", builtin)


class _Lowering:
    """The rewrite of views, with the callee copies made so far."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.layout = for_module(module)
        self.copies: dict[tuple, Function] = {}

    # -- the pointers of a view --------------------------------------------------------
    def derived(self, roots: list[Value]) -> dict[Value, None]:
        """`roots` and every pointer computed from them (GEP, cast, phi, select, freeze)."""
        return derived_values(roots, _carries_pointer)

    def reaches_enzyme_call(self, fn: Function, roots: list[Value], visited: set | None = None) -> bool:
        """Whether the view's pointers reach an `__enzyme_*` call, here or in callees."""
        visited = visited if visited is not None else set()
        for v in self.derived(roots):
            for user in v.users:
                if not isinstance(user, CallBase) or v is user.callee:
                    continue
                callee = user.called_function
                if callee is None:
                    continue
                if callee.is_declaration:
                    if ENZYME_PREFIX in (callee.name or "") and not dense_builtin(callee):
                        return True
                    continue
                if not callee.blocks:  # parses a lazy body: only then do the arguments know their users
                    continue
                for i, a in enumerate(user.args):
                    if a is v and i < len(callee.args) and (id(callee), i) not in visited:
                        visited.add((id(callee), i))
                        if self.reaches_enzyme_call(callee, [callee.args[i]], visited):
                            return True
        return False

    # -- the rewrite ---------------------------------------------------------------------
    def rewrite(self, fn: Function, roots: list[Value], view: DenseView) -> None:
        """Turn every use of the view's pointers in `fn` into calls (or errors)."""
        derived = self.derived(roots)
        transfers = [u for v in derived for u in v.users
                     if isinstance(u, CallBase) and u.callee is not v and is_view_transfer(u)]
        if transfers:  # memcpy/memset: element moves first, then lowered with the rest
            element = view.load_fn.function_type.ret
            if element == VOID:
                raise self._error(fn, transfers[0], view, f"copies elements but "
                                  f"{readable_name(view.load_fn.name)} returns void")
            for call in dict.fromkeys(transfers):
                expand_transfer(self.module, self.layout, call, element,
                                lambda inst, what, hint: self._error(fn, inst, view, what, hint))
            derived = self.derived(roots)
        for v in derived:
            self._check_flow(fn, v, derived, view)
        for v in derived:
            if isinstance(v, GetElementPtr):
                v.flags = tuple(f for f in v.flags if f not in GEP_FLAGS_DROPPED and not f.startswith("inrange"))
        uses = [user for v in derived for user in v.users
                if user not in derived and isinstance(user, Instruction)]  # debug records keep the pointer
        for user in dict.fromkeys(uses):
            if user.parent is None:  # erased already (a call rewritten for another argument)
                continue
            self._rewrite_use(fn, user, derived, view)

    def _check_flow(self, fn: Function, v: Value, derived: dict[Value, None], view: DenseView) -> None:
        """Phis and selects must merge pointers of this view only; GEP indices are no pointers."""
        if isinstance(v, Phi):
            inputs = [x for x, _ in v.incoming]
        elif isinstance(v, Select):
            if v.operand(0) in derived:
                raise self._error(fn, v, view, "selects on a pointer of the view")
            inputs = [v.operand(1), v.operand(2)]
        elif isinstance(v, GetElementPtr):
            if any(i in derived for i in v.indices):
                raise self._error(fn, v, view, "uses a pointer of the view as an index")
            return
        else:
            return
        if any(x not in derived and not _is_poison(x) for x in inputs):
            raise self._error(fn, v, view, "merges a pointer of the view with another pointer",
                              "keep the view's pointers apart from other memory")

    def _rewrite_use(self, fn: Function, user: Instruction, derived: dict[Value, None], view: DenseView) -> None:
        if isinstance(user, Load):
            self._load(fn, user, view)
        elif isinstance(user, Store) and user.ptr in derived and user.value not in derived:
            self._store(fn, user, view)
        elif isinstance(user, Store):
            raise self._error(fn, user, view, "stores a pointer of the view into memory",
                              "pass the pointer to functions instead of storing it")
        elif isinstance(user, Compare) and user.opcode == "icmp":
            self._compare(fn, user, derived, view)
        elif isinstance(user, CallBase):
            self._call(fn, user, derived, view)
        else:
            raise self._error(fn, user, view, f"uses a pointer of the view in '{user.opcode}'",
                              "only loads, stores, pointer arithmetic and calls of defined functions are lowered")

    def _load(self, fn: Function, load: Load, view: DenseView) -> None:
        if load.volatile or load.ordering is not None:
            raise self._error(fn, load, view, "loads through the view atomically or volatilely")
        ftype = view.load_fn.function_type
        self._check_signature(fn, load, view, view.load_fn, [None, *view.args], "load")
        b = _builder_at(load)
        offset = b.ptrtoint(load.ptr, ftype.params[0], "view.offset")
        value: Value = b.call(view.load_fn, [offset, *view.args], "view.load")
        if value.type != load.type:
            if not _same_bits(value.type, load.type):
                raise self._error(fn, load, view, f"loads {load.type} but {readable_name(view.load_fn.name)} "
                                  f"returns {value.type}", "make the load function return the element type")
            value = b.bitcast(value, load.type, "view.bits")
        load.replace_all_uses_with(value)
        load.erase()

    def _store(self, fn: Function, store: Store, view: DenseView) -> None:
        if store.volatile or store.ordering is not None:
            raise self._error(fn, store, view, "stores through the view atomically or volatilely")
        ftype = view.store_fn.function_type
        self._check_signature(fn, store, view, view.store_fn, [None, None, *view.args], "store")
        b = _builder_at(store)
        stored = store.value
        if stored.type != ftype.params[0]:
            if not _same_bits(stored.type, ftype.params[0]):
                raise self._error(fn, store, view, f"stores {stored.type} but {readable_name(view.store_fn.name)} "
                                  f"takes {ftype.params[0]}", "make the store function take the element type")
            stored = b.bitcast(stored, ftype.params[0], "view.bits")
        offset = b.ptrtoint(store.ptr, ftype.params[1], "view.offset")
        b.call(view.store_fn, [stored, offset, *view.args])
        store.erase()

    def _check_signature(self, fn: Function, at: Instruction, view: DenseView, target: Function,
                         expected: list[Value | None], what: str) -> None:
        """`target` takes the offset (an integer), the value for a store, then the view's arguments."""
        ftype = target.function_type
        offset_at = 0 if what == "load" else 1
        ok = not ftype.vararg and len(ftype.params) == len(expected) \
            and isinstance(ftype.params[offset_at], IntType) \
            and all(a is None or a.type == p for a, p in zip(expected, ftype.params))
        if not ok:
            shape = ("T load(int64_t offset, args...)" if what == "load"
                     else "void store(T value, int64_t offset, args...)")
            given = ", ".join(str(a.type) for a in view.args) or "none"
            raise self._error(fn, at, view, f"the {what} function {readable_name(target.name)} has type "
                              f"{ftype}; the view's extra arguments are ({given})",
                              f"declare it as {shape}, the arguments in the order and types given to {view.builtin}")

    def _compare(self, fn: Function, cmp: Compare, derived: dict[Value, None], view: DenseView) -> None:
        a, b = cmp.operand(0), cmp.operand(1)
        if a in derived and b in derived:
            return  # both carry offsets of the same view: the comparison keeps its meaning
        other = b if a in derived else a
        if isinstance(other, ConstantSimple) and other.ref() == "null" and cmp.predicate in ("eq", "ne"):
            cmp.replace_all_uses_with(ConstantInt(I1, int(cmp.predicate == "ne")))  # a view is never null
            cmp.erase()
            return
        raise self._error(fn, cmp, view, "compares a pointer of the view with another pointer")

    def _call(self, fn: Function, call: CallBase, derived: dict[Value, None], view: DenseView) -> None:
        callee = call.called_function
        name = (callee.name or "") if callee is not None else ""
        if call.callee in derived:
            raise self._error(fn, call, view, "calls through a pointer of the view")
        if any(name.startswith(n) for n in ERASED_INTRINSICS):
            call.erase()  # a prefetch of the view, an assumption about its alignment: hints only
            return
        if callee is None or callee.is_declaration or callee.function_type.vararg or call.bundles \
                or not isinstance(call, (Call, Invoke)):
            what = ("an indirect call" if callee is None else f"'{readable_name(name)}', which enzc cannot "
                    "rewrite (an external or variadic function)")
            raise self._error(fn, call, view, f"passes a pointer of the view to {what}",
                              "pass it to functions defined in the program, called directly")
        positions = tuple(i for i, a in enumerate(call.args) if a in derived)
        copy = self._copy_for(callee, positions, view)
        b = IRBuilder()
        b.position_before(call)
        attrs = dict(cconv=call.cconv, ret_attrs=call.ret_attrs,
                     fn_attrs=without_memory_facts(self.module, call.fn_attrs),
                     arg_attrs=[offset_attributes(a) if i in positions else a for i, a in enumerate(call.arg_attrs)]
                     + [() for _ in view.args])
        args = [*call.args, *view.args]
        new: CallBase = Invoke(copy.function_type, copy, args, call.normal_dest, call.unwind_dest, **attrs) \
            if isinstance(call, Invoke) else Call(copy.function_type, copy, args, **attrs)
        b.insert(new, call.name or "")
        new.metadata = dict(call.metadata)
        call.replace_all_uses_with(new)
        call.erase()

    def _copy_for(self, callee: Function, positions: tuple[int, ...], view: DenseView) -> Function:
        """The copy of `callee` whose parameters at `positions` are pointers of `view`."""
        key = (id(callee), positions, view.key())
        copy = self.copies.get(key)
        if copy is None:
            extra = tuple(a.type for a in view.args)
            copy = clone_with_view_params(self.module, callee, positions, extra)
            self.copies[key] = copy
            params = copy.args[len(callee.args):]
            inner = DenseView(view.load_fn, view.store_fn, tuple(params), view.origin, view.origin_function,
                              view.builtin)
            self.rewrite(copy, [copy.args[i] for i in positions], inner)
        return copy

    def _error(self, fn: Function, inst: Instruction, view: DenseView, what: str, hint: str | None = None) -> ADError:
        where = f" (made by {view.builtin} in '{readable_name(view.origin_function)}')"
        return ad_error(self.module, inst, fn.name or "?", f"{what}{where}: enzc cannot lower it to calls of "
                        f"{readable_name(view.load_fn.name)}/{readable_name(view.store_fn.name)}",
                        hint or "use the view's pointers only for loads, stores and pointer arithmetic")


def _carries_pointer(user: Value, v: Value) -> bool:
    """Whether `user` computes a pointer from `v` (and so belongs to the view)."""
    if isinstance(user, GetElementPtr):
        return user.ptr is v
    if isinstance(user, Cast):
        return user.opcode in POINTER_FLOW
    if isinstance(user, Select):
        return user.operand(0) is not v or user.operand(1) is v or user.operand(2) is v
    return isinstance(user, (Phi, Freeze))


def _is_poison(v: Value) -> bool:
    return isinstance(v, ConstantSimple) and v.ref() in ("poison", "undef")


def _same_bits(a: Type, b: Type) -> bool:
    """Whether a bitcast converts between `a` and `b` (scalars or vectors of one size)."""
    def bits(t: Type) -> int | None:
        if isinstance(t, IntType):
            return t.bits
        if isinstance(t, FloatType):
            return t.bits
        if isinstance(t, VectorType):
            inner = bits(t.element)
            return inner * t.count if inner is not None else None
        return None
    if isinstance(a, (ArrayType, StructType)) or isinstance(b, (ArrayType, StructType)):
        return False
    return bits(a) is not None and bits(a) == bits(b)


def _builder_at(inst: Instruction) -> IRBuilder:
    """A builder before `inst` whose instructions take its `!dbg`, else the nearest one in
    its block (LLVM requires a location on calls of functions with debug information
    inside a function with debug information)."""
    b = IRBuilder()
    b.position_before(inst)
    block = inst.parent.instructions if inst.parent is not None else [inst]
    located = next((i for i in (inst, *block) if "dbg" in i.metadata), None)
    if located is not None:
        b.copy_debug_location(located)
    return b


__all__ = ["BUILTINS", "DenseView", "dense_builtin", "lower_dense_views"]
