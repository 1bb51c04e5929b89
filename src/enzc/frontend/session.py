"""One enzcc run's working state: the invocation, temporary directory, runner, timers."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass

from enzc.frontend.args import Input, InputKind, Invocation
from enzc.frontend.interrupts import InterruptGuard
from enzc.frontend.outputs import write_output
from enzc.frontend.runner import Runner
from enzc.frontend.timing import StageTimes
from enzc.frontend.toolchain import CLANG, CLANGXX, runtime_include_dir


@dataclass
class Session:
    """Everything the pipeline steps share; no global state."""

    inv: Invocation
    tmp: str
    """Private temporary directory, removed when enzcc exits."""
    runner: Runner
    times: StageTimes
    interrupts: InterruptGuard

    def publish(self, built: str, destination: str) -> None:
        """Put the finished file `built` at `destination` (unless a signal came first)."""
        self.interrupts.check()
        write_output(built, destination)

    def temp(self, name: str) -> str:
        """A path inside the temporary directory."""
        return os.path.join(self.tmp, name)

    def keep_text(self, name: str, text: str) -> None:
        """With --enzc-keep-temps, also write `text` (an intermediate .ll) as `name`."""
        if self.inv.enzc.keep_temps is not None:
            with open(self.temp(name), "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)

    @property
    def compiler(self) -> str:
        """The clang driver for compile steps: clang++-22 for enzc++, else clang-22."""
        return CLANGXX if self.inv.cxx else CLANG

    @property
    def linker(self) -> str:
        """clang++-22 when the program has C++ in it (libstdc++), else clang-22."""
        cxx = self.inv.cxx or any(i.kind == InputKind.CXX for i in self.inv.inputs)
        return CLANGXX if cxx else CLANG

    def include_flags(self) -> list[str]:
        """`-isystem` for <enzyme/enzyme.h>; after the user's, so theirs win."""
        return ["-isystem", runtime_include_dir()]

    def common_flags(self) -> list[str]:
        """Flags every clang step gets: the user's, -v, and quiet about unused ones.

        Each step sees all of the user's flags (as one cc call would), so
        -Qunused-arguments keeps clang from warning about the ones a step ignores.
        """
        verbose = ["-v"] if self.inv.verbose else []
        return [*self.inv.flags, *verbose, "-Qunused-arguments"]

    @property
    def instruments(self) -> bool:
        """Whether a sanitizer (or its coverage) instruments the code.

        Instrumentation runs at code generation, after AD: the frontend then emits
        IR without LLVM passes (see `steps.frontend`), and every step keeps the flags.
        """
        return any(f.startswith("-fsanitize") for f in self.inv.flags)

    @property
    def sanitizer_level(self) -> str | None:
        """'-O0' or '-O1' for a sanitizer build at that level, else None.

        clang instruments after its optimization pipeline, so what a sanitizer checks
        depends on the level: at -O0 it sees every access, at -O2 the optimizer may
        have deleted the faulty one (a store into a buffer nobody reads). Such a build
        therefore runs clang's own -O0 (no passes) or -O1 pipeline before AD instead
        of O2*, and catches what clang's build catches.
        """
        if not self.instruments:
            return None
        level = (self.inv.opt or "-O0")[2:] or "1"
        return {"0": "-O0", "1": "-O1", "g": "-O1"}.get(level)

    @property
    def lto(self) -> bool:
        """Whether the user asked for LTO (the last -flto*/-fno-lto decides): clang's
        `-c` output is then bitcode, which the enzcc link reads as IR."""
        last = next((f for f in reversed(self.inv.flags)
                     if f == "-fno-lto" or f == "-flto" or f.startswith("-flto=")), None)
        return last is not None and last != "-fno-lto"

    def sysroot(self) -> str:
        """The root clang's header search starts from (-isysroot, else --sysroot)."""
        found = {"-isysroot": None, "--sysroot": None}
        flags = self.inv.flags
        for i, flag in enumerate(flags):
            for option in found:
                if flag == option and i + 1 < len(flags):
                    found[option] = flags[i + 1]
                elif flag.startswith(option + "="):
                    found[option] = flag.split("=", 1)[1]
        return found["-isysroot"] or found["--sysroot"] or "/"

    def opt_flags(self) -> list[str]:
        """The user's -O level, for the final code generation."""
        return [self.inv.opt] if self.inv.opt else []

    def stem(self, number: int, inp: Input) -> str:
        """A unique temporary name for the n-th input."""
        base = os.path.splitext(os.path.basename(inp.path))[0] or "stdin"
        return f"{number}-{base}"

    def keep_temps(self) -> None:
        """Copy the temporary directory's files to --enzc-keep-temps DIR, if asked."""
        keep = self.inv.enzc.keep_temps
        if keep is None:
            return
        try:
            shutil.copytree(self.tmp, keep, dirs_exist_ok=True)
        except OSError as err:
            sys.stderr.write(f"enzcc: warning: cannot keep temporaries in '{keep}': {err}\n")
