"""Judge one function at one input point from the driver's measurements.

Scales. S_i is the largest |d o_i / d u_j| of output i, G the largest entry of the
whole Jacobian. Rounding inside a derivative is relative to the terms it adds up,
which can be as large as G even where an entry is tiny or zero (outputs that cancel),
so every comparison of output i is against S_i + FLOOR * G, FLOOR = 1e-3: an entry
that should be 0 may carry rounding noise up to ~1e-12 G without being called wrong,
while any missing or wrong term of more than that is still seen.

Three independent oracles, all at the same point u (see check_driver.c):

1. Forward against reverse. The Jacobian from n_in forward calls (columns) equals
   the one from the reverse calls (rows) entry by entry, |fwd - rev| <= TOL_DOT *
   (S_i + FLOOR G), and for three random (v, w) the dot-product test holds:
   <J v, w> (forward call with tangent v) equals <v, J^T w> (reverse call with
   seed w) within TOL_DOT * sum_ij (|J_ij| + FLOOR G) |v_j| |w_i|. Both sides are
   exact derivatives summed in a different order, so they differ by rounding only:
   a few ulps times the condition of the sums. TOL_DOT = 1e-9 (double) leaves 10^6
   ulps of room for long loops; float code rounds at 6e-8, hence 1e-4. A wrong or
   missing adjoint in one mode changes a sum by O(|J_ij|), 10^4..10^9 times more.
   Both also allow FD_BLIND["double"] * |o_i| (below; float code too, whose float
   noise the promoted function judges): where the whole Jacobian cancels to
   rounding noise (`v - acc` with `acc` a running mean of `v`: 1e-18 beside
   O(1) terms), G is that noise too, and an entry no difference quotient can see
   is no evidence either way.
2. Against finite differences: Ridders' extrapolation of central differences
   (steps 0.01 / 1.4^k, k < 10; 0.05 for float code), which also estimates its own
   error. Smooth double code gives ~1e-11 relative (measured: the largest
   disagreement among the passes of the 1,000-program campaign is in
   docs/reliability.md), float code ~1e-5..1e-3 (its rounding, 6e-8, is amplified by
   1/h). The forward Jacobian must match within TOL_FD * (|fd| + S_i + FLOOR G):
   1e-6 (double), 1e-2 (float), plus FD_BLIND * |o_i|: a change of o_i below its
   rounding is invisible to differences over the smallest step, so a derivative
   smaller than ~eps |o_i| / h is not checked by FD (float code: 1e-4 |o_i|; the
   forward/reverse checks still cover it). A wrong derivative rule is off by O(1) of
   the entry, a dropped term by the size of that term: far above either.
3. The primal results of the forward and reverse calls (y written by the derivative)
   equal those of the plain call to TOL_PRIMAL = 1e-13 relative, in float code too:
   the derivative runs the same operations in the same order, so they agree
   exactly unless it computes something in another precision (one float ulp is
   6e-8) or wrongly.

No false positives from kinks: finite differences are trusted only where Ridders'
error estimate is below FD_TRUST * TOL_FD of the same scale. Steps that straddle a
kink (fabs, fmax, a branch on a computed value) give differences that do not
extrapolate, and a large error estimate: the point is then `fd_unreliable` and the
caller draws another. Double code has a second extrapolation from the step 1e-5
down (`fd2`, smallest step 4.8e-7), for kinks closer than the usual smallest step
(5e-4): those can straddle every usual step and even extrapolate smoothly to a
wrong value. Per entry, each trusted estimate counts: an entry passes when one of
them agrees with AD (a trusted difference quotient does), is wrong when all
disagree with AD and agree with each other, and makes the point `fd_unreliable`
when none is trusted or two disagree with each other (the differences depend on
the step). An entry the usual steps got wrong is therefore still wrong unless a
trusted small-step estimate contradicts them. The forward/reverse and primal
checks do not use FD and always apply.

Float code: its rounding (6e-8) makes the float checks above noisy (FD staircases,
cancellation in a forward tangent), so a float function that fails them only
there is judged again against the same function promoted to double
(`judge_promoted`): the promoted one must pass every double check, and each float
Jacobian must match the promoted one within TOL_FD["float"] of the same scale, the
tolerance float code has always had against FD, now against an exact derivative.
Primal disagreements and non-finite derivatives of float code are never re-judged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

TOL_DOT = {"double": 1e-9, "float": 1e-4}
TOL_FD = {"double": 1e-6, "float": 1e-2}
TOL_PRIMAL = {"double": 1e-13, "float": 1e-13}
FD_TRUST = 0.1
"""Ridders' error estimate must be below FD_TRUST * TOL_FD (relative) to use FD."""
FLOOR = 1e-3
"""Fraction of the global scale G added to every output's scale (see above)."""
FD_BLIND = {"double": 1e-11, "float": 1e-4}
"""What finite differences cannot see, relative to |o_i|: changes of an output below
its rounding (2e-16 or 6e-8 of |o_i|, times a few) over the smallest step (5e-4 for
double, 2.4e-3 for float code)."""
FD_BLIND_SMALL = 1e-8
"""The same for the small-step extrapolation of double code (smallest step 4.8e-7)."""


@dataclass
class Measurement:
    """What the driver printed for one function at one point."""

    name: str
    point: int
    nu: int
    ny: int
    has_ret: bool
    u: list[float] = field(default_factory=list)
    o: list[float] = field(default_factory=list)
    fd: dict[tuple[int, int], tuple[float, float]] = field(default_factory=dict)
    """(i, j) -> (Ridders' estimate of d o_i / d u_j, its error estimate)."""
    fd2: dict[tuple[int, int], tuple[float, float]] = field(default_factory=dict)
    """The same from the small first step (double code only)."""
    fwd: dict[tuple[int, int], float] = field(default_factory=dict)
    rev: dict[tuple[int, int], float] = field(default_factory=dict)
    primal_fwd: dict[tuple[int, int], float] = field(default_factory=dict)
    primal_rev: dict[tuple[int, int], float] = field(default_factory=dict)
    dots: dict[int, tuple[float, float]] = field(default_factory=dict)
    dot_v: dict[tuple[int, int], float] = field(default_factory=dict)
    dot_w: dict[tuple[int, int], float] = field(default_factory=dict)
    complete: bool = False

    @property
    def no(self) -> int:
        return self.ny + int(self.has_ret)


def parse(stdout: str) -> dict[str, Measurement]:
    """Function name -> its measurement (complete if its `end` line was printed). A
    line cut short (the program stopped mid-write) ends the output: what it measured
    so far stays, incomplete."""
    out: dict[str, Measurement] = {}
    m: Measurement | None = None
    for line in stdout.splitlines():
        f = line.split()
        if not f:
            continue
        try:
            m = _parse_line(f, m, out)
        except (IndexError, KeyError, ValueError):
            break
    return out


def _parse_line(f: list[str], m: Measurement | None, out: dict[str, Measurement]) -> Measurement | None:
    """Record one line's fields into `m` (a `fn` line starts a measurement); returns
    the current measurement."""
    tag = f[0]
    if tag == "fn":
        kv = dict(zip(f[2::2], f[3::2], strict=False))
        m = Measurement(f[1], int(kv["point"]), int(kv["nu"]), int(kv["ny"]), kv["ret"] == "1")
        out[m.name] = m
    elif m is None:
        return None
    elif tag == "end":
        m.complete = True
    elif tag in ("u", "o"):
        getattr(m, tag).append(float(f[2]))
    elif tag in ("fd", "fd2"):
        getattr(m, tag)[int(f[1]), int(f[2])] = (float(f[3]), float(f[4]))
    elif tag in ("fwd", "rev", "pf", "pr", "dv", "dw"):
        attr = {"fwd": "fwd", "rev": "rev", "pf": "primal_fwd", "pr": "primal_rev",
                "dv": "dot_v", "dw": "dot_w"}[tag]
        getattr(m, attr)[int(f[1]), int(f[2])] = float(f[3])
    elif tag == "dot":
        m.dots[int(f[1])] = (float(f[2]), float(f[3]))
    return m


@dataclass(frozen=True)
class Verdict:
    status: str
    """pass, wrong, fd_unreliable (AD checks passed, FD not usable here), invalid
    (the primal itself is not finite: a generator bug) or incomplete (output cut)."""
    problems: tuple[str, ...] = ()
    fd_error: float = 0.0
    """Largest |fwd - fd| / (|fd| + S_i) seen (to document the tolerance's margin)."""
    dot_error: float = 0.0
    """Largest |lhs - rhs| / sum |J_ij v_j w_i| seen."""
    note: str = ""
    """How a pass was reached when not directly (judged promoted to double)."""


def reverse_jacobian(m: Measurement) -> list[list[float]]:
    """Rows of J from the reverse calls: seed e_s (plus the result's fixed seed 1)."""
    rows = [[m.rev[s, j] for j in range(m.nu)] for s in range(m.no)]
    if m.has_ret:
        ret = rows[m.ny]
        rows = [[r - g for r, g in zip(row, ret, strict=True)] for row in rows[:m.ny]] + [ret]
    return rows


def judge(m: Measurement, precision: str) -> Verdict:
    """The verdict for one measurement. A function built in one mode only (the other
    was rejected) is checked against finite differences and the primal only."""
    if not m.complete:
        return Verdict("incomplete", ("the driver's output ends early",))
    if not all(math.isfinite(v) for v in m.o + m.u):
        return Verdict("invalid", ("the primal result is not finite",))
    jf = [[m.fwd[i, j] for j in range(m.nu)] for i in range(m.no)] if m.fwd else None
    jr = reverse_jacobian(m) if m.rev else None
    jac = jf or jr
    assert jac is not None, "neither mode was measured"
    values = [v for row in (jf or []) + (jr or []) for v in row]
    if not all(math.isfinite(v) for v in values + [a for d in m.dots.values() for a in d]):
        return Verdict("wrong", ("a derivative is not finite",))
    scales, g = _scales(m, jf or [], jr or [])
    problems = _primal_problems(m, precision)
    dot_error = 0.0
    if jf is not None and jr is not None:
        problems += _fwd_rev_problems(m, jf, jr, scales, precision)
        dot_problems, dot_error = _dot_problems(m, jf, g, precision)
        problems += dot_problems
    fd_problems, reliable, fd_error = _fd_problems(m, jac, scales, precision,
                                                   "forward" if jf else "reverse")
    problems += fd_problems
    if problems:
        return Verdict("wrong", tuple(problems), fd_error, dot_error)
    return Verdict("pass" if reliable else "fd_unreliable", (), fd_error, dot_error)


def _scales(m: Measurement, jf: list[list[float]], jr: list[list[float]]) -> tuple[list[float], float]:
    """(S_i + FLOOR * G for each output i, G). Reverse rows derived from the result's
    row count that row's entries too (they were subtracted from it)."""
    fd = [[abs(m.fd[i, j][0]) if math.isfinite(m.fd[i, j][0]) else 0.0 for j in range(m.nu)]
          for i in range(m.no)]
    raw_ret = [abs(m.rev[m.ny, j]) for j in range(m.nu)] if m.has_ret and m.rev else []
    rows = [max([abs(v) for jac in (jf, jr) if jac for v in jac[i]] + fd[i] + raw_ret)
            for i in range(m.no)]
    g = max(rows, default=0.0)
    return [s + FLOOR * g + 1e-300 for s in rows], g


def _primal_problems(m: Measurement, precision: str) -> list[str]:
    tol, out = TOL_PRIMAL[precision], []
    for label, got in (("forward", m.primal_fwd), ("reverse", m.primal_rev)):
        for (call, i), v in got.items():
            ref = m.o[i]
            if not abs(v - ref) <= tol * abs(ref) + 1e-300:
                out.append(f"primal y[{i}] from the {label} call {call}: {v!r}, plain call {ref!r}")
                break
    return out


def _fwd_rev_problems(m: Measurement, jf: list[list[float]], jr: list[list[float]],
                      scales: list[float], precision: str) -> list[str]:
    tol = TOL_DOT[precision]
    blind = FD_BLIND["double"]
    return [f"d o{i}/d u{j}: forward {jf[i][j]!r}, reverse {jr[i][j]!r}"
            for i in range(m.no) for j in range(m.nu)
            if abs(jf[i][j] - jr[i][j]) > tol * scales[i] + blind * abs(m.o[i])]


def _dot_problems(m: Measurement, jf: list[list[float]], g: float,
                  precision: str) -> tuple[list[str], float]:
    tol, out, worst = TOL_DOT[precision], [], 0.0
    floor = FLOOR * g
    for t, (lhs, rhs) in sorted(m.dots.items()):
        scale = sum((abs(jf[i][j]) + floor) * abs(m.dot_v[t, j] * m.dot_w[t, i])
                    for i in range(m.no) for j in range(m.nu))
        unseen = FD_BLIND["double"] * sum(abs(m.o[i] * m.dot_v[t, j] * m.dot_w[t, i])
                                        for i in range(m.no) for j in range(m.nu))
        err = abs(lhs - rhs)
        worst = max(worst, err / scale) if scale > 0 else worst
        if err > tol * scale + unseen + 1e-300:
            out.append(f"dot test {t}: <Jv,w> = {lhs!r}, <v,J^T w> = {rhs!r}")
    return out, worst


def _fd_problems(m: Measurement, jf: list[list[float]], scales: list[float],
                 precision: str, mode: str) -> tuple[list[str], bool, float]:
    """(problems, FD reliable here, worst relative FD disagreement). Per entry, the
    trusted estimates (see _trusted): none -> FD unreliable at this point; one that
    agrees with AD -> fine; two that disagree with each other -> unreliable (the
    differences depend on the step: a kink); else the entry is wrong."""
    tol = TOL_FD[precision]
    worst, out = 0.0, []
    for i in range(m.no):
        for j in range(m.nu):
            trusted = _trusted(m, i, j, scales[i], precision)
            if not trusted:
                return [], False, 0.0
            rels = [abs(jf[i][j] - value) / allowed * tol for value, allowed in trusted]
            if min(rels) <= tol:
                worst = max(worst, min(rels))
                continue
            (a, allowed_a), (b, _) = trusted[0], trusted[-1]
            if abs(a - b) > allowed_a:
                return [], False, 0.0
            worst = max(worst, min(rels))
            out.append(f"d o{i}/d u{j}: {mode} {jf[i][j]!r}, finite differences {a!r}")
    return out, True, worst


def _trusted(m: Measurement, i: int, j: int, scale: float,
             precision: str) -> list[tuple[float, float]]:
    """(estimate, allowed disagreement) of d o_i / d u_j for each extrapolation whose
    error estimate is below FD_TRUST of what is allowed: the one from the usual steps
    and the small-step one (double code)."""
    tol, out = TOL_FD[precision], []
    for table, blind in ((m.fd, FD_BLIND[precision]), (m.fd2, FD_BLIND_SMALL)):
        if (i, j) not in table:
            continue
        value, err = table[i, j]
        allowed = tol * (abs(value) + scale) + blind * abs(m.o[i])
        if math.isfinite(value) and math.isfinite(err) and err <= FD_TRUST * allowed:
            out.append((value, allowed))
    return out


def judge_promoted(floating: Measurement, promoted: Measurement) -> Verdict:
    """Judge a float function that failed the float checks against the same function
    with every float promoted to double, at the same point. The promoted one must
    pass every double check (else it is wrong, or `fd_unreliable` when its FD is);
    the float one must have its primal checks and finite derivatives, and each of
    its Jacobians must match the promoted one within TOL_FD["float"] * (|J| + S_i +
    FLOOR G): float rounding moves a derivative by ~1e-7..1e-4 of that scale, a wrong
    or missing term by O(1) of the entry."""
    if not floating.complete or not promoted.complete:
        return Verdict("incomplete", ("the driver's output ends early",))
    reference = judge(promoted, "double")
    if reference.status in ("wrong", "invalid", "incomplete"):
        return Verdict(reference.status, tuple(f"promoted to double: {p}" for p in reference.problems),
                       reference.fd_error, reference.dot_error)
    problems = _primal_problems(floating, "float")
    values = [v for d in (floating.fwd, floating.rev) for v in d.values()]
    if not all(math.isfinite(v) for v in values):
        problems.append("a derivative is not finite")
    exact = _jacobian(promoted)
    scales, _ = _scales(promoted, exact, [])
    tol = TOL_FD["float"]
    for mode, jac in (("forward", _jacobian(floating, "fwd")), ("reverse", _jacobian(floating, "rev"))):
        for i in range(floating.no if jac else 0):
            for j in range(floating.nu):
                if not abs(jac[i][j] - exact[i][j]) <= tol * (abs(exact[i][j]) + scales[i]):
                    problems.append(f"d o{i}/d u{j}: float {mode} {jac[i][j]!r}, "
                                    f"promoted to double {exact[i][j]!r}")
    if problems:
        return Verdict("wrong", tuple(problems), reference.fd_error, reference.dot_error)
    return Verdict(reference.status, (), reference.fd_error, reference.dot_error)


def _jacobian(m: Measurement, mode: str = "") -> list[list[float]]:
    """The Jacobian of `mode` ("fwd", "rev"; default: forward if measured), or []."""
    if mode in ("", "fwd") and m.fwd:
        return [[m.fwd[i, j] for j in range(m.nu)] for i in range(m.no)]
    if mode in ("", "rev") and m.rev:
        return reverse_jacobian(m)
    return []
