"""The annotations that tell the engine how to treat a function, as the engine reads them.

They come from IR inputs directly or from C registrations (`enzc.ad.markers` writes
them at the start of the AD stage):

    "enzyme_inactive"              function attribute: calls carry no derivative
    "enzyme_math"="log1p"          function attribute: differentiate like that function
    !enzyme_augment !{ptr @aug}    with !enzyme_gradient !{ptr @rev}: a custom derivative
    !enzyme_derivative !{ptr @fwd} a user forward derivative

Globals' annotations (`!enzyme_shadow`, `!enzyme_inactive`) are read in `globals_shadow`.
"""

from __future__ import annotations

from enzc.ir.module import Function, Module

from enzc.ad.analysis.globals_shadow import metadata_target

INACTIVE_ATTR = '"enzyme_inactive"'
MATH_ATTR = '"enzyme_math"'
AUGMENT_KIND = "enzyme_augment"
GRADIENT_KIND = "enzyme_gradient"
DERIVATIVE_KIND = "enzyme_derivative"


def math_name(fn: Function | None) -> str | None:
    """The known function `fn` behaves like (`__enzyme_function_like`), if any."""
    if fn is None:
        return None
    prefix = MATH_ATTR + "="
    for a in fn.fn_attrs:
        if a.startswith(prefix):
            return a[len(prefix):].strip('"')
    return None


def is_inactive_function(fn: Function | None) -> bool:
    return fn is not None and INACTIVE_ATTR in fn.fn_attrs


def has_custom_gradient(fn: Function | None) -> bool:
    return fn is not None and GRADIENT_KIND in fn.metadata


def forward_derivative_of(module: Module, fn: Function | None) -> Function | None:
    """The user's forward derivative of `fn` (`!enzyme_derivative`), if any."""
    target = metadata_target(module, fn.metadata.get(DERIVATIVE_KIND)) if fn is not None else None
    return target if isinstance(target, Function) else None
