"""Basic blocks, functions, globals and the module.

Function bodies are lazy: the parser records each body's text and a callback; the
body is parsed on first access of `Function.blocks`. A function whose body was
never touched prints back as the exact text it was parsed from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator

from enzc.ir.instructions import Instruction, Phi
from enzc.ir.metadata import Metadata
from enzc.ir.names import unique_name
from enzc.ir.types import LABEL, PTR, FunctionType, NamedStructType, Type
from enzc.ir.values import Argument, Constant, GlobalValue, LocalValue


class BasicBlock(LocalValue):
    """A label-typed value holding a list of instructions ending in a terminator."""

    def __init__(self, name: str | None = None, parent: Function | None = None) -> None:
        super().__init__(LABEL, name)
        self.parent = parent
        self.instructions: list[Instruction] = []
        self.trailing_debug_records: list = []
        """Debug records after the terminator (rare; kept for faithful printing)."""

    def __iter__(self) -> Iterator[Instruction]:
        return iter(self.instructions)

    def __str__(self) -> str:
        from enzc.ir.printer import print_block

        return print_block(self)

    def index_of(self, inst: Instruction) -> int:
        for i, x in enumerate(self.instructions):
            if x is inst:
                return i
        raise ValueError("instruction not in block")

    def pass_records_on(self, inst: Instruction) -> None:
        """Give `inst`'s debug records to the instruction after it, as LLVM does when
        `inst` is erased: they say where variables change from there on (dropped, a
        debugger would show a variable's previous value). At the block's end they go."""
        k = self.index_of(inst) + 1
        if k < len(self.instructions):
            self.instructions[k].debug_records[:0], inst.debug_records = inst.debug_records, []

    def append(self, inst: Instruction) -> Instruction:
        assert inst.parent is None
        self.instructions.append(inst)
        inst.parent = self
        return inst

    @property
    def terminator(self) -> Instruction | None:
        if self.instructions and self.instructions[-1].is_terminator:
            return self.instructions[-1]
        return None

    @property
    def successors(self) -> list[BasicBlock]:
        t = self.terminator
        return t.successors if t is not None else []

    @property
    def predecessors(self) -> list[BasicBlock]:
        """Distinct predecessor blocks, from the terminators that use this block."""
        preds: dict[BasicBlock, None] = {}
        for use in self.uses:
            user = use.user
            if isinstance(user, Instruction) and user.is_terminator and user.parent is not None:
                preds[user.parent] = None
        return list(preds)

    @property
    def phis(self) -> list[Phi]:
        out = []
        for inst in self.instructions:
            if not isinstance(inst, Phi):
                break
            out.append(inst)
        return out

    @property
    def first_non_phi(self) -> Instruction | None:
        for inst in self.instructions:
            if not isinstance(inst, Phi):
                return inst
        return None


@dataclass
class Linkage:
    """The words before a global's type/`define`: linkage, visibility, and friends.

    Kept as the list of keywords in source order (`internal`, `dso_local`,
    `hidden`, `unnamed_addr`, `thread_local(initialexec)`, ...), which prints back
    exactly; helpers answer the questions transforms ask.
    """

    words: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return " ".join(self.words)

    @property
    def linkage(self) -> str:
        for w in self.words:
            if w in _LINKAGES:
                return w
        return "external"

    @property
    def is_local(self) -> bool:
        return self.linkage in ("internal", "private")


_LINKAGES = {
    "private", "internal", "available_externally", "linkonce", "weak", "common", "appending",
    "extern_weak", "linkonce_odr", "weak_odr", "external",
}


class Function(GlobalValue):
    """A function definition or declaration. Its value type is `ptr`."""

    def __init__(self, name: str, function_type: FunctionType, arg_names: list[str | None] | None = None) -> None:
        super().__init__(PTR, name)
        self.function_type = function_type
        self.linkage = Linkage()
        self.cconv: str | None = None
        self.ret_attrs: tuple[str, ...] = ()
        self.fn_attrs: tuple[str, ...] = ()
        """Function attributes, incl. attribute group refs like `#0`."""
        self.header_suffix: list[str] = []
        """Words after the attributes: `section "x"`, `comdat`, `align 16`, `gc "..."`,
        `prefix ...`, `prologue ...`, `personality ptr @p`, as text."""
        self.addrspace: int | None = None
        self.unnamed_addr: str | None = None
        self.metadata: dict[str, Metadata] = {}
        self.repeated_metadata: list[tuple[str, Metadata]] = []
        """Further attachments of a kind already in `metadata` (LLVM allows several
        `!type` on a function), printed after those."""
        names = arg_names or [None] * len(function_type.params)
        self.args = [Argument(t, n, i) for i, (t, n) in enumerate(zip(function_type.params, names))]
        for a in self.args:
            a.parent = self
        self.is_declaration = True
        self.implicit = False
        """An intrinsic the input called without declaring it: printed without a
        declaration too, since LLVM renames such a callee by its types in place
        (keeping `tail`), which it does not do for a declared one (ll:6505862)."""
        self._blocks: list[BasicBlock] | None = []
        self._materialize: Callable[[Function], list[BasicBlock]] | None = None
        self.source_text: str | None = None
        """The definition's text as parsed, printed verbatim while the body is untouched."""
        self.source_header_key: tuple | None = None
        """`header_key()` when parsed; if the header changes before the body is
        materialized, the printer materializes it and prints from objects."""

    def __str__(self) -> str:
        from enzc.ir.printer import print_function

        return print_function(self)

    # -- lazy body ----------------------------------------------------------------------
    def set_lazy_body(self, source_text: str, materialize: Callable[[Function], list[BasicBlock]]) -> None:
        """Record the body's text; `materialize(self)` parses it on first access."""
        self.is_declaration = False
        self._blocks = None
        self.source_text = source_text
        self._materialize = materialize

    @property
    def is_materialized(self) -> bool:
        return self._blocks is not None

    @property
    def blocks(self) -> list[BasicBlock]:
        if self._blocks is None:
            assert self._materialize is not None
            blocks = self._materialize(self)
            self._blocks = blocks
            self._materialize = None
        return self._blocks

    @blocks.setter
    def blocks(self, blocks: list[BasicBlock]) -> None:
        self._blocks = blocks
        self._materialize = None
        self.is_declaration = False
        for b in blocks:
            b.parent = self

    def header_key(self) -> tuple:
        """Everything the definition's first line is printed from (see `source_header_key`)."""
        return (
            self.name, self.function_type, tuple(self.linkage.words), self.cconv, self.ret_attrs,
            self.fn_attrs, tuple(self.header_suffix), self.addrspace, self.unnamed_addr,
            tuple((k, str(v)) for k, v in [*self.metadata.items(), *self.repeated_metadata]),
            tuple((a.name, a.attrs) for a in self.args),
        )

    @property
    def entry(self) -> BasicBlock:
        return self.blocks[0]

    def instructions(self) -> Iterator[Instruction]:
        for b in self.blocks:
            yield from b.instructions

    def append_block(self, name: str | None = None) -> BasicBlock:
        block = BasicBlock(name, self)
        self.blocks.append(block)
        return block

    @property
    def return_type(self) -> Type:
        return self.function_type.ret

    def local_names(self) -> set[str]:
        """Names already used by args, blocks and instructions (for `unique_name`)."""
        taken = {a.name for a in self.args if a.name is not None}
        for b in self.blocks:
            if b.name is not None:
                taken.add(b.name)
            for i in b.instructions:
                if i.name is not None:
                    taken.add(i.name)
        return taken

    def has_attr(self, attr: str, module: Module | None = None) -> bool:
        """Whether `attr` (a bare keyword, or prefix like `memory(`) is among the
        function attributes, looking through attribute groups when `module` is given."""
        return any(a == attr or a.startswith(attr) for a in _expand_attrs(self.fn_attrs, module))


def _expand_attrs(attrs: tuple[str, ...], module: Module | None) -> Iterator[str]:
    for a in attrs:
        if a.startswith("#") and module is not None and a[1:] in module.attribute_groups:
            yield from module.attribute_groups[a[1:]]
        else:
            yield a


class GlobalVariable(GlobalValue):
    """`@g = [linkage...] global|constant T [init] [, section ...]`; value type `ptr`."""

    def __init__(self, name: str, value_type: Type, initializer: Constant | None = None, constant: bool = False) -> None:
        super().__init__(PTR, name)
        self.value_type = value_type
        self.initializer = initializer
        self.is_constant = constant
        self.linkage = Linkage()
        self.addrspace: int | None = None
        self.suffix: list[str] = []
        """Trailing `, section "x"`, `, comdat`, `, align 8`, ... as text items."""
        self.metadata: dict[str, Metadata] = {}
        self.repeated_metadata: list[tuple[str, Metadata]] = []
        """Further attachments of a kind already in `metadata` (a global variable may
        have several `!dbg` and `!type`), printed after those."""
        self.attrs: tuple[str, ...] = ()

    @property
    def is_declaration(self) -> bool:
        return self.initializer is None


class Alias(GlobalValue):
    """`@a = [linkage] alias T, ptr @aliasee` (also `ifunc` when `kind == "ifunc"`)."""

    def __init__(self, name: str, value_type: Type, target: Constant, kind: str = "alias") -> None:
        super().__init__(PTR, name)
        self.value_type = value_type
        self.target = target
        self.kind = kind
        self.linkage = Linkage()
        self.suffix: list[str] = []


@dataclass
class Comdat:
    name: str
    selection: str
    """any, exactmatch, largest, nodeduplicate, samesize."""


@dataclass
class Module:
    """A whole LLVM module. Dicts keep source order, which the printer preserves."""

    source_filename: str | None = None
    datalayout: str | None = None
    triple: str | None = None
    module_asm: list[str] = field(default_factory=list)
    """Lines of `module asm "..."`, unescaped."""
    types: dict[str, NamedStructType] = field(default_factory=dict)
    comdats: dict[str, Comdat] = field(default_factory=dict)
    globals: dict[str, GlobalVariable] = field(default_factory=dict)
    aliases: dict[str, Alias] = field(default_factory=dict)
    """Aliases and ifuncs."""
    functions: dict[str, Function] = field(default_factory=dict)
    attribute_groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """`#0 = { ... }` keyed by the id without `#`."""
    named_metadata: dict[str, list[str]] = field(default_factory=dict)
    """`!llvm.module.flags = !{!0, !1}`: name → node ids."""
    metadata: dict[str, Metadata] = field(default_factory=dict)
    """Numbered nodes by id (`"12"` for `!12`)."""
    extra_lines: list[str] = field(default_factory=list)
    """Top-level entities kept as text (e.g. `uselistorder` directives)."""

    def __str__(self) -> str:
        from enzc.ir.printer import print_module

        return print_module(self)

    # -- lookup -------------------------------------------------------------------------
    def get_function(self, name: str) -> Function | None:
        return self.functions.get(name)

    def get_global(self, name: str) -> GlobalValue | None:
        return self.globals.get(name) or self.functions.get(name) or self.aliases.get(name)

    def global_names(self) -> set[str]:
        return set(self.globals) | set(self.functions) | set(self.aliases)

    # -- creation -----------------------------------------------------------------------
    def add_function(self, name: str, function_type: FunctionType, *, unique: bool = True) -> Function:
        """A new function (a declaration until blocks are added); renamed `name.N` if taken."""
        if unique:
            name = unique_name(name, self.global_names())
        elif name in self.functions:
            raise ValueError(f"function @{name} already exists")
        fn = Function(name, function_type)
        self.functions[name] = fn
        return fn

    def add_global(self, name: str, value_type: Type, initializer: Constant | None = None, *, constant: bool = False) -> GlobalVariable:
        name = unique_name(name, self.global_names())
        gv = GlobalVariable(name, value_type, initializer, constant)
        self.globals[name] = gv
        return gv

    def add_metadata(self, node: Metadata) -> str:
        """Store a new numbered node; returns its id (one above the largest number)."""
        numeric = [int(k) for k in self.metadata if k.isdigit()]
        new_id = str(max(numeric, default=-1) + 1)
        self.metadata[new_id] = node
        return new_id

    def named_type(self, name: str) -> NamedStructType:
        """The identified struct `%name`, created opaque if missing."""
        t = self.types.get(name)
        if t is None:
            t = self.types[name] = NamedStructType(name)
        return t

