// Eigen built for AVX2 with FMA (what -march=native gives on most x86 machines):
// its heap blocks are 32-byte aligned by integer arithmetic on malloc's address,
// its products multiply-add through `vfmadd231pd` inline asm, and its reductions
// use `llvm.x86.avx.hadd.pd.256`; each was a compile-time error
// (`analysis/integer_addresses.py`, `synth/known_asm.py`, `synth/x86_intrinsics.py`).
// Reference: central finite differences (the body: eigen_simd_body.hpp).
// tol: rel=1e-6 abs=1e-8
// grads: 16
// flags: -I/usr/include/eigen3 -mavx2 -mfma
// cpu: avx avx2 fma
#include "eigen_simd_body.hpp"
