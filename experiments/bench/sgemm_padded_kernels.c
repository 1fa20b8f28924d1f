/*
 * sgemm_padded_kernels.c - the naive and the tiled product of mode
 * `sgemm-padded` (see sgemm_padded_kernels.h). Plain C, built for the baseline CPU.
 */
#include "sgemm_padded_kernels.h"

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

void padded_naive(int64_t n, int64_t rows, const float *A, const float *B, float *C, int64_t ld)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < n; j++) {
            float sum = 0.0f;
            for (int64_t k = 0; k < n; k++)
                sum += A[i * ld + k] * B[k * ld + j];
            C[i * ld + j] = sum;
        }
}

void padded_tiled(int64_t n, int64_t rows, const float *A, const float *B, float *C, int64_t ld)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < n; j++)
            C[i * ld + j] = 0.0f;
    for (int64_t i0 = 0; i0 < rows; i0 += PADDED_TILE) {
        const int64_t i_end = min64(i0 + PADDED_TILE, rows);
        for (int64_t j0 = 0; j0 < n; j0 += PADDED_TILE) {
            const int64_t j_end = min64(j0 + PADDED_TILE, n);
            for (int64_t k0 = 0; k0 < n; k0 += PADDED_TILE) {
                const int64_t k_end = min64(k0 + PADDED_TILE, n);
                for (int64_t i = i0; i < i_end; i++) {
                    float *c_row = C + i * ld;
                    for (int64_t k = k0; k < k_end; k++) {
                        const float a = A[i * ld + k];
                        const float *b_row = B + k * ld;
                        for (int64_t j = j0; j < j_end; j++)
                            c_row[j] += a * b_row[j];
                    }
                }
            }
        }
    }
}
