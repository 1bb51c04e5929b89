"""libstdc++ strings in type analysis (`typeanalysis/strings.py`): a pointer to a
string's own 16-byte buffer carries no facts about its bytes (characters, or the
capacity of a long string: a union), so what a key copy brings into the heap block
does not land on the map node's double beside the buffer; a
double copied into a string is a double to the copy's adjoint. Also: a GEP choosing one of
a few fields keeps a tree node's fields apart."""

from enzc.ad.typeanalysis.analysis import TypeAnalysis
from enzc.ad.typeanalysis.strings import is_member, untyped_pointee
from enzc.ad.typeanalysis.typetree import parse_type_tree

from test_type_helpers import calls_to, module_from_ir, value

M_CREATE = "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm"

# The copy constructor of a std::string key into a map node (56 bytes: next, the
# string at 8 with its buffer at 24, the double at 40), as it looks at -O2: the
# characters go to the node's buffer or to _M_create's block.
NODE = f"""
@chars = constant [40 x i8] c"a key of more than fifteen characters..."
declare ptr @_Znwm(i64)
declare ptr @{M_CREATE}(ptr, ptr, i64)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define ptr @insert(ptr %src, i64 %n, double %v) {{
entry:
  %cap = alloca i64
  %node = call ptr @_Znwm(i64 56)
  %this = getelementptr inbounds i8, ptr %node, i64 8
  %buf = getelementptr inbounds i8, ptr %node, i64 24
  store ptr %buf, ptr %this
  store i64 %n, ptr %cap
  %long = icmp ugt i64 %n, 15
  br i1 %long, label %heap, label %copy
heap:
  %h = call ptr @{M_CREATE}(ptr %this, ptr %cap, i64 0)
  store ptr %h, ptr %this
  br label %copy
copy:
  %p = phi ptr [ %h, %heap ], [ %buf, %entry ]
  call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr SOURCE, i64 %n, i1 false)
  %end = getelementptr inbounds i8, ptr %p, i64 %n
  store i8 0, ptr %end
  %val = getelementptr inbounds i8, ptr %node, i64 40
  store double %v, ptr %val
  ret ptr %node
}}
"""


def _node(source: str, first: str = ""):
    m = module_from_ir(NODE.replace("SOURCE", source).replace("entry:\n", "entry:\n" + first))
    fn = m.functions["insert"]
    res = TypeAnalysis(m).analyze(fn)
    return res, fn, calls_to(fn, "llvm.memcpy")[0]


def test_the_heap_blocks_bytes_stay_off_the_nodes_double():
    # the copied bytes are integers (a literal's characters): through the phi they
    # reach the heap block and the buffer, but not the node's double 16 bytes on
    res, fn, copy = _node("@chars", "")
    node = res.tree_of(value(fn, "node")).data0()
    assert not node.has_conflict()
    assert res.float_kind_at(value(fn, "node"), 40).kind == "double"
    # the buffer holds characters or the capacity (a union): no fact about its bytes
    assert not res.tree_of(value(fn, "buf")).data0()


def test_a_double_copied_into_a_string_moves_its_adjoint():
    # nothing assumes a string's bytes are characters: a double's bytes copied into
    # one (at most 8, the local double's size) are a double to the copy's adjoint
    res, _, copy = _node("%local", "  %local = alloca double\n  store double %v, ptr %local\n")
    assert [str(s) for s in res.copy_layout(copy).float_segments()] == ["[0,8):Float@double"]


def test_members_are_told_from_static_helpers_and_nested_classes():
    cls = "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE"
    assert is_member(M_CREATE)
    assert is_member(cls + "C2ERKS4_")  # copy constructor
    assert is_member(cls + "D2Ev")
    assert is_member(cls + "aSEOS4_")  # operator=
    assert is_member(cls + "12_M_constructIPKcEEvT_S8_St20forward_iterator_tag")
    assert is_member("_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE4sizeEv")
    assert not is_member(cls + "13_S_copy_charsEPcPKcS7_")  # static: no `this`
    assert not is_member(cls + "12_Alloc_hiderC2EPcRKS3_")  # a nested class's member
    assert not is_member("_ZNSt6vectorIdSaIdEE9push_backERKd")


def test_a_buffer_pointer_keeps_no_pointee_facts():
    tree = parse_type_tree("{[-1]:Pointer, [-1,-1]:Integer, [-1,16]:Float@double}")
    assert str(untyped_pointee(tree)) == "{[-1]:Pointer}"
    bare = parse_type_tree("{[-1]:Pointer}")
    assert untyped_pointee(bare) is bare


def test_a_field_chosen_by_a_select_keeps_the_node_fields_apart():
    # std::map's lower_bound walks `x = x->child[key < k]`: the GEP adds 16 or 24;
    # folding the node modulo 8 would make every 8 bytes of it (the double at 64
    # included) a pointer
    m = module_from_ir("""
define double @walk(ptr %root, i1 %c) {
entry:
  %v0 = getelementptr inbounds i8, ptr %root, i64 64
  store double 1.0, ptr %v0
  br label %loop
loop:
  %x = phi ptr [ %root, %entry ], [ %next, %loop ]
  %off = select i1 %c, i64 24, i64 16
  %slot = getelementptr inbounds i8, ptr %x, i64 %off
  %next = load ptr, ptr %slot
  %done = icmp eq ptr %next, null
  br i1 %done, label %exit, label %loop
exit:
  %v = getelementptr inbounds i8, ptr %x, i64 64
  %d = load double, ptr %v
  ret double %d
}
""")
    fn = m.functions["walk"]
    res = TypeAnalysis(m).analyze(fn)
    node = res.tree_of(value(fn, "x")).data0()
    assert not node.has_conflict()
    assert str(node.at((64,))) == "Float@double"
    assert str(node.at((16,))) == "Pointer" and str(node.at((24,))) == "Pointer"
    assert str(node.at((8,))) == "Unknown"
