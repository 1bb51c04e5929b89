"""-c and -S: each input on its own, one output per input (as cc does).

A C/C++ source goes through the frontend (O2* bitcode), the AD stage and codegen at
the user's -O level; with -c the object also carries the pre-AD bitcode in `.llvmbc`
so a later `enzcc` link can merge translation units and redo AD across them.
Without `__enzyme_` in the bitcode nothing is parsed in-process.
"""

from __future__ import annotations

import os
import shutil
import sys
from functools import partial

from enzc.ad import ENTRY_POINT_MARK, ADError
import enzc.frontend.middle as middle
import enzc.frontend.steps as steps
from enzc.frontend.args import Input, InputKind, Phase, UsageError
from enzc.frontend.deps import dependency_file, replace_extension
from enzc.frontend.runner import Result
from enzc.frontend.session import Session
from enzc.lto import irmodule

Outputs = list[tuple[str, str]]
"""(built file, destination) pairs, published once everything succeeded; the
dependency file first, so that when it cannot be written the object is not either."""

_SUFFIX = {(Phase.OBJECT, False): ".o", (Phase.OBJECT, True): ".bc",
           (Phase.ASSEMBLY, False): ".s", (Phase.ASSEMBLY, True): ".ll"}


def compile_only(session: Session) -> None:
    """Compile every input to an object/assembly/IR file; publish them all at the end."""
    inv = session.inv
    inputs = []
    for inp in inv.inputs:
        if inp.kind == InputKind.LINKER:
            sys.stderr.write(f"{inv.tool_name}: warning: {inp.path}: 'linker' input unused\n")
        else:
            inputs.append(inp)
    if inv.output is not None and len(inputs) > 1:
        raise UsageError(f"{inv.tool_name}: error: cannot specify -o when generating "
                         "multiple output files")
    suffix = _SUFFIX[(inv.phase, inv.emit_llvm)]
    jobs = [partial(_compile_one, session, number, inp,
                    inv.output or replace_extension(os.path.basename(inp.path), suffix))
            for number, inp in enumerate(inputs)]
    for outputs in steps.run_jobs(session, jobs) if jobs else []:
        for built, destination in outputs:
            session.publish(built, destination)


def _compile_one(session: Session, number: int, inp: Input, destination: str,
                 capture: bool) -> tuple[Result, Outputs]:
    inv = session.inv
    stem = session.stem(number, inp)
    assembly = inv.phase == Phase.ASSEMBLY
    if inp.kind == InputKind.NATIVE_SOURCE:
        built = session.temp(stem + (".s" if assembly else ".o"))
        result = steps.native_compile(session, inp, built, assembly, capture)
        return result, [(built, destination)]

    pre = session.temp(stem + ".bc")
    dep = None
    if inp.kind != InputKind.IR:
        dep = dependency_file(inv.deps, inp.path, inv.output, session.temp(stem + ".d"))
    with session.times.stage("frontend"):
        result = steps.frontend(session, inp, pre, dep, capture)
    if result.returncode != 0:
        return result, []
    outputs: Outputs = [(dep.built, dep.destination)] if dep else []

    module, text = _lower(session, pre, stem, inp.path, want_text=inv.emit_llvm and assembly,
                          deferrable=inv.phase == Phase.OBJECT)
    built = session.temp(stem + ".out" + _SUFFIX[(inv.phase, inv.emit_llvm)])
    if inv.emit_llvm and assembly:
        with open(built, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text or "")
    elif inv.emit_llvm:
        shutil.copyfile(module, built)
    else:
        # An object carries its pre-AD IR for the enzcc link; with -flto it is IR.
        embed = None if assembly or session.lto else pre
        steps.codegen(session, module, built, assembly, embed=embed)
    return result, [*outputs, (built, destination)]


def _lower(session: Session, pre: str, stem: str, label: str, want_text: bool,
           deferrable: bool) -> tuple[str, str | None]:
    """AD (and --enzc-ad-before-opt's cleanup) on one unit: (bitcode for codegen, text).

    With `deferrable` (-c: objects and bitcode carry their IR to the link) a unit the AD stage
    cannot differentiate on its own, typically because the differentiated code is in
    another translation unit, is compiled without AD: the enzcc link merges the units
    and runs AD there (and reports the error if it persists). Its `__enzyme_` calls stay
    unresolved, so a link without enzcc fails instead of giving wrong results.
    """
    enzc = session.inv.enzc
    with open(pre, "rb") as f:
        bitcode = f.read()
    in_process = (enzc.ad_before_opt or want_text or enzc.keep_temps is not None
                  or ENTRY_POINT_MARK.encode() in bitcode)
    if not in_process:
        return pre, None
    with irmodule.LLVM_LOCK:
        module = irmodule.parse_module(bitcode, label)
        if enzc.ad_before_opt:
            module = irmodule.strip_o0_attributes(module, label, every_noinline=True)
            middle.optimize(session, module)
        try:
            lowered = middle.differentiate(session, module, stem, label)
        except ADError as err:
            if not deferrable:
                raise
            reason = str(err).strip().splitlines()[0] if str(err).strip() else "AD failed"
            sys.stderr.write(f"{session.inv.tool_name}: note: {label}: AD deferred to the "
                             f"enzcc link step, which sees all translation units ({reason})\n")
            lowered = middle.Lowered(module, None)
        if lowered.ad_text is None and not enzc.ad_before_opt:
            return pre, lowered.text() if want_text else None
        out = session.temp(stem + ".lowered.bc")
        middle.write_bitcode(lowered.module, out)
        return out, lowered.text() if want_text else None
