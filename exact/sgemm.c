/*
 * sgemm.c - exact_sgemm: argument checks, the trivial cases, and the
 * translation of layout and transpose flags into the strided views the
 * blocked driver works on.
 */
#include <stddef.h>

#include "sketchmm/exact.h"
#include "sgemm.h"
#include "sgemm_driver.h"
#include "sgemm_sup.h"
#include "sgemm_target.h"
#include "tuning.h"

/* C := beta * C over an outer x inner array with leading dimension ld; beta == 0 writes zeros. */
static void sgemm_scale(int64_t outer, int64_t inner, float beta, float *C, int64_t ld)
{
    if (beta == 1.0f)
        return;
    for (int64_t o = 0; o < outer; o++) {
        float *c = C + o * ld;
        if (beta == 0.0f) {
            for (int64_t i = 0; i < inner; i++)
                c[i] = 0.0f;
        } else {
            for (int64_t i = 0; i < inner; i++)
                c[i] = beta * c[i];
        }
    }
}

/*
 * op(X) of a matrix stored in `layout` with leading dimension ld as a view:
 * element (r, c) of op(X) at p[r * rs + c * cs].
 */
static sgemm_view sgemm_op_view(smm_layout layout, smm_trans trans, const float *p, int64_t ld)
{
    const int along_rows = (layout == SMM_ROW_MAJOR) == (trans == SMM_NO_TRANS);
    sgemm_view v = { p, along_rows ? ld : 1, along_rows ? 1 : ld };
    return v;
}

/* Small products go to the target's unpacked kernel, the rest to the blocked driver. */
static smm_status sgemm_run_views(const sgemm_target *t, int threads, int64_t m, int64_t n,
                                  int64_t k, float alpha, sgemm_view a, sgemm_view b, float beta,
                                  float *C, int64_t ldc)
{
    if (sgemm_sup_applies(t, m, n, k))
        return sgemm_sup_run(t, threads, m, n, k, alpha, a, b, beta, C, ldc);
    return sgemm_driver_run(t, threads, m, n, k, alpha, a, b, beta, C, ldc);
}

static sgemm_view sgemm_view_transpose(sgemm_view v)
{
    sgemm_view t = { v.p, v.cs, v.rs };
    return t;
}

static smm_status sgemm_check_context(const smm_context *ctx)
{
    if (ctx == NULL)
        return SMM_ERR_NULL_POINTER;
    if (ctx->isa == SMM_ISA_AUTO || smm_isa_name(ctx->isa) == NULL)
        return SMM_ERR_BAD_ISA;
    if (!smm_isa_supported(ctx->isa))
        return SMM_ERR_ISA_UNAVAILABLE;
    if (ctx->threads < 1)
        return SMM_ERR_BAD_THREADS;
    return SMM_OK;
}

smm_status sgemm_check_args(smm_layout layout, smm_trans transa, smm_trans transb,
                            int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                            const float *B, int64_t ldb, const float *C, int64_t ldc)
{
    smm_status s;
    if ((s = smm_check_layout(layout)) != SMM_OK)
        return s;
    if ((s = smm_check_trans(transa)) != SMM_OK || (s = smm_check_trans(transb)) != SMM_OK)
        return s;
    if (m < 0 || n < 0 || k < 0)
        return SMM_ERR_BAD_SIZE;
    const int a_plain = transa == SMM_NO_TRANS, b_plain = transb == SMM_NO_TRANS;
    if ((s = smm_check_matrix(layout, a_plain ? m : k, a_plain ? k : m, A, lda, sizeof(float))) != SMM_OK)
        return s;
    if ((s = smm_check_matrix(layout, b_plain ? k : n, b_plain ? n : k, B, ldb, sizeof(float))) != SMM_OK)
        return s;
    return smm_check_matrix(layout, m, n, C, ldc, sizeof(float));
}

smm_status sgemm_check_overlap(smm_layout layout, smm_trans transa, smm_trans transb,
                               int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                               const float *B, int64_t ldb, const float *C, int64_t ldc)
{
    const int a_plain = transa == SMM_NO_TRANS, b_plain = transb == SMM_NO_TRANS;
    const smm_span c = smm_matrix_span(layout, m, n, C, ldc, sizeof(float));
    const smm_span a = smm_matrix_span(layout, a_plain ? m : k, a_plain ? k : m, A, lda, sizeof(float));
    const smm_span b = smm_matrix_span(layout, b_plain ? k : n, b_plain ? n : k, B, ldb, sizeof(float));
    return smm_spans_overlap(c, a) || smm_spans_overlap(c, b) ? SMM_ERR_BAD_ARGUMENT : SMM_OK;
}

smm_status exact_sgemm_with(const smm_context *ctx, smm_layout layout, smm_trans transa,
                            smm_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                            const float *A, int64_t lda, const float *B, int64_t ldb,
                            float beta, float *C, int64_t ldc)
{
    smm_status s;
    if ((s = sgemm_check_context(ctx)) != SMM_OK)
        return s;
    if ((s = sgemm_check_args(layout, transa, transb, m, n, k, A, lda, B, ldb, C, ldc)) != SMM_OK)
        return s;

    if (m == 0 || n == 0)
        return SMM_OK;
    const int row_major = layout == SMM_ROW_MAJOR;
    if (k == 0 || alpha == 0.0f) {
        sgemm_scale(row_major ? m : n, row_major ? n : m, beta, C, ldc);
        return SMM_OK;
    }
    if ((s = sgemm_check_overlap(layout, transa, transb, m, n, k, A, lda, B, ldb, C, ldc)) != SMM_OK)
        return s;

    sgemm_target target; /* the kernel and parameters of this call, resolved once */
    sgemm_target_for(ctx->isa, ctx->threads, &target);
    const sgemm_view a = sgemm_op_view(layout, transa, A, lda); /* m x k */
    const sgemm_view b = sgemm_op_view(layout, transb, B, ldb); /* k x n */
    if (row_major)
        return sgemm_run_views(&target, ctx->threads, m, n, k, alpha, a, b, beta, C, ldc);
    /* column-major C is row-major C^T = op(B)^T op(A)^T */
    return sgemm_run_views(&target, ctx->threads, n, m, k, alpha, sgemm_view_transpose(b),
                           sgemm_view_transpose(a), beta, C, ldc);
}

smm_status exact_sgemm(smm_layout layout, smm_trans transa, smm_trans transb,
                       int64_t m, int64_t n, int64_t k, float alpha,
                       const float *A, int64_t lda, const float *B, int64_t ldb,
                       float beta, float *C, int64_t ldc)
{
    smm_context ctx;
    smm_status s = smm_context_current(&ctx);
    if (s != SMM_OK)
        return s;
    return exact_sgemm_with(&ctx, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb,
                            beta, C, ldc);
}

const char *exact_sgemm_kernel_name_for(smm_isa isa)
{
    if (isa == SMM_ISA_AUTO || smm_isa_name(isa) == NULL)
        return "unavailable";
    return sgemm_kernels_for(isa)->shapes[tuning_active()->params[isa].shape].name;
}

int64_t exact_sgemm_sum_depth(smm_isa isa)
{
    return tuning_active()->params[isa].kc;
}

const char *exact_sgemm_kernel_name(void)
{
    smm_isa isa;
    if (smm_get_isa(&isa) != SMM_OK)
        return "unavailable";
    return exact_sgemm_kernel_name_for(isa);
}
