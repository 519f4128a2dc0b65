/* What the native kernels share: GCC/Clang vectors of LANES floats (the compiler splits them
   where the target's registers are narrower) and the ReLU that keeps NaN. */
#ifndef EXTGEN_VECTOR_H
#define EXTGEN_VECTOR_H
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define LANES 16
typedef float vf __attribute__((vector_size(4 * LANES)));
typedef int vi __attribute__((vector_size(4 * LANES)));

static inline vf load(const float *p) { vf v; memcpy(&v, p, sizeof v); return v; }
static inline void store(float *p, vf v) { memcpy(p, &v, sizeof v); }
static inline vf splat(float s) { return (vf){0} + s; }
static inline vf pick(vi mask, vf yes, vf no) { return (vf)((mask & (vi)yes) | (~mask & (vi)no)); }

/* max(v, 0); NaN stays NaN */
static inline vf relu_v(vf v) { vf zero = {0}; return pick((v > 0.0f) | (v != v), v, zero); }
static inline float relu_s(float v) { return !(v > 0.0f) && v == v ? 0.0f : v; }

#endif
