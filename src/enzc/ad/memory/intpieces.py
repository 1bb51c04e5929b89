"""Integer moves whose bytes hold different kinds of data, split into typed pieces.

LLVM copies a small struct as one integer whatever its fields are: a
`struct { float v; int id; }` moves as `load i64` / `store i64`, a `{double, long}`
pair as `i128`. Type analysis knows what each byte range holds; the move is split
into one typed access per range, so the float fields carry derivatives and the
integer ones stay integers:

    %v = load i64, ptr %p            %v.0 = load float, ptr %p
                                     %v.4 = load i32, ptr %p+4
                                     %v   = (zext (bitcast %v.0)) | (zext %v.4) << 32
    store i64 %v, ptr %q             store float %v.0, ptr %q
                                     store i32 %v.4, ptr %q+4

The rebuilt integer serves the load's other users; `trunc`/`lshr` extractions of
exactly one piece (what SROA leaves of a struct copied as an integer) take the piece
itself. A stored integer that is not such a rebuilt value is cut into pieces with
shifts and casts (constants fold). Little-endian layout (x86-64).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import BinaryOp, Cast, Instruction, Load, Store
from enzc.ir.types import I8, I64, FloatType, IntType, PointerType, Type
from enzc.ir.values import ConstantFP, ConstantInt, Value


@dataclass(frozen=True)
class Piece:
    """`type` (a float, `ptr` or an integer) at byte `offset` of a moved integer."""

    offset: int
    type: Type

    @property
    def size(self) -> int:
        return _bytes(self.type)


@dataclass
class SplitValue:
    """The pieces a split load read, and the integer rebuilt from them."""

    pieces: tuple[Piece, ...]
    parts: list[Value]
    bits: Value


class Splitter:
    """Splits loads and stores of one function; remembers rebuilt integers so a store
    of a split load's value stores its pieces."""

    def __init__(self) -> None:
        self.rebuilt: dict[int, SplitValue] = {}
        self.made: list[Instruction] = []
        """Instructions rebuilding or cutting integers (removed when unused)."""
        self.typed: set[int] = set()
        """The typed loads and stores of pieces (final: their integer pieces stay)."""

    def split_load(self, load: Load, pieces: tuple[Piece, ...]) -> None:
        b = IRBuilder()
        b.position_before(load)
        base = load.name or "v"
        parts: list[Value] = []
        for p in pieces:
            typed = b.load(p.type, _address(b, load.ptr, p.offset), f"{base}.{p.offset}",
                           align=_piece_align(load.align, p.offset))
            typed.metadata = {k: m for k, m in load.metadata.items() if not k.startswith("tbaa")}
            self.typed.add(id(typed))
            parts.append(typed)
        bits: Value | None = None
        for p, v in zip(pieces, parts):
            word = self._zext(b, self._as_int(b, v), load.type)
            if p.offset:
                word = self._keep(b.shl(word, ConstantInt(load.type, 8 * p.offset), base + ".shl"))
            bits = word if bits is None else self._keep(b.or_(bits, word, base + ".or"))
        assert bits is not None
        load.replace_all_uses_with(bits)
        load.erase()
        split = SplitValue(pieces, parts, bits)
        self.rebuilt[id(bits)] = split
        self._fold_extractions(split)

    def pieces_of(self, value: Value) -> tuple[Piece, ...] | None:
        """The pieces of the split load `value` is the rebuilt integer of, if it is one."""
        known = self.rebuilt.get(id(value))
        return known.pieces if known is not None and known.bits is value else None

    def split_store(self, store: Store, pieces: tuple[Piece, ...]) -> None:
        value = store.value
        b = IRBuilder()
        b.position_before(store)
        known = self.rebuilt.get(id(value))
        if known is not None and known.pieces == pieces:
            parts = list(known.parts)
        else:
            parts = [self._cut(b, value, p) for p in pieces]
        for p, v in zip(pieces, parts):
            new = b.store(v, _address(b, store.ptr, p.offset), align=_piece_align(store.align, p.offset))
            new.metadata = {k: m for k, m in store.metadata.items() if not k.startswith("tbaa")}
            self.typed.add(id(new))
        store.erase()

    def remove_unused(self) -> None:
        """Drop rebuilt integers nothing uses any more (latest first: they use earlier ones)."""
        for inst in reversed(self.made):
            if inst.parent is not None and not inst.uses:
                inst.erase()

    # -- helpers ---------------------------------------------------------------------------
    def _keep(self, inst: Instruction) -> Instruction:
        self.made.append(inst)
        return inst

    def _as_int(self, b: IRBuilder, v: Value) -> Value:
        if isinstance(v.type, IntType):
            return v
        opcode = "ptrtoint" if isinstance(v.type, PointerType) else "bitcast"
        return self._keep(b.cast(opcode, v, IntType(8 * _bytes(v.type)), (v.name or "v") + ".int"))

    def _zext(self, b: IRBuilder, v: Value, to: Type) -> Value:
        return v if v.type == to else self._keep(b.zext(v, to, (v.name or "v") + ".zext"))

    def _cut(self, b: IRBuilder, value: Value, p: Piece) -> Value:
        """Bytes `p` of integer `value`, as `p.type`."""
        width = IntType(8 * p.size)
        if isinstance(value, ConstantInt):
            return constant_piece(value, p, b)
        word = value
        if p.offset:
            word = self._keep(b.lshr(word, ConstantInt(value.type, 8 * p.offset), "v.shr"))  # type: ignore[arg-type]
        if word.type != width:
            word = self._keep(b.trunc(word, width, "v.trunc"))
        if isinstance(p.type, IntType):
            return word
        opcode = "inttoptr" if isinstance(p.type, PointerType) else "bitcast"
        return self._keep(b.cast(opcode, word, p.type, "v.typed"))

    def _fold_extractions(self, split: SplitValue) -> None:
        """`trunc` (after an `lshr` by whole bytes) of exactly one piece's bytes: that
        piece; a `bitcast` of it back to the piece's type: the piece itself."""
        by_range = {(p.offset, p.size): v for p, v in zip(split.pieces, split.parts)}
        for use in list(split.bits.uses):
            user = use.user
            if isinstance(user, Cast) and user.opcode == "trunc":
                self._replace_extraction(user, by_range.get((0, _bytes(user.type))))
            elif (isinstance(user, BinaryOp) and user.opcode == "lshr" and user.operand(0) is split.bits
                  and isinstance(user.operand(1), ConstantInt) and user.operand(1).value % 8 == 0):
                offset = user.operand(1).value // 8  # type: ignore[attr-defined]
                for inner in list(user.uses):
                    trunc = inner.user
                    if isinstance(trunc, Cast) and trunc.opcode == "trunc":
                        self._replace_extraction(trunc, by_range.get((offset, _bytes(trunc.type))))

    def _replace_extraction(self, trunc: Cast, piece: Value | None) -> None:
        if piece is None or _bytes(piece.type) != _bytes(trunc.type):
            return
        for use in list(trunc.uses):
            user = use.user
            if isinstance(user, Cast) and user.opcode in ("bitcast", "inttoptr") and user.type == piece.type:
                user.replace_all_uses_with(piece)
                user.erase()
        if not trunc.uses:
            return
        b = IRBuilder()
        b.position_before(trunc)
        trunc.replace_all_uses_with(self._as_int(b, piece))


def constant_piece(value: ConstantInt, p: Piece, b: IRBuilder) -> Value:
    """Bytes `p` of a constant integer as `p.type` (little-endian): a constant spelled
    by its bits (NaN payloads stay) for doubles and floats, a `bitcast` at `b` for
    other float kinds; pointer bytes stay an integer."""
    word = (value.value >> (8 * p.offset)) & ((1 << (8 * p.size)) - 1)
    match p.type:
        case FloatType(kind="double"):
            return ConstantFP(p.type, struct.unpack("<d", struct.pack("<Q", word))[0], "0x%016X" % word)
        case FloatType(kind="float"):
            number = struct.unpack("<f", struct.pack("<I", word))[0]
            return ConstantFP(p.type, number, "0x%016X" % _float_as_double_bits(word))
        case FloatType():
            return b.bitcast(ConstantInt(IntType(8 * p.size), word), p.type, "v.typed")
    return ConstantInt(IntType(8 * p.size), word)


def _float_as_double_bits(word: int) -> int:
    """LLVM spells a float constant as the double of the same value; a NaN keeps its
    sign and payload (shifted into the double's mantissa)."""
    if (word >> 23) & 0xFF == 0xFF and word & 0x7FFFFF:
        return ((word >> 31) << 63) | (0x7FF << 52) | ((word & 0x7FFFFF) << 29)
    return struct.unpack("<Q", struct.pack("<d", struct.unpack("<f", struct.pack("<I", word))[0]))[0]


def _address(b: IRBuilder, ptr: Value, offset: int) -> Value:
    return ptr if offset == 0 else b.gep(I8, ptr, [ConstantInt(I64, offset)], "piece.addr")


def _piece_align(align: int | None, offset: int) -> int:
    """The alignment a piece at `offset` keeps of the whole access's `align`."""
    a = align or 1
    while offset % a:
        a //= 2
    return a


def _bytes(t: Type) -> int:
    match t:
        case IntType(bits=bits):
            return bits // 8
        case FloatType(kind="double"):
            return 8
        case FloatType(kind="float"):
            return 4
        case FloatType(kind="half") | FloatType(kind="bfloat"):
            return 2
        case PointerType():
            return 8
    raise ValueError(f"no piece of type {t}")
