"""The functions a team runs in a derivative's parallel region, and the tape table.

`__kmpc_fork_call` passes its variadic arguments to the outlined function as
pointer-sized words, so a derived function taking a float cannot be forked to
directly: each is called through a wrapper that takes floats as `i64` words
(`abi_type`) and turns them back.

- `omp_aug.<f>(gtid, btid, words..., tapes)`: `tapes[tid] = augmented_<f>(...)`;
  thread 0 also records the team size.
- `omp_rev.<f>(gtid, btid, words..., tapes, acc)`: checks that the team has the
  forward team's size, runs `reverse_<f>(..., tapes[tid])` and adds the adjoints of
  float captures to `acc` atomically (every thread has its own share of them).
- `omp_words.<f>(gtid, btid, words...)`: calls `fwddiffe_<f>` (forward mode), or the
  outlined function's clone taking captures by value (an inactive region).

The tape table (`__enzc_omp_tapes_new(capacity)`) is one heap block
`{i64 threads, i64 capacity, ptr tape[capacity]}` per forward fork: one tape per
thread, each the thread's own augmented call's tape.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, get_or_insert_function, new_block
from enzc.ir.libc import declare, define_failure, define_helper
from enzc.ir.module import Function, Module
from enzc.ir.types import DOUBLE, FLOAT, I1, I8, I32, I64, PTR, VOID, FunctionType, StructType, Type
from enzc.ir.values import ConstantInt, Value

TABLE_HEADER = 16
"""Bytes before the tape pointers of a tape table: `i64 threads, i64 capacity`."""

TEAM_SIZE_MESSAGE = (b"enzc: the reverse pass of an OpenMP parallel region got a team of another size than its "
                     b"forward pass (OMP_DYNAMIC or a thread limit?); its derivative cannot be computed\n")
CAPACITY_MESSAGE = (b"enzc: an OpenMP parallel region in differentiated code got more threads than "
                    b"omp_get_max_threads() announced\n")


def abi_type(t: Type) -> Type:
    """How a value travels through the fork call's variadic arguments."""
    return I64 if t in (DOUBLE, FLOAT) else t


def to_word(b: IRBuilder, v: Value) -> Value:
    """`v` as the word the fork call passes (floats by their bits)."""
    if v.type == DOUBLE:
        return b.bitcast(v, I64, "omp.word")
    if v.type == FLOAT:
        return b.zext(b.bitcast(v, I32, "omp.bits"), I64, "omp.word")
    return v


def from_word(b: IRBuilder, v: Value, t: Type) -> Value:
    """The value of type `t` that word `v` carries."""
    if t == DOUBLE:
        return b.bitcast(v, DOUBLE, "omp.val")
    if t == FLOAT:
        return b.bitcast(b.trunc(v, I32, "omp.bits"), FLOAT, "omp.val")
    return v


def runtime(module: Module, name: str) -> Function:
    """A libomp entry point the derivative calls."""
    types = {
        "omp_get_thread_num": FunctionType(I32, ()),
        "omp_get_num_threads": FunctionType(I32, ()),
        "omp_get_max_threads": FunctionType(I32, ()),
        "__kmpc_global_thread_num": FunctionType(I32, (PTR,)),
        "__kmpc_push_num_threads": FunctionType(VOID, (PTR, I32, I32)),
        "__kmpc_fork_call": FunctionType(VOID, (PTR, I32, PTR), vararg=True),
    }
    existing = module.get_function(name)
    want = types[name]
    if existing is not None and existing.function_type.vararg and not existing.function_type.params \
            and existing.function_type.ret == want.ret:
        return existing  # declared without a prototype (`int omp_get_max_threads();`): `i32 (...)`
    return get_or_insert_function(module, name, want)


def tapes_new(module: Module) -> Function:
    """`ptr __enzc_omp_tapes_new(i32 capacity)`: a zeroed tape table."""
    fn, fresh = define_helper(module, "__enzc_omp_tapes_new", FunctionType(PTR, (I32,)), ("capacity",))
    if fresh:
        b = IRBuilder(new_block(fn, "entry"))
        cap = b.zext(fn.args[0], I64, "cap")
        size = b.add(b.mul(cap, ConstantInt(I64, 8), "slots"), ConstantInt(I64, TABLE_HEADER), "bytes")
        table = b.call(declare(module, "malloc"), [size], "table")
        b.call(declare(module, "llvm.memset.p0.i64"), [table, ConstantInt(I8, 0), size, ConstantInt(I1, 0)])
        b.store(cap, b.gep(I8, table, [8], "capp"))
        b.ret(table)
    return fn


def _slot(b: IRBuilder, table: Value, tid: Value) -> Value:
    offset = b.add(b.mul(b.zext(tid, I64, "tid64"), ConstantInt(I64, 8), "off"), ConstantInt(I64, TABLE_HEADER), "off")
    return b.gep(I8, table, [offset], "tape.slot")


def _wrapper(module: Module, name: str, derived: Function, extra: tuple[Type, ...]) -> tuple[Function, bool]:
    """`void name(ptr gtid, ptr btid, <derived's other parameters as words>, extra...)`."""
    params = (*derived.function_type.params[:2], *(abi_type(t) for t in derived.function_type.params[2:]))
    return define_helper(module, name, FunctionType(VOID, (*params, *extra)), (), attrs=("nounwind",))


def _forward_args(b: IRBuilder, wrapper: Function, derived: Function, count: int) -> list[Value]:
    """The wrapper's first `count` parameters, converted to `derived`'s types."""
    return [from_word(b, a, t) for a, t in zip(wrapper.args[:count], derived.function_type.params)]


def augmented_wrapper(module: Module, augmented: Function) -> Function:
    """`omp_aug.<f>`: each thread runs the augmented forward and files its tape."""
    fn, fresh = _wrapper(module, f"__enzc_omp_aug.{augmented.name}", augmented, (PTR,))
    if not fresh:
        return fn
    n = len(augmented.function_type.params)
    table = fn.args[n]
    entry, run, first, done = (new_block(fn, x) for x in ("entry", "run", "first", "done"))
    bad = new_block(fn, "too.many")
    b = IRBuilder(entry)
    tid = b.call(runtime(module, "omp_get_thread_num"), [], "tid")
    cap = b.load(I64, b.gep(I8, table, [8], "capp"), "cap")
    b.cond_br(b.icmp("ult", b.zext(tid, I64, "tid64"), cap, "fits"), run, bad)
    b.position_at_end(bad)
    b.call(define_failure(module, "__enzc_omp_capacity_error", CAPACITY_MESSAGE), [])
    b.unreachable()
    b.position_at_end(run)
    tape = b.call(augmented, _forward_args(b, fn, augmented, n), "tape")
    if augmented.function_type.ret != PTR:
        tape = b.extract_value(tape, 0, "tape")
    b.store(tape, _slot(b, table, tid))
    b.cond_br(b.icmp("eq", tid, ConstantInt(I32, 0), "master"), first, done)
    b.position_at_end(first)
    threads = b.call(runtime(module, "omp_get_num_threads"), [], "threads")
    b.store(b.zext(threads, I64, "threads64"), table)
    b.br(done)
    b.position_at_end(done)
    b.ret_void()
    return fn


def reverse_wrapper(module: Module, reverse: Function, outs: list[Type]) -> Function:
    """`omp_rev.<f>`: each thread replays its own tape backwards."""
    fn, fresh = _wrapper(module, f"__enzc_omp_rev.{reverse.name}", _without_tape(reverse), (PTR, PTR))
    if not fresh:
        return fn
    n = len(reverse.function_type.params) - 1
    table, acc = fn.args[n], fn.args[n + 1]
    entry, run, bad = new_block(fn, "entry"), new_block(fn, "run"), new_block(fn, "team.size")
    b = IRBuilder(entry)
    tid = b.call(runtime(module, "omp_get_thread_num"), [], "tid")
    threads = b.call(runtime(module, "omp_get_num_threads"), [], "threads")
    expected = b.load(I64, table, "forward.threads")
    b.cond_br(b.icmp("eq", b.zext(threads, I64, "threads64"), expected, "same"), run, bad)
    b.position_at_end(bad)
    b.call(define_failure(module, "__enzc_omp_team_error", TEAM_SIZE_MESSAGE), [])
    b.unreachable()
    b.position_at_end(run)
    tape = b.load(PTR, _slot(b, table, tid), "tape")
    result = b.call(reverse, [*_forward_args(b, fn, reverse, n), tape], "" if not outs else "d")
    for k, t in enumerate(outs):
        d = result if len(outs) == 1 else b.extract_value(result, k, "d.part")
        b.atomic_rmw("fadd", b.gep(StructType(tuple(outs)), acc, [0, k], "acc.addr"), d, "monotonic")
    b.ret_void()
    return fn


def _without_tape(reverse: Function) -> Function:
    """A stand-in with `reverse`'s parameters but the tape (for `_wrapper`'s types)."""
    return Function(reverse.name or "reverse", FunctionType(VOID, reverse.function_type.params[:-1]))


def words_wrapper(module: Module, target: Function) -> Function:
    """`omp_words.<f>`: each thread runs `target` (a forward derivative, or an
    outlined function's clone taking captures by value) with its floats as words."""
    fn, fresh = _wrapper(module, f"__enzc_omp_words.{target.name}", target, ())
    if fresh:
        b = IRBuilder(new_block(fn, "entry"))
        b.call(target, _forward_args(b, fn, target, len(target.function_type.params)))
        b.ret_void()
    return fn


def tape_table_threads(b: IRBuilder, table: Value) -> Value:
    """The forward team's size, as an i32."""
    return b.trunc(b.load(I64, table, "omp.threads64"), I32, "omp.threads")
