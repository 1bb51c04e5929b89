"""IR core throughput: full parse, print, and lazy open + one function on a big module.

    .venv/bin/python benchmarks/ir_bench.py                # builds build/ir-bench/big.ll
    .venv/bin/python benchmarks/ir_bench.py MODULE.ll [--function NAME]

Without a module it builds one of at least 10 MB from the round-trip corpus
(tests/ir/corpus): every program in eleven clang configurations (-O0..-O3, -Os, -Oz,
O2*, with and without -g), each with `main` renamed and everything else internalized
so that llvm-link-22 can put all 550 translation units into one module without
symbol clashes. It is cached in build/ir-bench/ (delete it to rebuild).

Prints MB/s for enzc's full parse (every body) and printer, the time to open the
module lazily and parse one function body, and the same work done by LLVM itself
(llvmlite's in-process parser) as a ratio. Times are CPU seconds of this process.
A benchmark, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "ir" / "corpus"
BUILD = ROOT / "build" / "ir-bench"
O2_STAR = "-O2 -fno-vectorize -fno-slp-vectorize -fno-unroll-loops"
CONFIGS = {
    "O0": "-O0", "O0g": "-O0 -g", "O1": "-O1", "O1g": "-O1 -g", "O2": "-O2", "O2g": "-O2 -g",
    "O2s": O2_STAR, "O2sg": O2_STAR + " -g", "O3": "-O3", "O3g": "-O3 -g", "Osg": "-Os -g", "Oz": "-Oz",
}
MIN_MB = 10.0
DEFAULT_FUNCTION = "gmm_objective"
"""A numeric kernel from c20_ad_kernels.c: the kind of function AD touches."""


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(cmd[:3])} ... failed:\n{proc.stderr[-2000:]}")


def _unit(source: Path, tag: str, flags: str, out_dir: Path) -> Path:
    """One translation unit, compiled and internalized except for its renamed main."""
    entry = f"main_{source.stem}_{tag}"
    raw = out_dir / f"{source.stem}.{tag}.ll"
    unit = out_dir / f"{source.stem}.{tag}.int.ll"
    clang = ["clang-22"] if source.suffix == ".c" else ["clang++-22", "-std=c++20"]
    _run([*clang, *flags.split(), f"-Dmain={entry}", "-w", "-S", "-emit-llvm", str(source), "-o", str(raw)])
    _run(["opt-22", "-passes=internalize", f"-internalize-public-api-list={entry}", "-S", str(raw), "-o", str(unit)])
    # internalize leaves ifuncs alone; an external ifunc in two units would clash.
    unit.write_text(unit.read_text().replace("= dso_local ifunc", "= internal ifunc"))
    raw.unlink()
    return unit


def build_module() -> Path:
    out = BUILD / "big.ll"
    if out.exists():
        return out
    BUILD.mkdir(parents=True, exist_ok=True)
    sources = sorted(CORPUS.glob("*.c")) + sorted(CORPUS.glob("*.cpp"))
    jobs = [(s, tag, flags) for s in sources for tag, flags in CONFIGS.items()]
    print(f"building {out.relative_to(ROOT)} from {len(jobs)} translation units ...", flush=True)
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        units = list(pool.map(lambda j: _unit(*j, BUILD), jobs))
    _run(["llvm-link-22", "-S", *map(str, units), "-o", str(out)])
    for u in units:
        u.unlink()
    return out


def _timed(fn):  # type: ignore[no-untyped-def]
    """Result and CPU seconds of this process: on a shared machine wall time measures
    the neighbours; everything timed here runs in this process (llvmlite included)."""
    start = time.process_time()
    result = fn()
    return result, time.process_time() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("module", nargs="?", type=Path, help="a .ll file (default: build one from the corpus)")
    ap.add_argument("--function", default=DEFAULT_FUNCTION, help="function to access lazily")
    args = ap.parse_args()

    import llvmlite.binding as llvm

    import enzc.ir as ir

    path = args.module or build_module()
    text = path.read_text()
    mb = len(text.encode()) / 1e6
    if mb < MIN_MB:
        print(f"note: {path} is only {mb:.1f} MB (the criterion asks for >= {MIN_MB:.0f} MB)")

    def full_parse():  # type: ignore[no-untyped-def]
        module = ir.parse_module(text, filename=str(path), lazy=False)
        for fn in module.functions.values():
            if not fn.is_declaration:
                fn.blocks  # noqa: B018 - forces the body, in case the parser stayed lazy
        return module

    module, t_parse = _timed(full_parse)
    out, t_print = _timed(lambda: ir.print_module(module))
    out_mb = len(out.encode()) / 1e6
    del module, out

    lazy, t_open = _timed(lambda: ir.parse_module(text, filename=str(path), lazy=True))
    name = args.function
    fn = lazy.get_function(name)
    if fn is None or fn.is_declaration:
        defined = [f for f in lazy.functions.values() if not f.is_declaration]
        fn = max(defined, key=lambda f: len(f.source_text or ""))
        print(f"note: no definition of @{name}; using the largest function, @{fn.name}")
    blocks, t_access = _timed(lambda: fn.blocks)
    n_inst = sum(len(list(b)) for b in blocks)
    lazy_out, t_lazy_print = _timed(lambda: ir.print_module(lazy))
    n_defined = sum(not f.is_declaration for f in lazy.functions.values())

    _, t_llvm = _timed(lambda: llvm.parse_assembly(text))

    print(f"module            {path}  {mb:.1f} MB, {n_defined} function definitions")
    print(f"full parse        {t_parse:7.2f} s  {mb / t_parse:6.2f} MB/s   ({t_parse / t_llvm:.0f}x LLVM's parser: {t_llvm:.2f} s)")
    print(f"print             {t_print:7.2f} s  {out_mb / t_print:6.2f} MB/s")
    print(f"lazy open         {t_open:7.2f} s  {mb / t_open:6.2f} MB/s")
    print(f"one function      {t_access * 1e3:7.1f} ms  @{fn.name}: {len(blocks)} blocks, {n_inst} instructions")
    print(f"open + access     {t_open + t_access:7.2f} s   ({(t_open + t_access) / t_parse:.1%} of a full parse)")
    print(f"print after lazy  {t_lazy_print:7.2f} s  {len(lazy_out.encode()) / 1e6 / t_lazy_print:6.2f} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
