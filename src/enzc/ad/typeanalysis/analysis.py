"""Type analysis: a type tree for every value, for the AD engine to pick adjoints
where the IR type does not say (an `i64` load that moves a double, a memcpy of
untyped bytes, a phi of pointers).

Entry points:

    ta = TypeAnalysis(module)                        # one per module; caches contexts
    res = ta.analyze(fn, [arg trees], ret_tree)      # -> TypeResults
    res.tree_of(v); res.float_kind_of(v); res.copy_layout(memcpy_call); ...
    print_type_analysis(fn, res)                     # text form, one line per value

The queries (`TypeResults`) are in `results`; this module is the driver.

Analysis is context sensitive: a function is analysed once per (argument
trees, return tree) it is called with, memoised, so `f(double*)` and
`f(float*)` do not pollute each other. Calls to defined functions run the
callee in the caller's context and join the callee's final argument and
return trees back (to a fixed point: the caller re-asks while its trees grow).
Recursion is handled by joining the recursive call's context into the frame
already on the stack and redoing the calls that read an older summary.
Globals are analysed per function (their declared type and initializer seed
their memory).
"""

from __future__ import annotations

from enzc.ir.datalayout import DataLayout, for_module
from enzc.ir.instructions import CallBase, Instruction
from enzc.ir.module import BasicBlock, Function, GlobalVariable, Module
from enzc.ir.types import VoidType
from enzc.ir.values import Argument, ConstantExpr, ConstantInt, Value

from enzc.ad.typeanalysis.callers import caller_context
from enzc.ad.typeanalysis.cases import EntryChoice, SwitchCase, case_clone, entry_choice, target_for
from enzc.ad.typeanalysis.extents import object_extent
from enzc.ad.typeanalysis.instruction_rules import apply_rule, constant_offset_base
from enzc.ad.typeanalysis.offsets import TypeSeeds, parse_type_prefix, pointer_provenance
from enzc.ad.typeanalysis.results import TypeResults
from enzc.ad.typeanalysis.state import FunctionState, value_seed
from enzc.ad.typeanalysis.strings import StringObjects
from enzc.ad.typeanalysis.tbaa import TBAAReader
from enzc.ad.typeanalysis.typetree import EMPTY, TypeTree

MAX_CONTEXTS = 4
"""Contexts a function is analysed in separately before one summary serves the rest."""


class TypeAnalysis:
    """Type analysis of one module: memoised per (function, calling context)."""

    def __init__(self, module: Module | None = None, layout: DataLayout | None = None,
                 *, summaries: bool = True) -> None:
        self.module = module
        self.max_contexts = MAX_CONTEXTS if summaries else None
        """Contexts per function before `_analyze_summary` joins them (None: never,
        so facts of one call site never reach another: `callers` needs that)."""
        self.layout = layout or (for_module(module) if module is not None else DataLayout.parse(""))
        self.seeds = TypeSeeds(self.layout)
        self.tbaa = TBAAReader(module)
        self._cache: dict[tuple, TypeResults] = {}
        self._stack: list[FunctionState] = []
        self._globals: dict[GlobalVariable, TypeTree] = {}
        self._provenance: dict[Function, dict] = {}
        self._strings: dict[Function, StringObjects] = {}
        self._copy_bounds: dict[CallBase, int | None] = {}
        self._contexts: dict[Function, set[object]] = {}
        """Per function, the call sites (or, asked directly, the contexts) it was analysed for."""
        self._summaries: dict[Function, FunctionState] = {}
        self._by_call_sites: TypeAnalysis | None = None
        self._site_args: dict[Function, list[TypeTree]] = {}
        """Private copies typed for one call site (`assume_arguments`)."""
        self.site_typed: dict[Function, bool] = {}
        """Memo of `synth.site_types.needs_site_types`, per original function."""
        self._choices: dict[Function, EntryChoice | None] = {}
        self._case_views: dict[tuple[Function, BasicBlock], Function] = {}
        self.case_functions: dict[str, SwitchCase] = {}
        """By name (the module's function and the private copies of it), the cases of
        a function split at its entry choice (`synth.switch_cases`):
        a call to one is analysed in its caller's context and joins nothing back, so
        facts of one case never type another; its call sites are those of the
        function it came from that may run it."""

    # -- public ---------------------------------------------------------------------
    def analyze(self, fn: Function, arg_trees: list[TypeTree] | None = None, ret_tree: TypeTree | None = None,
                *, warm: TypeResults | None = None,
                _origins: dict[int, tuple[FunctionState, int, int]] | None = None,
                _site: CallBase | None = None) -> TypeResults:
        """Type trees of `fn` when called with arguments described by `arg_trees`
        (missing ones: only what the IR types say) and a caller expecting `ret_tree`."""
        if fn in self._site_args:
            arg_trees = arg_trees if arg_trees is not None else self._site_args[fn]
            if self.max_contexts is not None:  # typed for one call site: no summary may blur it
                return self._without_summaries().analyze(fn, arg_trees, ret_tree, warm=warm, _origins=_origins)
        args = self._context_args(fn, arg_trees)
        ret = self._context_ret(fn, ret_tree)
        key = (fn, tuple(args), ret)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        asked = self._contexts.setdefault(fn, set())
        asked.add(_site if _site is not None else key)  # a call re-asking as its trees grow: one context
        if self.max_contexts is not None and len(asked) > self.max_contexts:
            return self._analyze_summary(fn, args, ret)
        state = FunctionState(self, fn, args, ret, warm.trees if warm is not None and warm.function is fn else None,
                              _origins)
        self._stack.append(state)
        try:
            state.run(fn.instructions())
        finally:
            self._stack.pop()
        results = TypeResults(self, state)
        if not results.provisional:
            self._cache[key] = results
        return results

    def argument_trees(self, caller: Function, values: list[Value]) -> list[TypeTree]:
        """The trees `values` have in `caller` (analysed without a context): what
        the call site of `__enzyme_autodiff(f, ...)` says about `f`'s arguments,
        to pass as `arg_trees` when analysing `f`."""
        results = self.analyze(caller)
        return [results.tree_of(v) for v in values]

    def assume_arguments(self, fn: Function, trees: list[TypeTree]) -> None:
        """Analyse `fn` (a private copy being differentiated for one call site) as
        called with arguments described by `trees` whenever no context is given,
        without summaries (`precise`)."""
        self._site_args[fn] = trees
        self._without_summaries()._site_args[fn] = trees

    def precise(self, fn: Function) -> TypeResults:
        """`fn` analysed without summaries, so that no other call site's facts reach
        what its calls pass on (in its own call site's context, if it has one)."""
        return self._without_summaries().analyze(fn)

    def _without_summaries(self) -> TypeAnalysis:
        if self._by_call_sites is None:
            self._by_call_sites = TypeAnalysis(self.module, self.layout, summaries=False)
            self._by_call_sites.case_functions = self.case_functions
        return self._by_call_sites

    def call_site_results(self, fn: Function) -> TypeResults | None:
        """`fn` analysed in the context all its direct call sites agree on (`callers`),
        by this module's analysis without summaries (facts of one call site must not
        reach another); None when its callers are unknown, or when `fn` is already
        typed for its one call site (`assume_arguments`: the others say less). A case
        of a split function is typed by the calls of that function that may run it,
        which say more than its one site in the dispatcher."""
        case = self.case_functions.get(fn.name or "")
        if fn in self._site_args and case is None:
            return None
        by_call_sites = self._without_summaries()
        context = caller_context(by_call_sites, fn.name or "", case)
        return by_call_sites.analyze(fn, context) if context is not None else None

    def forget(self, fn: Function) -> None:
        """Drop what is known of `fn`, whose body changed (the engine rewrites the
        private copy it differentiates between analyses)."""
        self._cache = {k: r for k, r in self._cache.items() if k[0] is not fn}
        for memo in (self._provenance, self._contexts, self._summaries, self._strings, self._choices):
            memo.pop(fn, None)
        self._case_views = {k: v for k, v in self._case_views.items() if k[0] is not fn}
        self._copy_bounds.clear()  # a rewritten body may pass other pointers
        if self._by_call_sites is not None:
            self._by_call_sites.forget(fn)

    def apply_rule(self, state: FunctionState, inst: Instruction) -> None:
        """The propagation rule of `inst` (for `FunctionState.run`)."""
        apply_rule(state, inst)

    def _analyze_summary(self, fn: Function, args: list[TypeTree], ret: TypeTree) -> TypeResults:
        """A function asked for in more than `MAX_CONTEXTS` contexts gets one state
        for all further ones: each request joins its context in and resumes the
        worklist (cheap and incremental, where a fresh analysis per context costs
        a full pass each time — STL internals are called in dozens of contexts)."""
        state = self._summaries.get(fn)
        fresh = state is None
        if state is None:
            state = self._summaries[fn] = FunctionState(self, fn, args, ret)
        else:
            for param, tree in zip(fn.args, args):
                state.update(param, tree)
            state.update_ret(ret)
        self._stack.append(state)
        try:
            state.run(fn.instructions() if fresh else ())
        finally:
            self._stack.pop()
        return TypeResults(self, state)

    def provenance(self, fn: Function, memo: dict) -> dict:
        """Pointer provenance of `fn` (see `offsets.pointer_provenance`), memoised."""
        prov = self._provenance.get(fn)
        if prov is None:
            prov = self._provenance[fn] = pointer_provenance(fn, self.seeds, memo)
        return prov

    def string_objects(self, fn: Function) -> StringObjects:
        """The `std::string` objects of `fn` (`strings`), memoised."""
        found = self._strings.get(fn)
        if found is None:
            found = self._strings[fn] = StringObjects(fn, self.seeds, self.tbaa)
        return found

    # -- contexts -------------------------------------------------------------------
    def _context_args(self, fn: Function, arg_trees: list[TypeTree] | None) -> list[TypeTree]:
        out = []
        given = list(arg_trees or [])
        for i, arg in enumerate(fn.args):
            tree = self.seeds.of_type(arg.type)
            if i < len(given) and given[i] is not None:
                tree = tree.join(given[i])
            size = self.seeds.size(arg.type)
            out.append(tree.canonicalize(size) if size else tree)
        return out

    def _context_ret(self, fn: Function, ret_tree: TypeTree | None) -> TypeTree:
        tree = self.seeds.of_type(fn.return_type)
        if ret_tree is not None:
            tree = tree.join(ret_tree)
        size = self.seeds.size(fn.return_type)
        return tree.canonicalize(size) if size else tree

    def run_call(self, state: FunctionState, call: CallBase) -> None:
        """Analyse the defined callee of `call` in the caller's context; join back."""
        callee = call.called_function
        assert callee is not None
        callee = self._case_view(callee, call) or callee
        params = callee.args
        isolated = (callee.name or "") in self.case_functions
        args = [state.context_of(a) if isolated and isinstance(a, Argument) else state.get_from(a, call)
                for a in call.args[: len(params)]]
        ret = state.get(call) if not isinstance(call.type, VoidType) else EMPTY
        frame = next((f for f in reversed(self._stack) if f.fn is callee), None)
        if frame is not None:
            # Recursion: widen the frame already being computed, read its summary.
            arg_out = []
            for i, (param, tree) in enumerate(zip(params, args)):
                step = _recursive_step(state, call.args[i], frame, i)
                if step:
                    # `f(p + c)` inside `f(p)`: a walk over an array with stride |c|.
                    frame.update_memory(param, tree.data0().periodic(0, step))
                    arg_out.append(TypeTree.pointer_to(frame.get(param).data0().periodic(0, step)))
                else:
                    frame.update(param, tree)
                    arg_out.append(frame.get(param))
            frame.update_ret(ret)
            ret_out = frame.ret_tree
            frame.note_read(frame.version)
            if frame is state:
                state.provisional_calls[call] = None
            else:
                state.deps.add(frame)
        else:
            previous = state.call_results.get(call)
            origins = {}
            for i, a in enumerate(call.args[: len(params)]):
                root, c = constant_offset_base(a, state)
                if isinstance(root, Argument):
                    origins[i] = (state, root.index, c)
            results = self.analyze(callee, args, ret, warm=previous, _origins=origins, _site=call)
            state.call_results[call] = results
            if state in results.deps:
                state.provisional_calls[call] = None
            state.deps |= results.deps - {state}
            arg_out, ret_out = results.arg_trees, results.ret_tree
        for a, tree in zip(call.args, arg_out):
            if not isolated:
                state.update(a, tree)
        if not isinstance(call.type, VoidType):
            state.update(call, ret_out)

    def _case_view(self, callee: Function, call: CallBase) -> Function | None:
        """The case of `callee`'s entry choice that `call`'s constant argument runs,
        as a function of its own (`cases`); None when `callee` has no such choice
        or the argument is not a constant."""
        if callee not in self._choices:
            self._choices[callee] = entry_choice(callee)
        choice = self._choices[callee]
        target = target_for(choice, call) if choice is not None else None
        if choice is None or target is None:
            return None
        key = (callee, target)
        if key not in self._case_views:
            self._case_views[key] = case_clone(callee, choice, target, callee.name or "")
        return self._case_views[key]

    def copy_bound(self, call: CallBase) -> int | None:
        """At most how many bytes the memcpy/memmove `call` can move: the smaller
        extent of the objects its pointers point into (`extents`; a string's own
        buffer, `strings`), None if unknown."""
        if call not in self._copy_bounds:
            strings = self.string_objects(call.function)
            found = [e for p in call.args[:2]
                     for e in (object_extent(p, self.seeds, self.module), strings.buffer_extent(p)) if e is not None]
            self._copy_bounds[call] = min(found) if found else None
        return self._copy_bounds[call]

    # -- globals and constant expressions ---------------------------------------------
    def global_memory(self, gv: GlobalVariable) -> TypeTree:
        """What a global's declared type and initializer say about its memory."""
        tree = self._globals.get(gv)
        if tree is None:
            size = self.seeds.size(gv.value_type) or 0
            value_tree = self.seeds.of_type(gv.value_type)
            if gv.initializer is not None:
                value_tree = value_tree.join(value_seed(gv.initializer, self.seeds))
            # The object is exactly this value: a `-1` entry may stay (every element).
            tree = value_tree.window(0, size) if size else TypeTree()
            self._globals[gv] = tree
        return tree

    def constant_expr_tree(self, state: FunctionState, ce: ConstantExpr) -> TypeTree:
        """Forward facts of a constant expression (a GEP into or cast of a global)."""
        link = _constant_expr_link(ce, self)
        if link is None:
            return EMPTY
        base, offset = link
        if offset is None:
            return state.get(base)
        return TypeTree.pointer_to(state.memory(base).shift(-offset))

    def constant_expr_backward(self, state: FunctionState, ce: ConstantExpr, tree: TypeTree) -> None:
        link = _constant_expr_link(ce, self)
        if link is None:
            return
        base, offset = link
        if offset is None:
            state.update(base, tree)
        else:
            state.update_memory(base, tree.data0().shift(offset))


def _recursive_step(state: FunctionState, arg: Value, frame: FunctionState, index: int) -> int:
    """|c| if `arg` is `frame`'s argument `index` moved by a constant c ≠ 0 along
    the chain of calls from `frame` to `state` (0 if not, or c is 0)."""
    root, total = constant_offset_base(arg, state)
    if not isinstance(root, Argument):
        return 0
    cur, param = state, root.index
    for _ in range(256):
        if cur is frame:
            return abs(total) if param == index else 0
        origin = cur.origins.get(param)
        if origin is None:
            return 0
        cur, param, c = origin
        total += c
    return 0


def _constant_expr_link(ce: ConstantExpr, analysis: TypeAnalysis) -> tuple[Value, int | None] | None:
    """`(base, byte offset)` of a constant GEP; `(base, None)` for pointer casts."""
    if ce.opcode in ("bitcast", "addrspacecast") and ce.operands:
        return ce.operands[0], None
    if ce.opcode != "getelementptr" or not ce.operands:
        return None
    indices = ce.operands[1:]
    if not all(isinstance(i, ConstantInt) for i in indices):
        return None
    open_paren = ce.spelling.find("(")
    named = analysis.module.types if analysis.module is not None else {}
    parsed = parse_type_prefix(ce.spelling, open_paren + 1, named) if open_paren >= 0 else None
    if parsed is None:
        return None
    try:
        offset = analysis.layout.gep_offset(parsed[0], [i.value for i in indices])  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - unsized or opaque source type: no link
        return None
    return ce.operands[0], offset


def analyze_function(fn: Function, arg_trees: list[TypeTree] | None = None, ret_tree: TypeTree | None = None,
                     module: Module | None = None, datalayout: DataLayout | None = None) -> TypeResults:
    """One-shot analysis of `fn` (a fresh `TypeAnalysis`; use one per module to share work)."""
    return TypeAnalysis(module, datalayout).analyze(fn, arg_trees, ret_tree)


__all__ = ["MAX_CONTEXTS", "TypeAnalysis", "analyze_function"]
