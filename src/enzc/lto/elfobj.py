"""ELF relocatable objects: the `.llvmbc` section and the symbols a linker sees.

Objects from `enzcc -c` and `clang -fembed-bitcode` are ordinary ELF files whose
`.llvmbc` section holds the module's bitcode. pyelftools reads them; its import is
deferred to the first object actually opened (it costs ~80 ms).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from enzc.errors import EnzcError

ELF_MAGIC = b"\x7fELF"
BITCODE_SECTION = ".llvmbc"
_ET_REL, _ET_DYN = 1, 3


class ObjectError(EnzcError):
    """An input that should be an ELF object cannot be read as one."""


@dataclass(frozen=True)
class Symbols:
    """What one linker input contributes to symbol resolution."""

    defined: frozenset[str]
    """Global and weak symbols it defines (commons included)."""
    undefined: frozenset[str]
    """Strong undefined symbols: only these make ld pull archive members."""


@dataclass(frozen=True)
class ElfObject:
    """The parts of a relocatable object that bitcode collection needs."""

    bitcode: bytes | None
    """Contents of `.llvmbc`, or None if the object carries no IR."""
    symbols: Symbols


def elf_type(head: bytes) -> int | None:
    """ELF `e_type` from the first 18 bytes of a file, or None if it is not ELF."""
    if len(head) < 18 or not head.startswith(ELF_MAGIC):
        return None
    order = "little" if head[5] == 1 else "big"
    return int.from_bytes(head[16:18], order)


def is_relocatable(head: bytes) -> bool:
    """True for an ELF relocatable object (`.o`)."""
    return elf_type(head) == _ET_REL


def is_shared(head: bytes) -> bool:
    """True for an ELF shared object (`.so`) or PIE executable."""
    return elf_type(head) == _ET_DYN


def may_carry_bitcode(data: bytes) -> bool:
    """Cheap pre-check: an object without the section name in its string table has no IR."""
    return BITCODE_SECTION.encode() + b"\0" in data


def read_elf_object(data: bytes, label: str, want_symbols: bool = True) -> ElfObject:
    """Read `.llvmbc` and (if `want_symbols`) the global symbols of an ELF object."""
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(io.BytesIO(data))
        kind = elf["e_type"]
        section = elf.get_section_by_name(BITCODE_SECTION)
        bitcode = section.data() if section is not None else None
        symbols = _symbols(elf) if want_symbols else Symbols(frozenset(), frozenset())
    except Exception as err:  # pyelftools raises many kinds of errors on damaged files
        raise ObjectError(f"enzcc: error: '{label}': malformed ELF object: "
                          f"{err or type(err).__name__}") from None
    if kind != "ET_REL":
        raise ObjectError(f"enzcc: error: '{label}': not a relocatable object ({kind})")
    return ElfObject(bitcode or None, symbols)


def _symbols(elf) -> Symbols:  # type: ignore[no-untyped-def]  # pyelftools is untyped
    """Global symbols of the object's `.symtab`, split into defined and undefined."""
    from elftools.elf.sections import SymbolTableSection

    defined: set[str] = set()
    undefined: set[str] = set()
    for section in elf.iter_sections():
        if not isinstance(section, SymbolTableSection) or section.name != ".symtab":
            continue
        for symbol in section.iter_symbols():
            bind = symbol["st_info"]["bind"]
            if bind == "STB_LOCAL" or not symbol.name:
                continue
            if symbol["st_shndx"] == "SHN_UNDEF":
                if bind == "STB_GLOBAL":
                    undefined.add(symbol.name)
            else:
                defined.add(symbol.name)
    return Symbols(frozenset(defined), frozenset(undefined - defined))
