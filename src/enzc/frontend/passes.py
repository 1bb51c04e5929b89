"""Optimization pipelines run in-process on a module before AD (llvmlite, new PM)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from enzc.errors import EnzcError
from enzc.lto.irmodule import initialize_llvm, module_triple

if TYPE_CHECKING:
    from llvmlite.binding import ModuleRef, PassBuilder, TargetMachine


def _target_machine(module: ModuleRef) -> TargetMachine:
    """A target machine for the module's triple; cost models come from it."""
    import llvmlite.binding as llvm

    initialize_llvm()
    triple = module_triple(module) or llvm.get_default_triple()
    try:  # a damaged object's IR can name any triple; LLVM knows only ASCII ones
        target = llvm.Target.from_triple(triple) if triple.isascii() else None
    except RuntimeError:
        target = None
    if target is None:
        shown = triple.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
        raise EnzcError(f"enzcc: error: the IR to optimize is for the target triple "
                        f"'{shown}', for which LLVM has no target (is an input damaged?)")
    return target.create_target_machine(opt=2, reloc="pic")


def _pass_builder(module: ModuleRef, *, speed: int, o2_star: bool) -> PassBuilder:
    import llvmlite.binding as llvm

    tuning = llvm.PipelineTuningOptions(speed_level=speed)
    if o2_star:
        tuning.loop_vectorization = False
        tuning.slp_vectorization = False
        tuning.loop_unrolling = False
        tuning.loop_interleaving = False
    return llvm.PassBuilder(_target_machine(module), tuning)


def run_o2_star(module: ModuleRef) -> None:
    """LLVM's default -O2 module pipeline without vectorization, interleaving and
    unrolling (O2*), restricted by pass-builder options only: no loop metadata is
    added, so the final -O level still unrolls and vectorizes every loop the user did
    not annotate.

    Run on the merged module so inlining and interprocedural passes work across
    translation units before AD, as on each translation unit at compile time.
    """
    builder = _pass_builder(module, speed=2, o2_star=True)
    builder.getModulePassManager().run(module, builder)


def run_pre_ad(module: ModuleRef, clang_level: str | None = None) -> None:
    """Optimize a module before AD: O2*, or with `clang_level` ('-O0' or '-O1', a
    sanitizer build: `Session.sanitizer_level`) the passes clang itself runs at that
    level before it instruments: none at -O0, the -O1 pipeline at -O1."""
    if clang_level is None:
        run_o2_star(module)
    elif clang_level == "-O1":
        builder = _pass_builder(module, speed=1, o2_star=False)
        builder.getModulePassManager().run(module, builder)


def run_ad_cleanup(module: ModuleRef) -> None:
    """--enzc-ad-before-opt: only promote allocas to SSA values (SROA), nothing more.

    AD wants SSA values rather than stack slots; every other optimization waits until
    after AD, which is the point of that pipeline.
    """
    import llvmlite.binding as llvm

    builder = _pass_builder(module, speed=0, o2_star=False)
    manager = llvm.create_new_module_pass_manager()
    manager.add_sroa_pass()
    manager.run(module, builder)
