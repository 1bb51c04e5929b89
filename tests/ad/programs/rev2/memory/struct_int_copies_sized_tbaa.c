// struct_int_copies.c compiled with LLVM's size-aware TBAA format
// (`-Xclang -new-struct-path-tbaa`, as Enzyme's Eigen tests build): type analysis
// must read the struct layouts from those tags as from clang's default ones, or the
// integer moves of mixed bytes cannot be typed.
// tol: rel=1e-9 abs=1e-9
// grads: 21
// flags: -Xclang -new-struct-path-tbaa
#include "struct_int_copies.c"
