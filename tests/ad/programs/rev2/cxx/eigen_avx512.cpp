// Eigen built for AVX-512 (-march=native on a server): 64-byte aligned heap blocks,
// `<8 x double>` packets, and values of 64-byte alignment kept on the tape of a
// derivative (its block is 16-byte aligned: the tape's fields now start at the first
// 64-byte aligned address in it, `synth/split_mode.py`; cache entries are read and
// written with the 16 bytes the blocks guarantee, `synth/cache.py`). It crashed with
// a misaligned `vmovaps` in an augmented matrix-vector product.
// Reference: central finite differences (the body: eigen_simd_body.hpp).
// tol: rel=1e-6 abs=1e-8
// grads: 16
// flags: -I/usr/include/eigen3 -mavx512f -mavx512dq -mavx512vl -mavx512bw -mfma -mavx2
// cpu: avx avx2 fma avx512f avx512dq avx512vl avx512bw
#include "eigen_simd_body.hpp"
