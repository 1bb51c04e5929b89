"""Empty class members and their padding (typeanalysis/padding.py): clang's struct
TBAA node of a class shows an empty member as a record node without members, a
`char` array as an `omnipotent char` member. Only the former's bytes (up to the
next member) count as holding no data, in both TBAA formats, found through the
access tags in reach of a copied pointer and agreed on by every call site."""

import re
import subprocess

import pytest

from enzc.ad.typeanalysis.offsets import TypeSeeds
from enzc.ad.typeanalysis.padding import empty_bytes
from enzc.ad.typeanalysis.tbaa import TBAAReader
from enzc.ir import parse_module
from enzc.ir.datalayout import DataLayout

from jitrun import HEAD
from test_type_helpers import O2_STAR, calls_to

FORMATS = pytest.mark.parametrize("flags", [(), ("-Xclang", "-new-struct-path-tbaa")],
                                  ids=["classic", "size-aware"])

VIEW = """
struct Fixed { static long value() { return 0; } };
struct Span { double *data; long size; };
struct View : Span { long start; Fixed col; long stride; char raw[8]; double scale; Fixed last; };
"""


def cxx_ir(source: str, *flags: str) -> str:
    cmd = ["clang-22", "-S", "-emit-llvm", "-o", "-", "-x", "c++", "-", *O2_STAR, *flags]
    return subprocess.run(cmd, input=source, capture_output=True, text=True, check=True).stdout


def module_from_cxx(source: str, *flags: str):
    return parse_module(cxx_ir(source, *flags))


@FORMATS
def test_an_empty_member_and_its_padding_but_no_char_array(flags):
    m = module_from_cxx(VIEW + 'extern "C" long g(View *v) { return v->stride; }\n', *flags)
    load = next(i for i in m.functions["g"].instructions() if i.opcode == "load")
    reader = TBAAReader(m)
    node, offset = reader.access_base(load.metadata["tbaa"])
    assert offset == 32
    # `col` and its padding; not `raw` (a char array), not `last` (its tail may be reused)
    assert reader.empty_member_ranges(node) == ((24, 32),)


@FORMATS
def test_nested_objects_shift_their_ranges(flags):
    source = VIEW + 'struct Outer { long n; View v; };\nextern "C" long g(Outer *o) { return o->n; }\n'
    m = module_from_cxx(source, *flags)
    load = next(i for i in m.functions["g"].instructions() if i.opcode == "load")
    reader = TBAAReader(m)
    node, _ = reader.access_base(load.metadata["tbaa"])
    assert reader.empty_member_ranges(node) == ((32, 40),)


def test_copied_pointer_takes_the_ranges_all_call_sites_agree_on():
    source = VIEW + """
__attribute__((noinline)) void cp(View *d, const View *s) { *d = *s; }
extern "C" double one(View *a, View *b) { cp(a, b); return a->scale * b->stride; }
"""
    m = module_from_cxx(source)
    cp = next(f for name, f in m.functions.items() if name.startswith("_Z2cp"))
    memcpy = calls_to(cp, "llvm.memcpy")[0]
    reader, seeds = TBAAReader(m), TypeSeeds(DataLayout.parse(m.datalayout))
    assert empty_bytes(memcpy.args[0], reader, seeds, m) == {(24, 32)}
    assert empty_bytes(memcpy.args[1], reader, seeds, m) == {(24, 32)}
    # a second caller whose objects show no class: nothing is agreed
    m = module_from_cxx(source + 'extern "C" void two(View *a, View *b) { cp(a, b); }\n')
    cp = next(f for name, f in m.functions.items() if name.startswith("_Z2cp"))
    memcpy = calls_to(cp, "llvm.memcpy")[0]
    assert empty_bytes(memcpy.args[0], TBAAReader(m), seeds, m) == frozenset()


def test_only_a_clang_that_lists_base_classes_is_trusted():
    """Before clang 19 a class holding data only through its bases (`std::vector`)
    had a TBAA node without members, as an empty class has: no ranges then, nor
    without a producer named."""
    text = cxx_ir(VIEW + 'extern "C" long g(View *v) { return v->stride; }\n')
    assert "clang version 22" in text
    for producer in ("clang version 18.1.8", "Apple clang version 16.0.0", None):
        edited = re.sub(r'clang version 22[^"]*', producer, text) if producer else \
            re.sub(r"^!llvm.ident = .*$", "", text, flags=re.M)
        m = parse_module(edited)
        load = next(i for i in m.functions["g"].instructions() if i.opcode == "load")
        reader = TBAAReader(m)
        assert not reader.lists_base_classes
        assert reader.empty_member_ranges(reader.access_base(load.metadata["tbaa"])[0]) == ()


LOCAL = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define void @reader(ptr %p) {
  %v = load i64, ptr %p
  ret void
}
define void @writer(ptr %p) {
  store i64 3, ptr %p
  ret void
}
define void @f(ptr %d) {
  %a = alloca [24 x i8], align 8
  store i64 1, ptr %a
  %a16 = getelementptr inbounds i8, ptr %a, i64 16
  store i64 2, ptr %a16
  call void @CALLEE(ptr %a)
  %b = alloca [24 x i8], align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %a, i64 24, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %b, i64 24, i1 false)
  ret void
}
"""


@pytest.mark.parametrize(("callee", "expected"), [("reader", {(8, 16)}), ("writer", set())])
def test_unwritten_bytes_of_a_local_object_and_their_copies(callee, expected):
    """Bytes of a local object no write covers hold no data, and so do the bytes a
    copy moves from them into a local object only copies write; a callee that may
    write through the object's address leaves nothing known."""
    m = parse_module(HEAD + LOCAL.replace("CALLEE", callee))
    f = m.functions["f"]
    copy_out = calls_to(f, "llvm.memcpy")[1]
    reader, seeds = TBAAReader(m), TypeSeeds(DataLayout.parse(m.datalayout))
    assert set(empty_bytes(copy_out.args[1], reader, seeds, m)) >= expected
    assert not {r for r in empty_bytes(copy_out.args[1], reader, seeds, m) if r[0] < 16 and r[1] > 8} - expected
