"""Type facts about a function's arguments from all of its direct call sites.

A split callee is analysed on its own: its derivative is built once and called
from every site, so the analysis starts from what the IR types say. A helper
that only copies through its pointers (libstdc++'s `__relocate_a_1`, `__copy_m`:
a `memmove` of `n * 8` bytes, never inlined with --enzc-ad-before-opt) then has no
element type, while every caller knows it is moving `double`s.

`caller_context` collects the argument trees at each direct call site (each
caller analysed in its own callers' context, recursively) and keeps the facts
all sites agree on. Those facts hold whenever the function runs from this
module, so the derivative, which only ever replaces such calls, may rely on
them. A function whose address is taken (calls through pointers, the function
given to `__enzyme_autodiff`) has unknown callers and gets no context.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from enzc.ir.instructions import CallBase
from enzc.ir.module import Function, Module
from enzc.ir.values import ConstantAggregate, ConstantExpr, Value

from enzc.ad.typeanalysis.cases import SwitchCase
from enzc.ad.typeanalysis.typetree import CONFLICT, Kind, TypeTree

DERIVED_PREFIXES = ("diffe_", "split_", "augmented_", "reverse_", "__enzc_")
"""Functions the AD stage adds: their calls are copies of the original sites."""
MAX_DEPTH = 16
"""Callers followed upwards (libstdc++ at -O0 nests a dozen wrappers); beyond,
a caller is analysed without context."""

Context = list[TypeTree] | None


class _Trees(Protocol):
    def tree_of(self, value: Value) -> TypeTree: ...


class Analyzer(Protocol):
    """The analysis whose callers are asked (`analysis.TypeAnalysis`, without summaries)."""

    module: Module | None

    def analyze(self, fn: Function, arg_trees: list[TypeTree] | None = None) -> _Trees: ...


def caller_context(analysis: Analyzer, name: str, case: SwitchCase | None = None) -> Context:
    """The argument trees every direct call of the module's function `name` agrees
    on, or None (unknown callers, no call sites). With `case`, those of `case.source`'s
    calls that may run that case."""
    if case is None:
        return _context(analysis, name, 0, frozenset(), {})
    module = analysis.module
    source = module.get_function(case.source) if module is not None else None
    if source is None:
        return None
    return _sites_context(analysis, source, 0, frozenset({case.source}), {}, case.reached_by)


def _context(analysis: Analyzer, name: str, depth: int, visiting: frozenset[str],
             memo: dict[str, Context]) -> Context:
    """`caller_context`; a caller met again on the way up (recursion) or beyond
    MAX_DEPTH contributes no facts, so a memoised answer is never too strong."""
    if name in memo:
        return memo[name]
    module = analysis.module
    fn = module.get_function(name) if module is not None else None
    if fn is None or depth > MAX_DEPTH or name in visiting:
        return None
    memo[name] = result = _sites_context(analysis, fn, depth, visiting | {name}, memo)
    return result


def _sites_context(analysis: Analyzer, fn: Function, depth: int, visiting: frozenset[str],
                   memo: dict[str, Context], keep: Callable[[CallBase], bool] | None = None) -> Context:
    module = analysis.module
    assert module is not None
    sites = direct_call_sites(module, fn)
    if sites is None:
        return None
    context: list[TypeTree] | None = None
    for caller, call in sites:
        if keep is not None and not keep(call):
            continue
        outer = _context(analysis, caller.name or "", depth + 1, visiting, memo)
        results = analysis.analyze(caller, outer)
        trees = [results.tree_of(a) for a in call.args[: len(fn.args)]]
        context = trees if context is None else [meet(a, b) for a, b in zip(context, trees)]
    return context


def direct_call_sites(module: Module, fn: Function) -> list[tuple[Function, CallBase]] | None:
    """(caller, call) for every direct call of `fn` in original code, or None when
    its address escapes (stored in a table, a function pointer global, passed on)."""
    name = fn.name or ""
    _materialize_callers(module, name)
    if _in_global_data(module, fn):
        return None
    sites = []
    for use in fn.uses:
        call = use.user
        if not isinstance(call, CallBase) or call.called_function is not fn \
                or any(a is fn for a in call.args):
            return None  # the address escapes: callers unknown
        caller = call.parent.parent if call.parent is not None else None
        if caller is None or (caller.name or "").startswith(DERIVED_PREFIXES) \
                or module.get_function(caller.name or "") is not caller:
            continue  # AD's own functions, private copies of a function being differentiated
        sites.append((caller, call))
    return sites


def _materialize_callers(module: Module, name: str) -> None:
    """Parse the bodies that mention `@name`: uses are recorded only for parsed ones."""
    needle = "@" + name
    for f in list(module.functions.values()):
        if not f.is_materialized and not f.is_declaration and needle in (f.source_text or ""):
            f.blocks  # noqa: B018 -- parsing the body registers its uses


def _in_global_data(module: Module, fn: Function) -> bool:
    """Whether a global's initializer or an alias refers to `fn` (such references
    record no uses)."""
    todo: list[object] = [gv.initializer for gv in module.globals.values()]
    todo += [alias.target for alias in module.aliases.values()]
    while todo:
        c = todo.pop()
        if c is fn:
            return True
        if isinstance(c, ConstantAggregate):
            todo += c.elements
        elif isinstance(c, ConstantExpr):
            todo += c.operands
    return False


def meet(a: TypeTree, b: TypeTree) -> TypeTree:
    """The facts of `a` that `b` implies and those of `b` that `a` implies; where the
    memory behind a pointer holds data of one type at one site and of another at
    the other (a double here, an int there), `Conflict`: dropping the fact would
    leave the bytes unknown, and a copy of run-time length could then be taken
    as the one scalar the sites agree on repeated over them."""
    kept = [(p, t) for p, t in a.items() if b.at(p) == t]
    kept += [(p, t) for p, t in b.items() if a.at(p) == t]
    kept += [(p, CONFLICT) for p, t in a.items()
             if len(p) > 1 and t.kind in _DATA and (u := b.at(p)).kind in _DATA and u != t]
    return TypeTree(kept)


_DATA = (Kind.FLOAT, Kind.INTEGER, Kind.POINTER, Kind.CONFLICT)
"""Kinds of bytes that hold a value (not Anything: padding, bytes any type may fill).
A conflict at one site counts: met with integers elsewhere, dropping it would leave
the callee's own `long *` tags to call floats integers (a zero derivative)."""
