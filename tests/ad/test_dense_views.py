"""`__enzyme_todense` on small IR modules: what becomes a call, what is an error; and
which `enzyme_dupnoneed` parameters forward mode may leave unwritten.

Lowered modules must be accepted by llvm-as; the values are checked end to end by the
programs under tests/ad/programs/{rev2,fwd}/sparse."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from enzc.ad import ADError, run_ad_stage
from enzc.ad.analysis.write_only import write_only_params
from enzc.ir import parse_module  # type: ignore[attr-defined]

HEAD = """target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
declare ptr @__enzyme_todense(ptr, ptr, ...)
declare void @sink(ptr)

define internal double @load(i64 %off, ptr %s) {
  %p = getelementptr i8, ptr %s, i64 %off
  %v = load double, ptr %p
  ret double %v
}
define internal void @store(double %v, i64 %off, ptr %s) {
  %p = getelementptr i8, ptr %s, i64 %off
  store double %v, ptr %p
  ret void
}
"""


def lower(body: str) -> str:
    out = run_ad_stage(HEAD + body)
    if shutil.which("llvm-as-22"):
        r = subprocess.run(["llvm-as-22", "-o", "/dev/null", "-"], input=out, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr + "\n" + out
    return out


def function_text(module_text: str, name: str) -> str:
    match = re.search(rf"define [^\n]*@{re.escape(name)}\(.*?\n}}", module_text, re.S)
    assert match, module_text
    return match.group(0)


def test_loads_and_stores_through_indexing_and_phis_become_calls() -> None:
    out = lower("""
define double @f(ptr %s, i64 %n) {
entry:
  %x = call ptr (ptr, ptr, ...) @__enzyme_todense(ptr @load, ptr @store, ptr %s)
  %nonnull = icmp ne ptr %x, null
  br label %loop
loop:
  %p = phi ptr [ %x, %entry ], [ %p.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %v = load double, ptr %p
  %acc.next = fadd double %acc, %v
  store double %acc.next, ptr %p
  %p.next = getelementptr inbounds double, ptr %p, i64 1
  %end = getelementptr inbounds double, ptr %x, i64 %n
  %more = icmp ne ptr %p.next, %end
  br i1 %more, label %loop, label %exit
exit:
  %r = select i1 %nonnull, double %acc.next, double 0.0
  ret double %r
}
""")
    f = function_text(out, "f")
    assert "__enzyme_todense" not in f
    assert re.search(r"call double @load\(i64 %[\w.]+, ptr %s\)", f)
    assert re.search(r"call void @store\(double %acc.next, i64 %[\w.]+, ptr %s\)", f)
    assert "load double" not in f and "store double" not in f
    assert "getelementptr inbounds" not in f  # offsets from null: no inbounds
    assert "select i1 true" in f  # a view is never null


def test_a_callee_gets_a_copy_taking_the_view_arguments() -> None:
    out = lower("""
define internal double @first(ptr %a) {
  %v = load double, ptr %a
  ret double %v
}
define double @f(ptr %s) {
  %x = call ptr (ptr, ptr, ...) @__enzyme_todense(ptr @load, ptr @store, ptr %s)
  %y = getelementptr double, ptr %x, i64 2
  %r = call double @first(ptr nonnull dereferenceable(8) %y)
  ret double %r
}
""")
    copy = function_text(out, "first.dense")
    assert re.search(r"define internal double @first.dense\(ptr %a, ptr %view.arg0\)", copy)
    assert re.search(r"call double @load\(i64 %[\w.]+, ptr %view.arg0\)", copy)
    assert re.search(r"call double @first.dense\(ptr %y, ptr %s\)", function_text(out, "f"))


@pytest.mark.parametrize(("use", "words"), [
    ("store ptr %x, ptr %slot", ("stores a pointer of the view",)),
    ("call void @sink(ptr %x)", ("'sink'", "external")),
    ("%i = ptrtoint ptr %x to i64", ("ptrtoint",)),
    ("%m = select i1 %c, ptr %x, ptr %slot\n  %v = load double, ptr %m", ("merges a pointer of the view",)),
])
def test_uses_the_lowering_cannot_follow_are_errors(use: str, words: tuple[str, ...]) -> None:
    with pytest.raises(ADError) as err:
        lower(f"""
define void @f(ptr %s, ptr %slot, i1 %c) {{
  %x = call ptr (ptr, ptr, ...) @__enzyme_todense(ptr @load, ptr @store, ptr %s)
  {use}
  ret void
}}
""")
    text = str(err.value)
    assert "__enzyme_todense" in text and all(w in text for w in words), text


def test_load_function_of_another_signature_is_an_error() -> None:
    with pytest.raises(ADError, match=r"the load function load has type double \(i64, ptr\); "
                                      r"the view's extra arguments are \(ptr, i32\)"):
        lower("""
define double @f(ptr %s) {
  %x = call ptr (ptr, ptr, ...) @__enzyme_todense(ptr @load, ptr @store, ptr %s, i32 3)
  %v = load double, ptr %x
  ret double %v
}
""")


WRITES = """
define void @accumulate(ptr %out, double %a) {
  %p = getelementptr double, ptr %out, i64 1
  %old = load double, ptr %p
  %new = fadd double %old, %a
  store double %new, ptr %p
  ret void
}
define void @square_back(ptr %out, double %a) {
  store double %a, ptr %out
  %old = load double, ptr %out
  %sq = fmul double %old, %old
  store double %sq, ptr %out
  ret void
}
define void @through_callee(ptr %out, double %a) {
  call void @accumulate(ptr %out, double %a)
  ret void
}
define void @escapes(ptr %out, double %a) {
  call void @sink(ptr %out)
  ret void
}
"""


@pytest.mark.parametrize(("name", "write_only"), [
    ("accumulate", True), ("square_back", False), ("through_callee", True), ("escapes", False)])
def test_dupnoneed_memory_is_write_only_when_its_reads_feed_only_its_writes(name: str, write_only: bool) -> None:
    module = parse_module(HEAD + WRITES)
    assert write_only_params(module.functions[name], [0]) == (frozenset({0}) if write_only else frozenset())
