"""Between frontend and codegen: optimize a module for AD, run the AD stage.

The module is optimized in-process (O2*, or only SROA for --enzc-ad-before-opt),
printed to text for `enzc.ad.run_ad_stage`, and the result parsed back (which also
verifies it) and written as bitcode for clang. A module that names no `__enzyme_`
global skips printing, AD and parsing: the AD stage would return it unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from enzc.ad import ENTRY_POINT_MARK, run_ad_stage
from enzc.errors import EnzcError
import enzc.frontend.ad_cache as ad_cache
from enzc.frontend.passes import run_ad_cleanup, run_pre_ad
from enzc.frontend.preserve import keep_registrations, mark_registered_noinline
from enzc.frontend.session import Session
from enzc.isolation import step
from enzc.lto import irmodule

if TYPE_CHECKING:
    from llvmlite.binding import ModuleRef


@dataclass
class Lowered:
    """A module ready for codegen."""

    module: ModuleRef
    ad_text: str | None
    """The AD stage's output text when it changed the module (for -S -emit-llvm)."""

    def text(self) -> str:
        """The module as textual IR."""
        return self.ad_text if self.ad_text is not None else irmodule.module_text(self.module)


def names_entry_points(module: ModuleRef) -> bool:
    """True if a function or global of `module` has `__enzyme_` in its name."""
    return any(ENTRY_POINT_MARK in irmodule.value_name(value)
               for value in (*module.functions, *module.global_variables))


def optimize(session: Session, module: ModuleRef) -> None:
    """The pre-AD pipeline: O2*, SROA only with --enzc-ad-before-opt, clang's own
    pipeline for a sanitizer build at -O0/-O1."""
    step("promoting allocas (SROA)" if session.inv.enzc.ad_before_opt else "running O2*")
    with session.times.stage("O2*"):
        if session.inv.enzc.ad_before_opt:
            run_ad_cleanup(module)
        else:
            keep_registrations(module)
            mark_registered_noinline(module)
            run_pre_ad(module, session.sanitizer_level)


def differentiate(session: Session, module: ModuleRef, stem: str, label: str) -> Lowered:
    """Run the AD stage on an optimized module (skipped when it names no entry point).

    `stem` names the kept intermediate files, `label` the module in messages.
    """
    if session.inv.enzc.keep_temps is not None:
        session.keep_text(f"{stem}.pre-ad.ll", irmodule.module_text(module))
    if not names_entry_points(module):
        return Lowered(module, None)
    with session.times.stage("print"):
        text = irmodule.module_text(module)
    step("running the AD stage")
    with session.times.stage("AD"):
        result = ad_cache.differentiate(run_ad_stage, text, session.inv.enzc.ad,
                                        session.inv.enzc.cache)
    if result == text:
        return Lowered(module, None)
    session.keep_text(f"{stem}.post-ad.ll", result)
    with session.times.stage("parse"):
        try:
            step("reading the AD stage's output")
            after = irmodule.parse_module(result.encode("utf-8", "surrogateescape"),
                                          f"{label} after AD")
        except irmodule.IRError as err:
            raise EnzcError(f"{err} -- the AD stage produced invalid IR; this is a bug in "
                            "enzc (--enzc-keep-temps DIR keeps the module)") from None
    return Lowered(after, result)


def write_bitcode(module: ModuleRef, path: str) -> None:
    """Serialize `module` for clang."""
    with open(path, "wb") as f:
        f.write(module.as_bitcode())
