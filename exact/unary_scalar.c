/*
 * unary_scalar.c - the portable C unary kernels (contract in
 * unary_kernels.h): the scalar row of unary.c's kernel table and the twins
 * every SIMD path is tested against, bit for bit.
 */
#include <stdint.h>

#include "exact/unary_kernels.h"

/* ReLU of the header: x for x >= 0 or NaN, +0 for x < 0 (so -0 stays -0). */
static inline float relu_scalar(float x)
{
    return x < 0.0f ? 0.0f : x;
}

void unary_copy_scalar(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B, int64_t ldb)
{
    for (int64_t r = 0; r < rows; r++) {
        float *b = B + r * ldb;
        if (op == UNARY_ZERO) {
            for (int64_t c = 0; c < cols; c++)
                b[c] = 0.0f;
            continue;
        }
        const float *a = A + r * lda;
        if (op == UNARY_RELU)
            for (int64_t c = 0; c < cols; c++)
                b[c] = relu_scalar(a[c]);
        else
            for (int64_t c = 0; c < cols; c++)
                b[c] = a[c];
    }
}

/* 8 x 8 tiles: the 8 reads of one output row hit 8 lines of A that stay in L1 across the tile. */
void unary_transpose_scalar(unary_op op, int64_t rows, int64_t cols, const float *A, int64_t lda, float *B,
                            int64_t ldb, int stream)
{
    (void)stream;
    const int relu = op == UNARY_RELU;
    for (int64_t c0 = 0; c0 < cols; c0 += 8) {
        const int64_t c1 = c0 + 8 < cols ? c0 + 8 : cols;
        for (int64_t r0 = 0; r0 < rows; r0 += 8) {
            const int64_t r1 = r0 + 8 < rows ? r0 + 8 : rows;
            for (int64_t r = r0; r < r1; r++)
                for (int64_t c = c0; c < c1; c++) {
                    const float x = A[c * lda + r];
                    B[r * ldb + c] = relu ? relu_scalar(x) : x;
                }
        }
    }
}
