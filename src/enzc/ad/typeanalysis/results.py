"""What type analysis answers: the trees of one function in one context, and the
queries the AD engine asks of them (`TypeResults`), with the text form.

Queries that find no usable type raise `UnknownTypeError` / `TypeConflictError`
naming the value; a memcpy whose bytes the function alone cannot type is asked
again in the context of its callers (`callers`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from enzc.ir.instructions import CallBase, Instruction
from enzc.ir.module import Function
from enzc.ir.types import FloatType, VoidType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.typeanalysis.call_rules import is_defined
from enzc.ad.typeanalysis.errors import TypeConflictError, UnknownTypeError, describe_value
from enzc.ad.typeanalysis.offsets import TypeSeeds, length_multiple
from enzc.ad.typeanalysis.state import FunctionState
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
    `length / period` repetitions of the `segments` pattern over `[0, period)`,
    or (`period` None) a prefix of `segments`, which cover all the copy can reach
    before the end of either object (`extents`)."""

    segments: tuple[Segment, ...]
    period: int | None
    checked: bool = False
    """`period`-byte records the program indexes the memory as (so the copy starts
    at one), of a length nothing proves a whole number of them: the reverse pass
    checks that at run time."""
    bounded: bool = False
    """A prefix of `segments` holding floats: only the floats the run-time length
    covers move (the reverse pass stops the program if it cuts one)."""

    def float_segments(self) -> list[Segment]:
        """The segments that carry derivatives."""
        return [s for s in self.segments if s.type.is_float]

    def __str__(self) -> str:
        body = ", ".join(map(str, self.segments))
        return body if self.period is None else f"({body}) every {self.period}"


_MEMCPY_NAMES = ("llvm.memcpy", "llvm.memmove", "memcpy", "memmove")


class Analysis(Protocol):
    """What results ask of the analysis that made them (`analysis.TypeAnalysis`)."""

    seeds: TypeSeeds
    tbaa: TBAAReader

    def analyze(self, fn: Function, arg_trees: list[TypeTree] | None = None,
                ret_tree: TypeTree | None = None) -> TypeResults: ...

    def call_site_results(self, fn: Function) -> TypeResults | None: ...

    def copy_bound(self, call: CallBase) -> int | None: ...


class TypeResults:
    """The type trees of one function in one context, and the queries the AD
    engine asks of them. Queries that find no usable type raise
    `UnknownTypeError`/`TypeConflictError` naming the value."""

    def __init__(self, analysis: Analysis, state: FunctionState) -> None:
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
        (even with what every caller of the function says, `callers`)
        and `TypeConflictError` if they have two. `no_data(offset, size)` may say
        that unknown bytes carry no data (never written, or declared integers).
        """
        try:
            return self._copy_layout(call, no_data)
        except UnknownTypeError:
            by_callers = self.analysis.call_site_results(self.function)
            if by_callers is None:
                raise
            return by_callers._copy_layout(call, no_data)

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
            if any(seg.type.kind is Kind.UNKNOWN for seg in segments):
                segments = join_segments(memory_segments(self.tree_of(dst).data0(), 0, length.value),
                                         memory_segments(self.tree_of(src).data0(), 0, length.value))
            period = None
        else:
            period = length_multiple(length, self._state.provenance())
            segments = memory_segments(memory, 0, period) if period > 1 and repeats(memory, period) else []
            if period <= 1 or _segments_type(segments).kind is Kind.UNKNOWN:
                uniform = _uniform_lanes(memory)
                if uniform is not None and repeats(memory, uniform.stride):
                    period, segments = uniform.stride, [Segment(0, uniform.stride, uniform)]
        if not segments and period is not None and period <= 1:
            bounded = self._bounded_copy(call, memory, what, no_data)
            if bounded is not None:
                return bounded
        if no_data is not None and period is None:
            segments = _without_data(segments, no_data)
        _check_segments(segments, call, what)
        if not segments:
            raise UnknownTypeError(f"cannot deduce the type of {what}", call, _HINT_COPY)
        return CopyLayout(tuple(segments), period)

    def records_layout(self, call: CallBase, size: int,
                       no_data: Callable[[int, int], bool] | None = None) -> CopyLayout | None:
        """The copy as records of `size` bytes that each hold what the types of both
        pointees show for the first, `[0, size)` (unknown bytes asked of `no_data`);
        None unless every byte there is known and every fact beyond the first
        record agrees with it. The caller vouches that the program treats the
        memory as such records (it walks it in steps of `size`)."""
        return self.records_of((call.args[0], call.args[1]), size, no_data)

    def records_of(self, pointers: tuple[Value, ...], size: int,
                   no_data: Callable[[int, int], bool] | None = None) -> CopyLayout | None:
        """`records_layout` of the memory all of `pointers` point to."""
        memory = self.tree_of(pointers[0]).data0()
        for ptr in pointers[1:]:
            memory = memory.join(self.tree_of(ptr).data0())
        heads = memory.first_level()
        if any(offset >= size and heads.get(offset % size) != t for offset, t in heads.items()):
            return None
        segments = memory_segments(memory, 0, size)
        if no_data is not None:
            segments = _without_data(segments, no_data)
        if any(seg.type.kind in (Kind.UNKNOWN, Kind.CONFLICT) for seg in segments):
            return None
        return CopyLayout(tuple(segments), size)

    def _bounded_copy(self, call: CallBase, memory: TypeTree, what: str,
                      no_data: Callable[[int, int], bool] | None) -> CopyLayout | None:
        """A copy of a run-time length that no element type explains, typed over
        all it can reach (`copy_bound`: `std::string` moves its characters with
        `memcpy(.., .., size + 1)`, a `void *` helper copies the struct its caller
        passes): the adjoint moves the floats the length covers (`bounded`); None
        when the bound is unknown."""
        bound = self.analysis.copy_bound(call)
        if bound is None or bound == 0:
            return None
        segments = memory_segments(memory, 0, bound)
        if no_data is not None:
            segments = _without_data(segments, no_data)
        _check_segments(segments, call, what + f" (at most {bound} bytes)")
        return CopyLayout(tuple(segments), None, bounded=any(s.type.is_float for s in segments))


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


def repeats(memory: TypeTree, period: int) -> bool:
    """Whether the program shows that `memory` repeats every `period` bytes beyond
    the first period: a `-1` entry, or facts past the first period that agree with
    it. A copy of a run-time length is typed by its first period only then: facts
    about the first element alone say nothing of the rest (a `long` at offset 0
    of an array of `{long, double}` copied as 8-byte words made every word an
    integer, and the doubles' adjoints were dropped)."""
    heads = memory.first_level()
    if heads.get(-1, UNKNOWN).is_known:
        return True
    later = {offset: t for offset, t in heads.items() if offset >= period}
    return bool(later) and all(heads.get(offset % period) == t for offset, t in later.items())


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


_BYTEWISE_LIMIT = 4096
"""Unknown runs up to this size are asked about byte by byte (`_without_data`)."""


def _without_data(segments: list[Segment], no_data: Callable[[int, int], bool]) -> list[Segment]:
    """Unknown bytes for which `no_data` says they carry no data become Anything;
    a run is asked about byte by byte (a struct's integer fields beside a byte
    array that nothing types), a longer one as a whole."""
    out: list[Segment] = []
    for seg in segments:
        if seg.type.kind is not Kind.UNKNOWN:
            _append(out, seg)
        elif seg.size > _BYTEWISE_LIMIT:
            _append(out, Segment(seg.offset, seg.size, ANYTHING) if no_data(seg.offset, seg.size) else seg)
        else:
            for pos in range(seg.offset, seg.offset + seg.size):
                _append(out, Segment(pos, 1, ANYTHING if no_data(pos, 1) else UNKNOWN))
    return out


def join_segments(a: list[Segment], b: list[Segment]) -> list[Segment]:
    """The segments of two views of the same bytes, joined piece by piece.

    Joining two big type trees first can lose their deepest facts (a tree keeps
    at most `MAX_ENTRIES` entries, and an object's integer bytes take one entry
    each: Eigen copies whole evaluators). A float segment that one side's floats
    do not tile (a double at offset 4 against one at 0) becomes Conflict."""
    cuts = sorted({0} | {s.offset for s in a + b} | {s.offset + s.size for s in a + b})
    out: list[Segment] = []
    for lo, hi in zip(cuts, cuts[1:]):
        t = _type_at(a, lo).join(_type_at(b, lo))
        _append(out, Segment(lo, hi - lo, t))
    return [Segment(seg.offset, seg.size, CONFLICT) if seg.type.is_float and not _tiled(seg, a + b) else seg
            for seg in out]


def _type_at(segments: list[Segment], pos: int) -> BaseType:
    return next((s.type for s in segments if s.offset <= pos < s.offset + s.size), UNKNOWN)


def _tiled(seg: Segment, sides: list[Segment]) -> bool:
    """Whether float segment `seg` is whole elements, and so is every float
    segment of either side that overlaps it, on the same grid."""
    stride = seg.type.stride
    if seg.size % stride:
        return False
    for s in sides:
        if s.type.is_float and s.offset < seg.offset + seg.size and seg.offset < s.offset + s.size:
            inside = seg.offset <= s.offset and s.offset + s.size <= seg.offset + seg.size
            if s.type != seg.type or not inside or (s.offset - seg.offset) % stride or s.size % stride:
                return False
    return True


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
