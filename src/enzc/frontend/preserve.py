"""Keep registrations and the functions they name intact until AD.

A function named in `__enzyme_register_gradient_*`, `__enzyme_inactivefn` or
`__enzyme_function_like` must still be *called* when the AD stage runs: once the
optimizer inlines it, its call (and with it the custom derivative, the
inactivity or the rule) is gone and its body would be differentiated instead.
-O2 inlines such small functions in the translation unit that defines them. The
frontend emits every unit's IR before any LLVM pass; when that IR mentions a
registration, the registered functions are marked `noinline` and O2* runs
in-process (the same pipeline, now honouring the mark) instead of in a second clang.

The registration array itself is unused data: a `static` one (or a C++ `const`,
`inline` or anonymous-namespace one) is not even emitted by clang unless
`-femit-all-decls`, and O2 deletes it. So a source whose text (or a project
header it includes) names a registration is compiled with `-femit-all-decls`, and
`keep_registrations` adds the discardable registration globals to
`@llvm.compiler.used` before any optimization.
Units without registrations (almost all) pay nothing but byte searches.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from enzc.ad.markers import (
    ANNOTATION_MARKS,
    ANNOTATIONS,
    REGISTRATION_MARKS,
    annotated_functions,
    functions_to_keep,
    registration_kind,
)
from enzc.lto import irmodule

if TYPE_CHECKING:
    from llvmlite.binding import ModuleRef

_MARKS = tuple(m.encode() for m in (*REGISTRATION_MARKS, *ANNOTATION_MARKS))

EMIT_ALL_DECLS = ["-femit-all-decls"]
"""Makes clang emit unused `static` registration arrays."""

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.MULTILINE)
_MAX_SCANNED = 200
"""Headers followed per source: the project's own, not the system's."""

_DISCARDABLE = frozenset({"internal", "private", "linkonce_any", "linkonce_odr",
                          "available_externally"})


def registers_functions(bitcode_path: str) -> bool:
    """Whether the bitcode may define a registration (a byte search, no parsing)."""
    with open(bitcode_path, "rb") as f:
        data = f.read()
    return any(m in data for m in _MARKS)


def source_registers(path: str, quote_dirs: Sequence[str], include_dirs: Sequence[str]) -> bool:
    """Whether a source or a project header it includes names a registration.

    A byte search, no preprocessing: a name in a comment or an `#if 0` block only
    costs the slower, registration-preserving frontend. Followed: `"..."` includes
    (next to the including file, then `quote_dirs`, then `include_dirs`) and `<...>`
    ones found in `include_dirs` (the user's -I, -isystem, -idirafter); the
    compiler's default system directories are not read.
    """
    seen: set[str] = set()
    todo = [path]
    while todo and len(seen) < _MAX_SCANNED:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            with open(current, "rb") as f:
                data = f.read()
        except OSError:
            continue  # stdin, or a header clang will report missing
        if any(m in data for m in _MARKS):
            return True
        for match in _INCLUDE.finditer(data):
            quoted, angled = match.groups()
            dirs = [os.path.dirname(current), *quote_dirs, *include_dirs] if quoted else include_dirs
            name = os.fsdecode(quoted or angled)
            found = next((c for c in (os.path.join(d, name) for d in dirs) if os.path.isfile(c)), None)
            if found is not None:
                todo.append(os.path.normpath(found))
    return False


def optimize_keeping_registered(unoptimized_path: str, out_path: str, label: str) -> None:
    """Keep the registrations of unoptimized bitcode, mark the functions they name
    `noinline`, run O2*, write the result to `out_path`."""
    from enzc.frontend.passes import run_o2_star

    with open(unoptimized_path, "rb") as f:
        data = f.read()
    with irmodule.LLVM_LOCK:
        module = irmodule.parse_module(data, label)
        keep_registrations(module)
        mark_registered_noinline(module)
        run_o2_star(module)
        out = module.as_bitcode()
    with open(out_path, "wb") as f:
        f.write(out)


def keep_registrations(module: ModuleRef) -> None:
    """Add the module's discardable registration globals to `@llvm.compiler.used`.

    llvmlite cannot build IR, so a two-line module referencing them is linked in:
    the globals are external for the moment of linking (so the reference binds to
    them), then get their linkage back; the appending `@llvm.compiler.used` merges.
    """
    import llvmlite.binding as llvm

    kept = [gv for gv in module.global_variables
            if registration_kind(gv.name) is not None and not gv.is_declaration
            and gv.linkage.name in _DISCARDABLE]
    if not kept:
        return
    linkages = [gv.linkage for gv in kept]
    refs = ", ".join(f"ptr @{_quote(gv.name)}" for gv in kept)
    decls = "".join(f"@{_quote(gv.name)} = external global i8\n" for gv in kept)
    text = (f'target datalayout = "{module.data_layout}"\ntarget triple = "{module.triple}"\n'
            f"{decls}@llvm.compiler.used = appending global [{len(kept)} x ptr] [{refs}], "
            'section "llvm.metadata"\n')
    for gv in kept:
        gv.linkage = "external"
    module.link_in(llvm.parse_assembly(text))
    for gv, linkage in zip(kept, linkages):
        gv.linkage = linkage


def _quote(name: str) -> str:
    """An IR global name, quoted when it is not a plain identifier."""
    if re.fullmatch(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*", name):
        return name
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):02X}"
                         for c in name) + '"'


def mark_registered_noinline(module: ModuleRef) -> None:
    """Add `noinline` to the functions the module's registrations name (the merged
    module gets this too: IR inputs and objects built elsewhere skip the frontend)."""
    globals_text = [(gv.name, str(gv)) for gv in module.global_variables
                    if registration_kind(gv.name) is not None]
    for name in functions_to_keep(globals_text) + _annotated(module):
        try:
            fn = module.get_function(name)
        except NameError:
            continue
        attrs = set(next(iter(fn.attributes), b"").split())
        if b"alwaysinline" not in attrs and b"noinline" not in attrs:
            fn.add_function_attribute("noinline")


def _annotated(module: ModuleRef) -> list[str]:
    """Functions marked by an Enzyme attribute (`@llvm.global.annotations`)."""
    texts = {gv.name: str(gv) for gv in module.global_variables}  # by name: the strings are private
    table = texts.get(ANNOTATIONS)
    if table is None:
        return []

    def string_of(name: str) -> str | None:
        m = re.search(r'c"((?:[^"\\]|\\.)*)"', texts.get(name, ""))
        return m.group(1).split("\\00", 1)[0] if m else None

    return annotated_functions(table, string_of)
