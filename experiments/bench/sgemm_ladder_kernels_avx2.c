/*
 * sgemm_ladder_kernels_avx2.c - the AVX2 + FMA variants of seed article 002:
 * saxpy_avx, tiled_avx and tiled_avx_unrolled (see sgemm_ladder_kernels.h).
 * n is a multiple of 64 and the matrices are 64-byte aligned.
 */
#include <immintrin.h>

#include "sgemm_ladder_kernels.h"

#define LANES 8 /* floats in a 256-bit vector */

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

void sgemm_ladder_saxpy_avx(int64_t n, const float *A, const float *B, float *C)
{
    for (int64_t i = 0; i < n; i++) {
        float *c_row = C + i * n;
        for (int64_t k = 0; k < n; k++) {
            const __m256 a = _mm256_set1_ps(A[i * n + k]);
            const float *b_row = B + k * n;
            for (int64_t j = 0; j < n; j += LANES)
                _mm256_store_ps(c_row + j, _mm256_fmadd_ps(a, _mm256_load_ps(b_row + j), _mm256_load_ps(c_row + j)));
        }
    }
}

void sgemm_ladder_tiled_avx(int64_t n, const float *A, const float *B, float *C)
{
    const int64_t height = sgemm_ladder_block_height(n), width = sgemm_ladder_block_width(n);
    for (int64_t k0 = 0; k0 < n; k0 += height) {
        const int64_t k_end = min64(k0 + height, n);
        for (int64_t j0 = 0; j0 < n; j0 += width) {
            const int64_t j_end = min64(j0 + width, n);
            for (int64_t i = 0; i < n; i++) {
                const float *a_row = A + i * n;
                float *c_row = C + i * n;
                for (int64_t j = j0; j < j_end; j += LANES) {
                    __m256 sum = _mm256_load_ps(c_row + j);
                    for (int64_t k = k0; k < k_end; k++)
                        sum = _mm256_fmadd_ps(_mm256_set1_ps(a_row[k]), _mm256_load_ps(B + k * n + j), sum);
                    _mm256_store_ps(c_row + j, sum);
                }
            }
        }
    }
}

void sgemm_ladder_tiled_avx_unrolled(int64_t n, const float *A, const float *B, float *C)
{
    const int64_t height = sgemm_ladder_block_height(n), width = sgemm_ladder_block_width(n);
    for (int64_t j0 = 0; j0 < n; j0 += width) {
        const int64_t j_end = min64(j0 + width, n);
        for (int64_t k0 = 0; k0 < n; k0 += height) {
            const int64_t k_end = min64(k0 + height, n);
            for (int64_t i = 0; i < n; i++) {
                const float *a_row = A + i * n;
                float *c_row = C + i * n;
                for (int64_t j = j0; j < j_end; j += 8 * LANES) {
                    /* eight independent sums: no FMA waits for the previous one's result */
                    __m256 s0 = _mm256_load_ps(c_row + j + 0 * LANES);
                    __m256 s1 = _mm256_load_ps(c_row + j + 1 * LANES);
                    __m256 s2 = _mm256_load_ps(c_row + j + 2 * LANES);
                    __m256 s3 = _mm256_load_ps(c_row + j + 3 * LANES);
                    __m256 s4 = _mm256_load_ps(c_row + j + 4 * LANES);
                    __m256 s5 = _mm256_load_ps(c_row + j + 5 * LANES);
                    __m256 s6 = _mm256_load_ps(c_row + j + 6 * LANES);
                    __m256 s7 = _mm256_load_ps(c_row + j + 7 * LANES);
                    for (int64_t k = k0; k < k_end; k++) {
                        const __m256 a = _mm256_set1_ps(a_row[k]);
                        const float *b = B + k * n + j;
                        s0 = _mm256_fmadd_ps(a, _mm256_load_ps(b + 0 * LANES), s0);
                        s1 = _mm256_fmadd_ps(a, _mm256_load_ps(b + 1 * LANES), s1);
                        s2 = _mm256_fmadd_ps(a, _mm256_load_ps(b + 2 * LANES), s2);
                        s3 = _mm256_fmadd_ps(a, _mm256_load_ps(b + 3 * LANES), s3);
                        s4 = _mm256_fmadd_ps(a, _mm256_load_ps(b + 4 * LANES), s4);
                        s5 = _mm256_fmadd_ps(a, _mm256_load_ps(b + 5 * LANES), s5);
                        s6 = _mm256_fmadd_ps(a, _mm256_load_ps(b + 6 * LANES), s6);
                        s7 = _mm256_fmadd_ps(a, _mm256_load_ps(b + 7 * LANES), s7);
                    }
                    _mm256_store_ps(c_row + j + 0 * LANES, s0);
                    _mm256_store_ps(c_row + j + 1 * LANES, s1);
                    _mm256_store_ps(c_row + j + 2 * LANES, s2);
                    _mm256_store_ps(c_row + j + 3 * LANES, s3);
                    _mm256_store_ps(c_row + j + 4 * LANES, s4);
                    _mm256_store_ps(c_row + j + 5 * LANES, s5);
                    _mm256_store_ps(c_row + j + 6 * LANES, s6);
                    _mm256_store_ps(c_row + j + 7 * LANES, s7);
                }
            }
        }
    }
}
