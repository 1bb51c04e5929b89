"""Copies of a run-time length bounded by the objects they stay inside (`extents`):
what such a copy can reach is typed over that bound; a floating-point value there
moves its adjoint as far as the run-time length covers it (`bounded`), and no bound
keeps the located error."""

import pytest

from enzc.ad.typeanalysis.analysis import TypeAnalysis
from enzc.ad.typeanalysis.errors import UnknownTypeError
from enzc.ad.typeanalysis.extents import object_extent

from test_type_helpers import calls_to, module_from_c, module_from_ir

RECORD = r"""
#include <string.h>
struct Rec { char name[16]; double v; };
__attribute__((noinline)) void set_name(struct Rec *r, const char *src, unsigned long n) {
  memcpy(r->name, src, n);
}
"""


def _set_name_copy(source: str) -> tuple[TypeAnalysis, object, object]:
    m = module_from_c(RECORD + source)
    fn = m.functions["set_name"]
    ta = TypeAnalysis(m)
    return ta, ta.analyze(fn), calls_to(fn, "llvm.memcpy")[0]


def test_a_copy_from_a_small_local_char_array_moves_integers_only():
    # every caller passes 8 local bytes: the copy cannot reach the double after
    # the 16 name bytes of the destination
    ta, res, copy = _set_name_copy("""
double use(double x, const char *s, unsigned long n) {
  char tmp[8];
  for (int i = 0; i < 8; i++) tmp[i] = s[i];
  struct Rec r; r.v = x;
  set_name(&r, tmp, n);
  return r.v * r.name[0];
}
""")
    assert ta.copy_bound(copy) == 8
    assert str(res.copy_layout(copy)) == "[0,8):Integer"


def test_a_bound_that_reaches_a_double_moves_what_the_length_covers():
    # the source is unbounded, the destination's record ends 24 bytes on, with
    # its double at 16..24: the run-time length may reach it, so the reverse pass
    # moves that double's adjoint only when the length covers it (`bounded`)
    ta, res, copy = _set_name_copy("""
double use(double x, const char *s, unsigned long n) {
  struct Rec r; r.v = x;
  for (int i = 0; i < 16; i++) r.name[i] = s[i];
  set_name(&r, s, n);
  return r.v * r.name[0];
}
""")
    assert ta.copy_bound(copy) == 24
    layout = res.copy_layout(copy)
    assert layout.bounded and [(s.offset, s.size, str(s.type)) for s in layout.float_segments()] == \
        [(16, 8, "Float@double")]


def test_no_bound_when_the_address_escapes():
    ta, res, copy = _set_name_copy("""
void (*volatile hook)(struct Rec *, const char *, unsigned long) = set_name;
double use(double x, const char *s, unsigned long n) {
  char tmp[8];
  for (int i = 0; i < 8; i++) tmp[i] = s[i];
  struct Rec r; r.v = x;
  set_name(&r, tmp, n);
  return r.v * r.name[0];
}
""")
    assert ta.copy_bound(copy) is None
    with pytest.raises(UnknownTypeError):
        res.copy_layout(copy)


def test_extents_of_heap_blocks_phis_and_offsets():
    m = module_from_c(r"""
#include <stdlib.h>
char *pick(int c, unsigned long n) {
  char *a = malloc(40), *b = malloc(24), *v = malloc(n);
  char *p = c ? a + 8 : b;
  p[0] = 1; v[0] = 2;
  return c > 1 ? v : p;
}
""", "-O1")
    seeds = TypeAnalysis(m).seeds
    fn = m.functions["pick"]
    phis = [i for i in fn.instructions() if i.opcode in ("phi", "select")]
    by_text = {str(object_extent(i, seeds, m)) for i in phis}
    assert "32" in by_text  # max(40 - 8, 24)
    assert "None" in by_text  # a block of run-time size


# -- copies of big objects ------------------------------------------------------------------------

from enzc.ad.typeanalysis.results import Segment, join_segments  # noqa: E402
from enzc.ad.typeanalysis.typetree import CONFLICT, INTEGER, POINTER, UNKNOWN, float_type  # noqa: E402

DOUBLE = float_type("double")


def test_joined_segments_take_what_either_side_knows():
    a = [Segment(0, 8, POINTER), Segment(8, 8, UNKNOWN), Segment(16, 16, DOUBLE)]
    b = [Segment(0, 8, UNKNOWN), Segment(8, 8, INTEGER), Segment(16, 16, UNKNOWN)]
    assert join_segments(a, b) == [Segment(0, 8, POINTER), Segment(8, 8, INTEGER), Segment(16, 16, DOUBLE)]


def test_doubles_on_different_grids_conflict():
    a = [Segment(0, 4, UNKNOWN), Segment(4, 8, DOUBLE)]
    b = [Segment(0, 8, DOUBLE), Segment(8, 4, UNKNOWN)]
    assert all(s.type == CONFLICT for s in join_segments(a, b))


def test_segments_of_two_big_trees_survive_where_their_join_does_not():
    # Three quarters of a tree's entries as integer bytes on each side (one entry
    # per byte): their join has more entries than a tree keeps and loses its whole
    # first level, while each side alone fits.
    from enzc.ad.typeanalysis.results import memory_segments
    from enzc.ad.typeanalysis.typetree import MAX_ENTRIES, TypeTree

    ints = 8 * (MAX_ENTRIES * 3 // 32) + 4  # 100 bytes when a tree kept 128 entries
    ptr = ints + 4
    end = 2 * ptr - 8
    d = TypeTree({(o,): INTEGER for o in range(ints)} | {(ptr,): POINTER})
    s = TypeTree({(o,): INTEGER for o in range(ptr, end)} | {(0,): POINTER})
    assert all(seg.type == UNKNOWN for seg in memory_segments(d.join(s), 0, end))
    joined = join_segments(memory_segments(d, 0, end), memory_segments(s, 0, end))
    assert joined == [Segment(0, 8, POINTER), Segment(8, ints - 8, INTEGER), Segment(ints, 4, UNKNOWN),
                      Segment(ptr, 8, POINTER), Segment(ptr + 8, end - ptr - 8, INTEGER)]


def test_a_lone_byte_of_a_declared_struct_is_an_integer_a_byte_array_says_nothing():
    from enzc.ad.typeanalysis.offsets import declared_integers
    from enzc.ir.datalayout import DataLayout
    from enzc.ir.parser import parse_module

    m = parse_module('%struct.S = type { ptr, i64, i8, [7 x i8], i64 }\n')
    s = m.types["struct.S"]
    layout = DataLayout.parse("e-m:e-i64:64-f80:128-n8:16:32:64-S128")
    assert declared_integers(s, 16, 17, layout)  # a bool, or an empty member
    assert not declared_integers(s, 17, 24, layout)  # a char array may hold anything
    assert declared_integers(s, 8, 16, layout) and declared_integers(s, 24, 32, layout)
    assert not declared_integers(s, 0, 8, layout)


def test_an_array_of_unknown_size_has_no_extent():
    m = module_from_c(r"""
extern double table[];
extern double fixed[4];
double *a(void) { return table; }
double *b(void) { return fixed + 1; }
""")
    seeds = TypeAnalysis(m).seeds
    assert object_extent(m.globals["table"], seeds, m) is None
    assert object_extent(m.globals["fixed"], seeds, m) == 32


SLOT = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @escape(ptr)

define void @emplace(ptr %node, ptr %tuple, i64 %n) {
  %keyp = load ptr, ptr %tuple
  %src = getelementptr inbounds i8, ptr %keyp, i64 16
  call void @llvm.memcpy.p0.p0.i64(ptr %node, ptr %src, i64 %n, i1 false)
  ret void
}

define void @caller(ptr %node, i64 %n) {
  %key = alloca [32 x i8]
  %t = alloca ptr
  store ptr %key, ptr %t
  call void @emplace(ptr %node, ptr %t, i64 %n)
  ret void
}
"""


def test_a_pointer_passed_through_a_local_slot_keeps_its_extent():
    # std::map's key reaches the node through a tuple of references: the slot
    # holds only the 32-byte local key, so the copy from its buffer moves at most 16
    m = module_from_ir(SLOT)
    ta = TypeAnalysis(m)
    assert ta.copy_bound(calls_to(m.functions["emplace"], "llvm.memcpy")[0]) == 16


def test_a_slot_that_escapes_bounds_nothing():
    m = module_from_ir(SLOT.replace("  call void @emplace", "  call void @escape(ptr %t)\n  call void @emplace"))
    ta = TypeAnalysis(m)
    assert ta.copy_bound(calls_to(m.functions["emplace"], "llvm.memcpy")[0]) is None
