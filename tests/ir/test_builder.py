"""IRBuilder: positions, unique names, typed creation of every instruction,
structured control flow, debug locations and declarations."""

import subprocess

import pytest

from enzc.ir import print_module
from enzc.ir.builder import IRBuilder, forget_names, fresh_local_name, get_or_insert_function
from enzc.ir.instructions import BinaryOp, Ret
from enzc.ir.metadata import MDRef
from enzc.ir.module import Module
from enzc.ir.types import (
    DOUBLE,
    FLOAT,
    I1,
    I8,
    I32,
    I64,
    PTR,
    VOID,
    ArrayType,
    FunctionType,
    PointerType,
    StructType,
    VectorType,
)
from enzc.ir.values import ConstantInt
from enzc.ir.verifier import verify_function


def new_fn(ret=VOID, params=(DOUBLE, PTR, I64), name="f"):
    m = Module()
    fn = m.add_function(name, FunctionType(ret, params))
    fn.blocks = []
    return m, fn, IRBuilder(fn.append_block("entry"))


def test_unique_names_and_unnamed_values():
    m, fn, b = new_fn()
    fn.args[0].name = "x"
    x = fn.args[0]
    a1 = b.fadd(x, x, "x")
    a2 = b.fadd(x, x, "t")
    a3 = b.fadd(x, x, "t")
    a4 = b.fadd(x, x)
    assert (a1.name, a2.name, a3.name, a4.name) == ("x.1", "t", "t.1", None)
    st = b.store(x, fn.args[1])
    assert st.name is None
    # a value named by hand is seen after forget_names, or when blocks changed
    manual = BinaryOp("fmul", x, x)
    manual.name = "u"
    manual.insert_after(a4)
    forget_names(fn)
    assert b.fmul(x, x, "u").name == "u.1"
    manual2 = BinaryOp("fmul", x, x)
    manual2.name = "w"
    manual2.insert_after(a4)
    fn.append_block("w.1")  # by hand, not through new_block
    assert b.fmul(x, x, "w").name == "w.2"
    blk = b.append_block("t")
    assert blk.name == "t.2" and fresh_local_name(fn, "entry") == "entry.1"
    fn.blocks[-2].append(Ret())
    b.ret_void()
    blk.append(Ret())
    verify_function(fn)


def test_positions_and_context_managers():
    m, fn, b = new_fn()
    x = fn.args[0]
    first = b.fadd(x, x, "first")
    ret = b.ret_void()
    with b.goto_block(fn.entry):  # before the terminator
        last = b.fmul(x, x, "last")
    with b.goto_before(first):
        zero = b.fsub(x, x, "zero")
    with b.goto_after(first):
        mid = b.fdiv(x, x, "mid")
    assert fn.entry.instructions == [zero, first, mid, last, ret]
    assert b.block is fn.entry and b.before is None  # restored
    b.position_at_start(fn.entry)
    assert b.before is zero
    with b.goto_entry_allocas():
        a = b.alloca(DOUBLE, name="slot")
    with b.goto_entry_allocas():
        a2 = b.alloca(I64, name="slot2")
    assert fn.entry.instructions[:3] == [a, a2, zero]
    verify_function(fn)


def test_position_after_an_invoke_is_its_normal_successor():
    m, fn, b = new_fn(ret=DOUBLE)
    callee = get_or_insert_function(m, "g", FunctionType(DOUBLE, (DOUBLE,)))
    normal, unwind, other = fn.append_block("normal"), fn.append_block("lpad"), fn.append_block("other")
    inv = b.invoke(callee, [fn.args[0]], normal, unwind, "r")
    b.position_at_end(normal)
    b.ret(inv)
    b.position_after(inv)
    assert b.block is normal and b.before is normal.terminator
    with b.goto_block(other):
        b.br(normal)  # a second way into `normal`: the invoke's result has no single place after it
    with pytest.raises(ValueError, match="normal successor"):
        b.position_after(inv)


def test_type_checks_fail_early():
    m, fn, b = new_fn()
    x, p, n = fn.args
    with pytest.raises(TypeError, match="differ in type"):
        b.fadd(x, n)
    with pytest.raises(TypeError, match="add on double"):
        b.add(x, x)
    with pytest.raises(TypeError, match="fmul on i64"):
        b.fmul(n, n)
    with pytest.raises(ValueError, match="unknown icmp predicate"):
        b.icmp("lt", n, n)
    with pytest.raises(TypeError, match="argument 0 has type i64"):
        b.call(m.add_function("g", FunctionType(VOID, (DOUBLE,))), [n])
    with pytest.raises(TypeError, match="needs fn_type"):
        b.call(p, [])
    with pytest.raises(TypeError, match="insertvalue of double into a slot of type i32"):
        b.insert_value(b.const_poison(StructType((I32, I64))), x, 0)
    assert fn.entry.instructions == []


def build_every_kind():
    m, fn, b = new_fn(ret=DOUBLE)
    x, p, n = fn.args
    s = m.named_type("struct.S")
    s.elements = (I8, DOUBLE, ArrayType(4, FLOAT))
    vec = VectorType(4, DOUBLE)
    ops = [b.fadd(x, x), b.fsub(x, x), b.fmul(x, x, flags=("fast",)), b.fdiv(x, x), b.frem(x, x), b.fneg(x)]
    ints = [b.add(n, n, flags=("nsw",)), b.sub(n, n), b.mul(n, n), b.udiv(n, n), b.sdiv(n, n), b.urem(n, n),
            b.srem(n, n), b.shl(n, n), b.lshr(n, n), b.ashr(n, n), b.and_(n, n), b.or_(n, n), b.xor(n, n),
            b.neg(n), b.not_(n)]
    casts = [b.trunc(n, I32), b.zext(b.trunc(n, I32), I64), b.sext(b.trunc(n, I8), I64), b.fptrunc(x, FLOAT),
             b.fpext(b.fptrunc(x, FLOAT), DOUBLE), b.fptoui(x, I64), b.fptosi(x, I32), b.uitofp(n, DOUBLE),
             b.sitofp(n, FLOAT), b.ptrtoint(p, I64), b.inttoptr(n, PTR), b.bitcast(n, DOUBLE),
             b.addrspacecast(p, PointerType(1))]
    c = b.icmp("slt", n, b.const_i64(3), "c")
    fc = b.fcmp("olt", x, b.const_double(1.5), "fc", flags=("nnan",))
    sel = b.select(c, x, b.const_double(2.0), "sel")
    fr = b.freeze(sel)
    slot = b.alloca(s, name="s")
    fld = b.struct_gep(s, slot, 2, "fld")
    assert fld.operands[1].type == I64 and fld.operands[2].type == I32
    elt = b.gep(s, slot, [0, 2, n], "elt", inbounds=True)
    assert elt.type == PTR and elt.flags == ("inbounds",)
    vgep = b.gep(DOUBLE, p, [b.const_poison(VectorType(2, I64))], "vg")
    assert vgep.type == VectorType(2, PTR)
    ld = b.load(FLOAT, elt, "ld", align=4)
    b.store(ld, elt, align=4)
    agg = b.insert_value(b.const_undef(StructType((DOUBLE, StructType((I32, I64))))), n, (1, 1), "agg")
    ev = b.extract_value(agg, [1, 1], "ev")
    assert ev.type == I64
    v = b.insert_element(b.const_poison(vec), x, 0, "v")
    e0 = b.extract_element(v, b.const_i32(0), "e0")
    sh = b.shuffle_vector(v, v, [0, -1, 3], "sh")
    assert sh.type == VectorType(3, DOUBLE) and sh.mask.elements[1].ref() == "poison"
    rmw = b.atomic_rmw("add", p, n, "monotonic", "rmw")
    cx = b.cmpxchg(p, n, n, name="cx")
    assert cx.type == StructType((I64, I1))
    b.fence("acquire")
    b.va_arg(p, I32, "va")
    fabs = get_or_insert_function(m, "llvm.fabs.f64", FunctionType(DOUBLE, (DOUBLE,)))
    call = b.call(fabs, [e0], "abs", tail="tail")
    printf = get_or_insert_function(m, "printf", FunctionType(I32, (PTR,), vararg=True))
    pc = b.call(printf, [p, x, n])
    assert pc.explicit_type and call.tail == "tail"
    join = b.append_block("join")
    other = b.append_block("other")
    sw = b.switch(b.trunc(n, I32), join, [(1, other), (2, other)])
    assert [v.value for v, _ in sw.cases] == [1, 2]
    b.position_at_end(other)
    b.cond_br(fc, join, other)
    b.position_at_end(join)
    phi = b.phi(DOUBLE, [(fr, fn.entry), (x, other)], "phi")
    b.ret(phi)
    dead = b.append_block("dead")
    b.position_at_end(dead)
    b.unreachable()
    assert len(ops + ints + casts) == 34 and rmw.type == I64
    verify_function(fn)
    return m


def test_every_instruction_kind_verifies():
    build_every_kind()


def build_if_then():
    m, fn, b = new_fn(ret=DOUBLE)
    x, p, n = fn.args
    loop = b.append_block("loop")
    b.br(loop)
    b.position_at_end(loop)
    i = b.phi(I64, [(b.const_i64(0), fn.entry)], "i")
    v = b.load(DOUBLE, b.gep(DOUBLE, p, [i], "q"), "v")
    nxt = b.add(i, b.const_i64(1), "i.next")
    exit_ = b.append_block("exit")
    b.cond_br(b.icmp("eq", nxt, n), exit_, loop)
    i.add_incoming(nxt, loop)
    b.position_at_end(exit_)
    b.ret(v)
    # insert a guarded store in the middle of the loop body
    b.position_before(nxt)
    with b.if_then(b.fcmp("olt", v, x, "small")) as then:
        b.store(x, p)
    assert then.name == "loop.if" and [bb.name for bb in fn.blocks] == ["entry", "loop", "loop.if", "loop.endif", "exit"]
    assert b.block.name == "loop.endif" and b.before is nxt
    assert i.incoming_value_for(fn.blocks[3]) is nxt  # the phi names the block now holding the latch
    b.mul(i, i, "after")
    assert [x.name for x in fn.blocks[3].instructions[:2]] == ["after", "i.next"]
    verify_function(fn)
    return m


def test_if_then_splits_the_block_at_the_insertion_point():
    build_if_then()


def build_if_else():
    m, fn, b = new_fn(ret=DOUBLE)
    x = fn.args[0]
    with b.if_else(b.fcmp("ogt", x, b.const_double(0.0))) as (then, otherwise):
        with then as tb:
            a = b.fmul(x, x, "a")
        with otherwise as eb:
            c = b.fneg(x, "c")
            b.br(tb)  # an arm may end with its own terminator
    assert b.block.name == "entry.endif" and b.block.instructions == []
    r = b.phi(DOUBLE, [(a, tb)], "r")
    b.ret(r)
    assert eb.terminator.successors == [tb] and tb.terminator.successors == [b.block]
    assert c.parent is eb
    verify_function(fn)
    return m


def test_if_else_at_the_end_of_a_block():
    build_if_else()


def test_debug_location_and_constants():
    m, fn, b = new_fn()
    x = fn.args[0]
    src = b.fadd(x, x)
    src.metadata["dbg"] = MDRef("12")
    b.copy_debug_location(src)
    y = b.fmul(x, x)
    with b.goto_before(src):
        b.debug_location = None
        z = b.fsub(x, x)
    assert y.metadata["dbg"] is src.metadata["dbg"] and "dbg" not in z.metadata
    assert b.debug_location is src.metadata["dbg"]  # restored by the context manager
    assert b.const_zero(I32).value == 0 and b.const_zero(PTR).ref() == "null"
    assert b.const_zero(StructType((I8,))).ref() == "zeroinitializer" and b.const_i1(True).ref() == "true"
    assert b.const_fp(VectorType(2, DOUBLE), 1.0).ref().startswith("splat (double")
    assert isinstance(b.const_int(I8, 300), ConstantInt) and b.const_int(I8, 300).value == 44


def test_get_or_insert_function():
    m = Module()
    t = FunctionType(PTR, (I64,))
    f1 = get_or_insert_function(m, "malloc", t)
    assert get_or_insert_function(m, "malloc", t) is f1 and f1.is_declaration
    with pytest.raises(ValueError, match="exists with type"):
        get_or_insert_function(m, "malloc", FunctionType(PTR, (I32,)))
    m.add_global("g", I32)
    with pytest.raises(ValueError, match="not a function"):
        get_or_insert_function(m, "g", t)




@pytest.mark.parametrize("build", [build_every_kind, build_if_then, build_if_else])
def test_builder_output_is_accepted_by_llvm(build, tmp_path):
    path = tmp_path / "built.ll"
    path.write_text(print_module(build()))
    r = subprocess.run(["opt-22", "-passes=verify", "-disable-output", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + path.read_text()
