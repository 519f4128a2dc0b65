/* The shim's elementwise and row kernels: the erf Gelu, the fused tails that end in a ReLU,
   LayerNorm and row sums, faster paths of built-in ops compiled on the machine that runs them
   (converter/ops/native/__init__.py). Each mirrors a numpy path in converter/ops and is tested
   against it. The window kernels are in window.c, the GEMM in gemm.c. */
#include "parallel.h"
#include "vector.h"

/* e^q, float32: q = n ln2 + r with |r| <= ln2/2, e^r by its Taylor series to r^7 (truncation
   below 1e-8 relative), 2^n through the exponent bits, in two steps where 2^n is subnormal
   (rounded once, at the end). 0 below -104, NaN stays NaN. */
static inline vf exp_v(vf q) {
    const float shifter = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    vi nan = q != q, zero = q < -104.0f;
    q = pick(zero, splat(-104.0f), q);
    q = pick(q > 88.0f, splat(88.0f), q);
    vf t = q * 1.44269504f + shifter;
    vf n = t - shifter;
    vf r = q - n * 0.693359375f + n * 2.12194440e-4f;
    vf p = splat(1.0f / 5040);
    p = p * r + 1.0f / 720; p = p * r + 1.0f / 120; p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6; p = p * r + 0.5f; p = p * r + 1.0f; p = p * r + 1.0f;
    vi tiny = n < -120.0f, lift = tiny & 64;
    vi bits = ((vi)t - 0x4B400000 + 127 + lift) << 23;
    vf e = p * (vf)bits;
    e = pick(tiny, e * 5.42101086e-20f, e); /* 2^-64 */
    e = pick(zero, splat(0.0f), e);
    return pick(nan, q, e);
}

/* Polynomial of special.py's _GELU_TAIL_POLY, highest power first. */
static const float TAIL[9] = {0.031854976f, -0.114638396f, 0.11839442f, -0.0392869078f,
                              0.0830917209f, 0.0171143282f, -0.229446575f, -0.795783639f,
                              8.3889006e-08f};

static inline vf gelu_v(vf x) {
    vf a = pick(x < 0.0f, -x, x), c = a * 0.5f;
    vf v = 1.0f / (0.8f + 1.0f / c);
    vf q = splat(TAIL[0]);
    for (int k = 1; k < 9; k++) q = q * v + TAIL[k];
    q -= a * c;
    return (x * 0.5f + c) - v * exp_v(q);
}

/* special._gelu_block over n values: x Phi(x) = max(x, 0) - a Phi(-a), a = |x|. out may be x. */
static void gelu(const float *x, float *out, size_t n) {
    size_t i = 0;
    for (; i + LANES <= n; i += LANES) store(out + i, gelu_v(load(x + i)));
    if (i < n) {
        float tail[LANES] = {0};
        memcpy(tail, x + i, (n - i) * sizeof(float));
        store(tail, gelu_v(load(tail)));
        memcpy(out + i, tail, (n - i) * sizeof(float));
    }
}

typedef struct {
    const float *x;
    float *out;
    size_t n;
} gelu_job;

static void gelu_part(void *arg, size_t part, size_t parts) {
    const gelu_job *j = arg;
    size_t vectors = (j->n + LANES - 1) / LANES;
    size_t lo = vectors * part / parts * LANES, hi = vectors * (part + 1) / parts * LANES;
    hi = hi < j->n ? hi : j->n;
    if (lo < hi) gelu(j->x + lo, j->out + lo, hi - lo);
}

/* gelu over up to `threads` threads. */
void extgen_gelu(const float *x, float *out, size_t n, size_t threads) {
    gelu_job job = {x, out, n};
    /* ~8 plain passes' work */
    extgen_parallel(gelu_part, &job, parts_for(n * 8, n, threads), threads);
}

typedef struct {
    const float *x, *a, *b; /* x: affine_relu's and bias_relu's data; a, b: add_relu's */
    float *y;
    const float *scale, *shift; /* per channel; scale NULL for bias_relu */
    size_t rows, channels, inner; /* rows of inner values (add_relu: one row of `inner`) */
    int relu;
} tail_job;

/* affine_relu or bias_relu over rows [part share) of the job */
static void channel_tail_part(void *arg, size_t part, size_t parts) {
    const tail_job *j = arg;
    for (size_t p = j->rows * part / parts; p < j->rows * (part + 1) / parts; p++) {
        const float *src = j->x + p * j->inner;
        float *dst = j->y + p * j->inner, b = j->shift[p % j->channels];
        float s = j->scale ? j->scale[p % j->channels] : 1.0f;
        size_t i = 0;
        for (; i + LANES <= j->inner; i += LANES) {
            vf v = j->scale ? load(src + i) * s + b : load(src + i) + b;
            store(dst + i, j->relu ? relu_v(v) : v);
        }
        for (; i < j->inner; i++) {
            float v = j->scale ? src[i] * s + b : src[i] + b;
            dst[i] = j->relu ? relu_s(v) : v;
        }
    }
}

/* y[p][c][i] = x[p][c][i] * scale[c] + shift[c] over outer x channels x inner values (one
   rounding where the CPU fuses multiply-adds), then max(y, 0) if relu: a BatchNorm with the
   per-channel layers folded into it, and the ReLU after it, in one pass. y may be x. */
void extgen_affine_relu(const float *x, float *y, const float *scale, const float *shift,
                        size_t outer, size_t channels, size_t inner, int relu, size_t threads) {
    tail_job job = {x, NULL, NULL, y, scale, shift, outer * channels, channels, inner, relu};
    size_t parts = parts_for(job.rows * inner, job.rows, threads);
    extgen_parallel(channel_tail_part, &job, parts, threads);
}

/* y[p][c][i] += bias[c] over outer x channels x inner values, then max(y, 0) if relu (NaN
   stays NaN): a convolution's folded bias and its ReLU in one pass. */
void extgen_bias_relu(float *y, const float *bias, size_t outer, size_t channels, size_t inner,
                      int relu, size_t threads) {
    tail_job job = {y, NULL, NULL, y, NULL, bias, outer * channels, channels, inner, relu};
    size_t parts = parts_for(job.rows * inner, job.rows, threads);
    extgen_parallel(channel_tail_part, &job, parts, threads);
}

/* add_relu over the values [part share) of the job, split on whole vectors */
static void add_part(void *arg, size_t part, size_t parts) {
    const tail_job *j = arg;
    size_t vectors = (j->inner + LANES - 1) / LANES;
    size_t i = vectors * part / parts * LANES, end = vectors * (part + 1) / parts * LANES;
    end = end < j->inner ? end : j->inner;
    for (; i + LANES <= end; i += LANES) {
        vf v = load(j->a + i) + load(j->b + i);
        store(j->y + i, j->relu ? relu_v(v) : v);
    }
    for (; i < end; i++) j->y[i] = j->relu ? relu_s(j->a[i] + j->b[i]) : j->a[i] + j->b[i];
}

/* y = a + b over n values, then max(y, 0) if relu: a residual Add and its ReLU in one pass. */
void extgen_add_relu(const float *a, const float *b, float *y, size_t n, int relu,
                     size_t threads) {
    tail_job job = {NULL, a, b, y, NULL, NULL, 1, 1, n, relu};
    size_t vectors = (n + LANES - 1) / LANES;
    extgen_parallel(add_part, &job, parts_for(n, vectors ? vectors : 1, threads), threads);
}

/* MVN over the last axis of rows x n values (a LayerNorm without its scale and shift), two
   passes as normalization.py's mvn: y = (x - mean) / sqrt(var + eps) if inside, else
   / (sqrt(var) + eps). y may be x. */
void extgen_layer_norm(const float *x, float *y, size_t rows, size_t n, float eps, int inside) {
    size_t body = n - n % LANES;
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        float *yr = y + r * n;
        vf acc = {0};
        float tail = 0.0f;
        for (size_t i = 0; i < body; i += LANES) acc += load(xr + i);
        for (size_t i = body; i < n; i++) tail += xr[i];
        float mean = (sum_v(acc) + tail) / (float)n;
        vf sq = {0};
        tail = 0.0f;
        for (size_t i = 0; i < body; i += LANES) {
            vf d = load(xr + i) - mean;
            sq += d * d;
        }
        for (size_t i = body; i < n; i++) tail += (xr[i] - mean) * (xr[i] - mean);
        float var = (sum_v(sq) + tail) / (float)n;
        float denominator = inside ? __builtin_sqrtf(var + eps) : __builtin_sqrtf(var) + eps;
        for (size_t i = 0; i < body; i += LANES) store(yr + i, (load(xr + i) - mean) / denominator);
        for (size_t i = body; i < n; i++) yr[i] = (xr[i] - mean) / denominator;
    }
}

typedef struct {
    const float *x;
    float *out;
    size_t rows, n;
    float divisor;
} rows_job;

static void row_sums_part(void *arg, size_t part, size_t parts) {
    const rows_job *j = arg;
    size_t body = j->n - j->n % LANES;
    for (size_t r = j->rows * part / parts; r < j->rows * (part + 1) / parts; r++) {
        const float *xr = j->x + r * j->n;
        vf acc = {0};
        float tail = 0.0f;
        for (size_t i = 0; i < body; i += LANES) acc += load(xr + i);
        for (size_t i = body; i < j->n; i++) tail += xr[i];
        j->out[r] = (sum_v(acc) + tail) / j->divisor;
    }
}

/* out[r] = the sum of row r of x (rows x n) / divisor, over up to `threads` threads: ReduceSum
   and ReduceMean over trailing axes, as global average pooling ends a CNN. */
void extgen_row_sums(const float *x, float *out, size_t rows, size_t n, float divisor,
                     size_t threads) {
    rows_job job = {x, out, rows, n, divisor};
    extgen_parallel(row_sums_part, &job, parts_for(rows * n, rows, threads), threads);
}
