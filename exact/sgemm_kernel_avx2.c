/*
 * sgemm_kernel_avx2.c - the AVX2 + FMA SGEMM micro-kernel (6 x 16).
 *
 * Contract: sgemm_kernel_fn in sgemm_target.h. Register use: 12 ymm
 * accumulators (6 rows x two 8-wide halves), two for the B row and one for
 * the broadcast A value. Each element is summed over p in increasing order
 * with FMA, then c := alpha*ab (beta == 0) or fma(beta, c, alpha*ab).
 * The C tile is prefetched before the loop so its cache misses overlap the
 * arithmetic.
 */
#include <immintrin.h>

#include "sgemm_target.h"

#define AVX2_MR 6
#define AVX2_NR 16

/* c[0..15] := alpha*ab (beta_zero) or beta*c + alpha*ab, ab given as two halves. */
static inline void avx2_store_row(float *c, __m256 ab_lo, __m256 ab_hi, __m256 valpha,
                                  __m256 vbeta, int beta_zero)
{
    __m256 lo = _mm256_mul_ps(valpha, ab_lo);
    __m256 hi = _mm256_mul_ps(valpha, ab_hi);
    if (!beta_zero) {
        lo = _mm256_fmadd_ps(vbeta, _mm256_loadu_ps(c), lo);
        hi = _mm256_fmadd_ps(vbeta, _mm256_loadu_ps(c + 8), hi);
    }
    _mm256_storeu_ps(c, lo);
    _mm256_storeu_ps(c + 8, hi);
}

void sgemm_kernel_avx2_6x16(int64_t kc, float alpha, const float *restrict Ap,
                            const float *restrict Bp, float beta, float *restrict C, int64_t ldc)
{
    __m256 lo[AVX2_MR], hi[AVX2_MR];
#pragma GCC unroll 6
    for (int i = 0; i < AVX2_MR; i++) {
        lo[i] = _mm256_setzero_ps();
        hi[i] = _mm256_setzero_ps();
    }

    /* fetch the C tile while the products accumulate */
#pragma GCC unroll 16
    for (int i = 0; i < AVX2_MR; i++) {
        _mm_prefetch((const char *)(C + i * ldc + 0), _MM_HINT_T0);
        _mm_prefetch((const char *)(C + i * ldc + 15), _MM_HINT_T0);
    }

    for (int64_t p = 0; p < kc; p++) {
        const __m256 b_lo = _mm256_loadu_ps(Bp);
        const __m256 b_hi = _mm256_loadu_ps(Bp + 8);
#pragma GCC unroll 6
        for (int i = 0; i < AVX2_MR; i++) {
            const __m256 a = _mm256_broadcast_ss(Ap + i);
            lo[i] = _mm256_fmadd_ps(a, b_lo, lo[i]);
            hi[i] = _mm256_fmadd_ps(a, b_hi, hi[i]);
        }
        Ap += AVX2_MR;
        Bp += AVX2_NR;
    }

    const __m256 valpha = _mm256_set1_ps(alpha);
    const __m256 vbeta = _mm256_set1_ps(beta);
    const int beta_zero = beta == 0.0f;
#pragma GCC unroll 6
    for (int i = 0; i < AVX2_MR; i++)
        avx2_store_row(C + i * ldc, lo[i], hi[i], valpha, vbeta, beta_zero);
}
