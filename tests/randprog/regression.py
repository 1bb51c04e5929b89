"""A regression program in tests/ad/gradcheck.py's format from a (reduced) random
function: forward and reverse mode of the function at the point where it failed,
each Jacobian entry against central finite differences computed in the program,
and the primal outputs written by the derivative calls against the plain call.
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
import textwrap
from pathlib import Path

from .build import build, run
from .generator import RandomFunction
from .harness import FD_STEP, adaptors, render_unit
from .oracle import parse

_MASK = (1 << 64) - 1


def point_inputs(seed: int, point: int, nu: int, n_max: int) -> tuple[list[float], int]:
    """The inputs and n that check_driver.c draws for (seed, point) (same generator)."""
    state = (0x9E3779B97F4A7C15 ^ ((seed * 1000003 + point * 7919) & _MASK)) & _MASK

    def uniform() -> float:
        nonlocal state
        state ^= (state << 13) & _MASK
        state ^= state >> 7
        state ^= (state << 17) & _MASK
        return (state >> 11) * 2.0 ** -53

    for _ in range(8):
        uniform()
    u = []
    for _ in range(nu):
        v = 0.3 + 0.9 * uniform()
        u.append(-v if uniform() < 0.5 else v)
    n = 1 + int(uniform() * n_max) if n_max > 0 else 0
    return u, n


def _scale(fn: RandomFunction, opt: str, point: int) -> float | None:
    """The largest |finite difference| of the function at the point, if it builds."""
    with tempfile.TemporaryDirectory(prefix="randprog-regress-") as tmp:
        src, exe = Path(tmp) / "unit.c", Path(tmp) / "unit"
        src.write_text(render_unit([fn]))
        if build(src, opt, exe).status != "built":
            return None
        m = parse(run(exe, fn.name, point).stdout).get(fn.name)
        return max((abs(v) for v, _ in m.fd.values()), default=None) if m else None


def render_regression(fn: RandomFunction, point: int, opt: str, reason: str,
                      scale: float | None) -> str:
    sig = fn.signature
    nu, no, ny = sig.n_in, sig.n_out, sig.n_y
    u, n = point_inputs(fn.seed, point, nu, sig.n_max if sig.has_n else 0)
    h = FD_STEP[sig.precision]
    abs_tol = max(1e-12, 1e-6 * (scale if scale is not None else 1.0))
    grads = 2 * no * nu + 2 * ny
    main = f"""/* d o / d u_j by Ridders' extrapolation of central differences (as the tester) */
static void ridders(const double *u, int n, int j, double *best) {{
    double a[10][10][{no}], err[{no}], up[{nu}], op[{no}], om[{no}], h = {h!r};
    for (int i = 0; i < {no}; i++)
        err[i] = INFINITY;
    for (int k = 0; k < 10; k++, h /= 1.4) {{
        memcpy(up, u, sizeof up);
        up[j] = u[j] + h;
        {sig.name}__eval(up, n, op);
        up[j] = u[j] - h;
        {sig.name}__eval(up, n, om);
        for (int i = 0; i < {no}; i++) {{
            a[0][k][i] = (op[i] - om[i]) / (2 * h);
            double fac = 1.96;
            for (int m = 1; m <= k; m++, fac *= 1.96) {{
                a[m][k][i] = (a[m - 1][k][i] * fac - a[m - 1][k - 1][i]) / (fac - 1);
                double t = fmax(fabs(a[m][k][i] - a[m - 1][k][i]), fabs(a[m][k][i] - a[m - 1][k - 1][i]));
                if (t <= err[i])
                    err[i] = t, best[i] = a[m][k][i];
            }}
        }}
    }}
}}

int main(void) {{
    const double u[{nu}] = {{{', '.join(repr(v) for v in u)}}};
    const int n = {n};
    double o[{no}], op[{no}], t[{nu}], d[{no}], w[{no}], g[{nu}], g_ret[{nu}], col[{no}];
    double fd[{no}][{nu}];
    {sig.name}__eval(u, n, o);
    for (int j = 0; j < {nu}; j++) {{
        ridders(u, n, j, col);
        for (int i = 0; i < {no}; i++)
            fd[i][j] = col[i];
    }}
    for (int j = 0; j < {nu}; j++) {{ /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        {sig.name}__fwd(u, t, n, op, d);
        for (int i = 0; i < {no}; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < {ny}; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\\n", i, op[i], o[i]);
    }}
    memset(g_ret, 0, sizeof g_ret);
    if ({int(sig.returns)}) {{ /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        {sig.name}__rev(u, w, n, op, g_ret);
    }}
    for (int s = 0; s < {no}; s++) {{ /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        {sig.name}__rev(u, w, n, op, g);
        for (int j = 0; j < {nu}; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\\n", s, j, s < {ny} ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < {ny}; i++)
            printf("grad rev.primal.y%d %.17g %.17g\\n", i, op[i], o[i]);
    }}
    return 0;
}}
"""
    why = textwrap.wrap(reason or "A wrong gradient found by the random-program tester.", 86)
    header = ("".join(f"// {line}\n" for line in why) +
              f"// Reduced from tests/randprog seed {fn.seed} (found at {opt}). Forward and reverse\n"
              f"// mode against finite differences (Ridders) at the failing point, and the\n"
              f"// primal results of the derivative calls against the plain call.\n"
              f"// tol: rel=1e-6 abs={abs_tol:.1e}\n// grads: {grads}\n"
              + _flags_line(opt))
    includes = "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
    return (header + includes + "extern int enzyme_dup, enzyme_const, enzyme_out;\n\n"
            + fn.code + "\n" + adaptors(sig) + "\n" + main)


def _flags_line(opt: str) -> str:
    """The `flags:` directive for what the level the failure was found at adds to
    -Ox (`-fno-strict-aliasing`): the test suite builds at -O0 and -O2 with them."""
    extra = [f for f in opt.split() if not f.lstrip("-").startswith("O")]
    return f"// flags: {' '.join(extra)}\n" if extra else ""


def write_regression(fn: RandomFunction, opt: str, point: int, out: Path, reason: str) -> int:
    """Write the gradcheck program of fn (its code possibly reduced) to out."""
    precision = "float" if re.search(r"\bfloat\b", fn.code) else "double"
    header = re.search(rf"\b{re.escape(fn.name)}\s*\(([^)]*)\)\s*{{", fn.code)
    has_n = fn.signature.has_n and (header is None or re.search(r"\bint\s+n\b", header.group(1)) is not None)
    fn = dataclasses.replace(fn, signature=dataclasses.replace(fn.signature, precision=precision, has_n=has_n))
    if precision == "float":
        print(f"warning: {fn.name} computes in float: finite differences are good to ~1e-4, "
              "looser than gradcheck allows (1e-5); reduce the float code away or write an "
              "analytic reference")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_regression(fn, point, opt, reason, _scale(fn, opt, point)))
    print(f"wrote {out}")
    return 0
