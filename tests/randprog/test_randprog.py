"""The random-program tester: its parts (generator, oracle, reducer, the driver's
input points), and a few dozen random programs end to end at -O0 and -O2.

A random program fails here only by a wrong gradient, a crash, a hang or an internal
error; a located enzc rejection is allowed (the campaign counts them: `make fuzz-ad`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import subprocess
from pathlib import Path

import pytest

from randprog.build import rejection_class
from randprog.campaign import check_functions
from randprog.features import FEATURES, select
from randprog.generator import generate
from randprog.harness import DRIVER, render_unit
from randprog.oracle import Measurement, judge
from randprog.reduce import ddmin, statements_of, units_of
from randprog.regression import point_inputs

END_TO_END_SEEDS = list(range(1, 33))
"""32 programs, 4 units of 8 per level: about a CPU-minute."""
UNIT = 8

# seed (or "seed[-O2]") -> why it fails today. Strict: remove the entry once it passes.
XFAIL: dict[str, str] = {}


PINNED_SHA256 = "e1719cc875f7e55fe0ee606043eedb464b51d28653f41c6902e880fa68851c4e"
"""sha256 of the code of seeds 1..100. The campaign figures in docs/reliability.md are
for this generator: a change that alters programs must update this value and say in
the docs that the figures were measured with an earlier generator (or rerun them)."""


def test_generator_output_is_pinned() -> None:
    h = hashlib.sha256()
    for seed in range(1, 101):
        h.update(generate(seed).code.encode())
    assert h.hexdigest() == PINNED_SHA256


def test_same_seed_same_program() -> None:
    assert generate(77).code == generate(77).code
    assert generate(77).code != generate(78).code


def test_every_feature_is_drawn() -> None:
    drawn = {f for s in range(200) for f in generate(s).features}
    assert drawn == {f.name for f in FEATURES}


def test_only_and_without_select_features() -> None:
    fn = generate(5, select(only=["loop_const"]))
    assert set(fn.features) == {"loop_const"}
    assert all("memcpy" not in generate(s, select(without=["memops", "struct", "record", "dispatch", "bits"])).code
               for s in range(40))
    with pytest.raises(ValueError):
        select(only=["no_such_feature"])


def test_generated_units_are_valid_c(tmp_path: Path) -> None:
    """Plain clang accepts 200 generated functions without a warning that matters."""
    src = tmp_path / "unit.c"
    src.write_text(render_unit([generate(s) for s in range(1000, 1200)]))
    r = subprocess.run(["clang-22", "-fsyntax-only", "-Wall", "-Werror", "-Wno-unused-variable",
                        "-Wno-unused-but-set-variable", "-Wno-unused-function", str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


def test_python_draws_the_driver_points(tmp_path: Path) -> None:
    """regression.point_inputs reproduces the inputs check_driver.c draws."""
    src = tmp_path / "points.c"
    src.write_text(DRIVER + """
static void ev(const double *u, int n, double *o) { o[0] = u[0] + n; }
static void fw(const double *u, const double *du, int n, double *o, double *d) {
    (void)u; (void)n; (void)o; d[0] = du[0];
}
static void rv(const double *u, const double *w, int n, double *o, double *g) {
    (void)u; (void)w; (void)n; (void)o; g[0] = 1; g[1] = 0; g[2] = 0;
}
static const struct rp_entry t[] = {{"f", 3, 0, 1, 5, 1e-6, 0.0, ev, fw, rv, 4242ULL}};
int main(int argc, char **argv) { return rp_main(t, 1, argc, argv); }
""")
    exe = tmp_path / "points"
    subprocess.run(["clang-22", str(src), "-lm", "-o", str(exe)], check=True)
    for point in (0, 3):
        out = subprocess.run([str(exe), "f", str(point)], capture_output=True, text=True).stdout
        got_u = [float(line.split()[2]) for line in out.splitlines() if line.startswith("u ")]
        got_n = int(out.split()[out.split().index("n") + 1])
        assert (got_u, got_n) == point_inputs(4242, point, 3, 5)


def _measurement(jac: list[float], fd: list[float], fd_err: float = 1e-14) -> Measurement:
    """A 1-output, 2-input function whose fwd and rev Jacobians are `jac`."""
    m = Measurement("f", 0, 2, 1, False, u=[0.5, 0.7], o=[1.0], complete=True)
    for j in range(2):
        m.fwd[0, j] = m.rev[0, j] = jac[j]
        m.fd[0, j] = (fd[j], fd_err)
        m.primal_fwd[j, 0] = 1.0
    m.primal_rev[0, 0] = 1.0
    dot = jac[0] * 0.3 + jac[1] * 0.2
    m.dots[0] = (dot, dot)
    m.dot_v[0, 0], m.dot_v[0, 1], m.dot_w[0, 0] = 0.3, 0.2, 1.0
    return m


def test_oracle_verdicts() -> None:
    assert judge(_measurement([2.0, -1.0], [2.0 + 1e-10, -1.0]), "double").status == "pass"
    wrong = judge(_measurement([2.0, -0.5], [2.0, -1.0]), "double")
    assert wrong.status == "wrong" and "finite differences" in wrong.problems[0]
    kink = judge(_measurement([2.0, -1.0], [2.0, 0.0], fd_err=0.5), "double")
    assert kink.status == "fd_unreliable"
    m = _measurement([2.0, -1.0], [2.0, -1.0])
    m.rev[0, 1] = -1.1
    assert "reverse" in judge(m, "double").problems[0]
    m = _measurement([2.0, -1.0], [2.0, -1.0])
    m.dots[0] = (0.4, 0.5)
    assert "dot test" in judge(m, "double").problems[0]
    m = _measurement([2.0, -1.0], [2.0, -1.0])
    m.primal_rev[0, 0] = 1.0 + 1e-7
    assert "primal" in judge(m, "float").problems[0]


def test_rejection_classes_group_by_cause() -> None:
    a = rejection_class("an active indirect call may reach 'sin', which has no body")
    b = rejection_class("an active indirect call may reach 'cos', which has no body")
    assert a == b and "'*'" in a


def test_reducer_units_and_ddmin() -> None:
    code = "struct S { double a; };\nstatic double h(double a) {\n    return a;\n}\nvoid f(void) {\n}\n"
    assert len(units_of(code)) == 3
    body = ["    double a = 1;\n", "    for (;;) {\n", "        a++;\n", "    }\n", "    a--;\n"]
    assert [len(u) for u in statements_of(body)] == [1, 3, 1]
    assert ddmin(list(range(20)), lambda xs: 7 in xs and 13 in xs) == [7, 13]


def _unit_params() -> list[pytest.ParameterSet]:
    out = []
    for opt in ("-O0", "-O2"):
        for k in range(0, len(END_TO_END_SEEDS), UNIT):
            seeds = END_TO_END_SEEDS[k:k + UNIT]
            out.append(pytest.param(seeds, opt, id=f"seeds{seeds[0]}-{seeds[-1]}[{opt}]"))
    return out


@pytest.mark.parametrize(("seeds", "opt"), _unit_params())
def test_random_programs(seeds: list[int], opt: str, tmp_path: Path) -> None:
    results = check_functions([generate(s) for s in seeds], opt, tmp_path)
    assert sorted(r.seed for r in results) == seeds
    bad = [r for r in results if r.outcome not in ("pass", "pass_ad_only", "rejected")
           and not (XFAIL.get(str(r.seed)) or XFAIL.get(f"{r.seed}[{opt}]"))]
    assert not bad, "\n".join(f"seed {r.seed} {opt}: {r.outcome}\n{r.detail[:2000]}" for r in bad)
    fixed = [r.seed for r in results if r.outcome in ("pass", "pass_ad_only")
             and (XFAIL.get(str(r.seed)) or XFAIL.get(f"{r.seed}[{opt}]"))]
    assert not fixed, f"seeds {fixed} pass now: remove them from XFAIL"


def test_a_regression_program_follows_the_reduced_signature(tmp_path: Path) -> None:
    # reduction may drop an unused `int n`: the driver must not pass it any more
    from randprog.regression import write_regression

    fn = next(f for f in (generate(seed) for seed in range(1, 200)) if f.signature.has_n)
    header = next(line for line in fn.code.splitlines() if f"{fn.name}(" in line and line.rstrip().endswith("{"))
    reduced = fn.code.replace(header, header.replace(", int n", ""))
    assert reduced != fn.code
    out = tmp_path / "prog.c"
    write_regression(dataclasses.replace(fn, code=reduced), "-O2", 0, out, "test")
    assert "enzyme_const, n," not in out.read_text()
    write_regression(fn, "-O2", 0, out, "test")
    assert "enzyme_const, n," in out.read_text()
