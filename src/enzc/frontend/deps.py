"""-MD/-MMD: make the frontend write the .d file clang would write, where clang would.

enzcc's frontend writes IR into a temporary file, so left alone clang would name that
file as the make target and put the .d next to it. clang's own rules decide both
instead: the file is -MF, else the -o output with its extension replaced by `.d`,
else the input's base name with `.d`; the target is -MT/-MQ, else the -o output,
else the input's base name with `.o` (quoted for make, like clang's).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from enzc.frontend.args import DepFlags


@dataclass(frozen=True)
class DepFile:
    """Frontend flags for one source, and where the written file must end up."""

    flags: list[str]
    built: str
    """Where the frontend writes it (inside the temporary directory)."""
    destination: str


def dependency_file(deps: DepFlags, source: str, output: str | None,
                    built: str) -> DepFile | None:
    """The dependency-file plan for `source`; None without -MD/-MMD."""
    if deps.mode is None:
        return None
    if deps.file is not None:
        destination = deps.file
    elif output is not None:
        destination = replace_extension(output, ".d")
    else:
        destination = replace_extension(os.path.basename(source), ".d")
    flags = [deps.mode, "-MF", built, *deps.extra]
    if deps.targets:
        flags += deps.targets
    else:
        target = output if output is not None else replace_extension(os.path.basename(source), ".o")
        flags += ["-MQ", target]
    return DepFile(flags, built, destination)


def replace_extension(path: str, extension: str) -> str:
    """llvm::sys::path::replace_extension: drop the file name's last suffix, add ours.

    clang names default outputs (`x.o`, `x.d`) this way, so enzcc does too.
    """
    head, name = os.path.split(path)
    stem = name[:name.rfind(".")] if "." in name[1:] else name
    return os.path.join(head, stem + extension)
