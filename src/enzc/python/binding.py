"""Matching Python arguments to C parameters: positions, names, `wrt` selections."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from enzc.python.ctype import Pointer, Scalar
from enzc.python.signature import Signature
from enzc.python.wrappers import RESULT


def bind(sig: Signature, args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
    """The arguments in parameter order; TypeError for a wrong count or name."""
    names = [p.name for p in sig.params]
    if len(args) > len(names):
        raise TypeError(f"{sig.name}() takes {len(names)} argument"
                        f"{'s' if len(names) != 1 else ''} ({', '.join(names)}), "
                        f"{len(args) + len(kwargs)} given")
    bound: list[Any] = list(args) + [_MISSING] * (len(names) - len(args))
    for key, value in kwargs.items():
        index = sig.param_index(key)
        if index is None:
            raise TypeError(f"{sig.name}() has no parameter '{key}' (parameters: "
                            f"{', '.join(names)})")
        if bound[index] is not _MISSING:
            raise TypeError(f"{sig.name}() got multiple values for argument '{key}'")
        bound[index] = value
    missing = [names[i] for i, value in enumerate(bound) if value is _MISSING]
    if missing:
        raise TypeError(f"{sig.name}() missing argument{'s' if len(missing) > 1 else ''}: "
                        f"{', '.join(missing)}")
    return bound


def differentiable_inputs(sig: Signature) -> list[str]:
    """Parameters a derivative can be taken with respect to (floating scalars/arrays)."""
    return [p.name for p in sig.params if _floating(p.ctype)]


def outputs(sig: Signature) -> list[str]:
    """Floating outputs: arrays C writes, and the result (RESULT) if floating."""
    found = [p.name for p in sig.params if p.written and _floating(p.ctype)]
    if isinstance(sig.result, Scalar) and sig.result.is_float:
        found.append(RESULT)
    return found


def input_name(sig: Signature, key: str | int, what: str) -> str:
    """A `wrt`-style selection (name or position) as a differentiable parameter name."""
    if isinstance(key, int) and not isinstance(key, bool):
        if not -len(sig.params) <= key < len(sig.params):
            raise ValueError(f"{sig.name}(): {what} position {key} is out of range "
                             f"({len(sig.params)} parameters)")
        key = sig.params[key].name
    if not isinstance(key, str):
        raise TypeError(f"{sig.name}(): {what} takes parameter names or positions, "
                        f"not {type(key).__name__}")
    allowed = differentiable_inputs(sig)
    if key not in allowed:
        kind = "not a parameter" if sig.param_index(key) is None else \
            "not a floating-point scalar or array"
        raise ValueError(f"{sig.name}(): {what} '{key}' is {kind} (differentiable "
                         f"parameters: {', '.join(allowed) or 'none'})")
    return key


def output_name(sig: Signature, key: str | int, what: str) -> str:
    """An output selection: RESULT or a written floating array (name or position)."""
    count = len(sig.params)
    if isinstance(key, int) and not isinstance(key, bool) and -count <= key < count:
        key = sig.params[key].name
    allowed = outputs(sig)
    if key not in allowed:
        raise ValueError(f"{sig.name}(): {what} '{key}' is not an output (outputs: "
                         f"{', '.join(allowed) or 'none'}; an output is the floating result, "
                         "'return', or a floating array the C code writes)")
    return str(key)


def _floating(ctype: object) -> bool:
    element = ctype.element if isinstance(ctype, Pointer) else ctype
    return isinstance(element, Scalar) and element.is_float


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()
