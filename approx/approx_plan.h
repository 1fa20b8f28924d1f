/*
 * approx_plan.h - library-internal side of plans (approx_plan.c), shared by
 * the one-shot calls (approx_sgemm.c) and top-k (approx_topk.c).
 */
#ifndef APPROX_PLAN_H
#define APPROX_PLAN_H

#include "approx/approx_problem.h"
#include "approx/approx_scale.h"

struct approx_plan {
    const approx_method_ops *ops;
    approx_b_side b;  /* b.cols: the plan's copy, or the caller's op(B) during a one-shot call */
    float *copy;      /* the copy (NULL when the plan borrows the caller's op(B)) */
    void *b_state;    /* ops->sketch_b's state */
    int b_shift;      /* op(B) = 2^b_shift b.cols (approx_scale.h; 0 unless the copy was scaled) */
};

/* The calling thread's phase times (approx_last_phase_times): cleared by each public call, added to by its phases. */
void approx_phases_clear(void);
/* Seconds from a wall clock, and the time since t0 added to one phase. */
double approx_clock(void);
void approx_phase_add(double *phase_of_last, double t0);
extern _Thread_local approx_phase_times approx_phases;

/* Check the options: method, its size (bits or sketch_dim), threads, candidates >= 0, energy; msg (may be NULL)
 * gets a sentence naming the limit, or "". */
smm_status approx_check_options(const approx_options *opts, char *msg, size_t msg_size);

/* The process-wide context with opts->num_threads (when > 0) as the thread count. */
smm_status approx_context(const approx_options *opts, smm_context *ctx);

/*
 * The options of a public call: *opts NULL becomes `defaults` (filled with
 * the defaults), then approx_check_options and approx_context into *ctx.
 */
smm_status approx_resolve(const approx_options **opts, approx_options *defaults, smm_context *ctx);

/*
 * The vectors a matrix argument holds, as rows of a matrix in some layout:
 * rows of op(X) when `rows` is set, columns of op(X) otherwise.
 */
approx_vectors approx_vectors_of(smm_layout layout, smm_trans trans, int rows, int64_t count, const float *X,
                                 int64_t ld);

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

/*
 * Vectors first, first + 1, .. of v as the rows of a row-major SGEMM operand:
 * *X and *trans such that op(X) (leading dimension v->ld) has them as rows.
 * As the columns of an operand (a right-hand factor), flip *trans.
 */
void approx_vectors_operand(const approx_vectors *v, int64_t first, const float **X, smm_trans *trans);

/*
 * Build a plan on the validated vectors cols (n >= 1 of dimension k >= 1)
 * with validated options: copying them (copy != 0) or borrowing them for a
 * call that ends before they can change (copy == 0). *plan NULL on error.
 */
smm_status approx_plan_build(const smm_context *ctx, const approx_vectors *cols, int64_t k,
                             const approx_options *opts, int copy, approx_plan **plan);

/*
 * The rows of op(A) (validated) as the plan's method sees them: checked for
 * NaN and Inf (SMM_ERR_NON_FINITE) and brought into the safe range by the
 * method's rule (approx_scale.h): *scaled is *rows_a itself (*shift 0,
 * *copy NULL) or a scaled copy of it (*copy, smm_aligned_free it), with
 * op(A) = 2^*shift *scaled.
 */
smm_status approx_plan_scale_a(const smm_context *ctx, const approx_plan *plan, const approx_vectors *rows_a,
                               approx_vectors *scaled, float **copy, int *shift);

/*
 * C := alpha * est + beta * C for the validated product p (p->n and p->k
 * those of the plan, p->m >= 1, alpha != 0) against the plan.
 */
smm_status approx_plan_run(const smm_context *ctx, const approx_plan *plan, const approx_problem *p);

/* Top-k of the validated rows of op(A) (count >= 1) against the plan (approx_topk.c). */
smm_status approx_plan_topk_run(const smm_context *ctx, const approx_plan *plan, const approx_vectors *rows_a,
                                int64_t topk, int64_t *idx, float *val, int64_t ldk);

#endif /* APPROX_PLAN_H */
