/*
 * sgemm_kernel_avx512.c - the AVX-512F SGEMM micro-kernel (12 x 32).
 *
 * Contract: sgemm_kernel_fn in sgemm_target.h. Register use: 24 zmm
 * accumulators (12 rows x two 16-wide halves), two for the B row and one
 * for the broadcast A value, out of 32. Each element is summed over p in
 * increasing order with FMA, then c := alpha*ab (beta == 0) or
 * fma(beta, c, alpha*ab). The C tile is prefetched before the loop so its
 * cache misses overlap the arithmetic.
 */
#include <immintrin.h>

#include "sgemm_target.h"

#define AVX512_MR 12
#define AVX512_NR 32

/* c[0..31] := alpha*ab (beta_zero) or beta*c + alpha*ab, ab given as two halves. */
static inline void avx512_store_row(float *c, __m512 ab_lo, __m512 ab_hi, __m512 valpha,
                                    __m512 vbeta, int beta_zero)
{
    __m512 lo = _mm512_mul_ps(valpha, ab_lo);
    __m512 hi = _mm512_mul_ps(valpha, ab_hi);
    if (!beta_zero) {
        lo = _mm512_fmadd_ps(vbeta, _mm512_loadu_ps(c), lo);
        hi = _mm512_fmadd_ps(vbeta, _mm512_loadu_ps(c + 16), hi);
    }
    _mm512_storeu_ps(c, lo);
    _mm512_storeu_ps(c + 16, hi);
}

void sgemm_kernel_avx512_12x32(int64_t kc, float alpha, const float *restrict Ap,
                               const float *restrict Bp, float beta, float *restrict C, int64_t ldc)
{
    __m512 lo[AVX512_MR], hi[AVX512_MR];
#pragma GCC unroll 12
    for (int i = 0; i < AVX512_MR; i++) {
        lo[i] = _mm512_setzero_ps();
        hi[i] = _mm512_setzero_ps();
    }

    /* fetch the C tile while the products accumulate */
#pragma GCC unroll 16
    for (int i = 0; i < AVX512_MR; i++) {
        _mm_prefetch((const char *)(C + i * ldc + 0), _MM_HINT_T0);
        _mm_prefetch((const char *)(C + i * ldc + 16), _MM_HINT_T0);
        _mm_prefetch((const char *)(C + i * ldc + 31), _MM_HINT_T0);
    }

    /* unrolled by 4; the A micro-panel streams from L2, fetched 16 steps ahead */
#pragma GCC unroll 4
    for (int64_t p = 0; p < kc; p++) {
        const __m512 b_lo = _mm512_loadu_ps(Bp);
        const __m512 b_hi = _mm512_loadu_ps(Bp + 16);
        _mm_prefetch((const char *)(Ap + AVX512_MR * 16), _MM_HINT_T0);
#pragma GCC unroll 12
        for (int i = 0; i < AVX512_MR; i++) {
            const __m512 a = _mm512_set1_ps(Ap[i]);
            lo[i] = _mm512_fmadd_ps(a, b_lo, lo[i]);
            hi[i] = _mm512_fmadd_ps(a, b_hi, hi[i]);
        }
        Ap += AVX512_MR;
        Bp += AVX512_NR;
    }

    const __m512 valpha = _mm512_set1_ps(alpha);
    const __m512 vbeta = _mm512_set1_ps(beta);
    const int beta_zero = beta == 0.0f;
#pragma GCC unroll 12
    for (int i = 0; i < AVX512_MR; i++)
        avx512_store_row(C + i * ldc, lo[i], hi[i], valpha, vbeta, beta_zero);
}
