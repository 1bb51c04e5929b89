"""enzcc behaves like cc/clang-22 where a build system can tell: -E, -M*, -MD files,
-c/-S outputs and their names, stdin/stdout, response files, queries, shared
libraries, and the objects it writes (normal ELF plus `.llvmbc`)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import ENZCC, ENZCXX, run, temp_leftovers

from enzc.frontend.toolchain import runtime_include_dir
from enzc.lto.elfobj import read_elf_object
from enzc.lto.irmodule import module_symbols, parse_module

MAIN = """#include <stdio.h>
#include "twice.h"
int counter = 1;
int main(void) { printf("%d %d\\n", twice(21), counter); return 0; }
"""
TWICE_H = "int twice(int);\n"
TWICE = '#include "twice.h"\nint twice(int x) { return 2 * x; }\n'


@pytest.fixture
def src(tmp_path: Path) -> Path:
    work = tmp_path / "src"
    work.mkdir()
    (work / "main.c").write_text(MAIN)
    (work / "twice.h").write_text(TWICE_H)
    (work / "twice.c").write_text(TWICE)
    return work


@pytest.mark.parametrize("flags", [["-E"], ["-E", "-P", "-DX=1"], ["-M"], ["-MM"],
                                   ["-MM", "-MT", "custom"], ["-E", "-dM"]])
def test_preprocessor_modes_print_what_clang_prints(src: Path, tmpdir_env: dict[str, str],
                                                    flags: list[str]) -> None:
    ours = run([ENZCC, *flags, "main.c"], src, tmpdir_env).stdout
    theirs = run(["clang-22", *flags, "main.c"], src, tmpdir_env).stdout
    assert ours == theirs and ours


@pytest.mark.parametrize("opt", [[], ["-O2"], ["-Os"]])
@pytest.mark.parametrize("deps", [["-MD"], ["-MMD", "-MP"], ["-MD", "-MF", "deps.txt"],
                                  ["-MMD", "-MT", "tgt", "-MQ", "$q"]])
def test_dependency_files_match_clang(src: Path, tmpdir_env: dict[str, str],
                                      opt: list[str], deps: list[str]) -> None:
    files = {}
    for name, compiler in (("ours", ENZCC), ("theirs", "clang-22")):
        out = src / name
        out.mkdir()
        run([compiler, *opt, *deps, "-c", "../main.c", "-o", "main.o"], out, tmpdir_env)
        depfile = out / ("deps.txt" if "-MF" in deps else "main.d")
        files[name] = depfile.read_text()
    assert files["ours"] == files["theirs"]


def test_link_mode_md_names_the_dep_file_after_the_output(src: Path,
                                                          tmpdir_env: dict[str, str]) -> None:
    run([ENZCC, "-MMD", "main.c", "twice.c", "-o", "prog"], src, tmpdir_env)
    expected = run(["clang-22", "-MMD", "main.c", "twice.c", "-o", "ref", "-MF", "ref.d"],
                   src, tmpdir_env)
    assert expected.returncode == 0
    assert (src / "prog.d").read_text() == (src / "ref.d").read_text().replace("ref:", "prog:")


def test_c_with_several_sources_writes_objects_like_cc(src: Path,
                                                       tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    run([ENZCC, "-O2", "-c", "main.c", "twice.c"], src, env)
    ref = src / "ref"
    ref.mkdir()
    run(["clang-22", "-O2", "-c", "../main.c", "../twice.c"], ref, env)
    for name in ("main.o", "twice.o"):
        ours = read_elf_object((src / name).read_bytes(), name)
        theirs = read_elf_object((ref / name).read_bytes(), name)
        assert ours.symbols == theirs.symbols
        assert theirs.bitcode is None
        assert ours.bitcode is not None  # .llvmbc: readable with pyelftools ...
        embedded = parse_module(ours.bitcode, name)  # ... and by LLVM
        assert module_symbols(embedded).defined == ours.symbols.defined
    # A plain linker links them: they are normal ELF objects.
    run(["clang-22", "main.o", "twice.o", "-o", "plain-link"], src, env)
    assert run(["./plain-link"], src, env).stdout == "42 1\n"
    assert temp_leftovers(env) == []


def test_embedded_bitcode_is_readable_by_llvm_tools(src: Path,
                                                    tmpdir_env: dict[str, str]) -> None:
    run([ENZCC, "-c", "twice.c", "-o", "t.o"], src, tmpdir_env)
    run(["llvm-objcopy-22", "--dump-section", ".llvmbc=t.bc", "t.o"], src, tmpdir_env)
    text = run(["llvm-dis-22", "t.bc", "-o", "-"], src, tmpdir_env).stdout
    assert re.search(r"^define .*@twice\(", text, re.MULTILINE) and "optnone" not in text


def test_ad_before_opt_objects_embed_the_ir_before_ad(src: Path,
                                                      tmpdir_env: dict[str, str]) -> None:
    # The code is compiled from the cleaned-up module, the section holds the frontend's
    # -O0 IR (added with llvm-objcopy-22), which a later link cleans up again.
    run([ENZCC, "--enzc-ad-before-opt", "-O2", "-c", "twice.c", "main.c"], src, tmpdir_env)
    embedded = read_elf_object((src / "twice.o").read_bytes(), "twice.o").bitcode
    assert embedded is not None and "noinline" in str(parse_module(embedded, "twice.o"))
    run([ENZCC, "--enzc-ad-before-opt", "-O2", "main.o", "twice.o", "-o", "prog"], src,
        tmpdir_env)
    assert run(["./prog"], src, tmpdir_env).stdout == "42 1\n"


def test_c_with_o_and_several_sources_is_an_error_like_clang(src: Path,
                                                             tmpdir_env: dict[str, str]) -> None:
    result = run([ENZCC, "-c", "main.c", "twice.c", "-o", "x.o"], src, tmpdir_env, check=False)
    assert result.returncode == 1
    assert "cannot specify -o when generating multiple output files" in result.stderr
    assert not (src / "x.o").exists()


def test_s_writes_assembly_and_s_emit_llvm_the_post_ad_module(src: Path,
                                                             tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    run([ENZCC, "-O2", "-S", "twice.c", "main.c"], src, env)
    ref = src / "ref"
    ref.mkdir()
    run(["clang-22", "-O2", "-S", "../twice.c", "../main.c"], ref, env)
    for name in ("twice.s", "main.s"):
        ours, theirs = (src / name).read_text(), (ref / name).read_text()
        assert _global_labels(ours) == _global_labels(theirs) and ".llvmbc" not in ours
    run(["clang-22", "-c", "twice.s", "-o", "from-asm.o"], src, env)
    run([ENZCC, "-O2", "-S", "-emit-llvm", "twice.c", "-o", "twice.ll"], src, env)
    run(["llvm-as-22", "twice.ll", "-o", "/dev/null"], src, env)
    assert re.search(r"^define .*@twice\(", (src / "twice.ll").read_text(), re.MULTILINE)
    run([ENZCC, "-c", "-emit-llvm", "twice.c"], src, env)
    assert (src / "twice.bc").read_bytes()[:4] == b"BC\xc0\xde"


def _global_labels(assembly: str) -> set[str]:
    return set(re.findall(r"^\s*\.globl\s+(\S+)", assembly, re.MULTILINE))


def test_stdin_input_and_stdout_output(src: Path, tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    obj = run([ENZCC, "-c", "-o", "-", "twice.c"], src, env)
    assert obj.stdout.startswith("\x7fELF")
    run([ENZCC, "-x", "c", "-", "twice.c", "-o", "from-stdin"], src, env,
        input=MAIN.replace('"twice.h"', f'"{src}/twice.h"').encode())
    assert run(["./from-stdin"], src, env).stdout == "42 1\n"


def test_response_file_and_default_output_name(src: Path, tmpdir_env: dict[str, str]) -> None:
    (src / "args.rsp").write_text('-O2\n"main.c" twice.c\n')
    run([ENZCC, "@args.rsp"], src, tmpdir_env)
    assert run(["./a.out"], src, tmpdir_env).stdout == "42 1\n"


@pytest.mark.parametrize("query", [["-dumpversion"], ["-dumpmachine"], ["-print-search-dirs"],
                                   ["-print-prog-name=ld"], ["-print-file-name=libc.so"]])
def test_queries_are_answered_by_clang(src: Path, tmpdir_env: dict[str, str],
                                       query: list[str]) -> None:
    ours = run([ENZCC, *query], src, tmpdir_env).stdout
    assert ours == run(["clang-22", *query], src, tmpdir_env).stdout and ours.strip()


def test_version_names_clang_first_then_enzc(src: Path, tmpdir_env: dict[str, str]) -> None:
    lines = run([ENZCC, "--version"], src, tmpdir_env).stdout.splitlines()
    assert lines[0] == run(["clang-22", "--version"], src, tmpdir_env).stdout.splitlines()[0]
    assert lines[-1].startswith("enzc ")


def test_verbose_shows_every_command_and_time_shows_stages(src: Path,
                                                          tmpdir_env: dict[str, str]) -> None:
    result = run([ENZCC, "-v", "--enzc-time", "main.c", "twice.c", "-o", "prog"], src,
                 tmpdir_env)
    commands = [line for line in result.stderr.splitlines() if line.startswith("clang-22 ")]
    # per source: IR before LLVM passes, then O2* on that IR; then codegen, link
    assert len(commands) == 6
    assert sum("-disable-llvm-passes" in c and "-fno-vectorize" not in c for c in commands) == 2
    assert sum("-x ir" in c and "-emit-llvm" in c and "-fno-unroll-loops" in c
               for c in commands) == 2
    assert "merged.bc" in commands[4] and "merged.o -o" in commands[5]
    for stage in ("frontend", "collect", "O2*", "codegen", "link", "total"):
        assert f"enzcc:   {stage}" in result.stderr


def test_configure_style_probes(src: Path, tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    (src / "conftest.c").write_text("int main(void) { return 0; }\n")
    run([ENZCC, "conftest.c"], src, env)
    run(["./a.out"], src, env)
    run([ENZCC, "-c", "conftest.c"], src, env)
    assert (src / "conftest.o").exists()
    bad = run([ENZCC, "-E", "-"], src, env, input=b"#include <no_such_header.h>\n", check=False)
    assert bad.returncode != 0 and "no_such_header.h" in bad.stderr
    (src / "undef.c").write_text("int f(void); int main(void) { return f(); }\n")
    assert run([ENZCC, "undef.c"], src, env, check=False).returncode != 0


def test_shared_library_and_so_inputs(src: Path, tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    run([ENZCC, "-O2", "-shared", "-fPIC", "twice.c", "-o", "libtwice.so"], src, env)
    run([ENZCC, "-O2", "main.c", "-L.", "-ltwice", "-Wl,-rpath,$ORIGIN", "-o", "dyn"], src, env)
    assert run(["./dyn"], src, env).stdout == "42 1\n"
    needed = subprocess.run(["readelf", "-d", str(src / "dyn")], capture_output=True, text=True)
    assert "libtwice.so" in needed.stdout  # linked dynamically, not merged


def test_whole_archive_mixing_ir_and_plain_members_links_each_once(
        src: Path, tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    (src / "extra.c").write_text("int extra(void) { return 7; }\n")
    run([ENZCC, "-c", "twice.c"], src, env)
    run(["clang-22", "-c", "extra.c"], src, env)
    run(["ar", "rcs", "libmix.a", "twice.o", "extra.o"], src, env)
    run([ENZCC, "main.c", "-Wl,--whole-archive", "libmix.a", "-Wl,--no-whole-archive",
         "-o", "prog"], src, env)
    assert run(["./prog"], src, env).stdout == "42 1\n"
    symbols = run(["nm", "prog"], src, env).stdout
    assert " T extra" in symbols  # the plain member was linked although unused


def test_cxx_sources_through_enzcc_link_libstdcxx(tmp_path: Path,
                                                  tmpdir_env: dict[str, str]) -> None:
    (tmp_path / "v.cpp").write_text('#include <vector>\n#include <cstdio>\n'
                                    'int main() { std::vector<int> v(5, 2); '
                                    'std::printf("%zu\\n", v.size()); }\n')
    run([ENZCC, "-O1", "v.cpp", "-o", "v"], tmp_path, tmpdir_env)
    assert run(["./v"], tmp_path, tmpdir_env).stdout == "5\n"
    run([ENZCXX, "-O1", "-c", "v.cpp", "-o", "v.o"], tmp_path, tmpdir_env)
    run([ENZCXX, "v.o", "-o", "v2"], tmp_path, tmpdir_env)
    assert run(["./v2"], tmp_path, tmpdir_env).stdout == "5\n"


def test_enzyme_header_is_found_and_declares_the_interface(tmp_path: Path,
                                                           tmpdir_env: dict[str, str]) -> None:
    markers = ("int *markers[] = {&enzyme_dup, &enzyme_dupnoneed, &enzyme_const, &enzyme_out,"
               " &enzyme_width, &enzyme_dupv, &enzyme_dupnoneedv, &enzyme_allocated, &enzyme_tape, &enzyme_nofree,"
               " &enzyme_vector, &enzyme_scalar, &enzyme_buffer};\n"
               "double f(double x) { return x * x; }\n")
    (tmp_path / "h.c").write_text(
        "#include <enzyme/enzyme.h>\n" + markers +
        "void *entries[] = {(void *)__enzyme_autodiff, (void *)__enzyme_fwddiff,\n"
        "  (void *)__enzyme_augmentfwd, (void *)__enzyme_reverse,\n"
        "  (void *)__enzyme_virtualreverse, (void *)__enzyme_fwdsplit, (void *)__enzyme_augmentsize};\n")
    (tmp_path / "h.cpp").write_text(
        "#include <enzyme/enzyme.h>\n" + markers +
        "double g(double x) {\n"
        "  void *tape = __enzyme_augmentfwd((void *)f, enzyme_out, x);\n"
        "  __enzyme_reverse((void *)f, enzyme_out, x, tape);\n"
        "  return __enzyme_autodiff((void *)f, x) + __enzyme_fwddiff((void *)f, x, 1.0)\n"
        "         + __enzyme_autodiff<float>((void *)f, 1.0f)\n"
        "         + (__enzyme_virtualreverse((void *)f) != nullptr);\n"
        "}\n")
    run([ENZCC, "-fsyntax-only", "-Wall", "-Werror", "-std=c99", "h.c"], tmp_path, tmpdir_env)
    run([ENZCXX, "-fsyntax-only", "-Wall", "-Werror", "-std=c++11", "h.cpp"], tmp_path,
        tmpdir_env)
    # The typed C++ form is only declared; its mangled name contains the entry point's,
    # which is how the AD stage recognizes the call.
    ir = run(["clang++-22", "-isystem", runtime_include_dir(), "-S", "-emit-llvm", "-O1",
              "h.cpp", "-o", "-"], tmp_path, tmpdir_env).stdout
    assert re.search(r"declare .*@_Z\d+__enzyme_autodiffIfJfEET_PvDpT0_\(", ir)


def test_archive_groups_are_rescanned_like_ld(tmp_path: Path, tmpdir_env: dict[str, str]) -> None:
    env = tmpdir_env
    (tmp_path / "a.c").write_text("int b(int); int a(int x) { return x ? b(x - 1) + 1 : 0; }\n")
    (tmp_path / "b.c").write_text("int a(int); int b(int x) { return x ? a(x - 1) + 2 : 0; }\n")
    (tmp_path / "m.c").write_text("int a(int); int main(void) { return a(5); }\n")
    run([ENZCC, "-c", "a.c", "b.c"], tmp_path, env)
    run(["llvm-ar-22", "rcs", "liba.a", "a.o"], tmp_path, env)
    run(["llvm-ar-22", "rcs", "libb.a", "b.o"], tmp_path, env)

    def merged_defines_b(link_line: list[str], name: str) -> bool:
        keep = tmp_path / f"keep-{name}"
        run([ENZCC, "m.c", *link_line, "-o", name, "--enzc-keep-temps", str(keep)], tmp_path,
            env)
        assert run([f"./{name}"], tmp_path, env, check=False).returncode == 1 + 2 + 1 + 2 + 1
        merged = (keep / "merged.pre-ad.ll").read_text()
        return re.search(r"^define .*@b\(", merged, re.MULTILINE) is not None

    # libb.a comes before the member of liba.a that needs it: ld's walk does not select
    # b.o (the final link still finds its native code, the merged object comes first).
    assert not merged_defines_b(["libb.a", "liba.a"], "p1")
    # In a group the archives are rescanned and b's IR is merged.
    assert merged_defines_b(["-Wl,--start-group", "libb.a", "liba.a", "-Wl,--end-group"], "p2")


@pytest.mark.parametrize("lto", ["-flto", "-flto=thin"])
def test_c_flto_writes_bitcode_objects_that_both_linkers_link(tmp_path: Path,
                                                              tmpdir_env: dict[str, str],
                                                              lto: str) -> None:
    """-c -flto writes a bitcode object, as clang does (CMake's IPO): post-AD for a unit
    that differentiates, pre-AD when AD waits for the link (the function is elsewhere)."""
    env = tmpdir_env
    (tmp_path / "cube.c").write_text("double cube(double x) { return x * x * x; }\n")
    (tmp_path / "main.c").write_text(
        "#include <stdio.h>\n#include <enzyme/enzyme.h>\ndouble cube(double);\n"
        "static double sq(double x) { return x * x; }\n"
        "int main(void) { printf(\"%g %g\\n\", __enzyme_autodiff((void *)sq, 3.0),\n"
        "                       __enzyme_autodiff((void *)cube, 2.0)); return 0; }\n")
    result = run([ENZCC, "-O2", lto, "-c", "main.c", "cube.c"], tmp_path, env)
    assert "AD deferred to the enzcc link step" in result.stderr
    for obj in ("main.o", "cube.o"):
        assert (tmp_path / obj).read_bytes()[:4] == b"BC\xc0\xde"
    run([ENZCC, "-O2", lto, "main.o", "cube.o", "-o", "prog"], tmp_path, env)
    assert run(["./prog"], tmp_path, env).stdout == "6 12\n"
    # A unit differentiated on its own holds its derivatives: plain clang links it.
    (tmp_path / "alone.c").write_text((tmp_path / "cube.c").read_text()
                                      + (tmp_path / "main.c").read_text())
    run([ENZCC, "-O2", lto, "-c", "alone.c"], tmp_path, env)
    run(["clang-22", "-O2", lto, "alone.o", "-o", "alone"], tmp_path, env)
    assert run(["./alone"], tmp_path, env).stdout == "6 12\n"
    assert temp_leftovers(env) == []


@pytest.mark.parametrize(("name", "content", "spelling"), [
    ("empty.o", b"", ["empty.o"]),
    ("libempty.a", b"", ["libempty.a"]),
    ("libnone.a", b"!<arch>\n", ["libnone.a"]),
    ("libempty.a", b"", ["-L.", "-lempty"]),
    ("libempty.a", b"", ["-L.", "-l:libempty.a"]),
])
def test_empty_objects_and_archives_are_linked_as_ld_links_them(
        src: Path, tmpdir_env: dict[str, str], name: str, content: bytes,
        spelling: list[str]) -> None:
    env = tmpdir_env
    (src / name).write_bytes(content)
    (src / "cube.c").write_text("#include <stdio.h>\n#include <enzyme/enzyme.h>\n"
                                "double cube(double x) { return x * x * x; }\n"
                                "int main(void) { printf(\"%g\\n\", "
                                "__enzyme_autodiff((void *)cube, 2.0)); return 0; }\n")
    run(["clang-22", "main.c", "twice.c", *spelling, "-o", "reference"], src, env)
    run([ENZCC, "-O2", "cube.c", *spelling, "-o", "prog"], src, env)
    assert run(["./prog"], src, env).stdout == "12\n"
    assert temp_leftovers(env) == []
