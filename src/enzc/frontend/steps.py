"""The clang-22 steps of the pipeline: source -> IR, IR -> object/assembly, link.

Each function builds one command line from the session's flags; `run_jobs` runs
independent steps in parallel with their diagnostics replayed in input order.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

import enzc.frontend.enzyme_attributes as enzyme_attributes
import enzc.frontend.irinput as irinput
import enzc.frontend.preserve as preserve
from enzc.frontend.args import Input, InputKind
from enzc.frontend.deps import DepFile
from enzc.frontend.runner import Result, ToolFailed
from enzc.frontend.optlevel import frontend_level, level_macro_flags
from enzc.frontend.session import Session
from enzc.frontend.toolchain import NO_LLVM_PASSES, O0_OPTIMIZABLE, O2_STAR_ON_IR, OBJCOPY
from enzc.lto.elfobj import BITCODE_SECTION

T = TypeVar("T")
_COLOR_FLAGS = ("-fcolor-diagnostics", "-fno-color-diagnostics", "-fdiagnostics-color")


def lang_flags(inp: Input) -> list[str]:
    """`-x LANG` as the user gave it for this input (clang picks by suffix otherwise)."""
    return ["-x", inp.lang] if inp.lang is not None else []


def frontend(session: Session, inp: Input, bitcode: str, dep: DepFile | None,
             capture: bool) -> Result:
    """Source (or IR) -> bitcode at O2* (or -O0 for --enzc-ad-before-opt).

    Two steps, as `clang -save-temps` takes them: clang emits its IR (at the user's -O
    level, -O2 if it does not optimize) without running LLVM passes, then O2* (-O2
    restricted by pass-builder options, see `passes`)
    optimizes it, by a second clang on that IR (so sources still compile in parallel)
    or in-process when the unit registers derivatives (see `preserve`) or a sanitizer
    instruments it (instrumentation must come after AD: clang only marks the functions,
    `sanitize_address`, ..., and adds the checks at code generation). One clang with
    -fno-unroll-loops on the source would write `llvm.loop.unroll.disable` on every loop
    and slow down the final code.
    """
    inv = session.inv
    registers = inp.kind != InputKind.IR and preserve.source_registers(
        inp.path, *session.user_include_dirs())
    if inv.enzc.ad_before_opt:
        return _emit_ir(session, inp, O0_OPTIMIZABLE, registers, bitcode, dep, capture)
    unoptimized = bitcode.removesuffix(".bc") + ".noopt.bc"
    level = [frontend_level(inv.opt), *NO_LLVM_PASSES]
    result = _emit_ir(session, inp, level, registers, unoptimized, dep, capture)
    if result.returncode != 0:
        return result
    if registers or session.instruments or preserve.registers_functions(unoptimized):
        preserve.optimize_keeping_registered(unoptimized, bitcode, inp.path)
        return result
    argv = [session.compiler, *session.common_flags(), *O2_STAR_ON_IR, "-emit-llvm", "-c",
            "-x", "ir", unoptimized, "-o", bitcode]
    optimized = session.runner.run(argv, capture=capture)
    return Result(optimized.returncode, result.stderr + optimized.stderr)


def _emit_ir(session: Session, inp: Input, level: list[str], registers: bool, out: str,
             dep: DepFile | None, capture: bool) -> Result:
    """The IR of a source (preprocessed as at the user's -O level) or of an IR input.

    A unit that may register derivatives gets `-femit-all-decls` and Enzyme's
    attributes as clang annotations (`registers`, see `preserve`).
    """
    inv = session.inv
    if inp.kind == InputKind.IR:  # preprocessing flags are moot
        source = irinput.prepared_input(inp.path, out + ".markers.ll")
        renamed = (source, inp.path) if source != inp.path else None
        argv = [session.compiler, *session.common_flags(), *level, "-emit-llvm", "-c",
                *lang_flags(inp), source, "-o", out]
        return _run_frontend(session, argv, capture, renamed)
    enzyme_attributes.check_source(inp.path)
    # The user's -D/-U come after the level macros, so they still win.
    macros = level_macro_flags(inv.opt, level[0])
    color = ["-fcolor-diagnostics"] if capture and _wants_color(inv.flags) else []
    emit_all = preserve.EMIT_ALL_DECLS if registers else []
    if registers:  # the unit may use Enzyme's attributes: make them clang annotations
        macros = [*macros, *enzyme_attributes.ATTRIBUTE_MACROS]
    argv = [session.compiler, *macros, *session.common_flags(), *session.include_flags(),
            *inv.frontend_flags, *color, *level, *emit_all, "-emit-llvm", "-c",
            *lang_flags(inp), inp.path, "-o", out, *(dep.flags if dep else [])]
    return _run_frontend(session, argv, capture, None)


def _run_frontend(session: Session, argv: list[str], capture: bool,
                  renamed: tuple[str, str] | None) -> Result:
    """Run a frontend command; diagnostics about a rewritten IR input (`renamed`:
    the file compiled, the user's file) name the user's file."""
    if renamed is None:
        return session.runner.run(argv, capture=capture)
    result = session.runner.run(argv, capture=True)
    stderr = result.stderr.replace(os.fsencode(renamed[0]), os.fsencode(renamed[1]))
    if not capture:
        sys.stderr.buffer.write(stderr)
        sys.stderr.flush()
        stderr = b""
    return Result(result.returncode, stderr)


def codegen(session: Session, module: str, out: str, assembly: bool,
            embed: str | None = None) -> None:
    """IR -> object (or assembly) at the user's -O level with the full pipeline.

    Sanitizer flags apply here: the frontend left the IR uninstrumented so that
    AD saw plain code, and clang instruments it now (the derivatives included).

    `embed` is bitcode to store in the object's `.llvmbc`. When it is the module being
    compiled, clang's cc1 embeds its input file as is (`-Xclang -fembed-bitcode=all`,
    unlike the driver's -fembed-bitcode, which would embed the -O2-optimized module);
    otherwise llvm-objcopy-22 adds it afterwards.
    """
    in_place = ["-Xclang", "-fembed-bitcode=all"] if embed == module else []
    argv = [session.compiler, *session.common_flags(), *session.opt_flags(), *in_place,
            "-S" if assembly else "-c", "-x", "ir", module, "-o", out]
    with session.times.stage("codegen"):
        session.runner.check(argv)
    if embed is not None and embed != module:
        with session.times.stage("embed"):
            session.runner.check([OBJCOPY, "--add-section", f"{BITCODE_SECTION}={embed}", out])


def native_compile(session: Session, inp: Input, out: str, assembly: bool,
                   capture: bool) -> Result:
    """Inputs enzc does not lower to IR (assembly, headers, ...): plain clang."""
    argv = [session.compiler, *session.common_flags(), *session.include_flags(),
            *session.inv.frontend_flags, *session.opt_flags(), "-S" if assembly else "-c",
            *lang_flags(inp), inp.path, "-o", out]
    return session.runner.run(argv, capture=capture)


def link(session: Session, args: Sequence[str], out: str) -> None:
    """The final link with clang-22/clang++-22: user flags, then the link line."""
    argv = [session.linker, *session.common_flags(), *session.opt_flags(), *args, "-o", out]
    with session.times.stage("link"):
        session.runner.check(argv)


def run_jobs(session: Session, jobs: Sequence[Callable[[bool], tuple[Result, T]]]) -> list[T]:
    """Run jobs in parallel; replay each one's stderr in order; fail if any failed.

    A job gets `capture` (True when several run at once) and returns its tool result
    plus a value. Like cc, all jobs run even if one fails, so every error is shown.
    If enzcc itself is interrupted, the running tools are stopped before the pool is
    waited for.
    """
    capture = len(jobs) > 1
    pool = ThreadPoolExecutor(max_workers=max(1, min(len(jobs), os.cpu_count() or 1)))
    try:
        futures = [pool.submit(job, capture) for job in jobs]
        wait(futures)
    except BaseException:
        session.runner.terminate_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    failed = 0
    for future in futures:
        if future.exception() is not None:
            continue
        result, _ = future.result()
        sys.stderr.buffer.write(result.stderr)
        failed = failed or result.returncode
    sys.stderr.flush()
    for future in futures:  # an enzc error in a job (e.g. from the AD stage)
        if (error := future.exception()) is not None:
            raise error
    if failed:
        raise ToolFailed(failed)
    return [future.result()[1] for future in futures]


def _wants_color(flags: Sequence[str]) -> bool:
    """Keep clang's colours when its stderr is captured for in-order replay."""
    return sys.stderr.isatty() and not any(f.startswith(_COLOR_FLAGS) for f in flags)
