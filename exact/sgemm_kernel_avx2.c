/*
 * sgemm_kernel_avx2.c - the AVX2 + FMA SGEMM micro-kernels: 6 x 16, 4 x 24
 * and 8 x 8.
 *
 * Contract: sgemm_kernel_fn in sgemm_target.h. Each shape is one instance of
 * avx2_tile below, with the tile's rows and 8-wide column vectors as
 * compile-time constants: rows x vectors ymm accumulators (12 for 6 x 16
 * and 4 x 24, 8 for 8 x 8), one register per B vector and one for the
 * broadcast A value, out of 16. Per step p the B row is loaded and each A
 * value broadcast and multiplied into its row's accumulators with FMA, so
 * every element is summed over p in increasing order in one accumulator;
 * then c := alpha*ab (beta == 0) or fma(beta, c, alpha*ab). B loads and A
 * broadcasts per FMA: 2 and 6 for 12 (6 x 16), 3 and 4 for 12 (4 x 24),
 * 1 and 8 for 8 (8 x 8, the narrow tile for thin products). The C tile is
 * prefetched before the loop so its cache misses overlap the arithmetic.
 */
#include <immintrin.h>

#include "sgemm_target.h"

/* c[0 .. 8 nv) := alpha*ab (beta_zero) or fma(beta, c, alpha*ab), ab given as nv vectors. */
static inline __attribute__((always_inline)) void avx2_store_row(const int nv, float *c, const __m256 *ab,
                                                                 __m256 valpha, __m256 vbeta, int beta_zero)
{
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++) {
        __m256 r = _mm256_mul_ps(valpha, ab[v]);
        if (!beta_zero)
            r = _mm256_fmadd_ps(vbeta, _mm256_loadu_ps(c + 8 * v), r);
        _mm256_storeu_ps(c + 8 * v, r);
    }
}

/* The kc steps of an mr x (8 nv) tile into acc (zeroed here), with or without the A prefetch. */
static inline __attribute__((always_inline)) void avx2_steps(const int mr, const int nv, const int prefetch,
                                                             int64_t kc, const float *restrict Ap,
                                                             const float *restrict Bp, int64_t a_ahead,
                                                             __m256 acc[][3])
{
#pragma GCC unroll 2
    for (int64_t p = 0; p < kc; p++) {
        __m256 b[3];
#pragma GCC unroll 3
        for (int v = 0; v < nv; v++)
            b[v] = _mm256_loadu_ps(Bp + 8 * v);
        if (prefetch)
            _mm_prefetch((const char *)(Ap + a_ahead), _MM_HINT_T0);
#pragma GCC unroll 8
        for (int i = 0; i < mr; i++) {
            const __m256 a = _mm256_broadcast_ss(Ap + i);
#pragma GCC unroll 3
            for (int v = 0; v < nv; v++)
                acc[i][v] = _mm256_fmadd_ps(a, b[v], acc[i][v]);
        }
        Ap += mr;
        Bp += 8 * nv;
    }
}

static inline __attribute__((always_inline)) void avx2_tile(const int mr, const int nv, int64_t kc, float alpha,
                                                            const float *restrict Ap, const float *restrict Bp,
                                                            float beta, float *restrict C, int64_t ldc,
                                                            int64_t a_ahead)
{
    __m256 acc[8][3];
#pragma GCC unroll 8
    for (int i = 0; i < mr; i++)
#pragma GCC unroll 3
        for (int v = 0; v < nv; v++)
            acc[i][v] = _mm256_setzero_ps();

    /* fetch the C tile (every line of each row) while the products accumulate */
#pragma GCC unroll 8
    for (int i = 0; i < mr; i++) {
#pragma GCC unroll 2
        for (int v = 0; v < nv; v += 2)
            _mm_prefetch((const char *)(C + i * ldc + 8 * v), _MM_HINT_T0);
        _mm_prefetch((const char *)(C + i * ldc + 8 * nv - 1), _MM_HINT_T0);
    }

    if (a_ahead > 0)
        avx2_steps(mr, nv, 1, kc, Ap, Bp, a_ahead, acc);
    else
        avx2_steps(mr, nv, 0, kc, Ap, Bp, 0, acc);

    const __m256 valpha = _mm256_set1_ps(alpha);
    const __m256 vbeta = _mm256_set1_ps(beta);
    const int beta_zero = beta == 0.0f;
#pragma GCC unroll 8
    for (int i = 0; i < mr; i++)
        avx2_store_row(nv, C + i * ldc, acc[i], valpha, vbeta, beta_zero);
}

void sgemm_kernel_avx2_6x16(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                            float beta, float *restrict C, int64_t ldc, int64_t a_ahead)
{
    avx2_tile(6, 2, kc, alpha, Ap, Bp, beta, C, ldc, a_ahead);
}

void sgemm_kernel_avx2_4x24(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                            float beta, float *restrict C, int64_t ldc, int64_t a_ahead)
{
    avx2_tile(4, 3, kc, alpha, Ap, Bp, beta, C, ldc, a_ahead);
}

void sgemm_kernel_avx2_8x8(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                           float beta, float *restrict C, int64_t ldc, int64_t a_ahead)
{
    avx2_tile(8, 1, kc, alpha, Ap, Bp, beta, C, ldc, a_ahead);
}
