"""Compile time of enzcc against clang-22 -O2 on the driver's sample projects.

    .venv/bin/python benchmarks/driver_time.py [--repeat N]

Builds each sample with clang-22/clang++-22 -O2 and with enzcc/enzc++ -O2
--enzc-time in the same run, and prints the wall times, enzcc's time per stage
(summed over its invocations; parallel jobs add up) and ratios to clang's total.
With --repeat N each build runs N times and the fastest run counts.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECTS = ROOT / "tests" / "driver" / "projects"
BIN = Path(sys.executable).parent
_STAGE_LINE = re.compile(r"^enzc(?:c|\+\+):\s+(\S+)\s+([0-9.]+)$", re.MULTILINE)

MULTI_SOURCES = ["main.c", "vec.c", "vecnorm.c", "stats.c", "variance.c", "plain.c"]


@dataclass
class Measurement:
    """One build: wall seconds and, for enzcc builds, seconds per stage."""

    wall: float
    stages: dict[str, float] = field(default_factory=dict)


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["TMPDIR"] = str(tmp)
    env.pop("MAKEFLAGS", None)
    return env


def _run(commands: list[list[str]], cwd: Path, env: dict[str, str]) -> Measurement:
    """Run commands in order; time them together; add up enzcc's stage reports."""
    stages: dict[str, float] = {}
    start = time.perf_counter()
    for argv in commands:
        result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"driver_time: {' '.join(argv)} failed:\n{result.stderr}")
        for name, seconds in _STAGE_LINE.findall(result.stderr):
            if name != "total":
                stages[name] = stages.get(name, 0.0) + float(seconds)
    return Measurement(time.perf_counter() - start, stages)


def _fresh(name: str, work: Path) -> Path:
    target = work / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(PROJECTS / name, target)
    return target


def multi_one_command(cc: str, work: Path, env: dict[str, str]) -> Measurement:
    project = _fresh("multi", work)
    extra = ["--enzc-time"] if "enzc" in cc else []
    return _run([[cc, "-O2", *extra, *MULTI_SOURCES, "-lm", "-o", "prog"]], project, env)


def multi_make(cc: str, work: Path, env: dict[str, str]) -> Measurement:
    project = _fresh("multi", work)
    flags = "-O2 --enzc-time" if "enzc" in cc else "-O2"
    # llvm-ar-22 for both: GNU ar may index -fembed-bitcode objects badly (docs/driver.md).
    return _run([["make", f"CC={cc}", f"CFLAGS={flags}", "AR=llvm-ar-22"]], project, env)


def cxx_one_command(cxx: str, work: Path, env: dict[str, str]) -> Measurement:
    project = _fresh("cxx", work)
    extra = ["--enzc-time"] if "enzc" in cxx else []
    return _run([[cxx, "-O2", *extra, "main.cpp", "shapes.cpp", "-o", "prog"]], project, env)


def cmake_build(toolchain: bool, work: Path, env: dict[str, str]) -> Measurement:
    project = _fresh("cmake", work)
    build = project / "build"
    build.mkdir()
    if toolchain:
        chain = subprocess.run([str(BIN / "enzcc"), "--cmake-toolchain"], capture_output=True,
                               text=True, check=True).stdout.strip()
        configure = [f"-DCMAKE_TOOLCHAIN_FILE={chain}", "-DCMAKE_C_FLAGS=--enzc-time",
                     "-DCMAKE_CXX_FLAGS=--enzc-time"]
    else:
        configure = ["-DCMAKE_C_COMPILER=clang-22", "-DCMAKE_CXX_COMPILER=clang++-22"]
    return _run([["cmake", *configure, "-DCMAKE_BUILD_TYPE=Release", ".."],
                 ["cmake", "--build", "."]], build, env)


def corpus_objects(cc: str, work: Path, env: dict[str, str]) -> Measurement:
    """`-c` of every file of the IR corpus, one invocation per file (like make -j1)."""
    corpus = ROOT / "tests" / "ir" / "corpus"
    target = work / "corpus"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    extra = ["--enzc-time"] if "enzc" in cc else []
    sources = sorted(corpus.glob("*.c")) + sorted(corpus.glob("*.cpp"))
    std = {".c": [], ".cpp": ["-std=c++20"]}
    return _run([[cc, "-O2", *std[src.suffix], *extra, "-c", str(src), "-o", src.stem + ".o"]
                 for src in sources], target, env)


Build = Callable[[Path, dict[str, str]], Measurement]
SAMPLES: list[tuple[str, Build, Build]] = [
    ("multi: one command, 6 C files", lambda w, e: multi_one_command("clang-22", w, e),
     lambda w, e: multi_one_command("enzcc", w, e)),
    ("multi: make (3 libraries)", lambda w, e: multi_make("clang-22", w, e),
     lambda w, e: multi_make("enzcc", w, e)),
    ("cxx: one command, 2 C++ files", lambda w, e: cxx_one_command("clang++-22", w, e),
     lambda w, e: cxx_one_command("enzc++", w, e)),
    ("cmake: configure + build", lambda w, e: cmake_build(False, w, e),
     lambda w, e: cmake_build(True, w, e)),
    ("IR corpus: -c of each C/C++ file", lambda w, e: corpus_objects("clang-22", w, e),
     lambda w, e: corpus_objects("enzcc", w, e)),
]


def _best(build: Build, work: Path, env: dict[str, str], repeat: int) -> Measurement:
    runs = [build(work, env) for _ in range(repeat)]
    return min(runs, key=lambda m: m.wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs per build (fastest counts)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="driver-time-") as tmp:
        work = Path(tmp)
        (work / "tmp").mkdir()
        env = _env(work / "tmp")
        for title, clang_build, enzc_build in SAMPLES:
            clang = _best(clang_build, work, env, args.repeat)
            enzc = _best(enzc_build, work, env, args.repeat)
            print(f"\n{title}")
            print(f"  clang-22 -O2   {clang.wall:7.3f} s")
            print(f"  enzcc -O2      {enzc.wall:7.3f} s   ratio {enzc.wall / clang.wall:5.2f}x")
            for name, seconds in enzc.stages.items():
                print(f"    {name:<10}   {seconds:7.3f} s   = {seconds / clang.wall:5.2f}x "
                      "clang's total")


if __name__ == "__main__":
    main()
