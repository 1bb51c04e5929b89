"""Build one shared object for `enzc.load` with the existing pipeline.

1. each C/C++ source -> O2* bitcode with debug info (`enzcc -c -emit-llvm -g`),
   in parallel; the `-MD` dependency files list the headers it read;
2. the exported functions' signatures are read from that debug info;
3. a C file of derivative wrappers (`wrappers.py`) and the Python extension shim
   (`shim.py`) are generated; the shim is compiled by clang as a plain object;
4. `enzcc -shared -fPIC` links everything: the bitcode, the wrappers, IR inputs,
   objects and static libraries are merged, optimized and differentiated together.

If step 4 fails only because of the wrappers (the AD stage cannot differentiate a
function), bisection finds the functions at fault and the library is linked with
the others' wrappers: plain calls all work, and the derivative methods of those
functions raise `DifferentiationError` with enzcc's diagnostics.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from enzc.diskcache import CACHE_ENV
from enzc.errors import EnzcError
from enzc.frontend.args import C_SUFFIXES, CXX_SUFFIXES, IR_SUFFIXES
from enzc.frontend.toolchain import CLANG
from enzc.python.shim import shim_source
from enzc.python.signature import Signature, exported_signatures
from enzc.python.wrappers import is_differentiable, wrapper_signatures, wrapper_source

LLVM_DIS = "llvm-dis-22"

TOOL_RUNS = [0]
"""How many compiler processes this process started (a second `load` of cached code
starts none; the tests check that)."""


class CompileError(EnzcError):
    """The C/C++ code did not build; the message carries the compiler's diagnostics."""


@dataclass(frozen=True)
class Request:
    """What to build: source text and/or files, flags, language of the text."""

    source: str | None
    files: tuple[str, ...]
    """Absolute paths: sources, .ll/.bc, objects, static libraries."""
    flags: tuple[str, ...]
    lang: str
    """"c" or "c++": the language of `source` (files go by suffix)."""

    @property
    def cxx(self) -> bool:
        return self.lang == "c++" or any(Path(f).suffix in CXX_SUFFIXES for f in self.files)


@dataclass
class Built:
    """A finished build in a directory."""

    library: Path
    signatures: list[Signature]
    differentiable: list[str]
    """Names of the functions that have derivative wrappers."""
    derivative_errors: dict[str, str]
    """enzcc's diagnostics for each function the AD stage could not differentiate."""
    dependencies: list[str] = field(default_factory=list)
    """Headers the sources included (absolute paths)."""


def build(request: Request, workdir: Path, module_name: str) -> Built:
    """Build `request` into `workdir/<module_name><ext suffix>`."""
    sources, inputs = _stage_inputs(request, workdir)
    with ThreadPoolExecutor(max_workers=max(1, min(len(sources), os.cpu_count() or 1))) as pool:
        compiled = list(pool.map(lambda n: _frontend(request, workdir, n, sources[n]),
                                 range(len(sources))))
    signatures = _signatures([*compiled,
                              *(_as_text(f, workdir, n) for n, f in enumerate(request.files)
                                if Path(f).suffix in IR_SUFFIXES)])
    differentiable = [sig for sig in signatures if is_differentiable(sig)]
    callable_ = [(sig.name, sig) for sig in signatures if sig.unsupported is None]
    for sig in differentiable:
        callable_ += [(sig.name, wrapper) for wrapper in wrapper_signatures(sig)]
    shim = workdir / "enzc_shim.c"
    shim.write_text(shim_source(module_name, callable_))
    shim_object = _compile_shim(shim, workdir)
    library = workdir / (module_name + sysconfig.get_config_var("EXT_SUFFIX"))
    link_inputs = [*compiled, *inputs, str(shim_object)]
    good, errors = _link_with_wrappers(request, workdir, link_inputs, library, differentiable)
    return Built(library, signatures, good, errors,
                 _dependencies(workdir, [Path(s) for s in sources]))


def _link_with_wrappers(request: Request, workdir: Path, link_inputs: list[str], library: Path,
                        differentiable: list[Signature]) -> tuple[list[str], dict[str, str]]:
    """Link with every function's derivative wrappers; if the AD stage rejects some,
    find which by bisection and link the others' wrappers only (the rejected ones get
    stubs, their methods raise DifferentiationError with enzcc's diagnostics).
    Returns (names with derivatives, {name: diagnostics})."""
    trials = iter(range(1 << 30))

    def link(with_wrappers: list[Signature], check: bool = False) -> str | None:
        n = next(trials)
        wrappers, stubs = workdir / f"enzc_wrappers{n}.c", workdir / f"enzc_stubs{n}.c"
        wrappers.write_text(wrapper_source(with_wrappers))
        stubs.write_text(_stub_source([s for s in differentiable if s not in with_wrappers]))
        return _link(request, workdir, [*link_inputs, *_as_c(wrappers), *_as_c(stubs)],
                     library, check=check)

    failure = link(differentiable)
    if failure is None:
        return [s.name for s in differentiable], {}
    link([], check=True)  # without any wrapper it must build: else a plain CompileError
    good, errors = _bisect(link, differentiable, failure)
    if good:
        link(good, check=True)
    else:
        link([], check=True)
    return [s.name for s in good], errors


def _bisect(link: Callable[[list[Signature]], str | None], failing: list[Signature],
            failure: str) -> tuple[list[Signature], dict[str, str]]:
    """Split a failing set of functions until each failure is pinned to one."""
    if len(failing) == 1:
        return [], {failing[0].name: failure}
    good: list[Signature] = []
    errors: dict[str, str] = {}
    half = len(failing) // 2
    for part in (failing[:half], failing[half:]):
        part_failure = link(part)
        if part_failure is None:
            good += part
        else:
            part_good, part_errors = _bisect(link, part, part_failure)
            good += part_good
            errors.update(part_errors)
    return good, errors


def _stage_inputs(request: Request, workdir: Path) -> tuple[list[str], list[str]]:
    """(sources to compile, other link inputs); source text becomes a file in workdir."""
    sources: list[str] = []
    others: list[str] = []
    if request.source is not None:
        name = "source.cpp" if request.lang == "c++" else "source.c"
        (workdir / name).write_text(request.source)
        sources.append(name)
    for path in request.files:
        suffix = Path(path).suffix
        (sources if suffix in C_SUFFIXES or suffix in CXX_SUFFIXES else others).append(path)
    return sources, others


def _frontend(request: Request, workdir: Path, number: int, source: str) -> str:
    """Compile one source to IR text with full debug info: it gives the signatures
    (parameter names and types) and is what gets linked, so diagnostics of the AD
    stage carry file:line."""
    stem = f"{number}-{Path(source).stem}"
    full = str(workdir / f"{stem}.ll")
    cxx = Path(source).suffix in CXX_SUFFIXES
    _run([*_enzcc(cxx), *_user_flags(request), "-g", "-fPIC", "-S", "-emit-llvm",
          "-MD", "-MF", str(workdir / f"{stem}.d"), source, "-o", full], workdir)
    return full


def _compile_shim(shim: Path, workdir: Path) -> Path:
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        raise CompileError(f"enzc.load: Python's C headers are missing ({include}/Python.h); "
                           "install your Python's development package (python3-dev)")
    out = workdir / "enzc_shim.o"
    _run([CLANG, "-O2", "-fPIC", "-w", "-isystem", include, "-c", str(shim), "-o", str(out)],
         workdir)
    return out


def _link(request: Request, workdir: Path, inputs: list[str], library: Path,
          check: bool) -> str | None:
    """Link the shared object; return the diagnostics on failure when not `check`."""
    argv = [*_enzcc(request.cxx), *_user_flags(request), "-shared", "-fPIC", *inputs,
            "-lm", "-o", str(library)]
    return _run(argv, workdir, check=check)


def _as_c(path: Path) -> list[str]:
    """A generated C file on a link line that enzc++ may drive (which would take it as C++)."""
    return ["-x", "c", str(path), "-x", "none"]


def _run(argv: list[str], cwd: Path, check: bool = True) -> str | None:
    env = {k: v for k, v in os.environ.items() if k != CACHE_ENV}
    TOOL_RUNS[0] += 1
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, check=False)
    except OSError as err:
        raise CompileError(f"enzc.load: cannot run '{argv[0]}': {err.strerror}") from None
    if done.returncode == 0:
        return None
    message = (done.stderr or done.stdout).strip() or f"{argv[0]} exited {done.returncode}"
    if check:
        raise CompileError(message)
    return message


def _enzcc(cxx: bool) -> list[str]:
    entry = "main_cxx" if cxx else "main_cc"
    return [sys.executable, "-c", f"from enzc.frontend.cli import {entry}; {entry}()"]


def _user_flags(request: Request) -> list[str]:
    optimized = any(f.startswith("-O") for f in request.flags)
    return [*([] if optimized else ["-O2"]), *request.flags]


def _as_text(module: str, workdir: Path, number: int) -> str:
    """`module` as IR text: bitcode is disassembled by llvm-dis in a subprocess, since
    reading it in this process would fork (enzc.isolation), which is unsafe once the
    caller runs threads (PyTorch, JAX)."""
    if Path(module).suffix != ".bc":
        return module
    text = str(workdir / f"input{number}-{Path(module).stem}.dis.ll")
    _run([LLVM_DIS, module, "-o", text], workdir)
    return text


def _signatures(modules: list[str]) -> list[Signature]:
    from enzc.ir import parse_file

    found: dict[str, Signature] = {}
    for path in modules:
        for sig in exported_signatures(parse_file(path)):
            found.setdefault(sig.name, sig)
    return list(found.values())


def _stub_source(signatures: list[Signature]) -> str:
    """Definitions for the wrapper symbols the shim names, never called (the Python
    side raises DifferentiationError first)."""
    names = [wrapper.name for sig in signatures for wrapper in wrapper_signatures(sig)]
    return "".join(f"void {name}(void) {{ __builtin_trap(); }}\n" for name in names)


def _dependencies(workdir: Path, sources: list[Path]) -> list[str]:
    """Headers named by the -MD files, outside the build directory."""
    found: set[str] = set()
    for dep_file in workdir.glob("*.d"):
        text = dep_file.read_text().replace("\\\n", " ")
        _, _, deps = text.partition(":")
        for token in deps.replace("\\ ", "\0").split():
            path = os.path.abspath(os.path.join(workdir, token.replace("\0", " ")))
            if not path.startswith(str(workdir) + os.sep):
                found.add(path)
    return sorted(found)
