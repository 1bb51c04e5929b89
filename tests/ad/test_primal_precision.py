"""Primal results inside derivatives (issue 17 item 4): the AD stage folds no float
libm call in double precision, so a derivative's primal equals the program's own.

What remains possible, as with clang itself: once a derivative is inlined at a call
site whose argument is a compile-time constant, LLVM's final -O2 may fold a float
libm call (correctly rounded) where the primal program calls libm at run time (docs/ad.md,
"Known limits")."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gradcheck import ENZCC, PROGRAMS

PROGRAM = PROGRAMS / "primal" / "float_libm_primal.c"


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_derivative_primal_is_bitwise_the_programs(mode: str, level: str, tmp_path: Path) -> None:
    exe = tmp_path / "prog"
    flags = ["-DFORWARD"] if mode == "forward" else []
    subprocess.run([str(ENZCC), level, *flags, str(PROGRAM), "-lm", "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("mismatches 0"), out


def test_ad_stage_keeps_float_libm_calls_in_float(tmp_path: Path) -> None:
    """The derivative's IR (before the final pipeline) calls tanhf/expf/sinf on floats
    and no double-precision twin."""
    ll = tmp_path / "prog.ll"
    subprocess.run([str(ENZCC), "-O2", "-S", "-emit-llvm", str(PROGRAM), "-o", str(ll)],
                   check=True)
    text = ll.read_text()
    derivative = text[text.index("define internal void @diffe_f("):]
    derivative = derivative[:derivative.index("\n}\n")]
    for name in ("tanhf", "expf", "sinf"):
        assert f"call float @{name}(float" in derivative, name
    for name in ("@tanh(", "@exp(", "@sin("):
        assert name not in derivative, name
