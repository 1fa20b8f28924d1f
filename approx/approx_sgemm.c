/*
 * approx_sgemm.c - the one-shot approximate product: argument checks, the
 * cases that need no sketch, then a plan that borrows op(B) for the length
 * of the call (approx_plan.c), one product against it, and its release.
 */
#include "approx/approx_plan.h"
#include "exact/sgemm.h"

smm_status approx_sgemm(smm_layout layout, smm_trans transa, smm_trans transb,
                        int64_t m, int64_t n, int64_t k, float alpha,
                        const float *A, int64_t lda, const float *B, int64_t ldb,
                        float beta, float *C, int64_t ldc,
                        const approx_options *opts, const approx_call *call)
{
    approx_phase_times times = { 0.0, 0.0, 0.0, 0.0 };
    approx_options o;
    approx_call c;
    smm_context ctx;
    smm_status s = sgemm_check_args(layout, transa, transb, m, n, k, A, lda, B, ldb, C, ldc);
    if (s == SMM_OK)
        s = approx_resolve(opts, &o, &ctx);
    if (s == SMM_OK)
        s = approx_call_read(call, &c);
    const int trivial = m == 0 || n == 0 || k == 0 || alpha == 0.0f;
    if (s == SMM_OK && trivial && m != 0 && n != 0) /* C := beta * C, exactly as exact_sgemm does it */
        s = exact_sgemm_with(&ctx, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    if (s == SMM_OK && !trivial)
        s = sgemm_check_overlap(layout, transa, transb, m, n, k, A, lda, B, ldb, C, ldc);
    if (s == SMM_OK && !trivial) {
        const approx_vectors cols = approx_vectors_of(layout, transb, 0, n, B, ldb);
        approx_plan *plan;
        s = approx_plan_build(&ctx, &cols, k, approx_stored_span(layout, transb, k, n, B, ldb), &o, 0, &times,
                              &plan);
        if (s == SMM_OK) {
            const approx_problem p = approx_problem_of(layout, transa, m, n, k, alpha, A, lda, beta, C, ldc);
            s = approx_plan_run(&ctx, plan, &p, &times);
            approx_plan_free(plan);
        }
    }
    approx_report_times(call, &times);
    return s;
}
