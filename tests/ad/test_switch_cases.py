"""Functions that pick a case by a value fixed at their entry, typed one case at a
time (`typeanalysis.cases`, `synth.switch_cases`): a call with a constant
operation sees only the case it runs, and a split function's cases are typed by
themselves and by the calls that may run them, never by a sibling case. A split
function's work before its choice is done once, by the case."""

from enzc.ad.synth.switch_cases import split_entry_choice
from enzc.ad.typeanalysis.analysis import TypeAnalysis
from enzc.ad.typeanalysis.cases import case_clone, entry_choice, switch_cases
from enzc.ad.typeanalysis.errors import UnknownTypeError
from enzc.ir.instructions import Call, Store, Switch
from enzc.ir.transforms import clone_function

import pytest

from test_type_helpers import calls_to, module_from_c, module_from_ir

MANAGER = r"""
#include <string.h>
enum op { ADDRESS, CLONE, CLEAR };
__attribute__((noinline)) void manage(enum op o, void *dst, const void *src) {
  switch (o) {
  case ADDRESS: *(const void **)dst = src; break;
  case CLONE: memcpy(dst, src, 16); break;
  case CLEAR: memset(dst, 0, 16); break;
  }
}
"""


def _module(caller: str = ""):
    return module_from_c(MANAGER + caller, "-O2", "-fno-strict-aliasing")


def test_entry_choice_finds_the_operation_argument():
    m = _module()
    choice = entry_choice(m.functions["manage"])
    assert isinstance(choice.terminator, Switch) and choice.arg == 0
    cases = switch_cases(m.functions["manage"], choice)
    assert sorted(sorted(c.values) for c in cases.values()) == [[], [0], [1], [2]]
    assert [c.default for c in cases.values()].count(True) == 1


def test_a_function_that_does_work_before_its_switch_is_not_split():
    m = module_from_c("int g; int f(int o) { g++; switch (o) { case 0: return 3; case 1: return g; } return 0; }",
                      "-O2")
    assert entry_choice(m.functions["f"]) is None


def test_loads_before_the_switch_are_redone_by_each_case():
    # std::any's manager loads the stored pointer before switching on the operation
    m = module_from_ir("""
define void @manage(i32 %op, ptr %any, ptr %out) {
entry:
  %slot = getelementptr inbounds i8, ptr %any, i64 8
  %stored = load ptr, ptr %slot, align 8
  switch i32 %op, label %done [
    i32 0, label %address
    i32 1, label %clear
  ]
address:
  store ptr %stored, ptr %out, align 8
  br label %done
clear:
  store ptr null, ptr %slot, align 8
  br label %done
done:
  ret void
}
""")
    fn = m.functions["manage"]
    switch = entry_choice(fn)
    assert switch is not None
    case = case_clone(fn, switch, next(t for v, t in switch.cases if v == 0), "manage.address")
    assert [i.opcode for i in case.instructions()] == ["getelementptr", "load", "br", "store", "br", "ret"]


def test_a_volatile_load_before_the_switch_is_not_redone():
    m = module_from_ir("""
define i32 @f(i32 %op, ptr %p) {
entry:
  %v = load volatile i32, ptr %p, align 4
  switch i32 %op, label %other [
    i32 0, label %zero
  ]
zero:
  ret i32 %v
other:
  ret i32 0
}
""")
    assert entry_choice(m.functions["f"]) is None


def test_a_case_clone_keeps_only_its_case():
    m = _module()
    fn = m.functions["manage"]
    switch = entry_choice(fn)
    clone_target = next(t for v, t in switch.cases if v == 1)
    case = case_clone(fn, switch, clone_target, "manage.clone")
    names = {(i.called_function.name or "") for i in case.instructions() if isinstance(i, Call)}
    assert any(n.startswith("llvm.memcpy") for n in names)
    assert not any(n.startswith("llvm.memset") for n in names)
    assert not any(i.opcode == "store" for i in case.instructions())


def test_a_constant_operation_types_the_callers_memory_by_its_case_only():
    # the ADDRESS case stores a pointer into `dst`; a caller that only ever CLONEs
    # into a double must not see a pointer there
    m = _module("""
double use(double x, double y) {
  double pair[2] = {x, y}, copy[2];
  manage(CLONE, copy, pair);
  return copy[0] * copy[1];
}
""")
    ta = TypeAnalysis(m)
    res = ta.analyze(m.functions["use"])
    call = calls_to(m.functions["use"], "manage")[0]
    assert "Pointer" not in str(res.tree_of(call.args[1]).data0())
    assert "Float@double" in str(res.tree_of(call.args[1]).data0())


def test_split_cases_are_typed_by_the_calls_that_run_them():
    m = _module("""
double use(double x, double y, const double **where) {
  double pair[2] = {x, y}, copy[2];
  manage(CLONE, copy, pair);
  manage(ADDRESS, where, copy);
  return copy[0] * copy[1];
}
""")
    ta = TypeAnalysis(m)
    original, _ = clone_function(m.functions["manage"], "manage")
    assert split_entry_choice(m, original, ta)
    calls = [i for i in original.instructions() if isinstance(i, Call)]
    assert len(calls) == 4  # three cases and the default
    clone_case = next(c.called_function for c in calls
                      if any(i.opcode == "call" and (i.called_function.name or "").startswith("llvm.memcpy")
                             for i in c.called_function.instructions()))
    copy = calls_to(clone_case, "llvm.memcpy")[0]
    assert str(ta.analyze(clone_case).copy_layout(copy)) == "[0,16):Float@double"


def test_a_case_no_call_explains_is_unknown_not_a_siblings_type():
    m = _module()
    ta = TypeAnalysis(m)
    original, _ = clone_function(m.functions["manage"], "manage")
    split_entry_choice(m, original, ta)
    clone_case = next(f for name, f in m.functions.items() if name.startswith("manage.case")
                      and calls_to(f, "llvm.memcpy"))
    with pytest.raises(UnknownTypeError):
        ta.analyze(clone_case).copy_layout(calls_to(clone_case, "llvm.memcpy")[0])


def test_an_equality_branch_whose_sides_write_a_pointer_and_data_is_a_choice():
    m = module_from_c("""
#include <string.h>
__attribute__((noinline)) void manage(int o, void *dst, const void *src) {
  if (o == 0) *(const void **)dst = src; else memcpy(dst, src, 16);
}
""", "-O2")
    choice = entry_choice(m.functions["manage"])
    assert choice is not None and choice.arg == 0
    assert [v for v, _ in choice.cases] == [0]


def test_an_early_return_is_not_a_choice():
    m = module_from_c("""
__attribute__((noinline)) void scale(int n, double *x, double c) {
  if (n == 0) return;
  for (int i = 0; i < n; i++) x[i] *= c;
}
""", "-O2")
    assert entry_choice(m.functions["scale"]) is None


def test_a_switch_on_a_loaded_operation_is_a_choice_by_no_argument():
    m = module_from_c("""
#include <string.h>
typedef struct { int op; void *dst; const void *src; } Cmd;
__attribute__((noinline)) void manage(const Cmd *c) {
  switch (c->op) {
  case 0: *(const void **)c->dst = c->src; break;
  case 1: memcpy(c->dst, c->src, 16); break;
  }
}
""", "-O2")
    choice = entry_choice(m.functions["manage"])
    assert choice is not None and choice.arg is None
    cases = switch_cases(m.functions["manage"], choice)
    assert all(case.arg is None for case in cases.values())


COUNTED = r"""
#include <string.h>
int calls;
__attribute__((noinline)) void manage(int o, void *dst, const void *src) {
  calls++;
  if (!dst) return;
  if (o == 0) *(const void **)dst = src; else memcpy(dst, src, 16);
}
"""


def test_a_choice_after_a_write_and_a_check_is_made_by_the_argument():
    m = module_from_c(COUNTED, "-O2")
    choice = entry_choice(m.functions["manage"])
    assert choice is not None and choice.arg == 0 and choice.prefix is None
    assert choice.terminator.parent is not m.functions["manage"].blocks[0]


def test_the_dispatcher_chooses_first_and_the_case_does_the_work_once():
    m = module_from_c(COUNTED, "-O2")
    ta = TypeAnalysis(m)
    original, _ = clone_function(m.functions["manage"], "manage")
    assert split_entry_choice(m, original, ta)
    assert not any(isinstance(i, Store) for i in original.instructions())  # the counter is the cases'
    opcodes = [i.opcode for i in original.blocks[0].instructions]
    assert opcodes == ["freeze", "switch"]  # chosen before the check it was behind: no poison
    for case in (c.called_function for c in original.instructions() if isinstance(c, Call)):
        assert sum(isinstance(i, Store) and i.ptr.name == "calls" for i in case.instructions()) == 1


LOADED_AFTER_CHECK = """
%Cmd = type { i32, ptr, ptr }
define void @manage(ptr %c) {
entry:
  %dst.slot = getelementptr inbounds i8, ptr %c, i64 8
  %dst = load ptr, ptr %dst.slot, align 8
  %src.slot = getelementptr inbounds i8, ptr %c, i64 16
  %src = load ptr, ptr %src.slot, align 8
  %null = icmp eq ptr %dst, null
  br i1 %null, label %done, label %choose
choose:
  %op = load i32, ptr %c, align 8
  %is.address = icmp eq i32 %op, 0
  br i1 %is.address, label %address, label %copy
address:
  store ptr %src, ptr %dst, align 8
  br label %done
copy:
  %v = load i64, ptr %src, align 8
  store i64 %v, ptr %dst, align 8
  br label %done
done:
  ret void
}
"""


def test_an_operation_loaded_behind_a_check_is_chosen_by_a_copy_of_the_check():
    # `if (!c->dst) return; switch (c->op)`: loading c->op first could fault where
    # the check returns, so the dispatcher keeps the check and loads after it
    m = module_from_ir(LOADED_AFTER_CHECK)
    fn = m.functions["manage"]
    choice = entry_choice(fn)
    assert choice is not None and choice.arg is None
    assert [b.name for b in choice.prefix] == ["entry", "choose"]
    ta = TypeAnalysis(m)
    original, _ = clone_function(fn, "manage")
    assert split_entry_choice(m, original, ta)
    entry, choose = original.blocks[:2]
    assert entry.terminator.opcode == "br" and entry.terminator.is_conditional
    assert [i.opcode for i in choose.instructions] == ["load", "icmp", "switch"]  # (the icmp now unused)
    assert not any(isinstance(i, Store) for i in original.instructions())


def test_an_operation_loaded_after_a_write_is_no_choice():
    # the load may read what the write stored: recomputing it first would be wrong
    m = module_from_ir(LOADED_AFTER_CHECK.replace(
        "  %null = icmp eq ptr %dst, null", "  store i32 7, ptr %c, align 8\n  %null = icmp eq ptr %dst, null"))
    assert entry_choice(m.functions["manage"]) is None


def test_a_case_stores_what_only_it_passes_through_a_phi_directly():
    # std::function's manager of a captureless lambda: both cases store through one
    # phi (type_info or the functor's address); the case that stores type_info must
    # store the constant itself, which has no shadow and needs none, not a phi of it
    m = module_from_ir("""
@typeinfo = constant i8 0
define void @manage(ptr %dst, ptr %src, i32 %op) {
entry:
  switch i32 %op, label %done [
    i32 0, label %sink
    i32 1, label %address
  ]
address:
  br label %sink
sink:
  %stored = phi ptr [ %src, %address ], [ @typeinfo, %entry ]
  store ptr %stored, ptr %dst, align 8
  br label %done
done:
  ret void
}
""")
    fn = m.functions["manage"]
    choice = entry_choice(fn)
    case = case_clone(fn, choice, choice.target_for(0), "manage.type_info")
    stores = [i for i in case.instructions() if isinstance(i, Store)]
    assert [s.value.name for s in stores] == ["typeinfo"]
    assert not any(i.opcode == "phi" for i in case.instructions())
