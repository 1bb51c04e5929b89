"""Check random functions: build units, attribute rejections and failures to single
functions, run, resample FD-unreliable points, and give each (seed, -O) an outcome.

Outcomes: pass (all three oracles), pass_ad_only (forward/reverse and primal checks
passed, but finite differences straddled a kink at every point tried), rejected
(a located `error: enzc:`), and the failures: wrong (a gradient or primal check
failed), internal (exit 70 / traceback), compile_crash, compile_hang, run_crash,
run_hang; invalid means the generator wrote bad C or a non-finite primal (its bug).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path

from .build import BuildOutcome, build, rejection_class, run
from .generator import RandomFunction
from .harness import render_unit
from .oracle import Measurement, Verdict, judge, judge_promoted, parse
from .promote import promote

FAILURES = ("wrong", "internal", "compile_crash", "compile_hang", "run_crash", "run_hang")
POINTS = 5
"""Input points tried before a function whose FD never becomes reliable is pass_ad_only."""
_BUILD_FAILURE = {"internal": "internal", "crash": "compile_crash", "hang": "compile_hang",
                  "invalid": "invalid"}


@dataclass
class Result:
    """The outcome of one function at one optimization level."""

    seed: int
    opt: str
    outcome: str
    detail: str = ""
    """The rejection message, the oracle's complaints, or the failing command's stderr tail."""
    rejection_class: str = ""
    points: int = 0
    fd_error: float = 0.0
    dot_error: float = 0.0
    features: list[str] = field(default_factory=list)
    precision: str = "double"
    partial: str = ""
    """For a rejected function: how the first mode that builds alone did ("reverse
    only: pass"), or why each mode alone is rejected too."""

    @property
    def failed(self) -> bool:
        return self.outcome in FAILURES


def _seed_of(function_name: str) -> int | None:
    m = re.match(r"rp(\d+)", function_name)
    return int(m.group(1)) if m else None


def _build_result(fn: RandomFunction, opt: str, b: BuildOutcome) -> Result:
    if b.status == "rejected":
        return Result(fn.seed, opt, "rejected", b.message, rejection_class(b.message),
                      features=list(fn.features))
    return Result(fn.seed, opt, _BUILD_FAILURE[b.status], b.stderr[-3000:],
                  features=list(fn.features))


def check_functions(fns: list[RandomFunction], opt: str, workdir: Path,
                    modes: tuple[str, ...] = ("fwd", "rev"), single_mode: bool = True) -> list[Result]:
    """Outcomes of fns at `opt` (e.g. "-O2"), built in as few units as possible, in
    `modes`; with single_mode, a rejected function is also tried in each mode alone."""
    workdir.mkdir(parents=True, exist_ok=True)
    results: list[Result] = []
    remaining = list(fns)
    while remaining:
        tag = f"{remaining[0].seed}{opt}"
        source, exe = workdir / f"unit{tag}.c", workdir / f"unit{tag}"
        source.write_text(render_unit(remaining, modes))
        b = build(source, opt, exe)
        if b.status == "built":
            results += _run_unit(remaining, opt, exe)
            break
        named = {_seed_of(f) for f in b.functions()} - {None}
        culprits = [f for f in remaining if f.seed in named]
        def rejected(f: RandomFunction, b: BuildOutcome = b) -> Result:
            r = _build_result(f, opt, b)
            return _single_mode(f, r, workdir) if single_mode and len(modes) > 1 else r

        if culprits and b.status == "rejected":
            results += [rejected(f) for f in culprits]
            remaining = [f for f in remaining if f not in culprits]
        elif len(remaining) == 1:
            results.append(rejected(remaining[0]))
            break
        else:  # no function named: build each alone
            for f in remaining:
                results += check_functions([f], opt, workdir, modes, single_mode)
            break
    return results


def _single_mode(fn: RandomFunction, rejected: Result, workdir: Path) -> Result:
    """A rejected function in the one mode that may build alone (reverse first): a
    wrong gradient there is a failure like any other, a pass is noted."""
    if rejected.outcome != "rejected":
        return rejected
    notes = []
    for mode, label in (("rev", "reverse"), ("fwd", "forward")):
        tag = f"{fn.seed}{rejected.opt.split()[0]}{mode}"
        source, exe = workdir / f"unit{tag}.c", workdir / f"unit{tag}"
        source.write_text(render_unit([fn], (mode,)))
        b = build(source, rejected.opt, exe)
        if b.status == "rejected":
            notes.append(f"{label} only: rejected: {rejection_class(b.message)}")
            continue
        if b.status != "built":
            failed = _build_result(fn, rejected.opt, b)
            failed.detail = f"{label} mode alone: " + failed.detail
            return failed
        r = _run_unit([fn], rejected.opt, exe)[0]
        if r.failed:
            r.detail = f"{label} mode alone ({rejected.detail.splitlines()[0]} in the other): " + r.detail
            return r
        rejected.partial = f"{label} only: {r.outcome}"
        return rejected
    rejected.partial = "; ".join(notes)
    return rejected


def _run_unit(fns: list[RandomFunction], opt: str, exe: Path) -> list[Result]:
    r = run(exe)
    measured = parse(r.stdout)
    results = []
    for fn in fns:
        m = measured.get(fn.name)
        if r.status != "ok" and (m is None or not m.complete):
            results.append(_run_alone(fn, opt, exe))
        else:
            results.append(_judge_points(fn, opt, exe, r.stdout))
    return results


def _run_alone(fn: RandomFunction, opt: str, exe: Path) -> Result:
    r = run(exe, fn.name)
    if r.status == "ok":
        return _judge_points(fn, opt, exe, r.stdout)
    outcome = "run_hang" if r.status == "hang" else "run_crash"
    return Result(fn.seed, opt, outcome, f"exit {r.returncode}\n{r.stderr[-2000:]}",
                  features=list(fn.features))


def _judge_points(fn: RandomFunction, opt: str, exe: Path, stdout: str) -> Result:
    """Judge at point 0; where FD is unreliable, try the next points."""
    best = None
    for point in range(POINTS):
        if point > 0:
            r = run(exe, fn.name, point)
            if r.status != "ok":
                return Result(fn.seed, opt, "run_hang" if r.status == "hang" else "run_crash",
                              f"point {point}: exit {r.returncode}\n{r.stderr[-2000:]}",
                              points=point + 1, features=list(fn.features))
            stdout = r.stdout
        m = parse(stdout).get(fn.name)
        if m is None:
            return Result(fn.seed, opt, "run_crash", "no output", features=list(fn.features))
        v = judge(m, fn.signature.precision)
        if v.status == "wrong" and fn.signature.precision == "float":
            v = _judge_promoted(fn, opt, exe, m, v)
        base = Result(fn.seed, opt, "", "\n".join(v.problems), points=point + 1,
                      fd_error=v.fd_error, dot_error=v.dot_error, features=list(fn.features),
                      precision=fn.signature.precision)
        if v.status in ("pass", "wrong", "invalid"):
            base.outcome = v.status
            if v.note:
                base.detail = f"point {point}: {v.note}"
            if v.status == "wrong":
                base.detail = f"point {point}:\n" + base.detail
            return base
        if v.status == "incomplete":
            base.outcome = "run_crash"
            return base
        best = base
    assert best is not None
    best.outcome = "pass_ad_only"
    return best


def _judge_promoted(fn: RandomFunction, opt: str, exe: Path, m: Measurement,
                    failed: Verdict) -> Verdict:
    """Judge a float function that failed the float checks again, against the same
    function promoted to double and built in the modes that were measured (see
    oracle.judge_promoted). If the promoted one cannot be built or run, the float
    verdict stands, with the reason."""
    modes = tuple(mode for mode, got in (("fwd", m.fwd), ("rev", m.rev)) if got)
    promoted = promote(fn)
    tag = f"{fn.seed}{opt.split()[0]}promoted{m.point}"
    source, promoted_exe = exe.parent / f"unit{tag}.c", exe.parent / f"unit{tag}"
    source.write_text(render_unit([promoted], modes))
    b = build(source, opt, promoted_exe)
    r = run(promoted_exe, fn.name, m.point) if b.status == "built" else None
    reference = parse(r.stdout).get(fn.name) if r is not None and r.status == "ok" else None
    if reference is None:
        why = b.message if b.status != "built" else f"run: {r.status if r else '?'}"
        return Verdict("wrong", failed.problems + (f"(promoted to double: {b.status}: {why})",),
                       failed.fd_error, failed.dot_error)
    v = judge_promoted(m, reference)
    if v.status == "wrong":
        return Verdict("wrong", failed.problems + ("promoted to double:",) + v.problems,
                       v.fd_error, v.dot_error)
    note = "float checks failed (" + "; ".join(failed.problems) + "); promoted to double: agrees"
    return dataclasses.replace(v, note=note)
