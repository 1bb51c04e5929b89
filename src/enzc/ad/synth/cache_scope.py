"""Scoped-alias metadata that tells LLVM a derivative's caches are private memory.

A cache array (`cache.py`) is memory the derivative allocates for itself: a
`malloc`'d or arena block, an entry `alloca`, or a growing array; its base
pointer lives only in the derivative (and in its tape) and is never passed to
the program's code. So no load or store other than the cache's own slot
accesses can touch it. Saying so with `!alias.scope`/`!noalias` lets LLVM's
vectorizer drop the run-time overlap checks between cache arrays and the
shadows or inputs a reverse loop writes and reads (LLVM hoists such checks out
of the descending outer loops of a reverse pass, where they always fail and
leave the scalar loop; benchmarks/hoisted_checks.c).

Each derivative gets its own domain with one scope. Every cache slot load and
store is in that scope (`tag_slot`); `finish` adds the scope to the `!noalias`
list of every other load and store of the derivative's functions. Calls,
`memcpy`/`memset` and atomics read-modify-writes get nothing, so LLVM keeps
treating them as touching anything. The claim holds for any two executions:
the program never holds a pointer into a cache, whichever iteration wrote it.
"""

from __future__ import annotations

from enzc.ir.instructions import Load, Store
from enzc.ir.metadata import Metadata, MDRef, MDString, MDTuple
from enzc.ir.module import Function, Module


class CacheScope:
    """The cache scope of one derivative, created on its first tagged slot."""

    def __init__(self, module: Module, name: str) -> None:
        self.module = module
        self.name = name
        self._list: MDRef | None = None
        self._merged: dict[str, MDRef] = {}
        """Existing `!noalias` list id -> that list with the cache scope added."""

    def _scope_list(self) -> MDRef:
        if self._list is None:
            domain = MDTuple([], distinct=True)
            domain_id = self.module.add_metadata(domain)
            domain.operands = [MDRef(domain_id), MDString(f"enzc caches of {self.name}".encode())]
            scope = MDTuple([], distinct=True)
            scope_id = self.module.add_metadata(scope)
            scope.operands = [MDRef(scope_id), MDRef(domain_id), MDString(b"cache arrays")]
            self._list = MDRef(self.module.add_metadata(MDTuple([MDRef(scope_id)])))
        return self._list

    @property
    def used(self) -> bool:
        return self._list is not None

    def tag_slot(self, access: Load | Store) -> None:
        """Put a load or store of a cache slot in the cache scope."""
        access.metadata["alias.scope"] = self._scope_list()

    def is_slot(self, access: Load | Store) -> bool:
        return self._list is not None and access.metadata.get("alias.scope") is self._list

    def finish(self, functions: list[Function]) -> None:
        """Mark every load and store of `functions` that is not a cache slot access
        as not aliasing the caches (nothing to do if no slot was tagged)."""
        if self._list is None:
            return
        for fn in functions:
            for inst in fn.instructions():
                if isinstance(inst, (Load, Store)) and not self.is_slot(inst):
                    inst.metadata["noalias"] = self._with_scope(inst.metadata.get("noalias"))

    def _with_scope(self, existing: Metadata | None) -> MDRef:
        """`existing` (a `!noalias` list or None) with the cache scope added."""
        own = self._scope_list()
        if existing is None or existing is own or existing in self._merged.values():
            return existing or own  # type: ignore[return-value]
        if not isinstance(existing, MDRef):
            return existing  # type: ignore[return-value]  # an inline list: left as it is
        merged = self._merged.get(existing.id)
        if merged is None:
            node = self.module.metadata.get(existing.id)
            if not isinstance(node, MDTuple):
                return existing
            scope = self.module.metadata[own.id].operands[0]  # type: ignore[attr-defined]
            merged = MDRef(self.module.add_metadata(MDTuple([*node.operands, scope])))
            self._merged[existing.id] = merged
        return merged
