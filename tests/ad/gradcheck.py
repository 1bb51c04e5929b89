"""End-to-end gradient checks: build a C/C++/IR test program with enzcc, run it, and
compare the gradients it prints against the references it prints.

Why the reference lives in the C program: the test then exercises exactly what a user
does (write C, call `__enzyme_autodiff`, build with `enzcc`), and the reference is
computed by the same compiler from the same primal code, independent of the AD
engine's internals. Each program prints one line per gradient entry:

    grad <name> <enzyme value> <reference value>        (values printed with %.17g)

The reference is either an analytic derivative written in C, or a central finite
difference `(f(x+h) - f(x-h)) / 2h` of the primal, with `h` chosen in the program
(usually 1e-6 relative to |x|, i.e. near cbrt(machine epsilon) where truncation error
h^2 |f'''| and rounding error eps |f| / h balance at about 1e-11 relative).

The program's leading comment block declares how to build and check it:

    // tol: rel=1e-9 abs=1e-12     agreement required: |enz - ref| <= abs + rel * |ref|
    // grads: 3                    number of `grad` lines the program must print
    // sources: other.c            more sources built with it (relative to the program)
    // objects: impl.c             built by plain clang-22 -c (no bitcode: opaque to AD)
    // flags: -fno-exceptions      extra compiler flags
    // build: make                 built by `make CC=enzcc` in a copy of its directory
    // cpu: avx2 fma               x86 features it needs (/proc/cpuinfo names): skipped without

(`;` instead of `//` in .ll programs.) Tolerances, and why they differ:
- analytic references in double: rel=1e-12. AD and the hand-written derivative compute
  the same expression in a different order, so they agree to a few ulps times the
  condition of the expression; long recurrences and iterations (where rounding
  differences are amplified step by step) declare 1e-10 or 1e-9.
- analytic references for float code: rel=1e-5 (float has 24 bits: ~6e-8 per op;
  the reference is evaluated in double from the same float inputs).
- finite differences: rel=1e-6, abs sized to the gradient's scale; the FD truncation
  and cancellation error is ~1e-10 relative, so 1e-6 still catches any wrong rule
  (a wrong rule is off by O(1), a dropped term by at least 1e-3 in these programs).
No program may declare rel looser than 1e-5 (test_gradients_harness checks).

A check fails if the build fails, the program exits non-zero or times out, prints no
`grad` line or a different number than declared, or any value is NaN or infinite.
"""

from __future__ import annotations

import functools
import math
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parent / "programs"
VENV_BIN = REPO / ".venv" / "bin"
ENZCC = VENV_BIN / "enzcc"
ENZCXX = VENV_BIN / "enzc++"
PLAIN_CC = "clang-22"

COMPILE_TIMEOUT = 300
RUN_TIMEOUT = 60

_DIRECTIVE = re.compile(r"^\s*(?://|;)\s*([a-z-]+):\s*(.*?)\s*$")
_GRAD_LINE = re.compile(r"^grad\s+(\S+)\s+(\S+)\s+(\S+)\s*$")
_TOL_FIELD = re.compile(r"(rel|abs)=(\S+)")


@dataclass(frozen=True)
class Tolerance:
    """Agreement required between the AD gradient and the reference."""

    rel: float
    """Relative to |reference|."""
    abs: float
    """Absolute floor, for entries whose reference is (near) zero."""

    def accepts(self, enzyme: float, reference: float) -> bool:
        return abs(enzyme - reference) <= self.abs + self.rel * abs(reference)


@dataclass(frozen=True)
class Program:
    """One test program and how to build it, read from its header comment."""

    path: Path
    """The main source (.c, .cpp or .ll) or, for `build: make`, the program's main.c."""
    name: str
    """Id used in test names: the path below rev1/ or rev2/ without suffix."""
    tol: Tolerance
    grads: int
    """How many `grad` lines the program must print."""
    sources: tuple[Path, ...] = ()
    objects: tuple[Path, ...] = ()
    flags: tuple[str, ...] = ()
    make: bool = False
    cpu: tuple[str, ...] = ()
    """Processor features (as /proc/cpuinfo lists them) its flags (`-mavx2`) need to run."""

    @property
    def is_cxx(self) -> bool:
        return self.path.suffix in (".cpp", ".cc", ".cxx")


@dataclass(frozen=True)
class GradLine:
    """One `grad` line of a program's output."""

    name: str
    enzyme: float
    reference: float


@dataclass
class BuildResult:
    """What building a program produced: the executable, or the failing command."""

    exe: Path | None
    command: list[str] = field(default_factory=list)
    returncode: int = 0
    stderr: str = ""


def parse_header(path: Path) -> dict[str, str]:
    """The `key: value` directives of the leading comment block of `path`."""
    directives: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        if not line.lstrip().startswith(("//", ";")):
            break
        if m := _DIRECTIVE.match(line):
            directives[m.group(1)] = m.group(2)
    return directives


def parse_tolerance(text: str) -> Tolerance:
    fields = dict(_TOL_FIELD.findall(text))
    if "rel" not in fields:
        raise ValueError(f"tolerance {text!r} lacks rel=")
    return Tolerance(rel=float(fields["rel"]), abs=float(fields.get("abs", "0")))


def load_program(path: Path, root: Path) -> Program | None:
    """The program at `path`, or None for a helper file (no `tol:` directive)."""
    d = parse_header(path)
    if "tol" not in d:
        return None
    if "grads" not in d:
        raise ValueError(f"{path}: `tol:` without `grads:`")
    rel = path.relative_to(root)
    name = str(rel.parent) if d.get("build") == "make" else str(rel.with_suffix(""))
    here = path.parent
    return Program(
        path=path,
        name=name,
        tol=parse_tolerance(d["tol"]),
        grads=int(d["grads"]),
        sources=tuple(here / s for s in d.get("sources", "").split()),
        objects=tuple(here / s for s in d.get("objects", "").split()),
        flags=tuple(d.get("flags", "").split()),
        make=d.get("build") == "make",
        cpu=tuple(d.get("cpu", "").split()),
    )


def discover(subdir: str) -> list[Program]:
    """All programs under programs/<subdir>, sorted by name."""
    root = PROGRAMS / subdir
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix in (".c", ".cpp", ".ll") and path.is_file():
            if (prog := load_program(path, root)) is not None:
                found.append(prog)
    return sorted(found, key=lambda p: p.name)


def _run(cmd: list[str], cwd: Path | None = None, timeout: int = COMPILE_TIMEOUT,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `cmd`; a timeout becomes a failed result (exit code -1), not an exception."""
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              env=env)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, -1, "", f"timed out after {timeout}s")


def build(prog: Program, config: str, outdir: Path) -> BuildResult:
    """Build `prog` with enzcc under `config` (e.g. "-O2 -g") into `outdir`."""
    opts = config.split()
    if prog.make:
        return _build_make(prog, opts, outdir)
    driver = str(ENZCXX if prog.is_cxx else ENZCC)
    exe = outdir / "prog"
    objs: list[str] = []
    for src in prog.objects:
        obj = outdir / (src.stem + ".plain.o")
        cmd = [PLAIN_CC, "-O2", "-c", str(src), "-o", str(obj)]
        r = _run(cmd)
        if r.returncode != 0:
            return BuildResult(None, cmd, r.returncode, r.stderr)
        objs.append(str(obj))
    cmd = [driver, *opts, *prog.flags, str(prog.path), *map(str, prog.sources), *objs,
           "-lm", "-o", str(exe)]
    r = _run(cmd)
    if r.returncode != 0 or not exe.exists():
        return BuildResult(None, cmd, r.returncode, r.stderr)
    return BuildResult(exe, cmd, 0, r.stderr)


def _build_make(prog: Program, opts: list[str], outdir: Path) -> BuildResult:
    """`CC=enzcc make` in a private copy of the program's directory (xdist-safe)."""
    work = outdir / "src"
    shutil.copytree(prog.path.parent, work)
    cmd = ["make", "-s", f"CC={ENZCC}", f"CFLAGS={' '.join(opts)}", "prog"]
    r = _run(cmd, cwd=work)
    exe = work / "prog"
    if r.returncode != 0 or not exe.exists():
        return BuildResult(None, cmd, r.returncode, r.stdout + r.stderr)
    return BuildResult(exe, cmd, 0, r.stderr)


def parse_grad_lines(stdout: str) -> list[GradLine]:
    """The `grad` lines of `stdout`; a malformed `grad` line is an error."""
    lines = []
    for line in stdout.splitlines():
        if not line.startswith("grad"):
            continue
        m = _GRAD_LINE.match(line)
        if m is None:
            raise AssertionError(f"malformed grad line: {line!r}")
        lines.append(GradLine(m.group(1), float(m.group(2)), float(m.group(3))))
    return lines


def check_output(stdout: str, tol: Tolerance, expected: int) -> list[GradLine]:
    """Assert that `stdout` holds `expected` grad lines, all finite and in tolerance."""
    lines = parse_grad_lines(stdout)
    if not lines:
        raise AssertionError("the program printed no `grad` line:\n" + stdout[-2000:])
    if len(lines) != expected:
        raise AssertionError(f"expected {expected} grad lines, got {len(lines)}:\n"
                             + stdout[-2000:])
    bad = []
    for g in lines:
        finite = math.isfinite(g.enzyme) and math.isfinite(g.reference)
        if not finite or not tol.accepts(g.enzyme, g.reference):
            err = abs(g.enzyme - g.reference) if finite else math.nan
            bad.append(f"  {g.name}: enzyme={g.enzyme!r} reference={g.reference!r} "
                       f"|diff|={err:.3g}")
    if bad:
        raise AssertionError(f"{len(bad)} of {len(lines)} gradient entries disagree "
                             f"(rel={tol.rel:g} abs={tol.abs:g}):\n" + "\n".join(bad))
    return lines


def run_and_check(prog: Program, config: str, outdir: Path) -> list[GradLine]:
    """Build, run and check one program under one configuration."""
    b = build(prog, config, outdir)
    if b.exe is None:
        raise AssertionError(f"build failed (exit {b.returncode}): {' '.join(b.command)}\n"
                             + b.stderr[-4000:])
    env = dict(os.environ, LC_ALL="C")
    r = _run([str(b.exe)], cwd=outdir, timeout=RUN_TIMEOUT, env=env)
    if r.returncode != 0:
        raise AssertionError(f"{prog.name} exited with {r.returncode}:\n"
                             + (r.stdout + r.stderr)[-3000:])
    return check_output(r.stdout, prog.tol, prog.grads)


@functools.cache
def cpu_features() -> frozenset[str]:
    """The `flags` of /proc/cpuinfo (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    found = re.search(r"^flags\s*:(.*)$", text, re.MULTILINE)
    return frozenset(found.group(1).split()) if found else frozenset()


def params(programs: list[Program], configs: list[str],
           xfail: dict[str, str]) -> list[pytest.ParameterSet]:
    """pytest params with ids `name[config]`.

    `xfail` maps a program name, or one `name[config]`, to the reason it fails today;
    the mark is strict, so a test that starts passing fails until its entry is removed.
    """
    out = []
    for prog in programs:
        for config in configs:
            ident = f"{prog.name}[{config}]"
            reason = xfail.get(ident) or xfail.get(prog.name)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            if missing := [f for f in prog.cpu if f not in cpu_features()]:
                marks.append(pytest.mark.skip(reason=f"this processor lacks {' '.join(missing)}"))
            out.append(pytest.param(prog, config, id=ident, marks=marks))
    return out
