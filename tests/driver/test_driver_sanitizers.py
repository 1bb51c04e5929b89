"""Sanitizers with AD: the frontend leaves the IR uninstrumented, AD runs on plain
code, and clang instruments the result at code generation. Each program must run
clean with the right gradient, and the instrumentation must still be there (a
deliberate out-of-bounds read or overflow outside the differentiated code is caught).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import ENZCC, run

from enzc.frontend.toolchain import runtime_include_dir

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

/* y = sum_i w_i x_i^3: dy/dx_i = 3 w_i x_i^2 */
void energy(const double *x, const double *w, double *y, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += w[i] * x[i] * x[i] * x[i];
    *y = s;
}

int main(int argc, char **argv) {
    int n = 5;
    double *x = malloc(n * sizeof *x), *dx = calloc(n, sizeof *dx), *w = malloc(n * sizeof *w);
    for (int i = 0; i < n; i++) { x[i] = 0.3 * i - 0.5; w[i] = 1.0 + i; }
    double y = 0, dy = 1;
    __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, w,
                      enzyme_dup, &y, &dy, n);
    for (int i = 0; i < n; i++)
        printf("grad x%d %.17g %.17g\n", i, dx[i], 3 * w[i] * x[i] * x[i]);
    if (argc > 1 && strcmp(argv[1], "overflow") == 0)
        printf("%g\n", x[n]);           /* heap-buffer-overflow: ASan stops here */
    if (argc > 1 && strcmp(argv[1], "signed") == 0)
        printf("%d\n", INT_MAX - 1 + argc);  /* signed overflow: UBSan stops here */
    free(x); free(dx); free(w);
    return 0;
}
"""


def _asan_available(tmp_path: Path) -> bool:
    """Whether plain clang-22 can build and run an ASan program here."""
    src = tmp_path / "probe.c"
    src.write_text("int main(void) { return 0; }\n")
    exe = tmp_path / "probe"
    built = subprocess.run(["clang-22", "-fsanitize=address,undefined", str(src), "-o", str(exe)],
                           capture_output=True)
    return built.returncode == 0 and subprocess.run([str(exe)], capture_output=True).returncode == 0


@pytest.fixture
def program(tmp_path: Path) -> Path:
    if not _asan_available(tmp_path):
        pytest.skip("clang-22 cannot build and run -fsanitize=address,undefined programs here")
    src = tmp_path / "prog.c"
    src.write_text(PROGRAM)
    return src


def _check_gradients(stdout: str) -> None:
    lines = [line.split() for line in stdout.splitlines() if line.startswith("grad ")]
    assert len(lines) == 5, stdout
    for _, name, got, want in lines:
        assert float(got) == pytest.approx(float(want), rel=1e-12, abs=1e-14), name


@pytest.mark.parametrize("opt", ["-O0", "-O1", "-O2"])
def test_asan_program_runs_clean_with_the_right_gradient(program: Path, tmp_path: Path,
                                                         tmpdir_env: dict[str, str],
                                                         opt: str) -> None:
    exe = tmp_path / "prog"
    run([ENZCC, opt, "-g", "-fsanitize=address", str(program), "-o", str(exe)], tmp_path,
        tmpdir_env)
    _check_gradients(run([str(exe)], tmp_path, tmpdir_env).stdout)
    caught = run([str(exe), "overflow"], tmp_path, tmpdir_env, check=False)
    assert caught.returncode != 0 and "heap-buffer-overflow" in caught.stderr, caught.stderr


def test_asan_objects_linked_by_enzcc(program: Path, tmp_path: Path,
                                      tmpdir_env: dict[str, str]) -> None:
    """-c then link: the object's embedded IR is uninstrumented, the link instruments once."""
    obj, exe = tmp_path / "prog.o", tmp_path / "prog"
    run([ENZCC, "-O2", "-g", "-fsanitize=address", "-c", str(program), "-o", str(obj)],
        tmp_path, tmpdir_env)
    run([ENZCC, "-O2", "-fsanitize=address", str(obj), "-o", str(exe)], tmp_path, tmpdir_env)
    _check_gradients(run([str(exe)], tmp_path, tmpdir_env).stdout)
    caught = run([str(exe), "overflow"], tmp_path, tmpdir_env, check=False)
    assert caught.returncode != 0 and "heap-buffer-overflow" in caught.stderr, caught.stderr


def test_ubsan_checks_survive_ad(program: Path, tmp_path: Path,
                                 tmpdir_env: dict[str, str]) -> None:
    exe = tmp_path / "prog"
    run([ENZCC, "-O2", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
         str(program), "-o", str(exe)], tmp_path, tmpdir_env)
    _check_gradients(run([str(exe)], tmp_path, tmpdir_env).stdout)
    caught = run([str(exe), "signed"], tmp_path, tmpdir_env, check=False)
    assert caught.returncode != 0 and "signed integer overflow" in caught.stderr, caught.stderr


# A heap overflow that only an unoptimized build sees: the store before free is dead,
# and O2's dead-store elimination deletes it before ASan could check it.
DEAD_STORE_OVERFLOW = r"""
#include <stdio.h>
#include <stdlib.h>
#include <enzyme/enzyme.h>
#ifndef GRAD
#define GRAD(f, x) __enzyme_autodiff((void *)f, x)
#endif
static double sq(double x) { return x * x; }
__attribute__((noinline)) static int scratch(int n) {
    int *p = malloc(n * sizeof *p);
    for (int i = 0; i < n; i++) p[i] = i * i;
    int r = p[n / 2] + p[1];
    p[n] = 1;
    free(p);
    return r;
}
int main(int argc, char **argv) {
    (void)argv;
    int r = scratch(3 + argc);
    printf("%d %.17g\n", r, GRAD(sq, 3.0));
    return 0;
}
"""


@pytest.mark.parametrize("opt", ["-O0", "-O1", "-O2"])
def test_sanitizer_catches_what_clangs_own_build_catches(program: Path, tmp_path: Path,
                                                         tmpdir_env: dict[str, str],
                                                         opt: str) -> None:
    """The optimization before AD is clang's at -O0/-O1 (what clang instruments
    depends on the level); O2* there would delete the faulty store."""
    src = tmp_path / "dead_store.c"
    src.write_text(DEAD_STORE_OVERFLOW)
    run(["clang-22", opt, "-fsanitize=address", "-isystem", runtime_include_dir(),
         "-DGRAD(f,x)=6.0", str(src), "-o", "by_clang"], tmp_path, tmpdir_env)
    run([ENZCC, opt, "-fsanitize=address", str(src), "-o", "by_enzcc"], tmp_path, tmpdir_env)
    clang = run(["./by_clang"], tmp_path, tmpdir_env, check=False)
    ours = run(["./by_enzcc"], tmp_path, tmpdir_env, check=False)
    assert (clang.returncode != 0) == (opt != "-O2"), clang.stderr  # the case is what it claims
    assert ours.returncode == clang.returncode, ours.stderr
    assert ("heap-buffer-overflow" in ours.stderr) == (opt != "-O2")
    assert ours.stdout == clang.stdout  # the gradient, when the program gets that far
