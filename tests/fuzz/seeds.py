"""Seed inputs for the fuzzers, built by clang-22 (and cached): IR text and bitcode from
the IR corpus, ELF objects with and without `.llvmbc`, and archives of them.

    python tests/fuzz/seeds.py DIR      # build the seeds into DIR (else on first use)
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from enzc.frontend.toolchain import runtime_include_dir

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "ir" / "corpus"
ENZCC = Path(sys.executable).parent / "enzcc"
MAX_LL_BYTES = 30_000
"""Larger modules cost parse time without making mutants more interesting."""
LL_CONFIGS = (("O0", ["-O0"]), ("O1", ["-O1"]), ("O2", ["-O2"]), ("O2g", ["-O2", "-g"]))

LIBRARY = {
    "vec.c": "#include <enzyme/enzyme.h>\n"
             "double dot(const double *a, const double *b, int n) {\n"
             "  double s = 0; for (int i = 0; i < n; i++) s += a[i] * b[i]; return s; }\n"
             "double norm2(const double *a, int n) { return dot(a, a, n); }\n",
    "grad.c": "#include <enzyme/enzyme.h>\n"
              "double norm2(const double *a, int n);\n"
              "void grad_norm2(const double *a, double *da, int n) {\n"
              "  __enzyme_autodiff((void *)norm2, enzyme_dup, a, da, enzyme_const, n); }\n",
    "plain.c": "static int counter;\nint bump(int k) { counter += k; return counter; }\n",
    "a_rather_long_member_name_for_the_name_table.c":
        "double scale(double x) { return 2.5 * x; }\n",
}
MAIN = ("#include <stdio.h>\n"
        "void grad_norm2(const double *a, double *da, int n);\nint bump(int);\n"
        "double scale(double);\n"
        "int main(void) { double a[3] = {1, 2, 3}, da[3] = {0};\n"
        "  grad_norm2(a, da, 3); printf(\"%g %g %g %d %g\\n\", da[0], da[1], da[2], bump(1),"
        " scale(1.0)); return 0; }\n")


@dataclass(frozen=True)
class Seeds:
    """Paths of the seed files, by kind."""

    ll: list[Path]
    bc: list[Path]
    objects: list[Path]
    """Single objects that, linked with `main_object`, make a program."""
    archives: list[Path]
    """Archives that, linked after `main_object`, make a program."""
    main_object: Path


def _digest() -> str:
    h = hashlib.sha256()
    for path in sorted(CORPUS.glob("*.c")) + [Path(__file__)]:
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def build_seeds(directory: Path) -> Seeds:
    """Build (or reuse) the seeds in `directory` (safe when several processes ask)."""
    stamp = directory / f"seeds-{_digest()}.done"
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / f".{directory.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not stamp.exists():
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir(parents=True)
            _build_ir(directory)
            _build_objects(directory)
            stamp.write_text("ok\n")
    return Seeds(ll=sorted(directory.glob("ll/*.ll")), bc=sorted(directory.glob("ll/*.bc")),
                 objects=sorted(directory.glob("obj/*.o")),
                 archives=sorted(directory.glob("ar/*.a")),
                 main_object=directory / "main" / "main.o")


def _build_ir(directory: Path) -> None:
    out = directory / "ll"
    out.mkdir()
    for source in sorted(CORPUS.glob("*.c")):
        for name, flags in LL_CONFIGS:
            target = out / f"{source.stem}.{name}.ll"
            # Relative names and a fixed compilation directory keep the checkout's path
            # out of the seeds, so `--replay` rebuilds a case the same in any worktree.
            subprocess.run(["clang-22", "-S", "-emit-llvm", *flags, "-fdebug-compilation-dir=.",
                            source.name, "-o", str(target)], cwd=CORPUS, check=True,
                           capture_output=True)
            if target.stat().st_size > MAX_LL_BYTES:
                target.unlink()
            elif name == "O2":
                subprocess.run(["llvm-as-22", str(target), "-o", str(target.with_suffix(".bc"))],
                               check=True)


def _build_objects(directory: Path) -> None:
    src = directory / "src"
    src.mkdir()
    for name, text in {**LIBRARY, "main.c": MAIN}.items():
        (src / name).write_text(text)
    main = directory / "main"
    main.mkdir()
    subprocess.run(["clang-22", "-c", "main.c", "-o", str(main / "main.o")], cwd=src,
                   check=True)
    obj = directory / "obj"
    obj.mkdir()
    library = [src / name for name in LIBRARY]
    for flags, tag in ((["-O2"], "enzcc"), (["-O0"], "enzcc-O0")):
        for source in library:
            subprocess.run([str(ENZCC), *flags, "-c", source.name, "-o",
                            str(obj / f"{source.stem}.{tag}.o")], cwd=src, check=True,
                           capture_output=True)
    for source in library:
        subprocess.run(["clang-22", "-O1", "-fembed-bitcode", "-isystem", runtime_include_dir(),
                        "-c", source.name, "-o",
                        str(obj / f"{source.stem}.embed.o")], cwd=src, check=True)
    # One object holding the whole library, so a single mutated object makes a program.
    combined = src / "combined.c"
    combined.write_text("".join(LIBRARY.values()))
    subprocess.run([str(ENZCC), "-O2", "-c", combined.name, "-o", str(obj / "combined.enzcc.o")],
                   cwd=src, check=True)
    _build_archives(directory, obj)


def _build_archives(directory: Path, obj: Path) -> None:
    ar = directory / "ar"
    ar.mkdir()
    members = {tag: [p.name for p in sorted(obj.glob(f"*.{tag}.o")) if p.stem.split(".")[0]
                     in {Path(n).stem for n in LIBRARY}] for tag in ("enzcc", "embed")}
    commands = {
        "llvm.a": ["llvm-ar-22", "rcs"], "gnu.a": ["ar", "rcs"],
        "bsd.a": ["llvm-ar-22", "--format=bsd", "rcs"], "noindex.a": ["llvm-ar-22", "rcS"],
    }
    for name, command in commands.items():
        for tag, names in members.items():
            target = ar / f"{tag}-{name}"
            env = dict(os.environ, LC_ALL="C")
            subprocess.run([*command, str(target), *names], cwd=obj, check=True, env=env,
                           capture_output=True)


if __name__ == "__main__":
    seeds = build_seeds(Path(sys.argv[1]))
    print(f"{len(seeds.ll)} .ll, {len(seeds.bc)} .bc, {len(seeds.objects)} objects, "
          f"{len(seeds.archives)} archives")
