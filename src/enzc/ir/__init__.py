"""enzc's LLVM IR core: types, values, instructions, module, parser and printer.

Public API (the parser/printer modules fill in the functions named here):
- `parse_module(text, filename=..., lazy=True) -> Module`, `parse_bitcode(data) -> Module`
- `print_module(module) -> str`
- `IRParseError`: malformed input, with file/line/column.
"""

from enzc.ir.instructions import *  # noqa: F401,F403
from enzc.ir.metadata import Metadata, MDRaw, MDRef, MDSpecialized, MDString, MDTuple, MDValue, SourceLocation  # noqa: F401
from enzc.ir.module import Alias, BasicBlock, Comdat, Function, GlobalVariable, Linkage, Module  # noqa: F401
from enzc.ir.types import *  # noqa: F401,F403
from enzc.ir.values import *  # noqa: F401,F403
