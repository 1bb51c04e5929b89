"""One C translation unit from random functions: their code, three adaptors per
function (plain call, forward mode, reverse mode, all on a flat input vector u and
output vector o), and a main that runs the measurement driver (check_driver.c) for
`prog [name|all] [point]`.

Several functions share one unit so that one enzcc run builds many of them; each
function's names carry its own prefix, so any subset renders as a valid unit too
(rejections are attributed by rebuilding a subset).
"""

from __future__ import annotations

from pathlib import Path

from .context import Signature
from .generator import RandomFunction

DRIVER = (Path(__file__).resolve().parent / "check_driver.c").read_text()

FD_STEP = {"double": 0.01, "float": 0.05}
"""First step of Ridders' extrapolation (see check_driver.c and oracle.py)."""
FD_STEP_SMALL = {"double": 1e-5, "float": 0.0}
"""First step of the second, small-step extrapolation, consulted where the first
disagrees with AD (a kink closer than 5e-4 to the point). None in float code, whose
rounding (6e-8) swamps differences over such steps: a float function that fails is
judged again promoted to double (see promote.py)."""


def _args(sig: Signature, mode: str) -> str:
    """The arguments of an __enzyme_* call (mode "fwd" or "rev") after the function."""
    args = ["enzyme_dup, x, dx"]
    for k in range(sig.n_s):
        args.append(f"enzyme_dup, u[{sig.n_x + k}], du[{sig.n_x + k}]" if mode == "fwd"
                    else f"enzyme_out, u[{sig.n_x + k}]")
    if sig.has_n:
        args.append("enzyme_const, n")
    if sig.ix:
        args.append(f"enzyme_const, {sig.name}__ix")
    if sig.n_y:
        args.append("enzyme_dup, y, dy")
    return ", ".join(args)


def _call_args(sig: Signature) -> str:
    args = ["x"] + [f"u[{sig.n_x + k}]" for k in range(sig.n_s)]
    if sig.has_n:
        args.append("n")
    if sig.ix:
        args.append(f"{sig.name}__ix")
    if sig.n_y:
        args.append("y")
    return ", ".join(args)


def _locals(sig: Signature, dy: str, shadows: bool = True) -> list[str]:
    lines = [f"double x[{sig.n_x}]" + (f", dx[{sig.n_x}] = {{0}};" if shadows else ";"),
             "memcpy(x, u, sizeof x);"]
    if sig.n_y:
        init = ", ".join(repr(v) for v in sig.y_init)
        lines.append(f"double y[{sig.n_y}] = {{{init}}}" + (f", dy[{sig.n_y}] = {{0}};" if shadows else ";"))
        if dy:
            lines.append(dy)
    return lines


def adaptors(sig: Signature, modes: tuple[str, ...] = ("fwd", "rev")) -> str:
    """The eval adaptor and the forward/reverse ones of `modes` (with declarations)."""
    name, ret = sig.name, "double" if sig.returns else "void"
    out = []
    if sig.ix:
        out.append(f"static const int {name}__ix[{len(sig.ix)}] = {{{', '.join(map(str, sig.ix))}}};")
    grad_type = {0: "void", 1: "double"}.get(sig.n_s, f"{name}__grad")
    if sig.n_s >= 2:
        fields = " ".join(f"double d{k};" for k in range(sig.n_s))
        out.append(f"typedef struct {{ {fields} }} {name}__grad;")
    if "fwd" in modes:
        out.append(f"{ret} __enzyme_fwddiff_{name}(void *, ...);")
    if "rev" in modes:
        out.append(f"{grad_type} __enzyme_autodiff_{name}(void *, ...);")
    copy_y = ["memcpy(o, y, sizeof y);"] if sig.n_y else []

    body = _locals(sig, "", shadows=False)
    body.append(("double r = " if sig.returns else "") + f"{name}({_call_args(sig)});")
    body += copy_y + ([f"o[{sig.n_y}] = r;"] if sig.returns else []) + ["(void)n;"]
    out.append(_function(f"static void {name}__eval(const double *u, int n, double *o)", body))

    if "fwd" in modes:
        out.append(_forward(sig))
    if "rev" in modes:
        out.append(_reverse(sig, grad_type))
    return "\n".join(out) + "\n"


def _forward(sig: Signature) -> str:
    name, copy_y = sig.name, ["memcpy(o, y, sizeof y);"] if sig.n_y else []
    body = _locals(sig, "") + ["memcpy(dx, du, sizeof dx);"]
    body.append(("double dr = " if sig.returns else "")
                + f"__enzyme_fwddiff_{name}((void *){name}, {_args(sig, 'fwd')});")
    body += copy_y + (["memcpy(dout, dy, sizeof dy);"] if sig.n_y else [])
    body += ([f"dout[{sig.n_y}] = dr;"] if sig.returns else []) + ["(void)n;"]
    return _function(f"static void {name}__fwd(const double *u, const double *du, int n, "
                     "double *o, double *dout)", body)


def _reverse(sig: Signature, grad_type: str) -> str:
    name, copy_y = sig.name, ["memcpy(o, y, sizeof y);"] if sig.n_y else []
    body = _locals(sig, "memcpy(dy, w, sizeof dy);" if sig.n_y else "")
    call = f"__enzyme_autodiff_{name}((void *){name}, {_args(sig, 'rev')});"
    body.append({"void": call, "double": f"double g = {call}"}.get(grad_type, f"{grad_type} g = {call}"))
    body.append("memcpy(gu, dx, sizeof dx);")
    if sig.n_s == 1:
        body.append(f"gu[{sig.n_x}] = g;")
    for k in range(sig.n_s if sig.n_s >= 2 else 0):
        body.append(f"gu[{sig.n_x + k}] = g.d{k};")
    body += copy_y + ["(void)n; (void)w;"]
    return _function(f"static void {name}__rev(const double *u, const double *w, int n, "
                     "double *o, double *gu)", body)


def _function(head: str, body: list[str]) -> str:
    return head + " {\n" + "".join(f"    {line}\n" for line in body) + "}\n"


def table_entry(fn: RandomFunction, modes: tuple[str, ...] = ("fwd", "rev")) -> str:
    s = fn.signature
    fwd = f"{s.name}__fwd" if "fwd" in modes else "NULL"
    rev = f"{s.name}__rev" if "rev" in modes else "NULL"
    return (f'{{"{s.name}", {s.n_in}, {s.n_y}, {int(s.returns)}, {s.n_max if s.has_n else 0}, '
            f"{FD_STEP[s.precision]!r}, {FD_STEP_SMALL[s.precision]!r}, {s.name}__eval, {fwd}, {rev}, {fn.seed}ULL}}")


def render_unit(functions: list[RandomFunction], modes: tuple[str, ...] = ("fwd", "rev")) -> str:
    """The translation unit that checks `functions` (in this order) in `modes`."""
    parts = [f"/* randprog unit: seeds {' '.join(str(f.seed) for f in functions)} */\n",
             DRIVER, "\nextern int enzyme_dup, enzyme_const, enzyme_out;\n"]
    for fn in functions:
        parts.append(f"\n/* ---- {fn.name}: {' '.join(fn.features)} ---- */\n")
        parts.append(fn.code)
        parts.append(adaptors(fn.signature, modes))
    entries = ",\n    ".join(table_entry(f, modes) for f in functions)
    parts.append(f"\nstatic const struct rp_entry rp_table[] = {{\n    {entries}\n}};\n\n"
                 "int main(int argc, char **argv) {\n"
                 f"    return rp_main(rp_table, {len(functions)}, argc, argv);\n}}\n")
    return "".join(parts)
