/*
 * unary_kernels.h - library-internal kernels of the unary primitives
 * (unary.c): a copy kernel (B := op(A), same orientation) and a transpose
 * kernel (B := op(A)^T) per ISA path, over a block the driver chooses, on
 * the "row-major" view of unary.c:
 *   copy:      B[r * ldb + c] = op(A[r * lda + c])  (r < rows, c < cols)
 *   transpose: B[r * ldb + c] = op(A[c * lda + r])  (r < rows, c < cols)
 *
 * Kernel contract (every ISA): op is UNARY_ZERO (copy only; A is not read
 * and may be NULL), UNARY_IDENTITY or UNARY_RELU; rows, cols >= 1; only the
 * rows x cols elements are written; A and B do not overlap (except copy with
 * A == B, lda == ldb); the same bits as the scalar twins (unary_scalar.c),
 * which are the scalar row and the reference of the tests. A transpose
 * kernel given stream != 0 may write B with non-temporal stores (where B is
 * 64-byte aligned and ldb a multiple of 16) and then ends with a store fence.
 */
#ifndef EXACT_UNARY_KERNELS_H
#define EXACT_UNARY_KERNELS_H

#include <stdint.h>

#include "common/smm_dispatch.h"
#include "exact/jit_cache.h"
#include "sketchmm/unary.h"

typedef void (*unary_copy_fn)(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B,
                              int64_t ldb);
/* stream != 0: B is large, the kernel may write it with non-temporal stores (where aligned) */
typedef void (*unary_transpose_fn)(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B,
                                   int64_t ldb, int stream);

/*
 * The kernels of one ISA path, a row of the kernel table
 * (common/smm_dispatch.h) in unary.c: the precompiled copy and transpose,
 * and the writer of generated kernels (unary_jit.h) with the name they run
 * under, or NULL.
 */
typedef struct {
    smm_kernel_head head; /* name: "scalar", "avx2", "avx512" (unary_kernel_name) */
    unary_copy_fn copy;
    unary_transpose_fn transpose;
    jit_writer jit;
    const char *jit_name; /* "avx2_generated", "avx512_generated", "neon_generated" */
} unary_kernels;

/* The row path isa (SMM_ISA_SCALAR .. SMM_ISA_NEON) runs: its own or the one it falls back to (SMM_KERNELS_FOR). */
const unary_kernels *unary_kernels_for(smm_isa isa);

/* The scalar twins (unary_scalar.c); the transpose goes in 8 x 8 tiles and ignores stream. */
void unary_copy_scalar(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B, int64_t ldb);
void unary_transpose_scalar(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B,
                            int64_t ldb, int stream);
#if defined(__x86_64__)
void unary_copy_avx2(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B, int64_t ldb);
void unary_transpose_avx2(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B, int64_t ldb,
                          int stream);
void unary_copy_avx512(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B, int64_t ldb);
void unary_transpose_avx512(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B,
                            int64_t ldb, int stream);
#endif

#endif /* EXACT_UNARY_KERNELS_H */
