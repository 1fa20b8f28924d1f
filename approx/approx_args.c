/*
 * approx_args.c - checks and plumbing of the public approximate calls' arguments
 * (approx_args.h).
 */
#include "approx/approx_args.h"

smm_status approx_check_a(smm_layout layout, smm_trans transa, int64_t m, int64_t k, const float *A, int64_t lda)
{
    smm_status s = smm_check_layout(layout);
    if (s == SMM_OK)
        s = smm_check_trans(transa);
    if (s == SMM_OK && m < 0)
        s = SMM_ERR_BAD_SIZE;
    if (s == SMM_OK) /* A as stored: m x k, or k x m when transposed */
        s = transa == SMM_NO_TRANS ? smm_check_matrix(layout, m, k, A, lda, sizeof(float))
                                   : smm_check_matrix(layout, k, m, A, lda, sizeof(float));
    return s;
}

smm_status approx_check_b(smm_layout layout, smm_trans transb, int64_t k, int64_t n, const float *B, int64_t ldb)
{
    smm_status s = smm_check_layout(layout);
    if (s == SMM_OK)
        s = smm_check_trans(transb);
    if (s == SMM_OK && (k < 1 || n < 1))
        s = SMM_ERR_BAD_SIZE;
    if (s == SMM_OK) /* B as stored: k x n, or n x k when transposed */
        s = transb == SMM_NO_TRANS ? smm_check_matrix(layout, k, n, B, ldb, sizeof(float))
                                   : smm_check_matrix(layout, n, k, B, ldb, sizeof(float));
    return s;
}

smm_status approx_check_topk_outputs(int64_t m, int64_t n, int64_t topk, const int64_t *idx, const float *val,
                                     int64_t ldk)
{
    if (topk < 1 || topk > n)
        return SMM_ERR_BAD_ARGUMENT;
    if (ldk < topk)
        return SMM_ERR_BAD_LEADING_DIM;
    smm_status s = smm_check_matrix(SMM_ROW_MAJOR, m, topk, idx, ldk, sizeof(int64_t));
    if (s == SMM_OK)
        s = smm_check_matrix(SMM_ROW_MAJOR, m, topk, val, ldk, sizeof(float));
    return s;
}

smm_span approx_stored_span(smm_layout layout, smm_trans trans, int64_t rows, int64_t cols, const float *X, int64_t ld)
{
    return trans == SMM_NO_TRANS ? smm_matrix_span(layout, rows, cols, X, ld, sizeof(float))
                                 : smm_matrix_span(layout, cols, rows, X, ld, sizeof(float));
}

smm_status approx_check_topk_overlap(int64_t m, int64_t topk, const int64_t *idx, const float *val, int64_t ldk,
                                     smm_span a, smm_span b)
{
    const smm_span i = smm_matrix_span(SMM_ROW_MAJOR, m, topk, idx, ldk, sizeof(int64_t));
    const smm_span v = smm_matrix_span(SMM_ROW_MAJOR, m, topk, val, ldk, sizeof(float));
    if (smm_spans_overlap(i, v) || smm_spans_overlap(i, a) || smm_spans_overlap(i, b) || smm_spans_overlap(v, a) ||
        smm_spans_overlap(v, b))
        return SMM_ERR_BAD_ARGUMENT;
    return SMM_OK;
}

approx_problem approx_problem_of(smm_layout layout, smm_trans transa, int64_t m, int64_t n, int64_t k, float alpha,
                                 const float *A, int64_t lda, float beta, float *C, int64_t ldc)
{
    approx_problem p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.alpha = alpha;
    p.beta = beta;
    p.rows_a = approx_vectors_of(layout, transa, 1, m, A, lda);
    p.C = C;
    p.rs_c = layout == SMM_ROW_MAJOR ? ldc : 1;
    p.cs_c = layout == SMM_ROW_MAJOR ? 1 : ldc;
    return p;
}

