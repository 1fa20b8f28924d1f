/*
 * maddness_encode.c - the two sides of a MADDNESS product (maddness.h): the
 * rows of op(A) become their norms and packed 4-bit codes of their
 * directions by descending the hash trees (comparisons only), the columns
 * of op(B) become byte lookup tables of their inner products with the
 * prototypes.
 *
 * Plain C for the baseline CPU. Codes and norms depend on each vector and
 * the model only, each block of 32 vectors written by one thread. The tables' exact
 * values come from one-thread exact_sgemm calls on fixed chunks of columns
 * and are quantized by pq_lut_quantize, the quantization of product
 * quantization's query tables, so the same scan kernels sum both.
 */
#include <omp.h>

#include "exact/sgemm.h"
#include "sketch/maddness.h"

/* Vectors x dimensions below which the encoder stays on one thread (each vector's norm reads all of it). */
#define MD_ENCODE_PARALLEL_MIN 65536

/* Strided vectors against a model: the source of maddness_encode's codes, and where their norms go. */
typedef struct {
    const maddness_model *md;
    const float *X;
    int64_t rs, cs;
    float *norms;
} tree_rows;

static void leaf_codes(const void *arg, int64_t j, uint8_t *codes)
{
    const tree_rows *r = arg;
    const float *x = r->X + j * r->rs;
    const double inv = maddness_inv_norm(x, r->md->k, r->cs, r->norms + j);
    for (int32_t c = 0; c < r->md->C; c++)
        codes[c] = (uint8_t)maddness_leaf(r->md, x, r->cs, inv, c);
}

void maddness_encode(const smm_context *ctx, const maddness_model *md, const float *X, int64_t n, int64_t rs,
                     int64_t cs, uint8_t *codes, float *norms)
{
    if (n <= 0)
        return;
    const tree_rows rows = { md, X, rs, cs, norms };
    pq_pack(ctx, n, md->C, n * md->k >= MD_ENCODE_PARALLEL_MIN, leaf_codes, &rows, codes);
}

/* Source of pq_lut_quantize: codebook m's 16 exact products of one column, float from the SGEMM. */
static void column_table(const void *arg, int32_t m, double T[PQ_CENTROIDS])
{
    const float *row = (const float *)arg + (int64_t)m * MADDNESS_LEAVES;
    for (int l = 0; l < MADDNESS_LEAVES; l++)
        T[l] = (double)row[l];
}

smm_status maddness_tables(const smm_context *ctx, const maddness_model *md, const float *X, int64_t n, int64_t ld,
                           uint8_t *lut, float *scale, float *bias)
{
    const int32_t C = md->C;
    const int64_t D = (int64_t)MADDNESS_LEAVES * C, k = md->k;
    const int64_t chunks = (n + MADDNESS_TABLE_CHUNK - 1) / MADDNESS_TABLE_CHUNK;
    int threads = ctx->threads < 1 ? 1 : ctx->threads;
    if (threads > chunks)
        threads = (int)(chunks < 1 ? 1 : chunks);
    int64_t per;
    if (smm_mul_size(MADDNESS_TABLE_CHUNK * D, sizeof(float), &per) != SMM_OK ||
        per > PTRDIFF_MAX / 64 / threads)
        return SMM_ERR_OVERFLOW;
    float *work = smm_aligned_alloc((size_t)per * (size_t)threads);
    if (work == NULL)
        return SMM_ERR_NO_MEMORY;
    const smm_context one = { ctx->isa, 1 };
    smm_status status = SMM_OK;
    int failed = 0;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        float *T = work + (size_t)omp_get_thread_num() * (size_t)(MADDNESS_TABLE_CHUNK * D);
#pragma omp for schedule(dynamic, 1)
        for (int64_t ch = 0; ch < chunks; ch++) {
            if (__atomic_load_n(&failed, __ATOMIC_RELAXED))
                continue;
            const int64_t j0 = ch * MADDNESS_TABLE_CHUNK;
            const int64_t cols = n - j0 < MADDNESS_TABLE_CHUNK ? n - j0 : MADDNESS_TABLE_CHUNK;
            /* T (cols x D) = X[j0 ..] (cols x k) times the prototypes transposed (k x D) */
            const smm_status s = exact_sgemm_with(&one, SMM_ROW_MAJOR, SMM_NO_TRANS, SMM_TRANS, cols, D, k, 1.0f,
                                                  X + j0 * ld, ld, md->prototypes, k, 0.0f, T, D);
            if (s != SMM_OK) {
                int expected = 0;
                if (__atomic_compare_exchange_n(&failed, &expected, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
                    status = s;
                continue;
            }
            for (int64_t j = 0; j < cols; j++)
                pq_lut_quantize(C, column_table, T + j * D, lut + (j0 + j) * D, scale + j0 + j, bias + j0 + j);
        }
    }
    smm_aligned_free(work);
    return status;
}
