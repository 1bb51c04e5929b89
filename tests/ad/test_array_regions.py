"""A variable index stays inside the array it walks (`typeanalysis/array_regions.py`):
the fields beside an indexed array keep their own types instead of folding into
its elements. Each program is compiled by clang-22 as enzcc does before AD."""

from __future__ import annotations

from enzc.ad.typeanalysis.typetree import DOUBLE, INTEGER, POINTER

from test_type_helpers import analyze, module_from_c


def _int_doubles_pointer(tree) -> None:
    """`struct S { int n; double v[4]; double *w; }` behind a pointer, field by field."""
    assert not tree.has_conflict()
    assert tree.at((-1, 0)) == INTEGER
    assert [tree.at((-1, o)) for o in (8, 16, 24, 32)] == [DOUBLE] * 4
    assert tree.at((-1, 40)) == POINTER and tree.at((-1, 40, 0)) == DOUBLE


def test_a_copied_struct_keeps_the_int_and_pointer_beside_its_indexed_array():
    # the local copy's declared type %struct.S bounds v[i] to bytes 8..40
    m = module_from_c("""
        struct S { int n; double v[4]; double *w; };
        double f(const struct S *s) {
            struct S t = *s;
            double r = 0;
            for (int i = 0; i < t.n; i++) r += t.v[i] * t.w[i];
            return r;
        }""")
    res, f = analyze(m, "f")
    _int_doubles_pointer(res.tree_of(f.args[0]))


def test_the_next_member_in_struct_tbaa_bounds_an_array_at_the_start_of_an_argument():
    # nothing declares *t; the tags of t->w and t->n place an S at t, whose next
    # member after v (at 0) starts at 32
    m = module_from_c("""
        struct S { double v[4]; double *w; int n; };
        double f(struct S *t) {
            double r = 0;
            for (int i = 0; i < t->n; i++) r += t->v[i] * t->w[i];
            return r;
        }""")
    res, f = analyze(m, "f")
    tree = res.tree_of(f.args[0])
    assert not tree.has_conflict()
    assert tree.at((-1, 0)) == DOUBLE
    assert tree.at((-1, 32)) == POINTER and tree.at((-1, 32, 0)) == DOUBLE
    assert tree.at((-1, 40)) == INTEGER


def test_an_index_into_records_and_one_into_their_arrays_keep_the_other_fields():
    m = module_from_c("""
        typedef struct { int id; double pos[3]; double *mass; } P;
        double g(const P *ps, int n) {
            P local[2];
            __builtin_memcpy(local, ps, sizeof local);
            double e = 0;
            for (int i = 0; i < n; i++)
                for (int d = 0; d < 3; d++) e += local[i].pos[d] * local[i].mass[0];
            return e;
        }""")
    res, g = analyze(m, "g")
    tree = res.tree_of(g.args[0])
    assert not tree.has_conflict()
    for record in (0, 40):
        assert tree.at((-1, record)) == INTEGER
        assert [tree.at((-1, record + o)) for o in (8, 16, 24)] == [DOUBLE] * 3
        assert tree.at((-1, record + 32)) == POINTER


def test_an_array_walked_from_its_start_is_still_one_array():
    # no declared type, no tags beyond the elements': every element from x on
    m = module_from_c("""
        double f(const double *x, int n) {
            double r = 0;
            for (int i = 0; i < n; i++) r += x[i];
            return r;
        }""")
    res, f = analyze(m, "f")
    assert str(res.tree_of(f.args[0])) == "{[-1]:Pointer, [-1,-1]:Float@double}"


def test_an_array_field_passed_to_a_helper_keeps_the_fields_beside_it():
    # sum() says "every element from v on is a double": v's four, not n or w
    m = module_from_c("""
        struct S { int n; double v[4]; double *w; };
        __attribute__((noinline)) static double sum(const double *v, int n) {
            double r = 0;
            for (int i = 0; i < n; i++) r += v[i] * v[i];
            return r;
        }
        double f(const struct S *s) {
            struct S t;
            __builtin_memcpy(&t, s, sizeof t);
            return sum(t.v, t.n) * t.w[0];
        }""")
    res, f = analyze(m, "f")
    _int_doubles_pointer(res.tree_of(f.args[0]))


def _heap_block(m):
    """The type tree of the block `f` mallocs."""
    res, f = analyze(m, "f")
    return res.tree_of(next(i for i in f.instructions() if i.opcode == "call" and i.called_function.name == "malloc"))


def test_a_counted_loop_bounds_a_walk_where_no_declared_type_does():
    # a record copied to the heap (malloc: no declared type), its array member read
    # in a loop of three (kept a loop): without TBAA (-fno-strict-aliasing) only the
    # loop's bound keeps the int and the pointer after the array out of its elements
    m = module_from_c("""
        #include <stdlib.h>
        struct R { double v[3]; int n; const double *p; double w; };
        double f(struct R r) {
            struct R *h = malloc(sizeof *h);
            *h = r;
            double s = h->w * h->n;
            #pragma clang loop unroll(disable)
            for (int j = 0; j < 3; j++) s += h->v[j] * h->p[j];
            free(h);
            return s;
        }""", "-O2", "-fno-strict-aliasing")
    tree = _heap_block(m)
    assert not tree.has_conflict()
    assert [tree.at((-1, o)) for o in (0, 8, 16, 40)] == [DOUBLE] * 4
    assert tree.at((-1, 24)) == INTEGER and tree.at((-1, 32)) == POINTER


def test_a_walk_by_a_counter_times_a_record_size_stays_below_the_loops_bound():
    # records reached as (char *)h + j * sizeof(struct R) for j < 7 over a heap block
    # of eight records: the eighth record's int stays an int without TBAA
    m = module_from_c("""
        #include <stdlib.h>
        struct R { double a; int k; };
        void sink(char *);
        double f(const double *x) {
            char *h = malloc(8 * sizeof(struct R));
            ((struct R *)(h + 7 * sizeof(struct R)))->k = 7;
            #pragma clang loop unroll(disable)
            for (int j = 0; j < 7; j++) *(double *)(h + j * sizeof(struct R)) = x[j];
            sink(h);
            double s = ((struct R *)(h + 7 * sizeof(struct R)))->k;
            free(h);
            return s;
        }""", "-O2", "-fno-strict-aliasing")
    tree = _heap_block(m)
    assert not tree.has_conflict()
    assert tree.at((-1, 0)) == DOUBLE and tree.at((-1, 96)) == DOUBLE
    assert tree.at((-1, 120)) == INTEGER
