"""Whole projects built through enzcc/enzc++ give the same program output as clang-22 -O2:
a multi-file C project with three kinds of static-library/object inputs (directly, with
make, with -l), a C++ program, and a CMake project through the shipped toolchain file."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import ENZCC, ENZCXX, copy_project, run, temp_leftovers

MULTI_SOURCES = ["main.c", "vec.c", "vecnorm.c", "stats.c", "variance.c", "plain.c"]


@pytest.fixture
def multi(tmp_path: Path, tmpdir_env: dict[str, str]) -> Path:
    """The multi-file C project with its libraries built the three ways.

    libvec.a: `enzcc -c` objects (GNU ar); libstat.a: `clang-22 -fembed-bitcode -O0`
    objects (optnone IR); plain.o: clang-22 without bitcode.
    """
    project = copy_project("multi", tmp_path)
    env = tmpdir_env
    run([ENZCC, "-O2", "-c", "vec.c", "vecnorm.c", "unused.c"], project, env)
    run(["ar", "rcs", "libvec.a", "vec.o", "vecnorm.o", "unused.o"], project, env)
    for name in ("stats", "variance"):
        run(["clang-22", "-fembed-bitcode", "-O0", "-c", f"{name}.c", "-o", f"{name}.bc.o"],
            project, env)
    run(["ar", "rcs", "libstat.a", "stats.bc.o", "variance.bc.o"], project, env)
    run(["clang-22", "-O2", "-c", "plain.c", "-o", "plain.o"], project, env)
    return project


def reference_output(project: Path, env: dict[str, str], sources: list[str],
                     compiler: str = "clang-22", libs: tuple[str, ...] = ("-lm",)) -> str:
    """What the program prints when clang builds it at -O2 from all its sources."""
    run([compiler, "-O2", *sources, *libs, "-o", "reference"], project, env)
    return run(["./reference"], project, env).stdout


def defined_functions(ll: Path) -> set[str]:
    return set(re.findall(r"^define [^@]*@([\w.$]+)\(", ll.read_text(), re.MULTILINE))


def test_multi_project_direct_merges_ir_from_sources_objects_and_archives(
        multi: Path, tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    run([ENZCC, "-O2", "main.c", "plain.o", "libvec.a", "libstat.a", "-lm", "-o", "prog",
         "--enzc-keep-temps", "keep"], multi, env)
    assert run(["./prog"], multi, env).stdout == reference_output(multi, env, MULTI_SOURCES)

    merged = multi / "keep" / "merged.pre-ad.ll"
    defined = defined_functions(merged)
    # IR from the source, from enzcc objects in libvec.a (vec_norm pulls vec_dot in a
    # second pass) and from -fembed-bitcode -O0 objects in libstat.a, optnone removed.
    assert {"main", "vec_dot", "vec_axpy", "vec_norm", "stat_mean", "stat_variance"} <= defined
    assert "never_used" not in merged.read_text()  # its member is not pulled
    assert "plain_scale" not in defined  # plain.o has no IR: linked as an object
    assert "optnone" not in merged.read_text()
    assert temp_leftovers(env) == []


def test_multi_project_with_make(multi: Path, tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    run(["make", "clean"], multi, env)
    run(["make", "CC=enzcc", "CFLAGS=-O2"], multi, env)
    assert run(["./prog"], multi, env).stdout == reference_output(multi, env, MULTI_SOURCES)
    assert temp_leftovers(env) == []


def test_multi_project_with_l_libraries(multi: Path, tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    libs = multi / "libs"
    libs.mkdir()
    for name in ("libvec.a", "libstat.a"):
        shutil.move(multi / name, libs / name)
    run([ENZCC, "-O2", "main.c", "plain.o", "-Llibs", "-lvec", "-lstat", "-lm", "-o", "prog",
         "--enzc-keep-temps", "keep"], multi, env)
    assert run(["./prog"], multi, env).stdout == reference_output(multi, env, MULTI_SOURCES)
    assert {"vec_norm", "stat_variance"} <= defined_functions(multi / "keep" / "merged.pre-ad.ll")


def test_archive_before_its_users_is_not_searched_again(multi: Path,
                                                        tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    # llvm-ar-22 writes a complete index (see docs/driver.md on GNU ar), so only the
    # order can make this link fail.
    run(["llvm-ar-22", "rcs", "libvec2.a", "vec.o", "vecnorm.o", "unused.o"], multi, env)
    wrong_order = ["libvec2.a", "main.c", "plain.o", "libstat.a", "-lm", "-o", "prog"]
    ours = run([ENZCC, "-O2", *wrong_order], multi, env, check=False)
    theirs = run(["clang-22", "-O2", *wrong_order], multi, env, check=False)
    assert ours.returncode != 0 and theirs.returncode != 0
    assert "undefined reference to `vec_dot'" in ours.stderr
    assert not (multi / "prog").exists()
    assert temp_leftovers(env) == []


def test_multi_project_ad_before_opt_pipeline(multi: Path, tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    run([ENZCC, "-O2", "--enzc-ad-before-opt", "main.c", "vec.c", "vecnorm.c", "plain.o",
         "libstat.a", "-lm", "-o", "prog", "--enzc-keep-temps", "keep"], multi, env)
    assert run(["./prog"], multi, env).stdout == reference_output(multi, env, MULTI_SOURCES)
    pre_ad = (multi / "keep" / "merged.pre-ad.ll").read_text()
    assert "noinline" not in pre_ad and "optnone" not in pre_ad
    main_body = pre_ad.split("@main(")[1].split("\n}\n")[0]
    assert "alloca [8 x double]" in main_body  # the arrays stay in memory, but
    assert not re.search(r"alloca (i32|double|ptr)", main_body)  # SROA promoted scalars


def test_cxx_program_with_enzcxx(tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    project = copy_project("cxx", tmp_path)
    expected = reference_output(project, env, ["main.cpp", "shapes.cpp"], "clang++-22", ())
    run([ENZCXX, "-O2", "main.cpp", "shapes.cpp", "-o", "prog"], project, env)
    assert run(["./prog"], project, env).stdout == expected
    # Separately compiled, one TU in a static library: templates and inline functions
    # are defined in both TUs' IR (linkonce_odr) and merged once.
    run([ENZCXX, "-O1", "-c", "shapes.cpp", "-o", "shapes.o"], project, env)
    run(["llvm-ar-22", "rcs", "libshapes.a", "shapes.o"], project, env)
    run([ENZCXX, "-O1", "-c", "main.cpp"], project, env)
    run([ENZCXX, "-O1", "main.o", "libshapes.a", "-o", "prog2"], project, env)
    assert run(["./prog2"], project, env).stdout == expected
    assert "caught: unknown shape: hexagon" in expected
    assert temp_leftovers(env) == []


def test_cmake_project_through_the_toolchain_file(tmp_path: Path,
                                                  tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    if shutil.which("cmake", path=env["PATH"]) is None:
        pytest.fail("cmake is not installed (scripts/setup.sh installs it)")
    project = copy_project("cmake", tmp_path)
    build = tmp_path / "build"
    build.mkdir()
    toolchain = run([ENZCC, "--cmake-toolchain"], build, env).stdout.strip()
    assert Path(toolchain).is_file()
    run(["cmake", f"-DCMAKE_TOOLCHAIN_FILE={toolchain}", "-DCMAKE_BUILD_TYPE=Release",
         str(project)], build, env)
    cache = (build / "CMakeCache.txt").read_text()
    assert re.search(r"CMAKE_C_COMPILER:\w+=.*/enzcc$", cache, re.MULTILINE)
    log = run(["cmake", "--build", ".", "--", "VERBOSE=1"], build, env).stdout
    assert re.search(r"enzcc .*-c .*horner\.c", log) and re.search(r"enzc\+\+ .*main\.cpp", log)
    src = project / "src"
    expected = reference_output(src, env, ["main.c", "poly.c", "horner.c"])
    assert run(["./polyeval"], build, env).stdout == expected
    assert run(["./polyxx"], build, env).stdout == "p(1.5)=9.250000\n"
    assert temp_leftovers(env) == []


@pytest.mark.parametrize("ipo", [False, True])
def test_cmake_toolchain_finds_the_enzcc_that_printed_it(tmp_path: Path,
                                                        tmpdir_env: dict[str, str],
                                                        ipo: bool) -> None:
    """`cmake -DCMAKE_TOOLCHAIN_FILE=$(.venv/bin/enzcc --cmake-toolchain)` with the
    environment neither activated nor on PATH (the package is an editable install,
    so nothing leads from the shipped file to this environment's enzcc); and CMake's
    IPO (-flto=thin objects in a static library, linked by enzcc)."""
    env = {k: v for k, v in tmpdir_env.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = os.pathsep.join(d for d in env["PATH"].split(os.pathsep)
                                  if Path(d).resolve() != Path(ENZCC).parent.resolve())
    assert shutil.which("enzcc", path=env["PATH"]) is None
    project = copy_project("cmake", tmp_path)
    build = tmp_path / "build"
    build.mkdir()
    toolchain = run([ENZCC, "--cmake-toolchain"], build, env).stdout.strip()
    flags = ["-DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON"] if ipo else []
    run(["cmake", f"-DCMAKE_TOOLCHAIN_FILE={toolchain}", "-DCMAKE_BUILD_TYPE=Release", *flags,
         str(project)], build, env)
    cache = (build / "CMakeCache.txt").read_text()
    assert re.search(rf"^CMAKE_C_COMPILER:\w+={re.escape(ENZCC)}$", cache, re.MULTILINE)
    log = run(["cmake", "--build", ".", "--", "VERBOSE=1"], build, env).stdout
    objects = list(build.rglob("*.c.o"))
    assert objects and all((o.read_bytes()[:4] == b"BC\xc0\xde") == ipo for o in objects)
    assert ("-flto" in log) == ipo
    expected = reference_output(project / "src", env, ["main.c", "poly.c", "horner.c"])
    assert run(["./polyeval"], build, env).stdout == expected
    assert run(["./polyxx"], build, env).stdout == "p(1.5)=9.250000\n"
    assert temp_leftovers(env) == []


def test_gradient_across_translation_units_and_a_static_library(
        tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    # The differentiated function lives in a library built from `enzcc -c` objects; the
    # program's own -c step cannot see its body (AD is deferred), the link merges both.
    env = tmpdir_env
    (tmp_path / "cube.c").write_text("double cube(double x) { return x * x * x; }\n")
    (tmp_path / "main.c").write_text(
        "#include <stdio.h>\n#include <enzyme/enzyme.h>\ndouble cube(double);\n"
        "int main(void) {\n"
        "  for (double x = -1.5; x < 2.0; x += 1.25)\n"
        "    printf(\"%.17g %.17g\\n\", x, __enzyme_autodiff((void *)cube, x));\n"
        "  return 0;\n}\n")
    run([ENZCC, "-O2", "-c", "cube.c", "main.c"], tmp_path, env)
    run(["llvm-ar-22", "rcs", "libcube.a", "cube.o"], tmp_path, env)
    run([ENZCC, "-O2", "main.o", "libcube.a", "-o", "separate"], tmp_path, env)
    run([ENZCC, "-O1", "main.c", "cube.c", "-o", "together"], tmp_path, env)
    for program in ("separate", "together"):
        lines = run([f"./{program}"], tmp_path, env).stdout.split("\n")[:-1]
        assert len(lines) == 3
        for line in lines:
            x, derivative = map(float, line.split())
            assert derivative == pytest.approx(3 * x * x, rel=1e-12)
