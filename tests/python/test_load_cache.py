"""The compile cache: a second load in a new process builds nothing, concurrent
loads of new code both succeed, damaged entries are rebuilt, edited headers are
noticed; and enzcc's own AD cache (ENZC_CACHE / --enzc-cache)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import numpy as np
import pytest

LOADER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import enzc
    from enzc.python import build, cache
    lib = enzc.load(sys.argv[1], flags=sys.argv[2:])
    x = np.linspace(0.5, 1.5, 4)
    print(json.dumps({"value": lib.f(x, 4), "grad": lib.f.grad(x, 4).tolist(),
                      "hits": cache.STATS.hits, "builds": cache.STATS.builds,
                      "corrupt": cache.STATS.corrupt, "tool_runs": build.TOOL_RUNS[0]}))
""")


def fresh_source(extra: str = "") -> str:
    """C code no earlier test has built (a unique constant)."""
    return (f"{extra}\n#include <math.h>\n/* {uuid.uuid4()} */\n"
            "double f(const double *x, int n) {\n  double s = 0;\n"
            "  for (int i = 0; i < n; i++) s += log(x[i]) * x[i];\n  return s;\n}\n")


def load_in_new_process(cache: Path, source: str, *flags: str) -> dict:
    env = {**os.environ, "ENZC_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-c", LOADER, source, *flags], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def start_load(cache: Path, source: str) -> subprocess.Popen[str]:
    env = {**os.environ, "ENZC_CACHE": str(cache)}
    return subprocess.Popen([sys.executable, "-c", LOADER, source], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def expected_grad(x: np.ndarray) -> np.ndarray:
    return np.log(x) + 1


def test_second_load_in_a_new_process_runs_no_compiler(tmp_path):
    source = fresh_source()
    first = load_in_new_process(tmp_path, source)
    assert first["builds"] == 1 and first["hits"] == 0 and first["tool_runs"] >= 3
    second = load_in_new_process(tmp_path, source)
    assert second["builds"] == 0 and second["hits"] == 1 and second["tool_runs"] == 0
    assert second["value"] == first["value"]
    np.testing.assert_allclose(second["grad"], expected_grad(np.linspace(0.5, 1.5, 4)))
    changed_flags = load_in_new_process(tmp_path, source, "-O3")
    assert changed_flags["builds"] == 1


def test_concurrent_loads_of_new_code_both_succeed(tmp_path):
    source = fresh_source()
    procs = [start_load(tmp_path, source) for _ in range(2)]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    assert results[0]["value"] == results[1]["value"]
    assert len(list((tmp_path / "lib").glob("*/*"))) == 1
    assert list((tmp_path / "tmp").iterdir()) == []  # the loser's copy is gone too


@pytest.fixture(scope="module")
def built_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A cache holding one entry, copied by each damage test."""
    cache = tmp_path_factory.mktemp("pristine")
    source = fresh_source()
    load_in_new_process(cache, source)
    return cache, source


@pytest.mark.parametrize("damage", ["truncate_library", "garble_manifest", "remove_library"])
def test_damaged_entry_is_rebuilt(tmp_path, built_once, damage):
    cache = tmp_path / "cache"
    shutil.copytree(built_once[0], cache)
    [entry] = list((cache / "lib").glob("*/*"))
    [library] = list(entry.glob("*.so"))
    if damage == "truncate_library":
        library.write_bytes(library.read_bytes()[:4096])
    elif damage == "garble_manifest":
        (entry / "manifest.json").write_text('{"format": 1, "libr')
    else:
        library.unlink()
    again = load_in_new_process(cache, built_once[1])
    assert again["corrupt"] == 1 and again["builds"] == 1
    np.testing.assert_allclose(again["grad"], expected_grad(np.linspace(0.5, 1.5, 4)))
    assert load_in_new_process(cache, built_once[1])["builds"] == 0


def test_edited_header_is_a_miss(tmp_path):
    header = tmp_path / "scale.h"
    header.write_text("#define SCALE 2.0\n")
    source = fresh_source(f'#include "{header}"').replace("return s;", "return SCALE * s;")
    first = load_in_new_process(tmp_path / "cache", source)
    header.write_text("#define SCALE 3.0\n")
    second = load_in_new_process(tmp_path / "cache", source)
    assert second["builds"] == 1
    assert second["value"] == pytest.approx(first["value"] * 1.5)


def test_same_code_in_one_process_is_one_library(enzc_cache):
    import enzc

    source = fresh_source()
    assert enzc.load(source) is enzc.load(source)


PROGRAM = textwrap.dedent("""
    #include <enzyme/enzyme.h>
    #include <stdio.h>
    double cube(double x) { return x * x * x; }
    int main(void) { printf("%g\\n", __enzyme_autodiff((void *)cube, 2.0)); return 0; }
""")


ENZCC_COUNTING_AD_RUNS = textwrap.dedent("""
    import sys
    from enzc.frontend import middle, run

    real_stage = middle.run_ad_stage

    def counting_stage(text, options):
        # The AD stage runs in a forked child (enzc.isolation): count through a file.
        with open(sys.argv[1], "a") as log:
            log.write("x")
        return real_stage(text, options)

    middle.run_ad_stage = counting_stage
    sys.exit(run(sys.argv[2:], cxx=False))
""")


def test_enzcc_reuses_ad_results(tmp_path):
    """With ENZC_CACHE the AD stage of an unchanged module runs once; a damaged entry
    is recomputed. enzcc runs in its own process: it forks, which this test process
    (with PyTorch or JAX loaded) must not."""
    log = tmp_path / "ad-stage-runs"
    log.write_text("")
    source = tmp_path / "cube.c"
    source.write_text(PROGRAM)
    cache_env = {**os.environ, "ENZC_CACHE": str(tmp_path / "cache")}

    def enzcc(*flags: str, env: dict[str, str] = cache_env) -> None:
        argv = [sys.executable, "-c", ENZCC_COUNTING_AD_RUNS, str(log), "-O2", *flags,
                str(source), "-o", str(tmp_path / "cube")]
        subprocess.run(argv, env=env, check=True)

    def build_and_run() -> str:
        enzcc()
        return subprocess.run([str(tmp_path / "cube")], capture_output=True, text=True).stdout

    def runs() -> int:
        return len(log.read_text())

    assert build_and_run().strip() == "12" and runs() == 1
    assert build_and_run().strip() == "12" and runs() == 1
    [entry] = list((tmp_path / "cache" / "ad").glob("*/*"))
    entry.write_bytes(entry.read_bytes()[:-20])
    assert build_and_run().strip() == "12" and runs() == 2
    no_cache_env = {k: v for k, v in os.environ.items() if k != "ENZC_CACHE"}
    enzcc(f"--enzc-cache={tmp_path / 'other'}", env=no_cache_env)
    assert len(list((tmp_path / "other" / "ad").glob("*/*"))) == 1 and runs() == 3
