/*
 * sgemm_sup_scalar.c - the portable C small-product kernel (sgemm_sup_fn,
 * sgemm_target.h): one tile of up to SGEMM_MAX_MR x SGEMM_MAX_NR, read from
 * unpacked A and B, with the arithmetic of sgemm_kernel_scalar_4x8: each
 * element summed from 0 over p in increasing order with a separate multiply
 * and add (the library is built with -ffp-contract=off), then
 * c := alpha*ab (beta == 0, C not read) or beta*c + alpha*ab.
 *
 * The twin of the SIMD small-product kernels, and with packed operands
 * (rsa = 1, csa = MR, rsb = NR) of every packed micro-kernel: the tests
 * compare them with it. Elements are reached by index, so no pointer is
 * formed past an operand however large its strides.
 */
#include "sgemm_target.h"

void sgemm_sup_scalar(int64_t rows, int64_t cols, int64_t k, float alpha, const float *A, int64_t rsa,
                      int64_t csa, const float *B, int64_t rsb, float beta, float *C, int64_t ldc)
{
    float ab[SGEMM_MAX_MR][SGEMM_MAX_NR] = { { 0.0f } };

    for (int64_t p = 0; p < k; p++)
        for (int64_t i = 0; i < rows; i++) {
            const float a = A[i * rsa + p * csa];
            for (int64_t j = 0; j < cols; j++)
                ab[i][j] += a * B[p * rsb + j];
        }

    for (int64_t i = 0; i < rows; i++) {
        float *c = C + i * ldc;
        if (beta == 0.0f) {
            for (int64_t j = 0; j < cols; j++)
                c[j] = alpha * ab[i][j];
        } else {
            for (int64_t j = 0; j < cols; j++)
                c[j] = beta * c[j] + alpha * ab[i][j];
        }
    }
}
