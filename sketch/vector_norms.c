/*
 * vector_norms.c - the norms of a batch of vectors (vector_norms.h): groups
 * of SQ_NORMS_GROUP vectors through the group kernel of the ISA path, the
 * last partial group through the scalar one; and the table of the group
 * kernels, one row per ISA path (common/smm_dispatch.h).
 */
#include <math.h>

#include "sketch/vector_norms.h"

/* Least work (elements touched) worth a parallel region. */
#define NORMS_PARALLEL_MIN_WORK (INT64_C(1) << 15)

static const sq_norms_kernels table[SMM_ISA_COUNT] = {
    [SMM_ISA_SCALAR] = { { "scalar", 0 }, sq_norms_scalar },
#if defined(__x86_64__)
    [SMM_ISA_AVX2] = { { "avx2", 0 }, sq_norms_avx2 },
    [SMM_ISA_AVX512] = { { "avx512", 0 }, sq_norms_avx512 },
#endif
};

const sq_norms_kernels *sq_norms_kernels_for(smm_isa isa)
{
    return SMM_KERNELS_FOR(table, isa);
}

smm_status vector_norms(const smm_context *ctx, smm_layout layout, int64_t n, int64_t d,
                        const float *X, int64_t ldx, double *nrm, float *big)
{
    if (d == 0) { /* X may be NULL */
        for (int64_t i = 0; i < n; i++) {
            nrm[i] = 0.0;
            if (big)
                big[i] = 0.0f;
        }
        return SMM_OK;
    }
    const int64_t row_step = layout == SMM_ROW_MAJOR ? ldx : 1;
    const int64_t elem_step = layout == SMM_ROW_MAJOR ? 1 : ldx;
    const sq_norms_fn sq_norms = sq_norms_kernels_for(ctx->isa)->sq_norms;
    const int64_t groups = (n + SQ_NORMS_GROUP - 1) / SQ_NORMS_GROUP;
    int bad = 0;
    #pragma omp parallel for num_threads(ctx->threads) schedule(static) reduction(|| : bad) \
        if (n * d >= NORMS_PARALLEL_MIN_WORK)
    for (int64_t g = 0; g < groups; g++) {
        const int64_t i0 = g * SQ_NORMS_GROUP;
        const int64_t m = n - i0 < SQ_NORMS_GROUP ? n - i0 : SQ_NORMS_GROUP;
        double ss[SQ_NORMS_GROUP] = { 0 };
        float bg[SQ_NORMS_GROUP] = { 0 };
        if (m == SQ_NORMS_GROUP)
            sq_norms(X + i0 * row_step, row_step, elem_step, d, ss, bg);
        else
            sq_norms_continue(X + i0 * row_step, row_step, elem_step, m, 0, d, ss, bg);
        for (int64_t k = 0; k < m; k++) {
            const double r = sqrt(ss[k]); /* NaN or Inf when some element is */
            nrm[i0 + k] = r;
            if (big)
                big[i0 + k] = bg[k];
            if (!isfinite(r) || isinf((float)r))
                bad = 1;
        }
    }
    return bad ? SMM_ERR_NON_FINITE : SMM_OK;
}
