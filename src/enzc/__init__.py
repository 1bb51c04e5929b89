"""enzc: reverse- and forward-mode automatic differentiation of C/C++ on optimized LLVM IR.

`enzc.load(...)` (the Python API, docs/python.md) and the optional `enzc.torch` /
`enzc.jax` adapters are imported on first use, so `enzcc` never pays for NumPy.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {"load": "enzc.python", "Library": "enzc.python", "Function": "enzc.python",
         "CompileError": "enzc.python", "DifferentiationError": "enzc.python"}
_SUBMODULES = ("torch", "jax", "python")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"enzc.{name}")
    raise AttributeError(f"module 'enzc' has no attribute '{name}'")
