"""The cache alias scope (`enzc.ad.synth.cache_scope`): a derivative's cache slot
accesses are in one scope, and every other load and store of the derivative says
it does not alias them.

A wrong `!noalias` is a wrong gradient, so these tests check exactly which
accesses get which metadata: only the slot loads/stores are in the scope, calls
get nothing, existing `!noalias` lists keep their scopes, and LLVM accepts the
result. The gradients of programs with caches are checked end to end by the
gradcheck programs (tests/ad/programs/rev2/tape and the rest of the suite).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from enzc.ad.synth.cache_scope import CacheScope
from enzc.ir import parse_module
from enzc.ir.instructions import CallBase, Load, Store
from enzc.ir.metadata import MDRef, MDTuple

PROGRAMS = Path(__file__).parent / "programs" / "rev2" / "tape"
ENZCC = Path(sys.executable).with_name("enzcc")

SNIPPET = """
define void @f(ptr %a, ptr %b, ptr %cache) {
entry:
  %x = load double, ptr %a, align 8, !noalias !2
  store double %x, ptr %cache, align 8
  %y = load double, ptr %cache, align 8
  store double %y, ptr %b, align 8
  call void @g(ptr %a)
  ret void
}

declare void @g(ptr)

!0 = distinct !{!0, !"user domain"}
!1 = distinct !{!1, !0, !"user scope"}
!2 = !{!1}
"""


def _scopes(module, ref) -> list[str]:  # type: ignore[no-untyped-def]
    node = module.metadata[ref.id]
    assert isinstance(node, MDTuple)
    return [op.id for op in node.operands]  # type: ignore[union-attr]


def test_only_slot_accesses_are_in_the_scope_and_the_rest_excludes_it() -> None:
    module = parse_module(SNIPPET)
    fn = module.functions["f"]
    load_a, store_cache, load_cache, store_b = [i for i in fn.instructions() if isinstance(i, (Load, Store))]
    scope = CacheScope(module, "f")
    scope.finish([fn])  # nothing tagged: nothing changes
    assert "alias.scope" not in store_b.metadata and "noalias" not in store_b.metadata
    scope.tag_slot(store_cache)  # type: ignore[arg-type]
    scope.tag_slot(load_cache)  # type: ignore[arg-type]
    scope.finish([fn])
    cache_list = store_cache.metadata["alias.scope"]
    assert load_cache.metadata["alias.scope"] is cache_list
    assert "noalias" not in store_cache.metadata and "noalias" not in load_cache.metadata
    (cache_scope,) = _scopes(module, cache_list)
    assert store_b.metadata["noalias"] is cache_list
    assert "alias.scope" not in store_b.metadata and "alias.scope" not in load_a.metadata
    # the user's own list keeps its scope and gains the cache scope
    assert _scopes(module, load_a.metadata["noalias"]) == ["1", cache_scope]
    assert module.metadata["2"].operands[0].id == "1" and len(module.metadata["2"].operands) == 1
    call = next(i for i in fn.instructions() if isinstance(i, CallBase))
    assert not call.metadata
    scope.finish([fn])  # a second pass adds nothing more
    assert _scopes(module, load_a.metadata["noalias"]) == ["1", cache_scope]
    domain = module.metadata[module.metadata[cache_scope].operands[1].id]
    assert "enzc caches of f" in str(domain)


@pytest.mark.skipif(shutil.which("llvm-as-22") is None, reason="llvm-as-22 not installed")
def test_llvm_accepts_the_metadata(tmp_path: Path) -> None:
    module = parse_module(SNIPPET)
    fn = module.functions["f"]
    scope = CacheScope(module, "f")
    for inst in fn.instructions():
        if isinstance(inst, (Load, Store)) and inst.operands[-1] is fn.args[2]:
            scope.tag_slot(inst)
    scope.finish([fn])
    path = tmp_path / "m.ll"
    path.write_text(str(module))
    subprocess.run(["llvm-as-22", str(path), "-o", str(tmp_path / "m.bc")], check=True)


def test_derivative_of_a_loop_nest_marks_its_caches(tmp_path: Path) -> None:
    """enzcc end to end: in diffe_tri every access through a `cache.slot` address is
    in the cache scope, every other load and store names it in `!noalias`."""
    temps = tmp_path / "temps"
    subprocess.run([str(ENZCC), "-O2", str(PROGRAMS / "triangular.c"), "-lm", f"--enzc-keep-temps={temps}",
                    "-o", str(tmp_path / "prog")], check=True, capture_output=True)
    text = (temps / "merged.post-ad.ll").read_text()
    body = re.search(r"^define [^\n]*@diffe_tri\(.*?^}", text, re.M | re.S)
    assert body
    accesses = [ln for ln in body.group(0).splitlines() if re.match(r"\s*(%\S+ = load |store )", ln)]
    slots = [ln for ln in accesses if re.search(r"ptr %\"?cache\.slot", ln)]
    assert slots and len(slots) < len(accesses)
    lists = {re.search(r"!alias.scope (!\d+)", ln).group(1) for ln in slots}  # type: ignore[union-attr]
    assert len(lists) == 1
    (cache_list,) = lists
    for ln in accesses:
        if ln in slots:
            assert "!noalias" not in ln
        else:
            assert "!alias.scope" not in ln and f"!noalias {cache_list}" in ln, ln
    assert re.search(rf"^{cache_list} = !{{!\d+}}$", text, re.M)
    assert '!"enzc caches of diffe_tri"' in text
