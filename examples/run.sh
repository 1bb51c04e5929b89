#!/usr/bin/env bash
# `make example`: build each examples/*.c with enzcc and run it, then run each
# examples/python/*.py (the Python API). Each example prints the gradient enzc
# synthesized next to a finite-difference check, and exits non-zero on a mismatch;
# this script fails if any example does.
set -euo pipefail
cd "$(dirname "$0")/.."
ENZCC=.venv/bin/enzcc
OUT=build/examples
mkdir -p "$OUT"

cat <<'TXT'
enzc differentiates C at compile time: you call
    __enzyme_autodiff((void *)f, args...)
and `enzcc` (a drop-in for cc) replaces the call with a derivative of f it
synthesizes from the optimized LLVM IR. Each example below compares that gradient
with central finite differences computed from f itself.
TXT

status=0
for src in examples/*.c; do
    name=$(basename "$src" .c)
    echo
    echo "== $name: $ENZCC -O2 $src -lm -o $OUT/$name"
    if ! "$ENZCC" -O2 "$src" -lm -o "$OUT/$name"; then
        echo "   build failed"
        status=1
        continue
    fi
    if "./$OUT/$name"; then
        echo "   $name: gradient matches finite differences"
    else
        echo "   $name: FAILED"
        status=1
    fi
done

cat <<'TXT'

From Python, enzc.load compiles C with the same pipeline and gives each function
its derivatives (docs/python.md). The example below fits a damped spring's
parameters with PyTorch, through a loss written in C.
TXT
for script in examples/python/*.py; do
    echo
    echo "== $(basename "$script" .py): .venv/bin/python $script"
    if .venv/bin/python "$script"; then
        echo "   $(basename "$script" .py): gradient matches finite differences, fit converged"
    else
        echo "   $(basename "$script" .py): FAILED"
        status=1
    fi
done
echo
[ "$status" = 0 ] && echo "All examples passed." || echo "Some examples failed."
exit "$status"
