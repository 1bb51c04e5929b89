"""Derivatives made for one call site (`synth.site_types`): which callees need one,
and that the context they get is the call site's own, not blurred by the summaries
that serve a function asked for in many call sites."""

from __future__ import annotations

from enzc.ad.synth.site_types import call_site_context, needs_site_types
from enzc.ad.typeanalysis.analysis import TypeAnalysis

from test_type_helpers import calls_to, module_from_c

HELPERS = """
#include <string.h>
__attribute__((noinline)) void copy(void *to, const void *from, unsigned long n) { memcpy(to, from, n); }
__attribute__((noinline)) void wrap(void *to, const void *from, unsigned long n) { copy(to, from, n); }
__attribute__((noinline)) double local(const double *x) { double t[2]; memcpy(t, x, 16); return t[0] * t[1]; }
struct A { double x; int tag; double y; };
struct B { int k; double v; double w; };
struct C { float f; int i; double d; };
struct D { char name[5]; double z; };
struct E { short s; double q; long n; };
struct F { long m; float g; double h; };
"""

SEVERAL_TYPES = HELPERS + """
double use(const double *in) {
    struct A a = {in[0], 1, in[1]}, a2;  struct B b = {2, in[1], in[0]}, b2;
    struct C c = {1.5f, 2, in[0]}, c2;   struct D d = {"abcd", in[1]}, d2;
    struct E e = {3, in[0], 4}, e2, e3;  struct F f = {5, 2.5f, in[1]}, f2;
    copy(&a2, &a, sizeof a); copy(&b2, &b, sizeof b); copy(&c2, &c, sizeof c);
    copy(&d2, &d, sizeof d); copy(&e2, &e, sizeof e); copy(&f2, &f, sizeof f); wrap(&e3, &e2, sizeof e);
    return a2.x * a2.y + b2.v * b2.w + c2.d + d2.z + e3.q + f2.h + local(in);
}
"""


def test_a_helper_whose_callers_pass_several_types_needs_its_call_site():
    m = module_from_c(SEVERAL_TYPES)
    types = TypeAnalysis(m)
    assert needs_site_types(types, m.functions["copy"])
    assert needs_site_types(types, m.functions["wrap"])  # passes its pointers on to `copy`


def test_a_helper_whose_callers_agree_serves_them_all():
    m = module_from_c(HELPERS + """
__attribute__((noinline)) void copy8(void *d, const void *s, unsigned long n) { memmove(d, s, n * 8); }
double use(double *x, int n) {
  double tmp[8], t = 0;
  copy8(tmp, x, 8);
  for (int i = 0; i < 8; i++) t += tmp[i];
  return t + local(x);
}
double use2(double *y, double *x) { copy8(y, x, 4); return y[0] * y[3]; }
""")
    types = TypeAnalysis(m)
    assert not needs_site_types(types, m.functions["copy8"])  # typed "every 8" by what both sites agree on
    assert not needs_site_types(types, m.functions["local"])  # its copy is typed by its own loads


def test_each_call_site_gets_its_own_types_and_constant_length():
    m = module_from_c(SEVERAL_TYPES)
    types = TypeAnalysis(m)
    use, copy = m.functions["use"], m.functions["copy"]
    types.analyze(use)  # with summaries: `copy` is called in seven places, the last ones share one
    sites = [call_site_context(types, use, call, copy) for call in calls_to(use, "copy")]
    assert all(site is not None for site in sites) and len(sites) == 6
    assert [site.constants for site in sites] == [((2, 24),)] * 2 + [((2, 16),)] * 2 + [((2, 24),)] * 2
    sources = [str(site.trees[1]) for site in sites]  # the `from` argument: each site's own record
    assert "[-1,0]:Float@double, [-1,8]:Integer" in sources[0]  # struct A
    assert "[-1,0]:Integer" in sources[1] and "[-1,8]:Float@double" in sources[1]  # struct B
    assert "[-1,0]:Float@float, [-1,4]:Integer" in sources[2]  # struct C
    assert "[-1,0]:Integer" in sources[3] and "[-1,8]:Float@double" in sources[3]  # struct D
    assert "[-1,0]:Integer" in sources[4] and "[-1,8]:Float@double, [-1,16]:Integer" in sources[4]  # struct E
    assert "[-1,0]:Integer" in sources[5] and "[-1,8]:Float@float" in sources[5]  # struct F
    assert all("Conflict" not in s for s in sources)
