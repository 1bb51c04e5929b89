"""The values LLVM 22's verifier allows for the string attributes it knows (`"k"="v"`
on functions and calls); any other string attribute may hold anything."""

from __future__ import annotations

import re

_DENORMAL_MODES = frozenset(("", "ieee", "preserve-sign", "positive-zero", "dynamic"))
_CHOICES = {
    "frame-pointer": frozenset(("none", "non-leaf", "non-leaf-no-reserve", "reserved", "all")),
    "sign-return-address": frozenset(("none", "all", "non-leaf")),
    "sign-return-address-key": frozenset(("a_key", "b_key")),
    "branch-target-enforcement": frozenset(("", "true", "false")),
    **{key: frozenset(("", "true", "false")) for key in (
        "less-precise-fpmad", "no-infs-fp-math", "no-nans-fp-math", "no-signed-zeros-fp-math")},
}
_UNSIGNED = ("patchable-function-prefix", "patchable-function-entry", "warn-stack-size")
_UNSIGNED_32 = re.compile(r"\d+\Z")


def string_attribute_problem(key: str, value: str) -> str | None:
    """Why LLVM rejects `"key"="value"` as a function attribute, or None."""
    if key in _CHOICES and value not in _CHOICES[key]:
        return f"invalid value for '{key}' attribute: {value[:40]}"
    if key in ("denormal-fp-math", "denormal-fp-math-f32"):
        output, _, input_ = value.partition(",")
        if output not in _DENORMAL_MODES or input_ not in _DENORMAL_MODES:
            return f"invalid value for '{key}' attribute: {value[:40]}"
    if key in _UNSIGNED and not (_UNSIGNED_32.match(value) and int(value) < 1 << 32):
        return f'"{key}" takes an unsigned integer: {value[:40]}'
    if key == "patchable-function-entry-section" and not value:
        return '"patchable-function-entry-section" must not be empty'
    if key == "modular-format":
        fields = value.split(",")
        if len(fields) < 5:
            return "modular-format attribute requires at least 5 arguments"
        if not (_UNSIGNED_32.match(fields[2]) and int(fields[2]) < 1 << 32):
            return "modular-format attribute first arg index is not an integer"
    return None
