/* Clang/GCC vector extensions: vector_size and ext_vector_type, element access,
   swizzles, __builtin_shufflevector, __builtin_convertvector, vector compares and
   selects, reductions; these become IR vector types, shufflevector,
   insertelement/extractelement and vector.reduce intrinsics. */
#include <stdio.h>

typedef float v4f __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));
typedef short v8s __attribute__((vector_size(16)));
typedef unsigned char v16u8 __attribute__((vector_size(16)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef float float2 __attribute__((ext_vector_type(2)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef _Bool bool8 __attribute__((ext_vector_type(8)));

static v4f axpy(float a, v4f x, v4f y) { return a * x + y; }

static v4f reverse(v4f v) { return __builtin_shufflevector(v, v, 3, 2, 1, 0); }

static v4f interleave_lo(v4f a, v4f b) { return __builtin_shufflevector(a, b, 0, 4, 1, 5); }

static v4i to_int(v4f v) { return __builtin_convertvector(v, v4i); }

static v4i clamp(v4i v, int lo, int hi) {
    v4i l = { lo, lo, lo, lo }, h = { hi, hi, hi, hi };
    v4i below = v < l;
    v = (below & l) | (~below & v);
    v4i above = v > h;
    return (above & h) | (~above & v);
}

static float dot4(float4 a, float4 b) {
    float4 p = a * b;
    return p.x + p.y + p.z + p.w;
}

static float4 cross_ish(float4 a, float4 b) { return a.yzxw * b.zxyw - a.zxyw * b.yzxw; }

static float2 lo_half(float4 v) { return v.xy; }

static int hsum_bytes(v16u8 v) {
    int s = 0;
    for (int i = 0; i < 16; i++)
        s += v[i];
    return s;
}

static v8s saturating_ish(v8s a, v8s b) { return (a + b) >> 1; }

static int reduce_max(int4 v) { return __builtin_reduce_max(v); }

static int count_true(bool8 m) {
    int n = 0;
    for (int i = 0; i < 8; i++)
        n += m[i];
    return n;
}

int main(int argc, char **argv) {
    (void)argv;
    v4f x = { 1, 2, 3, 4 }, y = { 0.5f, 0.5f, 0.5f, (float)argc };
    v4f z = axpy(2.0f, x, y);
    v4f r = reverse(z);
    v4f il = interleave_lo(x, r);
    v4i iv = clamp(to_int(il), 1, 5);
    float4 a = { 1, 0, 0, 0 }, b = { 0, 1, 0, (float)argc };
    float4 c = cross_ish(a, b);
    float2 h = lo_half(c);
    v16u8 bytes = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, (unsigned char)argc };
    v8s s = saturating_ish((v8s){ 1, 2, 3, 4, 5, 6, 7, 8 }, (v8s){ 8, 7, 6, 5, 4, 3, 2, 1 });
    v2d d = { 1.5, 2.5 };
    d = d * d;
    int4 i4 = { 3, 9, argc, 4 };
    bool8 m = { 1, 0, 1, 1, 0, 0, 1, argc > 1 };
    printf("%g %d %g %g %g %d %d %g %d %d\n", r[0], iv[2], dot4(a, b), c.z, h.y, hsum_bytes(bytes),
           s[3], d[1], reduce_max(i4), count_true(m));
    return 0;
}
