"""Inline assembly of a known meaning (synth/known_asm.py): Eigen's SSE `pmax`/`pmin`
asm (`maxpd $1, $0` with the destination tied to its second input) is rewritten as
`fcmp` + `select` in the copy being differentiated; each lane's derivative goes to
the input it took. Other asm stays a located error (diag/inline_asm.c); the user's
function keeps its asm. Also: names of the derivative stay within LLVM's limit."""

from __future__ import annotations

import pytest

from jitrun import HEAD, P, compile_ir, doubles, function

from enzc.ad import run_ad_stage
from enzc.ir import parse_module
from enzc.ir.local_names import MAX_BASE_BYTES, fresh_local_name

CLOBBERS = "~{dirflag},~{fpsr},~{flags}"
MINMAX = f"""
define double @f(ptr %x) {{
  %a = load <2 x double>, ptr %x
  %pb = getelementptr inbounds i8, ptr %x, i64 16
  %b = load <2 x double>, ptr %pb
  %m = call <2 x double> asm "maxpd $1, $0", "=x,x,0,{CLOBBERS}"(<2 x double> %a, <2 x double> %b)
  %n = call <2 x double> asm "minpd $1, $0", "=x,x,0,{CLOBBERS}"(<2 x double> %a, <2 x double> %b)
  %m0 = extractelement <2 x double> %m, i64 0
  %m1 = extractelement <2 x double> %m, i64 1
  %n0 = extractelement <2 x double> %n, i64 0
  %n1 = extractelement <2 x double> %n, i64 1
  %s = fmul double %m0, 3.0
  %t = fadd double %s, %m1
  %u = fmul double %n0, 5.0
  %v = fadd double %t, %u
  %w = fmul double %n1, 7.0
  %r = fadd double %v, %w
  ret double %r
}}
define void @grad(ptr %x, ptr %dx) {{
  call void (...) @__enzyme_autodiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx)
  ret void
}}
declare void @__enzyme_autodiff(...)
"""


@pytest.mark.parametrize(("x", "expected"), [
    ([1.0, 5.0, 2.0, 4.0], [5.0, 1.0, 3.0, 7.0]),  # max takes b0, a1; min a0, b1
    ([2.0, 4.0, 1.0, 5.0], [3.0, 7.0, 5.0, 1.0]),  # the other way round
    ([2.0, 4.0, 2.0, 4.0], [8.0, 8.0, 0.0, 0.0]),  # ties: MAXPD/MINPD return the source, a
])
def test_sse_min_max_asm_differentiates_lane_by_lane(x, expected):
    out = run_ad_stage(HEAD + MINMAX)
    grad = function(compile_ir(out), "grad", None, P, P)
    xs, dx = doubles(x), doubles([0.0] * 4)
    grad(xs, dx)
    assert list(dx) == expected
    assert 'asm "maxpd $1, $0"' in str(parse_module(out).functions["f"])  # the user's function keeps it


def test_long_names_are_cut_below_llvm_limit():
    m = parse_module(HEAD + "define void @g() {\nentry:\n  ret void\n}\n")
    g = m.functions["g"]
    long = "rev." + "x" * 1100
    first, second = fresh_local_name(g, long), fresh_local_name(g, long)
    assert len(first) == MAX_BASE_BYTES and second == first + ".1"
