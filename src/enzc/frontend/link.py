"""Link mode: sources -> IR, collect all IR of the program, merge, O2*, AD, codegen, link.

The frontends run in parallel; meanwhile a thread imports llvmlite and pyelftools
(together ~150 ms) so the in-process stages start warm.
"""

from __future__ import annotations

import importlib
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial

from enzc.frontend import middle, steps
from enzc.frontend.args import Input, InputKind
from enzc.frontend.deps import DepFile, dependency_file
from enzc.frontend.runner import Result
from enzc.frontend.session import Session
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

        with session.times.stage("collect"):
            warm_up.join()  # LLVM's global state is not to be shared between threads
            found = collect(items, lib_dirs=inv.lib_dirs, static=inv.static,
                            default_lib_dirs=lambda: lib_dirs.result() if lib_dirs else [],
                            required=inv.required_symbols, workdir=session.tmp)
    link_args = found.link_args
    if found.ir:
        merged_object = _build_merged_object(session, found.ir, found.native_undefined)
        link_args.insert(found.merged_position, merged_object)
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


def _build_merged_object(session: Session, units: list[IRUnit], keep: set[str]) -> str:
    """Merge the units' IR, optimize, differentiate and compile it into one object."""
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
    bitcode, obj = session.temp("merged.bc"), session.temp("merged.o")
    with session.times.stage("codegen"):
        middle.write_bitcode(lowered.module, bitcode)
    steps.codegen(session, bitcode, obj, assembly=False)
    return obj
