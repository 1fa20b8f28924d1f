/*
 * simhash_encode.c - SimHash codes of a batch of vectors (sketch_simhash_encode).
 *
 * Algorithm
 *   1. Check every argument, allocate all workspace, compute the squared
 *      norms in double (sequential sum over t of x_t^2, the same order for
 *      both layouts) and reject non-finite vectors. Nothing is written to
 *      codes or norms before all of this has succeeded.
 *   2. For each block of hyperplanes (all of them unless bits * d is large),
 *      generate G (rows of the family's generator: the Gaussian rows of
 *      sketch_simhash_hyperplanes, or their orthonormalised blocks for
 *      SKETCH_SIMHASH_ORTHOGONAL) and, for each chunk of
 *      vectors, compute the float projections P = X_chunk * G^T with
 *      exact_sgemm_with on the caller's ISA path and thread count.
 *   3. Decide each sign (below), pack 64 signs per word and store the words.
 *
 * The sign of a projection, identical on every path
 *   Let s = <x, g> be the exact dot product, D the dot product evaluated in
 *   double in the fixed order of dot_double() (every product of two floats is
 *   exact in double, so only the additions round), and P the float value one
 *   path's SGEMM produced. Bit = [D > 0] is the reference definition. SGEMM
 *   is used only when it provably agrees:
 *
 *   - Float error. Whatever the summation order, blocking or use of FMA,
 *     each term of a float dot product of length d goes through at most d
 *     roundings (its product and at most d - 1 additions), so
 *     |P - s| <= gamma_d * sum_t |x_t g_t| (Higham, Accuracy and Stability,
 *     3.1). We use the generous n_eff = 2d + 2 in place of d, so that an
 *     SGEMM that rounds a little more (scaling by alpha, adding k-block
 *     partial sums into C) is covered too:
 *       |P - s| <= gamma * sum_t |x_t g_t| + n_eff * 2^-122,
 *     gamma = n_eff u / (1 - n_eff u), u = 2^-24. The absolute term covers
 *     gradual underflow and even flush-to-zero of inputs or results (every
 *     |g_t| < 8.3 and every flushed value is below 2^-126). By
 *     Cauchy-Schwarz sum |x_t g_t| <= ||x|| ||g||, so with the norms
 *     computed in double (relative error far below 1%)
 *       E = 1.01 * (gamma * ||x|| * ||g|| + n_eff * 2^-122) >= |P - s|.
 *   - Threshold T = 2E. If |P| > T (and P is finite), then s has the sign of
 *     P and |s| >= |P| - E > E. The error of D is at most
 *     gamma_(d/4+3)(2^-53) * ||x|| ||g||, far below E, so D has the sign of s
 *     too: [P > 0] == [D > 0].
 *   - Otherwise (|P| <= T, P infinite after an overflow inside the product,
 *     or NaN) the bit is computed from D directly.
 *   Either way every path, thread count and platform gets [D > 0]; SGEMM only
 *   makes it fast. With d >= 2^22 - 1 (n_eff u >= 1/2) the bound is void and
 *   every projection is taken from D. If exact_sgemm_with fails (it can only
 *   run out of memory), the chunk is computed from D as well, so the codes
 *   and the "untouched on error" promise do not depend on it.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "exact/sgemm.h"
#include "common/smm_runtime.h"
#include "sketch/simhash.h"
#include "sketch/vector_norms.h"

/* Most vectors per SGEMM call. */
#define SIMHASH_MAX_CHUNK 512
/* Floats of projections per chunk (4 MiB). */
#define SIMHASH_P_BUDGET (INT64_C(1) << 20)
/* Floats of hyperplanes per block (32 MiB); blocks are multiples of 64 rows. */
#define SIMHASH_G_BUDGET (INT64_C(1) << 23)
/* Least work (elements touched) worth a parallel region: below it the
 * fork/join costs more than it saves, and much more when cores are shared. */
#define SIMHASH_PARALLEL_MIN_WORK (INT64_C(1) << 15)

/*
 * <x, g> in double in the fixed order of the reference definition: four
 * partial sums, term t going to sum t % 4 in increasing t, combined as
 * (s0 + s1) + (s2 + s3). Element t of x is x[t * incx].
 */
static double dot_double(const float *x, int64_t incx, const float *g, int64_t d)
{
    double acc[4] = { 0.0, 0.0, 0.0, 0.0 };
    int64_t t = 0;
    for (; t + 4 <= d; t += 4) {
        acc[0] += (double)x[t * incx] * (double)g[t];
        acc[1] += (double)x[(t + 1) * incx] * (double)g[t + 1];
        acc[2] += (double)x[(t + 2) * incx] * (double)g[t + 2];
        acc[3] += (double)x[(t + 3) * incx] * (double)g[t + 3];
    }
    for (; t < d; t++)
        acc[t & 3] += (double)x[t * incx] * (double)g[t];
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

static void gaussian_rows(uint64_t seed, int32_t bits, int64_t b0, int64_t nrows, int64_t d,
                          float *G, int64_t ldg, double *work, int threads)
{
    (void)bits;
    (void)work;
    simhash_hyperplane_rows(seed, b0, nrows, d, G, ldg, threads);
}

const simhash_generator simhash_gaussian_generator = { gaussian_rows, NULL };

smm_status simhash_encode_gen_with(const smm_context *ctx, const simhash_generator *gen,
                                   smm_layout layout, int64_t n, int64_t d, const float *X, int64_t ldx,
                                   int32_t bits, uint64_t seed,
                                   uint64_t *codes, int64_t ldcodes, float *norms)
{
    /* ---- arguments ---- */
    smm_status s = smm_check_layout(layout);
    if (s != SMM_OK)
        return s;
    s = smm_check_matrix(layout, n, d, X, ldx, sizeof(float));
    if (s != SMM_OK)
        return s;
    if (bits < 1 || bits > SKETCH_MAX_BITS)
        return SMM_ERR_BAD_BITS;
    const int64_t words = simhash_words(bits);
    s = smm_check_matrix(SMM_ROW_MAJOR, n, words, codes, ldcodes, sizeof(uint64_t));
    if (s != SMM_OK)
        return s;
    if (n == 0)
        return SMM_OK;
    const int threads = ctx->threads;

    /* Vector i starts at X + i * row_step; its element t is t * elem_step further. */
    const int64_t row_step = layout == SMM_ROW_MAJOR ? ldx : 1;
    const int64_t elem_step = layout == SMM_ROW_MAJOR ? 1 : ldx;

    /* ---- workspace: all of it before any output is written ---- */
    int64_t block_rows = bits; /* hyperplanes per block */
    if (d > 0 && d > SIMHASH_G_BUDGET / block_rows) {
        block_rows = (SIMHASH_G_BUDGET / d) & ~(int64_t)63;
        if (block_rows < 64)
            block_rows = 64;
    }
    int64_t chunk = SIMHASH_P_BUDGET / block_rows; /* >= 16 */
    if (chunk > SIMHASH_MAX_CHUNK)
        chunk = SIMHASH_MAX_CHUNK;
    if (chunk > n)
        chunk = n;
    const int64_t ldg = d > 1 ? d : 1;

    double *nrm = smm_aligned_alloc((size_t)n * sizeof(double)); /* n * 8 fits: codes do */
    float *G = NULL, *P = NULL;
    double *gnorm = NULL, *gwork = NULL;
    int64_t g_elems, p_elems;
    const int64_t work_elems = d > 0 && gen->work_doubles ? gen->work_doubles(d, bits) : 0;
    int ok = nrm != NULL;
    if (ok && d > 0) {
        ok = smm_mul_size(block_rows, ldg, &g_elems) == SMM_OK &&
             (uint64_t)g_elems <= (uint64_t)PTRDIFF_MAX / sizeof(float) &&
             smm_mul_size(chunk, block_rows, &p_elems) == SMM_OK &&
             work_elems >= 0 && (uint64_t)work_elems <= (uint64_t)PTRDIFF_MAX / sizeof(double);
        if (ok) {
            G = smm_aligned_alloc((size_t)g_elems * sizeof(float));
            P = smm_aligned_alloc((size_t)p_elems * sizeof(float));
            gnorm = smm_aligned_alloc((size_t)block_rows * sizeof(double));
            if (work_elems > 0)
                gwork = smm_aligned_alloc((size_t)work_elems * sizeof(double));
            ok = G != NULL && P != NULL && gnorm != NULL && (work_elems == 0 || gwork != NULL);
        }
    }
    if (!ok) {
        smm_aligned_free(nrm);
        smm_aligned_free(G);
        smm_aligned_free(P);
        smm_aligned_free(gnorm);
        smm_aligned_free(gwork);
        return SMM_ERR_NO_MEMORY;
    }

    /* ---- norms; reject NaN, Inf and norms that overflow a float ---- */
    if (vector_norms(ctx, layout, n, d, X, ldx, nrm, NULL) != SMM_OK) {
        smm_aligned_free(nrm);
        smm_aligned_free(G);
        smm_aligned_free(P);
        smm_aligned_free(gnorm);
        smm_aligned_free(gwork);
        return SMM_ERR_NON_FINITE;
    }
    if (norms)
        for (int64_t i = 0; i < n; i++)
            norms[i] = (float)nrm[i];

    /* ---- threshold constants (see the top of the file) ---- */
    const double n_eff = 2.0 * (double)d + 2.0;
    const double nu = n_eff * 0x1p-24;
    const int sgemm_usable = d > 0 && nu < 0.5;
    const double t_scale = sgemm_usable ? 2.02 * (nu / (1.0 - nu)) : 0.0; /* T = t_scale ||x|| ||g|| + t_abs */
    const double t_abs = 2.02 * n_eff * 0x1p-122;

    for (int64_t b0 = 0; b0 < bits; b0 += block_rows) {
        const int64_t nbb = bits - b0 < block_rows ? bits - b0 : block_rows;
        const int64_t w0 = b0 / 64, w1 = (b0 + nbb + 63) / 64; /* b0 % 64 == 0 */
        if (d > 0) {
            gen->rows(seed, bits, b0, nbb, d, G, ldg, gwork, threads);
            #pragma omp parallel for num_threads(threads) schedule(static) if (nbb * d >= SIMHASH_PARALLEL_MIN_WORK)
            for (int64_t j = 0; j < nbb; j++) {
                const float *g = G + j * ldg;
                double sg = 0.0;
                for (int64_t t = 0; t < d; t++)
                    sg += (double)g[t] * (double)g[t];
                gnorm[j] = sqrt(sg);
            }
        }
        for (int64_t i0 = 0; i0 < n; i0 += chunk) {
            const int64_t m = n - i0 < chunk ? n - i0 : chunk;
            int have_p = 0;
            if (sgemm_usable) {
                const smm_trans transx = layout == SMM_ROW_MAJOR ? SMM_NO_TRANS : SMM_TRANS;
                have_p = exact_sgemm_with(ctx, SMM_ROW_MAJOR, transx, SMM_TRANS, m, nbb, d,
                                          1.0f, d > 0 ? X + i0 * row_step : X, ldx, G, ldg,
                                          0.0f, P, nbb) == SMM_OK;
            }
            #pragma omp parallel for num_threads(threads) schedule(static) if (m * nbb >= SIMHASH_PARALLEL_MIN_WORK / 4)
            for (int64_t ii = 0; ii < m; ii++) {
                const int64_t i = i0 + ii;
                uint64_t *code = codes + i * ldcodes;
                if (nrm[i] == 0.0) { /* every projection is exactly 0 */
                    for (int64_t w = w0; w < w1; w++)
                        code[w] = 0;
                    continue;
                }
                const float *x = X + i * row_step;
                const float *p = have_p ? P + ii * nbb : NULL;
                const double scale_i = t_scale * nrm[i];
                for (int64_t w = w0; w < w1; w++) {
                    const int64_t jb = w * 64 - b0;
                    const int64_t je = jb + 64 < nbb ? jb + 64 : nbb;
                    uint64_t word = 0;
                    for (int64_t j = jb; j < je; j++) {
                        int positive;
                        const double pj = p ? (double)p[j] : 0.0;
                        const double apj = fabs(pj);
                        if (p && apj > scale_i * gnorm[j] + t_abs && apj <= FLT_MAX)
                            positive = pj > 0.0;
                        else
                            positive = dot_double(x, elem_step, G + j * ldg, d) > 0.0;
                        word |= (uint64_t)positive << (j - jb);
                    }
                    code[w] = word;
                }
            }
        }
    }

    smm_aligned_free(nrm);
    smm_aligned_free(G);
    smm_aligned_free(P);
    smm_aligned_free(gnorm);
    smm_aligned_free(gwork);
    return SMM_OK;
}

smm_status simhash_encode_with(const smm_context *ctx, smm_layout layout,
                               int64_t n, int64_t d, const float *X, int64_t ldx,
                               int32_t bits, uint64_t seed,
                               uint64_t *codes, int64_t ldcodes, float *norms)
{
    return simhash_encode_gen_with(ctx, &simhash_gaussian_generator, layout, n, d, X, ldx, bits, seed,
                                   codes, ldcodes, norms);
}

smm_status sketch_simhash_encode(smm_layout layout, int64_t n, int64_t d,
                                 const float *X, int64_t ldx,
                                 int32_t bits, uint64_t seed,
                                 uint64_t *codes, int64_t ldcodes, float *norms)
{
    smm_context ctx;
    smm_status s = smm_context_current(&ctx);
    if (s != SMM_OK)
        return s;
    return simhash_encode_with(&ctx, layout, n, d, X, ldx, bits, seed, codes, ldcodes, norms);
}
