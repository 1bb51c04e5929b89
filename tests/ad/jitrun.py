"""Run the functions of a lowered IR module in-process (llvmlite MCJIT), so unit tests
can check gradients numerically without building a program with clang.

The module is verified by LLVM first; libc and libm symbols (malloc, sin, ...)
resolve from the test process.
"""

from __future__ import annotations

import ctypes
from typing import Any

from enzc.lto.irmodule import initialize_llvm

HEAD = """target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
"""

_ENGINES: list[Any] = []
"""Engines stay alive while their function pointers may be called."""


def compile_ir(text: str, host_cpu: bool = False):
    """An MCJIT engine holding the (verified) module `text`; with `host_cpu`, code
    for this processor's features (a module calling `llvm.x86.avx.*`).

    MCJIT cannot link thread-local variables (the process crashes at their first
    access), so the tape stack's `thread_local` global (`synth/tape_stack.py`)
    becomes an ordinary one here: the tests run each derivative on one thread."""
    import llvmlite.binding as llvm

    initialize_llvm()
    text = text.replace("@__enzc_tape_stack = linkonce_odr thread_local global",
                        "@__enzc_tape_stack = linkonce_odr global")
    module = llvm.parse_assembly(text)
    module.verify()
    target = llvm.Target.from_default_triple()
    machine = (target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                            features=llvm.get_host_cpu_features().flatten())
               if host_cpu else target.create_target_machine())
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    _ENGINES.append(engine)
    return engine


def function(engine, name: str, restype, *argtypes):
    """A ctypes callable for `@name` of `engine`."""
    return ctypes.CFUNCTYPE(restype, *argtypes)(engine.get_function_address(name))


def doubles(values) -> ctypes.Array:
    return (ctypes.c_double * len(values))(*values)


D = ctypes.c_double
P = ctypes.c_void_p
I64 = ctypes.c_int64
