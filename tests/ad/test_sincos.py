"""sin and cos from one `sincos` call in a derivative's forward pass (`synth/sincos.py`),
checked on enzcc's post-AD module; the gradients of the same program are checked
against finite differences in programs/rev2/reuse/sincos_fused.c."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PROGRAM = Path(__file__).parent / "programs" / "rev2" / "reuse" / "sincos_fused.c"
ENZCC = Path(sys.executable).with_name("enzcc")


def _diffe_model(tmp_path: Path, source: Path) -> str:
    temps = tmp_path / "temps"
    subprocess.run([str(ENZCC), "-O2", str(source), "-lm", f"--enzc-keep-temps={temps}", "-o", str(tmp_path / "p")],
                   check=True, capture_output=True)
    text = (temps / "merged.post-ad.ll").read_text()
    body = re.search(r"^define [^\n]*@diffe_model\(.*?^}", text, re.M | re.S)
    assert body
    return body.group(0)


def calls(body: str, name: str) -> int:
    return len(re.findall(rf"call [^\n]*@{re.escape(name)}\(", body))


def test_differentiated_sin_and_cos_become_sincos(tmp_path: Path) -> None:
    """sin(y[i - 1]) and sin(last) take loads of overwritten memory used nowhere else:
    each is one sincos, and the reverse calls no cos for them (one llvm.cos.f64 is
    left, for sin(0.5 k[i]), whose argument the reverse recomputes from k). The cos
    of a product and cos(y[i]) (y[i] is also summed) keep their reverse sin calls;
    the sin of an inactive argument and the sin used only in a comparison keep their
    plain calls."""
    body = _diffe_model(tmp_path, PROGRAM)
    assert calls(body, "sincos") == 2
    assert calls(body, "llvm.cos.f64") == 1 and calls(body, "llvm.sin.f64") == 2
    assert calls(body, "sin") == 3 and calls(body, "cos") == 2


def test_a_program_defining_sincos_keeps_separate_calls(tmp_path: Path) -> None:
    source = tmp_path / "own.c"
    source.write_text(PROGRAM.read_text().replace(
        "enum { N = 5 };",
        "enum { N = 5 };\nvoid sincos(double x, double *s, double *c) { *s = 2 * x; *c = 3 * x; }"))
    body = _diffe_model(tmp_path, source)
    assert calls(body, "sincos") == 0
    assert calls(body, "llvm.cos.f64") + calls(body, "cos") >= 1
