"""Gradients that need no cache allocate none, checked on enzcc's real output.

The issue's example: relu3 (a branch and `pow`) at -O2. Every value its reverse
pass needs can be recomputed or kept on the stack, so the post-AD module's
derivative must not call an allocator. This guards the cost model end to end:
a regression that starts caching would still give correct gradients (the
gradient tests would stay green) but cost a malloc per call.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).parent / "programs" / "rev1"
ENZCC = Path(sys.executable).with_name("enzcc")
ALLOCATORS = re.compile(r"call [^\n]*@(malloc|calloc|realloc|_Znwm|_Znam)\(")


def derivative_bodies(module_text: str) -> dict[str, str]:
    """The text of each synthesized derivative function, by name."""
    bodies = {}
    for match in re.finditer(r"^define [^\n]*@(\"?[\w.$]*diffe[\w.$]*\"?)\(.*?^}", module_text, re.M | re.S):
        bodies[match.group(1)] = match.group(0)
    return bodies


@pytest.mark.parametrize("program", ["branches/relu3.c", "scalar/square.c"])
def test_no_cache_allocation_at_O2(program: str, tmp_path: Path) -> None:
    source = PROGRAMS / program
    if not source.exists():
        pytest.fail(f"missing test program {source}")
    out = tmp_path / "post_ad.ll"
    subprocess.run([str(ENZCC), "-O2", "-S", "-emit-llvm", str(source), "-o", str(out)],
                   check=True, capture_output=True, text=True)
    bodies = derivative_bodies(out.read_text())
    assert bodies, "no derivative function in the post-AD module"
    for name, body in bodies.items():
        assert not ALLOCATORS.search(body), f"{name} allocates a cache:\n{body}"
