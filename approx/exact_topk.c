/*
 * exact_topk.c - the reference top-k: op(A) op(B) computed by exact_sgemm a
 * block at a time (topk_stream.h: each thread takes a task of rows and runs
 * them over op(B) in blocks of columns, one single-thread SGEMM per block,
 * so the whole product is never stored and op(B) is read once per task),
 * each row's topk largest entries selected exactly from the block while it
 * is in the cache (approx.h: exact_topk). The block: for k > 256 the exact
 * core's configuration's (exact/tuning.h: 256 x 2048 unless tuned); for
 * shorter products, which are bound by memory, topk_stream_shape(k).
 */
#include <string.h>

#include "approx/approx_args.h"
#include "approx/approx_scale.h"
#include "approx/exact_topk.h"
#include "approx/topk_stream.h"
#include "exact/sgemm.h"
#include "exact/tuning.h"

typedef struct {
    approx_vectors rows_a, cols_b;
    int64_t k;
} product_blocks;

static smm_status product_block(const void *arg, const smm_context *ctx, int64_t i0, int64_t rows, int64_t j0,
                                int64_t cols, float *out, int64_t ldo)
{
    const product_blocks *p = arg;
    const float *A, *B;
    smm_trans ta, tb;
    approx_vectors_operand(&p->rows_a, i0, &A, &ta);
    approx_vectors_operand(&p->cols_b, j0, &B, &tb);
    tb = tb == SMM_NO_TRANS ? SMM_TRANS : SMM_NO_TRANS; /* the vectors are B's columns */
    return exact_sgemm_with(ctx, SMM_ROW_MAJOR, ta, tb, rows, cols, p->k, 1.0f, A, p->rows_a.ld, B, p->cols_b.ld, 0.0f,
                            out, ldo);
}

typedef struct {
    int64_t topk;
    int64_t *idx; /* m x topk */
    float *val;
} best_rows;

static void keep_best(void *arg, int64_t i, scored_index *best, int64_t count, void *scratch)
{
    (void)count, (void)scratch;
    best_rows *out = arg;
    for (int64_t t = 0; t < out->topk; t++) {
        out->idx[i * out->topk + t] = best[t].index;
        out->val[i * out->topk + t] = best[t].score;
    }
}

topk_shape exact_topk_block(smm_isa isa, int64_t k)
{
    if (k <= 256)
        return topk_stream_shape(k);
    const tuning_params *p = &tuning_active()->params[isa];
    const topk_shape b = { p->topk_rows, p->topk_cols };
    return b;
}

smm_status exact_topk(smm_layout layout, smm_trans transa, smm_trans transb,
                      int64_t m, int64_t n, int64_t k,
                      const float *A, int64_t lda, const float *B, int64_t ldb,
                      int64_t topk, int64_t *idx, float *val, int64_t ldk)
{
    return exact_topk_with(NULL, NULL, layout, transa, transb, m, n, k, A, lda, B, ldb, topk, idx, val, ldk);
}

smm_status exact_topk_with(const smm_context *with, const topk_shape *block, smm_layout layout, smm_trans transa,
                           smm_trans transb, int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                           const float *B, int64_t ldb, int64_t topk, int64_t *idx, float *val, int64_t ldk)
{
    smm_status s = approx_check_b(layout, transb, k, n, B, ldb);
    if (s == SMM_OK)
        s = approx_check_a(layout, transa, m, k, A, lda);
    if (s == SMM_OK)
        s = approx_check_topk_outputs(m, n, topk, idx, val, ldk);
    if (s == SMM_OK)
        s = approx_check_topk_overlap(m, topk, idx, val, ldk, approx_stored_span(layout, transa, m, k, A, lda),
                                      approx_stored_span(layout, transb, k, n, B, ldb));
    smm_context ctx;
    if (s == SMM_OK && with != NULL)
        ctx = *with;
    else if (s == SMM_OK)
        s = smm_context_current(&ctx);
    if (s != SMM_OK || m == 0)
        return s;
    const product_blocks p = { approx_vectors_of(layout, transa, 1, m, A, lda),
                               approx_vectors_of(layout, transb, 0, n, B, ldb), k };
    /*
     * NaN or Inf in A or B: SMM_ERR_NON_FINITE, as every approximate call.
     * One vectorised read of each operand with all threads, against the
     * product's 2 m n k flops: 16-20 ms of a 3 s call at 10000 x 60000 x 784
     * on 2 threads (measured), well under 1 %.
     */
    s = approx_check_finite(&ctx, &p.rows_a, k);
    if (s == SMM_OK)
        s = approx_check_finite(&ctx, &p.cols_b, k);
    if (s != SMM_OK)
        return s;

    /* results go to a workspace first: the outputs stay untouched if a block fails */
    int64_t entries;
    if (smm_mul_size(m, topk, &entries) != SMM_OK || entries > INT64_MAX / 16)
        return SMM_ERR_OVERFLOW;
    best_rows best = { topk, smm_aligned_alloc((size_t)entries * sizeof(int64_t)),
                       smm_aligned_alloc((size_t)entries * sizeof(float)) };
    s = best.idx && best.val ? SMM_OK : SMM_ERR_NO_MEMORY;
    const topk_scores scores = { product_block, NULL, &p };
    if (s == SMM_OK)
        s = topk_stream(&ctx, m, n, topk, block != NULL ? *block : exact_topk_block(ctx.isa, k), 1, &scores, keep_best,
                        &best, 0);
    if (s == SMM_OK)
        for (int64_t i = 0; i < m; i++) {
            memcpy(idx + i * ldk, best.idx + i * topk, (size_t)topk * sizeof(int64_t));
            memcpy(val + i * ldk, best.val + i * topk, (size_t)topk * sizeof(float));
        }
    smm_aligned_free(best.idx);
    smm_aligned_free(best.val);
    return s;
}
