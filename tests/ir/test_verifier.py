"""The verifier accepts valid bodies and reports each kind of breakage clearly."""

import pytest

from enzc.errors import EnzcError
from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import BinaryOp, Br, Call, Ret, Select, Store
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.types import DOUBLE, I1, I32, I64, PTR, VOID, FunctionType
from enzc.ir.values import ConstantFP, ConstantInt
from enzc.ir.verifier import VerificationError, check_function, verify_function, verify_module


def make_sum():
    """double sum(ptr x, i64 n): a rotated loop adding x[0..n)."""
    m = Module()
    fn = m.add_function("sum", FunctionType(DOUBLE, (PTR, I64)))
    fn.args[0].name, fn.args[1].name = "x", "n"
    fn.blocks = []
    b = IRBuilder(fn.append_block("entry"))
    loop, exit_ = b.append_block("loop"), b.append_block("exit")
    b.br(loop)
    b.position_at_end(loop)
    i = b.phi(I64, name="i")
    acc = b.phi(DOUBLE, name="acc")
    v = b.load(DOUBLE, b.gep(DOUBLE, fn.args[0], [i], "p", inbounds=True), "v", align=8)
    acc2 = b.fadd(acc, v, "acc.next")
    i2 = b.add(i, b.const_i64(1), "i.next", flags=("nuw", "nsw"))
    b.cond_br(b.icmp("eq", i2, fn.args[1], "done"), exit_, loop)
    i.add_incoming(b.const_i64(0), fn.entry)
    i.add_incoming(i2, loop)
    acc.add_incoming(b.const_double(0.0), fn.entry)
    acc.add_incoming(acc2, loop)
    b.position_at_end(exit_)
    b.ret(acc2)
    names = {x.name: x for x in fn.instructions() if x.name}
    names.update({bb.name: bb for bb in fn.blocks})
    return m, fn, names


def problems_after(edit) -> list[str]:
    m, fn, n = make_sum()
    assert check_function(fn) == []
    edit(fn, n)
    return check_function(fn)


def assert_reports(edit, *fragments):
    found = problems_after(edit)
    text = "\n".join(found)
    for frag in fragments:
        assert frag in text, f"{frag!r} not in:\n{text}"


def test_valid_function_passes_and_errors_are_enzc_errors():
    m, fn, _ = make_sum()
    verify_function(fn)
    verify_module(m)
    m.add_function("decl", FunctionType(VOID, ()))  # declarations have nothing to check
    verify_module(m)
    fn.entry.instructions[-1].erase()
    with pytest.raises(VerificationError) as err:
        verify_function(fn)
    assert isinstance(err.value, EnzcError)
    assert err.value.problems[0] == "@sum, block %entry: empty block (every block needs a terminator)"
    assert ("@sum, block %loop, %i = phi: incoming block %entry is not a predecessor"
            " (in `%i = phi i64 [ 0, %entry ], [ %i.next, %loop ]`)") in err.value.problems
    with pytest.raises(VerificationError):
        verify_module(m)


def test_block_structure():
    def no_terminator(fn, n):
        n["exit"].instructions[-1].erase()
        n["exit"].append(BinaryOp("fadd", n["acc.next"], n["acc.next"]))
    assert_reports(no_terminator, "@sum, block %exit, fadd #0: block does not end with a terminator")

    def middle(fn, n):
        Ret(n["acc.next"]).insert_before(n["v"])
    assert_reports(middle, "block %loop, ret #3: terminator in the middle of the block")

    def late_phi(fn, n):
        n["acc"].remove_from_parent()
        n["acc"].insert_after(n["v"])
    assert_reports(late_phi, "%acc = phi: phi after a non-phi instruction")

    def entry_pred(fn, n):
        n["exit"].instructions[-1].erase()
        n["exit"].append(Br(fn.entry))
    assert_reports(entry_pred, "block %entry: the entry block has predecessors")

    def dup_name(fn, n):
        n["v"].name = "p"
    assert_reports(dup_name, "@sum: local name %p is defined 2 times")


def test_phi_entries_must_match_predecessor_edges():
    def missing(fn, n):
        n["i"].remove_incoming(n["loop"])
    assert_reports(missing, "%i = phi: no entry for predecessor %loop")

    def extra(fn, n):
        n["acc"].add_incoming(ConstantFP(DOUBLE, 1.0), n["exit"])
    assert_reports(extra, "%acc = phi: incoming block %exit is not a predecessor")

    def conflicting(fn, n):
        n["acc"].add_incoming(ConstantFP(DOUBLE, 1.0), fn.entry)
    assert_reports(conflicting, "two different values for predecessor %entry", "2 entries for predecessor %entry, which has 1 edges")

    def wrong_type(fn, n):
        n["i"].set_operand(0, ConstantFP(DOUBLE, 0.0))
    assert_reports(wrong_type, "%i = phi: incoming value double 0x0000000000000000 does not have the phi's type i64")


def test_operand_types():
    def fadd_ints(fn, n):
        n["i.next"].name = None
        bad = BinaryOp("fadd", n["i"], n["i"])
        bad.name = "bad"
        bad.insert_before(n["done"])
    assert_reports(fadd_ints, "%bad = fadd: fadd needs floating operands, got i64")

    def add_mixed(fn, n):
        n["acc.next"].set_operand(1, ConstantInt(I64, 1))
    assert_reports(add_mixed, "%acc.next = fadd: operand types differ: double and i64")

    def store_to_int(fn, n):
        Store(n["v"], n["i"]).insert_before(n["done"])
    assert_reports(store_to_int, "store #6: address operand must be a pointer, got i64")

    def icmp_mixed(fn, n):
        n["done"].set_operand(1, ConstantInt(I32, 3))
    assert_reports(icmp_mixed, "%done = icmp: operand types differ: i64 and i32")

    def select_arms(fn, n):
        s = Select(n["done"], n["v"], n["i"])
        s.name = "s"
        s.insert_before(n["done"].parent.terminator)
    assert_reports(select_arms, "%s = select: arms differ in type: double and i64")

    def ret_type(fn, n):
        n["exit"].instructions[-1].set_operand(0, n["i.next"])
    assert_reports(ret_type, "ret #0: returns i64, the function returns double")

    def br_cond(fn, n):
        n["loop"].terminator.set_operand(0, n["i.next"])
    assert_reports(br_cond, "br #7: branch condition must be i1, got i64")


def test_casts_geps_and_aggregates():
    from enzc.ir.instructions import Cast, ExtractValue, GetElementPtr
    from enzc.ir.types import StructType

    def bad_trunc(fn, n):
        c = Cast("trunc", n["i"], I64)
        c.name = "t"
        c.insert_before(n["done"])
    assert_reports(bad_trunc, "%t = trunc: invalid trunc from i64 to i64 (sizes)")

    def bad_bitcast(fn, n):
        c = Cast("bitcast", n["v"], I32)
        c.name = "bc"
        c.insert_before(n["done"])
    assert_reports(bad_bitcast, "%bc = bitcast: bitcast changes the size (double to i32)")

    def struct_index(fn, n):
        g = GetElementPtr(StructType((I32, DOUBLE)), fn.args[0], [ConstantInt(I64, 0), n["i"]])
        g.name = "g"
        g.insert_before(n["done"])
    assert_reports(struct_index, "%g = getelementptr: index 1: an index into struct { i32, double } must be an i32")

    def extract_range(fn, n):
        e = ExtractValue(ConstantInt(I64, 0), (0,), I64)
        e.name = "e"
        e.insert_before(n["done"])
    assert_reports(extract_range, "%e = extractvalue: cannot index into i64")


def test_call_arguments():
    m, fn, n = make_sum()
    callee = m.add_function("g", FunctionType(VOID, (DOUBLE, I64)))
    Call(callee.function_type, callee, [n["v"]]).insert_before(n["done"])
    Call(callee.function_type, callee, [n["v"], n["v"]]).insert_before(n["done"])
    text = "\n".join(check_function(fn))
    assert "call #6: 1 arguments passed, the function type void (double, i64) takes 2" in text
    assert "call #7: argument 1 has type double, the parameter is i64" in text


def test_dominance_violations():
    def use_before_def(fn, n):
        n["v"].set_operand(0, n["acc.next"])
    assert_reports(use_before_def, "%v = load: operand double %acc.next does not dominate this use")

    def from_other_branch(fn, n):
        n["exit"].instructions[-1].set_operand(0, n["acc"])  # fine: acc dominates exit
        n["i"].set_operand(0, n["i.next"])  # entry edge gets a value defined later in the loop
    assert_reports(from_other_branch, "%i = phi: operand i64 %i.next does not dominate this use")

    def other_function(fn, n):
        m2, fn2, n2 = make_sum()
        n["acc.next"].set_operand(1, n2["v"])
    assert_reports(other_function, "%acc.next = fadd: operand double %v is defined in another function")

    def foreign_argument(fn, n):
        m2, fn2, _ = make_sum()
        n["done"].set_operand(1, fn2.args[1])
    assert_reports(foreign_argument, "argument i64 %n belongs to another function")


def test_use_list_consistency():
    def detached_operand(fn, n):
        n["v"].remove_from_parent()
    assert_reports(detached_operand, "%acc.next = fadd: operand double %v is not in any block (erased or detached)")

    def detached_user(fn, n):
        BinaryOp("fadd", n["v"], n["v"])  # built, never inserted: still registered as a user
    assert_reports(detached_user, "%v = load: used by a detached instruction (fadd); drop its operands")

    def unregistered(fn, n):
        n["v"].uses.clear()
    assert_reports(unregistered, "%acc.next = fadd: use list of operand 1 (double %v) does not record this use")

    def stale(fn, n):
        fadd = n["acc.next"]
        fadd._operands[1] = n["acc"]  # bypasses set_operand: %v keeps a stale use
    assert_reports(stale, "%v = load: stale entry in the use list")


def test_debug_records_name_values_of_their_own_function():
    """A record naming an erased or foreign value prints as `%<badref>` (LLVM rejects it)."""
    from enzc.ir.instructions import DebugRecord, DIArgList
    from enzc.ir.metadata import MDRaw
    from enzc.ir.types import METADATA
    from enzc.ir.values import MetadataOperand

    def record(value):
        return DebugRecord("value", [value, MetadataOperand(METADATA, MDRaw("!7")),
                                     MetadataOperand(METADATA, MDRaw("!DIExpression()"))])

    def erased_value(fn, n):
        dead = BinaryOp("fmul", n["v"], n["v"])
        dead.name = "z"
        n["acc.next"].debug_records.append(record(dead))
    assert_reports(erased_value, "%acc.next = fadd: debug record #dbg_value: operand double %z is not in any block")

    def other_function(fn, n):
        m2, fn2, n2 = make_sum()
        n["exit"].trailing_debug_records.append(record(n2["v"]))
    assert_reports(other_function, "block %exit: debug record #dbg_value: operand double %v is defined in another function")

    def foreign_in_arg_list(fn, n):
        m2, fn2, _ = make_sum()
        n["v"].debug_records.append(record(DIArgList([n["acc"], fn2.args[1]])))
    assert_reports(foreign_in_arg_list, "%v = load: debug record #dbg_value: argument i64 %n belongs to another function")

    m, fn, n = make_sum()
    n["acc.next"].debug_records.append(record(DIArgList([n["v"], fn.args[1]])))
    assert check_function(fn) == []


def test_reports_every_problem_at_once():
    def two(fn, n):
        n["acc.next"].set_operand(1, ConstantInt(I64, 1))
        n["loop"].terminator.set_operand(0, n["i.next"])
    found = problems_after(two)
    assert len(found) == 2


def test_lazy_bodies_are_skipped_unless_asked():
    m = Module()
    fn = m.add_function("lazy", FunctionType(VOID, ()))
    calls = []

    def materialize(f: Function):
        calls.append(f)
        bb = BasicBlock("entry", f)
        bb.append(Ret(ConstantInt(I1, 0)))  # wrong: void function returns a value
        return [bb]

    fn.set_lazy_body("define void @lazy() { ... }", materialize)
    verify_module(m)
    assert calls == []
    with pytest.raises(VerificationError, match="ret with a value in a function returning void"):
        verify_module(m, materialize=True)


# ---------------------------------------------------------------------------
# No false alarms on what clang emits

import subprocess  # noqa: E402
from pathlib import Path  # noqa: E402

import enzc.ir as ir  # noqa: E402

CORPUS = Path(__file__).parent / "corpus"


@pytest.mark.parametrize("source", ["c06_switch.c", "c07_goto.c", "c20_ad_kernels.c", "cxx05_exceptions.cpp"])
@pytest.mark.parametrize("flags", [["-O2", "-g"], ["-O0"]])
def test_clang_output_verifies(source, flags):
    cc = "clang++-22" if source.endswith(".cpp") else "clang-22"
    text = subprocess.run([cc, *flags, "-S", "-emit-llvm", "-o", "-", str(CORPUS / source)],
                          check=True, capture_output=True, text=True).stdout
    m = ir.parse_module(text)
    verify_module(m, materialize=True)
    assert any(not fn.is_declaration for fn in m.functions.values())
