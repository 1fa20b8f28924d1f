/*
 * sketchmm/unary.h - unary primitives on float matrices: B := op(A) or
 * B := op(A)^T, for op one of zero, identity (copy) and ReLU.
 *
 * Shapes and storage
 * - B is m x n, stored in `layout` with leading dimension ldb (in elements,
 *   ldb >= max(1, n) row-major, ldb >= max(1, m) column-major, as in CBLAS).
 * - trans == SMM_NO_TRANS: A is m x n and B(i, j) = op(A(i, j)).
 *   trans == SMM_TRANS:    A is n x m and B(i, j) = op(A(j, i)), so B = op(A)^T.
 *   A is stored in the same layout as B with leading dimension lda.
 *
 * The operations
 * - UNARY_ZERO:     B(i, j) = +0.0f. A and lda are neither read nor checked
 *                   (A may be NULL); trans is still checked but changes nothing.
 * - UNARY_IDENTITY: B(i, j) = A(i, j) (or A(j, i)), bit for bit (NaN payloads
 *                   and signed zeros kept).
 * - UNARY_RELU:     B(i, j) = max(x, 0) with x = A(i, j) (or A(j, i)):
 *                   x when x >= 0 or x is NaN (NaN propagates, payload kept),
 *                   +0.0f when x < 0; -0.0f stays -0.0f (it is not < 0).
 *                   Every ISA path gives the same bits.
 *
 * Aliasing
 * - SMM_NO_TRANS: in place is allowed when A == B and lda == ldb; any other
 *   overlap of the memory spans of A and B (from the first to the last
 *   element each addresses) gives SMM_ERR_BAD_ARGUMENT.
 * - SMM_TRANS: in-place transposes are not supported: any overlap of the two
 *   spans gives SMM_ERR_BAD_ARGUMENT.
 * Elements of B outside the m x n matrix (the padding between ldb and the
 * row or column length) are never written.
 *
 * Returns SMM_OK, or (checked in this order, nothing written on failure)
 * SMM_ERR_BAD_ARGUMENT (unknown op), SMM_ERR_BAD_LAYOUT, SMM_ERR_BAD_TRANS,
 * SMM_ERR_BAD_SIZE (m or n negative), SMM_ERR_BAD_LEADING_DIM,
 * SMM_ERR_NULL_POINTER (A or B NULL while m * n > 0; A allowed NULL for
 * UNARY_ZERO), SMM_ERR_OVERFLOW (a span does not fit in size_t),
 * SMM_ERR_BAD_ARGUMENT (overlap, see above), or the ISA/thread selection
 * error of common.h. m == 0 or n == 0 is a no-op returning SMM_OK.
 *
 * Performance: transposes run in 16 x 16 (AVX-512) or 8 x 8 (AVX2, scalar)
 * register tiles inside cache blocks that read A as a few sequential streams;
 * when B has at least 2^18 elements, is 64-byte aligned and ldb is a multiple
 * of 16, the SIMD paths write it with non-temporal stores (B is then not left
 * in cache; copies only from 2^22 elements up). From 4096 elements up, with
 * code generation on (sketchmm/jit.h), the AVX-512, AVX2 and NEON paths run
 * kernels written for the call's sizes and leading dimensions (kept in a
 * process-wide cache: the first call of a shape writes them); the results
 * are the same bits. Matrices of at least UNARY_PARALLEL_MIN elements are split into
 * blocks among smm_get_num_threads() OpenMP threads; smaller ones run on the
 * calling thread. The result never depends on the
 * thread count or the ISA path. Thread-safe: concurrent calls on disjoint
 * outputs are fine.
 */
#ifndef SKETCHMM_UNARY_H
#define SKETCHMM_UNARY_H

#include <stdint.h>

#include "sketchmm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The unary operation. The numbers are stable. */
typedef enum { UNARY_ZERO = 0, UNARY_IDENTITY = 1, UNARY_RELU = 2 } unary_op;

/* Element count (m * n) from which unary_apply uses more than one thread. */
#define UNARY_PARALLEL_MIN (INT64_C(1) << 16)

/* B := op(A) or op(A)^T; see the top of this header. */
SMM_API smm_status unary_apply(unary_op op, smm_layout layout, smm_trans trans, int64_t m, int64_t n, const float *A,
                       int64_t lda, float *B, int64_t ldb);

/*
 * The kernel family unary_apply runs on the current ISA path: with code
 * generation on (and executable memory granted), "avx2_generated",
 * "avx512_generated" or "neon_generated"; otherwise "scalar", "avx2" or
 * "avx512" (the NEON path has no precompiled kernels of its own and runs
 * "scalar"); "unavailable" when the ISA selection failed (the kernel-name
 * rule of common.h). Matrices below 4096 elements run the precompiled
 * kernels either way. Never NULL.
 */
SMM_API const char *unary_kernel_name(void);

/* "zero", "identity", "relu"; NULL for an unknown value. */
SMM_API const char *unary_op_name(unary_op op);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_UNARY_H */
