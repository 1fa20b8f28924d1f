/*
 * exact_topk.c - the reference top-k: op(A) op(B) computed by exact_sgemm in
 * blocks of rows (the whole product is never stored), each row's topk
 * largest entries selected exactly (approx.h: exact_topk).
 */
#include <omp.h>

#include "approx/approx_plan.h"
#include "approx/approx_select.h"
#include "exact/sgemm.h"

/* Rows of the product computed per exact_sgemm call (TOPK_BLOCK x n floats of workspace). */
#define EXACT_TOPK_BLOCK 64

smm_status exact_topk(smm_layout layout, smm_trans transa, smm_trans transb,
                      int64_t m, int64_t n, int64_t k,
                      const float *A, int64_t lda, const float *B, int64_t ldb,
                      int64_t topk, int64_t *idx, float *val, int64_t ldk)
{
    smm_status s = approx_check_b(layout, transb, k, n, B, ldb);
    if (s == SMM_OK)
        s = approx_check_a(layout, transa, m, k, A, lda);
    if (s == SMM_OK)
        s = approx_check_topk_outputs(m, n, topk, idx, val, ldk);
    smm_context ctx;
    if (s == SMM_OK)
        s = smm_context_current(&ctx);
    if (s != SMM_OK || m == 0)
        return s;

    int64_t block_floats;
    if (smm_mul_size(EXACT_TOPK_BLOCK, n, &block_floats) != SMM_OK)
        return SMM_ERR_OVERFLOW;
    const int64_t cap = top_select_capacity(topk);
    float *block = smm_aligned_alloc((size_t)block_floats * sizeof(float));
    scored_index *sel = smm_aligned_alloc((size_t)ctx.threads * (size_t)cap * sizeof(scored_index));
    if (block == NULL || sel == NULL) {
        smm_aligned_free(block);
        smm_aligned_free(sel);
        return SMM_ERR_NO_MEMORY;
    }
    /* op(A) rows i0.. as a matrix in the caller's layout: row-major NO_TRANS starts at i0 * lda, etc. */
    const approx_vectors rows_a = approx_vectors_of(layout, transa, 1, m, A, lda);
    for (int64_t i0 = 0; i0 < m && s == SMM_OK; i0 += EXACT_TOPK_BLOCK) {
        const int64_t rows = m - i0 < EXACT_TOPK_BLOCK ? m - i0 : EXACT_TOPK_BLOCK;
        /* the block of op(A) as a rows x k row-major (or column-major) matrix */
        const float *a0 = rows_a.layout == SMM_ROW_MAJOR ? A + i0 * lda : A + i0;
        s = exact_sgemm_with(&ctx, SMM_ROW_MAJOR, rows_a.layout == SMM_ROW_MAJOR ? SMM_NO_TRANS : SMM_TRANS,
                             layout == SMM_ROW_MAJOR ? transb : (transb == SMM_NO_TRANS ? SMM_TRANS : SMM_NO_TRANS),
                             rows, n, k, 1.0f, a0, lda, B, ldb, 0.0f, block, n);
        if (s != SMM_OK)
            break;
#pragma omp parallel for num_threads(ctx.threads) schedule(dynamic, 1)
        for (int64_t row = 0; row < rows; row++) {
            top_select best;
            top_select_init(&best, sel + (size_t)omp_get_thread_num() * (size_t)cap, topk);
            top_select_feed(&best, block + row * n, 0, n);
            top_select_finish(&best);
            for (int64_t t = 0; t < topk; t++) {
                idx[(i0 + row) * ldk + t] = best.buf[t].index;
                val[(i0 + row) * ldk + t] = best.buf[t].score;
            }
        }
    }
    smm_aligned_free(block);
    smm_aligned_free(sel);
    return s;
}
