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

from enzc.ad.synth.alias_scopes import ArgumentFacts, DerivativeScopes
from enzc.ir import parse_module
from enzc.ir.instructions import CallBase, Load, Store
from enzc.ir.metadata import MDRef, MDTuple

NO_ARGS = ArgumentFacts({}, {}, frozenset(), frozenset())
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
    scope = DerivativeScopes(module, "f")
    scope.finish([fn], NO_ARGS)  # nothing tagged: nothing changes
    assert "alias.scope" not in store_b.metadata and "noalias" not in store_b.metadata
    scope.tag_slot(store_cache)  # type: ignore[arg-type]
    scope.tag_slot(load_cache)  # type: ignore[arg-type]
    scope.finish([fn], NO_ARGS)
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
    scope.finish([fn], NO_ARGS)  # a second pass adds nothing more
    assert _scopes(module, load_a.metadata["noalias"]) == ["1", cache_scope]
    domain = module.metadata[module.metadata[cache_scope].operands[1].id]
    assert "enzc memory of f" in str(domain)


@pytest.mark.skipif(shutil.which("llvm-as-22") is None, reason="llvm-as-22 not installed")
def test_llvm_accepts_the_metadata(tmp_path: Path) -> None:
    module = parse_module(SNIPPET)
    fn = module.functions["f"]
    scope = DerivativeScopes(module, "f")
    for inst in fn.instructions():
        if isinstance(inst, (Load, Store)) and inst.operands[-1] is fn.args[2]:
            scope.tag_slot(inst)
    scope.finish([fn], NO_ARGS)
    path = tmp_path / "m.ll"
    path.write_text(str(module))
    subprocess.run(["llvm-as-22", str(path), "-o", str(tmp_path / "m.bc")], check=True)


def _build(program: Path, tmp_path: Path) -> str:
    temps = tmp_path / "temps"
    subprocess.run([str(ENZCC), "-O2", str(program), "-lm", f"--enzc-keep-temps={temps}",
                    "-o", str(tmp_path / "prog")], check=True, capture_output=True)
    return (temps / "merged.post-ad.ll").read_text()


def _accesses(text: str, fn: str) -> list[tuple[str, set[str], set[str]]]:
    """(line, names of its !alias.scope scopes, names of its !noalias scopes) of every
    load and store of `fn` in the module `text`."""
    names = dict(re.findall(r'^(!\d+) = distinct !\{!\d+, !\d+, !"([^"]+)"\}$', text, re.M))
    lists = {k: {names.get(x, x) for x in v.split(", ")} for k, v in re.findall(r"^(!\d+) = !\{([!\d, ]+)\}$", text, re.M)}
    body = re.search(rf"^define [^\n]*@{re.escape(fn)}\(.*?^}}", text, re.M | re.S)
    assert body, fn
    out = []
    for ln in body.group(0).splitlines():
        if re.match(r"\s*(%\S+ = load |store )", ln):
            scope = re.search(r"!alias.scope (!\d+)", ln)
            noalias = re.search(r"!noalias (!\d+)", ln)
            out.append((ln, lists[scope.group(1)] if scope else set(), lists[noalias.group(1)] if noalias else set()))
    return out


def test_derivative_of_a_loop_nest_marks_its_caches(tmp_path: Path) -> None:
    """enzcc end to end: in diffe_tri every access through a `cache.slot` address is
    in the cache scope alone, every other load and store excludes it."""
    accesses = _accesses(_build(PROGRAMS / "triangular.c", tmp_path), "diffe_tri")
    slots = [a for a in accesses if re.search(r"ptr %\"?cache\.slot", a[0])]
    assert slots and len(slots) < len(accesses)
    for line, scopes, noalias in accesses:
        if any(line == s[0] for s in slots):
            assert scopes == {"cache arrays"} and not noalias, line
        else:
            assert "cache arrays" in noalias and "cache arrays" not in scopes, line


def test_shadow_scopes_follow_what_enzcc_allocated(tmp_path: Path) -> None:
    """scoped_shadows.c: `mm(st, h, p)` (stack, heap, argument) gets a derivative whose
    three shadows exclude each other; `shift_add(buf + 1, buf)` (one array) one whose
    two shadows do not; every shadow access excludes the primal arguments."""
    text = _build(PROGRAMS / "scoped_shadows.c", tmp_path)
    variants = re.findall(r"^define internal void @(reverse_mm[.\d]*)\(", text, re.M)
    seen = []
    for fn in variants:
        claims = {}
        for line, scopes, noalias in _accesses(text, fn):
            for s in scopes:
                if s.startswith("shadow"):
                    assert {"primal argument 0", "primal argument 2"} <= noalias | {s}, line
                    claims[s] = frozenset(n for n in noalias if n.startswith("shadow"))
        seen.append(claims)
    everything = {"shadow argument 0", "shadow argument 1", "shadow argument 2"}
    assert any(c.get("shadow argument 0") == everything - {"shadow argument 0"} for c in seen)
    # mm(buf + 6, buf, ...): out and in are one array, so their shadows may overlap
    assert any("shadow argument 1" not in c.get("shadow argument 0", frozenset()) for c in seen)
    for line, scopes, noalias in _accesses(text, "reverse_shift_add"):
        assert not any(n.startswith("shadow") for n in noalias), line
        if scopes & {"shadow argument 0", "shadow argument 1"}:
            assert {"primal argument 0", "primal argument 1"} & noalias, line


def test_which_regions_exclude_each_other() -> None:
    """A shadow and program memory always; two primals or two shadows only by the
    signature's pairs; an argument never excludes itself."""
    facts = ArgumentFacts({}, {}, frozenset({(0, 1)}), frozenset({(1, 2)}))
    assert facts.disjoint(("primal", 0), ("shadow", 0)) and facts.disjoint(("shadow", 3), ("primal", 1))
    assert facts.disjoint(("primal", 1), ("primal", 0)) and not facts.disjoint(("primal", 1), ("primal", 2))
    assert facts.disjoint(("shadow", 2), ("shadow", 1)) and not facts.disjoint(("shadow", 0), ("shadow", 1))
    assert not facts.disjoint(("primal", 0), ("primal", 0)) and not facts.disjoint(("shadow", 1), ("shadow", 1))
