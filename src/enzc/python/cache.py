"""The compile cache of `enzc.load`: one directory per built library.

The key is a digest of the source text, the files' paths and contents, the flags,
the language, enzc (its version and the stat of its own source files, so an edited
checkout never serves stale derivatives), clang-22 (the installed binary's path,
size and mtime: identifying it must not run it) and the Python ABI. An entry holds
the shared object and `manifest.json` (signatures, the shared object's SHA-256, and
the headers the build read with their SHA-256, so an edited header is a miss).
Entries are staged and renamed into place (see enzc.diskcache); a failed build
leaves nothing behind.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import enzc
from enzc.diskcache import (
    cache_root,
    digest,
    enzc_fingerprint,
    file_digest,
    publish_dir,
    remove_entry,
    staging_dir,
)
from enzc.frontend.toolchain import CLANG
from enzc.python.build import Built, Request, build
from enzc.python.ctype import CType, Pointer, Scalar, Unsupported
from enzc.python.signature import Param, Signature

FORMAT = 2
_MANIFEST = "manifest.json"


@dataclass
class Stats:
    """What this process's loads did (the tests read them)."""

    hits: int = 0
    builds: int = 0
    corrupt: int = 0
    """Entries found damaged (or stale: an included header changed) and rebuilt."""


STATS = Stats()


@dataclass(frozen=True)
class Entry:
    """A usable cache entry."""

    key: str
    library: Path
    manifest: dict[str, Any]

    @property
    def module_name(self) -> str:
        return module_name(self.key)

    @property
    def signatures(self) -> list[Signature]:
        return [_decode_signature(s) for s in self.manifest["signatures"]]


def module_name(key: str) -> str:
    return "_enzc_" + key[:24]


def request_key(request: Request) -> str:
    parts: list[bytes | str] = ["enzc.load", str(FORMAT), enzc.__version__, enzc_fingerprint(),
                                _toolchain_id(), sys.version, sysconfig.get_config_var("EXT_SUFFIX")
                                or "", request.lang, request.source or "\0none",
                                "\0".join(request.flags)]
    for path in request.files:
        parts += [path, file_digest(path)]
    return digest(*parts)


def load_or_build(request: Request, importer: Callable[[Entry], ModuleType]
                  ) -> tuple[Entry, ModuleType]:
    """The entry for `request` and its imported module; built and published first if
    missing or damaged. A fresh build is imported before it is published, so a library
    that cannot be loaded (an undefined symbol) never enters the cache."""
    root = cache_root()
    key = request_key(request)
    final = root / "lib" / key[:2] / key
    entry = _read(key, final)
    if entry is not None:
        STATS.hits += 1
        return entry, importer(entry)
    if final.exists():
        STATS.corrupt += 1
        remove_entry(final)
    staged = staging_dir(root)
    try:
        work = staged / "work"
        work.mkdir()
        built = build(request, work, module_name(key))
        library = staged / built.library.name
        os.rename(built.library, library)
        shutil.rmtree(work)
        manifest = _manifest(built, library)
        (staged / _MANIFEST).write_text(json.dumps(manifest, indent=1))
        module = importer(Entry(key, library, manifest))
        STATS.builds += 1
        publish_dir(staged, final)
    finally:
        if staged.exists():
            shutil.rmtree(staged, ignore_errors=True)
    return Entry(key, final / library.name, manifest), module


def _read(key: str, final: Path) -> Entry | None:
    """The entry at `final` if whole and current, else None."""
    try:
        manifest = json.loads((final / _MANIFEST).read_text())
        library = final / manifest["library"]
        if manifest.get("format") != FORMAT or file_digest(library) != manifest["sha256"]:
            return None
        for path, expected in manifest["dependencies"].items():
            if not os.path.exists(path) or file_digest(path) != expected:
                return None
        return Entry(key, library, manifest)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _manifest(built: Built, library: Path) -> dict[str, Any]:
    return {"format": FORMAT, "library": library.name, "sha256": file_digest(library),
            "signatures": [_encode_signature(s) for s in built.signatures],
            "differentiable": built.differentiable,
            "derivative_errors": built.derivative_errors,
            "dependencies": {p: file_digest(p) for p in built.dependencies if os.path.exists(p)}}


def _toolchain_id() -> str:
    clang = shutil.which(CLANG) or CLANG
    try:
        real = os.path.realpath(clang)
        st = os.stat(real)
        ident = f"{real}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        ident = clang
    try:
        llvmlite = importlib.metadata.version("llvmlite")
    except importlib.metadata.PackageNotFoundError:
        llvmlite = "?"
    return f"{ident} llvmlite {llvmlite}"


def _encode_ctype(ctype: CType | None) -> Any:
    match ctype:
        case None:
            return None
        case Scalar():
            return ["scalar", ctype.kind, ctype.size, ctype.spelled]
        case Pointer():
            return ["pointer", _encode_ctype(ctype.element), ctype.const, ctype.spelled]
        case Unsupported():
            return ["unsupported", ctype.why]


def _decode_ctype(data: Any) -> Any:
    if data is None:
        return None
    match data[0]:
        case "scalar":
            return Scalar(data[1], data[2], data[3])
        case "pointer":
            return Pointer(_decode_ctype(data[1]), data[2], data[3])
        case _:
            return Unsupported(data[1])


def _encode_signature(sig: Signature) -> dict[str, Any]:
    return {"name": sig.name, "where": sig.where, "result": _encode_ctype(sig.result),
            "params": [[p.name, _encode_ctype(p.ctype), p.written] for p in sig.params]}


def _decode_signature(data: dict[str, Any]) -> Signature:
    params = tuple(Param(name, _decode_ctype(ctype), written)
                   for name, ctype, written in data["params"])
    return Signature(data["name"], params, _decode_ctype(data["result"]), data["where"])
