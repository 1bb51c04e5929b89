#!/usr/bin/env bash
# The IR round-trip law on real-world C and C++ code this project does not ship.
#
# Downloads source distributions from PyPI that bundle large C/C++ code bases (zstd,
# brotli, lz4, simdjson, rapidjson, Clipper: ~330k lines with headers), compiles
# their translation units with clang-22 at -O0 -g and at -O2 to .ll, and checks each
# with tests/ir/roundtrip_harness.py (enzc parse + print; llvm-as accepts the output,
# llvm-diff is clean, canonical llvm-dis forms are identical). Prints PASS/FAIL per
# file and a summary; exits 1 if any file failed. Nothing is kept unless KEEP=1.
#
# Environment: MAX_MB (default 64) skips IR files larger than that many MB (the
#   largest here, zstd's single-file amalgamation at -O0 -g, is 51 MB: about a minute
#   of CPU and 1.2 GB for the check), JOBS (default: nproc), PACKAGES (default: all,
#   space-separated), CONFIGS (default: "O0g O2"), KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-$ROOT/.venv/bin/python}
MAX_MB=${MAX_MB:-64}
JOBS=${JOBS:-$(nproc)}
PACKAGES=${PACKAGES:-"zstandard brotli lz4 pysimdjson pyclipper python-rapidjson"}
CONFIGS=${CONFIGS:-"O0g O2"}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/enzc-realworld.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "work directory: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
PYINC=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
export ROOT PY MAX_MB WORK

say() { printf 'realworld: %s\n' "$*" >&2; }

# -- fetch and unpack (sdists only: the point is their C/C++ sources) --------------------
mkdir -p "$WORK/dl" "$WORK/src" "$WORK/ir" "$WORK/log"
for pkg in $PACKAGES; do
    say "downloading $pkg"
    "$PY" -m pip download -q --no-deps --no-binary "$pkg" "$pkg" -d "$WORK/dl" 2>"$WORK/log/pip-$pkg.txt" \
        || { say "cannot download $pkg (see below); skipping"; tail -3 "$WORK/log/pip-$pkg.txt" >&2; }
done
for archive in "$WORK"/dl/*.tar.gz; do
    [ -e "$archive" ] && tar xzf "$archive" -C "$WORK/src"
done

# -- translation units: "package|compiler|source|flags" ---------------------------------
units() {
    local d
    for d in "$WORK"/src/*/; do
        d=${d%/}
        case $(basename "$d") in
            zstandard-*)
                echo "zstd|clang-22|$d/zstd/zstd.c|-I$d/zstd" ;;
            brotli-* | Brotli-*)
                for f in "$d"/c/common/*.c "$d"/c/dec/*.c "$d"/c/enc/*.c; do
                    echo "brotli|clang-22|$f|-I$d/c/include"
                done
                echo "brotli|clang-22|$d/python/_brotli.c|-I$d/c/include -I$PYINC" ;;
            lz4-*)
                for f in "$d"/lz4libs/*.c; do echo "lz4|clang-22|$f|-I$d/lz4libs"; done
                for f in "$d"/lz4/*/_*.c; do echo "lz4|clang-22|$f|-I$d/lz4libs -I$PYINC"; done ;;
            pysimdjson-*)
                for f in "$d"/simdjson/simdjson.cpp "$d"/simdjson/util.cpp; do
                    echo "simdjson|clang++-22|$f|-std=c++17 -I$d/simdjson -I$PYINC"
                done ;;
            pyclipper-*)
                echo "clipper|clang++-22|$d/src/clipper.cpp|-std=c++17 -I$d/src" ;;
            python_rapidjson-* | python-rapidjson-*)
                echo "rapidjson|clang++-22|$d/rapidjson.cpp|-std=c++17 -I$d/rapidjson/include -I$PYINC" ;;
        esac
    done
}

compile_one() {  # one "package|compiler|source|flags" line and one config name
    local pkg cc src flags cfg=$2 opt out
    IFS='|' read -r pkg cc src flags <<<"$1"
    case $cfg in
        O0g) opt="-O0 -g" ;;
        O2) opt="-O2" ;;
        O2g) opt="-O2 -g" ;;
        O2star) opt="-O2 -fno-vectorize -fno-slp-vectorize -fno-unroll-loops" ;;
        *) opt="-$cfg" ;;
    esac
    # the parent directory keeps brotli's dec/static_init.c and enc/static_init.c apart
    out="$WORK/ir/$pkg.$(basename "$(dirname "$src")")_$(basename "${src%.*}").$cfg.ll"
    # shellcheck disable=SC2086 # flags are word lists
    if ! $cc $opt $flags -w -S -emit-llvm "$src" -o "$out" 2>"$out.clang.txt"; then
        echo "clang failed: $src ($cfg)" >&2
        head -3 "$out.clang.txt" >&2
        rm -f "$out"
    fi
}
export -f compile_one

check_one() {  # one .ll file: SKIP if too big, else PASS/FAIL with the harness's report
    local f=$1 size
    size=$(stat -c %s "$f")
    if [ "$size" -gt $((MAX_MB * 1000000)) ]; then
        echo "SKIP $(basename "$f") ($((size / 1000000)) MB > MAX_MB=$MAX_MB)"
        return
    fi
    local start=$SECONDS
    "$PY" "$ROOT/tests/ir/roundtrip_harness.py" "$f" >"$f.check.txt" 2>&1 || true
    if grep -q '^PASS' "$f.check.txt"; then
        echo "PASS $(basename "$f") ($((size / 1000)) kB, $((SECONDS - start)) s)"
    else
        echo "FAIL $(basename "$f") ($((size / 1000)) kB, $((SECONDS - start)) s)"
        grep -v '^FAIL\|passed,' "$f.check.txt" | head -12
    fi
}
export -f check_one

units >"$WORK/units.txt"
[ -s "$WORK/units.txt" ] || { say "error: nothing to compile"; exit 1; }
lines=$(cut -d'|' -f3 "$WORK/units.txt" | xargs cat | wc -l)
say "$(wc -l <"$WORK/units.txt") translation units, $lines lines (without headers); configs: $CONFIGS"

for cfg in $CONFIGS; do
    say "compiling at $cfg"
    tr '\n' '\0' <"$WORK/units.txt" | xargs -0 -P "$JOBS" -I{} bash -c 'compile_one "$1" "$2"' _ {} "$cfg"
done

say "checking $(find "$WORK/ir" -name '*.ll' | wc -l) IR files"
find "$WORK/ir" -name '*.ll' -print0 | sort -z | xargs -0 -P "$JOBS" -n 1 bash -c 'check_one "$1"' _ \
    | tee "$WORK/results.txt"

pass=$(grep -c '^PASS' "$WORK/results.txt" || true)
fail=$(grep -c '^FAIL' "$WORK/results.txt" || true)
skip=$(grep -c '^SKIP' "$WORK/results.txt" || true)
echo
echo "per package (pass/fail/skip):"
for pkg in $(cut -d'|' -f1 "$WORK/units.txt" | sort -u); do
    p=$(grep -c "^PASS $pkg\." "$WORK/results.txt" || true)
    f=$(grep -c "^FAIL $pkg\." "$WORK/results.txt" || true)
    s=$(grep -c "^SKIP $pkg\." "$WORK/results.txt" || true)
    printf '  %-10s %3d %3d %3d\n' "$pkg" "$p" "$f" "$s"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
