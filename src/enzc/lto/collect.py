"""Collect the IR of a program from its link line, and what ld still has to link.

Walks the link items in command-line order like ld: objects are loaded, archives
are scanned for members that define undefined symbols (`resolve`), `-l` names are
looked up (`libsearch`). Every loaded unit that carries IR (compiled sources, `.ll`/
`.bc` inputs, objects and members with `.llvmbc`, bitcode members) goes to the merged
module; the rest (plain objects, shared libraries, archives, `-l`, linker flags)
stays on the final link line, in place. Objects whose IR is merged are left off that
line; archives stay on it, since ld will not pull a member again for symbols the
merged object (placed where the first IR came from) already defines.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from enzc.errors import EnzcError
from enzc.lto import archive as ar
from enzc.lto import elfobj, irmodule
from enzc.lto.elfobj import Symbols
from enzc.lto.libsearch import find_library
from enzc.lto.resolve import ArchiveView, SymbolState

if TYPE_CHECKING:
    from llvmlite.binding import ModuleRef

_HEAD = 18  # enough bytes to tell ELF (with e_type), archives and bitcode apart
_OBJECT_SUFFIXES = (".o", ".obj", ".lo")
_WHOLE_ON, _WHOLE_OFF = {"--whole-archive", "-whole-archive"}, {"--no-whole-archive", "-no-whole-archive"}
_GROUP_ON, _GROUP_OFF = {"--start-group", "-start-group", "-("}, {"--end-group", "-end-group", "-)"}
_STATIC_ON = {"-Bstatic", "-dn", "-non_shared", "-static"}
_STATIC_OFF = {"-Bdynamic", "-dy", "-call_shared"}


@dataclass(frozen=True)
class InputFile:
    """A linker input named on the command line: object, archive, .so, .ll/.bc, script."""

    path: str


@dataclass(frozen=True)
class CompiledSource:
    """Bitcode the frontend produced for a source file."""

    bitcode_path: str
    source: str


@dataclass(frozen=True)
class Library:
    """`-l{spec}`."""

    spec: str


@dataclass(frozen=True)
class LinkerFlags:
    """Words for ld itself (`-Wl,a,b` or `-Xlinker a`), kept in place on the link line."""

    words: tuple[str, ...]
    """What ld receives; read for --whole-archive, groups and -Bstatic."""
    spelling: tuple[str, ...]
    """How they were given to the compiler driver, to pass on unchanged."""


LinkItem = InputFile | CompiledSource | Library | LinkerFlags


@dataclass
class IRUnit:
    """One loaded unit's IR, parsed now (module) or later (data)."""

    label: str
    data: bytes | None = None
    module: ModuleRef | None = None
    from_object: bool = False
    """IR from an object/archive/IR file: may be -O0 IR with optnone to strip."""


@dataclass
class Collection:
    """The outcome of walking the link line."""

    ir: list[IRUnit] = field(default_factory=list)
    """Units whose IR is merged, in load order."""
    link_args: list[str] = field(default_factory=list)
    """Positional arguments for the final link, in order, without merged objects."""
    merged_position: int = 0
    """Where in `link_args` the merged object goes: the place of the first input that
    contributed IR, so archives before it are searched before it, as ld would."""
    native_undefined: set[str] = field(default_factory=set)
    """Symbols native code references: merged definitions of these must survive."""


class LinkInputError(EnzcError):
    """A linker input has a format enzcc cannot use."""


@dataclass
class _MemberInfo:
    symbols: Symbols
    ir: bytes | None
    module: ModuleRef | None = None


class _Walker:
    """State of one walk over the link line (ld's options are modal: whole-archive, ...)."""

    def __init__(self, lib_dirs: Sequence[str], default_lib_dirs: Callable[[], Sequence[str]],
                 static: bool, workdir: str) -> None:
        self.lib_dirs = lib_dirs
        self.default_lib_dirs = default_lib_dirs
        self.static = static
        self.workdir = workdir
        self.whole_archive = False
        self.group: list[ArchiveView] | None = None
        self.state = SymbolState()
        self.out = Collection()
        self.views: dict[str, ArchiveView] = {}
        self.members: dict[tuple[str, int], _MemberInfo] = {}

    def walk(self, items: Iterable[LinkItem]) -> Collection:
        for item in items:
            match item:
                case CompiledSource():
                    self._load_ir_file(item.bitcode_path, item.source, from_object=False)
                case InputFile():
                    self._load_file(item.path)
                case Library():
                    self._load_library(item.spec)
                case LinkerFlags():
                    self._linker_flags(item)
        if self.group is not None:
            self._close_group()
        return self.out

    def _add_ir(self, unit: IRUnit) -> None:
        if not self.out.ir:
            self.out.merged_position = len(self.out.link_args)
        self.out.ir.append(unit)

    def _load_ir_file(self, path: str, label: str, from_object: bool) -> None:
        module = irmodule.parse_module(_read(path), label)
        self.state.load(irmodule.module_symbols(module))
        self._add_ir(IRUnit(label, module=module, from_object=from_object))

    def _load_file(self, path: str) -> None:
        head = _read(path, _HEAD)
        if not head and not path.endswith(".ll"):  # ld takes an empty file (as an empty
            self.out.link_args.append(path)  # linker script), whatever its name
            return
        if path.endswith(".ll") or irmodule.is_bitcode(head):
            self._load_ir_file(path, path, from_object=True)
        elif ar.is_archive(head):
            self._load_archive(path, path)
        elif elfobj.is_relocatable(head):
            self._load_object(path)
        elif path.endswith(_OBJECT_SUFFIXES):
            raise LinkInputError(f"enzcc: error: '{path}': not an ELF object or LLVM bitcode file")
        elif path.endswith(".a"):
            raise LinkInputError(f"enzcc: error: '{path}': not an archive (bad magic)")
        else:  # shared library, linker script, ...: for ld alone
            self.out.link_args.append(path)

    def _load_object(self, path: str) -> None:
        obj = elfobj.read_elf_object(_read(path), path)
        self.state.load(obj.symbols)
        if obj.bitcode is not None:
            self._add_ir(IRUnit(path, data=obj.bitcode, from_object=True))
        else:
            self.out.native_undefined.update(obj.symbols.undefined)
            self.out.link_args.append(path)

    def _load_library(self, spec: str) -> None:
        path = find_library(spec, self.lib_dirs, self.default_lib_dirs, self.static)
        if path is not None and ar.is_archive(_read(path, _HEAD)):
            self._load_archive(path, f"-l{spec}")
        else:  # a shared library, or not found (ld will say so)
            self.out.link_args.append(f"-l{spec}")

    def _load_archive(self, path: str, spelling: str) -> None:
        view = self._view(path)
        new = view.pull_all(self.state) if self.whole_archive else view.scan(self.state)
        self._take(view, new)
        if self.group is not None:
            self.group.append(view)
        has_ir = any(self._member(view.archive, m).ir is not None for m in view.pulled)
        if self.whole_archive and has_ir:  # ld would load the merged members again
            self.out.link_args.extend(self._extract_natives(view))
        else:
            self.out.link_args.append(spelling)

    def _take(self, view: ArchiveView, members: list[ar.Member]) -> None:
        for member in members:
            info = self._member(view.archive, member)
            if info.ir is not None:
                self._add_ir(IRUnit(view.archive.label(member), data=info.ir,
                                    module=info.module, from_object=True))
            else:
                self.out.native_undefined.update(info.symbols.undefined)

    def _view(self, path: str) -> ArchiveView:
        key = os.path.realpath(path)
        if key not in self.views:
            archive = ar.read_archive(path)
            self.views[key] = ArchiveView(archive, self._index(archive),
                                          lambda m, a=archive: self._member(a, m).symbols)
        return self.views[key]

    def _index(self, archive: ar.Archive) -> dict[str, ar.Member]:
        """The archive's own index for plain members; our symbols for IR members.

        GNU ar asks the LLVM gold plugin for the symbols of objects with `.llvmbc`; an
        older plugin fails on newer bitcode and indexes nothing, so IR members are
        always indexed from their own symbol tables.
        """
        ir_members = [m for m in archive.members if _carries_ir(m.data)]
        ir_offsets = {m.offset for m in ir_members}
        index: dict[str, ar.Member] = {}
        if archive.index is not None:
            for name, offset in archive.index.items():
                member = archive.member_at(offset)
                if member is not None and member.offset not in ir_offsets:
                    index.setdefault(name, member)
            scanned = ir_members
        else:
            scanned = list(archive.members)
        for member in scanned:
            for name in sorted(self._member(archive, member).symbols.defined):
                index.setdefault(name, member)
        return index

    def _member(self, archive: ar.Archive, member: ar.Member) -> _MemberInfo:
        key = (archive.path, member.offset)
        if key not in self.members:
            self.members[key] = _member_info(archive.label(member), member.data)
        return self.members[key]

    def _extract_natives(self, view: ArchiveView) -> list[str]:
        paths = []
        for number, member in enumerate(view.archive.members):
            if self._member(view.archive, member).ir is None:
                path = os.path.join(self.workdir, f"member-{len(self.views)}-{number}-"
                                    f"{os.path.basename(member.name)}")
                with open(path, "wb") as f:
                    f.write(member.data)
                paths.append(path)
        return paths

    def _linker_flags(self, item: LinkerFlags) -> None:
        for word in item.words:
            if word in _WHOLE_ON or word in _WHOLE_OFF:
                self.whole_archive = word in _WHOLE_ON
            elif word in _STATIC_ON or word in _STATIC_OFF:
                self.static = word in _STATIC_ON
            elif word in _GROUP_ON:
                self.group = []
            elif word in _GROUP_OFF and self.group is not None:
                self._close_group()
        self.out.link_args.extend(item.spelling)

    def _close_group(self) -> None:
        """Rescan the group's archives until none pulls anything (ld's --end-group)."""
        views, self.group = self.group or [], None
        progress = True
        while progress:
            progress = False
            for view in views:
                new = view.scan(self.state)
                self._take(view, new)
                progress = progress or bool(new)


def collect(items: Sequence[LinkItem], *, lib_dirs: Sequence[str],
            default_lib_dirs: Callable[[], Sequence[str]], static: bool,
            required: Iterable[str], workdir: str) -> Collection:
    """Walk `items` as ld would and split them into IR to merge and the final link line.

    `required` are symbols undefined from the start (`-u`); `workdir` receives members
    extracted from `--whole-archive` archives that mix IR and plain objects.
    """
    walker = _Walker(lib_dirs, default_lib_dirs, static, workdir)
    walker.state.require(required)
    return walker.walk(items)


def _carries_ir(data: bytes) -> bool:
    """Cheap test whether a member may hold IR (bitcode, or ELF with .llvmbc)."""
    head = data[:_HEAD]
    return irmodule.is_bitcode(head) or (elfobj.is_relocatable(head)
                                         and elfobj.may_carry_bitcode(data))


def _member_info(label: str, data: bytes) -> _MemberInfo:
    head = data[:_HEAD]
    if irmodule.is_bitcode(head):
        module = irmodule.parse_module(data, label)
        return _MemberInfo(irmodule.module_symbols(module), data, module)
    if elfobj.is_relocatable(head):
        obj = elfobj.read_elf_object(data, label)
        return _MemberInfo(obj.symbols, obj.bitcode)
    return _MemberInfo(Symbols(frozenset(), frozenset()), None)


def _read(path: str, size: int = -1) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except OSError as err:
        raise LinkInputError(f"enzcc: error: cannot read '{path}': {err.strerror}") from None
