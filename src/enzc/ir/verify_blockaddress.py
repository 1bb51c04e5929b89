"""LLVM's rules for `blockaddress(@f, %bb)` constants, which enzc.ir keeps as text:
`@f` names a function (not a variable or alias) with a body, `%bb` is one of its
blocks, and not its entry block."""

from __future__ import annotations

import re
from collections.abc import Iterator

from enzc.ir.module import Function, Module
from enzc.ir.names import unquote_name
from enzc.ir.printer import Slots
from enzc.ir.values import ConstantAggregate, ConstantExpr, ConstantSplat, RawConstant, Value

_NAME = r'(?:"[^"]*"|[-\w$.]+)'
_BLOCKADDRESS = re.compile(rf"blockaddress\(@({_NAME}),\s*%({_NAME})\)")


def blockaddress_problems(constant: Value, module: Module) -> list[str]:
    """Why LLVM rejects the blockaddresses inside `constant` (the named function's
    body is parsed if it was kept as text)."""
    problems = []
    for text in _texts(constant):
        for m in _BLOCKADDRESS.finditer(text):
            fn = module.functions.get(unquote_name("@" + m.group(1)))
            if fn is None:
                problems.append(f"expected function name in blockaddress: {m.group()}")
            elif fn.is_declaration:
                problems.append(f"cannot take blockaddress inside a declaration: {m.group()}")
            else:
                problems += _block_problems(fn, unquote_name("%" + m.group(2)), m.group())
    return problems


def _block_problems(fn: Function, block: str, text: str) -> list[str]:
    blocks = fn.blocks  # parse a lazily kept body first: Slots numbers parsed blocks only
    slots = Slots(fn)
    names = [slots.refs.get(id(b), "")[1:] for b in blocks]
    spelled = [unquote_name("%" + n) for n in names]
    if block not in spelled:
        return [f"use of undefined value '%{block}' in {text}"]
    if spelled.index(block) == 0:
        return [f"blockaddress may not be used with the entry block: {text}"]
    return []


def _texts(value: Value) -> Iterator[str]:
    """The spellings that may hold a blockaddress: raw constants and constant
    expressions (kept as text), inside aggregates and splats."""
    match value:
        case RawConstant():
            yield value.ref()
        case ConstantExpr():
            yield value.ref()
        case ConstantAggregate():
            for element in value.elements:
                yield from _texts(element)
        case ConstantSplat():
            yield from _texts(value.element)
