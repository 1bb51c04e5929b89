"""Copies of a callee for dense views (`__enzyme_todense`): the view's arguments as
extra parameters, and no attribute that the view's calls would make false.

A callee that receives a dense-view pointer must turn its loads and stores through
it into calls of the view's functions, which read and write memory the callee's
attributes know nothing of, with arguments that live in the caller. So the copy
takes those arguments as parameters appended after its own, is internal, and drops
what LLVM inferred from the original body: `memory(...)`, `nosync`, `willreturn`
and friends on the function, `nonnull`/`dereferenceable`/`noalias`/... on the
pointer parameters that now carry byte offsets.
"""

from __future__ import annotations

from collections.abc import Iterable

from enzc.ir.module import Function, Linkage, Module
from enzc.ir.transforms import clone_into, clone_subprogram
from enzc.ir.types import FunctionType, Type

VOIDED_FUNCTION_ATTRS = ("memory(", "readnone", "readonly", "writeonly", "argmemonly", "inaccessiblememonly",
                         "inaccessiblemem_or_argmemonly", "nosync", "nofree", "willreturn", "speculatable",
                         "nocallback", "norecurse", "mustprogress")
"""Function attributes a body calling the view's load and store functions may break."""

KEPT_OFFSET_ATTRS = ("noundef",)
"""The only parameter attributes an offset-carrying pointer keeps."""


def expanded_attributes(module: Module, attrs: Iterable[str]) -> list[str]:
    """`attrs` with attribute groups (`#3`) replaced by their members."""
    out: list[str] = []
    for a in attrs:
        if a.startswith("#") and a[1:] in module.attribute_groups:
            out.extend(module.attribute_groups[a[1:]])
        else:
            out.append(a)
    return out


def without_memory_facts(module: Module, attrs: Iterable[str]) -> tuple[str, ...]:
    """Function or call-site attributes minus those in `VOIDED_FUNCTION_ATTRS`."""
    return tuple(a for a in expanded_attributes(module, attrs)
                 if not any(a == v or (v.endswith("(") and a.startswith(v)) for v in VOIDED_FUNCTION_ATTRS))


def offset_attributes(attrs: Iterable[str]) -> tuple[str, ...]:
    """The attributes a pointer argument keeps once it carries a view's byte offset."""
    return tuple(a for a in attrs if a in KEPT_OFFSET_ATTRS)


def clone_with_view_params(module: Module, fn: Function, positions: tuple[int, ...],
                           extra: tuple[Type, ...]) -> Function:
    """An internal copy of `fn` taking `extra` parameters after its own; the pointer
    parameters at `positions` keep only `KEPT_OFFSET_ATTRS`."""
    params = fn.function_type.params
    new = module.add_function(f"{fn.name}.dense", FunctionType(fn.function_type.ret, (*params, *extra), False))
    for old_arg, new_arg in zip(fn.args, new.args):
        new_arg.name, new_arg.attrs = old_arg.name, old_arg.attrs
    for i in positions:
        new.args[i].attrs = offset_attributes(new.args[i].attrs)
    for k, arg in enumerate(new.args[len(params):]):
        arg.name = f"view.arg{k}"
    new.linkage = Linkage(["internal"])
    new.cconv, new.ret_attrs = fn.cconv, fn.ret_attrs
    new.fn_attrs = without_memory_facts(module, fn.fn_attrs)
    new.header_suffix = [w for w in fn.header_suffix if not w.startswith("comdat")]
    new.addrspace = fn.addrspace
    new.metadata = dict(fn.metadata)
    new.blocks = []
    clone_into(fn, new, dict(zip(fn.args, new.args)))
    clone_subprogram(module, new)
    return new
