/* Single-precision GEMM for the shim's convolutions and MatMuls: c (m x n) = a (m x k) b (k x n),
   plus a bias per row or per column and a ReLU in the same pass. a goes in panels of MR rows,
   b in panels of NR columns; each MR x NR tile of c sums in registers. A convolution's filters
   (a) are packed once, at plan time; its data (b) is read where it lies, a panel of columns
   over the whole k at a time, or, with more than DIRECT_ROWS rows of filters to reuse it, packed
   per block of KC rows and NC columns, which stays in cache while every panel of a passes over
   it. A MatMul's weights (b) are packed whole at plan time, its data (a) read where it lies.
   The work is split over threads by panels of columns (or of rows, where those are more). */
#include "parallel.h"
#include "vector.h"

#if defined(__AVX512F__)
#define MR 8 /* 16 of the 32 registers hold a tile's sums */
#else
#define MR 6 /* 12 of 16 */
#endif
#define NR (2 * LANES)
#define KC 256
#define NC 512
#define DIRECT_ROWS 512 /* rows of a up to which b is read where it lies */
#define SMALL (1 << 17) /* multiply-adds below which one thread does it all */

size_t extgen_packed_size(size_t m, size_t k) { return (m + MR - 1) / MR * MR * k; }

/* a (m x k) into panels of MR rows, each column of a panel's MR values together, zero past m. */
void extgen_pack_rows(const float *a, size_t m, size_t k, float *out) {
    for (size_t i0 = 0; i0 < m; i0 += MR)
        for (size_t j = 0; j < k; j++)
            for (size_t i = i0; i < i0 + MR; i++) *out++ = i < m ? a[i * k + j] : 0.0f;
}

size_t extgen_packed_columns_size(size_t k, size_t n) { return (n + NR - 1) / NR * NR * k; }

/* rows x cols of b (row stride ldb) into panels of NR columns, zero past cols. */
static void pack_columns(const float *b, size_t ldb, size_t rows, size_t cols, float *out) {
    for (size_t j0 = 0; j0 < cols; j0 += NR) {
        size_t width = cols - j0 < NR ? cols - j0 : NR;
        for (size_t r = 0; r < rows; r++, out += NR) {
            memcpy(out, b + r * ldb + j0, width * sizeof(float));
            if (width < NR) memset(out + width, 0, (NR - width) * sizeof(float));
        }
    }
}

/* b (k x n) into panels of NR columns, each row of a panel's NR values together. */
void extgen_pack_columns(const float *b, size_t k, size_t n, float *out) {
    pack_columns(b, n, k, n, out);
}

typedef struct {
    const float *a, *b, *packed_b, *bias; /* a packed and b, or a as it is and packed_b */
    const size_t *shifts; /* if set, row p of b starts at b + shifts[p] */
    float *c;
    size_t m, k, n, groups, b_group; /* groups of a, b, c and a row bias, one after another */
    int relu, bias_per_column;
    size_t width, kept; /* if kept: c keeps the first `kept` of each `width` columns, cropped */
    size_t ldc; /* c's row stride: n, or n / width * kept */
} gemm_job;

/* acc[i] (NR wide) += the kc terms of row i of a (rows R, rows apart by `rs`, terms by `cs`)
   times the panel b (its rows bs apart, or at `shifts`); R a constant in each call, and shifts
   NULL or not, so the sums stay in registers. */
static inline __attribute__((always_inline)) void sum_rows(vf acc[MR][2], int R, size_t kc,
                                                           const float *const *a, size_t cs,
                                                           const float *restrict b, size_t bs,
                                                           const size_t *shifts) {
    for (size_t p = 0; p < kc; p++) {
        const float *row = shifts ? b + shifts[p] : b + p * bs;
        vf b0 = load(row), b1 = load(row + LANES);
        for (int i = 0; i < R; i++) {
            float ai = a[i][p * cs];
            acc[i][0] += ai * b0;
            acc[i][1] += ai * b1;
        }
    }
}

/* sum_rows over one vector of columns: a panel's last LANES or fewer */
static inline __attribute__((always_inline)) void sum_narrow(vf acc[MR][2], int R, size_t kc,
                                                             const float *const *a, size_t cs,
                                                             const float *restrict b, size_t bs,
                                                             const size_t *shifts) {
    for (size_t p = 0; p < kc; p++) {
        vf b0 = load(shifts ? b + shifts[p] : b + p * bs);
        for (int i = 0; i < R; i++) acc[i][0] += a[i][p * cs] * b0;
    }
}

/* Where the tile's columns [col, col + cols) go in a row of c: run r, its columns [from[r],
   from[r + 1]) of the tile, to at[r] on; the number of runs. One run unless c is cropped. */
static size_t crop_runs(const gemm_job *job, size_t col, size_t cols, size_t *at, size_t *from) {
    size_t runs = 0;
    if (!job->kept) {
        at[0] = col, from[0] = 0, from[1] = cols;
        return 1;
    }
    for (size_t j = 0; j < cols;) {
        size_t line = (col + j) / job->width, x = (col + j) % job->width;
        size_t next = j + job->width - x < cols ? j + job->width - x : cols;
        if (x < job->kept) {
            at[runs] = line * job->kept + x, from[runs] = j;
            from[++runs] = j + job->kept - x < next ? j + job->kept - x : next;
        }
        j = next;
    }
    return runs;
}

/* One tile of c, up to MR x NR, over kc terms from a (row i at a + i * rs, terms cs apart),
   added to c if `add`; with `last`, the bias and ReLU after. */
static void tile(const gemm_job *job, size_t kc, const float *a, size_t rs, size_t cs,
                 const float *restrict b, size_t bs, const size_t *shifts, size_t row, size_t col,
                 int add, int last) {
    vf acc[MR][2] = {{{0}}};
    size_t rows = job->m - row < MR ? job->m - row : MR;
    const float *ar[MR];
    for (size_t i = 0; i < MR; i++) ar[i] = a + (i < rows ? i : rows - 1) * rs;
    if (job->n - col <= LANES) sum_narrow(acc, MR, kc, ar, cs, b, shifts ? 0 : bs, shifts);
    else if (shifts) sum_rows(acc, MR, kc, ar, cs, b, 0, shifts);
    else if (rows == 1) sum_rows(acc, 1, kc, ar, cs, b, bs, NULL);
    else if (rows == 2) sum_rows(acc, 2, kc, ar, cs, b, bs, NULL);
    else if (rows <= 4) sum_rows(acc, 4, kc, ar, cs, b, bs, NULL);
    else sum_rows(acc, MR, kc, ar, cs, b, bs, NULL);
    size_t cols = job->n - col < NR ? job->n - col : NR;
    size_t at[NR + 1], from[NR + 1], runs = crop_runs(job, col, cols, at, from);
    for (size_t i = 0; i < rows; i++) {
        float *c = job->c + (row + i) * job->ldc;
        int biased = last && job->bias, relu = last && job->relu, per_column = job->bias_per_column;
        float bias = biased && !per_column ? job->bias[row + i] : 0.0f;
        const float *column_bias = job->bias + col;
        if (cols == NR && runs == 1 && from[1] - from[0] == NR) {
            c += at[0];
            vf lo = acc[i][0], hi = acc[i][1];
            if (add) lo += load(c), hi += load(c + LANES);
            if (biased && per_column) lo += load(column_bias), hi += load(column_bias + LANES);
            if (biased && !per_column) lo += bias, hi += bias;
            store(c, relu ? relu_v(lo) : lo);
            store(c + LANES, relu ? relu_v(hi) : hi);
            continue;
        }
        if (!add && !(biased && per_column)) {
            vf lo = acc[i][0] + bias, hi = acc[i][1] + bias;
            lo = relu ? relu_v(lo) : lo, hi = relu ? relu_v(hi) : hi;
            for (size_t r = 0; r < runs; r++) { /* tile column j goes to to + j */
                float *to = c + at[r] - from[r];
                unsigned a = from[r], b = from[r + 1];
                if (a < LANES) store_lanes(to, lo, a, b < LANES ? b : LANES);
                if (b > LANES) store_lanes(to + LANES, hi, a > LANES ? a - LANES : 0, b - LANES);
            }
            continue;
        }
        float v[NR]; /* the row's sums, stored for the scalar runs */
        store(v, acc[i][0]);
        store(v + LANES, acc[i][1]);
        for (size_t r = 0; r < runs; r++)
            for (size_t j = from[r], to = at[r]; j < from[r + 1]; j++, to++) {
                float x = v[j];
                if (add) x += c[to];
                if (biased) x += per_column ? column_bias[j] : bias;
                c[to] = relu ? relu_s(x) : x;
            }
    }
}

/* Rows [r0, r1) and columns [c0, c1) of c with b read where it lies (few rows of a reuse each
   packed panel too little to pay for packing it): each panel of columns over the whole k, the
   last one, where narrower than NR, through a packed copy (shifted rows have room after them). */
static void direct_block(const gemm_job *job, size_t r0, size_t r1, size_t c0, size_t c1) {
    static _Thread_local float *edge;
    static _Thread_local size_t edge_size;
    size_t k = job->k, n = job->n;
    for (size_t j = c0; j < c1; j += NR) {
        const float *b = job->b + j;
        size_t bs = n;
        if (n - j < NR && !job->shifts) {
            if (edge_size < k * NR) {
                free(edge);
                if (!(edge = aligned_alloc(64, k * NR * sizeof(float)))) abort();
                edge_size = k * NR;
            }
            pack_columns(b, n, k, n - j, edge);
            b = edge, bs = NR;
        }
        for (size_t i = r0; i < r1; i += MR)
            tile(job, k, job->a + i * k, 1, MR, b, bs, job->shifts, i, j, 0, 1);
    }
}

/* Rows [r0, r1) and columns [c0, c1) of c, r0 and c0 on panel edges. */
static void block(const gemm_job *job, size_t r0, size_t r1, size_t c0, size_t c1) {
    static _Thread_local float *packed;
    if (job->b && (job->m <= DIRECT_ROWS || job->shifts)) {
        direct_block(job, r0, r1, c0, c1);
        return;
    }
    if (!job->packed_b && !packed && !(packed = aligned_alloc(64, KC * NC * sizeof(float))))
        abort();
    const float *a = job->a;
    size_t rs = job->packed_b ? job->k : 1, cs = job->packed_b ? 1 : MR; /* a packed or not */
    for (size_t jc = c0; jc < c1; jc += NC) {
        size_t nc = c1 - jc < NC ? c1 - jc : NC;
        for (size_t pc = 0; pc < job->k; pc += KC) {
            size_t kc = job->k - pc < KC ? job->k - pc : KC;
            if (!job->packed_b) pack_columns(job->b + pc * job->n + jc, job->n, kc, nc, packed);
            for (size_t i = r0; i < r1; i += MR)
                for (size_t j = 0; j < nc; j += NR) {
                    const float *b = job->packed_b ? job->packed_b + (jc + j) * job->k + pc * NR
                                                   : packed + j * kc;
                    tile(job, kc, a + i * job->k + pc * cs, rs, cs, b, NR, NULL, i, jc + j,
                         pc > 0, pc + kc == job->k);
                }
        }
    }
}

/* Work units: each group's panels of columns, or of rows where those are more; a part takes a
   run of units. */
static void gemm_part(void *arg, size_t part, size_t parts) {
    const gemm_job *job = arg;
    size_t row_panels = (job->m + MR - 1) / MR, col_panels = (job->n + NR - 1) / NR;
    int by_columns = col_panels >= row_panels;
    size_t per = by_columns ? col_panels : row_panels, units = per * job->groups;
    size_t lo = units * part / parts, hi = units * (part + 1) / parts;
    for (size_t g = lo / per; g * per < hi; g++) {
        size_t p0 = lo > g * per ? lo - g * per : 0, p1 = hi - g * per < per ? hi - g * per : per;
        gemm_job one = *job;
        if (g) {
            one.a += g * extgen_packed_size(job->m, job->k);
            one.b += g * job->b_group;
            one.c += g * job->m * job->ldc;
            if (one.bias) one.bias += g * job->m;
        }
        if (by_columns)
            block(&one, 0, job->m, p0 * NR, p1 * NR < job->n ? p1 * NR : job->n);
        else
            block(&one, p0 * MR, p1 * MR < job->m ? p1 * MR : job->m, 0, job->n);
    }
}

/* Up to SPLIT parts per thread, except where each part would pack the data for its rows. */
static void run(const gemm_job *job, size_t threads) {
    size_t m = job->m, n = job->n, k = job->k;
    size_t row_panels = (m + MR - 1) / MR, col_panels = (n + NR - 1) / NR;
    size_t panels = row_panels > col_panels ? row_panels : col_panels;
    int packs_by_rows = row_panels > col_panels && !job->packed_b && !job->shifts
                        && m > DIRECT_ROWS;
    size_t most = packs_by_rows ? threads : threads * SPLIT, units = panels * job->groups;
    size_t parts = most < units ? most : units;
    if (m * n * k * job->groups < SMALL) parts = 1;
    extgen_parallel(gemm_part, (void *)job, parts ? parts : 1, threads);
}

/* For each of `groups` groups g: c_g (m x n) = packed_g (extgen_pack_rows of a_g m x k)
   b_g (k x n) + bias_g[row] (if bias), then max(c_g, 0) if relu; the groups' packed, b, c and
   bias one after another. Over up to `threads` threads. */
void extgen_gemm(const float *packed, const float *b, const float *bias, float *c, size_t m,
                 size_t k, size_t n, size_t groups, int relu, size_t threads) {
    gemm_job job = {packed, b, NULL, bias, NULL, c, m, k, n, groups, k * n, relu, 0, 0, 0, n};
    run(&job, threads);
}

/* extgen_gemm with row p of b_g at b + g * b_group + shifts[p], each readable NR values past n:
   a unit-stride convolution over padded data, its rows wide by the kernel's width less one, with
   no columns copied (row (c, i, j) is the data shifted by i rows and j columns). c_g is cropped
   to m x (n / width * kept): of each `width` columns, the first `kept`. */
void extgen_gemm_shifted(const float *packed, const float *b, const size_t *shifts,
                         size_t b_group, const float *bias, float *c, size_t m, size_t k, size_t n,
                         size_t groups, int relu, size_t width, size_t kept, size_t threads) {
    gemm_job job = {packed, b, NULL, bias, shifts, c, m, k, n, groups, b_group, relu, 0,
                    width, kept, n / width * kept};
    run(&job, threads);
}

/* c (m x n) = a (m x k, as it is) packed_b (extgen_pack_columns of b k x n) + bias[column]
   (if bias), then max(c, 0) if relu, over up to `threads` threads. */
void extgen_gemm_packed_b(const float *a, const float *packed_b, const float *bias, float *c,
                          size_t m, size_t k, size_t n, int relu, size_t threads) {
    gemm_job job = {a, NULL, packed_b, bias, NULL, c, m, k, n, 1, 0, relu, 1, 0, 0, n};
    run(&job, threads);
}
