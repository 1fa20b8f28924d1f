/*
 * smallk_gemm_scalar.c - the small-k product kernel in plain C
 * (smallk_gemm.h): the twin the SIMD kernels are tested against, and the
 * kernel of the scalar path. Each element is summed from 0 over p in
 * increasing order with a separate multiply and add (the library is built
 * with -ffp-contract=off), then c := alpha * ab or beta * c + alpha * ab:
 * exact_sgemm's scalar arithmetic. SMALLK_SCALAR_NR columns at a time; no
 * streaming stores (stream is ignored). Any number of rows.
 */
#include "exact/smallk_gemm.h"

#define SMALLK_SCALAR_NR 16

void smallk_strip_scalar(int64_t rows, int64_t n, int64_t k, float alpha, const float *A, int64_t rsa, int64_t csa,
                         const float *B, int64_t ldb, float beta, float *C, int64_t ldc, int stream)
{
    (void)stream;
    float ab[SMALLK_SCALAR_NR];
    for (int64_t j0 = 0; j0 < n; j0 += SMALLK_SCALAR_NR) {
        const int64_t width = n - j0 < SMALLK_SCALAR_NR ? n - j0 : SMALLK_SCALAR_NR;
        for (int64_t r = 0; r < rows; r++) {
            for (int64_t u = 0; u < width; u++)
                ab[u] = 0.0f;
            for (int64_t p = 0; p < k; p++) {
                const float a = A[r * rsa + p * csa];
                const float *b = B + p * ldb + j0;
                for (int64_t u = 0; u < width; u++)
                    ab[u] += a * b[u];
            }
            float *c = C + r * ldc + j0;
            if (beta == 0.0f) {
                for (int64_t u = 0; u < width; u++)
                    c[u] = alpha * ab[u];
            } else {
                for (int64_t u = 0; u < width; u++)
                    c[u] = beta * c[u] + alpha * ab[u];
            }
        }
    }
}
