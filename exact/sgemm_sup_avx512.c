/*
 * sgemm_sup_avx512.c - the AVX-512F small-product kernel (sgemm_sup_fn):
 * one tile of up to 12 x 32, read straight from unpacked A and B.
 *
 * A value is broadcast from A[i * rsa + p * csa] (any strides), a B row is
 * two 16-wide loads masked to the tile's columns, and every C element is
 * summed over p in increasing order with FMA, then c := alpha*ab
 * (beta == 0) or fma(beta, c, alpha*ab): the arithmetic of the packed
 * avx512_12x32 kernel. The row count and the number of 16-wide halves are
 * compile-time constants in each of the 24 instances the dispatcher picks.
 */
#include <immintrin.h>

#include "sgemm_target.h"

#define SUP_MR 12

static inline __mmask16 column_mask(int64_t cols)
{
    return cols >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << cols) - 1u);
}

static inline __attribute__((always_inline)) void
sup_tile(const int mr, const int halves, int64_t k, float alpha, const float *A, int64_t rsa,
         int64_t csa, const float *B, int64_t rsb, __mmask16 mask0, __mmask16 mask1, float beta,
         float *C, int64_t ldc)
{
    __m512 acc[SUP_MR][2];
#pragma GCC unroll 12
    for (int i = 0; i < mr; i++) {
        acc[i][0] = _mm512_setzero_ps();
        acc[i][1] = _mm512_setzero_ps();
    }
    /*
     * Rows are reached as base[j * rsa] with j in 0..2 from four bases three
     * rows apart, so every address is a base plus a scaled index register
     * and the loop needs no more general registers than x86-64 has.
     */
    /* (a base for rows the tile does not have stays at A: no pointer is formed past the operand) */
    const float *base[4] = { A, mr > 3 ? A + 3 * rsa : A, mr > 6 ? A + 6 * rsa : A, mr > 9 ? A + 9 * rsa : A };
#pragma GCC unroll 2
    for (int64_t p = 0; p < k; p++) {
        const __m512 b0 = _mm512_maskz_loadu_ps(mask0, B);
        const __m512 b1 = halves == 2 ? _mm512_maskz_loadu_ps(mask1, B + 16) : _mm512_setzero_ps();
#pragma GCC unroll 12
        for (int i = 0; i < mr; i++) {
            const __m512 a = _mm512_set1_ps(base[i / 3][(i % 3) * rsa]);
            acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]);
            if (halves == 2)
                acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
        }
#pragma GCC unroll 4
        for (int g = 0; g < 4; g++)
            base[g] = sup_advance(base[g], csa);
        B = sup_advance(B, rsb);
    }
    const __m512 valpha = _mm512_set1_ps(alpha);
    const __m512 vbeta = _mm512_set1_ps(beta);
#pragma GCC unroll 12
    for (int i = 0; i < mr; i++) {
        float *c = C + i * ldc;
#pragma GCC unroll 2
        for (int h = 0; h < halves; h++) {
            const __mmask16 mask = h == 0 ? mask0 : mask1;
            __m512 r = _mm512_mul_ps(valpha, acc[i][h]);
            if (beta != 0.0f)
                r = _mm512_fmadd_ps(vbeta, _mm512_maskz_loadu_ps(mask, c + 16 * h), r);
            _mm512_mask_storeu_ps(c + 16 * h, mask, r);
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

void sgemm_sup_avx512_12x32(int64_t rows, int64_t cols, int64_t k, float alpha, const float *A,
                            int64_t rsa, int64_t csa, const float *B, int64_t rsb, float beta,
                            float *C, int64_t ldc)
{
    const int halves = cols > 16 ? 2 : 1;
    const __mmask16 mask0 = column_mask(cols);
    const __mmask16 mask1 = column_mask(cols - 16 > 0 ? cols - 16 : 0);
    switch (rows) {
        SUP_CASE(1)
        SUP_CASE(2)
        SUP_CASE(3)
        SUP_CASE(4)
        SUP_CASE(5)
        SUP_CASE(6)
        SUP_CASE(7)
        SUP_CASE(8)
        SUP_CASE(9)
        SUP_CASE(10)
        SUP_CASE(11)
        SUP_CASE(12)
    default:
        break;
    }
}
