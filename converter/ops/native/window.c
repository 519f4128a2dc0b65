/* The shim's window kernels: depthwise convolution, pooling, a convolution's columns and its
   padded rows, each a faster path of a built-in op in converter/ops/nn, split over the native
   pool's threads by channels. Each mirrors a numpy path and is tested against it. */
#include "parallel.h"
#include "vector.h"

#include <stdatomic.h>

/* Output rows [y, y + R) of one channel of depthwise2d: R rows of sums at a time, so that R
   chains of multiply-adds run side by side; each row's sums made at every column of the padded
   copy `pad` and taken at every sw-th (stored straight to the output where sw is 1). */
static inline __attribute__((always_inline)) void depthwise_rows(
    float *oc, const float *pad, const float *wc, const float *bias, int relu, float *row, size_t y,
    int R, size_t ow, size_t blocks, size_t stride, size_t kh, size_t kw, size_t sh, size_t sw) {
    for (size_t b = 0; b < blocks; b++) {
        vf acc[4] = {{0}};
        for (size_t i = 0; i < kh; i++)
            for (size_t j = 0; j < kw; j++) {
                vf weight = splat(wc[i * kw + j]);
                const float *src = pad + (y * sh + i) * stride + b * LANES + j;
                for (int r = 0; r < R; r++) acc[r] += weight * load(src + r * sh * stride);
            }
        for (int r = 0; r < R; r++) {
            float *dst = oc + (y + r) * ow + b * LANES;
            if (bias) acc[r] += *bias;
            if (relu) acc[r] = relu_v(acc[r]);
            if (sw != 1) store(row + r * blocks * LANES + b * LANES, acc[r]);
            else if ((b + 1) * LANES <= ow) store(dst, acc[r]);
            else store_lanes(dst, acc[r], 0, (unsigned)(ow - b * LANES));
        }
    }
    for (int r = 0; sw != 1 && r < R; r++)
        for (size_t o = 0; o < ow; o++) oc[(y + r) * ow + o] = row[r * blocks * LANES + o * sw];
}

/* Depthwise 2-D convolution, unit dilations: out[c] (oh x ow) = the kh x kw window sums, at
   strides sh and sw, of x[c] (h x w, zero-padded by top and left, and by whatever oh and ow need
   beyond) with w[c], + bias[c] (if bias), then max(., 0) if relu. Each channel goes through a
   padded copy whose rows are whole vectors wide (depthwise_rows). Returns 0, or -1 if memory
   ran out. */
static int depthwise2d(const float *x, const float *w, const float *bias, int relu, float *out,
                       size_t channels, size_t h, size_t wd, size_t oh, size_t ow, size_t kh,
                       size_t kw, size_t sh, size_t sw, size_t top, size_t left) {
    size_t span = (ow - 1) * sw + 1, blocks = (span + LANES - 1) / LANES;
    size_t stride = blocks * LANES + kw - 1, rows = (oh - 1) * sh + kh;
    float *pad = calloc(rows * stride + LANES, sizeof(float));
    float *row = malloc(4 * blocks * LANES * sizeof(float));
    if (!pad || !row) { free(pad); free(row); return -1; }
    size_t copy_h = top >= rows ? 0 : h < rows - top ? h : rows - top;
    size_t copy_w = left >= stride ? 0 : wd < stride - left ? wd : stride - left;
    for (size_t c = 0; c < channels; c++) {
        const float *xc = x + c * h * wd, *wc = w + c * kh * kw;
        for (size_t r = 0; r < copy_h; r++)
            memcpy(pad + (r + top) * stride + left, xc + r * wd, copy_w * sizeof(float));
        float *oc = out + c * oh * ow;
        const float *shift = bias ? bias + c : NULL;
        size_t y = 0;
        for (; y + 4 <= oh; y += 4)
            depthwise_rows(oc, pad, wc, shift, relu, row, y, 4, ow, blocks, stride, kh, kw, sh, sw);
        for (; y < oh; y++)
            depthwise_rows(oc, pad, wc, shift, relu, row, y, 1, ow, blocks, stride, kh, kw, sh, sw);
    }
    free(pad);
    free(row);
    return 0;
}

/* max(a, b), NaN in a first, then in b, winning: one max and one blend where the target has
   them (x86's max takes b when either is NaN) */
static inline vf pool_max_v(vf a, vf b) {
#if defined(__AVX512F__)
    __m512 x = (__m512)a;
    return (vf)_mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q),
                                    _mm512_max_ps(x, (__m512)b), x);
#elif defined(__AVX2__)
    __m256 x = (__m256)a;
    return (vf)_mm256_blendv_ps(_mm256_max_ps(x, (__m256)b), x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
#else
    return pick((a > b) | (a != a), a, b);
#endif
}

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

/* even[i], odd[i] = src[2 i], src[2 i + 1] for i < LANES */
#if defined(__clang__) || __GNUC__ >= 12
#if LANES == 16
#define EVENS 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define ODDS 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#elif LANES == 8
#define EVENS 0, 2, 4, 6, 8, 10, 12, 14
#define ODDS 1, 3, 5, 7, 9, 11, 13, 15
#else
#define EVENS 0, 2, 4, 6
#define ODDS 1, 3, 5, 7
#endif
static inline void split_pairs(const float *src, float *even, float *odd) {
    vf a = load(src), b = load(src + LANES);
    store(even, __builtin_shufflevector(a, b, EVENS));
    store(odd, __builtin_shufflevector(a, b, ODDS));
}
#else
static inline void split_pairs(const float *src, float *even, float *odd) {
    for (int i = 0; i < LANES; i++) even[i] = src[2 * i], odd[i] = src[2 * i + 1];
}
#endif

/* out[o] (o < ow) = reduce over the k taps t, in order, of src[o + t] (phases 1) or of
   src[o + t / 2], from the odd values `gap` on for odd t (phases 2), a vector at a time. Whole
   vectors are stored past ow while within `room` (the next rows, made later, overwrite them).
   Inlined where k and phases are constants, for the loop over the taps to unroll. */
static inline __attribute__((always_inline)) void reduce_taps(
    float *out, size_t ow, size_t room, const float *src, size_t k, size_t phases, size_t gap,
    int is_max) {
    for (size_t o = 0; o < ow; o += LANES) {
        vf acc = load(src + o);
        for (size_t t = 1; t < k; t++) {
            vf v = load(src + o + (phases == 2 ? (t & 1) * gap + (t >> 1) : t));
            acc = is_max ? pool_max_v(acc, v) : acc + v;
        }
        if (o + LANES <= room) {
            store(out + o, acc);
        } else {
            float last[LANES];
            store(last, acc);
            memcpy(out + o, last, (ow - o) * sizeof(float));
        }
    }
}

/* column[c] (c < n, n >= LANES) = the max over the k rows of x (w wide) at c */
static inline __attribute__((always_inline)) void max_rows_of(float *column, const float *x,
                                                              size_t w, size_t n, size_t k) {
    size_t c = 0;
    for (; c + 2 * LANES <= n; c += 2 * LANES) { /* two chains at a time */
        const float *at = x + c;
        vf lo = load(at), hi = load(at + LANES);
        for (size_t r = 1; r < k; r++)
            at += w, lo = pool_max_v(lo, load(at)), hi = pool_max_v(hi, load(at + LANES));
        store(column + c, lo), store(column + c + LANES, hi);
    }
    for (; c < n; c += LANES) {
        if (c + LANES > n) c = n - LANES; /* the last vector overlaps the one before */
        vf acc = load(x + c);
        for (size_t r = 1; r < k; r++) acc = pool_max_v(acc, load(x + r * w + c));
        store(column + c, acc);
    }
}

/* max_rows_of, unrolled for the common window heights */
static void max_rows(float *column, const float *x, size_t w, size_t n, size_t k) {
    if (k == 3) max_rows_of(column, x, w, n, 3);
    else if (k == 2) max_rows_of(column, x, w, n, 2);
    else max_rows_of(column, x, w, n, k);
}

/* Each of the plane's oh rows of column maxima or sums (`stride` apart, read back whole once
   all are made: a vector read straight after the stores that made it would wait for them) pooled
   along the row into out (oh x ow), split into even and odd values first where sw is 2. */
static inline __attribute__((always_inline)) void pool_rows_of(
    float *out, const float *sums, size_t stride, size_t oh, size_t ow, size_t kw, size_t sw,
    size_t cols, float *scratch, int is_max) {
    size_t half = stride / 2, gap = oh * half + kw + LANES;
    if (sw == 2) {
        for (size_t y = 0; y < oh; y++)
            for (size_t i = 0; i < cols; i += 2 * LANES)
                split_pairs(sums + y * stride + i, scratch + y * half + i / 2,
                            scratch + gap + y * half + i / 2);
    }
    for (size_t y = 0; y < oh; y++) {
        float *row = out + y * ow;
        if (sw <= 2) {
            reduce_taps(row, ow, (oh - y) * ow, sw == 2 ? scratch + y * half : sums + y * stride,
                        kw, sw, gap, is_max);
        } else {
            size_t span = (ow - 1) * sw + 1;
            reduce_taps(scratch, span, span + LANES, sums + y * stride, kw, 1, 0, is_max);
            for (size_t o = 0; o < ow; o++) row[o] = scratch[o * sw];
        }
    }
}

/* pool_rows_of, unrolled for the common window widths and strides */
static void pool_rows(float *out, const float *sums, size_t stride, size_t oh, size_t ow,
                      size_t kw, size_t sw, size_t cols, float *scratch, int is_max) {
    if (kw == 3 && sw == 2) pool_rows_of(out, sums, stride, oh, ow, 3, 2, cols, scratch, is_max);
    else if (kw == 3 && sw == 1)
        pool_rows_of(out, sums, stride, oh, ow, 3, 1, cols, scratch, is_max);
    else if (kw == 2 && sw == 2)
        pool_rows_of(out, sums, stride, oh, ow, 2, 2, cols, scratch, is_max);
    else pool_rows_of(out, sums, stride, oh, ow, kw, sw, cols, scratch, is_max);
}

/* 2-D max or sum pooling, unit dilations: out[p] (oh x ow) over the kh x kw windows, strides
   sh, sw, of x[p] (h x w) padded by top and left and by whatever oh and ow need beyond, with
   -inf (max) or 0 (sum). Columns of windows first, then rows, each in tap order: the sums
   pooling.py's axis-by-axis path makes, bit for bit. A max over rows at least a vector wide
   reads x in place, skipping padded rows (no max changes for -inf); else the plane goes
   through a padded copy. Returns 0, or -1 if memory ran out. */
static int pool2d(const float *x, float *out, size_t planes, size_t h, size_t w, size_t oh,
                  size_t ow, size_t kh, size_t kw, size_t sh, size_t sw, size_t top, size_t left,
                  int is_max) {
    size_t rows = (oh - 1) * sh + kh, cols = (ow - 1) * sw + kw;
    size_t copy_h = top >= rows ? 0 : h < rows - top ? h : rows - top;
    size_t copy_w = left >= cols ? 0 : w < cols - left ? w : cols - left;
    size_t stride = (cols + 3 * LANES) / LANES * LANES; /* a row of sums and 2 LANES after */
    int in_place = is_max && copy_w >= LANES;
    float fill = is_max ? -__builtin_inff() : 0.0f;
    float *pad = in_place ? NULL : malloc((rows * cols + LANES) * sizeof(float));
    float *sums = malloc(oh * stride * sizeof(float));
    float *scratch = calloc(oh * stride + 2 * (kw + LANES) + cols, sizeof(float));
    if ((!in_place && !pad) || !sums || !scratch) {
        free(pad), free(sums), free(scratch);
        return -1;
    }
    for (size_t i = 0; i < oh * stride; i++) sums[i] = fill; /* rows wholly in the padding stay */
    for (size_t i = 0; !in_place && i < rows * cols + LANES; i++) pad[i] = fill;
    for (size_t p = 0; p < planes; p++) {
        const float *xp = x + p * h * w;
        for (size_t r = 0; !in_place && r < copy_h; r++)
            memcpy(pad + (r + top) * cols + left, xp + r * w, copy_w * sizeof(float));
        for (size_t y = 0; y < oh; y++) {
            size_t r0 = y * sh > top ? y * sh - top : 0, r1 = y * sh + kh - top;
            r1 = y * sh + kh <= top ? 0 : r1 < copy_h ? r1 : copy_h;
            if (!in_place)
                pool_taps(sums + y * stride, pad + y * sh * cols, cols, kh, cols, is_max);
            else if (r0 < r1)
                max_rows(sums + y * stride + left, xp + r0 * w, w, copy_w, r1 - r0);
        }
        pool_rows(out + p * oh * ow, sums, stride, oh, ow, kw, sw, cols, scratch, is_max);
    }
    free(pad), free(sums), free(scratch);
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

/* The arguments of a window kernel above, split over threads by channels (planes). */
typedef struct {
    const float *x, *w, *bias; /* w and bias: depthwise only */
    float *out;
    size_t channels, h, wd, oh, ow, kh, kw, sh, sw, top, left;
    int is_max, relu;
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
                    j->bias ? j->bias + lo : NULL, j->relu, j->out + lo * j->oh * j->ow,
                    hi - lo, j->h, j->wd, j->oh, j->ow, j->kh, j->kw, j->sh, j->sw, j->top,
                    j->left))
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
    size_t parts = parts_for(job->channels * per_channel, job->channels, threads);
    extgen_parallel(task, job, parts, threads);
    return atomic_load(&job->failed) ? -1 : 0;
}

/* extgen's depthwise2d, + bias[c] (if bias) and then max(., 0) if relu, per channel */
int extgen_depthwise2d(const float *x, const float *w, const float *bias, int relu, float *out,
                       size_t channels, size_t h, size_t wd, size_t oh, size_t ow, size_t kh,
                       size_t kw, size_t sh, size_t sw, size_t top, size_t left, size_t threads) {
    window_job job = {x, w, bias, out, channels, h, wd, oh, ow, kh, kw, sh, sw, top, left, 0,
                      relu, 0};
    return run_window(depthwise_part, &job, oh * ow * kh * kw, threads);
}

int extgen_pool2d(const float *x, float *out, size_t planes, size_t h, size_t w, size_t oh,
                  size_t ow, size_t kh, size_t kw, size_t sh, size_t sw, size_t top, size_t left,
                  int is_max, size_t threads) {
    window_job job = {x, NULL, NULL, out, planes, h, w, oh, ow, kh, kw, sh, sw, top, left, is_max,
                      0, 0};
    return run_window(pool_part, &job, oh * ow * kh * kw, threads);
}

void extgen_im2col(const float *x, float *cols, size_t channels, size_t h, size_t w, size_t oh,
                   size_t ow, size_t kh, size_t kw, size_t sh, size_t sw, size_t top,
                   size_t left, size_t threads) {
    window_job job = {x, NULL, NULL, cols, channels, h, w, oh, ow, kh, kw, sh, sw, top, left, 0,
                      0, 0};
    run_window(im2col_part, &job, oh * ow * kh * kw, threads);
}

/* One phase (a, b) of channel xc (h x w) as rows x width: row r, column q holding
   xc[r sh + a - top][q sw + b - left], zero outside it. */
static void pad_phase(const float *xc, float *out, long h, long w, long rows, long width,
                      long top, long left, long sh, long sw, long a, long b) {
    long lo = left > b ? (left - b + sw - 1) / sw : 0; /* first column inside */
    long hi = w + left > b ? (w + left - b + sw - 1) / sw : 0; /* past the last */
    hi = hi < width ? hi : width;
    lo = lo < hi ? lo : hi;
    for (long r = 0; r < rows; r++, out += width) {
        long iy = r * sh + a - top;
        if (iy < 0 || iy >= h) {
            memset(out, 0, width * sizeof(float));
            continue;
        }
        const float *src = xc + iy * w + lo * sw + b - left;
        memset(out, 0, lo * sizeof(float));
        if (sw == 1) memcpy(out + lo, src, (hi - lo) * sizeof(float));
        else for (long q = lo; q < hi; q++) out[q] = src[(q - lo) * sw];
        memset(out + hi, 0, (width - hi) * sizeof(float));
    }
}

typedef struct {
    const float *x;
    float *padded;
    size_t blocks, channels, h, w, rows, width, top, left, sh, sw, stride;
} pad_job;

/* Units (block, phase, channel) in order, a run of them per part; a block's tail after its
   last unit. */
static void pad_part(void *arg, size_t part, size_t parts) {
    const pad_job *j = arg;
    size_t phases = j->sh * j->sw, per_block = phases * j->channels, units = j->blocks * per_block;
    size_t plane = j->rows * j->width;
    for (size_t u = units * part / parts; u < units * (part + 1) / parts; u++) {
        size_t blk = u / per_block, phase = u % per_block / j->channels, c = u % j->channels;
        float *block = j->padded + blk * j->stride;
        pad_phase(j->x + (blk * j->channels + c) * j->h * j->w,
                  block + (phase * j->channels + c) * plane, j->h, j->w, j->rows, j->width,
                  j->top, j->left, j->sh, j->sw, phase / j->sw, phase % j->sw);
        if (u % per_block == per_block - 1)
            memset(block + per_block * plane, 0, (j->stride - per_block * plane) * sizeof(float));
    }
}

/* Data x [blocks][channels][h][w] into padded [blocks][stride] (stride >= sh sw channels rows
   width): for each phase (a, b) of the strides, a < sh, b < sw, each channel as rows x width
   holding x[c][r sh + a - top][q sw + b - left] (zero outside x), zeros after the phases: a
   convolution's input for extgen_gemm_shifted, where kernel position (i, j) reads phase
   (i % sh, j % sw) shifted by i / sh rows and j / sw columns. Over up to `threads` threads. */
void extgen_pad_channels(const float *x, float *padded, size_t blocks, size_t channels, size_t h,
                         size_t w, size_t rows, size_t width, size_t top, size_t left, size_t sh,
                         size_t sw, size_t stride, size_t threads) {
    pad_job job = {x, padded, blocks, channels, h, w, rows, width, top, left, sh, sw, stride};
    size_t units = blocks * sh * sw * channels;
    extgen_parallel(pad_part, &job, parts_for(units * rows * width, units, threads), threads);
}
