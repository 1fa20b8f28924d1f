/*
 * sgemm_kernel_avx512.c - the AVX-512F SGEMM micro-kernels: 12 x 32,
 * 14 x 32, 8 x 48 and 6 x 64.
 *
 * Contract: sgemm_kernel_fn in sgemm_target.h. Each shape is one instance of
 * avx512_tile below, with the tile's rows and 16-wide column vectors as
 * compile-time constants: rows x vectors zmm accumulators (24 for 12 x 32,
 * 8 x 48 and 6 x 64; 28 for 14 x 32), one register per B vector and one for
 * the broadcast A value, out of 32. Per step p the B row is loaded and each
 * A value broadcast and multiplied into its row's accumulators with FMA, so
 * every element is summed over p in increasing order in one accumulator;
 * then c := alpha*ab (beta == 0) or fma(beta, c, alpha*ab). The shapes
 * differ in how many B loads and A broadcasts feed each FMA (12 x 32: 2 and
 * 12 for 24; 14 x 32: 2 and 14 for 28; 8 x 48: 3 and 8 for 24; 6 x 64: 4
 * and 6 for 24) and in the size of the B micro-panel the L1 cache holds
 * (kc x 32, 48 or 64 floats): which wins depends on the CPU, so the tuner
 * measures them (exact/tuning.h). The C tile is prefetched before the loop
 * so its cache misses overlap the arithmetic.
 */
#include <immintrin.h>

#include "sgemm_target.h"

/* c[0 .. 16 nv) := alpha*ab (beta_zero) or fma(beta, c, alpha*ab), ab given as nv vectors. */
static inline __attribute__((always_inline)) void avx512_store_row(const int nv, float *c, const __m512 *ab,
                                                                   __m512 valpha, __m512 vbeta, int beta_zero)
{
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++) {
        __m512 r = _mm512_mul_ps(valpha, ab[v]);
        if (!beta_zero)
            r = _mm512_fmadd_ps(vbeta, _mm512_loadu_ps(c + 16 * v), r);
        _mm512_storeu_ps(c + 16 * v, r);
    }
}

/*
 * The kc steps of an mr x (16 nv) tile into acc (zeroed here); prefetch
 * selects the loop with the A prefetch a_ahead floats ahead (a separate loop,
 * so the plain one carries no dead instruction).
 */
static inline __attribute__((always_inline)) void avx512_steps(const int mr, const int nv, const int prefetch,
                                                               int64_t kc, const float *restrict Ap,
                                                               const float *restrict Bp, int64_t a_ahead,
                                                               __m512 acc[][4])
{
#pragma GCC unroll 4
    for (int64_t p = 0; p < kc; p++) {
        __m512 b[4];
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++)
            b[v] = _mm512_loadu_ps(Bp + 16 * v);
        if (prefetch)
            _mm_prefetch((const char *)(Ap + a_ahead), _MM_HINT_T0);
#pragma GCC unroll 16
        for (int i = 0; i < mr; i++) {
            const __m512 a = _mm512_set1_ps(Ap[i]);
#pragma GCC unroll 4
            for (int v = 0; v < nv; v++)
                acc[i][v] = _mm512_fmadd_ps(a, b[v], acc[i][v]);
        }
        Ap += mr;
        Bp += 16 * nv;
    }
}

static inline __attribute__((always_inline)) void avx512_tile(const int mr, const int nv, int64_t kc, float alpha,
                                                              const float *restrict Ap, const float *restrict Bp,
                                                              float beta, float *restrict C, int64_t ldc,
                                                              int64_t a_ahead)
{
    __m512 acc[16][4];
#pragma GCC unroll 16
    for (int i = 0; i < mr; i++)
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++)
            acc[i][v] = _mm512_setzero_ps();

    /* fetch the C tile (every line of each row) while the products accumulate */
#pragma GCC unroll 16
    for (int i = 0; i < mr; i++)
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) {
            _mm_prefetch((const char *)(C + i * ldc + 16 * v), _MM_HINT_T0);
            _mm_prefetch((const char *)(C + i * ldc + 16 * v + 15), _MM_HINT_T0);
        }

    if (a_ahead > 0)
        avx512_steps(mr, nv, 1, kc, Ap, Bp, a_ahead, acc);
    else
        avx512_steps(mr, nv, 0, kc, Ap, Bp, 0, acc);

    const __m512 valpha = _mm512_set1_ps(alpha);
    const __m512 vbeta = _mm512_set1_ps(beta);
    const int beta_zero = beta == 0.0f;
#pragma GCC unroll 16
    for (int i = 0; i < mr; i++)
        avx512_store_row(nv, C + i * ldc, acc[i], valpha, vbeta, beta_zero);
}

void sgemm_kernel_avx512_12x32(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                               float beta, float *restrict C, int64_t ldc, int64_t a_ahead)
{
    avx512_tile(12, 2, kc, alpha, Ap, Bp, beta, C, ldc, a_ahead);
}

void sgemm_kernel_avx512_14x32(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                               float beta, float *restrict C, int64_t ldc, int64_t a_ahead)
{
    avx512_tile(14, 2, kc, alpha, Ap, Bp, beta, C, ldc, a_ahead);
}

void sgemm_kernel_avx512_8x48(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                              float beta, float *restrict C, int64_t ldc, int64_t a_ahead)
{
    avx512_tile(8, 3, kc, alpha, Ap, Bp, beta, C, ldc, a_ahead);
}

void sgemm_kernel_avx512_6x64(int64_t kc, float alpha, const float *restrict Ap, const float *restrict Bp,
                              float beta, float *restrict C, int64_t ldc, int64_t a_ahead)
{
    avx512_tile(6, 4, kc, alpha, Ap, Bp, beta, C, ldc, a_ahead);
}
