"""Registrations the optimizer would drop before AD (`static` arrays nothing reads),
through every driver path: -c then link, headers, --enzc-ad-before-opt, IR inputs.
Each custom gradient is a deliberate 3x the true one, so a registration that was
dropped (the body differentiated instead) gives a different, analytically checked value."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ENZCC, ENZCXX, run

PROGRAMS = Path(__file__).resolve().parents[1] / "ad" / "programs" / "rev2" / "custom"

BODY = r"""
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }
double aug_sq(double x) { return sq(x); }
double rev_sq(double x, double d) { return 3.0 * 2.0 * x * d; }
double f(double x) { return sq(x) + x; }
"""
REGISTRATION = ("static void *__enzyme_register_gradient_sq[3] = "
                "{(void *)sq, (void *)aug_sq, (void *)rev_sq};\n")
MAIN = r"""
int main(void) {
    printf("grad f %.17g %.17g\n", __enzyme_autodiff((void *)f, 1.5), 3.0 * 2.0 * 1.5 + 1.0);
    return 0;
}
"""

IR = """
target triple = "x86_64-pc-linux-gnu"
define double @sq(double %x) {
  %r = fmul double %x, %x
  ret double %r
}
define double @aug_sq(double %x) {
  %r = call double @sq(double %x)
  ret double %r
}
define double @rev_sq(double %x, double %d) {
  %t = fmul double %x, 6.0
  %r = fmul double %t, %d
  ret double %r
}
@__enzyme_register_gradient_sq = internal global [3 x ptr] [ptr @sq, ptr @aug_sq, ptr @rev_sq]
define double @f(double %x) {
  %s = call double @sq(double %x)
  %r = fadd double %s, %x
  ret double %r
}
declare double @__enzyme_autodiff(...)
define double @grad_f(double %x) {
  %d = call double (...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}
"""
IR_MAIN = r"""
#include <stdio.h>
double grad_f(double);
int main(void) { printf("grad f %.17g %.17g\n", grad_f(1.5), 3.0 * 2.0 * 1.5 + 1.0); return 0; }
"""


def _check(stdout: str, count: int = 1) -> None:
    lines = [line.split() for line in stdout.splitlines() if line.startswith("grad ")]
    assert len(lines) == count, stdout
    for _, name, got, want in lines:
        assert float(got) == pytest.approx(float(want), rel=1e-12, abs=1e-14), name


@pytest.mark.parametrize("linker", [ENZCC, "clang-22"])
def test_static_registrations_compiled_with_c(tmp_path: Path, tmpdir_env: dict[str, str],
                                              linker: str) -> None:
    run([ENZCC, "-O2", "-c", str(PROGRAMS / "static_registrations.c"), "-o", "p.o"],
        tmp_path, tmpdir_env)
    run([linker, "p.o", "-lm", "-o", "prog"], tmp_path, tmpdir_env)
    _check(run([str(tmp_path / "prog")], tmp_path, tmpdir_env).stdout, 6)


@pytest.mark.parametrize(("driver", "source", "flags"), [
    (ENZCC, "static_registrations.c", ["-lm"]),
    (ENZCXX, "static_registrations_cxx.cpp", ["-std=c++17"]),
])
def test_static_registrations_with_ad_before_opt(tmp_path: Path, tmpdir_env: dict[str, str],
                                                 driver: str, source: str,
                                                 flags: list[str]) -> None:
    run([driver, "-O2", "--enzc-ad-before-opt", str(PROGRAMS / source), *flags, "-o", "prog"],
        tmp_path, tmpdir_env)
    _check(run([str(tmp_path / "prog")], tmp_path, tmpdir_env).stdout, 6)


@pytest.mark.parametrize(("include", "flags"), [
    ('#include "reg.h"', []),               # next to the source
    ('#include "reg.h"', ["-Iinc"]),        # quoted, found in -I
    ("#include <reg.h>", ["-Iinc"]),        # angled, found in -I
    ('#include "reg.h"', ["-iquote", "inc"]),
    ("#include <reg.h>", ["-isystem", "inc"]),
    ("#include <reg.h>", ["-idirafter", "inc"]),
])
def test_static_registration_in_a_project_header(tmp_path: Path, tmpdir_env: dict[str, str],
                                                 include: str, flags: list[str]) -> None:
    header_dir = tmp_path / ("inc" if flags else "src")
    header_dir.mkdir(exist_ok=True)
    (tmp_path / "src").mkdir(exist_ok=True)
    (header_dir / "reg.h").write_text(REGISTRATION)
    (tmp_path / "src" / "main.c").write_text(BODY + include + "\n" + MAIN)
    run([ENZCC, "-O2", *flags, "src/main.c", "-o", "prog"], tmp_path, tmpdir_env)
    _check(run([str(tmp_path / "prog")], tmp_path, tmpdir_env).stdout)


@pytest.mark.parametrize("mode", ["link", "-c"])
def test_internal_registration_in_an_ll_input(tmp_path: Path, tmpdir_env: dict[str, str],
                                              mode: str) -> None:
    (tmp_path / "m.ll").write_text(IR)
    (tmp_path / "main.c").write_text(IR_MAIN)
    if mode == "-c":
        run([ENZCC, "-O2", "-c", "m.ll", "-o", "m.o"], tmp_path, tmpdir_env)
        run([ENZCC, "-O2", "m.o", "main.c", "-o", "prog"], tmp_path, tmpdir_env)
    else:
        run([ENZCC, "-O2", "m.ll", "main.c", "-o", "prog"], tmp_path, tmpdir_env)
    _check(run([str(tmp_path / "prog")], tmp_path, tmpdir_env).stdout)


# How a registration can reach a translation unit without its name appearing in the
# source file or in a header the source names literally: only the preprocessor knows.
REACHES = {
    "stdin": ([], {}, None),
    "-include": (["-include", "inc/reg.h"], {}, ""),
    "CPATH": ([], {"CPATH": "inc"}, "#include <reg.h>"),
    "C_INCLUDE_PATH": ([], {"C_INCLUDE_PATH": "inc"}, "#include <reg.h>"),
    "computed include": (["-DREG_HEADER=\"inc/reg.h\""], {}, "#include REG_HEADER"),
    "computed include, -I": (["-Iinc", "-DREG_HEADER=<reg.h>"], {}, "#include REG_HEADER"),
    "--include-directory=": (["--include-directory=inc"], {}, "#include <reg.h>"),
    "-isystem, -MMD": (["-isystem", "inc", "-DREG_HEADER=<reg.h>", "-MMD"], {},
                       "#include REG_HEADER"),
}


@pytest.mark.parametrize("how", list(REACHES))
@pytest.mark.parametrize("mode", ["link", "-c"])
def test_registration_reaching_the_unit_only_through_the_preprocessor(
        tmp_path: Path, tmpdir_env: dict[str, str], how: str, mode: str) -> None:
    flags, env_vars, include = REACHES[how]
    (tmp_path / "inc").mkdir()
    # The header declares what it registers, so that -include (before the source) works.
    (tmp_path / "inc" / "reg.h").write_text("double sq(double), aug_sq(double), "
                                            "rev_sq(double, double);\n" + REGISTRATION)
    env = {**tmpdir_env, **env_vars}
    source = BODY + (include or "") + "\n" + MAIN
    if include is None:  # stdin: the registration is in the text clang reads from a pipe
        argv, stdin = ["-x", "c", "-"], (BODY + REGISTRATION + MAIN).encode()
    else:
        (tmp_path / "main.c").write_text(source)
        argv, stdin = ["main.c"], None
    if mode == "-c":
        run([ENZCC, "-O2", *flags, "-c", *argv, "-o", "main.o"], tmp_path, env, input=stdin)
        run([ENZCC, "main.o", "-o", "prog"], tmp_path, env)
    else:
        run([ENZCC, "-O2", *flags, *argv, "-o", "prog"], tmp_path, env, input=stdin)
    _check(run([str(tmp_path / "prog")], tmp_path, env).stdout)


def test_names_that_are_not_utf8_reach_the_registration_checks() -> None:
    """obj:3703062, ar:3703791: a damaged object's IR named a global `@"g\\80x"`; the
    registration checks read names and texts through llvmlite's strict UTF-8 and ended
    in an internal error. They now read bytes that are not UTF-8 as surrogates, and a
    kept registration's name is written back byte for byte."""
    from enzc.frontend.preserve import keep_registrations, mark_registered_noinline
    from enzc.lto.irmodule import module_text, parse_module

    module = parse_module(b'@"g\\80x" = global i32 0\n'
                          b'@"__enzyme_inactivefn\\80" = internal global [1 x ptr] [ptr @h]\n'
                          b'@llvm.global.annotations = appending global [0 x { ptr, ptr, ptr, i32, ptr }] '
                          b'zeroinitializer, section "llvm.metadata"\n'
                          b'define void @h() {\n  ret void\n}\n', "case")
    keep_registrations(module)
    mark_registered_noinline(module)
    text = module_text(module)
    assert '@llvm.compiler.used = appending global [1 x ptr] [ptr @"__enzyme_inactivefn\\80"]' in text
    assert "noinline" in text
