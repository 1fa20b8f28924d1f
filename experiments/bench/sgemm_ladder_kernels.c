/*
 * sgemm_ladder_kernels.c - the plain C variants of seed article 002, `blocked` and
 * `saxpy`, and the block sizes of its tiled variants (see sgemm_ladder_kernels.h).
 * Built for the baseline CPU like the rest of the program (SSE2 on x86_64),
 * with -ffp-contract=off; the article compiled them with -mavx2 -mfma.
 */
#include "sgemm_ladder_kernels.h"

#define LADDER_BLOCK 8

void sgemm_ladder_blocked(int64_t n, const float *A, const float *B, float *C)
{
    for (int64_t k0 = 0; k0 < n; k0 += LADDER_BLOCK)
        for (int64_t j0 = 0; j0 < n; j0 += LADDER_BLOCK)
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = j0; j < j0 + LADDER_BLOCK; j++) {
                    float sum = C[i * n + j];
                    for (int64_t k = k0; k < k0 + LADDER_BLOCK; k++)
                        sum += A[i * n + k] * B[k * n + j]; /* B read down column j */
                    C[i * n + j] = sum;
                }
}

void sgemm_ladder_saxpy(int64_t n, const float *A, const float *B, float *C)
{
    for (int64_t i = 0; i < n; i++) {
        float *c_row = C + i * n;
        for (int64_t k = 0; k < n; k++) {
            const float a = A[i * n + k];
            const float *b_row = B + k * n;
            for (int64_t j = 0; j < n; j++)
                c_row[j] += a * b_row[j];
        }
    }
}

int64_t sgemm_ladder_block_height(int64_t n)
{
    return n >= 512 ? 8 : n >= 256 ? 16 : 32;
}

int64_t sgemm_ladder_block_width(int64_t n)
{
    return n >= 256 ? 512 : 256;
}
