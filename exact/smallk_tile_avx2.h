/*
 * smallk_tile_avx2.h - the register tile the two small-k kernels share on
 * AVX2 + FMA: smallk_gemm_avx2.c writes it to C, fused_select_avx2.c compares
 * it with the rows' thresholds. One arithmetic for both, so the fused
 * candidate pass and the small-k product give exact_sgemm's AVX2 bits: up to
 * 6 rows by 16 columns (12 accumulators) from a p-major A panel (value (r, p)
 * at Ap[p * 6 + r]), two B loads per p (masked loads for a partial tile),
 * fused multiply-adds from 0 in increasing p.
 */
#ifndef SMALLK_TILE_AVX2_H
#define SMALLK_TILE_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#define SMALLK_AVX2_MR 6
#define SMALLK_AVX2_NR 16

/* All ones in the first count lanes (count clamped to 0 .. 8). */
static inline __m256i smallk_lanes_avx2(int64_t count)
{
    const int n = count < 0 ? 0 : count > 8 ? 8 : (int)count;
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/*
 * acc[r][h] = sum over p < k of A(r, p) * B(p, 8 h + lane); for a partial
 * tile (width < 16) B is read under the lane masks v0 / v1 and the lanes
 * outside them hold 0.
 */
static inline __attribute__((always_inline)) void smallk_tile_avx2(const int mr, int64_t k, int64_t width, __m256i v0,
                                                                  __m256i v1, const float *Ap, const float *b,
                                                                  int64_t ldb, __m256 acc[][2])
{
#pragma GCC unroll 6
    for (int r = 0; r < mr; r++) {
        acc[r][0] = _mm256_setzero_ps();
        acc[r][1] = _mm256_setzero_ps();
    }
    const float *a = Ap;
    if (width >= SMALLK_AVX2_NR) {
        for (int64_t p = 0; p < k; p++) {
            const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
            for (int r = 0; r < mr; r++) {
                const __m256 av = _mm256_broadcast_ss(a + r);
                acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
            }
            a += SMALLK_AVX2_MR;
            b += ldb;
        }
    } else {
        for (int64_t p = 0; p < k; p++) {
            const __m256 b0 = _mm256_maskload_ps(b, v0), b1 = _mm256_maskload_ps(b + 8, v1);
#pragma GCC unroll 6
            for (int r = 0; r < mr; r++) {
                const __m256 av = _mm256_broadcast_ss(a + r);
                acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
            }
            a += SMALLK_AVX2_MR;
            b += ldb;
        }
    }
}

#endif
