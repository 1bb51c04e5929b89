"""Enzyme's own integration tests, built by enzcc and by real Enzyme side by side.

Enzyme's `test/Integration` folders hold C/C++ programs that call `__enzyme_*` and
check their results themselves (`APPROX_EQ` aborts on a wrong value; some pipe the
output through FileCheck). Each test's RUN lines say how Enzyme's lit suite builds
it; this script takes the flags of the RUN line at the chosen optimization level,
builds the program as an executable with enzcc (or enzc++) and, when its plugin is
given, with clang + ClangEnzyme, runs both and prints one row per test:

    test                          enzyme      enzcc      enzcc's message

`pass` = built, exited 0 (and FileCheck accepted the output where the RUN line
uses it), or, for a `-Xclang -verify` test, refused with an error at the line of
one of its `expected-error` comments (a test that expects only remarks is skipped);
`error` = the compiler refused it (enzcc's first `error:` line is shown: a located
error is the accepted way for enzcc to decline); `wrong` = built but the
program failed its own checks, crashed or timed out. Enzyme's sources are not part
of this repository: fetch them (docs/benchmarks.md) and pass their root.

    .venv/bin/python -m benchmarks.enzyme_integration --enzyme-src DIR \\
        [--folders ReverseMode,ForwardMode] [--opt O2] [--jobs 2] \\
        [--enzyme-plugin .../ClangEnzyme-19.so --enzyme-clang clang-19] [--markdown FILE]

Not a test: nothing here runs in `make test` (the sources are not in the tree).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from benchmarks.adbench.tools import clang_major_version, enzyme_plugin_flags

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = REPO / ".venv" / "bin"
FOLDERS = ("ReverseMode", "ForwardMode", "ForwardModeVector", "BatchMode", "CppSugar", "ForwardError",
           "Sparse", "Truncate")
COMPILE_TIMEOUT = 600
RUN_TIMEOUT = 120
FILECHECK = "FileCheck-22"

_DROPPED = {"-S", "-emit-llvm", "-c", "-"}
"""RUN-line words that make lit's pipeline (IR to stdout, then opt/lli), not an executable."""


@dataclass(frozen=True)
class Recipe:
    """How one test is built: the compiler kind, its flags, whether FileCheck judges it."""

    cxx: bool
    flags: tuple[str, ...]
    filecheck: bool
    verify: bool = False
    """A `-Xclang -verify` test: judged by its `expected-error` comments (`refused`)."""
    expected_errors: tuple[ExpectedError, ...] = ()


@dataclass(frozen=True)
class ExpectedError:
    """One `expected-error` of a `-verify` test: at `line` of the test itself, or
    (`expected-error@FILE:N`) in a header, where only clang's own text can match."""

    line: int | None
    text: str


def expected_errors(source: Path) -> tuple[ExpectedError, ...]:
    """The `expected-error {{...}}` comments of `source`."""
    found = []
    for number, line in enumerate(source.read_text(errors="replace").splitlines(), start=1):
        for elsewhere, text in re.findall(r"expected-error(@\S+)?\s*\{\{(.*?)\}\}", line):
            found.append(ExpectedError(None if elsewhere else number, text))
    return tuple(found)


def refused(source: Path, stderr: str, expected: tuple[ExpectedError, ...]) -> bool:
    """Whether a compiler's errors are those a `-verify` test expects: one at the
    line of an `expected-error` of the test (messages differ between Enzyme and
    enzcc), or, for one placed in a header, clang's own message."""
    for want in expected:
        if want.line is not None and re.search(rf"{re.escape(source.name)}:{want.line}:\d+: (fatal )?error:", stderr):
            return True
        if want.line is None and want.text and want.text in stderr:
            return True
    return False


@dataclass(frozen=True)
class Outcome:
    verdict: str
    """pass, error, wrong, or skip (no RUN line at this level, or a test of remarks)."""
    message: str = ""


def recipe(source: Path, opt: str) -> Recipe | None:
    """The flags of the first RUN line that compiles `source` at `-<opt>` (None if none)."""
    for line in source.read_text(errors="replace").splitlines():
        if "RUN:" not in line:
            continue
        command = line.split("RUN:", 1)[1]
        found = re.search(r"%clang(\+\+)?\s([^|;&]*)", command)
        if found is None or "%s" not in found.group(2):
            continue
        words = shlex.split(found.group(2).replace("%O0TBAA", "-O0"))
        if f"-{opt}" not in words:
            continue
        flags: list[str] = []
        skip_next = False
        for w in words:
            if skip_next:
                skip_next = False
            elif w in ("-mllvm", "-o"):  # Enzyme's own cl::opts, lit's output: not enzcc's business
                skip_next = True
            elif w not in _DROPPED and not w.startswith("%"):
                flags.append(w)
        verify = "-verify" in flags
        if verify:
            del flags[flags.index("-verify") - 1: flags.index("-verify") + 1]  # `-Xclang -verify`
        return Recipe(cxx=found.group(1) is not None or source.suffix in (".cpp", ".cc"), flags=tuple(flags),
                      filecheck="FileCheck" in command, verify=verify,
                      expected_errors=expected_errors(source) if verify else ())
    return None


def build_and_run(compiler: list[str], source: Path, how: Recipe, work: Path, name: str) -> Outcome:
    """Compile `source` to an executable with `compiler` and run it."""
    if how.verify and not how.expected_errors:
        return Outcome("skip", "checks compiler remarks (-Xclang -verify without expected errors)")
    exe = work / name
    includes = [f"-I{source.parent}", f"-I{source.parent.parent}", "-I/usr/include/eigen3"]
    cmd = [*compiler, *how.flags, *includes, *_mpi_flags(source), str(source), "-o", str(exe), "-lm"]
    if how.cxx:
        cmd.append("-lstdc++")
    try:
        built = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
    except subprocess.TimeoutExpired:
        return Outcome("error", "compile timeout")
    if how.verify:
        if built.returncode == 0:
            return Outcome("wrong", "built a program the test expects to be refused")
        verdict = "pass" if refused(source, built.stderr, how.expected_errors) else "wrong"
        return Outcome(verdict, _first_error(built.stderr))
    if built.returncode != 0:
        return Outcome("error", _first_error(built.stderr))
    try:
        ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=work,
                             env=dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2")))
    except subprocess.TimeoutExpired:
        return Outcome("wrong", "run timeout")
    if ran.returncode != 0:
        return Outcome("wrong", f"exit {ran.returncode}: {_last_line(ran.stderr or ran.stdout)}")
    if how.filecheck:
        checked = subprocess.run([FILECHECK, str(source)], input=ran.stdout + ran.stderr, capture_output=True,
                                 text=True, timeout=RUN_TIMEOUT)
        if checked.returncode != 0:
            return Outcome("wrong", f"FileCheck: {_first_error(checked.stderr)}")
    return Outcome("pass")


def _mpi_flags(source: Path) -> list[str]:
    """What `mpicc` adds (Open MPI's include and library flags) for a test using MPI."""
    if "mpi.h" not in source.read_text(errors="replace"):
        return []
    try:
        return [*shlex.split(subprocess.run(["mpicc", "--showme:compile"], capture_output=True, text=True).stdout),
                *shlex.split(subprocess.run(["mpicc", "--showme:link"], capture_output=True, text=True).stdout)]
    except OSError:
        return []


def _first_error(text: str) -> str:
    """The first `error:` line of a compiler's output (else its first line)."""
    lines = [ln for ln in text.splitlines() if re.search(r"(^|: )(fatal )?error:", ln)] or text.splitlines() or [""]
    return lines[0].strip()[:160]


def _last_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()] or [""]
    return lines[-1].strip()[:160]


def tests_in(root: Path, folders: list[str]) -> list[Path]:
    integration = root / "test" / "Integration" if (root / "test" / "Integration").is_dir() else root
    found = []
    for folder in folders:
        found += sorted(p for p in (integration / folder).glob("*") if p.suffix in (".c", ".cpp", ".cc"))
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--enzyme-src", required=True, type=Path, help="root of an Enzyme source tree (or its test/Integration)")
    ap.add_argument("--folders", default=",".join(FOLDERS), help="comma-separated folders of test/Integration")
    ap.add_argument("--opt", default="O2", help="the RUN line's optimization level to use (O0..O3)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tests", help="comma-separated substrings: only the tests whose path contains one")
    ap.add_argument("--enzyme-plugin", help="ClangEnzyme-NN.so: also build each test with real Enzyme")
    ap.add_argument("--enzyme-clang", default="clang-19", help="the clang the plugin was built for")
    ap.add_argument("--markdown", type=Path, help="also write the table as Markdown to this file")
    ap.add_argument("--extra-flags", default="",
                    help="flags added to every build by both compilers (e.g. '-march=native')")
    args = ap.parse_args(argv)

    tests = tests_in(args.enzyme_src, args.folders.split(","))
    if args.tests:
        tests = [t for t in tests if any(part in str(t) for part in args.tests.split(","))]
    if not tests:
        print(f"error: no tests under {args.enzyme_src}", file=sys.stderr)
        return 1
    plugin = (list(enzyme_plugin_flags(args.enzyme_plugin, clang_major_version(args.enzyme_clang)))
              if args.enzyme_plugin else None)

    def one(source: Path) -> tuple[str, Outcome | None, Outcome]:
        name = f"{source.parent.name}/{source.name}"
        how = recipe(source, args.opt)
        if how is None:
            return name, None, Outcome("skip", f"no RUN line at -{args.opt}")
        how = replace(how, flags=(*how.flags, *shlex.split(args.extra_flags)))
        with tempfile.TemporaryDirectory(prefix="enzc-integration-") as tmp:
            work = Path(tmp)
            enzcc = [str(VENV_BIN / ("enzc++" if how.cxx else "enzcc"))]
            ours = build_and_run(enzcc, source, how, work, "enzcc")
            theirs = None
            if plugin is not None:
                clang = args.enzyme_clang.replace("clang", "clang++", 1) if how.cxx else args.enzyme_clang
                theirs = build_and_run([clang, *plugin], source, how, work, "enzyme")
        return name, theirs, ours

    rows = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for k, row in enumerate(pool.map(one, tests), start=1):
            rows.append(row)
            print(f"[{k}/{len(tests)}] {row[0]}: enzyme {row[1].verdict if row[1] else '-'}, enzcc {row[2].verdict}",
                  file=sys.stderr, flush=True)
    print_table(rows, args.opt, args.markdown)
    return 0


def print_table(rows: list[tuple[str, Outcome | None, Outcome]], opt: str, markdown: Path | None) -> None:
    width = max(len(r[0]) for r in rows)
    print()
    lines = [f"| test (-{opt}) | Enzyme | enzcc | enzcc's message |", "|---|---|---|---|"]
    for name, theirs, ours in rows:
        enzyme = theirs.verdict if theirs else "-"
        print(f"{name:<{width}}  {enzyme:<6} {ours.verdict:<6} {ours.message}")
        lines.append(f"| {name} | {enzyme} | {ours.verdict} | {ours.message.replace('|', '/')} |")
    runnable = [r for r in rows if r[2].verdict != "skip"]
    enzyme_pass = {r[0] for r in runnable if r[1] and r[1].verdict == "pass"}
    ours_pass = {r[0] for r in runnable if r[2].verdict == "pass"}
    summary = (f"{len(runnable)} tests at -{opt}: enzcc passes {len(ours_pass)}, "
               f"wrong {sum(r[2].verdict == 'wrong' for r in runnable)}, "
               f"errors {sum(r[2].verdict == 'error' for r in runnable)}")
    if any(r[1] for r in runnable):
        summary += (f"; Enzyme passes {len(enzyme_pass)}; Enzyme passes and enzcc does not: "
                    f"{len(enzyme_pass - ours_pass)} ({', '.join(sorted(enzyme_pass - ours_pass)) or 'none'})")
    print(summary)
    if markdown:
        markdown.write_text("\n".join(lines) + "\n\n" + summary + "\n")


if __name__ == "__main__":
    sys.exit(main())
