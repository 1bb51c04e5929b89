"""-g builds of gradient programs: the derivative carries no debug locations of its
own, and nothing it copies from the original may leave LLVM's debug info invalid
(LLVM would drop all of it with a warning)."""

from __future__ import annotations

from pathlib import Path

from conftest import ENZCXX, run

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
