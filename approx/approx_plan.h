/*
 * approx_plan.h - library-internal side of plans (approx_plan.c), shared by
 * the one-shot calls (approx_sgemm.c) and top-k (approx_topk.c).
 */
#ifndef APPROX_PLAN_H
#define APPROX_PLAN_H

#include "approx/approx_args.h"
#include "approx/approx_method.h"
#include "approx/approx_options.h"
#include "approx/approx_scale.h"

struct approx_plan {
    const approx_method *method;
    approx_b_side b; /* b.cols: the plan's copy, or the caller's op(B) (borrowed, or during a one-shot call) */
    float *copy;     /* the copy (NULL when the plan borrows the caller's op(B)) */
    smm_span borrowed; /* the caller's op(B) when the plan reads it (empty otherwise): C must not overlap it */
    void *b_state;   /* method->ops->sketch_b's state */
    int b_shift;     /* op(B) = 2^b_shift b.cols (approx_scale.h; 0 unless the copy was scaled) */
};

/* Seconds from a wall clock, and the time since t0 added to one phase (of a call's own times). */
double approx_clock(void);
void approx_phase_add(double *phase, double t0);

/*
 * Build a plan on the validated vectors cols (n >= 1 of dimension k >= 1,
 * spanning `span` of the caller's memory) with validated options (size
 * resolved): copying them (copy != 0) or borrowing them for a call that ends
 * before they can change, or for the life of a plan made with
 * APPROX_BORROW_B (copy == 0). The encode_b time is added to times. *plan
 * NULL on error.
 */
smm_status approx_plan_build(const smm_context *ctx, const approx_vectors *cols, int64_t k, smm_span span,
                             const approx_options *opts, int copy, approx_phase_times *times, approx_plan **plan);

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
 * those of the plan, p->m >= 1, alpha != 0) against the plan; phase times
 * added to times.
 */
smm_status approx_plan_run(const smm_context *ctx, const approx_plan *plan, const approx_problem *p,
                           approx_phase_times *times);

/*
 * Top-k of the validated rows of op(A) (count >= 1) against the plan with r
 * candidates per row (topk <= r <= n) (approx_topk.c).
 */
smm_status approx_plan_topk_run(const smm_context *ctx, const approx_plan *plan, const approx_vectors *rows_a,
                                int64_t r, int64_t topk, int64_t *idx, float *val, int64_t ldk,
                                approx_phase_times *times);

/* The caller's phase times (call->times, when set) := times. */
void approx_report_times(const approx_call *call, const approx_phase_times *times);

#endif /* APPROX_PLAN_H */
