"""Derivatives typed for the call site that asks for them.

A callee's derivative is made once per signature and serves every call site, so it
is typed from its IR and from what all its direct callers agree on
(`typeanalysis.callers`). A helper that copies whatever it is handed
(`memcpy(to, from, n)` through `void *`) and is called with records of different
layouts gets no such agreement: its copies have no type. Enzyme types each
derivative in the context of the call that asks for it. enzc does so where it
matters: when a copy through pointer parameters the callee only hands on (a
`void *` helper's), in the callee or in a function it hands them to, cannot be
typed without its caller, the call site's argument trees and constant integer
arguments join the signature (`Signature.site`) and the derivative is made for
that context (`SiteContext.apply`). Every other derivative still serves all of
its call sites.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzc.ir.instructions import CallBase, Cast, Compare, GetElementPtr, Load, Phi, Select, Store
from enzc.ir.module import Function
from enzc.ir.types import IntType, PointerType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.calls import is_memory_copy
from enzc.ad.analysis.memory_facts import underlying_object
from enzc.ad.memory.intfloat import is_word_load
from enzc.ad.typeanalysis.analysis import TypeAnalysis
from enzc.ad.typeanalysis.errors import TypeAnalysisError
from enzc.ad.typeanalysis.results import TypeResults
from enzc.ad.typeanalysis.typetree import Kind, TypeTree

MAX_DEPTH = 8
"""Functions followed down from the callee through the pointers it passes on."""


@dataclass(frozen=True)
class SiteContext:
    """What one call site says of the callee's arguments: their type trees, and
    the integer arguments it passes as constants (a `sizeof` length: a copy of
    `n` bytes through a 64-byte buffer is typed only once `n` is known)."""

    trees: tuple[TypeTree, ...]
    constants: tuple[tuple[int, int], ...]
    """(parameter index, value) of each constant integer argument."""

    def apply(self, types: TypeAnalysis, copy: Function) -> None:
        """Make `copy` (the private copy being differentiated) this call site's:
        the constants replace their parameters, the trees type the arguments."""
        for index, value in self.constants:
            param = copy.args[index]
            param.replace_all_uses_with(ConstantInt(param.type, value))  # type: ignore[arg-type]
        types.assume_arguments(copy, list(self.trees))


def call_site_context(types: TypeAnalysis, caller: Function, call: CallBase, fn: Function) -> SiteContext | None:
    """`Signature.site` for `call` of `fn` in `caller` (the private copy being
    differentiated) when `fn` needs one (`needs_site_types`), else None. The trees
    come from the analysis without summaries: a summary would join in what the
    function's other callers pass."""
    if not needs_site_types(types, fn):
        return None
    results = types.precise(caller)
    args = call.args[: len(fn.args)]
    constants = tuple((i, a.value) for i, a in enumerate(args) if isinstance(a, ConstantInt))
    return SiteContext(tuple(results.tree_of(a) for a in args), constants)


def needs_site_types(types: TypeAnalysis, fn: Function, depth: int = 0) -> bool:
    """Whether a copy through `fn`'s pointer arguments, in `fn` or in a function it
    passes them to, has no type unless the caller's arguments give one."""
    known = types.site_typed.get(fn)
    if known is not None:
        return known
    types.site_typed[fn] = False  # recursion: the cycle's other calls decide
    found = depth < MAX_DEPTH and _copies_untyped(types, fn, depth)
    types.site_typed[fn] = found
    return found


def _copies_untyped(types: TypeAnalysis, fn: Function, depth: int) -> bool:
    copies, callees = _through_arguments(fn)
    if copies and not _typed(types.analyze(fn), copies):
        # Confirmed on its own: a summary answers with other sites' facts (a conflict,
        # or types where the derivative's own analysis will find none; then it keeps
        # the one derivative, as without this module). Where what all its direct
        # call sites agree on types them, that one derivative serves them all.
        if not _typed(types.precise(fn), copies):
            by_callers = types.call_site_results(fn)
            if by_callers is None or not _typed(by_callers, copies):
                return True
    return any(needs_site_types(types, callee, depth + 1) for callee in callees)


def _typed(results: TypeResults, copies: list[CallBase | Load]) -> bool:
    """Whether every copy's bytes have a type: a memory copy's layout, a word
    copy's loaded value (`long *` bits an untagged load leaves unknown)."""
    try:
        for copy in copies:
            if isinstance(copy, Load):
                if any(seg.type.kind in (Kind.UNKNOWN, Kind.CONFLICT) for seg in results.value_layout(copy)):
                    return False
            else:
                results.copy_layout(copy)
    except TypeAnalysisError:
        return False
    return True


def _through_arguments(fn: Function) -> tuple[list[CallBase | Load], list[Function]]:
    """The copies in `fn` through its untyped pointer parameters (`_untyped_params`):
    memory copies and the loads of word copies; and the defined functions it passes
    them to."""
    untyped = _untyped_params(fn)
    copies: list[CallBase | Load] = []
    callees: list[Function] = []
    if not untyped:
        return copies, callees
    for inst in fn.instructions():
        if isinstance(inst, Load) and _word_load(inst) and (
                underlying_object(inst.ptr) in untyped
                or any(underlying_object(u.user.ptr) in untyped for u in inst.uses)):  # type: ignore[attr-defined]
            copies.append(inst)
        if not isinstance(inst, CallBase) or not isinstance(callee := inst.called_function, Function):
            continue
        if is_memory_copy(inst):
            if underlying_object(inst.args[0]) in untyped or underlying_object(inst.args[1]) in untyped:
                copies.append(inst)
        elif not callee.is_declaration and any(underlying_object(a) in untyped for a in inst.args):
            callees.append(callee)
    return copies, callees


def _untyped_params(fn: Function) -> set[Value]:
    """The pointer parameters `fn` only hands on: to copies and calls, through
    address arithmetic, never loaded or stored through (a `void *` helper's;
    comparing them is fine) but by word copies (`t[i] = s[i]` through `long *`:
    a load only stored, a store of a load). Only
    their memory can be unknown to the function whatever its callers pass; the
    check stays syntactic for the many functions (C++ members) that have none."""
    if fn.is_declaration:
        return set()
    out: set[Value] = set()
    for param in fn.args:
        if not isinstance(param.type, PointerType):
            continue
        work, seen, handed_on = [param], set(), True
        while work and handed_on:
            v = work.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            for use in v.uses:
                user = use.user
                if isinstance(user, (GetElementPtr, Cast, Phi, Select)):
                    work.append(user)
                elif _word_load(user) or (isinstance(user, Store) and use.index == 1
                                          and _word_load(user.value)):
                    continue
                elif not isinstance(user, (CallBase, Compare)) or (
                        isinstance(user, CallBase) and user.called_function is None):
                    handed_on = False
                    break
        if handed_on:
            out.add(param)
    return out


def _word_load(inst: Value) -> bool:
    """A load of an integer word whose value is only stored (a word copy's read)."""
    return isinstance(inst.type, IntType) and is_word_load(inst)
