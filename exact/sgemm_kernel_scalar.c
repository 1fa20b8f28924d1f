/*
 * sgemm_kernel_scalar.c - the portable C reference SGEMM micro-kernel (4 x 8).
 *
 * Contract: sgemm_kernel_fn in sgemm_target.h. Each element is summed over p
 * in increasing order with a separate multiply and add (the library is built
 * with -ffp-contract=off), then c := alpha*ab (beta == 0) or beta*c + alpha*ab.
 * It prefetches nothing (a_ahead is ignored).
 * The j loops are written so a compiler can vectorise them for the baseline
 * CPU without changing any rounding.
 */
#include "sgemm_target.h"

#define SCALAR_MR 4
#define SCALAR_NR 8

void sgemm_kernel_scalar_4x8(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                             float beta, float *restrict C, int64_t ldc, int64_t a_ahead)
{
    (void)a_ahead; /* a hint the portable kernel does not use */
    float ab[SCALAR_MR][SCALAR_NR] = { { 0.0f } };

    for (int64_t p = 0; p < kc; p++) {
        const float *a = Ap + p * SCALAR_MR;
        const float *b = Bp + p * SCALAR_NR;
        for (int i = 0; i < SCALAR_MR; i++)
            for (int j = 0; j < SCALAR_NR; j++)
                ab[i][j] += a[i] * b[j];
    }

    for (int i = 0; i < SCALAR_MR; i++) {
        float *c = C + i * ldc;
        if (beta == 0.0f) {
            for (int j = 0; j < SCALAR_NR; j++)
                c[j] = alpha * ab[i][j];
        } else {
            for (int j = 0; j < SCALAR_NR; j++)
                c[j] = beta * c[j] + alpha * ab[i][j];
        }
    }
}
