"""What the type a pointer is indexed with declares about the memory it points to.

Type analysis relates `getelementptr T, ptr %p, i64 %i` to `%p` modulo the element
size, over the whole object: in a struct holding a double array and an int array,
`&s->vals[i]` and `&s->counts[j]` then make every offset look both double and int
(a conflict). The element type of a one-index GEP says which of them the pointer
walks: clang indexes `double *` with `double`, `struct P *` with `%struct.P`.
Trusted only for what C declares for sure: float scalars, integers wider than a
byte (`i8` is LLVM's type for byte offsets), pointers, and named structs (clang's
declarations) without unions; used where type analysis finds no answer.
"""

from __future__ import annotations

from enzc.ir.datalayout import DataLayout
from enzc.ir.instructions import Cast, GetElementPtr
from enzc.ir.types import ArrayType, FloatType, IntType, NamedStructType, PointerType, StructType, Type
from enzc.ir.values import Constant, Value

from enzc.ad.typeanalysis.results import Segment
from enzc.ad.typeanalysis.offsets import is_union
from enzc.ad.typeanalysis.typetree import ANYTHING, INTEGER, POINTER, BaseType, float_type


def indexed_type(ptr: Value) -> Type | None:
    """`T` when `ptr` is `getelementptr T, ptr %p, %i` (one variable index)."""
    while isinstance(ptr, Cast) and ptr.opcode == "bitcast":
        ptr = ptr.operand(0)
    if isinstance(ptr, GetElementPtr) and len(ptr.indices) == 1 and not isinstance(ptr.indices[0], Constant):
        return ptr.source_type
    return None


def declared_segments(t: Type, layout: DataLayout) -> list[Segment] | None:
    """What each byte of one `t` holds (padding and bytes: Anything), or None when
    `t` says nothing sure (see the module docstring)."""
    sure = isinstance(t, (FloatType, PointerType)) or (isinstance(t, IntType) and t.bits > 8) \
        or isinstance(t, NamedStructType)
    scalars = _scalars(t, layout) if sure else None
    if scalars is None:
        return None
    out: list[Segment] = []
    pos = 0
    for off, size, kind in [*scalars, (layout.alloc_size_of(t), 0, ANYTHING)]:
        if off > pos:
            _append(out, Segment(pos, off - pos, ANYTHING))
        if size:
            _append(out, Segment(off, size, kind))
        pos = max(pos, off + size)
    return out


def _append(out: list[Segment], seg: Segment) -> None:
    """Add `seg`, merged with the previous segment when they hold the same type."""
    last = out[-1] if out else None
    if last is not None and last.type == seg.type and last.offset + last.size == seg.offset:
        out[-1] = Segment(last.offset, last.size + seg.size, seg.type)
    else:
        out.append(seg)


def indexed_segments(ptr: Value, size: int, layout: DataLayout) -> list[Segment] | None:
    """The declared segments of bytes `[0, size)` behind `ptr` (`size` within one
    element), if its indexing type declares them."""
    t = indexed_type(ptr)
    segments = declared_segments(t, layout) if t is not None else None
    if segments is None or size > layout.alloc_size_of(t):  # type: ignore[arg-type]
        return None
    cut = []
    for seg in segments:
        if seg.offset >= size:
            break
        end = min(seg.offset + seg.size, size)
        if end < seg.offset + seg.size and seg.type.size > 1 and (end - seg.offset) % seg.type.size:
            return None  # the bytes end inside a float or pointer
        cut.append(Segment(seg.offset, end - seg.offset, seg.type))
    return cut


def _scalars(t: Type, layout: DataLayout) -> list[tuple[int, int, BaseType]] | None:
    """(offset, size, type) of the scalars of `t` in order; None for a union or an
    opaque struct anywhere inside."""
    match t:
        case FloatType():
            return [(0, layout.size_of(t), float_type(t.kind))]
        case IntType(bits=bits):
            return [(0, layout.size_of(t), INTEGER if bits > 8 else ANYTHING)]
        case PointerType():
            return [(0, layout.size_of(t), POINTER)]
        case ArrayType(element=e):
            inner = _scalars(e, layout)
            step = layout.alloc_size_of(e)
            return None if inner is None else [(k * step + o, n, b) for k in range(t.count) for o, n, b in inner]
        case NamedStructType() | StructType() if t.elements is not None and not is_union(t):
            out: list[tuple[int, int, BaseType]] = []
            for off, e in zip(layout.struct_layout(t).offsets, t.elements):
                inner = _scalars(e, layout)
                if inner is None:
                    return None
                out += [(off + o, n, b) for o, n, b in inner]
            return out
    return None
