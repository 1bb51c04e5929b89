"""Textual IR inputs with `metadata !"enzyme_*"` markers compiled on their own (-c,
-c -emit-llvm) and then linked: the markers must reach AD as in the one-command link
(LLVM's bitcode does not keep them; enzcc rewrites them to marker globals first).
Gradients are checked against analytic derivatives."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ENZCC, run, temp_leftovers

MODULE = """
target triple = "x86_64-pc-linux-gnu"

; y = w * x0^2 * x1 (w const): dy/dx0 = 2 w x0 x1, dy/dx1 = w x0^2
define void @model(ptr %x, double %w, ptr %y) {
  %x0 = load double, ptr %x
  %p1 = getelementptr double, ptr %x, i64 1
  %x1 = load double, ptr %p1
  %sq = fmul double %x0, %x0
  %t = fmul double %sq, %x1
  %r = fmul double %t, %w
  store double %r, ptr %y
  ret void
}

; s(a) = a^3: ds/da = 3 a^2
define double @cube(double %a) {
  %s = fmul double %a, %a
  %c = fmul double %s, %a
  ret double %c
}

declare double @__enzyme_autodiff(...)

define void @grad_model(ptr %x, ptr %dx, double %w, ptr %y, ptr %dy) {
  call double (...) @__enzyme_autodiff(ptr @model, metadata !"enzyme_dup", ptr %x, ptr %dx,
                                       metadata !"enzyme_const", double %w,
                                       metadata !"enzyme_dupnoneed", ptr %y, ptr %dy)
  ret void
}

define double @grad_cube(double %a) {
  %d = call double (...) @__enzyme_autodiff(ptr @cube, metadata !"enzyme_out", double %a)
  ret double %d
}
"""

MAIN = r"""
#include <stdio.h>
void grad_model(double *x, double *dx, double w, double *y, double *dy);
double grad_cube(double a);
int main(void) {
    double x[2] = {1.5, -0.7}, dx[2] = {0, 0}, y = 0, dy = 1, w = 3.0;
    grad_model(x, dx, w, &y, &dy);
    printf("grad x0 %.17g %.17g\n", dx[0], 2 * w * x[0] * x[1]);
    printf("grad x1 %.17g %.17g\n", dx[1], w * x[0] * x[0]);
    printf("grad a %.17g %.17g\n", grad_cube(1.25), 3 * 1.25 * 1.25);
    return 0;
}
"""


@pytest.fixture
def sources(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "model.ll").write_text(MODULE)
    (tmp_path / "main.c").write_text(MAIN)
    return tmp_path / "model.ll", tmp_path / "main.c"


def _check(stdout: str) -> None:
    lines = [line.split() for line in stdout.splitlines() if line.startswith("grad ")]
    assert len(lines) == 3, stdout
    for _, name, got, want in lines:
        assert float(got) == pytest.approx(float(want), rel=1e-13), name


@pytest.mark.parametrize("linker", [ENZCC, "clang-22"])
def test_ll_compiled_with_c_then_linked(sources: tuple[Path, Path], tmp_path: Path,
                                        tmpdir_env: dict[str, str], linker: str) -> None:
    """-c differentiates the unit itself: even a plain clang link gets the gradient."""
    model, main = sources
    run([ENZCC, "-O2", "-c", str(model), "-o", "model.o"], tmp_path, tmpdir_env)
    run([ENZCC, "-O2", "-c", str(main), "-o", "main.o"], tmp_path, tmpdir_env)
    run([linker, "model.o", "main.o", "-o", "prog"], tmp_path, tmpdir_env)
    _check(run([str(tmp_path / "prog")], tmp_path, tmpdir_env).stdout)


def test_ll_compiled_to_bitcode_then_linked(sources: tuple[Path, Path], tmp_path: Path,
                                            tmpdir_env: dict[str, str]) -> None:
    model, main = sources
    run([ENZCC, "-O2", "-c", "-emit-llvm", str(model), "-o", "model.bc"], tmp_path, tmpdir_env)
    run([ENZCC, "-O2", "model.bc", str(main), "-o", "prog"], tmp_path, tmpdir_env)
    _check(run([str(tmp_path / "prog")], tmp_path, tmpdir_env).stdout)


def test_ll_in_the_link_command(sources: tuple[Path, Path], tmp_path: Path,
                                tmpdir_env: dict[str, str]) -> None:
    model, main = sources
    run([ENZCC, "-O0", str(model), str(main), "-o", "prog"], tmp_path, tmpdir_env)
    _check(run([str(tmp_path / "prog")], tmp_path, tmpdir_env).stdout)


def test_errors_in_a_rewritten_ll_name_the_users_file(sources: tuple[Path, Path],
                                                      tmp_path: Path,
                                                      tmpdir_env: dict[str, str]) -> None:
    model, _ = sources
    broken = MODULE.replace("fmul double %a, %a", "fmul double %a, %nope")
    line = broken.splitlines().index("  %s = fmul double %a, %nope") + 1
    model.write_text(broken)
    out = run([ENZCC, "-c", str(model), "-o", "model.o"], tmp_path, tmpdir_env, check=False)
    assert out.returncode != 0
    assert f"{model}:{line}:" in out.stderr and "%nope" in out.stderr, out.stderr
    assert ".markers.ll" not in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "model.o").exists()
    assert temp_leftovers(tmpdir_env) == []
