"""Padding of records (typeanalysis/tbaa.py `padding_ranges`, `struct_copy_padding`):
bytes between and after the members that clang's TBAA shows, which hold no value
and so no derivative. A member whose size the classic format does not show (a
`char`, an array, a union, a vector: `omnipotent char`) is never followed by a
gap; the size-aware format gives every member's size."""

import pytest

from enzc.ad.typeanalysis.tbaa import TBAAReader
from enzc.ir import parse_module

from test_empty_members import cxx_ir
from test_type_helpers import analyze, calls_to, module_from_c, module_from_ir

FORMATS = pytest.mark.parametrize("flags", [(), ("-Xclang", "-new-struct-path-tbaa")],
                                  ids=["classic", "size-aware"])


def _node_of_first_load(m, fn: str):
    load = next(i for i in m.functions[fn].instructions() if i.opcode == "load")
    reader = TBAAReader(m)
    node, _ = reader.access_base(load.metadata["tbaa"])
    return reader, node


@FORMATS
def test_gaps_between_members_and_the_tail_of_a_c_struct(flags):
    m = module_from_c("struct S { double a; int n; double b; int m; };\n"
                      "double g(struct S *s) { return s->b; }\n", "-O2", *flags)
    reader, node = _node_of_first_load(m, "g")
    assert reader.padding_ranges(node) == ((12, 16), (28, 32))


@FORMATS
def test_a_nested_record_brings_its_own_tail(flags):
    m = module_from_c("struct In { double x; int k; };\n"
                      "struct Out { struct In in; double y; short m; float f; };\n"
                      "double g(struct Out *o) { return o->y; }\n", "-O2", *flags)
    reader, node = _node_of_first_load(m, "g")
    # In's tail at 12, then the gap after `m` before `f`; no tail (f ends at 32)
    assert reader.padding_ranges(node) == ((12, 16), (26, 28))


def test_no_gap_after_a_member_of_unknown_size_in_the_classic_format():
    m = module_from_c("union U { int i; double d; };\n"
                      "struct S { double a; char c; double b; char raw[3]; double d; union U u; int n; "
                      "  float f; double z; };\n"
                      "double g(struct S *s) { return s->b; }\n", "-O2")
    reader, node = _node_of_first_load(m, "g")
    # after `c`, `raw` and `u` (omnipotent char) nothing is known
    assert reader.padding_ranges(node) == ()
    m = module_from_c("struct S { char c; double a; int n; double z; };\n"
                      "double g(struct S *s) { return s->z; }\n", "-O2")
    reader, node = _node_of_first_load(m, "g")
    assert reader.padding_ranges(node) == ((20, 24),)


CHARS = ("union U { int i; double d; };\n"
         "struct S { double a; char c; double b; char raw[3]; double d; union U u; int n; float f; double z; };\n"
         "double g(struct S *s) { return s->b; }\n"
         "void h(struct S *s, long i) { s[i].n = 1; }\n")  # keeps %struct.S in the IR


def test_the_ir_declaration_sizes_char_members_but_not_unions():
    m = module_from_c(CHARS, "-O2")
    assert "struct.S" in m.types
    reader, node = _node_of_first_load(m, "g")
    # `c` is one byte and `raw` three (i8, [3 x i8]), so the gaps after them are
    # padding; the union (%union.U) may hold a double: nothing after it is known
    assert reader.char_ranges(node) == ((8, 9), (24, 27))
    assert reader.padding_ranges(node) == ((9, 16), (27, 32))


def test_without_its_ir_declaration_a_char_member_says_nothing():
    m = module_from_c(CHARS.replace("void h", "static void unused"), "-O2")
    assert "struct.S" not in m.types
    reader, node = _node_of_first_load(m, "g")
    assert reader.char_ranges(node) == () and reader.padding_ranges(node) == ()


def test_a_declaration_that_disagrees_with_the_node_is_not_believed():
    m = module_from_c(CHARS, "-O2")
    m.types["struct.S"].elements = (m.types["struct.S"].elements[0],) + m.types["struct.S"].elements[2:]
    reader, node = _node_of_first_load(m, "g")
    assert reader.char_ranges(node) == ()


@pytest.mark.parametrize("mangled, name", [("S", "S"), ("_ZTS1S", "S"), ("_ZTSN2ns5InnerE", "ns::Inner"),
                                           ("_ZTSSt6vectorIdSaIdEE", None), ("_ZTS1SIiE", None)])
def test_record_names_as_clang_spells_its_ir_types(mangled, name):
    from enzc.ad.typeanalysis.declared_records import _source_name

    assert _source_name(mangled) == name


def test_a_cxx_char_member_is_sized_by_its_class_declaration():
    m = parse_module(cxx_ir("namespace ns { struct S { double a; char c; double b; }; }\n"
                            'extern "C" double g(ns::S *s) { return s->b; }\n'
                            'extern "C" void h(ns::S *s, long i) { s[i].a = 1; }\n'))
    reader, node = _node_of_first_load(m, "g")
    assert reader.char_ranges(node) == ((8, 9),)
    assert reader.padding_ranges(node) == ((9, 16),)


def test_the_size_aware_format_sizes_char_members_and_arrays():
    m = module_from_c("struct S { double a; char c; double b; char raw[3]; double d; };\n"
                      "double g(struct S *s) { return s->b; }\n", "-O2", "-Xclang", "-new-struct-path-tbaa")
    reader, node = _node_of_first_load(m, "g")
    assert reader.padding_ranges(node) == ((9, 16), (27, 32))


@FORMATS
def test_a_cxx_class_keeps_its_tail(flags):
    m = parse_module(cxx_ir("struct S { double a; int n; double b; int m; };\n"
                            'extern "C" double g(S *s) { return s->b; }\n', *flags))
    reader, node = _node_of_first_load(m, "g")
    assert reader.padding_ranges(node) == ((12, 16),)


def test_struct_copy_padding_is_what_the_copy_list_leaves_out():
    m = module_from_c("struct S { double a; int n; double b; int m; };\n"
                      "void g(struct S *d, struct S *s) { *d = *s; }\n", "-O2")
    copy = next(i for i in m.functions["g"].instructions() if i.opcode == "call")
    reader = TBAAReader(m)
    md = copy.metadata["tbaa.struct"]
    assert reader.struct_copy_padding(md, 32) == ((12, 16), (28, 32))
    # a list that reaches past the copy (a copy a pass shortened) says nothing
    assert reader.struct_copy_padding(md, 24) == ()


RECORDS = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define double @f(ptr %h, ptr %s, i64 %n) {
  %len = mul i64 %n, 16
  call void @llvm.memcpy.p0.p0.i64(ptr %h, ptr %s, i64 %len, i1 false)
  %a = load double, ptr %h
  %p = getelementptr i8, ptr %h, i64 OFFSET
  %b = load TYPE, ptr %p
  ret double %a
}
"""


@pytest.mark.parametrize("offset, type_, records", [("16", "double", True), ("24", "ptr", False)])
def test_records_hold_what_the_first_holds_unless_a_later_fact_disagrees(offset, type_, records):
    m = module_from_ir(RECORDS.replace("OFFSET", offset).replace("TYPE", type_))
    res, f = analyze(m, "f")
    (copy,) = calls_to(f, "llvm.memcpy")
    layout = res.records_layout(copy, 8)
    # 8-byte records of one double, unless the pointer at 24 says the memory is not that
    assert (layout is not None) is records
    if records:
        assert [(s.offset, s.size, str(s.type)) for s in layout.segments] == [(0, 8, "Float@double")]


DISTANCE = """
define i64 @f(ptr %buf, ptr %other, i64 %n, i64 %k) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %end = phi ptr [ %buf, %entry ], [ %end.next, %loop ]
  %end.next = getelementptr i8, ptr %end, i64 24
  %i.next = add i64 %i, 1
  %c = icmp eq i64 %i.next, %n
  br i1 %c, label %exit, label %loop
exit:
  %moved = getelementptr i8, ptr %buf, i64 %k
  %e = ptrtoint ptr %end.next to i64
  %b = ptrtoint ptr BEGIN to i64
  %d = sub i64 %e, %b
  ret i64 %d
}
"""


@pytest.mark.parametrize("begin, multiple", [("%buf", 24), ("%other", 1), ("%moved", 1)])
def test_end_minus_begin_of_one_buffer_walked_in_records_is_a_multiple_of_the_record(begin, multiple):
    # std::vector copies end - begin bytes; stepping 24 bytes from the buffer's start
    # makes that a whole number of 24-byte records, unless begin is another object
    # or an unknown number of bytes in
    from enzc.ad.typeanalysis.analysis import TypeAnalysis
    from enzc.ad.typeanalysis.offsets import length_multiple

    m = module_from_ir(DISTANCE.replace("BEGIN", begin))
    f = m.functions["f"]
    d = next(i for i in f.instructions() if i.name == "d")
    assert length_multiple(d, TypeAnalysis(m).provenance(f, {})) == multiple


def test_a_constant_address_is_no_object_of_a_distance():
    # erase() on an empty std::vector would move from `inttoptr (i64 48 to ptr)` (null's
    # begin + 48): that path does not make `end - begin` a distance between two objects
    from enzc.ad.typeanalysis.analysis import TypeAnalysis
    from enzc.ad.typeanalysis.offsets import length_multiple

    m = module_from_ir("""
define i64 @f(ptr %buf, i1 %c) {
entry:
  br i1 %c, label %full, label %empty
full:
  %e = getelementptr i8, ptr %buf, i64 96
  %b = getelementptr i8, ptr %buf, i64 48
  br label %join
empty:
  br label %join
join:
  %end = phi ptr [ %e, %full ], [ null, %empty ]
  %begin = phi ptr [ %b, %full ], [ inttoptr (i64 48 to ptr), %empty ]
  %ei = ptrtoint ptr %end to i64
  %bi = ptrtoint ptr %begin to i64
  %d = sub i64 %ei, %bi
  ret i64 %d
}
""")
    f = m.functions["f"]
    d = next(i for i in f.instructions() if i.name == "d")
    assert length_multiple(d, TypeAnalysis(m).provenance(f, {})) == 48


@pytest.mark.parametrize("name, found", [("p1 _ZTS1P", "struct.P"), ("p1 _ZTS1Q", None), ("any pointer", None),
                                         ("p2 _ZTS1P", None)])
def test_a_pointer_tbaa_tag_names_the_record_it_points_to(name, found):
    from enzc.ad.typeanalysis.declared_records import pointee_declaration

    m = module_from_ir("%struct.P = type { double, i32 }\n%struct.Q = type { double }\n%struct.Q.0 = type { i32 }\n")
    t = pointee_declaration(m, name)
    assert (t.name if t is not None else None) == found  # Q: two declarations, neither believed
