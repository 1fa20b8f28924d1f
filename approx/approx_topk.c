/*
 * approx_topk.c - the topk largest entries of each row of op(A) op(B): the
 * plan's method estimates the product a block at a time (never whole), a
 * selection pass keeps the `candidates` best estimates of each row, and only
 * those are computed exactly (approx.h: approx_plan_topk). One driver for
 * every method: topk_stream, in the blocks of the method's registry entry.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "approx/approx_plan.h"
#include "approx/approx_refine.h"
#include "approx/topk_stream.h"

/* The method's estimate as a score stream: each block one call of estimate_block on one thread. */
typedef struct {
    const approx_plan *plan;
    const void *a_state;
} estimate_blocks;

static smm_status estimate_block_scores(const void *arg, const smm_context *ctx, int64_t i0, int64_t rows, int64_t j0,
                                        int64_t cols, float *out, int64_t ldo)
{
    const estimate_blocks *e = arg;
    const approx_plan *plan = e->plan;
    plan->method->ops->estimate_block(ctx, &plan->b, plan->b_state, e->a_state, i0, rows, j0, cols, out, ldo);
    return SMM_OK;
}

/* The method's estimates of a block fed straight into the selections, when the method can (approx_problem.h). */
static int estimate_block_select(const void *arg, const smm_context *ctx, int64_t i0, int64_t rows, int64_t j0,
                                 int64_t cols, top_select *sel)
{
    const estimate_blocks *e = arg;
    const approx_plan *plan = e->plan;
    return plan->method->ops->select_block(ctx, &plan->b, plan->b_state, e->a_state, i0, rows, j0, cols, sel);
}

typedef struct {
    int64_t r;
    int64_t *cand;
} candidate_rows;

static void keep_candidates(void *arg, int64_t i, scored_index *best, int64_t count, void *scratch)
{
    (void)scratch;
    const candidate_rows *c = arg;
    for (int64_t t = 0; t < count; t++) /* count == r: r <= n */
        c->cand[i * c->r + t] = best[t].index;
}

/*
 * approx_refine of the scaled vectors, their values times 2^shift. When that
 * power of two can carry an exact value beyond float (|<a, b>| < 4 k for
 * sides scaled below 2), the results go to a scratch copy first: a value
 * that overflowed gives SMM_ERR_NON_FINITE with idx and val untouched.
 */
static smm_status refine_scaled(const smm_context *ctx, const approx_plan *plan, const approx_vectors *rows_a,
                                int shift, int64_t r, const int64_t *cand, int64_t topk, int64_t *idx, float *val,
                                int64_t ldk)
{
    const approx_b_side *b = &plan->b;
    const int64_t m = rows_a->count;
    if (shift <= 0 || ldexp(4.0 * (double)b->k, shift) <= FLT_MAX)
        return approx_refine(ctx, rows_a, &b->cols, b->k, shift, m, r, cand, topk, idx, val, ldk);
    int64_t entries;
    if (smm_mul_size(m, topk, &entries) != SMM_OK || entries > INT64_MAX / 16)
        return SMM_ERR_OVERFLOW;
    int64_t *idx_tmp = smm_aligned_alloc((size_t)entries * sizeof(int64_t));
    float *val_tmp = smm_aligned_alloc((size_t)entries * sizeof(float));
    smm_status s = idx_tmp != NULL && val_tmp != NULL ? SMM_OK : SMM_ERR_NO_MEMORY;
    if (s == SMM_OK)
        s = approx_refine(ctx, rows_a, &b->cols, b->k, shift, m, r, cand, topk, idx_tmp, val_tmp, topk);
    for (int64_t e = 0; s == SMM_OK && e < entries; e++)
        if (!isfinite(val_tmp[e]))
            s = SMM_ERR_NON_FINITE; /* the product itself is beyond float */
    for (int64_t i = 0; s == SMM_OK && i < m; i++) {
        memcpy(idx + i * ldk, idx_tmp + i * topk, (size_t)topk * sizeof(int64_t));
        memcpy(val + i * ldk, val_tmp + i * topk, (size_t)topk * sizeof(float));
    }
    smm_aligned_free(idx_tmp);
    smm_aligned_free(val_tmp);
    return s;
}

smm_status approx_plan_topk_run(const smm_context *ctx, const approx_plan *plan, const approx_vectors *rows_a,
                                int64_t r, int64_t topk, int64_t *idx, float *val, int64_t ldk,
                                approx_phase_times *times)
{
    const approx_b_side *b = &plan->b;
    const approx_method *method = plan->method;
    const int64_t m = rows_a->count;
    approx_vectors scaled_a;
    float *a_copy;
    int a_shift;
    smm_status s = approx_plan_scale_a(ctx, plan, rows_a, &scaled_a, &a_copy, &a_shift);
    void *a_state = NULL;
    double t0 = approx_clock();
    if (s == SMM_OK)
        s = method->ops->sketch_a(ctx, b, plan->b_state, &scaled_a, &a_state);
    approx_phase_add(&times->encode_a, t0);
    int64_t entries;
    int64_t *cand = NULL;
    if (s == SMM_OK && (smm_mul_size(m, r, &entries) != SMM_OK || entries > INT64_MAX / 16))
        s = SMM_ERR_OVERFLOW;
    if (s == SMM_OK && (cand = smm_aligned_alloc((size_t)entries * sizeof(int64_t))) == NULL)
        s = SMM_ERR_NO_MEMORY;
    t0 = approx_clock();
    if (s == SMM_OK) { /* the candidate pass: the method's estimates in its blocks, selected while in cache */
        const estimate_blocks e = { plan, a_state };
        const topk_scores scores = { estimate_block_scores,
                                     method->ops->select_block != NULL ? estimate_block_select : NULL, &e };
        candidate_rows c = { r, cand };
        s = topk_stream(ctx, m, b->cols.count, r, method->topk_shape(b->opts.size, b->k), 0, &scores,
                        keep_candidates, &c, 0);
    }
    method->ops->free_state(a_state);
    approx_phase_add(&times->estimate, t0);
    t0 = approx_clock();
    if (s == SMM_OK) /* exact values from the vectors the method saw, scaled back (approx_scale.h) */
        s = refine_scaled(ctx, plan, &scaled_a, a_shift + plan->b_shift, r, cand, topk, idx, val, ldk);
    approx_phase_add(&times->refine, t0);
    smm_aligned_free(cand);
    smm_aligned_free(a_copy);
    return s;
}

/*
 * The checks of a top-k call's A, outputs and candidate count r (resolved:
 * the call's, the plan's, or 10 topk capped at n) against n columns of
 * dimension k, then of the outputs' spans against each other, A and b_span
 * (the caller's B when a call reads it; empty for a plan's own copy).
 */
static smm_status check_topk_args(smm_layout layout, smm_trans transa, int64_t m, int64_t n, int64_t k,
                                  const float *A, int64_t lda, int64_t topk, const int64_t *idx, const float *val,
                                  int64_t ldk, int64_t candidates, smm_span b_span)
{
    smm_status s = approx_check_a(layout, transa, m, k, A, lda);
    if (s == SMM_OK)
        s = approx_check_topk_outputs(m, n, topk, idx, val, ldk);
    if (s == SMM_OK && candidates != 0 && (candidates < topk || candidates > n))
        s = SMM_ERR_BAD_ARGUMENT;
    if (s == SMM_OK)
        s = approx_check_topk_overlap(m, topk, idx, val, ldk, approx_stored_span(layout, transa, m, k, A, lda),
                                      b_span);
    return s;
}

/* Candidates per row: the call's, else the options', else 10 topk (at most n). */
static int64_t candidates_of(const approx_call *call, const approx_options *opts, int64_t topk, int64_t n)
{
    if (call->candidates > 0)
        return call->candidates;
    if (opts->candidates > 0)
        return opts->candidates;
    return 10 * topk < n ? 10 * topk : n;
}

smm_status approx_plan_topk(const approx_plan *plan, smm_layout layout, smm_trans transa,
                            int64_t m, const float *A, int64_t lda,
                            int64_t topk, int64_t *idx, float *val, int64_t ldk, const approx_call *call)
{
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    approx_phase_times times = { 0.0, 0.0, 0.0, 0.0 };
    const int64_t n = plan->b.cols.count;
    approx_call c;
    smm_status s = approx_call_read(call, &c);
    if (s == SMM_OK)
        s = check_topk_args(layout, transa, m, n, plan->b.k, A, lda, topk, idx, val, ldk,
                            c.candidates > 0 ? c.candidates : plan->b.opts.candidates, plan->borrowed);
    smm_context ctx;
    if (s == SMM_OK)
        s = approx_context(&plan->b.opts, &ctx);
    if (s != SMM_OK || m == 0) {
        approx_report_times(call, &times);
        return s;
    }
    const approx_vectors rows_a = approx_vectors_of(layout, transa, 1, m, A, lda);
    s = approx_plan_topk_run(&ctx, plan, &rows_a, candidates_of(&c, &plan->b.opts, topk, n), topk, idx, val, ldk,
                             &times);
    approx_report_times(call, &times);
    return s;
}

smm_status approx_topk(smm_layout layout, smm_trans transa, smm_trans transb,
                       int64_t m, int64_t n, int64_t k,
                       const float *A, int64_t lda, const float *B, int64_t ldb,
                       int64_t topk, int64_t *idx, float *val, int64_t ldk,
                       const approx_options *opts, const approx_call *call)
{
    approx_phase_times times = { 0.0, 0.0, 0.0, 0.0 };
    approx_options o;
    approx_call c;
    smm_context ctx;
    smm_status s = approx_resolve(opts, &o, &ctx);
    if (s == SMM_OK)
        s = approx_call_read(call, &c);
    if (s == SMM_OK)
        s = approx_check_b(layout, transb, k, n, B, ldb);
    const smm_span b_span = approx_stored_span(layout, transb, k, n, B, ldb);
    if (s == SMM_OK)
        s = check_topk_args(layout, transa, m, n, k, A, lda, topk, idx, val, ldk,
                            c.candidates > 0 ? c.candidates : o.candidates, b_span);
    if (s != SMM_OK || m == 0) {
        approx_report_times(call, &times);
        return s;
    }
    const approx_vectors cols = approx_vectors_of(layout, transb, 0, n, B, ldb);
    approx_plan *plan;
    s = approx_plan_build(&ctx, &cols, k, b_span, &o, 0, &times, &plan);
    if (s == SMM_OK) {
        const approx_vectors rows_a = approx_vectors_of(layout, transa, 1, m, A, lda);
        s = approx_plan_topk_run(&ctx, plan, &rows_a, candidates_of(&c, &o, topk, n), topk, idx, val, ldk, &times);
        approx_plan_free(plan);
    }
    approx_report_times(call, &times);
    return s;
}
