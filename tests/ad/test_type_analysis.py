"""Type analysis on IR snippets and on clang-22 output, checked through the text form."""

import pytest

from enzc.ad.typeanalysis.analysis import TypeAnalysis
from enzc.ad.typeanalysis.results import print_type_analysis
from enzc.ad.typeanalysis.errors import TypeConflictError, UnknownTypeError
from enzc.ad.typeanalysis.typetree import CONFLICT, DOUBLE, FLOAT, INTEGER, POINTER, UNKNOWN, parse_type_tree as T
from enzc.ir import FloatType

from test_type_helpers import analyze, calls_to, module_from_c, module_from_ir, value

FIG3_TREE = ("{[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Pointer, [-1,8,0]:Integer, "
             "[-1,8,1]:Integer, [-1,8,2]:Integer, [-1,8,3]:Integer}")

FIG3_C = """
struct S { double d; int *p; };
__attribute__((noinline)) double f(struct S *s) { return s->d * s->p[0]; }
"""


# -- the paper's Figure 3 ----------------------------------------------------------------


def test_figure3_struct_reached_through_a_pointer_from_uses():
    m = module_from_ir("""
define double @f(ptr %s) {
entry:
  %0 = load double, ptr %s, align 8
  %p = getelementptr inbounds i8, ptr %s, i64 8
  %1 = load ptr, ptr %p, align 8
  %2 = load i32, ptr %1, align 4
  %conv = sitofp i32 %2 to double
  %mul = fmul double %0, %conv
  ret double %mul
}
""")
    res, f = analyze(m, "f")
    assert str(res.tree_of(f.args[0])) == FIG3_TREE
    assert print_type_analysis(f, res) == (
        f"%s: {FIG3_TREE}\n"
        "%0: {[-1]:Float@double}\n"
        "%p: {[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Integer, [-1,0,1]:Integer, [-1,0,2]:Integer, [-1,0,3]:Integer}\n"
        "%1: {[-1]:Pointer, [-1,0]:Integer, [-1,1]:Integer, [-1,2]:Integer, [-1,3]:Integer}\n"
        "%2: {[-1]:Integer}\n"
        "%conv: {[-1]:Float@double}\n"
        "%mul: {[-1]:Float@double}\n"
        "ret: {[-1]:Float@double}\n")


@pytest.mark.parametrize("flags", [(), ("-O2", "-fno-strict-aliasing")])
def test_figure3_from_clang_with_and_without_tbaa(flags):
    m = module_from_c(FIG3_C, *flags)
    res, f = analyze(m, "f")
    assert str(res.tree_of(f.args[0])) == FIG3_TREE


def test_figure3_struct_layout_comes_from_tbaa_even_for_unused_fields():
    # Only `d` is read, but the struct-path TBAA tag describes the whole struct S.
    m = module_from_c("""
struct S { double d; int *p; };
double g(struct S *s) { return s->d; }
""")
    res, g = analyze(m, "g")
    assert str(res.tree_of(g.args[0])) == FIG3_TREE


def test_caller_context_flows_into_the_callee():
    m = module_from_ir("""
define double @first(ptr %p) {
  %x = load i64, ptr %p
  %d = bitcast i64 %x to double
  ret double %d
}
define void @mover(ptr %dst, ptr %src) {
  %v = load i64, ptr %src
  store i64 %v, ptr %dst
  ret void
}
""")
    ta = TypeAnalysis(m)
    mover = m.functions["mover"]
    alone = ta.analyze(mover)
    assert str(alone.tree_of(value(mover, "v"))) == "{}"
    with pytest.raises(UnknownTypeError, match="cannot deduce the type of the value `%v = load i64`"):
        alone.float_kind_of(value(mover, "v"))
    ctx = ta.analyze(mover, [T("{[-1]:Pointer, [-1,0]:Float@double}"), None])
    assert ctx.float_kind_of(value(mover, "v")) == FloatType("double")
    assert str(ctx.tree_of(mover.args[1])) == "{[-1]:Pointer, [-1,0]:Float@double}"
    first = m.functions["first"]
    res = ta.analyze(first)
    assert str(res.tree_of(first.args[0])) == "{[-1]:Pointer, [-1,0]:Float@double}"


# -- integer loads and stores that move floats -------------------------------------------


def test_integer_copy_of_a_double_typed_by_tbaa():
    # `*d = *s` for struct P { double x; } becomes an i64 load/store tagged `double`.
    m = module_from_c("struct P { double x; };\nvoid cp(struct P *d, struct P *s) { *d = *s; }\n")
    res, cp = analyze(m, "cp")
    load = next(i for i in cp.instructions() if i.opcode == "load")
    assert str(load.type) == "i64"
    assert res.float_kind_of(load) == FloatType("double")
    store = next(i for i in cp.instructions() if i.opcode == "store")
    assert res.float_kind_at(store.ptr, 0, 8) == FloatType("double")


def test_integer_copy_of_two_floats_typed_by_the_caller():
    # struct Q { float a, b; } copies as one untagged i64; only the caller knows it is floats.
    m = module_from_c("""
struct Q { float a, b; };
__attribute__((noinline)) void cp(struct Q *d, struct Q *s) { *d = *s; }
float use(struct Q *d, struct Q *s) { cp(d, s); return d->a + d->b; }
""")
    ta = TypeAnalysis(m)
    cp, use = m.functions["cp"], m.functions["use"]
    load = next(i for i in cp.instructions() if i.opcode == "load")
    with pytest.raises(UnknownTypeError):
        ta.analyze(cp).float_kind_of(load)
    res = ta.analyze(use)
    call = calls_to(use, "cp")[0]
    callee = res.callee_results(call)
    assert callee.float_kind_of(load) == FloatType("float")
    assert [str(s) for s in callee.value_layout(load)] == ["[0,8):Float@float"]


def test_type_punning_through_long_conflicts_with_double_uses():
    src = """
__attribute__((noinline)) void cp(double *dst, double *src) { *(long *)dst = *(long *)src; }
double use(double *a, double *b) { cp(a, b); return a[0] * b[0]; }
"""
    strict = module_from_c(src)  # TBAA says `long`, the caller says double
    ta = TypeAnalysis(strict)
    use = strict.functions["use"]
    cp = strict.functions["cp"]
    res = ta.analyze(use).callee_results(calls_to(use, "cp")[0])
    load = next(i for i in cp.instructions() if i.opcode == "load")
    with pytest.raises(TypeConflictError, match="conflicting types"):
        res.float_kind_of(load)
    relaxed = module_from_c(src, "-O2", "-fno-strict-aliasing")
    ta = TypeAnalysis(relaxed)
    use, cp = relaxed.functions["use"], relaxed.functions["cp"]
    res = ta.analyze(use).callee_results(calls_to(use, "cp")[0])
    load = next(i for i in cp.instructions() if i.opcode == "load")
    assert res.float_kind_of(load) == FloatType("double")


# -- memcpy ------------------------------------------------------------------------------


MEMCPY_IR = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define {T} @f(ptr %d, ptr %s) {{
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 8, i1 false)
  %x = load {T}, ptr %d
  %q = getelementptr i8, ptr %d, i64 {HALF}
  %y = load {T}, ptr %q
  %r = {ADD} {T} %x, %y
  ret {T} %r
}}
"""


@pytest.mark.parametrize("t, add, half, expect", [
    ("double", "fadd", 0, "[0,8):Float@double"),
    ("float", "fadd", 4, "[0,8):Float@float"),
    ("i32", "add", 4, "[0,8):Integer"),
])
def test_memcpy_of_eight_bytes_of_doubles_floats_or_ints(t, add, half, expect):
    m = module_from_ir(MEMCPY_IR.format(T=t, ADD=add, HALF=half))
    res, f = analyze(m, "f")
    layout = res.copy_layout(calls_to(f, "llvm.memcpy")[0])
    assert str(layout) == expect
    assert layout.period is None
    floats = layout.float_segments()
    assert [s.type for s in floats] == ([] if t == "i32" else [DOUBLE if t == "double" else FLOAT])
    # the source learned the same types through the copy
    assert res.query_memory(f.args[1], 0, 8) == {"double": DOUBLE, "float": FLOAT, "i32": INTEGER}[t]


def test_memcpy_of_a_struct_uses_tbaa_struct():
    m = module_from_c("""
struct R { double d; long n; float f; float g; double *p; };
void cp(struct R *d, struct R *s) { *d = *s; }
""")
    res, cp = analyze(m, "cp")
    layout = res.copy_layout(calls_to(cp, "llvm.memcpy")[0])
    assert str(layout) == "[0,8):Float@double, [8,16):Integer, [16,24):Float@float, [24,32):Pointer"
    assert [(s.offset, s.size) for s in layout.float_segments()] == [(0, 8), (16, 8)]


def test_memcpy_of_variable_length_repeats_the_element_type():
    m = module_from_c("""
#include <string.h>
double f(double *d, const double *s, int n) { memcpy(d, s, n * sizeof(double)); return d[n - 1]; }
""")
    res, f = analyze(m, "f")
    layout = res.copy_layout(calls_to(f, "llvm.memcpy")[0])
    assert layout.period == 8
    assert str(layout) == "([0,8):Float@double) every 8"


def test_memcpy_of_unknown_bytes_is_an_error_naming_the_call():
    m = module_from_c("""
#include <string.h>
void f(void *d, const void *s, unsigned long n) { memcpy(d, s, n); }
""")
    res, f = analyze(m, "f")
    call = calls_to(f, "llvm.memcpy")[0]
    with pytest.raises(UnknownTypeError) as err:
        res.copy_layout(call)
    assert err.value.value is call
    assert "cannot deduce the type of the memory copied by this memcpy" in str(err.value)
    assert "in function @f" in str(err.value) and "hint:" in str(err.value)


def test_context_sensitive_memcpy_wrapper():
    m = module_from_c("""
#include <string.h>
__attribute__((noinline)) void copy(void *d, const void *s, unsigned long n) { memcpy(d, s, n); }
double use(double *x, int *k) {
  double tmp[4]; int ik[4];
  copy(tmp, x, sizeof tmp); copy(ik, k, sizeof ik);
  double t = 0;
  for (int i = 0; i < 4; i++) t += tmp[i] * ik[i];
  return t;
}
""")
    ta = TypeAnalysis(m)
    use, copy = m.functions["use"], m.functions["copy"]
    res = ta.analyze(use)
    memcpy = calls_to(copy, "llvm.memcpy")[0]
    doubles, ints = (res.callee_results(c) for c in calls_to(use, "copy"))
    # the callee does not know n = 32: it copies what it is shown, element by element
    assert str(doubles.copy_layout(memcpy)) == "([0,8):Float@double) every 8"
    assert doubles.copy_layout(memcpy).float_segments()
    assert str(ints.copy_layout(memcpy)) == "([0,1):Integer) every 1"
    assert not ints.copy_layout(memcpy).float_segments()
    assert str(res.tree_of(use.args[0])) == "{[-1]:Pointer, [-1,-1]:Float@double}"
    assert str(res.tree_of(use.args[1])) == "{[-1]:Pointer, [-1,-1]:Integer}"
    # out of context: its own code says nothing, its two callers pass doubles and ints
    with pytest.raises(TypeConflictError, match="conflicting types"):
        ta.analyze(copy).copy_layout(memcpy)


# -- allocation, phis, loops, recursion ------------------------------------------------


def test_malloc_array_gets_the_type_of_its_elements():
    m = module_from_c("""
#include <stdlib.h>
double *mk(int n) { double *a = malloc(n * sizeof(double)); for (int i = 0; i < n; i++) a[i] = i; return a; }
""")
    res, mk = analyze(m, "mk")
    call = calls_to(mk, "malloc")[0]
    assert str(res.tree_of(call)) == "{[-1]:Pointer, [-1,-1]:Float@double}"
    assert str(res.ret_tree) == "{[-1]:Pointer, [-1,-1]:Float@double}"
    assert res.query_memory(call, 800, 16) == DOUBLE


def test_pointer_phi_walking_an_array():
    m = module_from_c("double walk(double *a, double *end) { double t = 0; "
                      "for (double *p = a; p != end; ++p) t += *p; return t; }")
    res, walk = analyze(m, "walk")
    phi = next(i for i in walk.instructions() if i.opcode == "phi" and str(i.type) == "ptr")
    assert str(res.tree_of(phi)) == "{[-1]:Pointer, [-1,-1]:Float@double}"
    assert str(res.tree_of(walk.args[0])) == "{[-1]:Pointer, [-1,-1]:Float@double}"
    assert str(res.tree_of(walk.args[1])) == "{[-1]:Pointer}"   # only compared, never read


def test_phi_and_select_of_pointers_join_their_pointees():
    m = module_from_ir("""
define double @f(i1 %c, ptr %a, ptr %b, ptr %x, ptr %y) {
entry:
  br i1 %c, label %l, label %r
l:
  br label %j
r:
  br label %j
j:
  %p = phi ptr [ %a, %l ], [ %b, %r ]
  %v = load double, ptr %p
  %q = select i1 %c, ptr %x, ptr %y
  %w = load float, ptr %q
  %e = fpext float %w to double
  %s = fadd double %v, %e
  ret double %s
}
""")
    res, f = analyze(m, "f")
    for name, t in (("a", "double"), ("b", "double"), ("x", "float"), ("y", "float")):
        assert str(res.tree_of(value(f, name))) == f"{{[-1]:Pointer, [-1,0]:Float@{t}}}"


def test_array_of_structs_indexed_by_a_variable():
    m = module_from_c("""
struct S { double d; int *p; };
double sumd(struct S *s, int n) { double t = 0; for (int i = 0; i < n; i++) t += s[i].d; return t; }
""", "-O2", "-fno-strict-aliasing")
    res, f = analyze(m, "sumd")
    tree = res.tree_of(f.args[0])
    assert tree[(-1, 0)] == DOUBLE
    assert tree[(-1, 8)] == UNKNOWN           # nothing reads p: no invented facts
    assert tree[(-1, -1)] == UNKNOWN          # stride 16 is no array of doubles


def test_recursion_reaches_a_fixed_point():
    m = module_from_c("""
__attribute__((noinline)) double rsum(double *x, int n) { return n ? x[0] + rsum(x + 1, n - 1) : 0; }
__attribute__((noinline)) double odd(double *x, int n);
__attribute__((noinline)) double even(double *x, int n) { return n ? x[0] * odd(x + 1, n - 1) : 1; }
__attribute__((noinline)) double odd(double *x, int n) { return n ? x[0] + even(x + 1, n - 1) : 0; }
double top(void *v, int n) { return rsum(v, n) + even(v, n); }
""", "-O2", "-fno-strict-aliasing")
    ta = TypeAnalysis(m)
    top = m.functions["top"]
    res = ta.analyze(top)
    assert str(res.tree_of(top.args[0])) == "{[-1]:Pointer, [-1,-1]:Float@double}"
    rsum = m.functions["rsum"]
    inner = res.callee_results(calls_to(top, "rsum")[0])
    assert str(inner.tree_of(rsum.args[0])) == "{[-1]:Pointer, [-1,-1]:Float@double}"
    assert not inner.provisional
    odd = m.functions["odd"]
    odd_res = ta.analyze(odd)
    assert str(odd_res.ret_tree) == "{[-1]:Float@double}"
    assert str(odd_res.tree_of(odd.args[0])) == "{[-1]:Pointer, [-1,-1]:Float@double}"


def test_linked_list_trees_stop_at_the_depth_cap():
    m = module_from_c("struct node { double v; struct node *next; };\n"
                      "double lsum(struct node *l) { double t = 0; for (; l; l = l->next) t += l->v; return t; }")
    res, f = analyze(m, "lsum")
    tree = res.tree_of(f.args[0])
    assert tree[(-1, 0)] == DOUBLE and tree[(-1, 8)] == POINTER and tree[(-1, 8, 0)] == DOUBLE
    assert max(len(p) for p in tree) == 6


# -- pointer arithmetic through integers, aggregates, vectors, libraries -------------------


def test_pointer_arithmetic_through_integers():
    m = module_from_ir("""
define double @f(ptr %p) {
  %i = ptrtoint ptr %p to i64
  %j = add i64 %i, 8
  %q = inttoptr i64 %j to ptr
  %x = load double, ptr %q
  %k = and i64 %i, -16
  ret double %x
}
""")
    res, f = analyze(m, "f")
    assert str(res.tree_of(f.args[0])) == "{[-1]:Pointer, [-1,8]:Float@double}"
    assert str(res.tree_of(value(f, "j"))) == "{[-1]:Pointer, [-1,0]:Float@double}"
    assert str(res.tree_of(value(f, "k"))) == "{[-1]:Pointer}"


def test_aggregates_and_vectors():
    m = module_from_ir("""
define { double, ptr } @f(ptr %p, ptr %v) {
  %d = load double, ptr %p
  %a = insertvalue { double, ptr } poison, double %d, 0
  %b = insertvalue { double, ptr } %a, ptr %p, 1
  %e = extractvalue { double, ptr } %b, 1
  %w = load <2 x double>, ptr %v
  %x = extractelement <2 x double> %w, i64 1
  %i = bitcast <2 x double> %w to <4 x i32>
  ret { double, ptr } %b
}
""")
    res, f = analyze(m, "f")
    assert str(res.tree_of(value(f, "b"))) == "{[0]:Float@double, [8]:Pointer, [8,0]:Float@double}"
    assert str(res.tree_of(value(f, "e"))) == "{[-1]:Pointer, [-1,0]:Float@double}"
    assert str(res.tree_of(f.args[1])) == "{[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@double}"
    assert str(res.tree_of(value(f, "i"))) == "{[-1]:Float@double}"


def test_library_signatures_type_pointer_arguments():
    m = module_from_ir("""
declare double @frexp(double, ptr)
declare void @sincos(double, ptr, ptr)
define double @f(double %x, ptr %e, ptr %s, ptr %c) {
  %m = call double @frexp(double %x, ptr %e)
  call void @sincos(double %x, ptr %s, ptr %c)
  ret double %m
}
""")
    res, f = analyze(m, "f")
    assert res.float_kind_at(value(f, "s")) == FloatType("double")
    assert res.float_kind_at(value(f, "e"), 0, 4) is None
    assert res.query_memory(value(f, "e"), 0, 4) == INTEGER


def test_pointer_tbaa_gives_the_pointee():
    m = module_from_c("double g(double **pp) { double *p = *pp; return p != 0; }")
    res, g = analyze(m, "g")
    assert str(res.tree_of(g.args[0])) == "{[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Float@double}"


def test_union_conflict_only_matters_when_queried():
    m = module_from_ir("""
define i64 @f(ptr %u, double %x) {
  store double %x, ptr %u
  %l = load i64, ptr %u
  %m = mul i64 %l, 3
  ret i64 %m
}
""")
    res, f = analyze(m, "f")  # no exception: nothing asked yet
    assert str(res.tree_of(value(f, "l"))) == "{[-1]:Conflict}"
    with pytest.raises(TypeConflictError):
        res.float_kind_at(f.args[0], 0, 8)


def test_globals_and_constant_gep_expressions():
    m = module_from_ir("""
%struct.P = type { i64, double }
@g = global %struct.P zeroinitializer
@arr = global [4 x double] zeroinitializer
define double @f(ptr %out) {
  %x = load double, ptr getelementptr inbounds (%struct.P, ptr @g, i64 0, i32 1)
  %y = load i64, ptr getelementptr inbounds (i8, ptr @arr, i64 16)
  store i64 %y, ptr %out
  ret double %x
}
""")
    res, f = analyze(m, "f")
    g, arr = m.globals["g"], m.globals["arr"]
    ints = ", ".join(f"[-1,{b}]:Integer" for b in range(8))  # the declared struct's i64
    assert str(res.tree_of(g)) == f"{{[-1]:Pointer, {ints}, [-1,8]:Float@double}}"
    assert res.query_memory(arr, 0, 32) == DOUBLE                  # from its declared type
    assert res.float_kind_of(value(f, "y")) == FloatType("double")  # through the expression
    assert str(res.tree_of(f.args[0])) == "{[-1]:Pointer, [-1,0]:Float@double}"


# -- pointer walks that must not grow without bound ------------------------------------


def test_pointer_walk_through_memory_folds_instead_of_growing():
    # `*slot = *slot + 8` (what va_arg and iterators compile to) walks an array.
    m = module_from_ir("""
define double @f(ptr %slot, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %p = load ptr, ptr %slot
  %x = load double, ptr %p
  %p.next = getelementptr i8, ptr %p, i64 8
  store ptr %p.next, ptr %slot
  %acc.next = fadd double %acc, %x
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %acc.next
}
""")
    res, f = analyze(m, "f")
    assert str(res.tree_of(f.args[0])) == "{[-1]:Pointer, [-1,0]:Pointer, [-1,0,-1]:Float@double}"
    assert not res._state.saturated


def test_best_so_far_select_walks_with_the_array_stride():
    # max_element over struct { double key; double val; int tag; } (24 bytes)
    m = module_from_c("""
struct S { double key, val; int tag; };
__attribute__((noinline)) struct S *best(struct S *a, struct S *end) {
  struct S *b = a;
  for (struct S *p = a + 1; p != end; ++p) if (p->key > b->key) b = p;
  return b;
}
double use(struct S *a, struct S *end) { struct S *b = best(a, end); return b->val * b->tag; }
""")
    ta = TypeAnalysis(m)
    use = m.functions["use"]
    res = ta.analyze(use)
    tree = res.tree_of(use.args[0])
    assert tree[(-1, 0)] == DOUBLE and tree[(-1, 8)] == DOUBLE and tree[(-1, 16)] == INTEGER
    inner = res.callee_results(calls_to(use, "best")[0])
    assert not inner._state.saturated       # converged, not cut off
    param = inner.tree_of(m.functions["best"].args[0])
    assert param[(-1, 24)] == DOUBLE        # a + 1 has the same layout
    assert all(t != CONFLICT for t in (param[p] for p in param))


def test_many_calling_contexts_share_one_summary():
    calls = "\n".join(f"  t += get(a + {k}, {k});" for k in range(8))
    m = module_from_c(f"""
__attribute__((noinline)) double get(double *p, int i) {{ return p[i]; }}
double use(double *a) {{
  double t = 0;
{calls}
  return t;
}}
""")
    ta = TypeAnalysis(m)
    use = m.functions["use"]
    res = ta.analyze(use)
    assert str(res.tree_of(use.args[0])) == "{[-1]:Pointer, [-1,-1]:Float@double}"
    for call in calls_to(use, "get"):
        assert str(res.callee_results(call).ret_tree) == "{[-1]:Float@double}"


def test_argument_trees_carry_the_call_site_context():
    m = module_from_c("""
#include <stdlib.h>
extern double __enzyme_autodiff(void *, ...);
double f(void *p) { return *(double *)p; }
double g(int n) {
  double *x = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) x[i] = i;
  return __enzyme_autodiff((void *)f, x);
}
""")
    ta = TypeAnalysis(m)
    g = m.functions["g"]
    call = calls_to(g, "__enzyme_autodiff")[0]
    trees = ta.argument_trees(g, [call.args[1]])
    assert str(trees[0]) == "{[-1]:Pointer, [-1,-1]:Float@double}"
    f = m.functions["f"]
    assert str(ta.analyze(f, trees).tree_of(f.args[0])) == "{[-1]:Pointer, [-1,-1]:Float@double}"


def test_realloc_keeps_the_contents_and_memset_claims_nothing():
    m = module_from_ir("""
declare ptr @realloc(ptr, i64)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
define double @f(ptr %old, i64 %n, ptr %z) {
  %new = call ptr @realloc(ptr %old, i64 %n)
  %x = load double, ptr %new
  call void @llvm.memset.p0.i64(ptr %z, i8 0, i64 %n, i1 false)
  ret double %x
}
""")
    res, f = analyze(m, "f")
    assert str(res.tree_of(f.args[0])) == "{[-1]:Pointer, [-1,0]:Float@double}"
    assert str(res.tree_of(f.args[1])) == "{[-1]:Integer}"
    assert str(res.tree_of(f.args[2])) == "{[-1]:Pointer}"


def test_atomics_move_the_memory_type():
    m = module_from_ir("""
define double @f(ptr %p, ptr %q, double %v) {
  %old = atomicrmw fadd ptr %p, double %v seq_cst
  %pair = cmpxchg ptr %q, i64 0, i64 1 seq_cst seq_cst
  %n = extractvalue { i64, i1 } %pair, 0
  %k = mul i64 %n, 2
  ret double %old
}
""")
    res, f = analyze(m, "f")
    assert str(res.tree_of(f.args[0])) == "{[-1]:Pointer, [-1,0]:Float@double}"
    assert res.query_memory(f.args[1], 0, 8) == INTEGER


def test_two_float_kinds_in_the_same_bytes_conflict():
    m = module_from_ir("""
define float @f(ptr %p) {
  %d = load double, ptr %p
  %s = load float, ptr %p
  ret float %s
}
""")
    res, f = analyze(m, "f")
    assert str(res.tree_of(f.args[0])) == "{[-1]:Pointer, [-1,0]:Conflict}"
    with pytest.raises(TypeConflictError, match="conflicting types"):
        res.float_kind_at(f.args[0])


def test_pointer_to_pointer_tbaa():
    m = module_from_c("double g(double **pp, int i) { return pp[i][0]; }", "-O2")
    res, g = analyze(m, "g")
    tree = res.tree_of(g.args[0])
    assert tree[(-1, -1)] == POINTER and tree[(-1, -1, 0)] == DOUBLE


def test_struct_padding_is_anything_so_whole_struct_copies_have_a_layout():
    # {ptr, double, i32} has 4 bytes of tail padding: a memcpy of the whole record
    # (24 bytes) must not stop at "unknown type" there.
    m = module_from_ir("""
%struct.Rec = type { ptr, double, i32 }
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define void @f(ptr %x, double %w) {
entry:
  %a = alloca %struct.Rec, align 8
  %b = alloca %struct.Rec, align 8
  store ptr %x, ptr %a, align 8
  %wp = getelementptr inbounds %struct.Rec, ptr %a, i32 0, i32 1
  store double %w, ptr %wp, align 8
  %kp = getelementptr inbounds %struct.Rec, ptr %a, i32 0, i32 2
  store i32 3, ptr %kp, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %a, i64 24, i1 false)
  ret void
}
""")
    res, f = analyze(m, "f")
    (copy,) = calls_to(f, "llvm.memcpy.p0.p0.i64")
    assert str(res.copy_layout(copy)) == "[0,8):Pointer, [8,16):Float@double, [16,20):Integer, [20,24):Anything"


def test_integer_fields_of_a_declared_struct_type_are_integers():
    # Eigen copies a Block object (pointers and i64 sizes) whole; a size the code
    # never reads is still an integer: the named struct type is clang's declaration.
    # A literal struct's i64 (optimized code's own) may carry anything.
    m = module_from_ir("""
%class.Block = type { ptr, i64, [2 x i64] }
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define void @f(ptr %src, ptr %other) {
entry:
  %a = alloca %class.Block, align 8
  %b = alloca { ptr, i64 }, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %a, ptr %src, i64 32, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %other, i64 16, i1 false)
  ret void
}
""")
    res, f = analyze(m, "f")
    declared, literal = calls_to(f, "llvm.memcpy.p0.p0.i64")
    assert str(res.copy_layout(declared)) == "[0,8):Pointer, [8,32):Integer"
    with pytest.raises(UnknownTypeError):
        res.copy_layout(literal)


# -- known imprecision ---------------------------------------------------------------------


_ARRAY_FIELD_IR = """
define double @f(ptr %s, i64 %i) {
entry:
  %p = load ptr, ptr %s, align 8
  %x = load double, ptr %p, align 8
  %a = getelementptr inbounds nuw i8, ptr %s, i64 8
  %e = getelementptr inbounds nuw i64, ptr %a, i64 %i
  %v = load i64, ptr %e, align 8
  %w = sitofp i64 %v to double
  %r = fmul double %x, %w
  ret double %r
}
"""


def test_an_array_field_indexed_by_a_variable_keeps_its_neighbours_apart():
    # struct { double *x; long dims[]; }: s->x[0] * s->dims[i]
    res, f = analyze(module_from_ir(_ARRAY_FIELD_IR), "f")
    assert res.tree_of(f.args[0]).at((-1, 0, 0)) == DOUBLE
    assert res.tree_of(value(f, "e")).at((-1, 0)) == INTEGER
    assert res.tree_of(f.args[0]).at((-1, 16)) != POINTER


def test_a_select_of_two_rows_is_one_of_two_places_not_a_walk():
    # `m[i / 3][i % 3]` at -O2: select(i > 2, &m[1][0], &m[0][0]), then a column index.
    # Related modulo 24 (as a loop walking an array), the record's pointer at 56
    # folded into the matrix rows: a conflict at every offset.
    m = module_from_ir("""
%struct.R = type { [2 x [3 x double]], double, ptr, i32 }
define double @f(ptr %x, i32 %i, i64 %j) {
  %r = alloca %struct.R
  %p = getelementptr inbounds i8, ptr %r, i64 56
  store ptr %x, ptr %p
  %row1 = getelementptr inbounds i8, ptr %r, i64 24
  %c = icmp ugt i32 %i, 2
  %row = select i1 %c, ptr %row1, ptr %r
  %e = getelementptr inbounds double, ptr %row, i64 %j
  %v = load double, ptr %e
  %q = load ptr, ptr %p
  %w = load double, ptr %q
  %s = fadd double %v, %w
  ret double %s
}
""")
    res, f = analyze(m, "f")
    record = res.tree_of(value(f, "r")).data0()
    assert record.at((56,)) == POINTER and record.at((0,)) == DOUBLE and record.at((24,)) == DOUBLE
    assert CONFLICT not in record.first_level().values()
