/*
 * approx_topk.c - the topk largest entries of each row of op(A) op(B): the
 * plan's method estimates the product a block at a time (never whole), a
 * selection pass keeps the `candidates` best estimates of each row, and only
 * those are computed exactly (approx.h: approx_plan_topk).
 */
#include <omp.h>
#include <string.h>

#include "approx/approx_plan.h"
#include "approx/approx_refine.h"
#include "approx/approx_select.h"
#include "approx/topk_stream.h"

/*
 * Blocks of the sketch families' estimates per thread: rows x columns, small
 * enough to stay in L1 between the estimate and the selection that reads it;
 * each block of codes is read once for all the block's rows. (The classical
 * methods go through topk_stream instead: each block is a one-thread SGEMM.)
 */
#define CODES_TOPK_ROWS 8
#define CODES_TOPK_COLS 512

/* Candidates per row: the option, or 10 topk (at most n). */
static int64_t candidates_of(const approx_options *opts, int64_t topk, int64_t n)
{
    if (opts->candidates > 0)
        return opts->candidates;
    return 10 * topk < n ? 10 * topk : n;
}

/*
 * The sketch families: each thread takes CODES_TOPK_ROWS rows at a time and
 * runs them over the codes a block of CODES_TOPK_COLS columns at a time
 * (the block's codes are read once for all its rows), feeding each row's
 * selection; the r best columns of row i go to cand[i * r ..].
 */
static smm_status codes_candidates(const smm_context *ctx, const approx_plan *plan, const void *a_state, int64_t m,
                                   int64_t r, int64_t *cand)
{
    const approx_method_ops *ops = plan->ops;
    const approx_b_side *b = &plan->b;
    const int64_t n = b->cols.count;
    const size_t est_bytes = (size_t)(CODES_TOPK_ROWS * CODES_TOPK_COLS) * sizeof(float);
    const size_t method_bytes =
        (ops->block_work_bytes(b, plan->b_state, CODES_TOPK_ROWS, CODES_TOPK_COLS) + 63) & ~(size_t)63;
    const int64_t cap = top_select_capacity(r);
    const double sel_bytes = (double)CODES_TOPK_ROWS * (double)cap * (double)sizeof(scored_index);
    if (sel_bytes > 1e15)
        return SMM_ERR_OVERFLOW;
    const size_t per_thread = est_bytes + method_bytes + (size_t)sel_bytes;
    if ((double)per_thread * ctx->threads > 1e18)
        return SMM_ERR_OVERFLOW;
    char *work = smm_aligned_alloc(per_thread * (size_t)ctx->threads);
    if (work == NULL)
        return SMM_ERR_NO_MEMORY;
    const smm_context ctx1 = { ctx->isa, 1 };
    const int64_t blocks = (m + CODES_TOPK_ROWS - 1) / CODES_TOPK_ROWS;

#pragma omp parallel num_threads(ctx->threads)
    {
        char *mine = work + per_thread * (size_t)omp_get_thread_num();
        float *est = (float *)mine;
        void *method_work = mine + est_bytes;
        scored_index *sel_buf = (scored_index *)(mine + est_bytes + method_bytes);
        top_select sel[CODES_TOPK_ROWS];

#pragma omp for schedule(dynamic, 1)
        for (int64_t blk = 0; blk < blocks; blk++) {
            const int64_t i0 = blk * CODES_TOPK_ROWS;
            const int64_t rows = m - i0 < CODES_TOPK_ROWS ? m - i0 : CODES_TOPK_ROWS;
            for (int64_t row = 0; row < rows; row++)
                top_select_init(&sel[row], sel_buf + row * cap, r, ctx->isa);
            for (int64_t j0 = 0; j0 < n; j0 += CODES_TOPK_COLS) {
                const int64_t cols = n - j0 < CODES_TOPK_COLS ? n - j0 : CODES_TOPK_COLS;
                ops->estimate_block(&ctx1, b, plan->b_state, a_state, i0, rows, j0, cols, est, CODES_TOPK_COLS,
                                    method_work);
                for (int64_t row = 0; row < rows; row++)
                    top_select_feed(&sel[row], est + row * CODES_TOPK_COLS, j0, cols);
            }
            for (int64_t row = 0; row < rows; row++) {
                const int64_t got = top_select_finish(&sel[row], 0); /* == r: r <= n; the set is what counts */
                for (int64_t c = 0; c < got; c++)
                    cand[(i0 + row) * r + c] = sel[row].buf[c].index;
            }
        }
    }
    smm_aligned_free(work);
    return SMM_OK;
}

/* The classical methods' estimate as a score stream: each block one SGEMM (AS rows times SB columns) on one thread. */
typedef struct {
    const approx_plan *plan;
    const void *a_state;
} estimate_blocks;

static smm_status estimate_block_scores(const void *arg, const smm_context *ctx, int64_t i0, int64_t rows, int64_t j0,
                                        int64_t cols, float *out, int64_t ldo)
{
    const estimate_blocks *e = arg;
    const approx_plan *plan = e->plan;
    /* block_work_bytes is 0 for the classical methods (checked by the caller) */
    plan->ops->estimate_block(ctx, &plan->b, plan->b_state, e->a_state, i0, rows, j0, cols, out, ldo, NULL);
    return SMM_OK;
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

/* The classical methods: the score stream of topk_stream, its blocks sized by the sketch dimension. */
static smm_status classical_candidates(const smm_context *ctx, const approx_plan *plan, const void *a_state, int64_t m,
                                       int64_t r, int64_t *cand)
{
    const int64_t dim = plan->b.opts.sketch_dim;
    if (plan->ops->block_work_bytes(&plan->b, plan->b_state, topk_stream_rows(dim), TOPK_STREAM_COLS) != 0)
        return SMM_ERR_BAD_METHOD; /* not a method this driver knows */
    const estimate_blocks e = { plan, a_state };
    candidate_rows c = { r, cand };
    return topk_stream(ctx, m, plan->b.cols.count, r, topk_stream_block(dim), 0, estimate_block_scores, &e,
                       keep_candidates, &c, 0);
}

smm_status approx_plan_topk_run(const smm_context *ctx, const approx_plan *plan, const approx_vectors *rows_a,
                                int64_t topk, int64_t *idx, float *val, int64_t ldk)
{
    const approx_b_side *b = &plan->b;
    const int64_t m = rows_a->count;
    const int64_t r = candidates_of(&b->opts, topk, b->cols.count);
    const int codes = sketch_method_uses_bits(b->opts.method);
    smm_status s = codes ? SMM_OK : approx_check_finite(ctx, rows_a, b->k);
    void *a_state = NULL;
    double t0 = approx_clock();
    if (s == SMM_OK)
        s = plan->ops->sketch_a(ctx, b, plan->b_state, rows_a, &a_state);
    approx_phase_add(&approx_phases.encode_a, t0);
    if (s != SMM_OK)
        return s;
    int64_t entries;
    int64_t *cand = NULL;
    if (smm_mul_size(m, r, &entries) != SMM_OK || entries > INT64_MAX / 16)
        s = SMM_ERR_OVERFLOW;
    else if ((cand = smm_aligned_alloc((size_t)entries * sizeof(int64_t))) == NULL)
        s = SMM_ERR_NO_MEMORY;
    t0 = approx_clock();
    if (s == SMM_OK)
        s = codes ? codes_candidates(ctx, plan, a_state, m, r, cand) : classical_candidates(ctx, plan, a_state, m, r, cand);
    plan->ops->free_state(a_state);
    approx_phase_add(&approx_phases.estimate, t0);
    t0 = approx_clock();
    if (s == SMM_OK)
        s = approx_refine(ctx, rows_a, &b->cols, b->k, m, r, cand, topk, idx, val, ldk);
    approx_phase_add(&approx_phases.refine, t0);
    smm_aligned_free(cand);
    return s;
}

/*
 * The checks of a top-k call's A, outputs and candidate count against n
 * columns of dimension k, then of the outputs' spans against each other, A
 * and b_span (the caller's B in a one-shot call; empty for a plan, which
 * has its own copy).
 */
static smm_status check_topk_args(smm_layout layout, smm_trans transa, int64_t m, int64_t n, int64_t k,
                                  const float *A, int64_t lda, int64_t topk, const int64_t *idx, const float *val,
                                  int64_t ldk, const approx_options *opts, smm_span b_span)
{
    smm_status s = approx_check_a(layout, transa, m, k, A, lda);
    if (s == SMM_OK)
        s = approx_check_topk_outputs(m, n, topk, idx, val, ldk);
    if (s == SMM_OK && opts->candidates != 0 && (opts->candidates < topk || opts->candidates > n))
        s = SMM_ERR_BAD_ARGUMENT;
    if (s == SMM_OK)
        s = approx_check_topk_overlap(m, topk, idx, val, ldk, approx_stored_span(layout, transa, m, k, A, lda),
                                      b_span);
    return s;
}

smm_status approx_plan_topk(const approx_plan *plan, smm_layout layout, smm_trans transa,
                            int64_t m, const float *A, int64_t lda,
                            int64_t topk, int64_t *idx, float *val, int64_t ldk)
{
    approx_phases_clear();
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    const smm_span no_b = { 0, 0 };
    smm_status s = check_topk_args(layout, transa, m, plan->b.cols.count, plan->b.k, A, lda, topk, idx, val, ldk,
                                   &plan->b.opts, no_b);
    smm_context ctx;
    if (s == SMM_OK)
        s = approx_context(&plan->b.opts, &ctx);
    if (s != SMM_OK || m == 0)
        return s;
    const approx_vectors rows_a = approx_vectors_of(layout, transa, 1, m, A, lda);
    return approx_plan_topk_run(&ctx, plan, &rows_a, topk, idx, val, ldk);
}

smm_status approx_topk(smm_layout layout, smm_trans transa, smm_trans transb,
                       int64_t m, int64_t n, int64_t k,
                       const float *A, int64_t lda, const float *B, int64_t ldb,
                       int64_t topk, int64_t *idx, float *val, int64_t ldk,
                       const approx_options *opts)
{
    approx_phases_clear();
    approx_options defaults;
    smm_context ctx;
    smm_status s = approx_resolve(&opts, &defaults, &ctx);
    if (s == SMM_OK)
        s = approx_check_b(layout, transb, k, n, B, ldb);
    if (s == SMM_OK)
        s = check_topk_args(layout, transa, m, n, k, A, lda, topk, idx, val, ldk, opts,
                            approx_stored_span(layout, transb, k, n, B, ldb));
    if (s != SMM_OK || m == 0)
        return s;
    const approx_vectors cols = approx_vectors_of(layout, transb, 0, n, B, ldb);
    approx_plan *plan;
    s = approx_plan_build(&ctx, &cols, k, opts, 0, &plan);
    if (s != SMM_OK)
        return s;
    const approx_vectors rows_a = approx_vectors_of(layout, transa, 1, m, A, lda);
    s = approx_plan_topk_run(&ctx, plan, &rows_a, topk, idx, val, ldk);
    approx_plan_free(plan);
    return s;
}
