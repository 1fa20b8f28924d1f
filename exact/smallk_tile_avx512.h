/*
 * smallk_tile_avx512.h - the register tile the two small-k kernels share on
 * AVX-512F: smallk_gemm_avx512.c writes it to C, fused_select_avx512.c
 * compares it with the rows' thresholds. One arithmetic for both, so the
 * fused candidate pass and the small-k product give exact_sgemm's AVX-512
 * bits: up to 12 rows by 32 columns (24 accumulators) from a p-major A panel
 * (value (r, p) at Ap[p * 12 + r]), two B loads per p under the column masks,
 * fused multiply-adds from 0 in increasing p.
 */
#ifndef SMALLK_TILE_AVX512_H
#define SMALLK_TILE_AVX512_H

#include <immintrin.h>
#include <stdint.h>

#define SMALLK_AVX512_MR 12
#define SMALLK_AVX512_NR 32

/* All ones in the first count lanes (count clamped to 0 .. 16). */
static inline __mmask16 smallk_lanes_avx512(int64_t count)
{
    return count >= 16 ? (__mmask16)0xFFFF : count <= 0 ? (__mmask16)0 : (__mmask16)((1u << count) - 1u);
}

/* acc[r][h] = sum over p < k of A(r, p) * B(p, 16 h + lane), lanes outside m0 / m1 0 (B not read there). */
static inline __attribute__((always_inline)) void smallk_tile_avx512(const int mr, int64_t k, __mmask16 m0,
                                                                    __mmask16 m1, const float *Ap, const float *b,
                                                                    int64_t ldb, __m512 acc[][2])
{
#pragma GCC unroll 12
    for (int r = 0; r < mr; r++) {
        acc[r][0] = _mm512_setzero_ps();
        acc[r][1] = _mm512_setzero_ps();
    }
    const float *a = Ap;
    for (int64_t p = 0; p < k; p++) {
        const __m512 b0 = _mm512_maskz_loadu_ps(m0, b), b1 = _mm512_maskz_loadu_ps(m1, b + 16);
#pragma GCC unroll 12
        for (int r = 0; r < mr; r++) {
            const __m512 av = _mm512_set1_ps(a[r]);
            acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
        }
        a += SMALLK_AVX512_MR;
        b += ldb;
    }
}

#endif
