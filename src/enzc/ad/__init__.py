"""The AD stage: lower `__enzyme_*` calls in a module to synthesized derivatives.

`run_ad_stage` is the single entry point the driver calls between the O2* pipeline
and code generation.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzc.ad.diagnostics import ADError
from enzc.errors import EnzcError


@dataclass(frozen=True)
class ADOptions:
    """Switches from the command line that change what the AD stage prints or does."""

    print_activity: bool = False
    """Print the activity analysis of each differentiated function to stderr."""
    print_gradient: bool = False
    """Print each synthesized derivative function's IR to stderr."""
    print_cache: bool = False
    """Print the tape/cache bytes each derivative allocates."""
    tape_stats: bool = False
    """Make each derivative count its calls and cache bytes, printed at program exit."""
    auto_shadow: bool = True
    """Give globals of plain data (no pointers) that differentiated code writes a shadow of enzc's own
    (`--enzc-no-auto-shadow` turns it off: such a write is then a compile-time error)."""
    runtime_activity: bool = False
    """Enzyme's runtime activity for every entry call (`--enzc-runtime-activity`, as the
    `enzyme_runtime_activity` marker does for one call): a pointer without a shadow
    gets its primal as shadow, and derivative code skips shadow memory equal to it."""
    verify: bool = False
    """Run enzc.ir's verifier on the result (--enzc-verify, ENZC_VERIFY=1): a bug in
    the AD stage is then reported by function and instruction before LLVM sees it."""


ENTRY_POINT_MARK = "__enzyme_"


def run_ad_stage(module_text: str, options: ADOptions = ADOptions()) -> str:
    """Return `module_text` with every `__enzyme_*` entry-point call replaced.

    A module without such calls is returned unchanged (no parse cost).
    """
    if ENTRY_POINT_MARK not in module_text:
        return module_text
    from enzc.ad.pipeline import lower_module
    from enzc.ir import parse_module, print_module  # type: ignore[attr-defined]

    module = parse_module(module_text, lazy=True)
    lowered = lower_module(module, print_activity=options.print_activity, print_gradient=options.print_gradient,
                           print_cache=options.print_cache, tape_stats=options.tape_stats,
                           auto_shadow=options.auto_shadow, runtime_activity=options.runtime_activity)
    if lowered == 0:
        return module_text
    if options.verify:
        from enzc.ir.verifier import VerificationError, verify_module

        try:
            verify_module(module)
        except VerificationError as err:
            raise EnzcError(f"enzc: error: the AD stage produced invalid IR (a bug in enzc):\n"
                          f"{err}") from None
    return print_module(module)


__all__ = ["ADError", "ADOptions", "ENTRY_POINT_MARK", "run_ad_stage"]
