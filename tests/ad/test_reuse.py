"""The reverse pass reuses forward math a derivative rule needs (`ad/reuse.py`).

Checked on enzcc's real output: a program computing sin and cos of the same
angles must not call sin or cos again in its reverse pass (its gradient is
checked by tests/ad/programs/rev2/reuse/sincos_pairs.c).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from enzc.ad.rules.reuse import math_base

from test_cache_free_gradients import derivative_bodies

PROGRAM = Path(__file__).parent / "programs" / "rev2" / "reuse" / "sincos_pairs.c"
ENZCC = Path(sys.executable).with_name("enzcc")
SIN_COS = re.compile(r"call [^\n]*@(?:llvm\.)?(?:sin|cos)(?:\.f64)?\(")


def test_math_base_spellings() -> None:
    assert [math_base(n) for n in ("cos", "cosf", "cosl", "llvm.cos.f32", "sinh", "tanhf")] == [
        "cos", "cos", "cos", "cos", "sinh", "tanh"]
    assert math_base("leaf") == "leaf"  # not a libm variant of "lea"


def test_sin_and_cos_are_not_called_again_in_reverse(tmp_path: Path) -> None:
    out = tmp_path / "post_ad.ll"
    subprocess.run([str(ENZCC), "-O2", "-S", "-emit-llvm", str(PROGRAM), "-o", str(out)],
                   check=True, capture_output=True, text=True)
    bodies = derivative_bodies(out.read_text())
    assert len(bodies) == 1
    (body,) = bodies.values()
    # Two angles (t[i] in the loop, *a after it), each with one forward sin and cos.
    assert len(SIN_COS.findall(body)) == 4, body
