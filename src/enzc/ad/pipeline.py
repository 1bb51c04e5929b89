"""The AD stage over a whole module: parse lazily, lower entry points, print back.

Only functions that mention an entry point are parsed (to find the calls), plus
the functions being differentiated; every other body is printed back verbatim.
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

from enzc.ir.datalayout import for_module
from enzc.ir.debuginfo import global_location
from enzc.ir.instructions import CallBase
from enzc.ir.module import Function, GlobalVariable, Module
from enzc.ir.values import ConstantExpr, Value

from enzc.ad.augment_size import is_augment_size, lower_augment_size
from enzc.ad.auto_shadows import create_auto_shadows
from enzc.ad.batch import is_batch, lower_batch
from enzc.ad.callsite import REVERSE_MARK, CallSiteLowering, is_entry_point
from enzc.ad.dense import dense_builtin, lower_dense_views
from enzc.ad.diagnostics import ADError, ad_error
from enzc.ad.markers import apply_registrations
from enzc.ad.memory.byte_split_copies import join_byte_split_copies
from enzc.ad.synth.cache_report import report as cache_report
from enzc.ad.synth.derivatives import DerivativeCache
from enzc.ad.synth.preprocess import ITER, iteration_calls

OTHER_BUILTINS = ("__enzyme_context", "__enzyme_shadow", "__enzyme_truncate_mem_func", "__enzyme_truncate_op_func")
"""Other Enzyme runtime builtins: without this error they would only fail at link time."""


def lower_module(module: Module, *, print_activity: bool = False, print_gradient: bool = False,
                 print_cache: bool = False, tape_stats: bool = False, auto_shadow: bool = True,
                 runtime_activity: bool = False, err: TextIO | None = None) -> int:
    """Replace every entry-point call in `module` (and `__enzyme_batch`, `__enzyme_iter`);
    returns how many. `auto_shadow`: give written globals of plain data a shadow (`auto_shadows`);
    `runtime_activity`: every entry call as if it carried `enzyme_runtime_activity`."""
    err = err or sys.stderr
    existing = set(module.functions)
    apply_registrations(module)
    differentiated = _differentiated_names(module)
    for name in differentiated:  # before anything reads their bodies
        join_byte_split_copies(module, module.functions[name])
    count = lower_dense_views(module, before_ad=True, differentiated=lambda: differentiated)
    derivatives = DerivativeCache(module, for_module(module), tape_stats=tape_stats)
    lowering = CallSiteLowering(module, derivatives)
    lowering.runtime_activity = runtime_activity
    entry_points = {f.name for f in module.functions.values() if is_entry_point(f)}
    for gv in module.globals.values():  # a table of entry points: only direct calls are replaced
        if entry_points and gv.initializer is not None and "ptr" in str(gv.value_type):
            named = set(_GLOBAL_NAME.findall(gv.initializer.ref())) & entry_points
            if named:
                where = global_location(module, gv) if isinstance(gv, GlobalVariable) else None
                raise ADError(f"{f'{where}: ' if where else ''}error: enzc: '{min(named)}' is stored in the "
                              f"global '{gv.name}': enzc replaces direct calls of it only\n"
                              f"hint: call {min(named)} directly where the derivative is needed")
    callers = [f for f in module.functions.values() if not f.is_declaration and _mentions_entry_point(f)]
    if auto_shadow:
        create_auto_shadows(module, callers)
    for caller in nested_first(module, callers):
        for inst in list(caller.instructions()):
            operands = inst.operands[:-1] if isinstance(inst, CallBase) else inst.operands  # not the callee
            taken = next((op for op in operands if isinstance(op, Function) and is_entry_point(op)), None)
            if taken is not None:  # it would stay an unresolved symbol: a link error naming a temp file
                raise ad_error(module, inst, caller.name or "?",
                               f"'{taken.name}' is used other than in a direct call (through a function "
                               "pointer?): enzc replaces direct calls only",
                               f"call {taken.name} directly where the derivative is needed")
            if not isinstance(inst, CallBase):
                continue
            callee = inst.called_function
            if is_entry_point(callee):
                lowering.lower(inst, caller)
                count += 1
            elif is_augment_size(callee):
                lower_augment_size(module, inst, caller)
                count += 1
            elif is_batch(callee):
                lower_batch(lowering, inst, caller)
                count += 1
            elif dense_builtin(callee):
                continue  # a view handed to an entry point: lowered once that is a derivative's call
            elif callee is not None and (builtin := _unsupported_builtin(callee.name or "")):
                raise ad_error(module, inst, caller.name or "?",
                               f"'{builtin}' is not supported yet (enzc has __enzyme_autodiff, __enzyme_fwddiff, "
                               "__enzyme_augmentfwd/__enzyme_reverse, __enzyme_error_estimate, __enzyme_fwdsplit)")
        derivatives.types.forget(caller)  # its entry calls are calls of derivatives now
    lowering.remove_markers()
    count += lower_dense_views(module, before_ad=False)  # the views handed to entry points
    count += _settle_iteration_counts(module)
    _inherit_sanitizers(module, existing)
    if print_cache:
        for s in derivatives.split_done.values():
            err.write(cache_report(f"split_{s.function.name} (augmented/reverse pair, stack blocks in its tape)", s.caches, s.cache_allocations))
    for d in derivatives.done.values():
        if print_activity:
            err.write(f"; activity of {d.function.name[len('diffe_'):]} {d.signature.text()}\n")
            err.write(d.activity.text())
        if print_cache:
            err.write(cache_report(d.function.name or "?", d.caches, d.cache_allocations))
        if print_gradient:
            from enzc.ir import print_function  # type: ignore[attr-defined]

            err.write(print_function(d.function) + "\n")
    return count


SANITIZE_PREFIX = "sanitize_"


def _inherit_sanitizers(module: Module, existing: set[str]) -> None:
    """A sanitizer build instruments at code generation the functions marked
    `sanitize_thread`, `sanitize_address`, ...: the functions the AD stage made get
    the marks the module's own functions have, so ThreadSanitizer also sees the
    reverse pass's accesses to shadow memory (and AddressSanitizer checks them)."""
    marks: set[str] = set()
    for fn in module.functions.values():
        if fn.name in existing and not fn.is_declaration:
            for group_or_attr in fn.fn_attrs:
                marks.update(a for a in _attributes(module, group_or_attr) if a.startswith(SANITIZE_PREFIX))
    if not marks:
        return
    for name, fn in module.functions.items():
        if name not in existing and not fn.is_declaration:
            present = {a for g in fn.fn_attrs for a in _attributes(module, g)}
            fn.fn_attrs = (*fn.fn_attrs, *sorted(marks - present))


def _attributes(module: Module, attr: str) -> list[str]:
    """`attr`, or the attributes of group `#n`."""
    if attr.startswith("#") and attr[1:] in module.attribute_groups:
        return list(module.attribute_groups[attr[1:]])
    return [attr]


def _settle_iteration_counts(module: Module) -> int:
    """`__enzyme_iter(n, k)` left in any function (primal or derivative) is `n` from now on;
    the copies differentiated have raised their `n` already (`preprocess`). Returns how many."""
    if ITER not in module.functions:
        return 0
    count = 0
    for fn in module.functions.values():
        if fn.is_declaration or not _mentions_entry_point(fn):
            continue
        for call in iteration_calls(fn):
            call.replace_all_uses_with(call.args[0])
            call.erase()
            count += 1
    return count


def nested_first(module: Module, callers: list[Function]) -> list[Function]:
    """`callers` ordered so that a function differentiated by one of them comes first.

    Higher-order AD (`df` calls `__enzyme_autodiff(f)`, `main` calls
    `__enzyme_autodiff(df)`): the inner call must be lowered to a call of `diffe_f`
    before `df` is differentiated, or it is an unknown external call. Module order
    does not ensure that (clang emits a `static df` after its first user).
    """
    pending = {id(f): f for f in callers}
    order: list[Function] = []
    visiting: set[int] = set()

    def visit(caller: Function) -> None:
        if id(caller) not in pending or id(caller) in visiting:
            return
        visiting.add(id(caller))
        for dependency in _reachable(module, _differentiated(caller)):
            if dependency is not caller:
                visit(dependency)
        order.append(pending.pop(id(caller)))

    for caller in callers:
        visit(caller)
    return order


def _differentiated_names(module: Module) -> set[str]:
    """Names of the functions entry points differentiate, and of all they reach."""
    callers = [f for f in module.functions.values() if not f.is_declaration and _mentions_entry_point(f)]
    roots = [fn for caller in callers for fn in _differentiated(caller)]
    return {fn.name or "" for fn in _reachable(module, roots)}


def _differentiated(caller: Function) -> list[Function]:
    """Functions passed to the entry-point calls in `caller`."""
    out: list[Function] = []
    for inst in caller.instructions():
        if isinstance(inst, CallBase) and is_entry_point(inst.called_function):
            out.extend(_functions_in(inst.args[:1]))
    return out


def _functions_in(values: list[Value]) -> list[Function]:
    """The functions `values` name, through casts (`(void *)f` as a constant expression)."""
    out: list[Function] = []
    todo = list(values)
    while todo:
        v = todo.pop()
        if isinstance(v, Function):
            out.append(v)
        elif isinstance(v, ConstantExpr):
            todo.extend(v.operands)
    return out


def _reachable(module: Module, roots: list[Function]) -> list[Function]:
    """Functions defined in `module` that `roots` reach by naming them (calls, pointers)."""
    seen: dict[int, Function] = {}
    todo = list(roots)
    while todo:
        fn = todo.pop()
        if id(fn) in seen or fn.is_declaration:
            continue
        seen[id(fn)] = fn
        todo.extend(_named_functions(module, fn))
    return list(seen.values())


def _named_functions(module: Module, fn: Function) -> list[Function]:
    if not fn.is_materialized and fn.source_text is not None:
        names = _GLOBAL_NAME.findall(fn.source_text)
        return [g for n in names if (g := module.functions.get(n.strip('"'))) is not None]
    return [op for inst in fn.instructions() for op in _functions_in(list(inst.operands))]


_GLOBAL_NAME = re.compile(r'@("[^"]*"|[-\w.$]+)')


def _unsupported_builtin(name: str) -> str | None:
    """The Enzyme builtin `name` contains (typed variant, C++ mangling) that enzc does not implement."""
    return next((builtin for builtin in OTHER_BUILTINS if builtin in name), None)


def _mentions_entry_point(fn: Function) -> bool:
    if not fn.is_materialized and fn.source_text is not None:
        return "__enzyme_" in fn.source_text
    return True


__all__ = ["lower_module", "REVERSE_MARK"]
