"""enzc's LLVM IR core: types, values, instructions, module, parser and printer.

Public API:
- `parse_module(text, filename=..., lazy=True) -> Module`, `parse_bitcode(data) -> Module`,
  `parse_file(path) -> Module` (text or bitcode, by content)
- `print_module(module) -> str` (also `str(module)`), `print_function`, `print_instruction`
- `IRParseError`: malformed input, with file/line/column.
- `source_location(module, inst)`: `file:line:col` of an instruction from its debug info;
  `inlined_at(module, inst)`: the calls it was inlined through.
"""

from enzc.ir.instructions import *  # noqa: F401,F403
from enzc.ir.metadata import Metadata, MDRaw, MDRef, MDSpecialized, MDString, MDTuple, MDValue, SourceLocation  # noqa: F401
from enzc.ir.module import Alias, BasicBlock, Comdat, Function, GlobalVariable, Linkage, Module  # noqa: F401
from enzc.ir.types import *  # noqa: F401,F403
from enzc.ir.values import *  # noqa: F401,F403
from enzc.ir.builder import IRBuilder, fresh_local_name, get_or_insert_function, new_block  # noqa: F401
from enzc.ir.cfg import edges, exit_blocks, is_critical_edge, post_order, reachable_blocks, reverse_post_order  # noqa: F401
from enzc.ir.datalayout import X86_64_DATALAYOUT, DataLayout, DataLayoutError, StructLayout  # noqa: F401
from enzc.ir.dominators import DominatorTree, PostDominatorTree  # noqa: F401
from enzc.ir.loops import InductionVariable, Loop, LoopInfo, TripCount  # noqa: F401
from enzc.ir.transforms import clone_function, clone_instruction, clone_into, remove_unreachable_blocks, split_block, split_edge  # noqa: F401
from enzc.ir.verifier import VerificationError, check_function, verify_function, verify_module  # noqa: F401
from enzc.ir.bitcode import parse_bitcode, parse_file  # noqa: F401,E402
from enzc.ir.debuginfo import function_location, inlined_at, source_location  # noqa: F401,E402
from enzc.ir.errors import IRParseError  # noqa: F401,E402
from enzc.ir.parser import parse_module  # noqa: F401,E402
from enzc.ir.printer import print_block, print_function, print_instruction, print_module  # noqa: F401,E402
from enzc.ir.builder import forget_names  # noqa: F401,E402
from enzc.ir.cfg import returning_blocks, unreachable_blocks  # noqa: F401,E402
from enzc.ir.datalayout import for_module as datalayout_for_module  # noqa: F401,E402
from enzc.ir.transforms import clone_subprogram, remap_value  # noqa: F401,E402
from enzc.ir.describe import describe as describe_instruction  # noqa: F401,E402
