"""Type analysis: a type tree for every value, for the AD engine to pick adjoints
where the IR type does not say (an `i64` load that moves a double, a memcpy of
untyped bytes, a phi of pointers).

Entry points:

    ta = TypeAnalysis(module)                        # one per module; caches contexts
    res = ta.analyze(fn, [arg trees], ret_tree)      # -> TypeResults
    res.tree_of(v); res.float_kind_of(v); res.copy_layout(memcpy_call); ...
    print_type_analysis(fn, res)                     # text form, one line per value

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

from collections.abc import Callable

from dataclasses import dataclass

from enzc.ir.datalayout import DataLayout, for_module
from enzc.ir.instructions import CallBase, Instruction
from enzc.ir.module import Function, GlobalVariable, Module
from enzc.ir.types import FloatType, VoidType
from enzc.ir.values import Argument, ConstantExpr, ConstantInt, Value

from enzc.ad.typeanalysis.callers import caller_context
from enzc.ad.typeanalysis.call_rules import is_defined
from enzc.ad.typeanalysis.errors import TypeConflictError, UnknownTypeError, describe_value
from enzc.ad.typeanalysis.offsets import TypeSeeds, multiple_of, parse_type_prefix, pointer_provenance
from enzc.ad.typeanalysis.instruction_rules import constant_offset_base
from enzc.ad.typeanalysis.state import FunctionState, value_seed
from enzc.ad.typeanalysis.tbaa import TBAAReader
from enzc.ad.typeanalysis.typetree import ANYTHING, CONFLICT, EMPTY, UNKNOWN, BaseType, Kind, TypeTree


@dataclass(frozen=True)
class Segment:
    """`size` bytes at `offset` holding `type` (floats: consecutive scalars of it)."""

    offset: int
    size: int
    type: BaseType

    def __str__(self) -> str:
        return f"[{self.offset},{self.offset + self.size}):{self.type}"


@dataclass(frozen=True)
class CopyLayout:
    """What a memcpy/memmove moves. With a constant length, `segments` cover
    `[0, length)` and `period` is None; with a variable length the copy is
    `length / period` repetitions of the `segments` pattern over `[0, period)`."""

    segments: tuple[Segment, ...]
    period: int | None

    def float_segments(self) -> list[Segment]:
        """The segments that carry derivatives."""
        return [s for s in self.segments if s.type.is_float]

    def __str__(self) -> str:
        body = ", ".join(map(str, self.segments))
        return body if self.period is None else f"({body}) every {self.period}"


_MEMCPY_NAMES = ("llvm.memcpy", "llvm.memmove", "memcpy", "memmove")


MAX_CONTEXTS = 4
"""Contexts a function is analysed in separately before one summary serves the rest."""


class TypeAnalysis:
    """Type analysis of one module: memoised per (function, calling context)."""

    def __init__(self, module: Module | None = None, layout: DataLayout | None = None,
                 *, summaries: bool = True) -> None:
        self.module = module
        self.max_contexts = MAX_CONTEXTS if summaries else None
        """Contexts per function before `_analyze_summary` joins them (None: never,
        so facts of one call site never reach another: `type_callers` needs that)."""
        self.layout = layout or (for_module(module) if module is not None else DataLayout.parse(""))
        self.seeds = TypeSeeds(self.layout)
        self.tbaa = TBAAReader(module)
        self._cache: dict[tuple, TypeResults] = {}
        self._stack: list[FunctionState] = []
        self._globals: dict[GlobalVariable, TypeTree] = {}
        self._provenance: dict[Function, dict] = {}
        self._contexts: dict[Function, int] = {}
        self._summaries: dict[Function, FunctionState] = {}

    # -- public ---------------------------------------------------------------------
    def analyze(self, fn: Function, arg_trees: list[TypeTree] | None = None, ret_tree: TypeTree | None = None,
                *, warm: TypeResults | None = None,
                _origins: dict[int, tuple[FunctionState, int, int]] | None = None) -> TypeResults:
        """Type trees of `fn` when called with arguments described by `arg_trees`
        (missing ones: only what the IR types say) and a caller expecting `ret_tree`."""
        args = self._context_args(fn, arg_trees)
        ret = self._context_ret(fn, ret_tree)
        key = (fn, tuple(args), ret)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        contexts = self._contexts[fn] = self._contexts.get(fn, 0) + 1
        if self.max_contexts is not None and contexts > self.max_contexts:
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
        """Pointer provenance of `fn` (see `type_offsets.pointer_provenance`), memoised."""
        prov = self._provenance.get(fn)
        if prov is None:
            prov = self._provenance[fn] = pointer_provenance(fn, self.seeds, memo)
        return prov

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
        params = callee.args
        args = [state.get_from(a, call) for a in call.args[: len(params)]]
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
            results = self.analyze(callee, args, ret, warm=previous, _origins=origins)
            state.call_results[call] = results
            if state in results.deps:
                state.provisional_calls[call] = None
            state.deps |= results.deps - {state}
            arg_out, ret_out = results.arg_trees, results.ret_tree
        for a, tree in zip(call.args, arg_out):
            state.update(a, tree)
        if not isinstance(call.type, VoidType):
            state.update(call, ret_out)

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


class TypeResults:
    """The type trees of one function in one context, and the queries the AD
    engine asks of them. Queries that find no usable type raise
    `UnknownTypeError`/`TypeConflictError` naming the value."""

    def __init__(self, analysis: TypeAnalysis, state: FunctionState) -> None:
        self.analysis = analysis
        self.function = state.fn
        self.trees = state.trees
        self.arg_trees = [state.get(a) for a in state.fn.args]
        """Final trees of the arguments (the context joined with what the body says)."""
        self.ret_tree = state.ret_tree
        self.call_results = state.call_results
        self.deps = frozenset(state.deps - {state})
        self._state = state

    @property
    def provisional(self) -> bool:
        """Computed inside a recursive cycle from a summary still being computed."""
        return bool(self.deps)

    # -- trees ----------------------------------------------------------------------
    def tree_of(self, value: Value) -> TypeTree:
        """The type tree of `value` (constants and globals: from what they are)."""
        tree = self.trees.get(value)
        return tree if tree is not None else self._state.get(value)

    def callee_results(self, call: CallBase) -> TypeResults:
        """Results of the defined function `call` calls, in this call's context."""
        callee = call.called_function
        if callee is None or not is_defined(callee):
            raise ValueError("callee_results needs a direct call to a defined function")
        args = [self.tree_of(a) for a in call.args[: len(callee.args)]]
        ret = self.tree_of(call) if not isinstance(call.type, VoidType) else None
        return self.analysis.analyze(callee, args, ret)

    # -- values ---------------------------------------------------------------------
    def value_layout(self, value: Value) -> list[Segment]:
        """What each byte range of `value` itself holds."""
        size = self.analysis.seeds.size(value.type) or 0
        return memory_segments(self.tree_of(value).expand(size) if size <= 4096 else EMPTY, 0, size)

    def type_of(self, value: Value) -> BaseType:
        """The one type all bytes of `value` hold (Unknown if some bytes are
        unknown, Conflict if they disagree)."""
        return _segments_type(self.value_layout(value))

    def float_kind_of(self, value: Value, user: Value | None = None) -> FloatType | None:
        """The float kind `value` holds (None: an integer or pointer, nothing to
        differentiate). Raises when unknown or conflicting; `user` is the
        instruction the diagnostic names (default: the value)."""
        return _float_or_raise(self.type_of(value), user or value, f"the value {describe_value(value)}",
                               _HINT_VALUE)

    # -- memory ---------------------------------------------------------------------
    def memory_layout(self, ptr: Value, offset: int, size: int) -> list[Segment]:
        """What bytes `[offset, offset+size)` of the memory `ptr` points to hold."""
        return memory_segments(self.tree_of(ptr).data0(), offset, size)

    def query_memory(self, ptr: Value, offset: int, size: int) -> BaseType:
        """The one type of bytes `[offset, offset+size)` behind `ptr` (Unknown if
        any byte is unknown, Conflict if they disagree or a scalar is cut)."""
        return _segments_type(self.memory_layout(ptr, offset, size))

    def float_kind_at(self, ptr: Value, offset: int = 0, size: int | None = None,
                      user: Value | None = None) -> FloatType | None:
        """The float kind stored at `ptr + offset` (None: not a float). Without
        `size`, the scalar starting there. Raises when unknown or conflicting."""
        memory = self.tree_of(ptr).data0()
        if size is None:
            start = memory.at((offset,))
            size = start.size if start.is_known else 1
        t = _segments_type(memory_segments(memory, offset, size))
        return _float_or_raise(t, user or ptr, f"the memory at offset {offset} of {describe_value(ptr)}",
                               _HINT_VALUE)

    def copy_layout(self, call: CallBase, no_data: Callable[[int, int], bool] | None = None) -> CopyLayout:
        """What the memcpy/memmove `call` moves, from the types of both pointees.

        Integer, Pointer and Anything segments carry no derivative; Float ones
        do. Raises `UnknownTypeError` if some copied bytes have no known type
        (even with what every caller of the function says, `type_callers`)
        and `TypeConflictError` if they have two. `no_data(offset, size)` may say
        that unknown bytes carry no data (never written, or declared integers).
        """
        try:
            return self._copy_layout(call, no_data)
        except UnknownTypeError:
            separate = TypeAnalysis(self.analysis.module, self.analysis.layout, summaries=False)
            context = caller_context(separate, self.function.name or "")
            if context is None:
                raise
            return separate.analyze(self.function, context)._copy_layout(call, no_data)

    def _copy_layout(self, call: CallBase, no_data: Callable[[int, int], bool] | None = None) -> CopyLayout:
        callee = call.called_function
        name = callee.name if callee is not None else ""
        if not any(name == n or name.startswith(n + ".") for n in _MEMCPY_NAMES):
            raise ValueError(f"copy_layout needs a memcpy/memmove call, not @{name}")
        dst, src, length = call.args[0], call.args[1], call.args[2]
        memory = self.tree_of(dst).data0().join(self.tree_of(src).data0())
        what = "the memory copied by this " + ("memmove" if "memmove" in name else "memcpy")
        if isinstance(length, ConstantInt):
            segments = memory_segments(memory, 0, length.value)
            period = None
        else:
            period = multiple_of(length)
            segments = memory_segments(memory, 0, period) if period > 1 else []
            if period <= 1 or _segments_type(segments).kind is Kind.UNKNOWN:
                uniform = _uniform_lanes(memory)
                if uniform is not None:
                    period, segments = uniform.stride, [Segment(0, uniform.stride, uniform)]
        if no_data is not None and period is None:
            segments = [Segment(s.offset, s.size, ANYTHING) if s.type.kind is Kind.UNKNOWN
                        and no_data(s.offset, s.size) else s for s in segments]
        _check_segments(segments, call, what)
        if not segments:
            raise UnknownTypeError(f"cannot deduce the type of {what}", call, _HINT_COPY)
        return CopyLayout(tuple(segments), period)


_HINT_VALUE = ("load or store it through a pointer of its real type somewhere the analysis can "
               "see, or avoid type punning (compile with -fno-strict-aliasing if the code relies on it)")
_HINT_COPY = ("make the element type visible: access the copied memory with its real type in the "
              "differentiated code, copy typed elements in a loop instead of bytes, or pass a "
              "typed pointer instead of void*")


def _float_or_raise(t: BaseType, value: Value, what: str, hint: str) -> FloatType | None:
    match t.kind:
        case Kind.FLOAT:
            return FloatType(t.float_kind)  # type: ignore[arg-type]
        case Kind.UNKNOWN:
            raise UnknownTypeError(f"cannot deduce the type of {what}", value, hint)
        case Kind.CONFLICT:
            raise TypeConflictError(f"{what} is used with conflicting types", value, hint)
    return None


def _check_segments(segments: list[Segment], value: Value, what: str) -> None:
    for seg in segments:
        if seg.type.kind is Kind.UNKNOWN:
            raise UnknownTypeError(f"cannot deduce the type of {what} (bytes {seg.offset} to "
                                   f"{seg.offset + seg.size})", value, _HINT_COPY)
        if seg.type.kind is Kind.CONFLICT:
            raise TypeConflictError(f"{what} is used with conflicting types (bytes {seg.offset} to "
                                    f"{seg.offset + seg.size})", value, _HINT_VALUE)


def _uniform_lanes(memory: TypeTree) -> BaseType | None:
    """The type of memory that is one scalar repeated: a `-1` entry, or (what a
    copy of a variable number of bytes is taken to be) the same scalar at every
    element from offset 0 as far as the program shows."""
    heads = memory.first_level()
    if set(heads) == {-1} and heads[-1].is_known:
        return heads[-1]
    if -1 in heads or not heads:
        return None
    types = set(heads.values())
    if len(types) != 1:
        return None
    t = types.pop()
    if not t.is_known or t.kind is Kind.CONFLICT:
        return None
    if sorted(heads) != list(range(0, max(heads) + 1, t.stride)):
        return None
    return t


def memory_segments(memory: TypeTree, offset: int, size: int) -> list[Segment]:
    """Split bytes `[offset, offset+size)` of a memory tree into typed segments.

    A scalar starts where an entry (or a `-1` entry, at multiples of its
    stride) says so and covers its size; a scalar that would be cut by the end
    of the range, or overlaps another scalar, makes its bytes Conflict.
    Adjacent segments of the same type merge.
    """
    heads = memory.first_level()
    every = heads.get(-1, UNKNOWN)
    out: list[Segment] = []
    pos, end = offset, offset + size
    while pos < end:
        t = heads.get(pos, UNKNOWN)
        if every.is_known and pos % every.stride == 0:
            t = t.join(every)
        elif every.is_known and every.size == 1:
            t = t.join(every)
        if not t.is_known:
            _append(out, Segment(pos, 1, UNKNOWN))
            pos += 1
            continue
        n = t.size
        if pos + n > end or _overlaps(heads, pos, n, t):
            t, n = CONFLICT, min(n, end - pos)
        _append(out, Segment(pos, n, t))
        pos += n
    return out


def _overlaps(heads: dict[int, BaseType], pos: int, n: int, t: BaseType) -> bool:
    """Whether another scalar starts inside the `n` bytes of `t` at `pos`."""
    if n == 1:
        return False
    for inner in range(pos + 1, pos + n):
        other = heads.get(inner)
        if other is None or other.kind is Kind.ANYTHING:
            continue
        if t.kind is Kind.POINTER and other.kind is Kind.INTEGER:
            continue
        return True
    return False


def _append(out: list[Segment], seg: Segment) -> None:
    if out and out[-1].type == seg.type and out[-1].offset + out[-1].size == seg.offset:
        out[-1] = Segment(out[-1].offset, out[-1].size + seg.size, seg.type)
    else:
        out.append(seg)


def _segments_type(segments: list[Segment]) -> BaseType:
    if not segments:
        return UNKNOWN
    t = ANYTHING
    for seg in segments:
        if seg.type.kind is Kind.UNKNOWN:
            return UNKNOWN
        t = t.join(seg.type)
    return t


def analyze_function(fn: Function, arg_trees: list[TypeTree] | None = None, ret_tree: TypeTree | None = None,
                     module: Module | None = None, datalayout: DataLayout | None = None) -> TypeResults:
    """One-shot analysis of `fn` (a fresh `TypeAnalysis`; use one per module to share work)."""
    return TypeAnalysis(module, datalayout).analyze(fn, arg_trees, ret_tree)


def print_type_analysis(fn: Function, results: TypeResults) -> str:
    """One line per argument and value-producing instruction: `%name: {tree}`,
    then the return tree."""
    lines = []
    for value, name in _slot_names(fn):
        lines.append(f"%{name}: {results.tree_of(value)}")
    if not isinstance(fn.return_type, VoidType):
        lines.append(f"ret: {results.ret_tree}")
    return "\n".join(lines) + "\n"


def _slot_names(fn: Function) -> list[tuple[Value, str]]:
    """Values with their printed names, numbering unnamed ones as LLVM does."""
    out: list[tuple[Value, str]] = []
    slot = 0

    def name_of(v: Value) -> str | None:
        nonlocal slot
        if v.name is not None and not v.name.isdigit():
            return v.name
        text = str(slot)
        slot += 1
        return text

    for a in fn.args:
        out.append((a, name_of(a)))  # type: ignore[arg-type]
    for b in fn.blocks:
        if b.name is None or b.name.isdigit():
            name_of(b)
        for i in b.instructions:
            if isinstance(i, Instruction) and not isinstance(i.type, VoidType):
                out.append((i, name_of(i)))  # type: ignore[arg-type]
    return out
