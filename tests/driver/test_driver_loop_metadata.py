"""Code enzcc compiles but does not differentiate is clang -O2's code (issue 12).

The pre-AD stage must not unroll or vectorize, but it may restrict LLVM only
through pass-builder options: `clang -fno-unroll-loops` on a source writes
`llvm.loop.unroll.disable` on every loop, which also stopped the final -O2 from
unrolling and interleaving them. On every driver path, the IR handed to code
generation carries no loop metadata the source did not ask for (a loop under
`#pragma clang loop unroll(disable)` keeps its own), and the machine code of
functions nothing differentiates is instruction for instruction clang-22 -O2's.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import ENZCC, ENZCXX, run

LOOPS = """
void scale(int n, double *x) { for (int i = 0; i < n; i++) x[i] *= 3.0; }
void scale_kept(int n, double *x) {
#pragma clang loop unroll(disable)
    for (int i = 0; i < n; i++) x[i] *= 5.0;
}
double sumsq(int n, const double *x) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    return s;
}
"""
REGISTRATION = """
double aug_sumsq(int n, const double *x, double *dx) { (void)dx; return sumsq(n, x); }
void rev_sumsq(int n, const double *x, double *dx, double d) {
    for (int i = 0; i < n; i++) dx[i] += 2 * x[i] * d;
}
static void *__enzyme_register_gradient_sumsq[3] = {
    (void *)sumsq, (void *)aug_sumsq, (void *)rev_sumsq};
"""
MAIN = r"""
#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif
void scale(int n, double *x);
void scale_kept(int n, double *x);
double sumsq(int n, const double *x);
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
#ifdef __cplusplus
}
#endif
int main(void) {
    /* through volatile pointers: the functions stay out of line, as compiled */
    void (*volatile scale_fn)(int, double *) = scale;
    void (*volatile kept_fn)(int, double *) = scale_kept;
    double x[40], d[40] = {0};
    for (int i = 0; i < 40; i++) x[i] = i;
    scale_fn(40, x);
    kept_fn(40, x);
    __enzyme_autodiff((void *)sumsq, enzyme_const, 40, enzyme_dup, x, d);
    printf("%.17g %.17g\n", d[3], 2 * 3.0 * 5.0 * 3);
    return 0;
}
"""
ALLOWED = {"llvm.loop.mustprogress"}
PRAGMA = "llvm.loop.unroll.disable"
PLAIN_FUNCTIONS = ("scale", "scale_kept")


def _write(tmp_path: Path, cxx: bool = False, register: bool = False) -> tuple[str, str]:
    """loops.c(c) and main.c(c) in tmp_path; with `register` loops registers a gradient."""
    suffix = ".cc" if cxx else ".c"
    body = LOOPS if not cxx else 'extern "C" {\n' + LOOPS + "}\n"
    if register:
        body += REGISTRATION
    (tmp_path / f"loops{suffix}").write_text(body)
    (tmp_path / f"main{suffix}").write_text(MAIN)
    return f"main{suffix}", f"loops{suffix}"


def _codegen_inputs(stderr: str, keep: Path) -> list[Path]:
    """The modules enzcc handed to code generation, from its -v command echo."""
    found = []
    for line in stderr.splitlines():
        if not re.match(r"clang(\+\+)?-22 ", line):
            continue
        argv = shlex.split(line)
        if "-emit-llvm" in argv or "ir" not in argv or argv[argv.index("ir") - 1] != "-x":
            continue
        found.append(keep / Path(argv[argv.index("ir") + 1]).name)
    assert found, f"no code generation step in:\n{stderr}"
    return found


def _enzcc(argv: list[str], tmp_path: Path, env: dict[str, str], tag: str) -> list[str]:
    """Run enzcc (-v, keeping temporaries); the text of each module it compiled."""
    keep = tmp_path / f"keep-{tag}"
    done = run([*argv, "-v", "--enzc-keep-temps", str(keep)], tmp_path, env)
    texts = []
    for module in _codegen_inputs(done.stderr, keep):
        dis = subprocess.run(["llvm-dis-22", str(module), "-o", "-"], capture_output=True,
                             text=True, check=True)
        texts.append(dis.stdout)
    return texts


def loop_properties(ir: str) -> dict[str, list[set[str]]]:
    """Function name -> the `llvm.loop.*` properties of each of its loops."""
    nodes = dict(re.findall(r"^(![0-9]+) = (?:distinct )?!\{(.*)\}$", ir, re.MULTILINE))
    loops: dict[str, list[set[str]]] = {}
    for name, body in re.findall(r"^define [^@]*@([\w.$]+)\(.*?\{\n(.*?)^\}", ir,
                                 re.MULTILINE | re.DOTALL):
        for loop_id in re.findall(r"!llvm\.loop (![0-9]+)", body):
            props = set()
            for operand in re.findall(r"![0-9]+", nodes[loop_id]):
                props.update(re.findall(r'!"(llvm\.loop\.[\w.]+)"', nodes.get(operand, "")))
            loops.setdefault(name, []).append(props)
    return loops


def _check_metadata(texts: list[str], clang_ir: str = "") -> None:
    """No loop metadata but the pragma's; or, given `clang_ir` (clang's own IR for the
    same flags), none that clang's loops of the same function do not carry (at -O1
    clang itself marks every loop `unroll.disable`: -O1 does not unroll)."""
    clangs = {name: set().union(*loops) for name, loops in loop_properties(clang_ir).items()}
    pragma_loops = 0
    for text in texts:
        for function, loops in loop_properties(text).items():
            for props in loops:
                extra = props - ALLOWED - clangs.get(function, set())
                if "scale_kept" in function and PRAGMA in props:
                    pragma_loops += 1
                    extra -= {PRAGMA}
                assert not extra, f"{function}: loop metadata the source did not ask for: {extra}"
    assert pragma_loops >= 1, "the user's unroll(disable) pragma was lost"


def _mnemonics(binary: Path, symbol: str) -> list[str]:
    """The instruction mnemonics of `symbol` in an object or executable."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(binary)],
                         capture_output=True, text=True, check=True).stdout
    match = re.search(rf"^[0-9a-f]+ <{re.escape(symbol)}>:\n(.*?)(?:\n\n|\Z)", out,
                      re.MULTILINE | re.DOTALL)
    assert match, f"{symbol} not in {binary}"
    return [line.split("\t")[1].split()[0] for line in match.group(1).splitlines()
            if line.count("\t") >= 1 and line.split("\t")[1].strip()]


def _check_code_is_clangs(binary: Path, tmp_path: Path, env: dict[str, str], source: str,
                          names: tuple[str, ...] = PLAIN_FUNCTIONS) -> None:
    """The functions nothing differentiates compile to clang-22 -O2's instructions."""
    reference = tmp_path / "clang-ref.o"
    compiler = "clang++-22" if source.endswith(".cc") else "clang-22"
    run([compiler, "-O2", "-c", source, "-o", str(reference)], tmp_path, env)
    for name in names:
        assert _mnemonics(binary, name) == _mnemonics(reference, name), name


def _gradient_ok(tmp_path: Path, env: dict[str, str], exe: str = "prog") -> None:
    got, want = run([str(tmp_path / exe)], tmp_path, env).stdout.split()
    assert float(got) == pytest.approx(float(want), rel=1e-12)


def test_plain_c_link(tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    main, loops = _write(tmp_path)
    _check_metadata(_enzcc([ENZCC, "-O2", main, loops, "-o", "prog"], tmp_path, tmpdir_env, "c"))
    _gradient_ok(tmp_path, tmpdir_env)
    _check_code_is_clangs(tmp_path / "prog", tmp_path, tmpdir_env, loops)


def test_one_source_with_everything(tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    (tmp_path / "all.c").write_text(LOOPS + MAIN)
    _check_metadata(_enzcc([ENZCC, "-O2", "all.c", "-o", "prog"], tmp_path, tmpdir_env, "all"))
    _gradient_ok(tmp_path, tmpdir_env)


def test_cxx_link(tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    main, loops = _write(tmp_path, cxx=True)
    _check_metadata(_enzcc([ENZCXX, "-O2", main, loops, "-o", "prog"], tmp_path, tmpdir_env, "cc"))
    _gradient_ok(tmp_path, tmpdir_env)
    _check_code_is_clangs(tmp_path / "prog", tmp_path, tmpdir_env, loops)


def test_compile_then_link_and_archive(tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    main, loops = _write(tmp_path)
    _check_metadata(_enzcc([ENZCC, "-O2", "-c", loops, "-o", "loops.o"], tmp_path, tmpdir_env, "lo"))
    _check_code_is_clangs(tmp_path / "loops.o", tmp_path, tmpdir_env, loops)
    run([ENZCC, "-O2", "-c", main, "-o", "main.o"], tmp_path, tmpdir_env)
    _check_metadata(_enzcc([ENZCC, "-O2", "main.o", "loops.o", "-o", "prog"], tmp_path,
                           tmpdir_env, "link"))
    _gradient_ok(tmp_path, tmpdir_env)
    run(["llvm-ar-22", "rcs", "libloops.a", "loops.o"], tmp_path, tmpdir_env)
    _check_metadata(_enzcc([ENZCC, "-O2", "main.o", "-L.", "-lloops", "-o", "prog2"], tmp_path,
                           tmpdir_env, "ar"))
    _gradient_ok(tmp_path, tmpdir_env, "prog2")
    _check_code_is_clangs(tmp_path / "prog2", tmp_path, tmpdir_env, loops)


@pytest.mark.parametrize("flags", [["-O2"], ["-O1"], ["-O3"], ["-Os"], ["-Oz"],
                                   ["-O2", "-march=x86-64-v3", "-ffast-math"]],
                         ids=lambda flags: " ".join(flags))
def test_assembly_and_ir_output(tmp_path: Path, tmpdir_env: dict[str, str],
                                flags: list[str]) -> None:
    """-S output equals clang's at every level: -Os/-Oz functions carry optsize/minsize
    from the frontend on, target and fast-math flags reach every step."""
    _, loops = _write(tmp_path)
    run([ENZCC, *flags, "-S", "-emit-llvm", loops, "-o", "loops.ll"], tmp_path, tmpdir_env)
    clang_ir = run(["clang-22", *flags, "-S", "-emit-llvm", loops, "-o", "-"], tmp_path,
                   tmpdir_env).stdout
    _check_metadata([(tmp_path / "loops.ll").read_text()], clang_ir)
    run([ENZCC, *flags, "-S", loops, "-o", "enzcc.s"], tmp_path, tmpdir_env)
    run(["clang-22", *flags, "-S", loops, "-o", "clang.s"], tmp_path, tmpdir_env)

    def instructions(path: str) -> list[str]:
        lines = (tmp_path / path).read_text().splitlines()
        return [line.split("#")[0].strip() for line in lines
                if line.startswith("\t") and not line.strip().startswith((".", "#"))]

    assert instructions("enzcc.s") == instructions("clang.s")


def test_ad_before_opt(tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    main, loops = _write(tmp_path)
    _check_metadata(_enzcc([ENZCC, "-O2", "--enzc-ad-before-opt", main, loops, "-o", "prog"],
                           tmp_path, tmpdir_env, "ref"))
    _gradient_ok(tmp_path, tmpdir_env)


def test_registration_preserving_frontend(tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    """A unit that registers a gradient is optimized in-process (preserve.py)."""
    main, loops = _write(tmp_path, register=True)
    _check_metadata(_enzcc([ENZCC, "-O2", main, loops, "-o", "prog"], tmp_path, tmpdir_env, "reg"))
    _gradient_ok(tmp_path, tmpdir_env)
    _check_metadata(_enzcc([ENZCC, "-O2", "-c", loops, "-o", "loops.o"], tmp_path, tmpdir_env,
                           "reg-c"))


def test_sanitized_unit(tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    """Sanitizers take the in-process optimization too (instrumentation after AD)."""
    _, loops = _write(tmp_path)
    _check_metadata(_enzcc([ENZCC, "-O2", "-fsanitize=address", "-c", loops, "-o", "loops.o"],
                           tmp_path, tmpdir_env, "asan"))


def test_loop_properties_reads_each_functions_loops() -> None:
    ir = """define void @f() {
  br label %1, !llvm.loop !0
}
define void @g() {
  br label %1, !llvm.loop !2
}
!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.mustprogress"}
!2 = distinct !{!2, !1, !3}
!3 = !{!"llvm.loop.unroll.disable"}
"""
    assert loop_properties(ir) == {"f": [{"llvm.loop.mustprogress"}],
                                   "g": [{"llvm.loop.mustprogress", PRAGMA}]}
