"""Grammar callbacks that build enzc's IR objects while the LALR parser reduces.

One `Builder` serves both start symbols of llvm.lark: `module` (type definitions,
comdats, globals, aliases, function headers; parser_entities.py) and `body` (one
function body; parser_instructions.py). State, terminals, types and values are in
parser_values.py. Callback names are the grammar's rule, alias and terminal names.
"""

from __future__ import annotations

from enzc.ir.parser_entities import EntityCallbacks
from enzc.ir.parser_instructions import InstructionCallbacks
from enzc.ir.names import unquote_name
from enzc.ir.parser_values import BuildError, fp_value, is_cconv

__all__ = ["Builder", "BuildError", "fp_value", "is_cconv", "unquote_name"]


class Builder(EntityCallbacks, InstructionCallbacks):
    """Callbacks for llvm.lark. Set up with `begin_module` or `begin_body` before parsing."""
