"""The Python API: C/C++ functions as NumPy callables with derivatives (docs/python.md).

Public API: `load(source=None, files=(), flags=(), lang="c") -> Library`; a Library's
attributes are `Function`s with `grad`, `value_and_grad`, `vjp`, `jvp`, `jacobian`.
Errors: `CompileError` (the compiler's diagnostics), `DifferentiationError`.
"""

from enzc.python.build import CompileError
from enzc.python.library import DifferentiationError, Function, Library, load

__all__ = ["CompileError", "DifferentiationError", "Function", "Library", "load"]
