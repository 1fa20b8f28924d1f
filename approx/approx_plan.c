/*
 * approx_plan.c - plans: the sketch of op(B) made once (approx_plan_create)
 * and the products against it (approx_plan_multiply).
 */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "approx/approx_plan.h"

double approx_clock(void)
{
    return omp_get_wtime();
}

void approx_phase_add(double *phase, double t0)
{
    *phase += omp_get_wtime() - t0;
}

void approx_report_times(const approx_call *call, const approx_phase_times *times)
{
    approx_call c;
    if (call != NULL && approx_call_read(call, &c) == SMM_OK && c.times != NULL)
        *c.times = *times;
}

void approx_plan_free(approx_plan *plan)
{
    if (plan == NULL)
        return;
    if (plan->method != NULL)
        plan->method->ops->free_state(plan->b_state);
    smm_aligned_free(plan->copy);
    smm_aligned_free(plan);
}

smm_status approx_plan_build(const smm_context *ctx, const approx_vectors *cols, int64_t k, smm_span span,
                             const approx_options *opts, int copy, approx_phase_times *times, approx_plan **plan)
{
    *plan = NULL;
    approx_plan *p = smm_aligned_alloc(sizeof *p);
    if (p == NULL)
        return SMM_ERR_NO_MEMORY;
    const approx_method *method = approx_method_of(opts->method);
    const smm_span none = { 0, 0 };
    p->method = method;
    p->b.cols = *cols;
    p->b.k = k;
    p->b.opts = *opts;
    p->b.method = method;
    p->copy = NULL;
    p->borrowed = none;
    p->b_state = NULL;
    p->b_shift = 0;
    smm_status s = method->check_sizes != NULL ? method->check_sizes(opts, k, cols->count, NULL, 0) : SMM_OK;
    int exponent = 0;
    if (s == SMM_OK && method->scale != APPROX_SCALE_NONE) /* the sketch families' encoders check as they go */
        s = approx_check_values(ctx, cols, k, &exponent);
    p->b_shift = approx_safe_shift(exponent);
    if (s == SMM_OK && (copy || p->b_shift != 0)) /* borrowed op(B) is still copied when it must be scaled */
        s = approx_scaled_copy(ctx, cols, k, p->b_shift, &p->copy, &p->b.cols);
    else
        p->borrowed = span;
    const double t0 = approx_clock();
    if (s == SMM_OK)
        s = method->ops->sketch_b(ctx, &p->b, &p->b_state);
    approx_phase_add(&times->encode_b, t0);
    if (s != SMM_OK) {
        approx_plan_free(p);
        return s;
    }
    *plan = p;
    return SMM_OK;
}

smm_status approx_plan_create(smm_layout layout, smm_trans transb, int64_t k, int64_t n,
                              const float *B, int64_t ldb, const approx_options *opts,
                              const approx_call *call, approx_plan **plan)
{
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    *plan = NULL;
    approx_phase_times times = { 0.0, 0.0, 0.0, 0.0 };
    approx_options o;
    approx_call c;
    smm_context ctx;
    smm_status s = approx_check_b(layout, transb, k, n, B, ldb);
    if (s == SMM_OK)
        s = approx_resolve(opts, &o, &ctx);
    if (s == SMM_OK)
        s = approx_call_read(call, &c);
    if (s == SMM_OK) {
        const approx_vectors cols = approx_vectors_of(layout, transb, 0, n, B, ldb);
        s = approx_plan_build(&ctx, &cols, k, approx_stored_span(layout, transb, k, n, B, ldb), &o,
                              !(o.flags & APPROX_BORROW_B), &times, plan);
    }
    approx_report_times(call, &times);
    return s;
}

smm_status approx_plan_info(const approx_plan *plan, int64_t *k, int64_t *n, approx_options *opts)
{
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    if (opts != NULL && (opts->struct_size < sizeof(size_t) || opts->struct_size > sizeof *opts))
        return SMM_ERR_BAD_ARGUMENT;
    if (k != NULL)
        *k = plan->b.k;
    if (n != NULL)
        *n = plan->b.cols.count;
    if (opts != NULL)
        memcpy(opts, &plan->b.opts, opts->struct_size); /* struct_size first: it stays the caller's */
    return SMM_OK;
}

smm_status approx_plan_scale_a(const smm_context *ctx, const approx_plan *plan, const approx_vectors *rows_a,
                               approx_vectors *scaled, float **copy, int *shift)
{
    *scaled = *rows_a;
    *copy = NULL;
    *shift = 0;
    const approx_scale_rule rule = plan->method->scale;
    if (rule == APPROX_SCALE_NONE)
        return SMM_OK;
    int exponent = 0;
    smm_status s = approx_check_values(ctx, rows_a, plan->b.k, &exponent);
    *shift = approx_safe_shift(exponent);
    if (s == SMM_OK && *shift != 0)
        s = approx_scaled_copy(ctx, rows_a, plan->b.k, *shift, copy, scaled);
    return s;
}

/* C := beta * C on the m x n view (beta == 0 writes zeros, whatever C held). */
static void scale_c(const smm_context *ctx, float *C, int64_t rs, int64_t cs, int64_t m, int64_t n, float beta)
{
    const int64_t outer = cs == 1 ? m : n, inner = cs == 1 ? n : m, ld = cs == 1 ? rs : cs;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t o = 0; o < outer; o++)
        for (int64_t t = 0; t < inner; t++)
            C[o * ld + t] = beta == 0.0f ? 0.0f : beta * C[o * ld + t];
}

smm_status approx_plan_run(const smm_context *ctx, const approx_plan *plan, const approx_problem *p,
                           approx_phase_times *times)
{
    const approx_method_ops *ops = plan->method->ops;
    approx_problem q = *p;
    float *a_copy;
    int a_shift;
    smm_status s = approx_plan_scale_a(ctx, plan, &p->rows_a, &q.rows_a, &a_copy, &a_shift);
    if (s == SMM_OK && a_shift + plan->b_shift != 0) {
        /* est(A, B) = 2^(a_shift + b_shift) est of the scaled sides, folded into alpha */
        q.alpha = (float)ldexp((double)p->alpha, a_shift + plan->b_shift);
        if (!isfinite(q.alpha)) {
            s = SMM_ERR_NON_FINITE; /* the product itself is beyond float */
        } else if (q.alpha == 0.0f) { /* ... or below it: alpha * est is 0 */
            scale_c(ctx, p->C, p->rs_c, p->cs_c, p->m, p->n, p->beta);
            smm_aligned_free(a_copy);
            return SMM_OK;
        }
    }
    void *a_state = NULL;
    double t0 = approx_clock();
    if (s == SMM_OK)
        s = ops->sketch_a(ctx, &plan->b, plan->b_state, &q.rows_a, &a_state);
    approx_phase_add(&times->encode_a, t0);
    t0 = approx_clock();
    if (s == SMM_OK)
        s = ops->estimate(ctx, &plan->b, plan->b_state, a_state, &q);
    approx_phase_add(&times->estimate, t0);
    ops->free_state(a_state);
    smm_aligned_free(a_copy);
    return s;
}

smm_status approx_plan_multiply(const approx_plan *plan, smm_layout layout, smm_trans transa,
                                int64_t m, float alpha, const float *A, int64_t lda,
                                float beta, float *C, int64_t ldc, const approx_call *call)
{
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    approx_phase_times times = { 0.0, 0.0, 0.0, 0.0 };
    const int64_t n = plan->b.cols.count, k = plan->b.k;
    approx_call c;
    smm_status s = approx_call_read(call, &c);
    if (s == SMM_OK)
        s = approx_check_a(layout, transa, m, k, A, lda);
    if (s == SMM_OK)
        s = smm_check_matrix(layout, m, n, C, ldc, sizeof(float));
    smm_context ctx;
    if (s == SMM_OK)
        s = approx_context(&plan->b.opts, &ctx);
    if (s != SMM_OK || m == 0) {
        approx_report_times(call, &times);
        return s;
    }
    const approx_problem p = approx_problem_of(layout, transa, m, n, k, alpha, A, lda, beta, C, ldc);
    if (alpha == 0.0f) { /* C := beta * C, as exact_sgemm does it */
        scale_c(&ctx, C, p.rs_c, p.cs_c, m, n, beta);
        approx_report_times(call, &times);
        return SMM_OK;
    }
    /* C must not overlap A, nor a borrowed op(B) (a copied one is the plan's own) */
    const smm_span c_span = smm_matrix_span(layout, m, n, C, ldc, sizeof(float));
    if (smm_spans_overlap(c_span, approx_stored_span(layout, transa, m, k, A, lda)) ||
        smm_spans_overlap(c_span, plan->borrowed))
        s = SMM_ERR_BAD_ARGUMENT;
    else
        s = approx_plan_run(&ctx, plan, &p, &times);
    approx_report_times(call, &times);
    return s;
}
