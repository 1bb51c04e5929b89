"""Keep functions with registered derivatives callable until AD.

A function named in `__enzyme_register_gradient_*`, `__enzyme_inactivefn` or
`__enzyme_function_like` must still be *called* when the AD stage runs: once the
optimizer inlines it, its call (and with it the custom derivative, the
inactivity or the rule) is gone and its body would be differentiated instead.
clang's -O2 inlines such small functions in the translation unit that defines
them, so a unit whose bitcode mentions a registration is compiled again without
LLVM passes, the registered functions are marked `noinline`, and O2* runs
in-process (the same pipeline, now honouring the mark). Units without
registrations (almost all) pay nothing but a byte search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enzc.ad.markers import FUNCTION_LIKE, INACTIVE_FN, REGISTER_GRADIENT, functions_to_keep
from enzc.lto import irmodule

if TYPE_CHECKING:
    from llvmlite.binding import ModuleRef

_MARKS = tuple(m.encode() for m in (REGISTER_GRADIENT, INACTIVE_FN, FUNCTION_LIKE))

UNOPTIMIZED = ["-Xclang", "-disable-llvm-passes"]
"""Added to the frontend's O2* command: IR as -O2 would start optimizing it."""


def registers_functions(bitcode_path: str) -> bool:
    """Whether the bitcode may define a registration (a byte search, no parsing)."""
    with open(bitcode_path, "rb") as f:
        data = f.read()
    return any(m in data for m in _MARKS)


def optimize_keeping_registered(bitcode_path: str, label: str) -> None:
    """Mark the registered functions of unoptimized bitcode `noinline`, run O2*,
    write the result back."""
    from enzc.frontend.passes import run_o2_star

    with open(bitcode_path, "rb") as f:
        data = f.read()
    with irmodule.LLVM_LOCK:
        module = irmodule.parse_module(data, label)
        mark_registered_noinline(module)
        run_o2_star(module)
        out = module.as_bitcode()
    with open(bitcode_path, "wb") as f:
        f.write(out)


def mark_registered_noinline(module: ModuleRef) -> None:
    """Add `noinline` to the functions the module's registrations name (the merged
    module gets this too: IR inputs and objects built elsewhere skip the frontend)."""
    globals_text = [(gv.name, str(gv)) for gv in module.global_variables if gv.name.startswith("__enzyme_")]
    for name in functions_to_keep(globals_text):
        try:
            fn = module.get_function(name)
        except NameError:
            continue
        attrs = set(next(iter(fn.attributes), b"").split())
        if b"alwaysinline" not in attrs and b"noinline" not in attrs:
            fn.add_function_attribute("noinline")
