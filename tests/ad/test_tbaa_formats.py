"""Type facts from both of LLVM's TBAA formats: clang's default and the size-aware
one (`-Xclang -new-struct-path-tbaa`, which Enzyme's Eigen tests use). The same C
must give the same types either way; the size-aware format also types every
element of an array member."""

import dataclasses
from pathlib import Path

import pytest

from enzc.ad.typeanalysis.tbaa import TBAAReader
from enzc.ir import FloatType

from gradcheck import PROGRAMS, load_program, run_and_check
from test_type_helpers import O2_STAR, analyze, module_from_c

NEW_FORMAT = ("-Xclang", "-new-struct-path-tbaa")
FORMATS = pytest.mark.parametrize("flags", [(), NEW_FORMAT], ids=["classic", "size-aware"])


def _c(source: str, flags: tuple[str, ...]):
    return module_from_c(source, *O2_STAR, *flags)


@FORMATS
def test_struct_layout_from_an_access_to_one_field(flags):
    m = _c("struct S { double d; int *p; };\ndouble g(struct S *s) { return s->d; }\n", flags)
    res, g = analyze(m, "g")
    assert str(res.tree_of(g.args[0])) == (
        "{[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Pointer, [-1,8,0]:Integer, "
        "[-1,8,1]:Integer, [-1,8,2]:Integer, [-1,8,3]:Integer}")


@FORMATS
def test_integer_copy_of_a_double_typed_by_its_tag(flags):
    m = _c("struct P { double x; };\nvoid cp(struct P *d, struct P *s) { *d = *s; }\n", flags)
    res, cp = analyze(m, "cp")
    load = next(i for i in cp.instructions() if i.opcode == "load")
    assert str(load.type) == "i64"
    assert res.float_kind_of(load) == FloatType("double")


@FORMATS
def test_pointer_tag_gives_the_pointee(flags):
    m = _c("double g(double **pp) { double *p = *pp; return p != 0; }", flags)
    res, g = analyze(m, "g")
    assert str(res.tree_of(g.args[0])) == "{[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Float@double}"


@FORMATS
def test_integer_access_names_an_integer(flags):
    m = _c("struct C { long n; double v; };\nvoid set(struct C *c) { c->n = 3; }\n", flags)
    store = next(i for i in m.functions["set"].instructions() if i.opcode == "store")
    assert TBAAReader(m).access_type_name(store.metadata["tbaa"]) == "long"


def test_size_aware_format_types_every_element_of_an_array_member():
    # the tag of the access to `n` describes the whole struct (members before the
    # accessed one are dropped, so access the first)
    source = "struct A { int n; float v[3]; };\nint g(struct A *a) { return a->n; }\n"
    res, g = analyze(_c(source, NEW_FORMAT), "g")
    tree = str(res.tree_of(g.args[0]))
    for offset in (4, 8, 12):
        assert f"[-1,{offset}]:Float@float" in tree
    assert "[-1,0]:Integer" in tree


@pytest.mark.parametrize("config", ["-O0", "-O2"])
def test_struct_copies_gradient_with_size_aware_tags(config: str, tmp_path: Path, drivers) -> None:
    """rev2/memory/struct_int_copies.c built with the size-aware format: its integer
    moves of mixed bytes can only be typed from those tags (before: 'cannot deduce')."""
    prog = load_program(PROGRAMS / "rev2" / "memory" / "struct_int_copies.c", PROGRAMS / "rev2")
    assert prog is not None
    run_and_check(dataclasses.replace(prog, flags=(*prog.flags, *NEW_FORMAT)), config, tmp_path)
