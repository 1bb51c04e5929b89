"""Whole-program IR collection: ELF `.llvmbc` sections, archives, ld-style symbol
resolution and module linking.

`collect` walks a link line as ld would and returns the IR units to merge and the
arguments the final link still needs; `irmodule` parses, prepares and links modules.
"""

from enzc.lto.collect import (Collection, CompiledSource, InputFile, IRUnit, Library,
                              LinkerFlags, LinkItem, collect)

__all__ = ["Collection", "CompiledSource", "InputFile", "IRUnit", "Library", "LinkerFlags",
           "LinkItem", "collect"]
