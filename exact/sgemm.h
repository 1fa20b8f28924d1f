/*
 * sgemm.h - library-internal entry points of the exact SGEMM, for other
 * modules (sketch/ projects vectors with it, approx/ may too).
 */
#ifndef SGEMM_H
#define SGEMM_H

#include <stdint.h>

#include "sketchmm/common.h"
#include "common/smm_runtime.h"

/*
 * exact_sgemm with explicit settings: C := alpha * op(A) * op(B) + beta * C
 * with the semantics and argument rules of exact_sgemm (sketchmm/exact.h),
 * computed on path ctx->isa with ctx->threads threads.
 *
 * Checks, in order, each returning before C is touched:
 *  1. ctx: NULL -> SMM_ERR_NULL_POINTER; ctx->isa SMM_ISA_AUTO or unknown ->
 *     SMM_ERR_BAD_ISA; a path this CPU/build cannot run ->
 *     SMM_ERR_ISA_UNAVAILABLE; ctx->threads < 1 -> SMM_ERR_BAD_THREADS.
 *  2. layout (SMM_ERR_BAD_LAYOUT), transa, transb (SMM_ERR_BAD_TRANS).
 *  3. m, n, k >= 0 (SMM_ERR_BAD_SIZE).
 *  4. smm_check_matrix on the stored A (m x k, or k x m when transposed),
 *     then B (k x n or n x k), then C (m x n): leading dimension
 *     (SMM_ERR_BAD_LEADING_DIM), NULL with elements (SMM_ERR_NULL_POINTER),
 *     extent (SMM_ERR_OVERFLOW).
 *  5. When A and B are read (m, n, k > 0 and alpha != 0; otherwise C :=
 *     beta * C is done and SMM_OK returned): C's memory span overlapping
 *     A's or B's -> SMM_ERR_BAD_ARGUMENT (sgemm_check_overlap).
 * Then SMM_ERR_NO_MEMORY if the workspace cannot be allocated, else SMM_OK.
 */
smm_status exact_sgemm_with(const smm_context *ctx, smm_layout layout, smm_trans transa,
                            smm_trans transb, int64_t m, int64_t n, int64_t k, float alpha,
                            const float *A, int64_t lda, const float *B, int64_t ldb,
                            float beta, float *C, int64_t ldc);

/*
 * The argument checks of exact_sgemm_with (steps 2 to 4 above, in that
 * order), for entry points that take the same CBLAS-style arguments.
 * Touches no memory.
 */
smm_status sgemm_check_args(smm_layout layout, smm_trans transa, smm_trans transb,
                            int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                            const float *B, int64_t ldb, const float *C, int64_t ldc);

/*
 * Step 5 above alone: SMM_ERR_BAD_ARGUMENT when the memory span of C (m x n)
 * overlaps that of the stored A or B (smm_runtime.h: smm_spans_overlap),
 * else SMM_OK. For arguments sgemm_check_args accepted; touches no memory.
 */
smm_status sgemm_check_overlap(smm_layout layout, smm_trans transa, smm_trans transb,
                               int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                               const float *B, int64_t ldb, const float *C, int64_t ldc);

/*
 * Name of the micro-kernel path isa runs (e.g. "avx2_fma_6x16"): the shape
 * the active configuration (tuning.h) chose from its row in the kernel
 * table, or from the row it falls back to (a path of another architecture:
 * the scalar one); "unavailable" for SMM_ISA_AUTO and unknown values. Does
 * not check the CPU.
 */
const char *exact_sgemm_kernel_name_for(smm_isa isa);

/*
 * The longest inner dimension exact_sgemm sums in one run on path isa (a
 * valid path): its kc in the active configuration. A product with k at most
 * this sums every entry from 0 over p in increasing order, with the path's
 * multiply-adds, before alpha and beta; a longer one sums in blocks of it.
 * Kernels that promise exact_sgemm's bits (the small-k product, the fused
 * candidate pass) hold that promise up to this depth.
 */
int64_t exact_sgemm_sum_depth(smm_isa isa);

#endif /* SGEMM_H */
