/*
 * approx_pq.c - SKETCH_PQ, product quantization with 4-bit codes and
 * lookup-table scans (sketch/pq.h has the codebooks, codes, tables and
 * kernels; approx.h the method's math).
 *
 * The plan trains M = size codebooks of 16 centroids on op(B)'s
 * columns and keeps their packed codes; a product builds one table of 16 M
 * bytes per row of op(A) and estimates entry (i, j) as
 * scale_i * sum_m lut_i[m][code_m(b_j)] + bias_i with the scan kernels,
 * PQ_ROWS rows of op(A) against PQ_TILE columns at a time (the rows' tables
 * stay in L1 while the codes stream past).
 */

#include <stdio.h>

#include "approx/approx_method.h"
#include "approx/approx_vectors.h"
#include "sketch/pq.h"

/* Rows of op(A) per pass over the codes, and columns per tile of estimates (a multiple of PQ_BLOCK). */
#define PQ_ROWS 8
#define PQ_TILE 512

/* The plan's state (codebook and codes of op(B)) or a product's (tables of op(A)'s rows). */
typedef struct {
    pq_codebook *cb; /* b state */
    uint8_t *codes;  /* b state: pq_codes_bytes(M, n) */
    uint8_t *lut;    /* a state: rows * M * 16 */
    float *scale, *bias;
} pq_state;

static void pq_free_state(void *state)
{
    pq_state *st = state;
    if (st == NULL)
        return;
    pq_codebook_free(st->cb);
    smm_aligned_free(st->codes);
    smm_aligned_free(st->lut);
    smm_aligned_free(st->scale);
    smm_aligned_free(st->bias);
    smm_aligned_free(st);
}

static smm_status pq_check_sizes(const approx_options *opts, int64_t k, int64_t n, char *msg, size_t msg_size)
{
    const int32_t M = opts->size;
    if (M > k || M > PQ_MAX_SUBSPACES) {
        if (msg != NULL)
            snprintf(msg, msg_size, "pq: size = %d subspaces, but at most min(k = %lld, %d): each subspace "
                     "needs a dimension of its own", (int)M, (long long)k, PQ_MAX_SUBSPACES);
        return SMM_ERR_BAD_ARGUMENT;
    }
    if (n < PQ_CENTROIDS) {
        if (msg != NULL)
            snprintf(msg, msg_size, "pq: op(B) has %lld columns, fewer than the %d centroids of a subspace",
                     (long long)n, PQ_CENTROIDS);
        return SMM_ERR_BAD_SIZE;
    }
    return SMM_OK;
}

static smm_status pq_sketch_b(const smm_context *ctx, const approx_b_side *b, void **state)
{
    *state = NULL;
    const int64_t n = b->cols.count;
    const int32_t M = b->opts.size;
    pq_state *st = approx_new_state(sizeof *st);
    if (st == NULL)
        return SMM_ERR_NO_MEMORY;
    const float *X;
    int64_t ld;
    float *copy;
    smm_status status = approx_row_major(&b->cols, b->k, &X, &ld, &copy);
    if (status == SMM_OK)
        status = pq_train(ctx, X, n, ld, b->k, M, b->opts.seed, 0, 0, &st->cb);
    const int64_t bytes = pq_codes_bytes(M, n);
    if (status == SMM_OK && bytes < 0)
        status = SMM_ERR_OVERFLOW;
    if (status == SMM_OK)
        st->codes = approx_alloc(bytes, 1, &status);
    if (status == SMM_OK)
        status = pq_encode(ctx, st->cb, X, n, ld, st->codes);
    smm_aligned_free(copy);
    if (status != SMM_OK) {
        pq_free_state(st);
        return status;
    }
    *state = st;
    return SMM_OK;
}

static smm_status pq_sketch_a(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                              const approx_vectors *rows_a, void **a_state)
{
    *a_state = NULL;
    const pq_state *bs = b_state;
    const int64_t m = rows_a->count;
    const int32_t M = bs->cb->M;
    pq_state *st = approx_new_state(sizeof *st);
    if (st == NULL)
        return SMM_ERR_NO_MEMORY;
    smm_status status = SMM_OK;
    st->lut = approx_alloc(m, (int64_t)M * PQ_CENTROIDS, &status);
    st->scale = approx_alloc(m, sizeof(float), &status);
    st->bias = approx_alloc(m, sizeof(float), &status);
    const float *X = NULL;
    int64_t ld = 0;
    float *copy = NULL;
    if (status == SMM_OK)
        status = approx_row_major(rows_a, b->k, &X, &ld, &copy);
    if (status == SMM_OK) {
        const int64_t blocks = (m + PQ_ROWS - 1) / PQ_ROWS;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
        for (int64_t blk = 0; blk < blocks; blk++) {
            const int64_t i0 = blk * PQ_ROWS, rows = m - i0 < PQ_ROWS ? m - i0 : PQ_ROWS;
            pq_lut(bs->cb, X + i0 * ld, rows, ld, st->lut + i0 * M * PQ_CENTROIDS, st->scale + i0, st->bias + i0);
        }
    }
    smm_aligned_free(copy);
    if (status != SMM_OK) {
        pq_free_state(st);
        return status;
    }
    *a_state = st;
    return SMM_OK;
}

/* Estimates of rows i0 .. i0 + rows - 1 (rows <= PQ_ROWS) against columns j0 .. j0 + cols - 1 (j0 % 32 == 0). */
static void pq_tile(smm_isa isa, const pq_state *bs, const pq_state *as, int64_t i0, int64_t rows, int64_t j0,
                    int64_t cols, float *out, int64_t ldo)
{
    const int32_t M = bs->cb->M;
    const uint8_t *codes = bs->codes + (j0 / PQ_BLOCK) * pq_block_bytes(M);
    pq_scan_float(isa, as->lut + i0 * M * PQ_CENTROIDS, as->scale + i0, as->bias + i0, rows, M, codes, 0, cols, out,
                  ldo);
}

static smm_status pq_estimate(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                              const void *a_state, const approx_problem *p)
{
    (void)b;
    const pq_state *bs = b_state, *as = a_state;
    const int64_t row_blocks = (p->m + PQ_ROWS - 1) / PQ_ROWS;
    const int64_t col_blocks = (p->n + PQ_TILE - 1) / PQ_TILE;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t blk = 0; blk < row_blocks * col_blocks; blk++) {
        float tile[PQ_ROWS * PQ_TILE];
        const int64_t i0 = (blk / col_blocks) * PQ_ROWS, j0 = (blk % col_blocks) * PQ_TILE;
        const int64_t rows = p->m - i0 < PQ_ROWS ? p->m - i0 : PQ_ROWS;
        const int64_t cols = p->n - j0 < PQ_TILE ? p->n - j0 : PQ_TILE;
        pq_tile(ctx->isa, bs, as, i0, rows, j0, cols, tile, PQ_TILE);
        for (int64_t r = 0; r < rows; r++) {
            float *c = p->C + (i0 + r) * p->rs_c + j0 * p->cs_c;
            const float *e = tile + r * PQ_TILE;
            if (p->beta == 0.0f) /* C is write-only */
                for (int64_t t = 0; t < cols; t++)
                    c[t * p->cs_c] = p->alpha * e[t];
            else
                for (int64_t t = 0; t < cols; t++)
                    c[t * p->cs_c] = p->alpha * e[t] + p->beta * c[t * p->cs_c];
        }
    }
    return SMM_OK;
}

static void pq_estimate_block(const smm_context *ctx, const approx_b_side *b, const void *b_state,
                              const void *a_state, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float *out,
                              int64_t ldo)
{
    (void)b;
    const pq_state *bs = b_state, *as = a_state;
    const int64_t blocks = (rows + PQ_ROWS - 1) / PQ_ROWS;
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (ctx->threads > 1)
    for (int64_t blk = 0; blk < blocks; blk++) {
        const int64_t r0 = blk * PQ_ROWS, lines = rows - r0 < PQ_ROWS ? rows - r0 : PQ_ROWS;
        pq_tile(ctx->isa, bs, as, i0 + r0, lines, j0, cols, out + r0 * ldo, ldo);
    }
}

static const approx_method_ops pq_ops = {
    pq_sketch_b, pq_sketch_a, pq_estimate, pq_estimate_block, NULL, pq_free_state,
};

/* M 4-bit codes. */
static int64_t pq_encoded_bytes(sketch_method id, int32_t M, int64_t k)
{
    (void)id, (void)k;
    return ((int64_t)M + 1) / 2;
}

const approx_method approx_method_pq = {
    SKETCH_PQ, 64, APPROX_MAX_SKETCH_DIM, APPROX_SCALE_EACH, 0, pq_encoded_bytes, topk_shape_of_size, pq_check_sizes,
    &pq_ops, NULL,
};
