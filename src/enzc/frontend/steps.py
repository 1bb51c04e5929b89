"""The clang-22 steps of the pipeline: source -> IR, IR -> object/assembly, link.

Each function builds one command line from the session's flags; `run_jobs` runs
independent steps in parallel with their diagnostics replayed in input order.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TypeVar

import enzc.frontend.enzyme_attributes as enzyme_attributes
import enzc.frontend.irinput as irinput
import enzc.frontend.preserve as preserve
import enzc.frontend.spool as spool
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


@dataclass(frozen=True)
class _Source:
    """What clang is given for an input, and how its messages name the user's file."""

    argument: str
    stdin: bytes | None = None
    """Fed to clang's standard input (for `-`: the copy enzcc read once)."""
    flags: tuple[str, ...] = ()
    renamed: tuple[str, str] | None = None
    """(file clang compiles, the user's name for it): diagnostics show the latter."""


def _source(inp: Input, rewritten_ir: str | None) -> _Source:
    """The input as clang should read it: itself, stdin fed from enzcc's copy, the copy
    of a pipe or device, or (IR) the text with its markers rewritten (`irinput`)."""
    name = "<stdin>" if inp.path == spool.STDIN else inp.path
    if inp.kind == InputKind.IR and rewritten_ir is not None:
        prepared = irinput.prepared_input(inp.readable, rewritten_ir)
        if prepared != inp.readable:
            return _Source(prepared, renamed=(prepared, name))
    if inp.path == spool.STDIN and inp.copy is not None:
        with open(inp.copy, "rb") as f:
            return _Source(inp.path, stdin=f.read())
    if inp.copy is not None:
        return _Source(inp.copy, flags=tuple(spool.copy_flags(inp.path, inp.copy)),
                       renamed=(inp.copy, inp.path))
    return _Source(inp.path)


def frontend(session: Session, inp: Input, bitcode: str, dep: DepFile | None,
             capture: bool) -> Result:
    """Source (or IR) -> bitcode at O2* (or -O0 for --enzc-ad-before-opt).

    Two steps, as `clang -save-temps` takes them: clang emits its IR (at the user's -O
    level, -O2 if it does not optimize) without running LLVM passes, then O2* (-O2
    restricted by pass-builder options, see `passes`)
    optimizes it, by a second clang on that IR (so sources still compile in parallel)
    or in-process when the unit registers derivatives (see `preserve`) or a sanitizer
    instruments it (instrumentation must come after AD: clang only marks the functions,
    `sanitize_address`, ..., and adds the checks at code generation; at -O0/-O1 the
    passes are clang's own for that level, see `Session.sanitizer_level`). One clang
    with -fno-unroll-loops on the source would write `llvm.loop.unroll.disable` on every
    loop and slow down the final code.
    """
    inv = session.inv
    if inv.enzc.ad_before_opt:
        result, _ = _emit_ir(session, inp, O0_OPTIMIZABLE, bitcode, dep)
        return _replay_unless(capture, result)
    unoptimized = bitcode.removesuffix(".bc") + ".noopt.bc"
    sanitizer_level = session.sanitizer_level
    if sanitizer_level == "-O0":
        # Without LLVM's passes: at -O0 clang's pipeline is the sanitizer's own
        # instrumentation, which belongs after AD (code generation adds it).
        level = [*O0_OPTIMIZABLE, *NO_LLVM_PASSES]
    else:
        level = [sanitizer_level or frontend_level(inv.opt), *NO_LLVM_PASSES]
    result, registers = _emit_ir(session, inp, level, unoptimized, dep)
    if result.returncode != 0:
        return _replay_unless(capture, result)
    if registers or session.instruments or preserve.registers_functions(unoptimized):
        preserve.optimize_keeping_registered(unoptimized, bitcode, inp.path, sanitizer_level)
        return _replay_unless(capture, result)
    argv = [session.compiler, *session.common_flags(), *O2_STAR_ON_IR, "-emit-llvm", "-c",
            "-x", "ir", unoptimized, "-o", bitcode]
    optimized = session.runner.run(argv, capture=True)
    return _replay_unless(capture, Result(optimized.returncode, result.stderr + optimized.stderr))


def _emit_ir(session: Session, inp: Input, level: list[str], out: str,
             dep: DepFile | None) -> tuple[Result, bool]:
    """The IR of a source (preprocessed as at the user's -O level) or of an IR input,
    with clang's stderr captured; and whether the unit may register derivatives.

    Such a unit gets `-femit-all-decls` and Enzyme's attributes as clang annotations.
    It is recognized from its source, or else after a first run from the headers
    clang read and the IR it wrote (see `preserve`), and then compiled again.
    """
    source = _source(inp, out + ".markers.ll")
    if inp.kind == InputKind.IR:  # preprocessing flags are moot
        argv = [session.compiler, *session.common_flags(), *level, "-emit-llvm", "-c",
                *lang_flags(inp), source.argument, "-o", out]
        return _run_captured(session, argv, source), False
    enzyme_attributes.check_source(inp.readable, "<stdin>" if inp.path == spool.STDIN else inp.path)
    registers = preserve.source_registers(inp.readable)
    record = None if registers else _header_record(session, out)
    result = _run_captured(session, _source_argv(session, inp, source, level, out, dep,
                                                 registers, record), source)
    if result.returncode == 0 and record is not None and (
            record.names_mark(session.sysroot()) or preserve.registers_functions(out)):
        registers = True  # compile again, keeping the registrations
        result = _run_captured(session, _source_argv(session, inp, source, level, out, dep,
                                                     registers, None), source)
    if result.returncode == 0 and dep is not None and source.renamed is not None:
        spool.restore_dependency_file(dep.built, *source.renamed)
    return result, registers


def _header_record(session: Session, out: str) -> preserve.HeaderRecord:
    """Where the frontend is to record the headers it reads (see `preserve`)."""
    flags = session.inv.flags
    own_listing = "-H" in flags or "--trace-includes" in flags or "CC_PRINT_HEADERS" in os.environ
    return preserve.HeaderRecord(out + ".headers.dot", None if own_listing else out + ".headers.txt",
                                 system_headers=session.inv.deps.mode != "-MMD")


def _source_argv(session: Session, inp: Input, source: _Source, level: list[str], out: str,
                 dep: DepFile | None, registers: bool,
                 record: preserve.HeaderRecord | None) -> list[str]:
    """The command line that emits a source's IR; `registers` selects the
    registration-preserving variant, `record` asks for the headers read."""
    inv = session.inv
    # The user's -D/-U come after the level macros, so they still win.
    macros = level_macro_flags(inv.opt, level[0])
    if registers:  # the unit may use Enzyme's attributes: make them clang annotations
        macros = [*macros, *enzyme_attributes.ATTRIBUTE_MACROS]
    color = ["-fcolor-diagnostics"] if _wants_color(inv.flags) else []
    emit_all = preserve.EMIT_ALL_DECLS if registers else []
    headers = record.flags() if record is not None else []
    return [session.compiler, *macros, *source.flags, *session.common_flags(),
            *session.include_flags(), *inv.frontend_flags, *color, *level, *emit_all, *headers,
            "-emit-llvm", "-c", *lang_flags(inp), source.argument, "-o", out,
            *(dep.flags if dep else [])]


def _run_captured(session: Session, argv: list[str], source: _Source) -> Result:
    """Run a clang step on `source`, its stderr captured, naming the user's file."""
    result = session.runner.run(argv, capture=True, stdin=source.stdin)
    if source.renamed is None:
        return result
    clang_name, user_name = source.renamed
    return Result(result.returncode,
                  result.stderr.replace(os.fsencode(clang_name), os.fsencode(user_name)))


def _replay_unless(capture: bool, result: Result) -> Result:
    """Give the caller the captured stderr, or (not capturing) print it now."""
    if capture:
        return result
    sys.stderr.buffer.write(result.stderr)
    sys.stderr.flush()
    return Result(result.returncode, b"")


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
    source = _source(inp, None)
    argv = [session.compiler, *source.flags, *session.common_flags(), *session.include_flags(),
            *session.inv.frontend_flags, *session.opt_flags(), "-S" if assembly else "-c",
            *lang_flags(inp), source.argument, "-o", out]
    return _replay_unless(capture, _run_captured(session, argv, source))


def link(session: Session, args: Sequence[str], out: str) -> None:
    """The final link with clang-22/clang++-22: user flags, then the link line."""
    argv = [session.linker, *session.common_flags(), *session.opt_flags(), *args, "-o", out]
    with session.times.stage("link"):
        session.runner.check(argv)


def run_jobs(session: Session, jobs: Sequence[Callable[[bool], tuple[Result, T]]]) -> list[T]:
    """Run jobs in parallel; replay each one's stderr in order; fail if any failed.

    A job gets `capture` (True when several run at once) and returns its tool result
    plus a value. Like cc, all jobs run even if one fails, so every error is shown.
    A single job runs in the calling thread (a signal interrupts it at once); if
    enzcc is interrupted while several run, the running tools are stopped and no
    new one starts before the pool is waited for.
    """
    if len(jobs) == 1:
        result, value = jobs[0](False)
        if result.returncode:
            raise ToolFailed(result.returncode)
        return [value]
    capture = True
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
    """Keep clang's colours although its stderr is captured (for in-order replay)."""
    return sys.stderr.isatty() and not any(f.startswith(_COLOR_FLAGS) for f in flags)
