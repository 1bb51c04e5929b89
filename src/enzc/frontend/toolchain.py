"""Where enzcc's tools and files are: clang-22, the runtime headers, the CMake file."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

from enzc.frontend.runner import Runner

CLANG = "clang-22"
CLANGXX = "clang++-22"
OBJCOPY = "llvm-objcopy-22"

# A source's first step, after the -O level (`optlevel.frontend_level`): the IR clang
# emits before any LLVM pass (what `clang -save-temps` writes).
NO_LLVM_PASSES = ["-Xclang", "-disable-llvm-passes"]
# The O2* pipeline: -O2 without the transforms that make IR harder to differentiate
# and that the final -O level redoes anyway (unrolling, interleaving, vectorization).
# Only ever given to clang with IR as input: on a C/C++ source, -fno-unroll-loops also
# makes clang's code generation write `llvm.loop.unroll.disable` on every loop, and that
# metadata would keep the final -O2 from unrolling the user's loops.
O2_STAR_ON_IR = ["-O2", "-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops"]
# --enzc-ad-before-opt: unoptimized IR that optimization may still touch later.
O0_OPTIMIZABLE = ["-O0", "-Xclang", "-disable-O0-optnone"]

_PACKAGE = Path(__file__).resolve().parent.parent


def runtime_include_dir() -> str:
    """The directory holding `enzyme/enzyme.h`, added with -isystem.

    An installed wheel carries it as package data (`enzc/data/runtime`, a symlink to
    the top-level `runtime/` in the source tree); a source checkout or editable install
    finds the top-level `runtime/` next to `src/`.
    """
    for candidate in (_PACKAGE / "data" / "runtime", _PACKAGE.parent.parent / "runtime"):
        if (candidate / "enzyme" / "enzyme.h").is_file():
            return str(candidate)
    return str(_PACKAGE / "data" / "runtime")


def cmake_toolchain_file() -> str:
    """A CMake toolchain file that builds with this enzcc, whether or not its
    environment is activated or on PATH.

    The shipped file (package data) finds enzcc next to a regular installation, but
    an editable install's package directory is the source tree: nothing leads from
    it to the environment that runs it. So the file printed lives in this
    environment (`<prefix>/share/enzc/`) and names the directory of its scripts,
    then includes the shipped one; it is (re)written when missing or stale. When that
    directory cannot be written (a system installation), the shipped file is printed.
    """
    shipped = _PACKAGE / "data" / "cmake" / "enzc-toolchain.cmake"
    scripts = sysconfig.get_path("scripts")
    if not (Path(scripts) / "enzcc").is_file():
        return str(shipped)
    path = Path(sysconfig.get_path("data")) / "share" / "enzc" / "enzc-toolchain.cmake"
    text = (f"# Written by {scripts}/enzcc --cmake-toolchain: build with the enzcc there.\n"
            f"set(ENZC_BIN_DIR {_cmake_quote(scripts)})\n"
            f"include({_cmake_quote(str(shipped))})\n")
    try:
        if not path.is_file() or path.read_text() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            staging = path.with_name(f".{path.name}.{os.getpid()}")
            staging.write_text(text)
            os.replace(staging, path)
    except OSError:
        return str(shipped)
    return str(path)


def _cmake_quote(value: str) -> str:
    """A CMake quoted argument."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def default_library_dirs(runner: Runner) -> list[str]:
    """The directories clang's linker searches for `-l` after the -L ones."""
    for line in runner.output([CLANG, "-print-search-dirs"]).splitlines():
        if line.startswith("libraries: ="):
            return [os.path.normpath(d) for d in line.split("=", 1)[1].split(":") if d]
    return []
