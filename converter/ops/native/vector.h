/* What the native kernels share: GCC/Clang vectors of LANES floats, as wide as the target's
   registers (wider ones, split by the compiler, starve the GEMM of registers), and the ReLU that
   keeps NaN. */
#ifndef EXTGEN_VECTOR_H
#define EXTGEN_VECTOR_H
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

/* the sum of v's lanes */
static inline float sum_v(vf v) {
    float total = 0.0f;
    for (int i = 0; i < LANES; i++) total += v[i];
    return total;
}

#endif
