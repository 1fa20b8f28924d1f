/*
 * approx_sgemm.c - the public entry point of approximate products: option
 * and argument checks, the cases that need no sketch, and the dispatch to a
 * method.
 */
#include "approx/approx_problem.h"
#include "exact/sgemm.h"
#include "sketchmm/sketch.h"

void approx_options_init(approx_options *opts)
{
    if (opts) {
        const approx_options defaults = APPROX_OPTIONS_INIT;
        *opts = defaults;
    }
}

static smm_status check_options(const approx_options *opts)
{
    if (opts->method != APPROX_SIMHASH)
        return SMM_ERR_BAD_METHOD;
    if (sketch_words(opts->bits) == 0)
        return SMM_ERR_BAD_BITS;
    if (opts->num_threads < 0 || opts->num_threads > SMM_MAX_THREADS)
        return SMM_ERR_BAD_THREADS;
    return SMM_OK;
}

/*
 * The vectors a matrix argument holds, as rows of a matrix in some layout:
 * rows of op(X) when `rows` is set, columns of op(X) otherwise. Transposing a
 * matrix flips its layout, so op(X) = X^T in one layout is X in the other.
 */
static approx_vectors vectors_of(smm_layout layout, smm_trans trans, int rows, int64_t count,
                                 const float *X, int64_t ld)
{
    const int transposed = (trans == SMM_TRANS) != !rows; /* rows of op(X), or rows of op(X)^T */
    const smm_layout flipped = layout == SMM_ROW_MAJOR ? SMM_COL_MAJOR : SMM_ROW_MAJOR;
    approx_vectors v = { transposed ? flipped : layout, count, X, ld };
    return v;
}

smm_status approx_sgemm(smm_layout layout, smm_trans transa, smm_trans transb,
                        int64_t m, int64_t n, int64_t k, float alpha,
                        const float *A, int64_t lda, const float *B, int64_t ldb,
                        float beta, float *C, int64_t ldc,
                        const approx_options *opts)
{
    approx_options defaults;
    if (opts == NULL) {
        approx_options_init(&defaults);
        opts = &defaults;
    }
    smm_status s = sgemm_check_args(layout, transa, transb, m, n, k, A, lda, B, ldb, C, ldc);
    if (s == SMM_OK)
        s = check_options(opts);
    smm_context ctx;
    if (s == SMM_OK)
        s = smm_context_current(&ctx);
    if (s != SMM_OK)
        return s;
    if (opts->num_threads > 0)
        ctx.threads = opts->num_threads;

    if (m == 0 || n == 0)
        return SMM_OK;
    if (k == 0 || alpha == 0.0f) /* C := beta * C, exactly as exact_sgemm does it */
        return exact_sgemm_with(&ctx, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);

    approx_problem p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.alpha = alpha;
    p.beta = beta;
    p.rows_a = vectors_of(layout, transa, 1, m, A, lda);
    p.cols_b = vectors_of(layout, transb, 0, n, B, ldb);
    p.C = C;
    p.rs_c = layout == SMM_ROW_MAJOR ? ldc : 1;
    p.cs_c = layout == SMM_ROW_MAJOR ? 1 : ldc;
    return approx_simhash_product(&ctx, &p, opts);
}
