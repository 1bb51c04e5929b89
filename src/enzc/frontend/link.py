"""Link mode: sources -> IR, collect all IR of the program, merge, O2*, AD, codegen, link.

The frontends run in parallel; meanwhile a thread imports llvmlite and pyelftools
(together ~150 ms) so the in-process stages start warm. Everything that runs LLVM
in-process on the user's IR (objects' `.llvmbc`, archive members, `.ll`/`.bc` inputs)
runs in a forked child (`enzc.isolation`): corrupted bitcode that crashes LLVM gives
an `enzcc: error:` naming the input, not a dead enzcc.
"""

from __future__ import annotations

import importlib
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

from enzc import isolation

import enzc.frontend.middle as middle
import enzc.frontend.steps as steps
from enzc.frontend.args import Input, InputKind
from enzc.frontend.deps import DepFile, dependency_file
from enzc.frontend.runner import Result
from enzc.frontend.session import Session
from enzc.frontend.timing import StageTimes
from enzc.frontend.toolchain import default_library_dirs
from enzc.lto import irmodule
from enzc.lto.collect import CompiledSource, InputFile, IRUnit, Library, LinkItem, collect

_WARM_MODULES = ("llvmlite.binding", "elftools.elf.elffile")


def link_program(session: Session) -> None:
    """Build the executable (or shared library) named by -o (default a.out)."""
    inv = session.inv
    warm_up = threading.Thread(target=_warm_up, daemon=True)
    warm_up.start()
    with ThreadPoolExecutor(max_workers=1) as helper:
        lib_dirs: Future[list[str]] | None = None
        if any(isinstance(item, Library) for item in inv.items):
            lib_dirs = helper.submit(default_library_dirs, session.runner)
        items, dep_files = _compile_sources(session)
        default_dirs = lib_dirs.result() if lib_dirs else []
    warm_up.join()  # no other thread may run at the fork
    merged = isolation.run_isolated(partial(_merge_program_ir, session, items, default_dirs),
                                    tool=inv.tool_name)
    for stage, seconds in merged.seconds.items():
        session.times.add(stage, seconds)
    link_args = merged.link_args
    if merged.bitcode is not None:
        merged_object = session.temp("merged.o")
        steps.codegen(session, merged.bitcode, merged_object, assembly=False)
        link_args.insert(merged.position, merged_object)
    built = session.temp("a.out")
    steps.link(session, link_args, built)
    for dep in dep_files:
        session.publish(dep.built, dep.destination)
    session.publish(built, inv.output or "a.out")


def _warm_up() -> None:
    for name in _WARM_MODULES:
        importlib.import_module(name)
    irmodule.initialize_llvm()


def _compile_sources(session: Session) -> tuple[list[LinkItem], list[DepFile]]:
    """Run the frontends; return the link line with sources replaced by their IR/objects."""
    inv = session.inv
    items: list[LinkItem] = []
    jobs = []
    slots: list[int] = []
    for number, item in enumerate(inv.items):
        if not isinstance(item, Input):
            items.append(item)
        elif item.kind in (InputKind.IR, InputKind.LINKER):
            items.append(InputFile(item.readable))
        else:
            slots.append(len(items))
            items.append(InputFile(""))  # placeholder, filled below
            jobs.append(partial(_compile_source, session, number, item))
    dep_files: list[DepFile] = []
    with session.times.stage("frontend"):
        results = steps.run_jobs(session, jobs) if jobs else []
    for slot, (item, dep) in zip(slots, results):
        items[slot] = item
        if dep is not None:
            dep_files.append(dep)
    return items, dep_files


def _compile_source(session: Session, number: int, inp: Input,
                    capture: bool) -> tuple[Result, tuple[LinkItem, DepFile | None]]:
    stem = session.stem(number, inp)
    if inp.kind == InputKind.NATIVE_SOURCE:
        obj = session.temp(stem + ".o")
        return steps.native_compile(session, inp, obj, False, capture), (InputFile(obj), None)
    bitcode = session.temp(stem + ".bc")
    dep = dependency_file(session.inv.deps, inp.path, session.inv.output,
                          session.temp(stem + ".d"))
    result = steps.frontend(session, inp, bitcode, dep, capture)
    return result, (CompiledSource(bitcode, inp.path), dep)


@dataclass(frozen=True)
class _MergedIR:
    """What the isolated child hands back: the link line and the merged module."""

    link_args: list[str]
    position: int
    """Where in `link_args` the object compiled from `bitcode` goes."""
    bitcode: str | None
    """The merged, optimized and differentiated module; None if no input had IR."""
    seconds: dict[str, float]
    """Time per stage spent in the child, for --enzc-time."""


def _merge_program_ir(session: Session, items: list[LinkItem],
                      default_dirs: list[str]) -> _MergedIR:
    """Runs isolated: collect the program's IR as ld would, merge, optimize, differentiate."""
    inv = session.inv
    session.times = StageTimes()  # the child's own; the parent adds them up
    with session.times.stage("collect"):
        found = collect(items, lib_dirs=inv.lib_dirs, static=inv.static,
                        default_lib_dirs=lambda: default_dirs,
                        required=inv.required_symbols, workdir=session.tmp)
    bitcode = None
    if found.ir:
        bitcode = _merge_units(session, found.ir, found.native_undefined)
    return _MergedIR(found.link_args, found.merged_position, bitcode, session.times.seconds())


def _merge_units(session: Session, units: list[IRUnit], keep: set[str]) -> str:
    """Merge the units' IR, optimize and differentiate it; return the bitcode file."""
    every_noinline = session.inv.enzc.ad_before_opt
    with session.times.stage("link-ir"):
        modules = []
        for unit in units:
            module = unit.module if unit.module is not None else \
                irmodule.parse_module(unit.data or b"", unit.label)
            if unit.from_object or every_noinline:
                module = irmodule.strip_o0_attributes(module, unit.label, every_noinline)
            modules.append((module, unit.label))
        merged = irmodule.link_modules(modules)
        irmodule.keep_symbols(merged, keep)
    middle.optimize(session, merged)
    lowered = middle.differentiate(session, merged, "merged", "the merged program")
    bitcode = session.temp("merged.bc")
    with session.times.stage("codegen"):
        middle.write_bitcode(lowered.module, bitcode)
    return bitcode
