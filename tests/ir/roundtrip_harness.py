"""The round-trip law, checkable on any `.ll`/`.bc` file: shared by the corpus test
(tests/ir/test_roundtrip.py), the real-world script (scripts/roundtrip_realworld.sh)
and the IR benchmark.

The law: OUT = enzc's printer applied to enzc's parse of IN (every body parsed) is
accepted by `llvm-as-22`, `llvm-diff-22 IN OUT` reports nothing, and LLVM's canonical
form of both (`llvm-dis-22` of the bitcode) is byte-identical. llvm-diff alone is too
weak: it compares function bodies but not global attributes, linkage details,
metadata contents or module flags. The canonical comparison sees all of that, and it
is insensitive to what may legitimately differ in text: metadata and attribute-group
numbering, unnamed value numbering, spacing and comments.

Run as a script to check files: `python tests/ir/roundtrip_harness.py A.ll B.bc ...`
prints one PASS/FAIL line per file (with the first lines of the problem) and exits 1
if any failed.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

CLANG = {"c": "clang-22", "c++": "clang++-22"}
LLVM_AS = "llvm-as-22"
LLVM_DIS = "llvm-dis-22"
LLVM_DIFF = "llvm-diff-22"
SHOWN_LINES = 25
"""How many lines of a tool's output or of a diff a failure message shows."""

O2_STAR = ("-O2", "-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops")
"""enzc's pre-AD pipeline (design.md): O2 without vectorization and unrolling."""

RoundTrip = Callable[[Path, Path], None]
"""Reads IN (`.ll` or `.bc`), writes OUT (`.ll`); raises on failure."""


@dataclass(frozen=True)
class BuildConfig:
    """One way of compiling a corpus program to IR."""

    name: str
    """Short id used in test names, e.g. `O2star-g-noexc`."""
    flags: tuple[str, ...]
    """Extra clang flags (optimization, -g, -fno-exceptions)."""
    emit: str = "ll"
    """`ll` (clang -S -emit-llvm) or `bc` (clang -c -emit-llvm), for the bitcode path."""


_BASE_CONFIGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("O0", ("-O0",)),
    ("O2", ("-O2",)),
    ("O2star", O2_STAR),
)


def build_configs(lang: str) -> list[BuildConfig]:
    """Every configuration the acceptance criteria name for `lang` ("c" or "c++"):
    -O0, -O2, O2*, each with and without -g, plus -O3 (vectorization on); for C++ all
    of that with and without -fno-exceptions; plus one bitcode (`.bc`) input at -O2."""
    plain: list[BuildConfig] = []
    for name, flags in _BASE_CONFIGS:
        plain.append(BuildConfig(name, flags))
        plain.append(BuildConfig(f"{name}-g", flags + ("-g",)))
    plain.append(BuildConfig("O3", ("-O3",)))
    configs = list(plain)
    if lang == "c++":
        configs += [BuildConfig(f"{c.name}-noexc", c.flags + ("-fno-exceptions",)) for c in plain]
    configs.append(BuildConfig("O2-bc", ("-O2",), emit="bc"))
    return configs


def source_language(source: Path) -> str:
    return "c" if source.suffix == ".c" else "c++"


def compile_ir(source: Path, config: BuildConfig, out_dir: Path) -> Path:
    """Compile `source` with clang-22 under `config` into `out_dir`; returns the IR path.
    Names are clang's defaults (value names discarded), as users' IR has them."""
    lang = source_language(source)
    std = ("-std=c++20",) if lang == "c++" else ()
    emit = ("-S", "-emit-llvm") if config.emit == "ll" else ("-c", "-emit-llvm")
    key = hashlib.sha1(source.read_bytes() + repr((CLANG[lang], std, config)).encode()).hexdigest()[:10]
    out = out_dir / f"{source.stem}.{config.name}.{key}.{config.emit}"
    if out.exists():  # the key covers the source and the command: safe across runs
        return out
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    cmd = [CLANG[lang], *std, *config.flags, *emit, str(source), "-o", str(tmp)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{_head(proc.stderr)}")
    tmp.replace(out)  # atomic: a concurrent worker never sees a half-written file
    return out


# -- round-trip implementations -------------------------------------------------------

def enzc_in_process(src: Path, dst: Path) -> None:
    """enzc's parser and printer in this process, every function body parsed."""
    import enzc.ir as ir

    if src.suffix == ".bc":
        module = ir.parse_bitcode(src.read_bytes(), filename=str(src), lazy=False)
    else:  # IR text is UTF-8 but may carry stray bytes in strings; keep them as they are
        text = src.read_bytes().decode("utf-8", "surrogateescape")
        module = ir.parse_module(text, filename=str(src), lazy=False)
    for fn in module.functions.values():
        if not fn.is_declaration:
            fn.blocks  # noqa: B018 - materializes a lazy body so it is printed from objects
    dst.write_bytes(ir.print_module(module).encode("utf-8", "surrogateescape"))


def enzc_cli(src: Path, dst: Path, *extra: str) -> None:
    """The command line, `python -m enzc.ir IN -o OUT [extra...]`, as users run it."""
    proc = subprocess.run([sys.executable, "-m", "enzc.ir", str(src), "-o", str(dst), *extra],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"python -m enzc.ir exited {proc.returncode}:\n{_head(proc.stderr)}")
    if "Traceback" in proc.stderr:
        raise RuntimeError(f"python -m enzc.ir printed a traceback:\n{_head(proc.stderr)}")


# -- the law --------------------------------------------------------------------------

def canonical_form(path: Path) -> tuple[str, str]:
    """LLVM's own text for `path` (`.ll` or `.bc`) and llvm-as's stderr: llvm-dis of
    llvm-as of the text. Raises RuntimeError if LLVM rejects the file.

    Bitcode is first disassembled to text: clang's bitcode records use-list order,
    text does not, and llvm-dis shows that order in its `; preds = ...` comments. Going
    through text once is exactly what any textual round trip does, LLVM's own included.
    Everything goes through stdin, so the `; ModuleID` line is the same for every file."""
    if path.suffix == ".bc":
        text = _llvm_dis(path.read_bytes(), path)
    else:
        text = path.read_bytes()
    asm = subprocess.run([LLVM_AS, "-o", "-"], input=text, capture_output=True)
    as_err = asm.stderr.decode(errors="replace")
    if asm.returncode != 0:
        raise RuntimeError(f"{LLVM_AS} rejects {path.name}:\n{_head(as_err)}")
    return _llvm_dis(asm.stdout, path).decode(errors="replace"), as_err


def _llvm_dis(bitcode: bytes, path: Path) -> bytes:
    dis = subprocess.run([LLVM_DIS, "-o", "-"], input=bitcode, capture_output=True)
    if dis.returncode != 0:
        raise RuntimeError(f"{LLVM_DIS} fails on {path.name}:\n{_head(dis.stderr.decode(errors='replace'))}")
    return dis.stdout


def check_roundtrip(src: Path, out: Path, expected: str | None = None) -> list[str]:
    """Problems with OUT as the round trip of IN; empty means the law holds.
    `expected` is IN's canonical form if the caller already has it."""
    problems: list[str] = []
    try:
        got, as_err = canonical_form(out)
    except RuntimeError as err:
        return [str(err)]
    if as_err.strip():  # e.g. "ignoring invalid debug info": accepted, but not faithfully
        problems.append(f"{LLVM_AS} warns on the output:\n{_head(as_err)}")
    verdict = _llvm_diff(src, out)
    # llvm-diff has false positives: it reports `llvm-diff X X` as different when a
    # global's initializer holds blockaddress constants (computed goto tables). There
    # the honest demand is that OUT gets exactly IN's own verdict.
    if verdict != (0, "") and verdict != _llvm_diff(src, src):
        problems.append(f"{LLVM_DIFF} IN OUT (exit {verdict[0]}):\n{_head(verdict[1])}")
    if expected is None:
        expected, _ = canonical_form(src)
    if got != expected:
        problems.append("canonical forms differ (llvm-dis of IN vs OUT):\n" + first_diff(expected, got))
    return problems


def _llvm_diff(left: Path, right: Path) -> tuple[int, str]:
    """llvm-diff's exit code and report (it writes differences to stderr)."""
    proc = subprocess.run([LLVM_DIFF, str(left), str(right)], capture_output=True, text=True)
    return proc.returncode, (proc.stderr + proc.stdout).strip()


def first_diff(expected: str, got: str) -> str:
    lines = difflib.unified_diff(expected.splitlines(), got.splitlines(), "IN (canonical)",
                                 "OUT (canonical)", n=1, lineterm="")
    return _head("\n".join(lines))


def run_law(src: Path, roundtrip: RoundTrip, work_dir: Path) -> list[str]:
    """Round-trip `src` into `work_dir` and check the law; problems, empty if it holds."""
    out = work_dir / f"{src.name}.roundtrip.ll"
    try:
        roundtrip(src, out)
    except Exception as err:  # the parser's own failure is a finding, not a harness crash
        return [f"round trip raised {type(err).__name__}: {_head(str(err))}"]
    if not out.exists():
        return ["round trip wrote no output file"]
    return check_roundtrip(src, out)


def _head(text: str, n: int = SHOWN_LINES) -> str:
    lines = text.rstrip().splitlines()
    more = f"\n... ({len(lines) - n} more lines)" if len(lines) > n else ""
    return "\n".join(lines[:n]) + more


def main(argv: list[str]) -> int:
    """Check each file given; `--cli` uses `python -m enzc.ir` instead of the API."""
    roundtrip: RoundTrip = enzc_in_process
    if argv and argv[0] == "--cli":
        roundtrip, argv = enzc_cli, argv[1:]
    if not argv:
        print("usage: roundtrip_harness.py [--cli] FILE.ll|FILE.bc ...", file=sys.stderr)
        return 2
    failed = 0
    with tempfile.TemporaryDirectory(prefix="enzc-roundtrip-") as tmp:
        for name in argv:
            problems = run_law(Path(name), roundtrip, Path(tmp))
            failed += bool(problems)
            print(f"{'FAIL' if problems else 'PASS'} {name}", flush=True)
            for p in problems:
                print("    " + p.replace("\n", "\n    "), flush=True)
    print(f"{len(argv) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
