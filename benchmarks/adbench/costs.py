"""What a derivative costs besides time: memory per call and compile time.

    python -m benchmarks.adbench.costs [--only gmm,gpt] [--enzyme-plugin SO --enzyme-clang CLANG]

Per benchmark, on one representative input: the heap each tool's derivative
keeps and allocates per call, next to enzcc's tape bytes (memory.py); per
program, each tool's compile time, enzcc's per stage (compile_time.py).
Results go to benchmarks/adbench/results/<name>.md (default `costs`) and are
printed.  Exit status: 0, or 1 when a run failed, 2 for bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.adbench import report
from benchmarks.adbench.compile_time import CompileTime, time_build
from benchmarks.adbench.harness import HERE, default_data_dir
from benchmarks.adbench.memory import MemoryUse, build_counter, build_for_memory, measure
from benchmarks.adbench.progress import Progress
from benchmarks.adbench.runner import RunError
from benchmarks.adbench.suite import BENCHMARKS, Benchmark, Input, inputs
from benchmarks.adbench.tools import Tool, standard_tools

REPRESENTATIVE = {
    "gmm": "1k/d10_K25", "ba": "ba1_n49_m7776_p31843", "lstm": "l2_c1024",
    "ode-euler": "n512_s200", "ode-rk4": "n512_s200", "fft": "n65536", "bruss": "n64_s50",
    "gpt": "v256_t64_c96_l2",
}
"""The input each benchmark's memory is measured on (mid-sized in `make bench`)."""
STAGES = ("frontend", "O2*", "AD", "codegen")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.adbench.costs", description=__doc__.split("\n")[0])
    p.add_argument("--only", help="comma-separated benchmarks")
    p.add_argument("--data", type=Path, help="ADBench data directory (as for the harness)")
    p.add_argument("--enzcc", help="the enzcc to use (default: the venv's, else PATH)")
    p.add_argument("--enzyme-plugin", help="Enzyme's ClangEnzyme plugin (.so)")
    p.add_argument("--enzyme-clang", help="the clang that plugin was built for")
    p.add_argument("--repeat", type=int, default=3, help="builds per compile-time measurement (default 3)")
    p.add_argument("--name", default="costs", help="results file name (default costs)")
    p.add_argument("--build-dir", type=Path, default=HERE / "build" / "costs")
    p.add_argument("--results", type=Path, default=HERE / "results")
    args = p.parse_args(argv)
    if (args.enzyme_plugin is None) != (args.enzyme_clang is None):
        p.error("--enzyme-plugin and --enzyme-clang go together")
    return args


def _chosen(args: argparse.Namespace) -> list[tuple[Benchmark, Input]]:
    names = [n.strip() for n in args.only.split(",")] if args.only else [b.name for b in BENCHMARKS]
    data = args.data or default_data_dir()
    chosen = []
    for bench in BENCHMARKS:
        if bench.name not in names:
            continue
        if bench.data_folder and not data.is_dir():
            print(f"note: {bench.name}: no ADBench data at {data}, skipped", file=sys.stderr)
            continue
        found = [i for i in inputs(bench, data, quick=False) if i.name == REPRESENTATIVE[bench.name]]
        chosen += [(bench, found[0])] if found else []
    return chosen


def measure_memory(work: list[tuple[Benchmark, Input]], tools: list[Tool], build_dir: Path,
                   problems: list[str]) -> list[MemoryUse]:
    counter = build_counter(build_dir)
    progress = Progress(len(work) * len(tools))
    found = []
    for bench, inp in work:
        for tool in tools:
            progress.step(f"memory {bench.name} {inp.name} {tool.name}")
            built = build_for_memory(tool, bench.program, build_dir / "memory", counter)
            if built.exe is None:
                problems.append(f"{tool.name} cannot build {bench.program}: {_headline(built.error)}")
                continue
            try:
                found.append(measure(built.exe, bench, inp, tool))
            except RunError as err:
                problems.append(f"memory {bench.name} {tool.name}: {err}")
    progress.finish()
    return found


def _headline(message: str | None) -> str:
    """The first line of a build failure and the last that names an error."""
    lines = [line.strip() for line in (message or "unknown error").splitlines() if line.strip()]
    errors = [line for line in lines[1:] if "error" in line.lower()]
    return "; ".join([lines[0], *errors[-1:]])


def _mb(n: int | None) -> str:
    return "-" if n is None else f"{n / 1e6:.2f}"


def memory_table(uses: list[MemoryUse], tools: list[str]) -> str:
    """Heap peak per tool and enzcc's tape, MB per derivative call."""
    keyed = {(u.benchmark, u.tool): u for u in uses}
    header = ["benchmark", "input", *(f"{t} heap peak MB" for t in tools), "enzcc tape MB",
              "enzcc tape / manual heap peak"]
    body = []
    for bench in dict.fromkeys(u.benchmark for u in uses):
        first = next(u for u in uses if u.benchmark == bench)
        manual, enzcc = keyed.get((bench, "manual")), keyed.get((bench, "enzcc"))
        share = (f"{enzcc.tape_bytes / manual.heap_peak:.1f}"
                 if manual and enzcc and enzcc.tape_bytes is not None and manual.heap_peak > 0 else "-")
        body.append([bench, first.input,
                     *(_mb(keyed[bench, t].heap_peak) if (bench, t) in keyed else "-" for t in tools),
                     _mb(enzcc.tape_bytes if enzcc else None), share])
    return report.markdown_table(header, body)


def compile_table(times: list[CompileTime], tools: list[str]) -> str:
    """Wall seconds per tool (CPU seconds in brackets) and enzcc's main stages."""
    keyed = {(c.program, c.tool): c for c in times}
    header = ["program", *(f"{t} s" for t in tools), *(f"enzcc {s}" for s in STAGES)]
    body = []
    for program in dict.fromkeys(c.program for c in times):
        cells = [f"{c.wall_s:.2f} ({c.cpu_s:.2f})" if (c := keyed.get((program, t))) else "-" for t in tools]
        enzcc = keyed.get((program, "enzcc"))
        stages = [f"{enzcc.stages.get(s, 0.0):.2f}" if enzcc else "-" for s in STAGES]
        body.append([program, *cells, *stages])
    return report.markdown_table(header, body)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tools = [t for t in standard_tools(enzcc=args.enzcc, enzyme_plugin=args.enzyme_plugin,
                                       enzyme_clang=args.enzyme_clang) if not t.missing]
    work = _chosen(args)
    if not work:
        print("error: nothing to measure", file=sys.stderr)
        return 2
    problems: list[str] = []
    uses = measure_memory(work, tools, args.build_dir, problems)
    programs = list(dict.fromkeys(b.program for b, _ in work))
    times = []
    for program in programs:
        for tool in tools:
            timed = time_build(tool, program, args.build_dir / "compile" / tool.name, args.repeat)
            if timed is None:
                problems.append(f"{tool.name} cannot build {program} (compile time)")
            else:
                times.append(timed)
    names = [t.name for t in tools]
    text = ("## Memory per derivative call\n\n" + memory_table(uses, names) +
            "\n\n## Compile time (wall s, CPU s in brackets)\n\n" + compile_table(times, names))
    if problems:
        text += "\n\n## Problems\n\n" + "\n".join(f"- {p}" for p in problems)
    print(text)
    page = f"# ADBench costs: {args.name}\n\n{report.machine_description()}\n\n{text}\n"
    report.replace_atomically(args.results / f"{args.name}.md", lambda tmp: tmp.write_text(page))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
