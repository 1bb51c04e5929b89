#!/usr/bin/env bash
# Installs what enzc needs, only what is missing: Debian's clang-22/llvm-22, LLVM's
# OpenMP runtime (libomp-22-dev, for -fopenmp), Open MPI (mpicc, mpirun), OpenBLAS
# (libopenblas-dev, for the BLAS gradient tests) and a
# .venv with the package (editable, with its test, torch and jax extras, so the
# Python API's PyTorch/JAX tests run), plus Python's C headers, which enzc.load
# compiles its extension shim against. Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_updated=0
apt_install() {
    if [ "$apt_updated" = 0 ]; then
        say "apt-get update"
        as_root apt-get update -qq
        apt_updated=1
    fi
    say "apt-get install $*"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

missing=()
for tool in clang-22 clang++-22 llvm-as-22 llvm-diff-22 llvm-dis-22 llvm-ar-22 opt-22 cmake make; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "missing ${missing[*]}"
    apt_install clang-22 llvm-22 cmake make
fi

# OpenMP programs (-fopenmp) link LLVM's libomp of the same release as clang-22.
if [ ! -e /usr/lib/llvm-22/lib/libomp.so ]; then
    say "missing libomp for clang-22"
    apt_install libomp-22-dev
fi

# MPI programs: Open MPI's headers, libmpi and the mpicc/mpirun wrappers.
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    say "missing Open MPI"
    apt_install libopenmpi-dev openmpi-bin
fi

# OpenBLAS (headers and library): the BLAS gradient tests link against it.
if ! printf '#include <cblas.h>\nint main(void) { return (int)cblas_ddot(0, 0, 1, 0, 1); }\n' \
        | clang-22 -x c - -lopenblas -o /dev/null >/dev/null 2>&1; then
    say "missing OpenBLAS (cblas.h, -lopenblas)"
    apt_install libopenblas-dev
fi

# Eigen (headers only): the runtime-activity tests differentiate its QR and eigen solvers.
if [ ! -e /usr/include/eigen3/Eigen/Dense ]; then
    say "missing Eigen (libeigen3-dev)"
    apt_install libeigen3-dev
fi

PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "setup: error: enzc needs Python >= 3.11 ($PY is older or missing)" >&2
    exit 1
fi

if [ ! -x .venv/bin/python ]; then
    if ! "$PY" -m venv .venv >/dev/null 2>&1; then
        rm -rf .venv
        apt_install python3-venv
        "$PY" -m venv .venv
    fi
fi

# Reinstall only when the project's metadata changed since the last install.
stamp=.venv/.enzc-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    say "installing enzc into .venv"
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
    # torch is pinned in the extra (a CPU build); an unpinned one would be a CUDA build.
    .venv/bin/python -m pip install -q -e '.[test,torch,jax]'
    touch "$stamp"
fi

if ! .venv/bin/python -c 'import os, sysconfig, sys
sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
    apt_install python3-dev
fi
