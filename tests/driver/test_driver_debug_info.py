"""-g builds of gradient programs: the derivative carries no debug locations of its
own, and nothing it copies from the original may leave LLVM's debug info invalid
(LLVM would drop all of it with a warning)."""

from __future__ import annotations

from pathlib import Path

from conftest import ENZCC, ENZCXX, run

# clang's assignment tracking (-O2 -g, C++) tags the stores into `p` with
# !DIAssignID; the derivative clones them
PROGRAM = r"""
#include <cstdio>
extern "C" double __enzyme_autodiff(void *, ...);
struct P { double a, b; };
__attribute__((noinline)) double g(const P *p) { return p->a * p->b; }
double f(double x) { P p; p.a = x; p.b = x * 2; return g(&p); }
int main() { std::printf("%g\n", __enzyme_autodiff((void *)f, 1.5)); }
"""


def test_assignment_tracking_survives_differentiation(tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    (tmp_path / "prog.cpp").write_text(PROGRAM)
    built = run([ENZCXX, "-O2", "-g", "prog.cpp", "-o", "prog"], tmp_path, tmpdir_env)
    assert "debug info" not in built.stderr and "dbg_assign" not in built.stderr, built.stderr
    assert run([str(tmp_path / "prog")], tmp_path, tmpdir_env).stdout == "6\n"  # d/dx 2x^2 at 1.5


# `a` gets its value right before the __enzyme_autodiff call: its #dbg_value record
# sits on the call, which the AD stage replaces and erases
VARIABLE_BEFORE_CALL = r"""
#include <stdio.h>
#include <stdlib.h>
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }
int main(int argc, char **argv) {
    double a = atof(argc > 1 ? argv[1] : "1.5");
    double r = __enzyme_autodiff((void *)sq, a);
    printf("%g %g\n", r, a);
    return 0;
}
"""


def test_variable_located_before_an_entry_call_keeps_its_location(tmp_path: Path,
                                                                  tmpdir_env: dict[str, str]) -> None:
    """Erasing an instruction hands its debug records on to the next one (as LLVM
    does): dropped, `a` had no DW_AT_location at all (a debugger said optimized out)."""
    (tmp_path / "prog.c").write_text(VARIABLE_BEFORE_CALL)
    run([ENZCC, "-O2", "-g", "prog.c", "-o", "prog"], tmp_path, tmpdir_env)
    assert run([str(tmp_path / "prog"), "2.5"], tmp_path, tmpdir_env).stdout == "5 2.5\n"
    dwarf = run(["llvm-dwarfdump-22", "--name=a", "prog"], tmp_path, tmpdir_env).stdout
    assert 'DW_AT_name\t("a")' in dwarf and "DW_AT_location" in dwarf, dwarf
