"""The AD stage over a whole module: parse lazily, lower entry points, print back.

Only functions that mention an entry point are parsed (to find the calls), plus
the functions being differentiated; every other body is printed back verbatim.
"""

from __future__ import annotations

import sys
from typing import TextIO

from enzc.ir.datalayout import for_module
from enzc.ir.instructions import CallBase
from enzc.ir.module import Function, Module

from enzc.ad.callsite import REVERSE_MARK, CallSiteLowering, is_entry_point
from enzc.ad.cache_report import report as cache_report
from enzc.ad.diagnostics import ad_error
from enzc.ad.markers import apply_registrations
from enzc.ad.synthesis import DerivativeCache

OTHER_MODES = ("__enzyme_fwddiff", "__enzyme_augmentfwd", "__enzyme_reverse", "__enzyme_virtualreverse",
               "__enzyme_fwdsplit")
"""Entry points of later issues: a clear error until they are implemented."""

OTHER_BUILTINS = ("__enzyme_iter", "__enzyme_batch", "__enzyme_context", "__enzyme_shadow", "__enzyme_todense",
                  "__enzyme_truncate_mem_func", "__enzyme_truncate_op_func", "__enzyme_error_estimate")
"""Other Enzyme runtime builtins: without this error they would only fail at link time."""


def lower_module(module: Module, *, print_activity: bool = False, print_gradient: bool = False,
                 print_cache: bool = False, tape_stats: bool = False, err: TextIO | None = None) -> int:
    """Replace every reverse-mode entry-point call in `module`; returns how many."""
    err = err or sys.stderr
    apply_registrations(module)
    derivatives = DerivativeCache(module, for_module(module), tape_stats=tape_stats)
    lowering = CallSiteLowering(module, derivatives)
    count = 0
    for caller in list(module.functions.values()):
        if caller.is_declaration or not _mentions_entry_point(caller):
            continue
        for inst in list(caller.instructions()):
            if not isinstance(inst, CallBase):
                continue
            callee = inst.called_function
            if is_entry_point(callee):
                lowering.lower(inst, caller)
                count += 1
            elif callee is not None and (builtin := _unsupported_builtin(callee.name or "")):
                raise ad_error(module, inst, caller.name or "?",
                               f"'{builtin}' is not supported yet (only reverse mode, __enzyme_autodiff)")
    lowering.remove_markers()
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


def _unsupported_builtin(name: str) -> str | None:
    """The Enzyme builtin `name` contains (typed variant, C++ mangling) that enzc does not implement."""
    return next((builtin for builtin in OTHER_MODES + OTHER_BUILTINS if builtin in name), None)


def _mentions_entry_point(fn: Function) -> bool:
    if not fn.is_materialized and fn.source_text is not None:
        return "__enzyme_" in fn.source_text
    return True


__all__ = ["lower_module", "REVERSE_MARK"]
