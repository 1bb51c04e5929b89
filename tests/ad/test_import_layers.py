"""The AD engine's layers: imports only go down, and docs/ad.md names every module.

    entry (enzc.ad, pipeline, callsite, markers)
      -> synth -> rules | memory -> analysis -> typeanalysis -> diagnostics -> enzc.ir

A module may import modules of a lower layer and modules of its own subpackage, never
a higher layer; `rules` and `memory` sit side by side and do not import each other.
Inside a subpackage no two modules import each other, directly or through others.
Every import counts: type-only (`if TYPE_CHECKING:`) and function-local ones too,
since each is a dependency a reader has to follow. Where a lower layer needs
something from above, it declares a small protocol or takes a callback (see
docs/ad.md), or the shared piece moves down.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
AD = SRC / "enzc" / "ad"
DOC = Path(__file__).resolve().parents[2] / "docs" / "ad.md"

LAYERS: dict[str, int] = {
    "enzc.ad.diagnostics": 0,
    "enzc.ad.typeanalysis": 1,
    "enzc.ad.analysis": 2,
    "enzc.ad.rules": 3,
    "enzc.ad.memory": 3,
    "enzc.ad.synth": 4,
    "enzc.ad": 5,
}
"""Layer of each subpackage (and of the modules at the package root: the entry
layer, but diagnostics, which every layer reports through)."""

ALLOWED_OUTSIDE = ("enzc.ir", "enzc.errors")
"""What enzc.ad may import from the rest of enzc (no driver, no linker)."""


def _module_name(path: Path) -> str:
    name = ".".join(path.relative_to(SRC).with_suffix("").parts)
    return name.removesuffix(".__init__")


MODULES = {_module_name(p): p for p in sorted(AD.rglob("*.py"))}


def _imports(path: Path) -> list[tuple[str, int]]:
    """(module imported, line) for every import statement of the file; `from pkg
    import name` imports `pkg`, and `pkg.name` too when that is a module."""
    tree = ast.parse(path.read_text())
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.append((base, node.lineno))  # `from pkg import module` runs pkg's __init__ too
            found += [(f"{base}.{alias.name}", node.lineno) for alias in node.names
                      if f"{base}.{alias.name}" in MODULES]
    return [(m, line) for m, line in found if m == "enzc" or m.startswith("enzc.")]


def layer_of(module: str) -> tuple[str, int]:
    """(subpackage, layer) of a module of enzc.ad."""
    for pkg in sorted(LAYERS, key=len, reverse=True):
        if module == pkg or module.startswith(pkg + "."):
            return pkg, LAYERS[pkg]
    raise AssertionError(f"{module} is in no layer: add its subpackage to LAYERS")


def test_imports_go_down() -> None:
    bad = []
    for name, path in MODULES.items():
        pkg, level = layer_of(name)
        for target, line in _imports(path):
            where = f"{path.relative_to(SRC)}:{line}: {name} imports {target}"
            if not target.startswith("enzc.ad"):
                if not target.startswith(ALLOWED_OUTSIDE):
                    bad.append(f"{where} (enzc.ad may only use {', '.join(ALLOWED_OUTSIDE)})")
                continue
            target_pkg, target_level = layer_of(target)
            if target_pkg == pkg or target_level < level:
                continue
            bad.append(f"{where} ({target_pkg} is not below {pkg})")
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_ir_knows_nothing_of_ad() -> None:
    bad = [f"{p.relative_to(SRC)}:{line}: imports {t}"
           for p in sorted((SRC / "enzc" / "ir").rglob("*.py"))
           for t, line in _imports(p) if t.startswith("enzc.ad")]
    assert not bad, "\n".join(bad)


def _cycles(nodes: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected sets of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(nodes[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(nodes[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                scc = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    scc.append(w)
                    if w == v:
                        break
                if len(scc) > 1:
                    out.append(sorted(scc))
    return out


def test_no_import_cycles_in_a_subpackage() -> None:
    """A package's `__init__` re-exporting a module is no cycle with that module; a
    module that imports its own package (`from pkg import sibling`) runs the package's
    `__init__`, so that counts."""
    graph = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for target, _ in _imports(path):
            if target in MODULES and target != name:
                graph[name].add(target)
    packages = {name for name, path in MODULES.items() if path.name == "__init__.py"}
    for pkg in packages:
        for name in graph:
            if name.startswith(pkg + ".") and pkg in graph[name] and name in graph[pkg]:
                graph[pkg].discard(name)  # the package re-exports `name`: the module's import is the dependency
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" ".join(c) for c in cycles)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_docs_name_every_module(name: str) -> None:
    """docs/ad.md's module tables list every module of enzc.ad by its path."""
    rel = MODULES[name].relative_to(AD).as_posix()
    if rel.endswith("__init__.py"):
        return
    assert f"`{rel}`" in DOC.read_text(), f"docs/ad.md does not name `{rel}`"


def test_docs_name_no_missing_module() -> None:
    """Every `x.py` docs/ad.md names exists (by its path, or by its name inside a subpackage)."""
    named = set(re.findall(r"`((?:[a-z_]+/)?[a-z_]+\.py)`", DOC.read_text()))
    names = {p.name for p in MODULES.values()}
    subpackages = {p.parent.name for p in MODULES.values() if p.parent != AD}
    missing = sorted(n for n in named if not (AD / n).exists() and n not in names
                     and ("/" not in n or n.split("/")[0] in subpackages))
    assert not missing, f"docs/ad.md names modules that do not exist: {missing}"
