"""The enzcc command line: cc-compatible parsing into an `Invocation`.

enzcc only needs to understand what changes its own pipeline: the phase (-E -S -c,
link), outputs, optimization level, inputs and link items with their order, the
dependency-file flags, and its own `--enzc-*` options. Every other flag is kept in
order and given to clang-22 unchanged (`flags`); the table of options that take a
separate value only makes sure such a value is never mistaken for an input.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import IntEnum

from enzc.ad import ADOptions
from enzc.errors import EnzcError
from enzc.frontend.responsefile import expand_response_files
from enzc.lto.collect import Library, LinkerFlags

# Options whose value may be the next argument; the joined spelling (-Ifoo) also works.
_SEPARATE = frozenset("""
-o -x -I -D -U -L -l -F -B -T -u -e -z -G
-isystem -iquote -idirafter -include -imacros -iprefix -iwithprefix -iwithprefixbefore
-isysroot -cxx-isystem -iframework -imultilib -isystem-after -include-pch -ivfsoverlay
-MF -MT -MQ -MJ -Xlinker -Xclang -Xassembler -Xpreprocessor -Xanalyzer -mllvm
-Xopenmp-target -Xcuda-fatbinary -Xcuda-ptxas -target -arch -framework -resource-dir
-serialize-diagnostics -dependency-file -dependency-dot --param -working-directory
-dumpdir -dumpbase --sysroot --config -gcc-toolchain -main-file-name -aux-target
""".split())
# Of those, the ones also accepted joined to their value (`-DX=1`, `-lm`, `-ofile`).
_JOINABLE = ("-o", "-x", "-I", "-D", "-U", "-L", "-l", "-F", "-B", "-MF", "-MT", "-MQ")

# Invocations clang answers without compiling anything enzc-specific.
_DELEGATED_FLAGS = frozenset({"-fsyntax-only", "-###", "--analyze", "-emit-ast", "--help",
                              "-help", "--help-hidden", "-fdriver-only"})

C_SUFFIXES = frozenset({".c", ".i"})
CXX_SUFFIXES = frozenset({".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", ".CC", ".ii"})
IR_SUFFIXES = frozenset({".ll", ".bc"})
# Sources clang compiles that enzc leaves native (assembly, headers, other languages).
NATIVE_SOURCE_SUFFIXES = frozenset({".s", ".S", ".sx", ".asm", ".m", ".mm", ".M", ".cu",
                                    ".h", ".hh", ".hpp", ".hxx", ".H", ".h++", ".hp",
                                    ".f", ".F", ".for", ".f90", ".F90", ".f95", ".cl"})
_NOT_PREPROCESSED_SUFFIXES = frozenset({".s", ".i", ".ii"})
_NOT_PREPROCESSED_LANGS = frozenset({"assembler", "cpp-output", "c++-cpp-output", "ir"})
_LANGS = {"c": "c", "cpp-output": "c", "c++": "c++", "c++-cpp-output": "c++", "ir": "ir"}


class Phase(IntEnum):
    """How far compilation goes; clang stops at the earliest one requested."""

    PREPROCESS = 1
    ASSEMBLY = 2
    OBJECT = 3
    LINK = 4


class InputKind(IntEnum):
    """What enzcc does with an input file."""

    C = 1
    CXX = 2
    IR = 3
    NATIVE_SOURCE = 4
    """Compiled by clang without enzc (assembly, headers, other languages)."""
    LINKER = 5
    """Objects, archives, shared libraries: for the link step."""


@dataclass(frozen=True)
class Input:
    """An input file with the `-x` language in effect where it was named."""

    path: str
    lang: str | None
    """The `-x` value in effect (None: by suffix); passed on to clang as given."""
    copy: str | None = None
    """Where enzcc reads it: a copy in the temporary directory when the input could be
    read only once (stdin, a pipe, a device; see `spool`), else None: `path` itself."""

    @property
    def readable(self) -> str:
        """The file to read the input's contents from (any number of times)."""
        return self.copy if self.copy is not None else self.path

    @property
    def kind(self) -> InputKind:
        """C/C++ source, IR, native source or linker input (by `-x`, then suffix)."""
        if self.lang is not None:
            return {"c": InputKind.C, "c++": InputKind.CXX, "ir": InputKind.IR}.get(
                _LANGS.get(self.lang, ""), InputKind.NATIVE_SOURCE)
        suffix = os.path.splitext(self.path)[1]
        if suffix in C_SUFFIXES:
            return InputKind.C
        if suffix in CXX_SUFFIXES:
            return InputKind.CXX
        if suffix in IR_SUFFIXES:
            return InputKind.IR
        if suffix in NATIVE_SOURCE_SUFFIXES:
            return InputKind.NATIVE_SOURCE
        return InputKind.LINKER

    @property
    def preprocessed(self) -> bool:
        """True if clang runs the preprocessor on it (so include paths matter)."""
        if self.kind in (InputKind.IR, InputKind.LINKER):
            return False
        if self.lang is not None:
            return self.lang not in _NOT_PREPROCESSED_LANGS
        return os.path.splitext(self.path)[1] not in _NOT_PREPROCESSED_SUFFIXES


@dataclass(frozen=True)
class DepFlags:
    """-MD/-MMD and friends, which enzcc rewrites so the .d file names the real output."""

    mode: str | None = None
    """'-MD' or '-MMD' when a dependency file is written alongside compilation."""
    file: str | None = None
    """-MF value."""
    targets: tuple[str, ...] = ()
    """-MT/-MQ options as given (flag, value pairs flattened)."""
    extra: tuple[str, ...] = ()
    """-MP, -MG, -MV: passed unchanged."""


@dataclass(frozen=True)
class EnzcOptions:
    """enzc's own options (all spelled `--enzc-*`)."""

    time: bool = False
    keep_temps: str | None = None
    ad_before_opt: bool = False
    ad: ADOptions = ADOptions()
    cache: str | None = None
    """--enzc-cache DIR: reuse AD results stored there (also ENZC_CACHE=DIR)."""


@dataclass
class Invocation:
    """One enzcc command line, parsed."""

    cxx: bool
    """Invoked as enzc++ (C++ driver: clang++-22, links libstdc++)."""
    args: list[str]
    """The expanded arguments without enzc's own options: what clang gets when delegated."""
    phase: Phase = Phase.LINK
    delegate: bool = False
    """Nothing enzc-specific to do (-E, -M, -fsyntax-only, queries): hand over to clang."""
    emit_llvm: bool = False
    output: str | None = None
    opt: str | None = None
    """The last -O flag as given; applies to the final code generation."""
    items: list[Input | Library | LinkerFlags] = field(default_factory=list)
    """Inputs, -l and linker flags in command-line order (the link line)."""
    flags: list[str] = field(default_factory=list)
    """Every other option, in order: given to each clang invocation."""
    frontend_flags: list[str] = field(default_factory=list)
    """Options only for the source-to-IR step (-Xclang, -Wp,)."""
    deps: DepFlags = DepFlags()
    lib_dirs: list[str] = field(default_factory=list)
    required_symbols: list[str] = field(default_factory=list)
    static: bool = False
    verbose: bool = False
    print_cmake_toolchain: bool = False
    enzc: EnzcOptions = EnzcOptions()

    @property
    def inputs(self) -> list[Input]:
        """The input files, in order."""
        return [item for item in self.items if isinstance(item, Input)]

    @property
    def tool_name(self) -> str:
        return "enzc++" if self.cxx else "enzcc"


class UsageError(EnzcError):
    """The command line itself is wrong."""


_ENZC_SWITCHES = {
    "--enzc-time": "time",
    "--enzc-ad-before-opt": "ad_before_opt",
    "--enzc-print-activity": "print_activity",
    "--enzc-print-gradient": "print_gradient",
    "--enzc-print-cache": "print_cache",
    "--enzc-tape-stats": "tape_stats",
    "--enzc-verify": "verify",
    "--enzc-no-auto-shadow": "no_auto_shadow",
    "--enzc-runtime-activity": "runtime_activity",
    "-enzc-runtime-activity": "runtime_activity",
}


@dataclass
class _Parser:
    """What parsing accumulates besides the Invocation itself."""

    lang: str | None = None
    """The `-x` in effect."""
    phases: list[Phase] = field(default_factory=list)
    dep_mode: str | None = None
    dep_file: str | None = None
    dep_targets: list[str] = field(default_factory=list)
    dep_extra: list[str] = field(default_factory=list)
    switches: set[str] = field(default_factory=set)
    """Names (see _ENZC_SWITCHES) of the enzc switches given."""
    keep_temps: str | None = None
    cache: str | None = None


def _env_verify() -> bool:
    """ENZC_VERIFY=1 in the environment means --enzc-verify (for test suites and make)."""
    return os.environ.get("ENZC_VERIFY", "") not in ("", "0")


def parse_args(argv: list[str], cxx: bool) -> Invocation:
    """Parse enzcc's arguments (after `@file` expansion) into an Invocation."""
    args = expand_response_files(argv)
    inv = Invocation(cxx=cxx, args=[])
    state = _Parser()
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg.startswith("--enzc-") or arg in ("--cmake-toolchain", "-enzc-runtime-activity"):
            i = _enzc_option(arg, args, i, state, inv)
            continue
        if arg == "--":  # everything after is an input file
            inv.args += args[i - 1:]
            inv.items += [Input(path, state.lang) for path in args[i:]]
            break
        value: str | None = None
        name = arg
        if arg in _SEPARATE:
            if i >= len(args):
                raise UsageError(f"enzcc: error: argument to '{arg}' is missing (expected 1 value)")
            value = args[i]
            i += 1
            inv.args += [arg, value]
        else:
            inv.args.append(arg)
            prefix = next((p for p in _JOINABLE if arg.startswith(p) and arg != p), None)
            if prefix is not None:
                name, value = prefix, arg[len(prefix):]
        _classify(inv, state, name, value, arg)

    inv.phase = min(state.phases, default=Phase.LINK)
    inv.deps = DepFlags(state.dep_mode, state.dep_file, tuple(state.dep_targets),
                        tuple(state.dep_extra))
    on = state.switches
    inv.enzc = EnzcOptions(time="time" in on, keep_temps=state.keep_temps, cache=state.cache,
                           ad_before_opt="ad_before_opt" in on,
                           ad=ADOptions(print_activity="print_activity" in on,
                                        print_gradient="print_gradient" in on,
                                        print_cache="print_cache" in on,
                                        tape_stats="tape_stats" in on,
                                        auto_shadow="no_auto_shadow" not in on,
                                        runtime_activity="runtime_activity" in on,
                                        verify="verify" in on or _env_verify()))
    if not inv.inputs or inv.phase == Phase.PREPROCESS:
        inv.delegate = True
    elif inv.phase != Phase.LINK and not any(i.kind <= InputKind.IR for i in inv.inputs):
        inv.delegate = True  # -c/-S of assembly, headers (PCH), ...: nothing for enzc
    return inv


def _enzc_option(arg: str, args: list[str], i: int, state: _Parser, inv: Invocation) -> int:
    """Consume one enzc option starting at args[i-1]; return the next index."""
    if arg == "--cmake-toolchain":
        inv.print_cmake_toolchain = True
    elif arg in _ENZC_SWITCHES:
        state.switches.add(_ENZC_SWITCHES[arg])
    elif arg == "--enzc-keep-temps" or arg.startswith("--enzc-keep-temps="):
        if "=" in arg:
            state.keep_temps = arg.split("=", 1)[1]
        elif i < len(args):
            state.keep_temps = args[i]
            i += 1
        if not state.keep_temps:
            raise UsageError("enzcc: error: --enzc-keep-temps needs a directory")
    elif arg == "--enzc-cache" or arg.startswith("--enzc-cache="):
        if "=" in arg:
            state.cache = arg.split("=", 1)[1]
        elif i < len(args):
            state.cache = args[i]
            i += 1
        if not state.cache:
            raise UsageError("enzcc: error: --enzc-cache needs a directory")
    else:
        known = ", ".join(sorted([*_ENZC_SWITCHES, "--enzc-keep-temps DIR", "--enzc-cache DIR",
                                  "--cmake-toolchain"]))
        raise UsageError(f"enzcc: error: unknown enzc option '{arg}' (known: {known})")
    return i


def _classify(inv: Invocation, state: _Parser, name: str, value: str | None, arg: str) -> None:
    """File one argument into the Invocation (`arg` is the spelling, `name` its option)."""
    spelled = [arg] if value is None or arg != name else [arg, value]
    match name:
        case _ if name == "-" or not name.startswith("-"):
            inv.items.append(Input(arg, state.lang))
        case "-o":
            inv.output = value
        case "-x":
            state.lang = None if value == "none" else value
        case "-c":
            state.phases.append(Phase.OBJECT)
        case "-S":
            state.phases.append(Phase.ASSEMBLY)
        case "-E" | "-M" | "-MM":
            state.phases.append(Phase.PREPROCESS)
        case "-emit-llvm":
            inv.emit_llvm = True
        case "-v":
            inv.verbose = True
        case _ if name.startswith("-O"):
            inv.opt = arg
        case "-MD" | "-MMD" | "--write-dependencies" | "--write-user-dependencies":
            state.dep_mode = "-MMD" if "user" in name or name == "-MMD" else "-MD"
        case "-MF":
            state.dep_file = value
        case "-MT" | "-MQ":
            state.dep_targets += [name, value or ""]
        case "-MP" | "-MG" | "-MV":
            state.dep_extra.append(name)
        case "-l":
            inv.items.append(Library(value or ""))
        case "-Xlinker":
            inv.items.append(LinkerFlags((value or "",), tuple(spelled)))
        case "-z":
            inv.items.append(LinkerFlags(("-z", value or ""), tuple(spelled)))
        case _ if name.startswith("-Wl,"):
            inv.items.append(LinkerFlags(tuple(name[4:].split(",")), (arg,)))
        case "-Xclang" | "-Xpreprocessor":
            inv.frontend_flags += spelled
        case _ if name.startswith("-Wp,"):
            inv.frontend_flags.append(arg)
        case _:
            if name in _DELEGATED_FLAGS:
                inv.delegate = True
            if name == "-L":
                inv.lib_dirs.append(value or "")
            elif name == "-u":
                inv.required_symbols.append(value or "")
            elif name == "-static":
                inv.static = True
            inv.flags += spelled
