"""Derivative rules: what the derivative of a call or an operation is.

    dsl            the rule language (`D("y * pow(x, y - 1)", ...)`), parsed once, emitted as IR
    table          the table of libm functions and LLVM intrinsics; `rule_for`, `has_rule`
    complex        C99 complex arithmetic (`__muldc3`, `cexp`, ...)
    custom         user-supplied derivatives (`__enzyme_register_gradient_*`)
    reuse          a rule's `cos(x)` taken from the forward pass when it computed one
    library_hints  what to tell the user about libraries without derivatives
"""

from enzc.ad.rules.dsl import D, Rule
from enzc.ad.rules.table import TABLE, has_rule, rule_for

__all__ = ["D", "Rule", "TABLE", "has_rule", "rule_for"]
