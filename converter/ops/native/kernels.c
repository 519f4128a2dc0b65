/* The shim's native kernels: faster paths of built-in ops, compiled on the machine that runs
   them (converter/ops/native/__init__.py). GCC/Clang vector extensions, so any x86-64 (or other)
   target the compiler knows gets its widest registers. Each function mirrors a numpy path in
   converter/ops and is tested against it. */
#include "parallel.h"
#include "vector.h"

#include <stdatomic.h>

#define GRAIN 32768 /* output values per thread below which fewer threads split the work */

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

/* Depthwise 2-D convolution, unit dilations: out[c] (oh x ow) = the kh x kw window sums, at
   strides sh and sw, of x[c] (h x w, zero-padded by top and left, and by whatever oh and ow need
   beyond) with w[c]. Each channel goes through a padded copy whose rows are whole vectors wide;
   a row's sums are made at every column and taken at every sw-th (stored whole where sw is 1).
   Returns 0, or -1 if memory ran out. */
static int depthwise2d(const float *x, const float *w, float *out, size_t channels, size_t h,
                       size_t wd, size_t oh, size_t ow, size_t kh, size_t kw, size_t sh,
                       size_t sw, size_t top, size_t left) {
    size_t span = (ow - 1) * sw + 1, blocks = (span + LANES - 1) / LANES;
    size_t stride = blocks * LANES + kw - 1, rows = (oh - 1) * sh + kh;
    float *pad = calloc(rows * stride + LANES, sizeof(float));
    float *row = malloc(blocks * LANES * sizeof(float));
    if (!pad || !row) { free(pad); free(row); return -1; }
    size_t copy_h = top >= rows ? 0 : h < rows - top ? h : rows - top;
    size_t copy_w = left >= stride ? 0 : wd < stride - left ? wd : stride - left;
    for (size_t c = 0; c < channels; c++) {
        const float *xc = x + c * h * wd, *wc = w + c * kh * kw;
        for (size_t r = 0; r < copy_h; r++)
            memcpy(pad + (r + top) * stride + left, xc + r * wd, copy_w * sizeof(float));
        float *oc = out + c * oh * ow;
        for (size_t y = 0; y < oh; y++) {
            for (size_t b = 0; b < blocks; b++) {
                vf acc = {0};
                for (size_t i = 0; i < kh; i++) {
                    const float *src = pad + (y * sh + i) * stride + b * LANES;
                    for (size_t j = 0; j < kw; j++) acc += wc[i * kw + j] * load(src + j);
                }
                if (sw == 1 && (b + 1) * LANES <= ow) store(oc + y * ow + b * LANES, acc);
                else store(row + b * LANES, acc);
            }
            if (sw == 1) { /* whole vectors went straight to the output: the rest */
                size_t done = ow / LANES * LANES;
                memcpy(oc + y * ow + done, row + done, (ow - done) * sizeof(float));
            } else {
                for (size_t o = 0; o < ow; o++) oc[y * ow + o] = row[o * sw];
            }
        }
    }
    free(pad);
    free(row);
    return 0;
}

static inline vf pool_max_v(vf a, vf b) { return pick((a > b) | (a != a), a, b); } /* NaN wins */

/* dst[i] = reduce over k taps t of src[i + t * step], for i < n, taps in order; whole vectors,
   so dst and src hold LANES values more than they use. */
static void pool_taps(float *restrict dst, const float *restrict src, size_t n, size_t k,
                      size_t step, int is_max) {
    for (size_t i = 0; i < n; i += LANES) {
        vf acc = load(src + i);
        for (size_t t = 1; t < k; t++) {
            vf v = load(src + i + t * step);
            acc = is_max ? pool_max_v(acc, v) : acc + v;
        }
        store(dst + i, acc);
    }
}

/* 2-D max or sum pooling, unit dilations: out[p] (oh x ow) over the kh x kw windows, strides
   sh, sw, of x[p] (h x w) padded by top and left and by whatever oh and ow need beyond, with
   -inf (max) or 0 (sum). Columns of windows first, then rows, each in tap order: the sums
   pooling.py's axis-by-axis path makes, bit for bit. Returns 0, or -1 if memory ran out. */
static int pool2d(const float *x, float *out, size_t planes, size_t h, size_t w, size_t oh,
                  size_t ow, size_t kh, size_t kw, size_t sh, size_t sw, size_t top, size_t left,
                  int is_max) {
    size_t rows = (oh - 1) * sh + kh, cols = (ow - 1) * sw + kw, span = (ow - 1) * sw + 1;
    float fill = is_max ? -__builtin_inff() : 0.0f;
    float *pad = malloc((rows * cols + LANES) * sizeof(float));
    float *column = calloc(cols + LANES, sizeof(float)), *run = calloc(span + LANES, sizeof(float));
    if (!pad || !column || !run) { free(pad); free(column); free(run); return -1; }
    for (size_t i = 0; i < rows * cols + LANES; i++) pad[i] = fill;
    size_t copy_h = top >= rows ? 0 : h < rows - top ? h : rows - top;
    size_t copy_w = left >= cols ? 0 : w < cols - left ? w : cols - left;
    for (size_t p = 0; p < planes; p++) {
        const float *xp = x + p * h * w;
        for (size_t r = 0; r < copy_h; r++)
            memcpy(pad + (r + top) * cols + left, xp + r * w, copy_w * sizeof(float));
        float *op = out + p * oh * ow;
        for (size_t y = 0; y < oh; y++) {
            pool_taps(column, pad + y * sh * cols, cols, kh, cols, is_max);
            pool_taps(run, column, span, kw, 1, is_max);
            for (size_t o = 0; o < ow; o++) op[y * ow + o] = run[o * sw];
        }
    }
    free(pad);
    free(column);
    free(run);
    return 0;
}

/* Columns for a 2-D convolution, unit dilations: cols[c][i][j] (oh x ow) = x[c] (h x w) at
   (y sh + i - top, x sw + j - left), 0 outside it: kh * kw rows per channel, in the order
   convolution.py's GEMM takes them. */
static void im2col(const float *x, float *cols, size_t channels, size_t h, size_t w, size_t oh,
                   size_t ow, size_t kh, size_t kw, size_t sh, size_t sw, size_t top,
                   size_t left) {
    for (size_t c = 0; c < channels; c++) {
        const float *xc = x + c * h * w;
        for (size_t i = 0; i < kh; i++) {
            for (size_t j = 0; j < kw; j++) {
                float *dst = cols + ((c * kh + i) * kw + j) * oh * ow;
                /* output columns whose input column x sw + j - left lies in [0, w) */
                size_t lo = j >= left ? 0 : (left - j + sw - 1) / sw;
                size_t hi = w + left > j ? (w + left - j + sw - 1) / sw : 0;
                if (hi > ow) hi = ow;
                if (lo > hi) lo = hi;
                for (size_t y = 0; y < oh; y++, dst += ow) {
                    size_t iy = y * sh + i;
                    if (iy < top || iy - top >= h) {
                        memset(dst, 0, ow * sizeof(float));
                        continue;
                    }
                    const float *src = xc + (iy - top) * w + lo * sw + j - left;
                    memset(dst, 0, lo * sizeof(float));
                    if (sw == 1) {
                        memcpy(dst + lo, src, (hi - lo) * sizeof(float));
                    } else {
                        for (size_t o = lo; o < hi; o++) dst[o] = src[(o - lo) * sw];
                    }
                    memset(dst + hi, 0, (ow - hi) * sizeof(float));
                }
            }
        }
    }
}

/* How many threads to split `items` (of `work` output values in all) over. */
static size_t parts_for(size_t work, size_t items, size_t threads) {
    size_t parts = work / GRAIN;
    parts = parts < threads ? parts : threads;
    parts = parts < items ? parts : items;
    return parts ? parts : 1;
}

/* The arguments of a window kernel above, split over threads by channels (planes). */
typedef struct {
    const float *x, *w;
    float *out;
    size_t channels, h, wd, oh, ow, kh, kw, sh, sw, top, left;
    int is_max;
    atomic_int failed;
} window_job;

static void window_range(const window_job *job, size_t part, size_t parts, size_t *lo,
                         size_t *hi) {
    *lo = job->channels * part / parts, *hi = job->channels * (part + 1) / parts;
}

static void depthwise_part(void *arg, size_t part, size_t parts) {
    window_job *j = arg;
    size_t lo, hi;
    window_range(j, part, parts, &lo, &hi);
    if (depthwise2d(j->x + lo * j->h * j->wd, j->w + lo * j->kh * j->kw,
                    j->out + lo * j->oh * j->ow, hi - lo, j->h, j->wd, j->oh, j->ow, j->kh,
                    j->kw, j->sh, j->sw, j->top, j->left))
        atomic_store(&j->failed, 1);
}

static void pool_part(void *arg, size_t part, size_t parts) {
    window_job *j = arg;
    size_t lo, hi;
    window_range(j, part, parts, &lo, &hi);
    if (pool2d(j->x + lo * j->h * j->wd, j->out + lo * j->oh * j->ow, hi - lo, j->h, j->wd,
               j->oh, j->ow, j->kh, j->kw, j->sh, j->sw, j->top, j->left, j->is_max))
        atomic_store(&j->failed, 1);
}

static void im2col_part(void *arg, size_t part, size_t parts) {
    window_job *j = arg;
    size_t lo, hi;
    window_range(j, part, parts, &lo, &hi);
    im2col(j->x + lo * j->h * j->wd, j->out + lo * j->kh * j->kw * j->oh * j->ow, hi - lo, j->h,
           j->wd, j->oh, j->ow, j->kh, j->kw, j->sh, j->sw, j->top, j->left);
}

/* The window kernels above over up to `threads` threads; 0, or -1 if memory ran out. */
static int run_window(extgen_task task, window_job *job, size_t per_channel, size_t threads) {
    extgen_parallel(task, job, parts_for(job->channels * per_channel, job->channels, threads));
    return atomic_load(&job->failed) ? -1 : 0;
}

int extgen_depthwise2d(const float *x, const float *w, float *out, size_t channels, size_t h,
                       size_t wd, size_t oh, size_t ow, size_t kh, size_t kw, size_t sh,
                       size_t sw, size_t top, size_t left, size_t threads) {
    window_job job = {x, w, out, channels, h, wd, oh, ow, kh, kw, sh, sw, top, left, 0, 0};
    return run_window(depthwise_part, &job, oh * ow * kh * kw, threads);
}

int extgen_pool2d(const float *x, float *out, size_t planes, size_t h, size_t w, size_t oh,
                  size_t ow, size_t kh, size_t kw, size_t sh, size_t sw, size_t top, size_t left,
                  int is_max, size_t threads) {
    window_job job = {x, NULL, out, planes, h, w, oh, ow, kh, kw, sh, sw, top, left, is_max, 0};
    return run_window(pool_part, &job, oh * ow * kh * kw, threads);
}

void extgen_im2col(const float *x, float *cols, size_t channels, size_t h, size_t w, size_t oh,
                   size_t ow, size_t kh, size_t kw, size_t sh, size_t sw, size_t top,
                   size_t left, size_t threads) {
    window_job job = {x, NULL, cols, channels, h, w, oh, ow, kh, kw, sh, sw, top, left, 0, 0};
    run_window(im2col_part, &job, oh * ow * kh * kw, threads);
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
    extgen_parallel(gelu_part, &job, parts_for(n * 8, n, threads)); /* ~8 plain passes' work */
}

/* y[p][c][i] = x[p][c][i] * scale[c] + shift[c] over outer x channels x inner values (one
   rounding where the CPU fuses multiply-adds), then max(y, 0) if relu: a BatchNorm with the
   per-channel layers folded into it, and the ReLU after it, in one pass. y may be x. */
void extgen_affine_relu(const float *x, float *y, const float *scale, const float *shift,
                        size_t outer, size_t channels, size_t inner, int relu) {
    for (size_t p = 0; p < outer * channels; p++) {
        const float *src = x + p * inner;
        float *dst = y + p * inner, s = scale[p % channels], b = shift[p % channels];
        size_t i = 0;
        for (; i + LANES <= inner; i += LANES) {
            vf v = load(src + i) * s + b;
            store(dst + i, relu ? relu_v(v) : v);
        }
        for (; i < inner; i++) dst[i] = relu ? relu_s(src[i] * s + b) : src[i] * s + b;
    }
}

/* y[p][c][i] += bias[c] over outer x channels x inner values, then max(y, 0) if relu (NaN
   stays NaN): a convolution's folded bias and its ReLU in one pass. */
void extgen_bias_relu(float *y, const float *bias, size_t outer, size_t channels, size_t inner,
                      int relu) {
    for (size_t p = 0; p < outer * channels; p++) {
        float *row = y + p * inner, b = bias[p % channels];
        size_t i = 0;
        for (; i + LANES <= inner; i += LANES) {
            vf v = load(row + i) + b;
            store(row + i, relu ? relu_v(v) : v);
        }
        for (; i < inner; i++) row[i] = relu ? relu_s(row[i] + b) : row[i] + b;
    }
}

/* y = a + b over n values, then max(y, 0) if relu: a residual Add and its ReLU in one pass. */
void extgen_add_relu(const float *a, const float *b, float *y, size_t n, int relu) {
    size_t i = 0;
    for (; i + LANES <= n; i += LANES) {
        vf v = load(a + i) + load(b + i);
        store(y + i, relu ? relu_v(v) : v);
    }
    for (; i < n; i++) y[i] = relu ? relu_s(a[i] + b[i]) : a[i] + b[i];
}

static inline float sum_v(vf v) {
    float total = 0.0f;
    for (int i = 0; i < LANES; i++) total += v[i];
    return total;
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

/* Data x [blocks][channels][h][w] into padded [blocks][stride] (stride >= channels * rows *
   width): each channel as rows x width with x at (top, left), zeros around it and after the
   channels: a convolution's input for extgen_gemm_shifted. */
void extgen_pad_channels(const float *x, float *padded, size_t blocks, size_t channels, size_t h,
                         size_t w, size_t rows, size_t width, size_t top, size_t left,
                         size_t stride) {
    size_t copy_h = top >= rows ? 0 : h < rows - top ? h : rows - top;
    size_t copy_w = left >= width ? 0 : w < width - left ? w : width - left;
    for (size_t b = 0; b < blocks; b++) {
        float *block = padded + b * stride;
        for (size_t c = 0; c < channels; c++) {
            const float *xc = x + (b * channels + c) * h * w;
            float *pc = block + c * rows * width;
            memset(pc, 0, top * width * sizeof(float));
            for (size_t r = 0; r < copy_h; r++) {
                float *row = pc + (top + r) * width;
                memset(row, 0, left * sizeof(float));
                memcpy(row + left, xc + r * w, copy_w * sizeof(float));
                memset(row + left + copy_w, 0, (width - left - copy_w) * sizeof(float));
            }
            memset(pc + (top + copy_h) * width, 0, (rows - top - copy_h) * width * sizeof(float));
        }
        memset(block + channels * rows * width, 0,
               (stride - channels * rows * width) * sizeof(float));
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
    extgen_parallel(row_sums_part, &job, parts_for(rows * n, rows, threads));
}
