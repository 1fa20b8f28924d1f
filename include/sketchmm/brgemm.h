/*
 * sketchmm/brgemm.h - batch-reduce GEMM on small float matrices:
 *
 *     C := beta * C + alpha * sum_{i < batch} A_i * B_i
 *
 * with every A_i m x k, every B_i k x n and C m x n, all stored in one
 * layout (column-major or row-major) with leading dimensions lda, ldb, ldc.
 * This is the primitive deep-learning code builds convolutions and
 * recurrent layers on: many small products summed into one output block.
 *
 * Describe, plan, execute
 * - A brgemm_desc says everything but the addresses: layout, sizes, leading
 *   dimensions, the strides between consecutive A_i and B_i, alpha and beta.
 * - brgemm_plan_create checks the description and fixes, once, the
 *   micro-kernels (ISA path, register tiles) and the tiling of C.
 * - Executing takes only pointers and the batch count, and never allocates:
 *     brgemm_execute_strided:  A_i = A + i * stride_a, B_i = B + i * stride_b;
 *     brgemm_execute_pointers: A_i = A[i], B_i = B[i] (arrays of batch pointers).
 *   A plan is immutable: several threads may execute one plan at once (on
 *   different C). Each execution runs on the calling thread only; callers
 *   parallelise over independent output blocks.
 *
 * Storage (as in CBLAS)
 * - SMM_COL_MAJOR: element (r, c) of A_i is A_i[r + c * lda], lda >= max(1, m);
 *   ldb >= max(1, k); ldc >= max(1, m).
 * - SMM_ROW_MAJOR: element (r, c) of A_i is A_i[r * lda + c], lda >= max(1, k);
 *   ldb >= max(1, n); ldc >= max(1, n).
 * - stride_a, stride_b >= 0 in elements (0 reuses one matrix for every i;
 *   strides may make the A_i or B_i overlap, which is fine as they are only
 *   read). Only brgemm_execute_strided uses them.
 *
 * Semantics
 * - beta == 0: C is write-only (NaN or Inf in it does not reach the result).
 * - batch == 0, k == 0 or alpha == 0: C := beta * C; A and B are not read
 *   (and may be NULL).
 * - m == 0 or n == 0: nothing is done.
 * - C must not overlap any A_i or B_i: when the operands are read (batch
 *   >= 1, m, n, k > 0, alpha != 0) the memory span of C (first to last
 *   element, padding between columns or rows included) is compared with the
 *   span of every A_i and B_i, and a shared byte gives SMM_ERR_BAD_ARGUMENT
 *   (common.h, "Aliasing"). C may lie in a gap between strided A_i (or B_i)
 *   and may touch them. Strided batches compare C with the whole batch's
 *   range first (O(1)) and each matrix only when C lies inside that range;
 *   pointer batches compare every A[i] and B[i] (O(batch)).
 * - Each element of C is accumulated in float with fused multiply-adds (on
 *   the portable path, separate multiplies and adds), over i in increasing
 *   order and, within each i, over the k terms in increasing order; then
 *   c := alpha * acc + beta * c. The result is accurate to the usual
 *   batch * k * FLT_EPSILON * sum |a| |b| bound and does not depend on the
 *   batch kind (strided or pointers): both give the same bits.
 *
 * Generated kernels: on the AVX-512, AVX2 and NEON paths, with code
 * generation on (sketchmm/jit.h, smm_set_jit, SKETCHMM_JIT), a plan writes
 * machine code for its exact description (sizes, leading dimensions,
 * strides, alpha and beta fixed in the code; both batch kinds) or takes it
 * from a process-wide cache of such kernels, and holds it until
 * brgemm_plan_free. They perform the operations of the precompiled kernels
 * in the same order: the same bits (only which of two NaNs survives an
 * operation where both meet may differ). Where no kernel is generated
 * (generation off, the portable path, executable memory refused) the
 * precompiled kernels below run; brgemm_plan_name says which.
 *
 * Performance: C is tiled into register blocks, column-major view; each
 * block is summed over the whole batch in registers and written once,
 * reading the operands where they are (no packing). Generated code picks
 * its blocks for the shape (rows that do not fill a vector go in the
 * narrowest one that holds them) and unrolls k; the precompiled kernels use
 * blocks of up to 64 x 6 (AVX-512), 16 x 6 (AVX2), 16 x 6 (NEON) or 8 x 4
 * (portable C) elements, and with k == 1 a batch of 1 on AVX-512 and AVX2
 * is one rank-1 update of C instead (the same bits).
 * Sized for the operands of one execution to stay in L1/L2 (m, n, k up to a
 * few hundred).
 */
#ifndef SKETCHMM_BRGEMM_H
#define SKETCHMM_BRGEMM_H

#include <stdint.h>

#include "sketchmm/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a plan computes; see the top of this header. */
typedef struct {
    smm_layout layout;           /* SMM_COL_MAJOR or SMM_ROW_MAJOR, for A_i, B_i and C */
    int64_t m, n, k;             /* C is m x n; A_i m x k; B_i k x n; each >= 0 */
    int64_t lda, ldb, ldc;       /* leading dimensions in elements (see above) */
    int64_t stride_a, stride_b;  /* elements from A_i to A_{i+1}, B_i to B_{i+1}; >= 0 */
    float alpha, beta;           /* finite or not: used as given */
} brgemm_desc;

/* A checked description bound to its micro-kernels. Opaque. */
typedef struct brgemm_plan brgemm_plan;

/*
 * brgemm_plan_create - check *desc and build a plan for it in *plan, on the
 * ISA path in use (smm_get_isa) at this call, with a generated kernel when
 * code generation is on and the path has a generator (see above; writing
 * one takes tens of microseconds, a description already in the cache a
 * lookup).
 *
 * Returns SMM_OK or, with *plan set to NULL (when plan itself is not NULL;
 * the *_create rule of common.h): SMM_ERR_NULL_POINTER (desc or plan NULL),
 * SMM_ERR_BAD_LAYOUT, SMM_ERR_BAD_SIZE (m, n or k negative),
 * SMM_ERR_BAD_LEADING_DIM, SMM_ERR_BAD_ARGUMENT (a negative batch stride),
 * SMM_ERR_OVERFLOW (a matrix's extent does not fit in the address space),
 * SMM_ERR_NO_MEMORY, or the ISA selection error of common.h.
 */
SMM_API smm_status brgemm_plan_create(const brgemm_desc *desc, brgemm_plan **plan);

/* Free a plan (NULL is allowed). */
SMM_API void brgemm_plan_free(brgemm_plan *plan);

/*
 * A one-line description for logs, e.g. "brgemm col m=64 n=64 k=64 lda=64
 * ldb=64 ldc=64 sa=4096 sb=4096 alpha=1 beta=1 avx512 generated", or with
 * "precompiled" (then the tiles, and in parentheses why no kernel was
 * generated: "code generation off", "executable memory refused"). Owned by
 * the plan; "null plan" for NULL. Never NULL.
 */
SMM_API const char *brgemm_plan_name(const brgemm_plan *plan);

/*
 * brgemm_execute_strided - C := beta * C + alpha * sum_{i < batch} A_i B_i
 * with A_i = A + i * stride_a and B_i = B + i * stride_b.
 *
 * Returns SMM_OK or, leaving C untouched: SMM_ERR_NULL_POINTER (plan NULL,
 * C NULL while m * n > 0, A or B NULL while they are read), SMM_ERR_BAD_SIZE
 * (batch < 0), SMM_ERR_OVERFLOW (the span of the batch does not fit in the
 * address space), SMM_ERR_BAD_ARGUMENT (C overlaps an A_i or B_i, see above).
 */
SMM_API smm_status brgemm_execute_strided(const brgemm_plan *plan, const float *A, const float *B, float *C,
                                  int64_t batch);

/*
 * brgemm_execute_pointers - the same with A_i = A[i] and B_i = B[i].
 *
 * Returns SMM_OK or, leaving C untouched: SMM_ERR_NULL_POINTER (plan NULL,
 * C NULL while m * n > 0, or, when they are read, A or B NULL or any of
 * A[i], B[i] NULL), SMM_ERR_BAD_SIZE (batch < 0), SMM_ERR_BAD_ARGUMENT (C
 * overlaps an A[i] or B[i], see above; checked after every pointer).
 */
SMM_API smm_status brgemm_execute_pointers(const brgemm_plan *plan, const float *const *A, const float *const *B,
                                   float *C, int64_t batch);

#ifdef __cplusplus
}
#endif

#endif /* SKETCHMM_BRGEMM_H */
