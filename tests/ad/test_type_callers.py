"""Caller context for copies a function cannot type on its own (`type_callers`): the
facts all direct call sites agree on, and nothing when they disagree or when the
function's address escapes."""

import pytest

from enzc.ad.typeanalysis.analysis import TypeAnalysis
from enzc.ad.typeanalysis.errors import UnknownTypeError

from test_type_helpers import calls_to, module_from_c

COPY = """
#include <string.h>
__attribute__((noinline)) void copy(void *d, const void *s, unsigned long n) { memmove(d, s, n * 8); }
"""


def _copy_layout_of_copy(source: str) -> str:
    """The memmove layout in `copy` analysed on its own (as its derivative is)."""
    m = module_from_c(COPY + source)
    copy = m.functions["copy"]
    res = TypeAnalysis(m).analyze(copy)
    return str(res.copy_layout(calls_to(copy, "llvm.memmove")[0]))


def test_callers_that_all_copy_doubles_type_the_copy():
    assert _copy_layout_of_copy("""
double use(double *x, int n) {
  double tmp[8], t = 0;
  copy(tmp, x, 8);
  for (int i = 0; i < 8; i++) t += tmp[i];
  return t;
}
double use2(double *y, double *x) { copy(y, x, 4); return y[0] * y[3]; }
""") == "([0,8):Float@double) every 8"


def test_callers_that_disagree_leave_the_copy_untyped():
    with pytest.raises(UnknownTypeError, match="cannot deduce the type of the memory copied"):
        _copy_layout_of_copy("""
double use(double *x) { double tmp[8]; copy(tmp, x, 8); return tmp[0] * tmp[7]; }
long use2(long *y, long *x) { copy(y, x, 4); return y[0] * y[3]; }
""")


def test_a_function_whose_address_escapes_gets_no_caller_context():
    with pytest.raises(UnknownTypeError, match="cannot deduce the type of the memory copied"):
        _copy_layout_of_copy("""
void (*volatile hook)(void *, const void *, unsigned long) = copy;
double use(double *x) { double tmp[8]; copy(tmp, x, 8); return tmp[0] * tmp[7]; }
""")


def test_facts_come_through_several_levels_of_wrappers():
    assert _copy_layout_of_copy("""
__attribute__((noinline)) void wrap1(void *d, const void *s, unsigned long n) { copy(d, s, n); }
__attribute__((noinline)) void wrap2(void *d, const void *s, unsigned long n) { wrap1(d, s, n); }
double use(double *x) { double tmp[8]; wrap2(tmp, x, 8); return tmp[0] * tmp[7]; }
""") == "([0,8):Float@double) every 8"
