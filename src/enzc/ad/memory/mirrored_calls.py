"""Library calls that only relink pointers, repeated on the shadows in the forward pass.

`std::map` keeps its nodes in a red-black tree whose balancing lives in libstdc++.so,
outside the module: `_Rb_tree_insert_and_rebalance(left, node, parent, header)`
links a new node under `parent` and recolours and rotates the tree through the
nodes' pointer fields; `_Rb_tree_increment(node)`/`_Rb_tree_decrement(node)` walk
to the next or previous node. None of them reads or writes a floating-point value
(a node's key and value lie beyond the 32-byte `_Rb_tree_node_base` they see), so
they carry no derivative; but the shadow of a map is a tree of its own (the
caller's `enzyme_dup` map, built with the same keys, and shadow nodes allocated
next to the primal ones), which must keep the primal's shape. So, as Enzyme does,
the forward pass calls `_Rb_tree_insert_and_rebalance` again with the shadow node,
the shadow parent and the shadow header, and the shadow of a walked-to node is
the same walk from the shadow node. The reverse pass has nothing to do.
`std::list`'s `_List_node_base::_M_hook`/`_M_unhook`/`_M_transfer`/`_M_reverse`/`swap`
relink its nodes' `{next, prev}` the same way and are repeated alike.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase, Instruction
from enzc.ir.types import PointerType, VoidType
from enzc.ir.values import Value

from enzc.ad.analysis.calls import is_mirrored_call
from enzc.ad.analysis.gradient_state import GradientState


def mirror_call(gu: GradientState, call: CallBase) -> None:
    """After the forward clone of `call` (a relinking call without a result), call it
    again on the shadows of its pointer arguments; nothing if none has a shadow."""
    if not is_mirrored_call(call) or not isinstance(call.type, VoidType):
        return  # a walk: its result's shadow is made where it is needed (`mirrored_shadow`)
    if not any(gu.activity.has_shadow(a) for a in call.args if isinstance(a.type, PointerType)):
        return
    b = IRBuilder()
    b.position_after(gu.new_value(call))  # type: ignore[arg-type]
    b.call(call.called_function, _shadow_arguments(gu, call))  # type: ignore[arg-type]


def mirrored_shadow(gu: GradientState, call: CallBase, new: Instruction, name: str) -> Value:
    """The shadow of the pointer a walking call returns: the same walk from the shadows."""
    b = IRBuilder()
    args = _shadow_arguments(gu, call)
    b.position_after(new)
    return b.call(call.called_function, args, name)  # type: ignore[arg-type]


def _shadow_arguments(gu: GradientState, call: CallBase) -> list[Value]:
    return [gu.shadow(a) if isinstance(a.type, PointerType) else gu.new_value(a) for a in call.args]


__all__ = ["is_mirrored_call", "mirror_call", "mirrored_shadow"]
