"""`--enzc-tape-stats`: each derivative counts its calls and the cache bytes it allocates.

A derivative keeps a per-call byte counter in an entry `alloca` (so recursive
calls count separately; split mode carries it in the tape like any local used on
both sides). The caches add to it what they allocate: each shared block, stack
block and arena block, and the final capacity of growing caches. At the end of
the reverse pass the count goes into a global record `{calls, total, max}` of
that derivative; its first call registers (`atexit`) a function that prints, at
program exit, to stderr:

    enzc: diffe_f: 1000 calls, tape bytes per call: mean 1234, max 2048
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.libc import declare
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.types import I8, I32, I64, VOID, ArrayType, FunctionType, StructType
from enzc.ir.values import ConstantInt, ConstantString, Value, zeroinitializer

RECORD = StructType((I64, I64, I64))
"""`{i64 calls, i64 total bytes, i64 max bytes}` of one derivative."""
FORMAT = "enzc: %s: %lld calls, tape bytes per call: mean %lld, max %lld\n"


class TapeCounter:
    """The byte counter of one derivative function `fn`."""

    def __init__(self, module: Module, fn: Function, label: str) -> None:
        self.module = module
        self.fn = fn
        self.label = label
        """The name printed (`diffe_f`)."""
        b = IRBuilder(fn.entry)
        with b.goto_entry_allocas():
            self.slot = b.alloca(I64, name="tape.bytes")
        with b.goto_entry_allocas():
            b.store(ConstantInt(I64, 0), self.slot)

    def add(self, b: IRBuilder, nbytes: Value) -> None:
        """Count `nbytes` more at the builder's position."""
        b.store(b.add(b.load(I64, self.slot, "tape.n"), nbytes, "tape.n"), self.slot)

    def finish(self, exit_block: BasicBlock) -> None:
        """Record this call's count before `exit_block`'s return."""
        b = IRBuilder()
        b.position_before_terminator(exit_block)
        b.call(self._record_function(), [b.load(I64, self.slot, "tape.call.bytes")])

    def _record_function(self) -> Function:
        """`void __enzc_tape_record.<label>(i64 bytes)`: adds one call to the record,
        registering the report at the first."""
        module = self.module
        record = module.add_global(f"__enzc_tape.{self.label}", RECORD, zeroinitializer(RECORD))
        record.linkage.words = ["internal"]
        fn = module.add_function(f"__enzc_tape_record.{self.label}", FunctionType(VOID, (I64,)))
        fn.linkage.words = ["internal"]
        fn.blocks = []
        (n,) = fn.args
        n.name = "bytes"
        entry, first, update = new_block(fn, "entry"), new_block(fn, "first"), new_block(fn, "update")
        b = IRBuilder(entry)
        calls = b.load(I64, record, "calls")
        b.cond_br(b.icmp("eq", calls, ConstantInt(I64, 0), "isfirst"), first, update)
        b.position_at_end(first)
        b.call(declare(module, "atexit"), [self._report_function(record)])
        b.br(update)
        b.position_at_end(update)
        b.store(b.add(calls, ConstantInt(I64, 1), "calls.next"), record)
        totalp = b.gep(RECORD, record, [0, 1], "totalp")
        b.store(b.add(b.load(I64, totalp, "total"), n, "total.next"), totalp)
        maxp = b.gep(RECORD, record, [0, 2], "maxp")
        old = b.load(I64, maxp, "max")
        b.store(b.select(b.icmp("ugt", n, old, "more"), n, old, "max.next"), maxp)
        b.ret_void()
        return fn

    def _report_function(self, record) -> Function:
        module = self.module
        fmt = _string(module, "__enzc_tape.fmt", FORMAT)
        name = _string(module, f"__enzc_tape.name.{self.label}", self.label)
        fn = module.add_function(f"__enzc_tape_report.{self.label}", FunctionType(VOID, ()))
        fn.linkage.words = ["internal"]
        fn.blocks = []
        b = IRBuilder(new_block(fn, "entry"))
        calls = b.load(I64, record, "calls")
        total = b.load(I64, b.gep(RECORD, record, [0, 1], "totalp"), "total")
        peak = b.load(I64, b.gep(RECORD, record, [0, 2], "maxp"), "max")
        divisor = b.select(b.icmp("eq", calls, ConstantInt(I64, 0), "none"), ConstantInt(I64, 1), calls, "div")
        mean = b.udiv(total, divisor, "mean")
        b.call(declare(module, "dprintf"), [ConstantInt(I32, 2), fmt, name, calls, mean, peak])
        b.ret_void()
        return fn


def _string(module: Module, name: str, text: str):
    """A private constant C string (shared when it exists already)."""
    got = module.get_global(name)
    if got is not None:
        return got
    data = text.encode() + b"\0"
    ty = ArrayType(len(data), I8)
    gv = module.add_global(name, ty, ConstantString(ty, data), constant=True)
    gv.linkage.words = ["private", "unnamed_addr"]
    return gv
