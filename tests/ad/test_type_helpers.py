"""Shared helpers of the type-analysis tests (no tests here): IR from text or from C via clang-22."""

from __future__ import annotations

import subprocess

from enzc.ad.typeanalysis.analysis import TypeAnalysis
from enzc.ad.typeanalysis.results import TypeResults
from enzc.ir import Function, Module, parse_module

DATALAYOUT = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

O2_STAR = ["-O2", "-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops"]
"""What enzcc optimizes with before AD."""


def module_from_ir(body: str) -> Module:
    """Parse a hand-written IR snippet, adding the x86-64 datalayout."""
    return parse_module(f'target datalayout = "{DATALAYOUT}"\n' + body)


def module_from_c(source: str, *flags: str) -> Module:
    """Compile C with clang-22 (default: the O2* enzcc runs before AD) and parse it."""
    cmd = ["clang-22", "-S", "-emit-llvm", "-o", "-", "-x", "c", "-", *(flags or O2_STAR)]
    out = subprocess.run(cmd, input=source, capture_output=True, text=True, check=True)
    return parse_module(out.stdout)


def analyze(module: Module, name: str, *arg_trees, ret=None) -> tuple[TypeResults, Function]:
    fn = module.functions[name]
    return TypeAnalysis(module).analyze(fn, list(arg_trees) or None, ret), fn


def value(fn: Function, name: str):
    """The argument or instruction named `name` in `fn`."""
    for a in fn.args:
        if a.name == name:
            return a
    for inst in fn.instructions():
        if inst.name == name:
            return inst
    raise KeyError(name)


def calls_to(fn: Function, callee_prefix: str) -> list:
    return [i for i in fn.instructions()
            if getattr(i, "called_function", None) is not None and i.called_function.name.startswith(callee_prefix)]
