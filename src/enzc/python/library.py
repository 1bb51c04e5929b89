"""`enzc.load` and the objects it returns: a Library of callable C Functions."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any

from enzc.errors import EnzcError
from enzc.python import derivatives
from enzc.python.binding import bind, differentiable_inputs, input_name, output_name, outputs
from enzc.python.build import CompileError, Request
from enzc.python.cache import Entry, load_or_build
from enzc.python.ctype import Scalar, describe
from enzc.python.signature import Signature
from enzc.python.wrappers import (
    FWD_PREFIX,
    RESULT,
    REV_PREFIX,
    grad_prefix,
    has_grad_wrapper,
    single_grad_params,
)

_LOADED: dict[str, Library] = {}
_LOCK = threading.Lock()


class DifferentiationError(EnzcError):
    """enzc cannot differentiate this function; the message has enzcc's diagnostics."""


def load(source: str | None = None, files: Iterable[str | os.PathLike[str]] = (),
         flags: Iterable[str] = (), lang: str = "c") -> Library:
    """Compile C/C++ `source` text and/or `files` (sources, .ll/.bc, objects, static
    libraries) with `flags` into a library of Python-callable functions with
    derivatives. Cached on disk: loading the same code again builds nothing."""
    if lang not in ("c", "c++"):
        raise ValueError(f"enzc.load: lang must be 'c' or 'c++', not {lang!r}")
    if source is None and not files:
        raise ValueError("enzc.load: give C/C++ source text or files")
    if source is not None and not isinstance(source, str):
        raise TypeError(f"enzc.load: source must be a str, not {type(source).__name__}")
    paths = []
    for f in files:
        path = os.path.abspath(os.fspath(f))
        if not os.path.isfile(path):
            raise FileNotFoundError(f"enzc.load: no such file: '{os.fspath(f)}'")
        paths.append(path)
    if isinstance(flags, str):
        raise TypeError("enzc.load: flags is a sequence of strings, e.g. ['-O3', '-DN=4']")
    request = Request(source, tuple(paths), tuple(flags), lang)
    with _LOCK:
        entry, module = load_or_build(request, _import)
        if entry.key not in _LOADED:
            _LOADED[entry.key] = Library(entry, module)
        return _LOADED[entry.key]


def _import(entry: Entry) -> ModuleType:
    loader = importlib.machinery.ExtensionFileLoader(entry.module_name, str(entry.library))
    spec = importlib.util.spec_from_file_location(entry.module_name, entry.library, loader=loader)
    assert spec is not None
    try:
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except ImportError as err:
        raise CompileError(f"enzc.load: the built library does not load: {err} (a function "
                           "it calls is not defined: pass the file or library defining it, "
                           "or -lNAME in flags)") from None
    return module


class Library:
    """The functions of one `enzc.load`, as attributes: `lib.energy(x, n)`."""

    def __init__(self, entry: Entry, module: ModuleType) -> None:
        self.path = str(entry.library)
        """The shared object (in the cache)."""
        self._functions: dict[str, Function] = {}
        self._unsupported: dict[str, str] = {}
        differentiable = set(entry.manifest["differentiable"])
        errors = entry.manifest["derivative_errors"]
        for sig in entry.signatures:
            if sig.unsupported is not None:
                self._unsupported[sig.name] = f"{sig.where}: {sig.unsupported}"
                continue
            derivs = None
            if sig.name in differentiable:
                grads = {i: getattr(module, grad_prefix(i) + sig.name)
                         for i in [None, *single_grad_params(sig)] if has_grad_wrapper(sig)}
                derivs = (getattr(module, REV_PREFIX + sig.name),
                          getattr(module, FWD_PREFIX + sig.name), grads)
            self._functions[sig.name] = Function(sig, getattr(module, sig.name), derivs,
                                                 errors.get(sig.name))
            if not hasattr(type(self), sig.name):  # `lib.f` without a __getattr__ call
                self.__dict__[sig.name] = self._functions[sig.name]

    @property
    def functions(self) -> Mapping[str, Function]:
        """Every callable function, by name."""
        return dict(self._functions)

    def __getattr__(self, name: str) -> Function:
        functions = self.__dict__.get("_functions", {})
        if name in functions:
            return functions[name]
        unsupported = self.__dict__.get("_unsupported", {})
        if name in unsupported:
            raise TypeError(f"{name}() cannot be called from Python: {unsupported[name]}")
        raise AttributeError(f"the library has no function '{name}' (functions: "
                             f"{', '.join(sorted(functions)) or 'none'}; only functions with "
                             "external linkage and C names are exported)")

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *self._functions]

    def __repr__(self) -> str:
        return f"<enzc.Library {', '.join(self._functions)} from {self.path}>"


class Function:
    """A C function: call it like Python, take its derivatives with the methods below."""

    def __init__(self, sig: Signature, call: Any, derivs: tuple[Any, ...] | None,
                 error: str | None) -> None:
        self.signature = sig
        self.__name__ = sig.name
        self._call = call
        self._derivs = derivs
        self._error = error

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            args = tuple(bind(self.signature, args, kwargs))
        return self._call(*args)

    def __repr__(self) -> str:
        sig = self.signature
        params = ", ".join(f"{describe(p.ctype)} {p.name}".replace("* ", "*")
                           for p in sig.params)
        result = describe(sig.result) if isinstance(sig.result, Scalar) else "void"
        return f"<enzc function {result} {sig.name}({params}) at {sig.where}>"

    @property
    def outputs(self) -> list[str]:
        """Names of the floating outputs: arrays C writes, and 'return'."""
        return outputs(self.signature)

    def grad(self, *args: Any, wrt: Any = None, **kwargs: Any) -> Any:
        """Gradient of the (floating) result w.r.t. `wrt`: one array or float per name
        (a single one when `wrt` is a name or position; default: the first floating
        parameter), each shaped like its argument. The result itself is not computed."""
        sig = self._check_scalar_result()
        names, single = self._wrt(wrt)
        call = derivatives.gradient(sig, self._derivatives()[2], bind(sig, args, kwargs), names)
        grads = tuple(call.derivative(n) for n in names)
        return grads[0] if single else grads

    def value_and_grad(self, *args: Any, wrt: Any = None, **kwargs: Any) -> tuple[Any, Any]:
        """`(result, grad)` from one call (reverse mode)."""
        sig = self._check_scalar_result()
        names, single = self._wrt(wrt)
        call = derivatives.reverse(sig, self._reverse(), bind(sig, args, kwargs),
                                   {RESULT: 1.0}, names)
        grads = tuple(call.derivative(n) for n in names)
        return call.value(), grads[0] if single else grads

    def vjp(self, *args: Any, cotangents: Mapping[Any, Any], wrt: Any = None,
            **kwargs: Any) -> Any:
        """Vector-Jacobian product: the adjoints of `wrt` for the given cotangents of
        outputs (floating arrays C writes, by name, and the result as 'return')."""
        if not isinstance(cotangents, Mapping):
            raise TypeError(f"{self.signature.name}.vjp: cotangents is a dict of output "
                            "name -> cotangent")
        names, single = self._wrt(wrt)
        call = derivatives.reverse(self.signature, self._reverse(),
                                   bind(self.signature, args, kwargs), cotangents, names)
        grads = tuple(call.derivative(n) for n in names)
        return grads[0] if single else grads

    def jvp(self, *args: Any, tangents: Mapping[Any, Any], **kwargs: Any) -> dict[str, Any]:
        """Jacobian-vector product (forward mode): {output name: tangent} for the given
        input tangents (inputs without one have tangent zero)."""
        if not isinstance(tangents, Mapping):
            raise TypeError(f"{self.signature.name}.jvp: tangents is a dict of parameter "
                            "name -> tangent")
        call = derivatives.forward(self.signature, self._forward(),
                                   bind(self.signature, args, kwargs), tangents)
        return derivatives.jvp_outputs(call)

    def jacobian(self, *args: Any, wrt: Any = None, of: Any = None, **kwargs: Any) -> Any:
        """d(of)/d(wrt) as a dense (size(of), size(wrt)) matrix (forward mode by columns
        or reverse mode by rows, whichever needs fewer calls). `of` defaults to the
        only output."""
        sig = self.signature
        names, _ = self._wrt(wrt)
        if len(names) != 1:
            raise ValueError(f"{sig.name}.jacobian: wrt names one parameter")
        if of is None:
            if len(self.outputs) != 1:
                raise ValueError(f"{sig.name}.jacobian: say which output with of= "
                                 f"(outputs: {', '.join(self.outputs)})")
            of = self.outputs[0]
        return derivatives.jacobian(sig, self._reverse(), self._forward(),
                                    bind(sig, args, kwargs), names[0],
                                    output_name(sig, of, "of"))

    def _check_scalar_result(self) -> Signature:
        sig = self.signature
        if not (isinstance(sig.result, Scalar) and sig.result.is_float):
            raise TypeError(f"{sig.name}() does not return a floating-point scalar, so it has "
                            "no gradient; use vjp(..., cotangents={...}) for outputs written "
                            "through pointers")
        return sig

    def _wrt(self, wrt: Any) -> tuple[list[str], bool]:
        sig = self.signature
        if wrt is None:
            inputs = differentiable_inputs(sig)
            if not inputs:
                raise ValueError(f"{sig.name}() has no floating-point parameter to "
                                 "differentiate with respect to")
            return [inputs[0]], True
        if isinstance(wrt, (str, int)):
            return [input_name(sig, wrt, "wrt")], True
        if isinstance(wrt, Sequence):
            return [input_name(sig, w, "wrt") for w in wrt], False
        raise TypeError(f"{sig.name}(): wrt is a parameter name, position, or a tuple of them")

    def _reverse(self) -> Any:
        return self._derivatives()[0]

    def _forward(self) -> Any:
        return self._derivatives()[1]

    def _derivatives(self) -> tuple[Any, ...]:
        if self._derivs is not None:
            return self._derivs
        if self._error:
            raise DifferentiationError(f"enzc cannot differentiate {self.signature.name}():\n"
                                       f"{self._error}")
        raise DifferentiationError(f"{self.signature.name}() has no floating-point input "
                                   "and output to differentiate")
