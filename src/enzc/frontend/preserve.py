"""Keep registrations and the functions they name intact until AD.

A function named in `__enzyme_register_gradient_*`, `__enzyme_inactivefn` or
`__enzyme_function_like` must still be *called* when the AD stage runs: once the
optimizer inlines it, its call (and with it the custom derivative, the
inactivity or the rule) is gone and its body would be differentiated instead.
-O2 inlines such small functions in the translation unit that defines them. The
frontend emits every unit's IR before any LLVM pass; when the unit registers, the
registered functions are marked `noinline` and O2* runs in-process (the same
pipeline, now honouring the mark) instead of in a second clang.

The registration array itself is unused data: a `static` one (or a C++ `const`,
`inline` or anonymous-namespace one) is not even emitted by clang unless
`-femit-all-decls`, and O2 deletes it, leaving no trace in the bitcode. So which
units register is decided from the files the preprocessor actually read, not from
guesses about include paths: the frontend records the unit's headers (`HeaderRecord`:
every header, whether it came from an `#include` (computed or not), `-include`,
`-I`/`--include-directory=`, `CPATH`/`C_INCLUDE_PATH` or a system directory), and a
unit whose source, one of those headers, or IR names a registration (or an Enzyme
attribute) is compiled again with `-femit-all-decls` and the attribute macros;
`keep_registrations` then adds the discardable registration globals to
`@llvm.compiler.used` before any optimization. A source that itself names one takes
that path at once. Units without registrations (almost all) pay nothing but byte
searches.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
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

_PREFIX = b"enzyme_"
"""In every mark: one fast search rules out almost every file."""

_DISCARDABLE = frozenset({"internal", "private", "linkonce_any", "linkonce_odr",
                          "available_externally"})


def registers_functions(bitcode_path: str) -> bool:
    """Whether the bitcode may define a registration (a byte search, no parsing)."""
    with open(bitcode_path, "rb") as f:
        data = f.read()
    return any(m in data for m in _MARKS)


def source_registers(path: str) -> bool:
    """Whether the source file itself names a registration or an Enzyme attribute.

    A byte search, no preprocessing: a name in a comment or an `#if 0` block only
    costs the slower, registration-preserving frontend.
    """
    try:
        return _names_mark(path)
    except OSError:
        return False  # clang reports it


@dataclass(frozen=True)
class HeaderRecord:
    """Where the frontend records the headers it reads, through two cc1 options that
    leave the -MD/-MMD output alone: the header graph (`-dependency-dot`; every header
    but a forced include that includes nothing) and the header list (`-header-include-
    file`, as `-H` prints it; every header, forced includes too, but without system
    headers when -MMD asks to leave them out)."""

    graph: str
    listing: str | None
    """None when the user's own `-H` (or CC_PRINT_HEADERS) owns that output."""
    system_headers: bool = True

    def flags(self) -> list[str]:
        out = ["-Xclang", "-dependency-dot", "-Xclang", self.graph]
        if self.listing is not None:
            out += ["-Xclang", "-header-include-file", "-Xclang", self.listing,
                    "-Xclang", "-header-include-format=textual",
                    "-Xclang", "-header-include-filtering=none"]
            if self.system_headers:
                out += ["-Xclang", "-sys-header-deps"]
        return out

    def names_mark(self, sysroot: str = "/") -> bool:
        """Whether a recorded header names a registration or an Enzyme attribute; True
        (assume so) when a record or a header cannot be read."""
        try:
            with open(self.graph, "rb") as f:
                paths = [_dot_label_path(m, sysroot) for m in _DOT_LABEL.findall(f.read())]
            if self.listing is not None and os.path.exists(self.listing):
                with open(self.listing, "rb") as f:
                    paths += [[os.fsdecode(line)] for line in f.read().splitlines() if line]
            return any(_any_names_mark(candidates) for candidates in paths)
        except OSError:
            return True


def _dot_label_path(label: bytes, sysroot: str) -> list[str]:
    """The paths a DOT label may stand for: clang writes the path it opened, relative
    to the working directory or absolute without the sysroot's prefix (so
    `/usr/include/stdio.h` reads `usr/include/stdio.h`)."""
    path = _dot_unescape(label)
    return sorted({path, "/" + path, sysroot.rstrip("/") + "/" + path.lstrip("/")})


def _any_names_mark(candidates: list[str]) -> bool:
    """Whether any existing candidate names a mark (True if none exists: unknown)."""
    found = [c for c in candidates if os.path.isfile(c)]
    return not found or any(_names_mark(c) for c in found)


_DOT_LABEL = re.compile(rb'label="((?:[^"\\]|\\.)*)"')
_DOT_ESCAPE = re.compile(rb"\\(.)")


def _dot_unescape(label: bytes) -> str:
    """A DOT label back to the path (llvm::DOT::EscapeString in reverse)."""
    return os.fsdecode(_DOT_ESCAPE.sub(lambda m: b"\n" if m.group(1) == b"n" else m.group(1),
                                       label))


@functools.lru_cache(maxsize=4096)
def _names_mark_cached(path: str, size: int, mtime: int) -> bool:
    with open(path, "rb") as f:
        data = f.read()
    return _PREFIX in data and any(m in data for m in _MARKS)


def _names_mark(path: str) -> bool:
    """Whether the file names a registration or an Enzyme attribute (cached per file
    version: the units of one build share most headers)."""
    info = os.stat(path)
    return _names_mark_cached(os.path.abspath(path), info.st_size, info.st_mtime_ns)


def optimize_keeping_registered(unoptimized_path: str, out_path: str, label: str,
                                clang_level: str | None = None) -> None:
    """Keep the registrations of unoptimized bitcode, mark the functions they name
    `noinline`, optimize (O2*, or `clang_level`'s passes: `passes.run_pre_ad`), write
    the result to `out_path`."""
    from enzc.frontend.passes import run_pre_ad

    with open(unoptimized_path, "rb") as f:
        data = f.read()
    with irmodule.LLVM_LOCK:
        module = irmodule.parse_module(data, label)
        keep_registrations(module)
        mark_registered_noinline(module)
        run_pre_ad(module, clang_level)
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
            if registration_kind(irmodule.value_name(gv)) is not None and not gv.is_declaration
            and gv.linkage.name in _DISCARDABLE]
    if not kept:
        return
    linkages = [gv.linkage for gv in kept]
    refs = ", ".join(f"ptr @{_quote(irmodule.value_name(gv))}" for gv in kept)
    decls = "".join(f"@{_quote(irmodule.value_name(gv))} = external global i8\n" for gv in kept)
    text = (f'target datalayout = "{module.data_layout}"\ntarget triple = {_quoted_string(irmodule.module_triple(module))}\n'
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
    return _quoted_string(name)


def _quoted_string(text: str) -> str:
    """An IR string literal; surrogates (bytes that were not UTF-8) as the bytes."""
    raw = text.encode("utf-8", "surrogateescape")
    return '"' + "".join(chr(b) if 32 <= b < 127 and b not in b'"\\' else f"\\{b:02X}"
                         for b in raw) + '"'


def mark_registered_noinline(module: ModuleRef) -> None:
    """Add `noinline` to the functions the module's registrations name (the merged
    module gets this too: IR inputs and objects built elsewhere skip the frontend)."""
    globals_text = [(name, irmodule.value_text(gv)) for gv in module.global_variables
                    if registration_kind(name := irmodule.value_name(gv)) is not None]
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
    texts = {irmodule.value_name(gv): irmodule.value_text(gv)  # by name: the strings are private
             for gv in module.global_variables}
    table = texts.get(ANNOTATIONS)
    if table is None:
        return []

    def string_of(name: str) -> str | None:
        m = re.search(r'c"((?:[^"\\]|\\.)*)"', texts.get(name, ""))
        return m.group(1).split("\\00", 1)[0] if m else None

    return annotated_functions(table, string_of)
