/*
 * sgemm_sup_avx2.c - the AVX2 + FMA small-product kernel (sgemm_sup_fn):
 * one tile of up to 6 x 16, read straight from unpacked A and B.
 *
 * The AVX-512 small-product scheme on 8-wide registers: broadcasts from
 * A[i * rsa + p * csa], B rows loaded as two 8-wide halves masked to the
 * tile's columns, FMA over p in increasing order, then c := alpha*ab
 * (beta == 0) or fma(beta, c, alpha*ab), as the packed avx2_fma_6x16
 * kernel does. Row count and halves are constants in each instance.
 */
#include <immintrin.h>

#include "sgemm_target.h"

#define SUP_MR 6

static inline __m256i column_mask(int64_t cols)
{
    const int32_t n = cols < 0 ? 0 : cols > 8 ? 8 : (int32_t)cols;
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline __attribute__((always_inline)) void
sup_tile(const int mr, const int halves, int64_t k, float alpha, const float *A, int64_t rsa,
         int64_t csa, const float *B, int64_t rsb, __m256i mask0, __m256i mask1, float beta,
         float *C, int64_t ldc)
{
    __m256 acc[SUP_MR][2];
#pragma GCC unroll 6
    for (int i = 0; i < mr; i++) {
        acc[i][0] = _mm256_setzero_ps();
        acc[i][1] = _mm256_setzero_ps();
    }
    /* rows as base[i / 3][(i % 3) * rsa]: base plus scaled index addressing, no spills */
    const float *base[2] = { A, mr > 3 ? A + 3 * rsa : A }; /* no pointer past the operand's rows */
#pragma GCC unroll 2
    for (int64_t p = 0; p < k; p++) {
        const __m256 b0 = _mm256_maskload_ps(B, mask0);
        const __m256 b1 = halves == 2 ? _mm256_maskload_ps(B + 8, mask1) : _mm256_setzero_ps();
#pragma GCC unroll 6
        for (int i = 0; i < mr; i++) {
            const __m256 a = _mm256_broadcast_ss(&base[i / 3][(i % 3) * rsa]);
            acc[i][0] = _mm256_fmadd_ps(a, b0, acc[i][0]);
            if (halves == 2)
                acc[i][1] = _mm256_fmadd_ps(a, b1, acc[i][1]);
        }
        base[0] = sup_advance(base[0], csa);
        base[1] = sup_advance(base[1], csa);
        B = sup_advance(B, rsb);
    }
    const __m256 valpha = _mm256_set1_ps(alpha);
    const __m256 vbeta = _mm256_set1_ps(beta);
#pragma GCC unroll 6
    for (int i = 0; i < mr; i++) {
        float *c = C + i * ldc;
#pragma GCC unroll 2
        for (int h = 0; h < halves; h++) {
            const __m256i mask = h == 0 ? mask0 : mask1;
            __m256 r = _mm256_mul_ps(valpha, acc[i][h]);
            if (beta != 0.0f)
                r = _mm256_fmadd_ps(vbeta, _mm256_maskload_ps(c + 8 * h, mask), r);
            _mm256_maskstore_ps(c + 8 * h, mask, r);
        }
    }
}

#define SUP_CASE(R)                                                                          \
    case R:                                                                                  \
        if (halves == 2)                                                                     \
            sup_tile(R, 2, k, alpha, A, rsa, csa, B, rsb, mask0, mask1, beta, C, ldc);       \
        else                                                                                 \
            sup_tile(R, 1, k, alpha, A, rsa, csa, B, rsb, mask0, mask1, beta, C, ldc);       \
        break;

void sgemm_sup_avx2_6x16(int64_t rows, int64_t cols, int64_t k, float alpha, const float *A,
                         int64_t rsa, int64_t csa, const float *B, int64_t rsb, float beta,
                         float *C, int64_t ldc)
{
    const int halves = cols > 8 ? 2 : 1;
    const __m256i mask0 = column_mask(cols);
    const __m256i mask1 = column_mask(cols - 8);
    switch (rows) {
        SUP_CASE(1)
        SUP_CASE(2)
        SUP_CASE(3)
        SUP_CASE(4)
        SUP_CASE(5)
        SUP_CASE(6)
    default:
        break;
    }
}
