"""Scoped-alias metadata on a derivative's loads and stores: what LLVM cannot prove
about memory enzcc made, said with `!alias.scope`/`!noalias`.

Why: a reverse loop writes shadows and reads caches and inputs; LLVM's
vectorizer must check at run time that those arrays do not overlap, and it
hoists the checks out of the enclosing (descending) reverse loops, where they
always fail and leave the scalar loop (benchmarks/hoisted_checks.c). With the
facts below the checks go away.

Each derivative gets one domain and these scopes, each given to a load or store
whose address is traced (`memory_facts.underlying_objects`) to exactly one object:

- `cache`: the slots of its cache arrays (`tag_slot`, from `cache.py`). A cache
  is memory the derivative allocates for itself (a `malloc`'d or arena block, an
  entry `alloca`, a growing array); its base pointer is never handed to the
  program's code, so no other access can touch it. Every other load and store
  says `!noalias` cache.
- `primal K` / `shadow K`: through pointer argument K / through its shadow
  argument. A shadow never overlaps program memory (the contract of
  `enzyme_dup`: the reverse pass already reloads inputs after writing shadows,
  which is only right because of it); two primal arguments the call sites pass
  into distinct objects (`Signature.distinct`) do not overlap; two shadow
  arguments do not overlap when enzcc made that so (`Signature.distinct_shadows`,
  `analysis/distinct_shadows.py`).

Calls, `memcpy`/`memset` and atomic read-modify-writes get nothing, so LLVM
keeps treating them as touching anything; lists the program already had (from
inlined `restrict` functions) keep their scopes. The facts hold between any two
executions, whatever iteration, so they stay true when LLVM moves code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from enzc.ir.instructions import Load, Store
from enzc.ir.metadata import Metadata, MDRef, MDString, MDTuple
from enzc.ir.module import Function, Module
from enzc.ir.types import PointerType
from enzc.ir.values import Argument, Value

from enzc.ad.analysis.memory_facts import DistinctArgs, underlying_objects

if TYPE_CHECKING:
    from enzc.ad.synth.gradient_utils import GradientUtils
    from enzc.ad.synth.signature import Signature

CACHE = ("cache", -1)


@dataclass
class ArgumentFacts:
    """The derivative's pointer arguments and which of them cannot overlap."""

    primal: dict[Value, int]
    """Primal pointer argument of the derivative -> argument index K of the original."""
    shadow: dict[Value, int]
    """Shadow argument -> index K of the argument it shadows."""
    distinct: DistinctArgs
    distinct_shadows: DistinctArgs

    def region(self, ptr: Value) -> tuple[str, int] | None:
        """`("primal", K)` or `("shadow", K)` when `ptr` points only into that argument."""
        objects = underlying_objects(ptr)
        if len(objects) != 1 or not isinstance(objects[0], Argument):
            return None
        obj = objects[0]
        if obj in self.shadow:
            return ("shadow", self.shadow[obj])
        if obj in self.primal:
            return ("primal", self.primal[obj])
        return None

    def disjoint(self, a: tuple[str, int], b: tuple[str, int]) -> bool:
        """Whether accesses in regions `a` and `b` never overlap."""
        if a[0] != b[0]:
            return True  # a shadow and program memory
        pair = (min(a[1], b[1]), max(a[1], b[1]))
        return a[1] != b[1] and pair in (self.distinct if a[0] == "primal" else self.distinct_shadows)


def argument_facts(gu: GradientUtils, sig: Signature) -> ArgumentFacts:
    """The pointer arguments of derivative `gu.new` and its signature's facts about them."""
    primal: dict[Value, int] = {}
    shadow: dict[Value, int] = {}
    for k, arg in enumerate(gu.original.args):
        if not isinstance(arg.type, PointerType):
            continue
        new = gu.new_value(arg)
        if isinstance(new, Argument):
            primal[new] = k
        sh = gu.shadows.get(arg)
        if isinstance(sh, Argument):
            shadow[sh] = k
    if sig.runtime_activity:
        shadow = {}  # a shadow argument may be its primal at run time: no claims about it
    return ArgumentFacts(primal, shadow, sig.distinct, sig.distinct_shadows)


class DerivativeScopes:
    """The alias scopes of one derivative; metadata is made only once it is used."""

    def __init__(self, module: Module, name: str) -> None:
        self.module = module
        self.name = name
        self._domain: str | None = None
        self._scopes: dict[tuple[str, int], str] = {}
        self._lists: dict[tuple[str | None, tuple[str, ...]], MDRef] = {}
        self._slots: set[int] = set()

    # -- metadata nodes ----------------------------------------------------------------
    def _scope(self, key: tuple[str, int]) -> str:
        got = self._scopes.get(key)
        if got is None:
            if self._domain is None:
                domain = MDTuple([], distinct=True)
                self._domain = self.module.add_metadata(domain)
                domain.operands = [MDRef(self._domain), MDString(f"enzc memory of {self.name}".encode())]
            scope = MDTuple([], distinct=True)
            got = self._scopes[key] = self.module.add_metadata(scope)
            what = "cache arrays" if key == CACHE else f"{key[0]} argument {key[1]}"
            scope.operands = [MDRef(got), MDRef(self._domain), MDString(what.encode())]
        return got

    def _with(self, existing: Metadata | None, keys: list[tuple[str, int]]) -> Metadata | None:
        """The scope list `existing` (or none) with the scopes of `keys` added."""
        if not keys:
            return existing
        if existing is not None and not isinstance(existing, MDRef):
            return existing  # an inline list: left as it is (it claims less, never more)
        old = self.module.metadata.get(existing.id) if existing is not None else None
        if existing is not None and not isinstance(old, MDTuple):
            return existing
        ids = [op.id for op in old.operands if isinstance(op, MDRef)] if old is not None else []  # type: ignore[union-attr]
        added = tuple(s for s in (self._scope(k) for k in keys) if s not in ids)
        if not added:
            return existing
        memo = (existing.id if existing is not None else None, added)
        got = self._lists.get(memo)
        if got is None:
            ops = [*(old.operands if old is not None else []), *map(MDRef, added)]
            got = self._lists[memo] = MDRef(self.module.add_metadata(MDTuple(ops)))
        return got

    # -- tagging -----------------------------------------------------------------------
    def tag_slot(self, access: Load | Store) -> None:
        """Put a load or store of a cache slot in the cache scope."""
        access.metadata["alias.scope"] = self._with(None, [CACHE])  # type: ignore[assignment]
        self._slots.add(id(access))

    def finish(self, functions: list[Function], args: ArgumentFacts) -> None:
        """Scope every other load and store of `functions` (see the module docstring)."""
        accesses = [(i, args.region(i.ptr)) for fn in functions for i in fn.instructions()
                    if isinstance(i, (Load, Store)) and id(i) not in self._slots]
        used = {r for _, r in accesses if r is not None}
        for inst, region in accesses:
            excluded = [CACHE] if self._slots else []
            others = sorted(r for r in used if args.disjoint(region, r)) if region is not None else []
            if others:  # someone names this region in its `!noalias`
                inst.metadata["alias.scope"] = self._with(inst.metadata.get("alias.scope"), [region])  # type: ignore[assignment,list-item]
                excluded += others
            merged = self._with(inst.metadata.get("noalias"), excluded)
            if merged is not None:
                inst.metadata["noalias"] = merged
