"""Builds and times the benchmark suite for every tool; writes CSV, tables, plot.

    python -m benchmarks.adbench.harness [--quick] [--only gmm,ba] [...]

For each benchmark and input, each tool's program (built once, see tools.py)
times the objective and the derivative in C and dumps the derivative; every
AD tool's derivative is checked against the hand-written one (1e-8, see
compare.py) before its timing is reported.  Results go to
benchmarks/adbench/results/<name>.csv, <name>.md (tables and machine) and
<name>.png.  Exit status: 0 all good (unavailable tools included), 1 a
program failed or disagreed, 2 bad usage or missing data.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import statistics
import sys
import tempfile
from array import array
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.adbench import report
from benchmarks.adbench.compare import TOOL_RTOL, worst_error
from benchmarks.adbench.progress import Progress
from benchmarks.adbench.runner import RunError, Timing, read_dump, run_time
from benchmarks.adbench.suite import BENCHMARKS, PROGRAMS, Benchmark, Input, inputs
from benchmarks.adbench.tools import Build, Tool, build, standard_tools

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DATA_ENV = "ENZC_ADBENCH_DATA"


class HarnessError(Exception):
    """Bad usage or missing inputs: reported as `error: ...`, exit status 2."""


def default_data_dir() -> Path:
    """$ENZC_ADBENCH_DATA, else ../shared/adbench next to the repository."""
    env = os.environ.get(DATA_ENV)
    return Path(env) if env else REPO.parent / "shared" / "adbench"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.adbench.harness",
        description="Time objective and gradient of the ADBench-style suite for each tool.",
    )
    p.add_argument("--quick", action="store_true", help="smallest input of each benchmark, short timings")
    p.add_argument("--data", type=Path, help=f"ADBench data directory (default ${DATA_ENV} or ../shared/adbench)")
    p.add_argument("--only", help="comma-separated benchmarks: " + ",".join(b.name for b in BENCHMARKS))
    p.add_argument("--exclude", action="append", default=[], metavar="TEXT",
                   help="skip inputs whose 'benchmark/input' contains TEXT (repeatable), e.g. 2.5M")
    p.add_argument("--tools", help="comma-separated tools to run (default: all that are configured)")
    p.add_argument("--enzcc", help="the enzcc to use (default: the venv's, else PATH)")
    p.add_argument("--enzyme-plugin", help="Enzyme's ClangEnzyme plugin (.so), for the 'enzyme' tool")
    p.add_argument("--enzyme-clang", help="the clang that plugin was built for")
    p.add_argument("--enzyme-flag", action="append", default=[], metavar="FLAG",
                   help="extra flag for the enzyme tool's compile (repeatable)")
    p.add_argument("--min-time", type=float, help="seconds per measurement (default 0.1 quick, 0.5 full)")
    p.add_argument("--min-runs", type=int, default=1, help="at least this many timed samples (default 1)")
    p.add_argument("--rounds", type=int, default=1,
                   help="measure each input this many times, the tools taking turns; report each "
                        "tool's medians (default 1)")
    p.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                   help="time by process CPU time (default: immune to other load) or wall time")
    p.add_argument("--name", help="results file name (default: quick or full)")
    p.add_argument("--results", type=Path, default=HERE / "results", help="results directory")
    p.add_argument("--build-dir", type=Path, default=HERE / "build", help="where binaries go")
    p.add_argument("--build-timeout", type=float, default=1800.0, help="seconds per build")
    p.add_argument("--run-timeout", type=float, default=7200.0, help="seconds per program run")
    p.add_argument("--no-plot", action="store_true", help="skip the PNG")
    args = p.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.enzyme_plugin is None or args.enzyme_clang is None:
        if args.enzyme_plugin or args.enzyme_clang:
            p.error("--enzyme-plugin and --enzyme-clang go together")
    if args.min_time is None:
        args.min_time = 0.1 if args.quick else 0.5
    if args.min_time < 0 or args.min_runs < 1 or args.rounds < 1:
        p.error("--min-time must be >= 0, --min-runs and --rounds >= 1")
    return args


@dataclass
class Plan:
    """What to run: benchmarks with their inputs, and the tools."""

    work: list[tuple[Benchmark, list[Input]]]
    tools: list[Tool]


def make_plan(args: argparse.Namespace) -> Plan:
    chosen = list(BENCHMARKS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = sorted(set(names) - {b.name for b in BENCHMARKS})
        if unknown:
            raise HarnessError(f"unknown benchmark(s) {', '.join(unknown)}; known: "
                               + ", ".join(b.name for b in BENCHMARKS))
        chosen = [b for b in BENCHMARKS if b.name in names]
    data = args.data or default_data_dir()
    if any(b.data_folder for b in chosen) and not data.is_dir():
        raise HarnessError(
            f"ADBench data not found at {data}: pass --data DIR or set {DATA_ENV} "
            "(the gmm/, ba/, lstm/ folders of microsoft/ADBench's data/; see docs/benchmarks.md), "
            "or run only the synthetic benchmarks with --only ode-euler,ode-rk4,fft,bruss,gpt"
        )
    work = []
    for b in chosen:
        found = inputs(b, data, args.quick)
        if not found:
            raise HarnessError(f"no inputs for {b.name} in {data / (b.data_folder or '')}")
        kept = [i for i in found if not any(x in f"{b.name}/{i.name}" for x in args.exclude)]
        if kept:
            work.append((b, kept))
    tools = standard_tools(
        enzcc=args.enzcc,
        enzyme_plugin=args.enzyme_plugin,
        enzyme_clang=args.enzyme_clang,
        enzyme_flags=tuple(args.enzyme_flag),
    )
    if args.tools:
        wanted = [t.strip() for t in args.tools.split(",") if t.strip()]
        unknown = sorted(set(wanted) - {t.name for t in tools})
        if unknown:
            raise HarnessError(f"unknown or unconfigured tool(s) {', '.join(unknown)}; configured: "
                               + ", ".join(t.name for t in tools))
        tools = [t for t in tools if t.name in wanted]
    if "manual" not in {t.name for t in tools}:
        raise HarnessError("the manual tool is the reference every gradient is checked against; keep it")
    if not work:
        raise HarnessError("nothing to run (every input excluded)")
    return Plan(work, tools)


def build_all(plan: Plan, build_dir: Path, timeout: float) -> dict[tuple[str, str], Build]:
    """Builds every (tool, program) the plan needs, in parallel."""
    programs = sorted({b.program for b, _ in plan.work})
    jobs = [(t, PROGRAMS[p]) for t in plan.tools for p in programs]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        done = list(pool.map(lambda job: build(*job, build_dir, timeout), jobs))
    return {(b.tool.name, b.program.name): b for b in done}


def _headline(message: str) -> str:
    """The line of a compiler's message that says what went wrong."""
    lines = [l.strip() for l in message.splitlines() if l.strip()]
    for line in lines[1:]:
        if "error" in line.lower():
            return line
    return lines[-1] if lines else message


def report_builds(builds: dict[tuple[str, str], Build]) -> tuple[list[str], list[str]]:
    """Per tool: what was built, and what is unavailable and why.

    Returns the full report (compiler messages included) and a short one
    (each message's key line) for the results summary."""
    full, short = [], []
    by_tool: dict[str, list[Build]] = {}
    for b in builds.values():
        by_tool.setdefault(b.tool.name, []).append(b)
    for tool, items in by_tool.items():
        ok = [b.program.name for b in items if b.exe]
        if ok:
            secs = sum(b.seconds for b in items if b.exe)
            full.append(f"{tool}: built {', '.join(ok)} ({secs:.1f} s)")
        errors: dict[str, list[str]] = {}
        for b in items:
            if not b.exe:
                errors.setdefault(b.error or "unknown error", []).append(b.program.name)
        for message, progs in errors.items():
            head = f"{tool}: unavailable for {', '.join(progs)}"
            full.append(f"{head}: {message}")
            short.append(f"{head}: {_headline(message)}")
    return full, short


@dataclass
class Outcome:
    rows: list[report.Row] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Failures and disagreements: the run's exit status is 1."""
    skipped: list[str] = field(default_factory=list)
    """Inputs left out for lack of memory."""


def available_memory() -> int | None:
    """Bytes of memory available now (Linux), or None if unknown."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


MEMORY_MARGIN = 0.8
"""Run an input only if its estimated memory fits in this share of what is free."""


def _skip_for_memory(inp: Input) -> str | None:
    """Why `inp` cannot run on this machine now, or None."""
    free = available_memory()
    if free is None or inp.memory <= MEMORY_MARGIN * free:
        return None
    return f"skipped, needs ~{inp.memory / 2**30:.1f} GiB, {free / 2**30:.1f} GiB available"


def _disagreement(timing: Timing, dump: array, ref_timing: Timing, ref_dump: array) -> str | None:
    """Why a tool's result cannot be reported, or None if it matches manual."""
    obj = worst_error([timing.objective], [ref_timing.objective])
    if obj.error > TOOL_RTOL:
        return f"objective differs from manual's: {obj}"
    if len(dump) != len(ref_dump):
        return f"derivative has {len(dump)} values, manual's {len(ref_dump)}"
    grad = worst_error(dump, ref_dump)
    if grad.error > TOOL_RTOL:
        return f"derivative differs from manual's at {grad}"
    return None


@dataclass
class InputRun:
    """Measures one input with each tool in turn, manual first."""

    bench: Benchmark
    inp: Input
    args: argparse.Namespace
    dump_dir: Path
    reference: tuple[Timing, array] | None = None
    """manual's timing and derivative, once measured."""

    def measure(self, tool: Tool, exe: Path) -> report.Row:
        """Times `tool`'s program; raises RunError if it fails or disagrees."""
        dump = self.dump_dir / f"{tool.name}.bin"
        timing = run_time(exe, self.bench, self.inp, min_time=self.args.min_time, min_runs=self.args.min_runs,
                          dump=dump, clock=self.args.clock, timeout=self.args.run_timeout)
        if tool.name == "manual":
            self.reference = (timing, read_dump(dump))
        elif self.reference is None:
            raise RunError("not checked (no manual result); timing not reported")
        else:
            problem = _disagreement(timing, read_dump(dump), *self.reference)
            if problem:
                raise RunError(problem)
        return report.Row(self.bench.name, self.inp.name, tool.name, timing.objective_s, timing.gradient_s)


def median_row(rows: list[report.Row]) -> report.Row:
    """One tool's rounds on one input as one row: the median of each time."""
    first = rows[0]
    return report.Row(first.benchmark, first.input, first.tool,
                      statistics.median(r.objective_s for r in rows),
                      statistics.median(r.gradient_s for r in rows))


def run_all(plan: Plan, builds: dict[tuple[str, str], Build], args: argparse.Namespace) -> Outcome:
    """Times every input with every built tool; checks AD derivatives against manual.

    With --rounds N each input is measured N times, the tools taking turns, so that
    a drift of the machine's load reaches every tool alike.
    """
    out = Outcome()
    runs = [(b, i, t) for b, ins in plan.work for i in ins for t in plan.tools if builds[t.name, b.program].exe]
    progress = Progress(len(runs) * args.rounds)
    args.build_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.build_dir, prefix="dumps-") as tmp:
        for bench, ins in plan.work:
            for inp in ins:
                skip = _skip_for_memory(inp)
                if skip:
                    out.skipped.append(f"{bench.name} {inp.name}: {skip}")
                    progress.note(f"note: {out.skipped[-1]}")
                current = InputRun(bench, inp, args, Path(tmp))
                measured: dict[str, list[report.Row]] = {}
                failed: set[str] = set()
                for _ in range(args.rounds):
                    for tool in plan.tools:
                        exe = builds[tool.name, bench.program].exe
                        if exe is None:
                            continue
                        progress.step(f"{bench.name} {inp.name} {tool.name}")
                        if skip or tool.name in failed:
                            continue
                        try:
                            measured.setdefault(tool.name, []).append(current.measure(tool, exe))
                        except RunError as err:
                            failed.add(tool.name)
                            measured.pop(tool.name, None)
                            out.problems.append(f"{bench.name} {inp.name} {tool.name}: {err}")
                            progress.note(f"error: {out.problems[-1]}")
                out.rows += [median_row(rows) for rows in measured.values()]
    progress.finish()
    return out


def write_outputs(args: argparse.Namespace, plan: Plan, outcome: Outcome, build_lines: list[str]) -> None:
    """The CSV, the Markdown report and the plot; the tables are printed too."""
    name = args.name or ("quick" if args.quick else "full")
    order = [b.name for b, _ in plan.work]
    csv_path = args.results / f"{name}.csv"
    report.write_csv(csv_path, outcome.rows)
    table = report.results_table(outcome.rows)
    summary = report.summary_table(report.summarize(outcome.rows, order))
    notes = build_lines + [f"problem: {p}" for p in outcome.problems] + outcome.skipped
    print(table + "\n\n" + summary)
    if notes:
        print("\n" + "\n".join(notes))
    setup = (f"`python -m benchmarks.adbench.harness {shlex.join(args.argv)}` "
             f"(min time per measurement {args.min_time} s, {args.clock} clock)")
    md_path = args.results / f"{name}.md"
    report.write_markdown(md_path, name, setup, summary, notes, table)
    written = [csv_path, md_path]
    if not args.no_plot and outcome.rows:
        try:
            sizes = {(b.name, i.name): i.size for b, ins in plan.work for i in ins}
            report.plot(args.results / f"{name}.png", outcome.rows, sizes, order)
            written.append(args.results / f"{name}.png")
        except ImportError:
            print("note: no plot: matplotlib is missing (pip install -e '.[bench]')", file=sys.stderr)
    print("\nwrote " + ", ".join(str(p) for p in written))


def run(args: argparse.Namespace) -> int:
    plan = make_plan(args)
    builds = build_all(plan, args.build_dir, args.build_timeout)
    full, short = report_builds(builds)
    for line in full:
        print(line, file=sys.stderr)
    outcome = run_all(plan, builds, args)
    write_outputs(args, plan, outcome, short)
    return 1 if outcome.problems else 0


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C: the running program is killed, temporary
    files go."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        return run(args)
    except HarnessError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted; no results written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
