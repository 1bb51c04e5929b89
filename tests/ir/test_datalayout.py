"""Type sizes and layouts agree with LLVM's own DataLayout (through llvmlite)."""

import llvmlite.binding as llvm
import pytest

from enzc.ir.datalayout import X86_64_DATALAYOUT, DataLayout, DataLayoutError, for_module
from enzc.ir.module import Module
from enzc.ir.types import (
    DOUBLE,
    FLOAT,
    I8,
    I16,
    I32,
    I64,
    PTR,
    ArrayType,
    FloatType,
    IntType,
    NamedStructType,
    PointerType,
    StructType,
    VectorType,
)

FP80 = FloatType("x86_fp80")
NESTED = StructType((I8, StructType((I16, I8))))
NAMED = NamedStructType("struct.S", (I8, DOUBLE, ArrayType(3, I32)))
TYPES = [
    IntType(1), I8, I16, IntType(24), I32, IntType(48), I64, IntType(128), IntType(256),
    FloatType("half"), FloatType("bfloat"), FLOAT, DOUBLE, FP80, FloatType("fp128"),
    PTR, PointerType(270),
    VectorType(3, FLOAT), VectorType(4, IntType(1)), VectorType(8, DOUBLE), VectorType(3, I64),
    VectorType(2, PTR),
    ArrayType(3, IntType(1)), ArrayType(0, DOUBLE), ArrayType(5, FP80),
    StructType((I8, FP80, VectorType(3, FLOAT))), StructType((I8, DOUBLE), packed=True),
    StructType(()), NESTED, StructType((ArrayType(3, I8), IntType(128))), NAMED,
]
LAYOUTS = [X86_64_DATALAYOUT, "", "E-p:32:32-i64:32-f64:32-a:0:32-n32-S64",
           "e-m:e-i64:64-f80:32-n8:16:32:64-S128-ni:1:10"]


def _llvm_type(dl_text: str, t):
    prefix = f"{NAMED} = type {NAMED.body_str()}\n" if t is NAMED else ""
    mod = llvm.parse_assembly(f'target datalayout = "{dl_text}"\n{prefix}@g = global {t} zeroinitializer\n')
    return mod, mod.get_global_variable("g").global_value_type


@pytest.mark.parametrize("dl_text", LAYOUTS)
def test_sizes_and_alignments_match_llvm(dl_text):
    dl = DataLayout.parse(dl_text)
    td = llvm.create_target_data(dl_text)
    for t in TYPES:
        mod, lt = _llvm_type(dl_text, t)
        assert (dl.alloc_size_of(t), dl.abi_align(t)) == (td.get_abi_size(lt), td.get_abi_alignment(lt)), str(t)
        if isinstance(t, (StructType, NamedStructType)):
            for k in range(len(t.elements)):
                assert dl.element_offset(t, k) == td.get_element_offset(lt, k), f"{t} member {k}"


def test_store_size_versus_alloc_size():
    dl = DataLayout.parse(X86_64_DATALAYOUT)
    assert dl.size_of(FP80) == 10 and dl.alloc_size_of(FP80) == 16
    assert dl.size_of(IntType(1)) == 1 and dl.size_in_bits(IntType(1)) == 1
    assert dl.size_of(VectorType(3, FLOAT)) == 12 and dl.alloc_size_of(VectorType(3, FLOAT)) == 16
    assert dl.pointer_size() == 8 and dl.pointer_size(270) == 4 and dl.int_ptr_type() == I64


def test_struct_layout_offsets_and_padding():
    dl = DataLayout.parse(X86_64_DATALAYOUT)
    layout = dl.struct_layout(StructType((I8, DOUBLE, I16)))
    assert layout.offsets == (0, 8, 16) and layout.size == 24 and layout.align == 8
    assert layout.member_at(0) == 0 and layout.member_at(7) == 0 and layout.member_at(9) == 1
    packed = dl.struct_layout(StructType((I8, DOUBLE, I16), packed=True))
    assert packed.offsets == (0, 1, 9) and packed.size == 11


def test_gep_offset():
    dl = DataLayout.parse(X86_64_DATALAYOUT)
    # NAMED = { i8, double, [3 x i32] }: offsets 0, 8, 16; size 28 rounded up to 32
    assert dl.gep_offset(NAMED, [1]) == 32
    assert dl.gep_offset(NAMED, [0, 1]) == 8
    assert dl.gep_offset(NAMED, [2, 2, 1]) == 64 + 16 + 4
    assert dl.gep_offset(ArrayType(4, FP80), [0, 3]) == 48
    assert dl.gep_offset(DOUBLE, [-2]) == -16
    with pytest.raises(DataLayoutError):
        dl.gep_offset(DOUBLE, [0, 1])


def test_module_default_and_errors():
    assert for_module(Module()).text == X86_64_DATALAYOUT
    assert for_module(Module(datalayout="E")).little_endian is False
    with pytest.raises(DataLayoutError, match="malformed"):
        DataLayout.parse("e-i64:abc")
    with pytest.raises(DataLayoutError, match="opaque"):
        DataLayout.parse("").alloc_size_of(NamedStructType("opaque.T"))
