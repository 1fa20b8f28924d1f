/*
 * unary_kernels.h - library-internal kernels of the unary primitives
 * (unary.c): a copy kernel (B := op(A), same orientation) and a transpose
 * kernel (B := op(A)^T) per ISA path, over a block the driver chooses.
 * The scalar kernels are the reference; the SIMD ones give the same bits.
 */
#ifndef EXACT_UNARY_KERNELS_H
#define EXACT_UNARY_KERNELS_H

#include <stdint.h>

#include "sketchmm/unary.h"

typedef void (*unary_copy_fn)(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B,
                              int64_t ldb);
/* stream != 0: B is large, the kernel may write it with non-temporal stores (where aligned) */
typedef void (*unary_transpose_fn)(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B,
                                   int64_t ldb, int stream);

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
