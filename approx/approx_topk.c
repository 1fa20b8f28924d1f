/*
 * approx_topk.c - the topk largest entries of each row of op(A) op(B): the
 * plan's method estimates a block of rows, a selection pass keeps the
 * `candidates` best estimates of each row, and only those are computed
 * exactly (approx.h: approx_plan_topk).
 */
#include <omp.h>
#include <string.h>

#include "approx/approx_plan.h"
#include "approx/approx_select.h"

/*
 * Blocks of the estimated product per thread: rows x columns, small enough to
 * stay in cache between the estimate and the selection that reads it. The
 * sketch families read each block of codes once for all the block's rows;
 * the classical methods multiply a block as one small SGEMM, which wants it
 * larger.
 */
#define CODES_TOPK_ROWS 8
#define CODES_TOPK_COLS 512
#define CLASSICAL_TOPK_ROWS 32
#define CLASSICAL_TOPK_COLS 2048

/*
 * <x, y> over k floats, each product exact in double, summed in double in a
 * fixed order (8 interleaved partial sums, then a fixed tree): the same bits
 * on every platform and ISA path.
 */
static double dot_exact(const float *x, const float *y, int64_t k)
{
    double acc[8] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
    int64_t t = 0;
    for (; t + 8 <= k; t += 8)
        for (int l = 0; l < 8; l++)
            acc[l] += (double)x[t + l] * (double)y[t + l];
    for (int l = 0; t + l < k; l++)
        acc[l] += (double)x[t + l] * (double)y[t + l];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

/* Vector i of v as k contiguous floats: a pointer into v, or a copy in tmp. */
static const float *vector_of(const approx_vectors *v, int64_t i, int64_t k, float *tmp)
{
    if (v->layout == SMM_ROW_MAJOR)
        return v->data + i * v->ld;
    for (int64_t t = 0; t < k; t++)
        tmp[t] = v->data[t * v->ld + i];
    return tmp;
}

/* Candidates per row: the option, or 10 topk (at most n). */
static int64_t candidates_of(const approx_options *opts, int64_t topk, int64_t n)
{
    if (opts->candidates > 0)
        return opts->candidates;
    return 10 * topk < n ? 10 * topk : n;
}

smm_status approx_plan_topk_run(const smm_context *ctx, const approx_plan *plan, const approx_vectors *rows_a,
                                int64_t topk, int64_t *idx, float *val, int64_t ldk)
{
    const approx_method_ops *ops = plan->ops;
    const approx_b_side *b = &plan->b;
    const int64_t m = rows_a->count, n = b->cols.count, k = b->k;
    const int64_t r = candidates_of(&b->opts, topk, n);

    smm_status s = SMM_OK;
    if (!approx_method_uses_bits(b->opts.method))
        s = approx_check_finite(ctx, rows_a, k);
    void *a_state = NULL;
    if (s == SMM_OK)
        s = ops->sketch_a(ctx, b, plan->b_state, rows_a, &a_state);
    if (s != SMM_OK)
        return s;

    /* per thread: a block of estimates, the method's workspace, one selection per row, two vectors */
    const int codes = approx_method_uses_bits(b->opts.method);
    const int64_t block_rows = codes ? CODES_TOPK_ROWS : CLASSICAL_TOPK_ROWS;
    const int64_t block_cols = codes ? CODES_TOPK_COLS : CLASSICAL_TOPK_COLS;
    const int threads = ctx->threads;
    const size_t est_bytes = (size_t)(block_rows * block_cols) * sizeof(float);
    const size_t method_bytes = (ops->block_work_bytes(b, plan->b_state, block_rows, block_cols) + 63) & ~(size_t)63;
    const int64_t cap = top_select_capacity(r);
    size_t per_thread = 0;
    double sel_bytes = (double)block_rows * (double)cap * (double)sizeof(scored_index);
    if (sel_bytes < 1e15)
        per_thread = est_bytes + method_bytes + (size_t)sel_bytes + 2 * (size_t)k * sizeof(float) + 64;
    char *work = NULL;
    if (per_thread > 0 && (double)per_thread * threads < 1e18)
        work = smm_aligned_alloc(per_thread * (size_t)threads);
    if (work == NULL) {
        ops->free_state(a_state);
        return per_thread > 0 ? SMM_ERR_NO_MEMORY : SMM_ERR_OVERFLOW;
    }
    const smm_context ctx1 = { ctx->isa, 1 };
    const int64_t blocks = (m + block_rows - 1) / block_rows;

#pragma omp parallel num_threads(threads)
    {
        char *mine = work + per_thread * (size_t)omp_get_thread_num();
        float *est = (float *)mine;
        void *method_work = mine + est_bytes;
        scored_index *sel_buf = (scored_index *)(mine + est_bytes + method_bytes);
        float *a_tmp = (float *)(sel_buf + block_rows * cap);
        float *b_tmp = a_tmp + k;
        top_select sel[CLASSICAL_TOPK_ROWS > CODES_TOPK_ROWS ? CLASSICAL_TOPK_ROWS : CODES_TOPK_ROWS];

#pragma omp for schedule(dynamic, 1)
        for (int64_t blk = 0; blk < blocks; blk++) {
            const int64_t i0 = blk * block_rows;
            const int64_t rows = m - i0 < block_rows ? m - i0 : block_rows;
            for (int64_t row = 0; row < rows; row++)
                top_select_init(&sel[row], sel_buf + row * cap, r);
            /* 1. the candidates: the best r estimates of each row, a block of columns at a time */
            for (int64_t j0 = 0; j0 < n; j0 += block_cols) {
                const int64_t cols = n - j0 < block_cols ? n - j0 : block_cols;
                ops->estimate_block(&ctx1, b, plan->b_state, a_state, i0, rows, j0, cols, est, block_cols,
                                    method_work);
                for (int64_t row = 0; row < rows; row++)
                    top_select_feed(&sel[row], est + row * block_cols, j0, cols);
            }
            /* 2. their exact values, and the best topk of those */
            for (int64_t row = 0; row < rows; row++) {
                const int64_t i = i0 + row;
                scored_index *cand = sel[row].buf;
                const int64_t got = top_select_finish(&sel[row]);
                const float *a = vector_of(rows_a, i, k, a_tmp);
                for (int64_t c = 0; c < got; c++)
                    cand[c].score = (float)dot_exact(a, vector_of(&b->cols, cand[c].index, k, b_tmp), k);
                scored_sort(cand, got);
                for (int64_t t = 0; t < topk; t++) {
                    idx[i * ldk + t] = cand[t].index;
                    val[i * ldk + t] = cand[t].score;
                }
            }
        }
    }
    smm_aligned_free(work);
    ops->free_state(a_state);
    return SMM_OK;
}

/* The checks of a top-k call's A, outputs and candidate count against n columns of dimension k. */
static smm_status check_topk_args(smm_layout layout, smm_trans transa, int64_t m, int64_t n, int64_t k,
                                  const float *A, int64_t lda, int64_t topk, const int64_t *idx, const float *val,
                                  int64_t ldk, const approx_options *opts)
{
    smm_status s = approx_check_a(layout, transa, m, k, A, lda);
    if (s == SMM_OK)
        s = approx_check_topk_outputs(m, n, topk, idx, val, ldk);
    if (s == SMM_OK && opts->candidates != 0 && (opts->candidates < topk || opts->candidates > n))
        s = SMM_ERR_BAD_ARGUMENT;
    return s;
}

smm_status approx_plan_topk(const approx_plan *plan, smm_layout layout, smm_trans transa,
                            int64_t m, const float *A, int64_t lda,
                            int64_t topk, int64_t *idx, float *val, int64_t ldk)
{
    if (plan == NULL)
        return SMM_ERR_NULL_POINTER;
    smm_status s = check_topk_args(layout, transa, m, plan->b.cols.count, plan->b.k, A, lda, topk, idx, val, ldk,
                                   &plan->b.opts);
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
    approx_options defaults;
    smm_context ctx;
    smm_status s = approx_resolve(&opts, &defaults, &ctx);
    if (s == SMM_OK)
        s = approx_check_b(layout, transb, k, n, B, ldb);
    if (s == SMM_OK)
        s = check_topk_args(layout, transa, m, n, k, A, lda, topk, idx, val, ldk, opts);
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
