/*
 * approx_plan.c - plans: the sketch of op(B) made once (approx_plan_create)
 * and the products against it (approx_plan_multiply); the option checks,
 * method table and argument plumbing every approximate entry point shares.
 */
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "approx/approx_plan.h"
#include "exact/sgemm.h"
#include "sketchmm/sketch.h"

_Thread_local approx_phase_times approx_phases;

void approx_phases_clear(void)
{
    const approx_phase_times zero = { 0.0, 0.0, 0.0, 0.0 };
    approx_phases = zero;
}

double approx_clock(void)
{
    return omp_get_wtime();
}

void approx_phase_add(double *phase_of_last, double t0)
{
    *phase_of_last += omp_get_wtime() - t0;
}

smm_status approx_last_phase_times(approx_phase_times *t)
{
    if (t == NULL)
        return SMM_ERR_NULL_POINTER;
    *t = approx_phases;
    return SMM_OK;
}

void approx_options_init(approx_options *opts)
{
    if (opts) {
        const approx_options defaults = APPROX_OPTIONS_INIT;
        *opts = defaults;
    }
}

const approx_method_ops *approx_ops(sketch_method method)
{
    const approx_method_ops *ops = approx_codes_ops(method);
    if (ops == NULL)
        ops = approx_pq_ops(method);
    if (ops == NULL)
        ops = approx_maddness_ops(method);
    return ops != NULL ? ops : approx_classical_ops(method);
}

/* Write a sentence to msg (msg_size bytes; nothing when msg is NULL) and return s. */
static smm_status explain(smm_status s, char *msg, size_t msg_size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static smm_status explain(smm_status s, char *msg, size_t msg_size, const char *fmt, ...)
{
    if (msg != NULL && msg_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return s;
}

smm_status approx_check_options(const approx_options *opts, char *msg, size_t msg_size)
{
    if (approx_ops(opts->method) == NULL)
        return explain(SMM_ERR_BAD_METHOD, msg, msg_size, "method %d is not a method of this library (1..%d)",
                       (int)opts->method, (int)SKETCH_MADDNESS);
    const char *name = sketch_method_name(opts->method);
    if (sketch_method_uses_bits(opts->method)) {
        if (opts->bits < 1 || opts->bits > SKETCH_MAX_BITS)
            return explain(SMM_ERR_BAD_BITS, msg, msg_size, "%s: bits = %d is outside 1..%d", name, (int)opts->bits,
                           SKETCH_MAX_BITS);
    } else if (opts->sketch_dim < 1 || opts->sketch_dim > APPROX_MAX_SKETCH_DIM) {
        return explain(SMM_ERR_BAD_ARGUMENT, msg, msg_size, "%s: sketch_dim = %d is outside 1..%d", name,
                       (int)opts->sketch_dim, APPROX_MAX_SKETCH_DIM);
    }
    if (opts->num_threads < 0 || opts->num_threads > SMM_MAX_THREADS)
        return explain(SMM_ERR_BAD_THREADS, msg, msg_size, "num_threads = %d is outside 0..%d",
                       (int)opts->num_threads, SMM_MAX_THREADS);
    if (opts->candidates < 0)
        return explain(SMM_ERR_BAD_ARGUMENT, msg, msg_size, "candidates = %lld is negative",
                       (long long)opts->candidates);
    if (opts->energy != 0.0 && opts->method != SKETCH_LOWRANK)
        return explain(SMM_ERR_BAD_ARGUMENT, msg, msg_size, "energy is an option of lowrank only, not of %s", name);
    if (opts->energy != 0.0 && !(opts->energy > 0.0 && opts->energy <= 1.0))
        return explain(SMM_ERR_BAD_ARGUMENT, msg, msg_size, "lowrank: energy = %g is outside (0, 1]", opts->energy);
    return explain(SMM_OK, msg, msg_size, "%s", "");
}

smm_status approx_check_sizes(const approx_options *opts, int64_t k, int64_t n, char *msg, size_t msg_size)
{
    if (msg != NULL && msg_size > 0)
        msg[0] = '\0';
    approx_options defaults;
    if (opts == NULL) {
        approx_options_init(&defaults);
        opts = &defaults;
    }
    if (k < 1 || n < 1)
        return explain(SMM_ERR_BAD_SIZE, msg, msg_size, "op(B) is %lld x %lld: k and n must be at least 1",
                       (long long)k, (long long)n);
    smm_status s = approx_check_options(opts, msg, msg_size);
    if (s == SMM_OK && approx_ops(opts->method)->check_sizes != NULL)
        s = approx_ops(opts->method)->check_sizes(opts, k, n, msg, msg_size);
    return s;
}

smm_status approx_context(const approx_options *opts, smm_context *ctx)
{
    smm_status s = smm_context_current(ctx);
    if (s == SMM_OK && opts->num_threads > 0)
        ctx->threads = opts->num_threads;
    return s;
}

smm_status approx_resolve(const approx_options **opts, approx_options *defaults, smm_context *ctx)
{
    if (*opts == NULL) {
        approx_options_init(defaults);
        *opts = defaults;
    }
    smm_status s = approx_check_options(*opts, NULL, 0);
    if (s == SMM_OK)
        s = approx_context(*opts, ctx);
    return s;
}

/* Transposing a matrix flips its layout, so op(X) = X^T in one layout is X in the other. */
approx_vectors approx_vectors_of(smm_layout layout, smm_trans trans, int rows, int64_t count, const float *X,
                                 int64_t ld)
{
    const int transposed = (trans == SMM_TRANS) != !rows; /* rows of op(X), or rows of op(X)^T */
    const smm_layout flipped = layout == SMM_ROW_MAJOR ? SMM_COL_MAJOR : SMM_ROW_MAJOR;
    approx_vectors v = { transposed ? flipped : layout, count, X, ld };
    return v;
}

void approx_vectors_operand(const approx_vectors *v, int64_t first, const float **X, smm_trans *trans)
{
    /* row-major: vector i is row i of the stored matrix; column-major: row i of it is column i stored row-major */
    *X = v->layout == SMM_ROW_MAJOR ? v->data + first * v->ld : v->data + first;
    *trans = v->layout == SMM_ROW_MAJOR ? SMM_NO_TRANS : SMM_TRANS;
}

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

void *approx_alloc(int64_t count, int64_t size, smm_status *status)
{
    int64_t bytes;
    if (smm_mul_size(count, size, &bytes) != SMM_OK) {
        *status = SMM_ERR_OVERFLOW;
        return NULL;
    }
    void *p = smm_aligned_alloc((size_t)bytes);
    if (p == NULL)
        *status = SMM_ERR_NO_MEMORY;
    return p;
}

void *approx_new_state(size_t size)
{
    void *st = smm_aligned_alloc(size);
    if (st != NULL)
        memset(st, 0, size);
    return st;
}

smm_status approx_row_major(const approx_vectors *v, int64_t dim, const float **X, int64_t *ld, float **copy)
{
    *copy = NULL;
    if (v->layout == SMM_ROW_MAJOR) {
        *X = v->data;
        *ld = v->ld;
        return SMM_OK;
    }
    smm_status status = SMM_OK;
    float *c = approx_alloc(v->count, dim * (int64_t)sizeof(float), &status);
    if (c == NULL)
        return status;
    for (int64_t i = 0; i < v->count; i++)
        for (int64_t t = 0; t < dim; t++)
            c[i * dim + t] = v->data[t * v->ld + i];
    *X = *copy = c;
    *ld = dim;
    return SMM_OK;
}

void approx_plan_free(approx_plan *plan)
{
    if (plan == NULL)
        return;
    if (plan->ops != NULL)
        plan->ops->free_state(plan->b_state);
    smm_aligned_free(plan->copy);
    smm_aligned_free(plan);
}

smm_status approx_plan_build(const smm_context *ctx, const approx_vectors *cols, int64_t k,
                             const approx_options *opts, int copy, approx_plan **plan)
{
    *plan = NULL;
    approx_plan *p = smm_aligned_alloc(sizeof *p);
    if (p == NULL)
        return SMM_ERR_NO_MEMORY;
    p->ops = approx_ops(opts->method);
    p->b.cols = *cols;
    p->b.k = k;
    p->b.opts = *opts;
    p->copy = NULL;
    p->b_state = NULL;
    p->b_shift = 0;
    smm_status s = p->ops->check_sizes != NULL ? p->ops->check_sizes(opts, k, cols->count, NULL, 0) : SMM_OK;
    int exponent = 0;
    if (s == SMM_OK && p->ops->scale != APPROX_SCALE_NONE) /* the sketch families' encoders check as they go */
        s = approx_check_values(ctx, cols, k, &exponent);
    p->b_shift = approx_safe_shift(exponent);
    if (s == SMM_OK && (copy || p->b_shift != 0)) /* a one-shot call borrows op(B) unless it must be scaled */
        s = approx_scaled_copy(ctx, cols, k, p->b_shift, &p->copy, &p->b.cols);
    const double t0 = approx_clock();
    if (s == SMM_OK)
        s = p->ops->sketch_b(ctx, &p->b, &p->b_state);
    approx_phase_add(&approx_phases.encode_b, t0);
    if (s != SMM_OK) {
        approx_plan_free(p);
        return s;
    }
    *plan = p;
    return SMM_OK;
}

smm_status approx_plan_create(smm_layout layout, smm_trans transb, int64_t k, int64_t n,
                              const float *B, int64_t ldb, const approx_options *opts,
                              approx_plan **plan)
{
    approx_phases_clear();
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    *plan = NULL;
    approx_options defaults;
    smm_context ctx;
    smm_status s = approx_check_b(layout, transb, k, n, B, ldb);
    if (s == SMM_OK)
        s = approx_resolve(&opts, &defaults, &ctx);
    if (s != SMM_OK)
        return s;
    const approx_vectors cols = approx_vectors_of(layout, transb, 0, n, B, ldb);
    return approx_plan_build(&ctx, &cols, k, opts, 1, plan);
}

smm_status approx_plan_info(const approx_plan *plan, int64_t *k, int64_t *n, approx_options *opts)
{
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    if (k != NULL)
        *k = plan->b.k;
    if (n != NULL)
        *n = plan->b.cols.count;
    if (opts != NULL)
        *opts = plan->b.opts;
    return SMM_OK;
}

smm_status approx_plan_scale_a(const smm_context *ctx, const approx_plan *plan, const approx_vectors *rows_a,
                               approx_vectors *scaled, float **copy, int *shift)
{
    *scaled = *rows_a;
    *copy = NULL;
    *shift = 0;
    if (plan->ops->scale == APPROX_SCALE_NONE)
        return SMM_OK;
    int exponent = 0;
    smm_status s = approx_check_values(ctx, rows_a, plan->b.k, &exponent);
    *shift = approx_safe_shift(exponent);
    if (s == SMM_OK && plan->ops->scale == APPROX_SCALE_SHARED) {
        *shift = plan->b_shift;
        if (exponent - plan->b_shift > 127) /* op(A) times op(B)'s power of two overflows */
            s = SMM_ERR_NON_FINITE;
    }
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

smm_status approx_plan_run(const smm_context *ctx, const approx_plan *plan, const approx_problem *p)
{
    const approx_method_ops *ops = plan->ops;
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
    approx_phase_add(&approx_phases.encode_a, t0);
    t0 = approx_clock();
    if (s == SMM_OK)
        s = ops->estimate(ctx, &plan->b, plan->b_state, a_state, &q);
    approx_phase_add(&approx_phases.estimate, t0);
    ops->free_state(a_state);
    smm_aligned_free(a_copy);
    return s;
}

smm_status approx_plan_multiply(const approx_plan *plan, smm_layout layout, smm_trans transa,
                                int64_t m, float alpha, const float *A, int64_t lda,
                                float beta, float *C, int64_t ldc)
{
    approx_phases_clear();
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    const int64_t n = plan->b.cols.count, k = plan->b.k;
    smm_status s = approx_check_a(layout, transa, m, k, A, lda);
    if (s == SMM_OK)
        s = smm_check_matrix(layout, m, n, C, ldc, sizeof(float));
    smm_context ctx;
    if (s == SMM_OK)
        s = approx_context(&plan->b.opts, &ctx);
    if (s != SMM_OK || m == 0)
        return s;
    const approx_problem p = approx_problem_of(layout, transa, m, n, k, alpha, A, lda, beta, C, ldc);
    if (alpha == 0.0f) { /* C := beta * C, as exact_sgemm does it */
        scale_c(&ctx, C, p.rs_c, p.cs_c, m, n, beta);
        return SMM_OK;
    }
    /* C must not overlap A (the plan's op(B) is its own copy) */
    if (smm_spans_overlap(smm_matrix_span(layout, m, n, C, ldc, sizeof(float)),
                          approx_stored_span(layout, transa, m, k, A, lda)))
        return SMM_ERR_BAD_ARGUMENT;
    return approx_plan_run(&ctx, plan, &p);
}
