"""Results: the CSV, the printed tables, the summary ratios and the plot.

The summary follows the issue's closing note: per benchmark, the geometric
mean over inputs of gradient time / objective time for each tool, each AD
tool's ratio to the manual derivative, each AD tool's objective time over
manual's (clang-22 -O2's build of the same objective), enzcc's gradient time
over real Enzyme's when it ran, and the geometric-mean speedup of enzcc over
enzcc-ref (the AD-before-optimization pipeline) across the suite.
"""

from __future__ import annotations

import csv
import datetime
import math
import os
import platform
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

CSV_COLUMNS = ("benchmark", "input", "tool", "objective_s", "gradient_s")


@dataclass(frozen=True)
class Row:
    """One measurement: a tool on one input of one benchmark."""

    benchmark: str
    input: str
    tool: str
    objective_s: float
    gradient_s: float

    @property
    def ratio(self) -> float:
        """Gradient (or Jacobian) time / objective time, both in this tool's build."""
        return self.gradient_s / self.objective_s


def replace_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Writes through a temporary file, so no half-written result is left."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_csv(path: Path, rows: Iterable[Row]) -> None:
    def write(tmp: Path) -> None:
        with tmp.open("w", newline="") as f:
            out = csv.writer(f)
            out.writerow(CSV_COLUMNS)
            for r in rows:
                out.writerow((r.benchmark, r.input, r.tool, f"{r.objective_s:.6e}", f"{r.gradient_s:.6e}"))

    replace_atomically(path, write)


def read_csv(path: Path) -> list[Row]:
    with path.open(newline="") as f:
        return [
            Row(d["benchmark"], d["input"], d["tool"], float(d["objective_s"]), float(d["gradient_s"]))
            for d in csv.DictReader(f)
        ]


def geometric_mean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def markdown_table(header: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    """A Markdown table with aligned columns: readable printed and rendered."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *body, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), rule, *map(line, body)])


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def results_table(rows: Sequence[Row]) -> str:
    """Every measurement, one line each."""
    body = [
        (r.benchmark, r.input, r.tool, f"{r.objective_s:.3e}", f"{r.gradient_s:.3e}", f"{r.ratio:.2f}")
        for r in rows
    ]
    return markdown_table(("benchmark", "input", "tool", "objective_s", "gradient_s", "gradient/objective"), body)


def _order(names: Iterable[str], preferred: Sequence[str]) -> list[str]:
    names = set(names)
    return [n for n in preferred if n in names] + sorted(names - set(preferred))


TOOL_ORDER = ("manual", "enzcc", "enzcc-ref", "enzyme")


@dataclass(frozen=True)
class Summary:
    benchmarks: list[str]
    tools: list[str]
    ratio: dict[tuple[str, str], float]
    """(benchmark, tool) -> geometric mean over inputs of gradient/objective."""
    versus_manual: dict[tuple[str, str], float]
    """(benchmark, AD tool) -> geometric mean over shared inputs of the tool's
    ratio divided by manual's."""
    objective_vs_manual: dict[tuple[str, str], float]
    """(benchmark, AD tool) -> geometric mean over shared inputs of the tool's
    objective time divided by manual's (the same C built by clang-22 -O2)."""
    versus_enzyme: dict[str, float]
    """benchmark -> geometric mean over shared inputs of enzcc's gradient time
    divided by enzyme's."""
    enzyme_overall: float | None
    """The same over every input of the suite, or None without enzyme results."""
    ref_speedup: float | None
    """Geometric mean over all shared inputs of enzcc-ref's gradient time
    divided by enzcc's, or None when either has no results."""
    ref_pairs: int


Pairs = list[tuple[Row, Row]]


def _pairs(rows: Sequence[Row], tool: str, other: str, benchmark: str | None = None) -> Pairs:
    """(tool's row, other's row) for every input both measured."""
    by_key = {(r.benchmark, r.input, r.tool): r for r in rows}
    return [
        (r, by_key[r.benchmark, r.input, other])
        for r in rows
        if r.tool == tool and (benchmark is None or r.benchmark == benchmark)
        and (r.benchmark, r.input, other) in by_key
    ]


def _mean_of(pairs: Pairs, ratio: Callable[[Row, Row], float]) -> float | None:
    return geometric_mean([ratio(a, b) for a, b in pairs]) if pairs else None


def summarize(rows: Sequence[Row], benchmark_order: Sequence[str] = ()) -> Summary:
    benchmarks = _order({r.benchmark for r in rows}, benchmark_order)
    tools = _order({r.tool for r in rows}, TOOL_ORDER)
    ratio, versus, objective, enzyme = {}, {}, {}, {}
    for b in benchmarks:
        for t in tools:
            mine = [r for r in rows if r.benchmark == b and r.tool == t]
            if mine:
                ratio[b, t] = geometric_mean([r.ratio for r in mine])
            if t == "manual":
                continue
            pairs = _pairs(rows, t, "manual", b)
            if pairs:
                versus[b, t] = _mean_of(pairs, lambda a, m: a.ratio / m.ratio)
                objective[b, t] = _mean_of(pairs, lambda a, m: a.objective_s / m.objective_s)
        if (found := _mean_of(_pairs(rows, "enzcc", "enzyme", b), _gradients)) is not None:
            enzyme[b] = found
    ref = _pairs(rows, "enzcc-ref", "enzcc")
    return Summary(benchmarks, tools, ratio, versus, objective, enzyme,
                   _mean_of(_pairs(rows, "enzcc", "enzyme"), _gradients),
                   _mean_of(ref, _gradients), len(ref))


def _gradients(a: Row, b: Row) -> float:
    return a.gradient_s / b.gradient_s


def summary_table(s: Summary) -> str:
    """Per benchmark: each tool's geometric-mean ratio, each AD tool vs manual,
    each AD tool's objective vs manual's, enzcc's gradient vs Enzyme's."""
    ad_tools = [t for t in s.tools if t != "manual"]
    header = ["benchmark", *(f"{t} grad/obj" for t in s.tools), *(f"{t}/manual" for t in ad_tools),
              *(f"{t} obj/manual obj" for t in ad_tools)]
    with_enzyme = bool(s.versus_enzyme)
    if with_enzyme:
        header.append("enzcc grad/enzyme grad")
    body = [
        [b, *(_fmt(s.ratio.get((b, t))) for t in s.tools), *(_fmt(s.versus_manual.get((b, t))) for t in ad_tools),
         *(_fmt(s.objective_vs_manual.get((b, t))) for t in ad_tools),
         *([_fmt(s.versus_enzyme.get(b))] if with_enzyme else [])]
        for b in s.benchmarks
    ]
    text = markdown_table(header, body)
    if s.ref_speedup is None:
        text += "\n\nenzcc speedup over enzcc-ref: - (needs results from both)"
    else:
        text += (
            f"\n\nenzcc speedup over enzcc-ref (geometric mean of gradient-time ratios over "
            f"{s.ref_pairs} inputs): {s.ref_speedup:.2f}x"
        )
    if s.enzyme_overall is not None:
        text += (f"\n\nenzcc gradient time / enzyme gradient time, geometric mean over every "
                 f"input both ran: {s.enzyme_overall:.2f}")
    return text


def write_markdown(path: Path, name: str, setup: str, summary: str, notes: Sequence[str], table: str) -> None:
    """The run as a Markdown page: when, where, how, summary, notes, all rows."""
    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    parts = [f"# ADBench results: {name}", f"{when}; {machine_description()}", setup, "## Summary", summary]
    if notes:
        parts += ["## Notes", "\n".join(f"- {n}" for n in notes)]
    parts += ["## All measurements", table]
    text = "\n\n".join(parts) + "\n"
    replace_atomically(path, lambda tmp: tmp.write_text(text))


def machine_description() -> str:
    """CPU, cores, OS and compiler, for the record next to the numbers."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        clang = subprocess.run(["clang-22", "--version"], capture_output=True, text=True, timeout=30)
        compiler = clang.stdout.splitlines()[0] if clang.stdout else "clang-22: unknown version"
    except (OSError, subprocess.TimeoutExpired):
        compiler = "clang-22: not found"
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; {compiler}"


def plot(path: Path, rows: Sequence[Row], sizes: dict[tuple[str, str], int], benchmark_order: Sequence[str]) -> None:
    """Gradient/objective ratio against input size, one line per tool, one
    panel per benchmark.  Needs matplotlib (the `bench` extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    benchmarks = _order({r.benchmark for r in rows}, benchmark_order)
    cols = min(3, len(benchmarks))
    nrows = math.ceil(len(benchmarks) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.6 * cols, 3.6 * nrows), squeeze=False)
    for ax, b in zip(axes.flat, benchmarks):
        for t in _order({r.tool for r in rows if r.benchmark == b}, TOOL_ORDER):
            points = sorted((sizes[b, r.input], r.ratio) for r in rows if r.benchmark == b and r.tool == t)
            ax.plot([p[0] for p in points], [p[1] for p in points], "o-", label=t, markersize=4)
        ax.set_xscale("log")
        ax.set_title(b)
        ax.set_xlabel("input size (floating-point values read)")
        ax.set_ylabel("gradient time / objective time")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    for ax in list(axes.flat)[len(benchmarks):]:
        ax.set_visible(False)
    fig.tight_layout()
    replace_atomically(path, lambda tmp: fig.savefig(tmp, format="png", dpi=110))
    plt.close(fig)
