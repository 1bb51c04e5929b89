"""Type trees: the text form and the lattice operations type analysis is built on."""

import pytest

from enzc.ad.typeanalysis.typetree import (
    ANYTHING,
    CONFLICT,
    DOUBLE,
    FLOAT,
    INTEGER,
    MAX_DEPTH,
    MAX_OFFSET,
    POINTER,
    UNKNOWN,
    TypeTree,
    float_type,
    parse_base_type,
    parse_type_tree,
)

T = parse_type_tree


@pytest.mark.parametrize("text", [
    "{}",
    "{[-1]:Float@double}",
    "{[-1]:Pointer, [-1,0]:Float@double}",
    "{[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Pointer, [-1,8,0]:Integer, [-1,8,1]:Integer}",
    "{[-1]:Pointer, [-1,-1]:Float@float}",
    "{[0]:Float@double, [8]:Integer, [12]:Float@float}",
    "{[-1]:Anything}",
    "{[-1]:Float@x86_fp80}",
    "{[-1]:Float@fp128}",
    "{[-1]:Float@half}",
    "{[-1]:Conflict}",
])
def test_text_form_round_trips(text):
    assert str(T(text)) == text


def test_parser_accepts_spacing_and_orders_entries():
    tree = T("{ [-1,0] : Float@double ,[-1]:Pointer }")
    assert str(tree) == "{[-1]:Pointer, [-1,0]:Float@double}"
    assert tree == T("{[-1]:Pointer, [-1,0]:Float@double}")
    assert hash(tree) == hash(T("{[-1]:Pointer, [-1,0]:Float@double}"))


@pytest.mark.parametrize("bad", [
    "[-1]:Pointer", "{[-1]:Pointr}", "{[-1]Pointer}", "{[]:Pointer}", "{[-1]:Float@quad}",
    "{[-1]:Pointer,, [0]:Integer}", "{[x]:Integer}",
])
def test_parser_rejects_malformed_text(bad):
    with pytest.raises(ValueError):
        T(bad)


def test_base_type_spellings():
    assert str(float_type("double")) == "Float@double"
    assert parse_base_type("Float@float") == FLOAT
    assert [str(t) for t in (INTEGER, POINTER, ANYTHING, UNKNOWN, CONFLICT)] == [
        "Integer", "Pointer", "Anything", "Unknown", "Conflict"]
    assert DOUBLE.size == 8 and FLOAT.size == 4 and float_type("x86_fp80").stride == 16
    assert INTEGER.size == 1 and POINTER.size == 8


@pytest.mark.parametrize("a, b, joined", [
    (UNKNOWN, DOUBLE, DOUBLE),
    (ANYTHING, DOUBLE, DOUBLE),
    (ANYTHING, INTEGER, INTEGER),
    (INTEGER, POINTER, POINTER),
    (DOUBLE, DOUBLE, DOUBLE),
    (DOUBLE, FLOAT, CONFLICT),
    (DOUBLE, INTEGER, CONFLICT),
    (POINTER, FLOAT, CONFLICT),
    (CONFLICT, UNKNOWN, CONFLICT),
    (CONFLICT, ANYTHING, CONFLICT),
])
def test_base_type_join_is_a_commutative_lattice(a, b, joined):
    assert a.join(b) == joined
    assert b.join(a) == joined


def test_join_of_trees_keeps_both_facts_and_flags_conflicts():
    a = T("{[-1]:Pointer, [-1,0]:Float@double}")
    b = T("{[-1]:Pointer, [-1,8]:Integer}")
    assert str(a | b) == "{[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Integer}"
    c = T("{[-1]:Pointer, [-1,0]:Integer}")
    joined = a | c
    assert joined[(-1, 0)] == CONFLICT
    assert joined.has_conflict()
    assert (a | a) is a and (a | TypeTree()) is a


def test_minus_one_entry_subsumes_concrete_entries_of_the_same_type():
    tree = T("{[-1]:Float@double, [0]:Float@double, [8]:Anything}")
    assert str(tree) == "{[-1]:Float@double}"
    clash = T("{[-1]:Float@double, [8]:Integer}")
    assert str(clash) == "{[-1]:Float@double, [8]:Conflict}"
    assert clash.at((8,)) == CONFLICT and clash.at((16,)) == DOUBLE


def test_children_make_their_parent_a_pointer():
    assert str(T("{[0,8]:Float@double}")) == "{[0]:Pointer, [0,8]:Float@double}"
    assert T("{[0]:Float@double, [0,8]:Integer}")[(0,)] == CONFLICT


def test_depth_and_offset_caps_drop_information_rather_than_invent_it():
    deep = TypeTree({(0,) * (MAX_DEPTH + 1): DOUBLE})
    assert deep == TypeTree()
    far = TypeTree({(MAX_OFFSET,): DOUBLE, (0,): DOUBLE})
    assert str(far) == "{[0]:Float@double}"
    chain = T("{[-1]:Float@double}")
    for _ in range(MAX_DEPTH + 2):
        chain = TypeTree.pointer_to(chain)
    assert max(len(p) for p in chain) == MAX_DEPTH
    assert str(chain).startswith("{[-1]:Pointer, [-1,-1]:Pointer, ")
    assert all(t == POINTER for t in (chain[p] for p in chain))   # the float fell off the end


def test_only_and_data0_are_inverse_for_pointers():
    memory = T("{[0]:Float@double, [8]:Pointer, [8,0]:Integer}")
    ptr = TypeTree.pointer_to(memory)
    assert str(ptr) == "{[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Pointer, [-1,8,0]:Integer}"
    assert ptr.data0() == memory
    assert T("{[0]:Pointer, [0,0]:Float@float}").data0() == T("{[0]:Float@float}")
    assert T("{[-1]:Float@double}").data0() == TypeTree()


def test_shift_moves_concrete_offsets_and_keeps_every_offset_entries():
    memory = T("{[0]:Float@double, [8]:Pointer, [16]:Integer}")
    assert str(memory.shift(-8)) == "{[0]:Pointer, [8]:Integer}"
    assert str(memory.shift(8)) == "{[8]:Float@double, [16]:Pointer, [24]:Integer}"
    assert str(T("{[-1]:Float@double}").shift(-24)) == "{[-1]:Float@double}"


def test_lookup_reads_a_value_out_of_memory():
    memory = T("{[0]:Float@double, [8]:Float@double, [16]:Float@float, [20]:Float@float, [24]:Integer}")
    assert str(memory.lookup(0, 8)) == "{[-1]:Float@double}"
    assert str(memory.lookup(0, 16)) == "{[-1]:Float@double}"   # <2 x double> or i128
    assert str(memory.lookup(16, 8)) == "{[-1]:Float@float}"    # two floats in an i64
    assert str(memory.lookup(8, 16)) == "{[0]:Float@double, [8]:Float@float, [12]:Float@float}"
    assert str(memory.lookup(4, 8)) == "{}"                      # half a double is no double
    assert str(T("{[-1]:Float@double}").lookup(800, 8)) == "{[-1]:Float@double}"


def test_expand_lays_a_value_into_memory():
    assert str(T("{[-1]:Float@double}").expand(16)) == "{[0]:Float@double, [8]:Float@double}"
    assert str(T("{[-1]:Integer}").expand(4)) == "{[0]:Integer, [1]:Integer, [2]:Integer, [3]:Integer}"
    ptr = T("{[-1]:Pointer, [-1,0]:Float@double}")
    assert str(ptr.expand(8)) == "{[0]:Pointer, [0,0]:Float@double}"


def test_canonicalize_collapses_uniform_values_only():
    assert str(T("{[0]:Float@float, [4]:Float@float}").canonicalize(8)) == "{[-1]:Float@float}"
    mixed = T("{[0]:Float@float, [4]:Integer, [5]:Integer, [6]:Integer, [7]:Integer}")
    assert mixed.canonicalize(8) == mixed
    partial = T("{[0]:Float@double}")
    assert partial.canonicalize(16) == partial                    # bytes 8..15 unknown
    two_ptrs = T("{[0]:Pointer, [0,0]:Float@double, [8]:Pointer, [8,0]:Integer}")
    assert two_ptrs.canonicalize(16) == two_ptrs                  # different pointees


def test_periodic_folds_array_walks():
    # a + 8*i into an array of doubles: every element is a double
    assert str(T("{[0]:Float@double}").periodic(0, 8)) == "{[-1]:Float@double}"
    # &a[i].p for struct { double d; int *p; } (stride 16, field at 8)
    s = T("{[0]:Float@double, [8]:Pointer, [8,0]:Integer}")
    assert str(s.periodic(8, 16)) == "{[0]:Pointer, [0,0]:Integer, [8]:Float@double}"
    assert str(s.periodic(-8, 16)) == "{[0]:Pointer, [0,0]:Integer, [8]:Float@double}"


def test_purge_anything():
    assert str(T("{[0]:Anything, [1]:Integer}").purge_anything()) == "{[1]:Integer}"
