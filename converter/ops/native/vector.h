/* What the native kernels share: GCC/Clang vectors of LANES floats, as wide as the target's
   registers (wider ones, split by the compiler, starve the GEMM of registers), and the ReLU that
   keeps NaN. */
#ifndef EXTGEN_VECTOR_H
#define EXTGEN_VECTOR_H
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#if defined(__AVX512F__)
#define LANES 16
#elif defined(__AVX__)
#define LANES 8
#else
#define LANES 4
#endif

typedef float vf __attribute__((vector_size(4 * LANES)));
typedef int vi __attribute__((vector_size(4 * LANES)));

static inline vf load(const float *p) { vf v; memcpy(&v, p, sizeof v); return v; }
static inline void store(float *p, vf v) { memcpy(p, &v, sizeof v); }
static inline vf splat(float s) { return (vf){0} + s; }
static inline vf pick(vi mask, vf yes, vf no) { return (vf)((mask & (vi)yes) | (~mask & (vi)no)); }

/* max(v, 0); NaN stays NaN */
static inline vf relu_v(vf v) { vf zero = {0}; return pick((v > 0.0f) | (v != v), v, zero); }
static inline float relu_s(float v) { return !(v > 0.0f) && v == v ? 0.0f : v; }

/* p[i] = v[i] for the lanes i in [lo, hi) (lo <= hi <= LANES), and nothing else written:
   one masked store where the target has them */
static inline void store_lanes(float *p, vf v, unsigned lo, unsigned hi) {
#if defined(__AVX512F__)
    _mm512_mask_storeu_ps(p, (__mmask16)(((1u << hi) - 1) & ~((1u << lo) - 1)), (__m512)v);
#elif defined(__AVX2__)
    vi lane = {0, 1, 2, 3, 4, 5, 6, 7};
    _mm256_maskstore_ps(p, (__m256i)((lane >= (int)lo) & (lane < (int)hi)), (__m256)v);
#else
    for (unsigned i = lo; i < hi; i++) p[i] = v[i];
#endif
}

/* the sum of v's lanes */
static inline float sum_v(vf v) {
    float total = 0.0f;
    for (int i = 0; i < LANES; i++) total += v[i];
    return total;
}

#endif
