/*
 * approx_maddness.c - SKETCH_MADDNESS, learned hash-tree encoding of op(A)
 * and prototype tables of op(B) summed by the product-quantization scan
 * kernels (sketch/maddness.h has the trees, prototypes, codes and tables;
 * approx.h the method's math).
 *
 * The plan trains C = size codebooks on the directions of op(B)'s columns
 * and keeps one table of 16 C bytes (with its step and bias) per column; a
 * product encodes the rows of op(A) by the trees into their norms and
 * packed blocks of 32 rows and estimates entry (i, j) as (scale_j * sum_c
 * lut_j[c][code_c(a_i)] + bias_j) |a_i|.
 * The scan kernels run the roles of product quantization swapped: tables
 * (columns of op(B)) in the kernel's rows, codes (rows of op(A)) in its
 * columns, so each scan gives a tile of C^T: MD_TILE_COLS columns of op(B)
 * by MD_TILE_ROWS rows of op(A) (the tables, 16 C bytes each, stay in L1
 * while the rows' codes stream past). The tile's sums become estimates in
 * that layout (contiguous over rows: vectorised) and are written transposed,
 * in 4 x 4 blocks (MD_TILE_COLS = 32 consecutive entries, 128 bytes, of each
 * row of op(A)). Top-k takes these blocks through topk_stream like the
 * classical methods (tasks of 64 rows at C <= 64: a block of 64 x 2048
 * estimates, 512 KiB, stays in L2 for the selection; larger tasks, which
 * would read the tables fewer times, measured slower).
 */

#include <stdio.h>
#include <string.h>

#include "approx/approx_method.h"
#include "approx/approx_vectors.h"
#include "sketch/maddness.h"

/* A scan tile: columns of op(B) (tables) x rows of op(A) (codes, a multiple of PQ_BLOCK); 16 KiB of sums. */
#define MD_TILE_COLS 32
#define MD_TILE_ROWS 128

/* The dense product's tasks: rows of op(A) x columns of op(B) (multiples of the tile). */
#define MD_TASK_ROWS 256
#define MD_TASK_COLS 512

/* The plan's state (model and tables of op(B)) or a product's (codes of op(A)). */
typedef struct {
    maddness_model *md; /* b state */
    uint8_t *lut;       /* b state: n * 16 C */
    float *scale, *bias;
    uint8_t *codes; /* a state: pq_codes_bytes(C, m) */
    float *norms;   /* a state: m, |a_i| */
} md_state;

static void md_free_state(void *state)
{
    md_state *st = state;
    if (st == NULL)
        return;
    maddness_model_free(st->md);
    smm_aligned_free(st->lut);
    smm_aligned_free(st->scale);
    smm_aligned_free(st->bias);
    smm_aligned_free(st->codes);
    smm_aligned_free(st->norms);
    smm_aligned_free(st);
}

static smm_status md_check_sizes(const approx_options *opts, int64_t k, int64_t n, char *msg, size_t msg_size)
{
    const int32_t C = opts->size;
    if (C > k || C > MADDNESS_MAX_CODEBOOKS) {
        if (msg != NULL)
            snprintf(msg, msg_size, "maddness: size = %d codebooks, but at most min(k = %lld, %d): each "
                     "codebook needs a dimension of its own, and its ridge system grows as (16 C)^2",
                     (int)C, (long long)k, MADDNESS_MAX_CODEBOOKS);
        return SMM_ERR_BAD_ARGUMENT;
    }
    if (n < MADDNESS_LEAVES) {
        if (msg != NULL)
            snprintf(msg, msg_size, "maddness: op(B) has %lld columns, fewer than the %d leaves of a tree it "
                     "learns from them", (long long)n, MADDNESS_LEAVES);
        return SMM_ERR_BAD_SIZE;
    }
    return SMM_OK;
}

static smm_status md_sketch_b(const smm_context *ctx, const approx_b_side *b, void **state)
{
    *state = NULL;
    const int64_t n = b->cols.count;
    const int32_t C = b->opts.size;
    md_state *st = approx_new_state(sizeof *st);
    if (st == NULL)
        return SMM_ERR_NO_MEMORY;
    const float *X;
    int64_t ld;
    float *copy;
    smm_status status = approx_row_major(&b->cols, b->k, &X, &ld, &copy);
    if (status == SMM_OK)
        status = maddness_train(ctx, X, n, ld, b->k, C, b->opts.seed, 0, 0.0, &st->md);
    if (status == SMM_OK) {
        st->lut = approx_alloc(n, (int64_t)MADDNESS_LEAVES * C, &status);
        st->scale = approx_alloc(n, sizeof(float), &status);
        st->bias = approx_alloc(n, sizeof(float), &status);
    }
    if (status == SMM_OK)
        status = maddness_tables(ctx, st->md, X, n, ld, st->lut, st->scale, st->bias);
    smm_aligned_free(copy);
    if (status != SMM_OK) {
        md_free_state(st);
        return status;
    }
    *state = st;
    return SMM_OK;
}

static smm_status md_sketch_a(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                              const approx_vectors *rows_a, void **a_state)
{
    (void)b;
    *a_state = NULL;
    const md_state *bs = b_state;
    const int64_t m = rows_a->count;
    const int64_t bytes = pq_codes_bytes(bs->md->C, m);
    if (bytes < 0)
        return SMM_ERR_OVERFLOW;
    md_state *st = approx_new_state(sizeof *st);
    if (st == NULL)
        return SMM_ERR_NO_MEMORY;
    smm_status status = SMM_OK;
    st->codes = approx_alloc(bytes, 1, &status);
    st->norms = approx_alloc(m, sizeof(float), &status);
    if (status != SMM_OK) {
        md_free_state(st);
        return status;
    }
    const int row_major = rows_a->layout == SMM_ROW_MAJOR;
    maddness_encode(ctx, bs->md, rows_a->data, m, row_major ? rows_a->ld : 1, row_major ? 1 : rows_a->ld,
                    st->codes, st->norms);
    *a_state = st;
    return SMM_OK;
}

/*
 * Estimates of rows i0 .. i0 + rows - 1 of op(A) against columns j0 .. j0 +
 * cols - 1 of op(B): entry (r, c) goes to dst[r * rs + c * cs] as e (raw)
 * or alpha e + beta dst (beta == 0: alpha e, dst write-only), e =
 * (scale_j * (float)sum + bias_j) |a_i|: pq_scan_float's value (float
 * multiply, then add; sums below 2^24 convert exactly) times the row's
 * norm. Any i0 (the scan starts at its block), any j0. Per tile: the scan's sums (tables x rows),
 * converted to estimates in that layout (contiguous over rows: vectorised),
 * then written transposed.
 */
static void md_tile(smm_isa isa, const md_state *bs, const md_state *as, int64_t i0, int64_t rows, int64_t j0,
                    int64_t cols, float *dst, int64_t rs, int64_t cs, int raw, float alpha, float beta)
{
    const int32_t C = bs->md->C;
    const int64_t D = (int64_t)MADDNESS_LEAVES * C, bb = pq_block_bytes(C);
    uint32_t sums[MD_TILE_COLS * MD_TILE_ROWS];
    float est[MD_TILE_COLS * MD_TILE_ROWS];
    const int64_t a0 = i0 - i0 % PQ_BLOCK, end = i0 + rows;
    for (int64_t r0 = a0; r0 < end; r0 += MD_TILE_ROWS) {
        const int64_t nr = end - r0 < MD_TILE_ROWS ? end - r0 : MD_TILE_ROWS;
        const int64_t first = r0 < i0 ? i0 - r0 : 0; /* rows of the tile before i0 (first block only) */
        for (int64_t c0 = 0; c0 < cols; c0 += MD_TILE_COLS) {
            const int64_t nc = cols - c0 < MD_TILE_COLS ? cols - c0 : MD_TILE_COLS;
            const int64_t j = j0 + c0;
            pq_scan(isa, bs->lut + j * D, nc, C, as->codes + (r0 / PQ_BLOCK) * bb, 0, nr, sums, MD_TILE_ROWS);
            const float *norm = as->norms + r0;
            for (int64_t c = 0; c < nc; c++) {
                const float sc = bs->scale[j + c], bi = bs->bias[j + c];
                const uint32_t *su = sums + c * MD_TILE_ROWS;
                float *e = est + c * MD_TILE_ROWS;
                for (int64_t r = first; r < nr; r++) {
                    const float prod = sc * (float)(int32_t)su[r]; /* sums < 2^24: exact either way */
                    e[r] = (prod + bi) * norm[r];
                }
            }
            int64_t r = first;
            if (raw && cs == 1 && nc == MD_TILE_COLS) /* the usual tile: 4 x 4 blocks, 4 contiguous floats a side */
                for (; r + 4 <= nr; r += 4) {
                    float *o = dst + (r0 + r - i0) * rs + c0;
                    for (int64_t c = 0; c < MD_TILE_COLS; c += 4) {
                        float q[4][4];
                        for (int u = 0; u < 4; u++)
                            memcpy(q[u], est + (c + u) * MD_TILE_ROWS + r, sizeof q[u]);
                        for (int v = 0; v < 4; v++)
                            for (int u = 0; u < 4; u++)
                                o[v * rs + c + u] = q[u][v];
                    }
                }
            for (; r < nr; r++) {
                float *o = dst + (r0 + r - i0) * rs + c0 * cs;
                const float *e = est + r;
                if (raw)
                    for (int64_t c = 0; c < nc; c++)
                        o[c * cs] = e[c * MD_TILE_ROWS];
                else if (beta == 0.0f) /* C is write-only */
                    for (int64_t c = 0; c < nc; c++)
                        o[c * cs] = alpha * e[c * MD_TILE_ROWS];
                else
                    for (int64_t c = 0; c < nc; c++)
                        o[c * cs] = alpha * e[c * MD_TILE_ROWS] + beta * o[c * cs];
            }
        }
    }
}

static smm_status md_estimate(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                              const void *a_state, const approx_problem *p)
{
    (void)b;
    const md_state *bs = b_state, *as = a_state;
    const int64_t row_tasks = (p->m + MD_TASK_ROWS - 1) / MD_TASK_ROWS;
    const int64_t col_tasks = (p->n + MD_TASK_COLS - 1) / MD_TASK_COLS;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1)
    for (int64_t task = 0; task < row_tasks * col_tasks; task++) {
        const int64_t i0 = (task / col_tasks) * MD_TASK_ROWS, j0 = (task % col_tasks) * MD_TASK_COLS;
        const int64_t rows = p->m - i0 < MD_TASK_ROWS ? p->m - i0 : MD_TASK_ROWS;
        const int64_t cols = p->n - j0 < MD_TASK_COLS ? p->n - j0 : MD_TASK_COLS;
        md_tile(ctx->isa, bs, as, i0, rows, j0, cols, p->C + i0 * p->rs_c + j0 * p->cs_c, p->rs_c, p->cs_c, 0,
                p->alpha, p->beta);
    }
    return SMM_OK;
}

static void md_estimate_block(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                              const void *a_state, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float *out,
                              int64_t ldo)
{
    (void)b;
    const md_state *bs = b_state, *as = a_state;
    /* rows in parallel in whole blocks of codes (tasks of MD_TASK_ROWS rows from i0) */
    const int64_t tasks = (rows + MD_TASK_ROWS - 1) / MD_TASK_ROWS;
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (ctx->threads > 1 && tasks > 1)
    for (int64_t t = 0; t < tasks; t++) {
        const int64_t r0 = t * MD_TASK_ROWS, nr = rows - r0 < MD_TASK_ROWS ? rows - r0 : MD_TASK_ROWS;
        md_tile(ctx->isa, bs, as, i0 + r0, nr, j0, cols, out + r0 * ldo, ldo, 1, 1, 1.0f, 0.0f);
    }
}

static const approx_method_ops md_ops = {
    md_sketch_b, md_sketch_a, md_estimate, md_estimate_block, NULL, md_free_state,
};

/* C 4-bit leaf codes and the norm of a row of op(A) (the plan keeps 16 C + 8 bytes of tables per column of op(B)). */
static int64_t md_encoded_bytes(sketch_method id, int32_t C, int64_t k)
{
    (void)id, (void)k;
    return ((int64_t)C + 1) / 2 + (int64_t)sizeof(float);
}

const approx_method approx_method_maddness = {
    SKETCH_MADDNESS, 64, APPROX_MAX_SKETCH_DIM, APPROX_SCALE_EACH, 0, md_encoded_bytes, topk_shape_of_size,
    md_check_sizes, &md_ops, NULL,
};
