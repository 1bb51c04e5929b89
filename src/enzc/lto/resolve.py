"""Archive member selection, the way `ld` does it.

ld walks its inputs in order keeping a set of undefined symbols. An object is always
loaded; an archive is scanned repeatedly, each pass loading every member that defines
a symbol undefined at that moment, until a pass loads nothing. Later inputs never
cause an earlier archive to be rescanned, except inside `--start-group/--end-group`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from enzc.lto.archive import Archive, Member
from enzc.lto.elfobj import Symbols


@dataclass
class SymbolState:
    """The defined/undefined sets while walking the link line."""

    defined: set[str] = field(default_factory=set)
    undefined: set[str] = field(default_factory=set)

    def load(self, symbols: Symbols) -> None:
        """Account for one loaded object or member."""
        self.defined.update(symbols.defined)
        self.undefined.difference_update(symbols.defined)
        self.undefined.update(s for s in symbols.undefined if s not in self.defined)

    def require(self, names: Iterable[str]) -> None:
        """Symbols forced undefined from the start (`-u sym`, the entry point)."""
        self.undefined.update(n for n in names if n not in self.defined)


@dataclass
class ArchiveView:
    """An archive with the symbol index used for selection, and what was taken from it."""

    archive: Archive
    index: dict[str, Member]
    """Symbol -> defining member, in index order (first definition wins)."""
    symbols_of: Callable[[Member], Symbols]
    """What a member contributes once loaded."""
    pulled: list[Member] = field(default_factory=list)

    def scan(self, state: SymbolState) -> list[Member]:
        """Pull members for undefined symbols until a pass pulls nothing; return them.

        Each index entry is checked against the undefined set *at that moment*, so a
        member that defines two wanted symbols keeps a second member from being loaded
        for the other one, as in ld.
        """
        new: list[Member] = []
        taken = {member.offset for member in self.pulled}
        pulled_this_pass = True
        while pulled_this_pass:
            pulled_this_pass = False
            for name, member in self.index.items():
                if member.offset in taken or name not in state.undefined:
                    continue
                taken.add(member.offset)
                self._load(member, state, new)
                pulled_this_pass = True
        return new

    def pull_all(self, state: SymbolState) -> list[Member]:
        """`--whole-archive`: every member not yet loaded, in archive order."""
        new: list[Member] = []
        taken = {member.offset for member in self.pulled}
        for member in self.archive.members:
            if member.offset not in taken:
                self._load(member, state, new)
        return new

    def _load(self, member: Member, state: SymbolState, new: list[Member]) -> None:
        self.pulled.append(member)
        new.append(member)
        state.load(self.symbols_of(member))
