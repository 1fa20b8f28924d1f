/*
 * approx_args.h - the checks and plumbing of the public approximate calls'
 * CBLAS-style arguments (approx_args.c), shared by approx_plan.c,
 * approx_sgemm.c, approx_topk.c and exact_topk.c. A leaf besides
 * approx_vectors.c.
 */
#ifndef APPROX_ARGS_H
#define APPROX_ARGS_H

#include "approx/approx_problem.h"

/* The checks of op(A) (m x k, m >= 0) stored in `layout` with leading dimension lda, layout and transa included. */
smm_status approx_check_a(smm_layout layout, smm_trans transa, int64_t m, int64_t k, const float *A, int64_t lda);

/* The checks of op(B) (k x n) stored in `layout` with leading dimension ldb, transb included. */
smm_status approx_check_b(smm_layout layout, smm_trans transb, int64_t k, int64_t n, const float *B, int64_t ldb);

/* The checks of top-k outputs: 1 <= topk <= n, ldk >= topk, idx and val m x topk with leading dimension ldk. */
smm_status approx_check_topk_outputs(int64_t m, int64_t n, int64_t topk, const int64_t *idx, const float *val,
                                     int64_t ldk);

/* The memory span (smm_runtime.h) of op(X), rows x cols, stored in `layout` with leading dimension ld. */
smm_span approx_stored_span(smm_layout layout, smm_trans trans, int64_t rows, int64_t cols, const float *X,
                            int64_t ld);

/*
 * SMM_ERR_BAD_ARGUMENT when the spans of the top-k outputs (idx and val,
 * m x topk with leading dimension ldk) overlap each other or one of the
 * input spans a and b (an empty span: no input), else SMM_OK.
 */
smm_status approx_check_topk_overlap(int64_t m, int64_t topk, const int64_t *idx, const float *val, int64_t ldk,
                                     smm_span a, smm_span b);

/* The product C := alpha op(A) op(B) + beta C of exact_sgemm's arguments (n columns of op(B), dimension k). */
approx_problem approx_problem_of(smm_layout layout, smm_trans transa, int64_t m, int64_t n, int64_t k, float alpha,
                                 const float *A, int64_t lda, float beta, float *C, int64_t ldc);

#endif /* APPROX_ARGS_H */
