"""LoopInfo on loops built with the builder: nesting, exits, induction variables,
and trip counts checked against running the loop in a tiny interpreter."""

import itertools

import pytest

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import BinaryOp, Br, Compare, Instruction, Phi, Ret, Select
from enzc.ir.loops import LoopInfo
from enzc.ir.module import Module
from enzc.ir.types import I1, I8, I64, VOID, FunctionType, IntType
from enzc.ir.values import ConstantInt
from enzc.ir.verifier import verify_function

# ---------------------------------------------------------------------------
# A tiny interpreter for the integer subset the loops below use.


def _signed(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


_ICMP = {
    "eq": lambda a, b, w: a == b, "ne": lambda a, b, w: a != b,
    "slt": lambda a, b, w: _signed(a, w) < _signed(b, w), "sle": lambda a, b, w: _signed(a, w) <= _signed(b, w),
    "sgt": lambda a, b, w: _signed(a, w) > _signed(b, w), "sge": lambda a, b, w: _signed(a, w) >= _signed(b, w),
    "ult": lambda a, b, w: a < b, "ule": lambda a, b, w: a <= b,
    "ugt": lambda a, b, w: a > b, "uge": lambda a, b, w: a >= b,
}


def run(fn, args, max_steps=5000):
    """Execute `fn`; returns (env, block execution counts) or None if it runs too long."""
    env = {a: v & ((1 << a.type.bits) - 1) for a, v in zip(fn.args, args)}

    def val(v):
        if isinstance(v, ConstantInt):
            return v.unsigned
        return env[v]

    counts = {}
    block, prev = fn.entry, None
    for _ in range(max_steps):
        counts[block] = counts.get(block, 0) + 1
        phis = {p: val(p.incoming_value_for(prev)) for p in block.phis}
        env.update(phis)
        for inst in block.instructions[len(phis):]:
            match inst:
                case BinaryOp():
                    w = inst.type.bits
                    a, b = val(inst.lhs), val(inst.rhs)
                    r = {"add": a + b, "sub": a - b, "mul": a * b, "udiv": a // b if b else 0}[inst.opcode]
                    env[inst] = r & ((1 << w) - 1)
                case Compare():
                    env[inst] = int(_ICMP[inst.predicate](val(inst.lhs), val(inst.rhs), inst.lhs.type.bits))
                case Select():
                    env[inst] = val(inst.true_value) if val(inst.condition) else val(inst.false_value)
                case Br():
                    nxt = inst.successors[0] if not inst.is_conditional or val(inst.condition) else inst.successors[1]
                    block, prev = nxt, block
                case Ret():
                    return env, counts
    return None


# ---------------------------------------------------------------------------
# Loop builders


def counted_loop(shape, start, end, step, pred, compare_next, ity=I64):
    """`for (i = start; i PRED end; i += step)` as clang -O2 (`rotated`: test in the
    latch) or -O0+mem2reg (`header`: test in the header, body, separate latch)
    shapes. `start`/`end` are ints (constants) or None (function arguments)."""
    m = Module()
    fn = m.add_function("loop", FunctionType(VOID, (ity, ity)))
    fn.args[0].name, fn.args[1].name = "s", "n"
    fn.blocks = []
    b = IRBuilder(fn.append_block("entry"))
    s = fn.args[0] if start is None else ConstantInt(ity, start)
    e = fn.args[1] if end is None else ConstantInt(ity, end)
    header = b.append_block("header")
    blocks = {"header": header}
    b.br(header)
    b.position_at_end(header)
    i = b.phi(ity, [(s, fn.entry)], "i")
    if shape == "rotated":
        nxt = b.add(i, ConstantInt(ity, step), "i.next", flags=("nsw",))
        cond = b.icmp(pred, nxt if compare_next else i, e, "cont")
        exit_ = b.append_block("exit")
        b.cond_br(cond, header, exit_)
        i.add_incoming(nxt, header)
        blocks["latch"] = header
    else:
        body, latch, exit_ = b.append_block("body"), b.append_block("latch"), b.append_block("exit")
        nxt = b.add(i, ConstantInt(ity, step), "i.next", flags=("nsw",))
        cond = b.icmp(pred, nxt if compare_next else i, e, "cont")
        b.cond_br(cond, body, exit_)
        b.position_at_end(body)
        b.br(latch)
        b.position_at_end(latch)
        b.br(header)
        i.add_incoming(nxt, latch)
        blocks["latch"] = latch
    b.position_at_end(exit_)
    b.ret_void()
    verify_function(fn)
    return fn, blocks


def _wrapped(start, step, k, bits, signed):
    """Whether start + j*step leaves the range for some j <= k (UB with nsw/nuw)."""
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    x = _signed(start, bits) if signed else start % (1 << bits)
    return not (lo <= x + k * step <= hi)


PREDS = ["ne", "eq", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


@pytest.mark.parametrize("shape", ["rotated", "header"])
def test_constant_trip_counts_match_execution(shape):
    """Every constant loop whose induction variable does not wrap before the exit
    gets its exact trip count; none gets a wrong one."""
    checked = 0
    for start, end, step, pred, nxt in itertools.product([0, 3, -2], [0, 5, 10, -4], [1, 2, -1, -3], PREDS, [False, True]):
        fn, blocks = counted_loop(shape, start, end, step, pred, nxt, I8)
        loop = LoopInfo(fn).loops[0]
        result = run(fn, [0, 0], max_steps=300 if shape == "rotated" else 800)
        tc = loop.trip_count()
        if result is None:
            assert tc is None or tc.constant is None, (start, end, step, pred, nxt)
            continue
        runs = result[1].get(blocks["latch"], 0)
        header_runs = result[1][loop.header]
        signed = pred[0] != "u"
        if _wrapped(start + (step if nxt else 0), step, header_runs, 8, signed):
            continue
        assert tc is not None and tc.constant == runs, (start, end, step, pred, nxt)
        assert tc.header_executions == header_runs
        checked += 1
    assert checked > 150


@pytest.mark.parametrize("shape", ["rotated", "header"])
def test_symbolic_trip_counts_materialize_to_the_executed_count(shape):
    for step, pred, nxt in itertools.product([1, 2, -1, -3], PREDS, [False, True]):
        fn, blocks = counted_loop(shape, None, None, step, pred, nxt, IntType(16))
        loop = LoopInfo(fn).loops[0]
        tc = loop.trip_count()
        if pred == "eq" or (step > 0 and pred[1:] in ("gt", "ge")) or (step < 0 and pred[1:] in ("lt", "le")):
            assert tc is None, (step, pred)
            continue
        assert tc is not None and tc.constant is None
        b = IRBuilder()
        b.position_before_terminator(fn.entry)
        count = tc.materialize(b)
        verify_function(fn)
        for s, n in itertools.product([0, 1, 5, -7], [0, 6, 40, -3]):
            result = run(fn, [s, n], max_steps=300)
            if result is None:
                continue
            env, counts = result
            runs = counts.get(blocks["latch"], 0)
            if _wrapped(s + (step if nxt else 0), step, counts[loop.header], 16, pred[0] != "u") and pred != "ne":
                continue
            got = count.unsigned if isinstance(count, ConstantInt) else env[count]
            assert got == runs % (1 << 16), (step, pred, nxt, s, n, tc.describe())


def test_for_i_below_n_counts_n_in_both_shapes():
    # clang -O2: do { ... } while (++i != n), guarded by n > 0
    fn, _ = counted_loop("rotated", 0, None, 1, "ne", True)
    tc = LoopInfo(fn).loops[0].trip_count()
    assert tc.value is fn.args[1] and tc.describe() == "%n" and tc.exit_in_latch
    # -O0 + mem2reg: for.cond tests i < n in the header
    fn, _ = counted_loop("header", 0, None, 1, "slt", False)
    tc = LoopInfo(fn).loops[0].trip_count()
    assert tc.end is fn.args[1] and tc.value is None and tc.describe() == "smax(%n, 0)"
    fn, _ = counted_loop("header", 0, None, 1, "ult", False)
    assert LoopInfo(fn).loops[0].trip_count().describe() == "umax(%n, 0)"


def test_constant_bound_loop():
    fn, _ = counted_loop("rotated", 0, 100, 1, "ne", True)
    loop = LoopInfo(fn).loops[0]
    assert loop.constant_trip_count() == 100
    iv = loop.canonical_induction_variable()
    assert iv.phi.name == "i" and iv.step == 1 and iv.start.value == 0 and iv.increment.name == "i.next"
    fn, _ = counted_loop("header", 0, 100, 1, "slt", False)
    assert LoopInfo(fn).loops[0].trip_count().constant == 100
    fn, _ = counted_loop("header", 100, 0, -1, "sgt", False)
    assert LoopInfo(fn).loops[0].trip_count().constant == 100


def _nested_with_break():
    """for i < n: { for j < m: { if (x[j]) break; } }  with a data-dependent exit."""
    m = Module()
    fn = m.add_function("nest", FunctionType(VOID, (I64, I64, I1)))
    n, mm, flag = fn.args
    n.name, mm.name, flag.name = "n", "m", "flag"
    fn.blocks = []
    b = IRBuilder(fn.append_block("entry"))
    outer = b.append_block("outer")
    inner = b.append_block("inner")
    inner_latch = b.append_block("inner.latch")
    outer_latch = b.append_block("outer.latch")
    done = b.append_block("done")
    b.br(outer)
    b.position_at_end(outer)
    i = b.phi(I64, [(ConstantInt(I64, 0), fn.entry)], "i")
    b.br(inner)
    b.position_at_end(inner)
    j = b.phi(I64, [(ConstantInt(I64, 0), outer)], "j")
    b.cond_br(flag, outer_latch, inner_latch)  # early break out of the inner loop
    b.position_at_end(inner_latch)
    j1 = b.add(j, ConstantInt(I64, 1), "j.next")
    b.cond_br(b.icmp("eq", j1, mm, "j.done"), outer_latch, inner)
    j.add_incoming(j1, inner_latch)
    b.position_at_end(outer_latch)
    i1 = b.add(i, ConstantInt(I64, 1), "i.next")
    b.cond_br(b.icmp("eq", i1, n, "i.done"), done, outer)
    i.add_incoming(i1, outer_latch)
    b.position_at_end(done)
    b.ret_void()
    verify_function(fn)
    return fn


def test_nested_loops_and_multiple_exits():
    fn = _nested_with_break()
    blk = {bb.name: bb for bb in fn.blocks}
    li = LoopInfo(fn)
    assert len(li.loops) == 1
    outer = li.loops[0]
    (inner,) = outer.subloops
    assert inner.parent is outer and outer.depth == 1 and inner.depth == 2
    assert [x.name for x in outer.blocks] == ["outer", "inner", "inner.latch", "outer.latch"]
    assert [x.name for x in inner.blocks] == ["inner", "inner.latch"]
    assert li.loop_for(blk["inner.latch"]) is inner and li.loop_for(blk["outer.latch"]) is outer
    assert li.loop_for(blk["done"]) is None and li.depth(blk["inner"]) == 2 and li.is_header(blk["outer"])
    assert [lp.header.name for lp in li] == ["outer", "inner"]
    assert [x.name for x in inner.exiting_blocks] == ["inner", "inner.latch"]
    assert [x.name for x in inner.exit_blocks] == ["outer.latch"]
    assert inner.preheader is blk["outer"] and outer.preheader is blk["entry"]
    assert inner.trip_count() is None  # two exits: the break makes it data dependent
    assert outer.trip_count().value is fn.args[0]
    assert outer.contains(inner) and outer.contains(blk["inner"]) and not inner.contains(outer)


def test_while_loop_without_induction_variable():
    """while (x != 1) x = x / 2 (data dependent): no IV, no trip count."""
    m = Module()
    fn = m.add_function("halve", FunctionType(VOID, (I64,)))
    fn.blocks = []
    b = IRBuilder(fn.append_block("entry"))
    loop, out = b.append_block("loop"), b.append_block("out")
    b.br(loop)
    b.position_at_end(loop)
    x = b.phi(I64, [(fn.args[0], fn.entry)], "x")
    half = b.udiv(x, ConstantInt(I64, 2), "half")
    b.cond_br(b.icmp("ne", half, ConstantInt(I64, 1), "c"), loop, out)
    x.add_incoming(half, loop)
    b.position_at_end(out)
    b.ret_void()
    lp = LoopInfo(fn).loops[0]
    assert lp.induction_variables() == [] and lp.trip_count() is None
    assert lp.canonical_induction_variable() is None and lp.latches == [loop]


def test_preheader_absent_with_two_entries_and_shared_header():
    m = Module()
    fn = m.add_function("two", FunctionType(VOID, (I1,)))
    fn.blocks = []
    b = IRBuilder(fn.append_block("entry"))
    a, c, h, l2, out = (b.append_block(x) for x in ("a", "c", "h", "l2", "out"))
    b.cond_br(fn.args[0], a, c)
    for blk in (a, c):
        b.position_at_end(blk)
        b.br(h)
    b.position_at_end(h)
    b.cond_br(fn.args[0], h, l2)   # self loop
    b.position_at_end(l2)
    b.cond_br(fn.args[0], h, out)  # second latch
    b.position_at_end(out)
    b.ret_void()
    (loop,) = LoopInfo(fn).loops
    assert loop.preheader is None and [x.name for x in loop.entering_blocks] == ["a", "c"]
    assert [x.name for x in loop.latches] == ["h", "l2"] and loop.latch is None
    assert loop.trip_count() is None and loop.subloops == []


def test_ensure_preheader_merges_entering_edges():
    m = Module()
    fn = m.add_function("two", FunctionType(VOID, (I1, I64)))
    fn.blocks = []
    b = IRBuilder(fn.append_block("entry"))
    a, c, h, out = (b.append_block(x) for x in ("a", "c", "h", "out"))
    b.cond_br(fn.args[0], a, c)
    for blk in (a, c):
        b.position_at_end(blk)
        b.br(h)
    b.position_at_end(h)
    i = b.phi(I64, [(ConstantInt(I64, 0), a), (fn.args[1], c)], "i")
    same = b.phi(I64, [(fn.args[1], a), (fn.args[1], c)], "same")
    nxt = b.add(i, same, "i.next")
    b.cond_br(b.icmp("slt", nxt, ConstantInt(I64, 10)), h, out)
    i.add_incoming(nxt, h)
    same.add_incoming(same, h)
    b.position_at_end(out)
    b.ret_void()
    li = LoopInfo(fn)
    (loop,) = li.loops
    assert loop.preheader is None
    pre = li.ensure_preheader(loop)
    assert pre.name == "h.preheader" and loop.preheader is pre and li.ensure_preheader(loop) is pre
    merged = pre.instructions[0]
    assert isinstance(merged, Phi) and merged.name == "i.ph" and len(pre.instructions) == 2
    assert i.incoming == [(merged, pre), (nxt, h)] and same.incoming == [(fn.args[1], pre), (same, h)]
    assert li.dom.idom(h) is pre and li.loop_for(pre) is None
    verify_function(fn)


def test_ensure_preheader_of_an_inner_loop_joins_the_outer_loop():
    fn = _nested_with_break()
    li = LoopInfo(fn)
    outer = li.loops[0]
    (inner,) = outer.subloops
    blk = {bb.name: bb for bb in fn.blocks}
    assert inner.preheader is blk["outer"]
    # make %outer branch to the inner header conditionally: no dedicated preheader
    blk["outer"].terminator.erase()
    blk["outer"].append(Br(fn.args[2], blk["inner"], blk["outer.latch"]))
    li = LoopInfo(fn)
    outer = li.loops[0]
    (inner,) = outer.subloops
    assert inner.preheader is None
    pre = li.ensure_preheader(inner)
    assert li.loop_for(pre) is outer and outer.contains(pre) and not inner.contains(pre)
    verify_function(fn)


def test_unreachable_loop_is_ignored():
    fn, _ = counted_loop("rotated", 0, 10, 1, "ne", True)
    dead = fn.append_block("dead")
    dead.append(Br(dead))
    li = LoopInfo(fn)
    assert len(li.loops) == 1 and li.loop_for(dead) is None


# ---------------------------------------------------------------------------
# Loops as clang-22 emits them

import subprocess  # noqa: E402

import enzc.ir as ir  # noqa: E402
from enzc.ir.instructions import Cast  # noqa: E402

LOOPS_C = r"""
double sum(const double *x, long n) { double s = 0; for (long i = 0; i < n; i++) s += x[i]; return s; }
double sum_int(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }
double sum100(const double *x) { double s = 0; for (int i = 0; i < 100; i++) s += x[i] * x[i]; return s; }
double nested(const double *a, int n, int m) {
    double s = 0;
    for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) s += a[i * m + j];
    return s;
}
double early(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) { if (x[i] < 0) break; s += x[i]; }
    return s;
}
double halving(double x, unsigned long k) { while (k > 1) { k = (k & 1) ? 3 * k + 1 : k / 2; x *= 1.5; } return x; }
double down(const double *x, int n) { double s = 0; for (int i = n - 1; i >= 0; i--) s += x[i]; return s; }
"""


def _clang_module(tmp_path, level):
    src = tmp_path / "loops.c"
    src.write_text(LOOPS_C)
    out = tmp_path / f"loops{level}.ll"
    if level == "-O2":  # the O2* pipeline enzcc runs before AD: no unrolling or vectorization
        cmd = ["clang-22", "-O2", "-fno-unroll-loops", "-fno-vectorize", "-fno-slp-vectorize"]
        subprocess.run([*cmd, "-S", "-emit-llvm", "-o", str(out), str(src)], check=True)
    else:  # -O0 without optnone, then mem2reg: the loop shapes before any loop pass
        raw = tmp_path / "raw.ll"
        subprocess.run(["clang-22", "-O0", "-Xclang", "-disable-O0-optnone", "-S", "-emit-llvm", "-o", str(raw), str(src)],
                       check=True)
        subprocess.run(["opt-22", "-passes=mem2reg", "-S", "-o", str(out), str(raw)], check=True)
    m = ir.parse_module(out.read_text())
    for fn in m.functions.values():
        if not fn.is_declaration:
            ir.verify_function(fn)
    return m


@pytest.fixture(scope="module")
def o2(tmp_path_factory):
    return _clang_module(tmp_path_factory.mktemp("o2"), "-O2")


@pytest.fixture(scope="module")
def o0(tmp_path_factory):
    return _clang_module(tmp_path_factory.mktemp("o0"), "-O0")


def _loops(m, name):
    fn = m.functions[name]
    return fn, list(LoopInfo(fn))


def test_clang_o2_for_loop_counts_n(o2):
    fn, (loop,) = _loops(o2, "sum")
    tc = loop.trip_count()
    assert tc.value is fn.args[1] and tc.exit_in_latch and tc.describe() == "%1"
    assert loop.latch is loop.header  # rotated: one block
    assert loop.preheader is None  # the guard branches straight into the loop
    iv = loop.canonical_induction_variable()
    assert iv.start.value == 0 and iv.step == 1 and tc.iv.phi is iv.phi
    # `int n`: the count is the widened bound `zext nneg i32 %n to i64`
    fn, (loop,) = _loops(o2, "sum_int")
    v = loop.trip_count().value
    assert isinstance(v, Cast) and v.opcode == "zext" and v.value is fn.args[1]
    assert v.parent is not None and not loop.contains(v)


def test_clang_constant_bound(o2, o0):
    for m in (o2, o0):
        _, (loop,) = _loops(m, "sum100")
        assert loop.constant_trip_count() == 100
        assert loop.trip_count().header_executions == (100 if loop.trip_count().exit_in_latch else 101)


def test_clang_nested_and_early_exit(o2, o0):
    for m in (o2, o0):
        fn, (outer, inner) = _loops(m, "nested")
        assert inner.parent is outer and outer.subloops == [inner] and inner.depth == 2
        assert inner.trip_count() is not None and outer.trip_count() is not None
        fn, (loop,) = _loops(m, "early")
        assert len(loop.exiting_blocks) == 2 and len(loop.exit_blocks) >= 1
        assert loop.trip_count() is None
    _, (outer, inner) = _loops(o2, "nested")
    assert inner.trip_count().describe() != outer.trip_count().describe()


def test_clang_data_dependent_while_loop(o2, o0):
    for m in (o2, o0):
        _, (loop,) = _loops(m, "halving")
        assert loop.trip_count() is None and loop.canonical_induction_variable() is None


def test_clang_o0_mem2reg_header_test(o0):
    fn, (loop,) = _loops(o0, "sum")
    tc = loop.trip_count()
    assert not tc.exit_in_latch and tc.end is fn.args[1] and tc.describe() == "smax(%1, 0)"
    assert tc.iv.phi.parent is loop.header and tc.iv.increment.parent is loop.latch
    fn, (loop,) = _loops(o0, "down")
    tc = loop.trip_count()
    assert tc.iv.step == -1 and tc.predicate == "sge" and tc.describe().startswith("smax(")


def test_materialize_into_a_clone(tmp_path):
    from enzc.ir.transforms import clone_function

    m = _clang_module(tmp_path, "-O2")
    fn = m.functions["down"]
    (loop,) = LoopInfo(fn).loops
    tc = loop.trip_count()
    g, vmap = clone_function(fn, "down.clone", m)
    b = IRBuilder()
    b.position_before_terminator(vmap[loop.preheader])
    count = tc.materialize(b, "backedge_taken", vmap)
    assert count.function is g and all(op.function is g for op in count.operands if isinstance(op, Instruction))
    ir.verify_function(g)


def test_materialized_trip_count_is_valid_llvm(o2, tmp_path):
    """Emit the counts at each preheader and store them; LLVM must accept the result."""
    for name in ("sum", "sum_int", "nested", "down"):
        fn = o2.functions[name]
        li = LoopInfo(fn)
        for loop in list(li):
            tc = loop.trip_count()
            pre = li.ensure_preheader(loop)
            assert loop.preheader is pre and pre.successors == [loop.header]
            b = IRBuilder()
            b.position_before_terminator(pre)
            count = tc.materialize(b, "header_executions")
            slot = b.alloca(count.type, name="tc.slot")
            b.store(count, slot)
        ir.verify_function(fn)
    path = tmp_path / "out.ll"
    path.write_text(ir.print_module(o2))
    subprocess.run(["opt-22", "-passes=verify", "-disable-output", str(path)], check=True)
